"""Every release's layout of IBMQREP_APPLYMON, IBMQREP_CAPQMON and IBMQREP_CAPMON, in every export format, imports with every row.

The layouts come from IBM's migration scripts (assets/layouts/qrep_control_tables.json); the files
are named neutrally, so a headerless one is recognised by its column count and the types of its
cells alone (IBMQREP_CAPQMON at 10.1 FP and IBMQREP_CAPMON at 9.7 both have 17 columns; the z/OS
IBMQREP_APPLYMON orders Q_PERCENT_FULL before ROWS_PROCESSED from 9.7 on). FOR BIT DATA columns
hold 10- and 16-byte values in one column, raw or as hex.
"""

from __future__ import annotations

import csv
import io

import pytest

from engine.monitor.catalogue import stored_columns
from engine.monitor.importer import import_files, read_file
from engine.monitor.layouts import (
    APPLYMON,
    CAPMON,
    CAPQMON,
    canonical_release,
    columns_at,
    release_names,
    table_layouts,
)
from engine.store import MonitorImportError, Store
from tests.engine.store.test_monitor_formats import _db2_text, _rows, clp_text, del_bytes

TABLES = {t.name: t for t in (APPLYMON, CAPQMON, CAPMON)}
LAYOUTS = [lay for t in TABLES for p in ("luw", "zos") for lay in table_layouts(t, p)]
LAYOUTS = [  # z/OS's where its column order is its own
    lay
    for lay in LAYOUTS
    if lay.platform == "luw" or lay.names not in {luw.names for luw in table_layouts(lay.table, "luw")}
]
ROWS_COLUMN = {"IBMQREP_APPLYMON": "ROWS_APPLIED", "IBMQREP_CAPQMON": "ROWS_PUBLISHED"}
"""The stored column of each table that counts rows (IBMQREP_CAPMON's ROWS_PROCESSED is not read)."""


