"""What Db2 users produce from the monitor tables imports: DEL and UNLOAD DELIMITED without a header,
FOR BIT DATA as raw bytes or hex, CLP tables (``db2`` and ``db2 -x``), the parameter tables.

Files are built from the documented column order of each release (engine.monitor.layouts) on a
steady workload: 23,000 rows/s, MONITOR_INTERVAL 30 s. The first interval of each queue has no
previous row; its rate must match the others within 10% (a fixed 10 s guess made it 3x too fast).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from datetime import datetime, timedelta

import numpy as np
import pytest

from engine.calibrate.fit import intervals_from_monitor
from engine.monitor.importer import load_monitor_rows, parse_file, parse_files, write_parsed
from engine.monitor.layouts import APPLYMON, CAPMON, CAPQMON, column_kinds, layouts
from engine.store import MonitorImportError, Store

T0 = datetime(2024, 3, 4, 9, 0, 0, 123456)
INTERVAL_S = 30
ROWS_PER_S = 23_000
BIT_VALUES = (b'\x00\x01"\n,\xff\x8a\xc3', b"\x00\x00\x00\x00\x12\x34\xab\xcd\xef\x10")
QUEUES = ("ASN.QA.TO.QB.RECVQ", "ASN.QA.TO.QC.RECVQ")


def _value(table, column: str, i: int, queue: str):
    """The cell of row ``i`` of a steady workload (None: NULL)."""
    if column == "MONITOR_TIME":
        return T0 + timedelta(seconds=INTERVAL_S * i)
    if column in (table.queue_column,):
        return queue
    kind = column_kinds(table.name)[column]
    if kind == "time":
        return T0 - timedelta(hours=1) + timedelta(seconds=INTERVAL_S * i)
    if kind == "bit":
        return BIT_VALUES[i % 2]
    if column in ("ROWS_APPLIED", "ROWS_PUBLISHED", "ROWS_PROCESSED"):
        return ROWS_PER_S * INTERVAL_S
    if column == "UNIQ_RETRIES":
        return None
    return 7 + i % 3  # within Q_PERCENT_FULL's 0 .. 100


def _rows(table, columns, n=6):
    queues = QUEUES if table.queue_column else ("",)
    return [[_value(table, c, i, q) for c in columns] for i in range(n) for q in queues]


def _db2_text(v) -> str:
    return v.strftime("%Y-%m-%d-%H.%M.%S.%f") if isinstance(v, datetime) else str(v)


def del_bytes(rows, bit: str = "raw", delimiter: bytes = b",") -> bytes:
    """EXPORT ... OF DEL: no header, strings and timestamps quoted, NULL empty, bit data raw or HEX()."""
    out = bytearray()
    for row in rows:
        fields = []
        for v in row:
            if v is None:
                fields.append(b"")
            elif isinstance(v, bytes):
                payload = v if bit == "raw" else v.hex().upper().encode()
                fields.append(b'"' + payload.replace(b'"', b'""') + b'"')
            elif isinstance(v, (str, datetime)):
                fields.append(b'"' + _db2_text(v).encode() + b'"')
            else:
                fields.append(str(v).encode())
        out += delimiter.join(fields) + b"\n"
    return bytes(out)


def clp_text(columns, rows, header: bool = True) -> str:
    """``db2 "SELECT * FROM ..."`` (header, dashes, footer) or ``db2 -x`` (rows only)."""
    cells = [
        ["-" if v is None else f"x'{v.hex().upper()}'" if isinstance(v, bytes) else _db2_text(v) for v in row]
        for row in rows
    ]
    widths = [max(len(c), *(len(r[k]) for r in cells)) for k, c in enumerate(columns)]

    def line(values, numeric):
        return " ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)).rstrip()

    numeric = [isinstance(v, int) for v in rows[0]]
    body = [line(r, numeric) for r in cells]
    if not header:
        return "\n".join(body) + "\n"
    return "\n".join(
        [
            "",
            line(columns, [False] * len(columns)),
            " ".join("-" * w for w in widths),
            *body,
            "",
            f"  {len(rows)} record(s) selected.",
            "",
        ]
    )


def _rates(db, paths):
    with Store.open(db) as store:
        write_parsed(store, parse_files(paths))
        tables = load_monitor_rows(store)
    return np.asarray([iv.measured["apply_rows_per_s"] for iv in intervals_from_monitor(tables)])


def _assert_steady(rates):
    assert rates.size >= 10
    assert np.all(np.abs(rates / ROWS_PER_S - 1) < 0.10), rates


@pytest.mark.parametrize("release", ["9.5", "9.7", "9.7 FP3"])
@pytest.mark.parametrize("bit", ["raw", "hex"])
def test_del_export_without_header_imports_by_the_release_layout(tmp_path, db, release, bit):
    columns = layouts(APPLYMON)[release]
    f = tmp_path / "applymon.del"
    f.write_bytes(del_bytes(_rows(APPLYMON, columns), bit=bit))
    pf = parse_file(f)
    assert pf.table is APPLYMON and pf.shape == "del" and pf.n_rows == 12
    assert "ROWS_APPLIED" in pf.numeric_columns and not np.any(pf.col == "UNIQ_RETRIES")  # NULL: no cell
    assert set(pf.queue) == set(QUEUES)
    _assert_steady(_rates(db, [f]))


def test_first_interval_from_the_parameter_table_in_ms_or_seconds(tmp_path, db):
    f = tmp_path / "ASN.IBMQREP_APPLYMON.del"
    f.write_bytes(del_bytes(_rows(APPLYMON, layouts(APPLYMON)["9.7 FP3"])))
    parms = tmp_path / "ASN.IBMQREP_APPLYPARMS.del"
    parms.write_text('"QM1",10080,10080,30000,300,"N","N","N"\n')
    pf = parse_files([parms, f])[0]
    assert pf.interval_source.endswith("(first interval)")
    first = {q: v for q, c, v in zip(pf.queue, pf.col, pf.value) if c == "MONITOR_INTERVAL"}
    assert first and all(v == pytest.approx(30_000) for v in first.values())
    _assert_steady(_rates(db, [parms, f]))
    old = tmp_path / "old_APPLYPARMS.del"  # before Version 9.7 the parameter was in seconds
    old.write_text("30\n")
    _assert_steady(_rates(tmp_path / "other.duckdb", [old, f]))


@pytest.mark.parametrize("header", [True, False])
def test_clp_output_of_each_monitor_table(tmp_path, header):
    for table in (APPLYMON, CAPQMON, CAPMON):
        columns = layouts(table)["9.7 FP3"]
        f = tmp_path / f"{table.name.lower()}-{header}.txt"
        f.write_text(clp_text(columns, _rows(table, columns), header=header))
        pf = parse_file(f)
        assert pf.table is table and pf.shape == ("clp" if header else "clp-x")
        intervals_ms = pf.value[pf.col == "MONITOR_INTERVAL"]
        assert intervals_ms.size == pf.n_rows and np.all(intervals_ms == INTERVAL_S * 1000), table.name
        rows_col = {"IBMQREP_APPLYMON": "ROWS_APPLIED", "IBMQREP_CAPQMON": "ROWS_PUBLISHED"}.get(table.name)
        if rows_col:  # IBMQREP_CAPMON's rows are not read (its MQCMIT_TIME is, from 10.2.1)
            per_s = pf.value[pf.col == rows_col] / (intervals_ms / 1000.0)
            assert np.all(np.abs(per_s / ROWS_PER_S - 1) < 0.10), (table.name, per_s)


def test_clp_output_imports_end_to_end(tmp_path, db):
    columns = layouts(APPLYMON)["9.7 FP3"]
    f = tmp_path / "applymon.txt"
    f.write_text(clp_text(columns, _rows(APPLYMON, columns)))
    _assert_steady(_rates(db, [f]))


def test_zos_unload_delimited_of_each_table_ascii_and_ebcdic(tmp_path):
    for table in (APPLYMON, CAPQMON, CAPMON):
        columns = layouts(table)["9.7"]
        data = del_bytes(_rows(table, columns), bit="hex", delimiter=b";")
        for name, payload in (("ascii", data), ("ebcdic", data.decode("latin-1").encode("cp037"))):
            f = tmp_path / f"UNLOAD.{table.name.removeprefix('IBMQREP_')}.{name}"
            f.write_bytes(payload)
            pf = parse_file(f)
            assert pf.table is table and pf.n_rows == len(_rows(table, columns)), (table.name, name)


def test_headerless_file_with_an_undocumented_column_count_names_what_was_expected(tmp_path):
    columns = layouts(APPLYMON)["9.7 FP3"] + ("SOMETHING_NEW",)
    f = tmp_path / "x_APPLYMON.del"
    f.write_bytes(del_bytes([r + [1] for r in _rows(APPLYMON, columns[:-1])]))
    with pytest.raises(
        MonitorImportError,
        match=r"37 columns; the documented layouts have 26 \(8.2\), 27 \(9.1\).*36 \(9.7 FP3 .. 10.1 FP\).*--columns",
    ):
        parse_file(f)
    pf = parse_file(f, columns=columns)
    assert "SOMETHING_NEW" in pf.ignored_columns and "ROWS_APPLIED" in pf.numeric_columns


def test_wrong_release_is_reported_with_the_layout_used(tmp_path):
    f = tmp_path / "x_APPLYMON.del"
    f.write_bytes(del_bytes(_rows(APPLYMON, layouts(APPLYMON)["9.7"])))
    with pytest.raises(MonitorImportError, match="release 9.5 has 29 columns, the file 33"):
        parse_file(f, release="9.5")


def test_header_csv_with_hex_bit_data_is_still_read_by_its_header(tmp_path):
    columns = ("RECVQ", "MONITOR_TIME", "ROWS_APPLIED", "OLDEST_COMMIT_SEQ")
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(columns)
    for i in range(4):
        w.writerow(
            [QUEUES[0], _db2_text(T0 + timedelta(seconds=INTERVAL_S * i)), 690_000, BIT_VALUES[1].hex()]
        )
    f = tmp_path / "export.csv"
    f.write_text(buf.getvalue())
    pf = parse_file(f)
    assert pf.shape == "csv" and pf.ignored_columns == ("OLDEST_COMMIT_SEQ",) and pf.n_rows == 4
    assert pf.interval_source == "MONITOR_TIME spacing"


def test_cli_import_of_a_del_export_and_its_parameters(tmp_path, root):
    f = tmp_path / "applymon.del"
    f.write_bytes(del_bytes(_rows(APPLYMON, layouts(APPLYMON)["9.7 FP3"])))
    parms = tmp_path / "applyparms.del"
    parms.write_text('"QM1",10080,10080,30000\n')
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "import-monitor",
            str(f),
            str(parms),
            "--db",
            str(tmp_path / "r.duckdb"),
            "--json",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert '"shape": "del"' in out.stdout and "parameter table" in out.stdout