def _csv_text(columns, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for row in rows:
        w.writerow(["" if v is None else v.hex() if isinstance(v, bytes) else _db2_text(v) for v in row])
    return buf.getvalue()


def _export(fmt: str, columns, rows) -> bytes:
    if fmt in ("del-raw", "del-hex"):
        return del_bytes(rows, bit=fmt.removeprefix("del-"))
    if fmt in ("clp", "clp-x"):
        return clp_text(columns, rows, header=fmt == "clp").encode()
    return _csv_text(columns, rows).encode()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with Store.open(tmp_path_factory.mktemp("releases") / "r.duckdb") as s:
        yield s


def _cells(store, import_id: int, what: str, where: str, args=()) -> list:
    """``SELECT what`` over one import's stored cells (long form) ``WHERE where``."""
    cells, cell_args = store.import_cells_sql(import_id)
    return store.con.execute(f"SELECT {what} FROM ({cells}) WHERE {where}", [*cell_args, *args]).fetchall()


@pytest.mark.parametrize("fmt", ["del-raw", "del-hex", "clp", "clp-x", "csv"])
@pytest.mark.parametrize(
    "layout", LAYOUTS, ids=lambda lay: f"{lay.table.removeprefix('IBMQREP_')}-{lay.label}"
)
def test_every_layout_in_every_format_imports_every_row(tmp_path, store, layout, fmt):
    table = TABLES[layout.table]
    rows = _rows(table, layout.names)
    f = tmp_path / f"export-{fmt}.txt"
    f.write_bytes(_export(fmt, layout.names, rows))
    raw, found, names = read_file(f)
    assert found is table and names == layout.names, (found.name, layout.label)
    [(import_id, done)] = import_files(store, [f], f"p-{layout.table}-{layout.label}-{fmt}")
    assert done.n_rows == len(rows) and done.table is table
    assert done.numeric_columns == (*stored_columns(table.name, names), "MONITOR_INTERVAL")
    intervals = _cells(store, import_id, "value", "col = 'MONITOR_INTERVAL'")
    assert len(intervals) == len(rows) and {v for (v,) in intervals} == {30_000.0}  # every row, 30 s apart
    if table.name in ROWS_COLUMN:
        stored = _cells(store, import_id, "value", "col = ?", [ROWS_COLUMN[table.name]])
        assert len(stored) == len(rows) and {v for (v,) in stored} == {690_000.0}
    for timing in {"MQGET_TIME", "NUM_MQCMITS", "MQPUT_TIME"} & set(names):  # 10.2.1+: in its own field
        values = _cells(store, import_id, "value", "col = ?", [timing])
        assert sorted({v for (v,) in values}) == [7.0, 8.0, 9.0], timing


def test_releases_and_their_column_counts_are_those_of_the_migration_scripts():
    counts = {t: [len(lay.columns) for lay in table_layouts(t)] for t in TABLES}
    assert counts["IBMQREP_APPLYMON"] == [26, 27, 29, 33, 36, 47, 50, 57, 65]
    assert counts["IBMQREP_CAPQMON"] == [7, 10, 14, 16, 17, 22, 26]
    assert counts["IBMQREP_CAPMON"] == [12, 13, 17, 19, 23, 28]
    assert release_names()[0] == "8.2" and release_names()[-1] == "11.5 FP"


def test_types_change_where_the_scripts_alter_them():
    def type_at(table, release, name):
        return {c.name: c for c in columns_at(table, release)}[name]

    assert type_at("IBMQREP_APPLYMON", "9.7", "OLDEST_COMMIT_SEQ").type == "CHAR(10) FOR BIT DATA"
    assert type_at("IBMQREP_APPLYMON", "9.7 FP3", "OLDEST_COMMIT_SEQ").type == "VARCHAR(16) FOR BIT DATA"
    assert type_at("IBMQREP_APPLYMON", "11.5", "CURRENT_MEMORY").type == "INTEGER"
    assert type_at("IBMQREP_APPLYMON", "11.5 FP", "CURRENT_MEMORY").type == "BIGINT"
    dbms = type_at("IBMQREP_APPLYMON", "10.2.1", "DBMS_TIME")
    assert dbms.added == "10.2.1" and dbms.source.endswith("repl/mig1021/q/asnqappluwv1021.sql")
    zos = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5", "zos")]
    luw = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5", "luw")]
    assert zos.index("Q_PERCENT_FULL") < zos.index("ROWS_PROCESSED") and luw.index(
        "Q_PERCENT_FULL"
    ) > luw.index("ROWS_PROCESSED")


def test_release_names_as_users_type_them():
    assert canonical_release("11.5") == "11.5"
    assert canonical_release("9.7.3") == canonical_release("9.7fp3") == "9.7 FP3"
    assert canonical_release("10.2.1 fp") == "10.2.1 FP"
    with pytest.raises(
        MonitorImportError, match=r"--release '12' is not a documented release; use one of 8.2, 9.1"
    ):
        canonical_release("12")


def test_named_release_reads_a_file_by_that_layout(tmp_path):
    names = columns_at("IBMQREP_APPLYMON", "11.5")
    rows = _rows(APPLYMON, [c.name for c in names])
    f = tmp_path / "applymon.del"
    f.write_bytes(del_bytes(rows))
    _, table, read_names = read_file(f, release="11.5")
    assert table is APPLYMON and len(read_names) == 57
    with pytest.raises(MonitorImportError, match="release 10.2.1 has 47 columns, the file 57"):
        read_file(f, release="10.2.1")


def test_unknown_count_without_a_telling_name_lists_every_table(tmp_path):
    f = tmp_path / "export.del"
    f.write_bytes(b'"2024-03-04-09.00.00.000000",1,2\n')
    with pytest.raises(MonitorImportError) as e:
        read_file(f)
    text = str(e.value)
    assert "3 columns, which no documented layout has" in text
    assert "IBMQREP_APPLYMON: 26 (8.2)" in text and "IBMQREP_CAPMON: 12 (8.2)" in text


def test_bit_data_of_ten_and_sixteen_bytes_in_one_column(tmp_path, store):
    names = [c.name for c in columns_at("IBMQREP_CAPMON", "9.7 FP3")]
    rows = _rows(CAPMON, names)
    for k, row in enumerate(rows):  # values from before the migration stay unpadded next to new ones
        row[names.index("CURRENT_SEQ")] = bytes(range(10)) if k % 2 else bytes(range(200, 216))
    f = tmp_path / "capmon.del"
    f.write_bytes(del_bytes(rows))
    [(_, done)] = import_files(store, [f], "bit-data")
    assert done.n_rows == len(rows) and "CURRENT_SEQ" not in done.numeric_columns
    assert "CURRENT_SEQ" in done.ignored_columns and "MONITOR_INTERVAL" in done.numeric_columns


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_raw_bit_data_of_any_bytes_is_read_by_duckdb(tmp_path, store, monkeypatch, line_end):
    """Random log sequence numbers (every byte value, C1 controls, CR and LF inside quotes) in a DEL file."""
    import engine.monitor.importer as importer

    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=200)
    rng = __import__("numpy").random.default_rng(3)
    for k, row in enumerate(rows):
        for col in ("OLDEST_COMMIT_LSN", "OLDEST_COMMIT_SEQ"):
            row[names.index(col)] = rng.integers(0, 256, 16 if k % 2 else 10, dtype="uint8").tobytes()
    f = tmp_path / "applymon.del"
    f.write_bytes(del_bytes(rows).replace(b"\n", line_end) if line_end == b"\r\n" else del_bytes(rows))
    if line_end == b"\r\n":  # inside a value a LF stays a LF: rebuild rows with CR LF line ends only
        f.write_bytes(b"".join(del_bytes([r]).rstrip(b"\n") + b"\r\n" for r in rows))
    fell_back = []
    monkeypatch.setattr(importer, "_stream_rows", lambda *a, **k: fell_back.append(1))
    [(import_id, done)] = import_files(store, [f], f"raw-bytes-{len(line_end)}")
    assert not fell_back and done.n_rows == len(rows)
    count = _cells(store, import_id, "count(*)", "col = 'ROWS_APPLIED'")[0][0]
    assert count == len(rows)


def test_a_windows_export_with_crlf_line_ends_imports_every_row(tmp_path, store):
    names = [c.name for c in columns_at("IBMQREP_CAPQMON", "11.5")]
    rows = _rows(CAPQMON, names, n=50)
    for fmt in ("csv", "del-hex"):
        f = tmp_path / f"crlf-{fmt}.txt"
        f.write_bytes(_export(fmt, names, rows).replace(b"\n", b"\r\n"))
        [(_, done)] = import_files(store, [f], f"crlf-{fmt}")
        assert done.n_rows == len(rows), fmt


def _stored(store, import_id: int) -> list:
    return _cells(store, import_id, "line, monitor_time, queue, col, value", "TRUE ORDER BY col, line")


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_a_del_with_raw_bit_data_stores_what_the_header_csv_of_the_same_rows_stores(
    tmp_path, store, monkeypatch, line_end
):
    """Raw log sequence numbers holding the delimiter, quotes, CR, LF, CR LF and bytes that are not UTF-8."""
    import engine.monitor.importer as importer

    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=8)
    tricky = (b',"",\r\n\x85\x9f', b'\r"\n,\xa0\xff""', b'\n\r\r\n"', b"\x80,\x0d\x0a\x22\x22\xc3\x28")
    for k, row in enumerate(rows):
        for j, col in enumerate(("OLDEST_COMMIT_LSN", "OLDEST_COMMIT_SEQ")):
            row[names.index(col)] = tricky[(k + j) % len(tricky)].ljust(10 if k % 2 else 16, b",")
    raw = tmp_path / f"raw-{len(line_end)}.del"
    raw.write_bytes(b"".join(del_bytes([r]).removesuffix(b"\n") + line_end for r in rows))
    header = tmp_path / f"same-{len(line_end)}.csv"
    header.write_bytes(_csv_text(names, rows).encode())
    fell_back = []
    monkeypatch.setattr(importer, "_stream_rows", lambda *a, **k: fell_back.append(1))
    [(raw_id, raw_done)] = import_files(store, [raw], f"raw-vs-csv-{len(line_end)}")
    [(csv_id, csv_done)] = import_files(store, [header], f"csv-vs-raw-{len(line_end)}")
    assert not fell_back and raw_done.n_rows == csv_done.n_rows == len(rows)
    assert raw_done.numeric_columns == csv_done.numeric_columns
    from_raw, from_csv = _stored(store, raw_id), _stored(store, csv_id)
    first = min(r[0] for r in from_raw)  # the first row's last line: its values hold line breaks
    assert [r[0] - first for r in from_raw if r[3] == "ROWS_APPLIED"] == list(range(len(rows)))  # file order
    assert from_raw == [(line - 2 + first, *rest) for line, *rest in from_csv]  # the CSV's header is line 1


def test_a_latin1_queue_name_that_is_not_ascii_is_decoded_as_latin1(tmp_path, store):
    """Its bytes C3 A9 would read as UTF-8 'é': the file is Latin-1 (raw bit data is not UTF-8), so they are 'Ã©'."""
    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=3)
    for row in rows:
        row[names.index("RECVQ")] = "ASN.QÃ©.RECVQ"
        row[names.index("OLDEST_COMMIT_LSN")] = b"\xff" * 16
    f = tmp_path / "latin1.del"
    f.write_bytes(del_bytes(rows).replace("Ã©".encode(), "Ã©".encode("latin-1")))
    [(import_id, done)] = import_files(store, [f], "latin-1 queue")
    assert done.n_rows == len(rows)
    queues = {q for (q,) in _cells(store, import_id, "DISTINCT queue", "TRUE")}
    assert queues == {"ASN.QÃ©.RECVQ"}


def _applymon_del(tmp_path, name: str, rows) -> object:
    f = tmp_path / name
    f.write_bytes(del_bytes(rows, bit="hex"))
    return f


def test_columns_qrtune_does_not_read_may_hold_anything_and_duckdb_still_reads_the_file(
    tmp_path, store, monkeypatch
):
    import engine.monitor.importer as importer

    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=4)
    odd = {"QDEPTH": "n/a", "QSTART_TIME": "yesterday", "CURRENT_MEMORY": "1e999", "Q_PERCENT_FULL": "nan"}
    for row in rows:
        for col, text in odd.items():
            row[names.index(col)] = text
    f = _applymon_del(tmp_path, "odd.del", rows)
    fell_back = []
    monkeypatch.setattr(importer, "_stream_rows", lambda *a, **k: fell_back.append(1))
    [(import_id, done)] = import_files(store, [f], "odd unread columns")
    assert not fell_back and done.n_rows == len(rows)
    assert set(odd) <= set(done.ignored_columns) and not set(odd) & set(done.numeric_columns)
    assert {v for (v,) in _cells(store, import_id, "value", "col = 'ROWS_APPLIED'")} == {690_000.0}


def test_a_bad_value_in_a_column_qrtune_reads_names_file_line_column_and_value(tmp_path, store):
    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=4)
    rows[4][names.index("MQGET_TIME")] = "12,5"  # line 5; a comma inside quotes: one field
    f = _applymon_del(tmp_path, "bad.del", rows)
    with pytest.raises(MonitorImportError) as e:
        import_files(store, [f], "bad used column")
    assert f"{f}:5: MQGET_TIME '12,5' is not a number (expected a finite number or NULL)" in str(e.value)
    assert not [m for m in store.list_monitor_imports() if m.project_name == "bad used column"]


@pytest.mark.parametrize("parameter", [None, '"QM1",10080,10080,30000\n'])
def test_duckdb_and_the_row_by_row_reader_store_the_same_cells(tmp_path, store, monkeypatch, parameter):
    """Lines, times, queues, values and the derived MONITOR_INTERVAL (first rows from the parameter) alike."""
    import engine.monitor.importer as importer
    from engine.monitor.sqlimport import NotPlain

    names = [c.name for c in columns_at("IBMQREP_APPLYMON", "11.5 FP")]
    rows = _rows(APPLYMON, names, n=5)
    for k, row in enumerate(rows):
        row[names.index("END2END_LATENCY")] = 500.25 + k
        row[names.index("DBMS_TIME")] = None if k % 3 else 41
    files = [_applymon_del(tmp_path, "same_APPLYMON.del", rows)]
    if parameter:
        files.append(tmp_path / "same_APPLYPARMS.del")
        files[-1].write_text(parameter)
    [(fast_id, fast)] = import_files(store, files, f"fast-{bool(parameter)}")

    def refuse(*args, **kwargs):
        raise NotPlain("the row-by-row reader, for the comparison")

    monkeypatch.setattr(importer, "import_delimited", refuse)
    [(slow_id, slow)] = import_files(store, files, f"slow-{bool(parameter)}")
    assert (fast.numeric_columns, fast.interval_source) == (slow.numeric_columns, slow.interval_source)
    assert _stored(store, fast_id) == _stored(store, slow_id)
    assert len(_cells(store, fast_id, "value", "col = 'MONITOR_INTERVAL'")) == len(rows)
