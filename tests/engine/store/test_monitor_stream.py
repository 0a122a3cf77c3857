"""Streaming monitor import: batches of rows give the same store as one pass, errors across batch
boundaries, nothing left after a failure, progress, and the fit's sample drawn by DuckDB."""

from __future__ import annotations

from datetime import datetime, timedelta

import fit_fakes
import numpy as np
import pytest

from engine.calibrate.fit import (
    engine_fit_model,
    intervals_from_monitor,
    sample_intervals,
    sample_of,
    synthesize_intervals,
)
from engine.cli import main as qrtune_main
from engine.monitor import formats as monitor_formats
from engine.monitor.formats import file_encoding, text_lines
from engine.monitor.importer import import_files, load_monitor_rows, parse_file, to_csv_text
from engine.scenario import project_to_scenario
from engine.store import MonitorImportError, Store

T0 = datetime(2024, 3, 4, 8, 0, 0)


def _rows(n: int, queues=("QA.TO.QB.RECVQ",), extra=None) -> list[dict]:
    rows = []
    for i in range(n):
        for q in queues:
            row = {
                "MONITOR_TIME": T0 + timedelta(seconds=10 * (i + 1)),
                "RECVQ": q,
                "QSTART_TIME": T0,
                "END2END_LATENCY": 500 + i,
                "TRANS_APPLIED": 100,
                "ROWS_APPLIED": 1000 + i,
            }
            if extra:
                row.update(extra(i))
            rows.append(row)
    return rows


def _write(path, rows) -> str:
    path.write_text(to_csv_text("IBMQREP_APPLYMON", rows))
    return str(path)


def _stored(db, chunk_rows: int, files) -> tuple:
    with Store.open(db) as store:
        done = import_files(store, files, "p", chunk_rows=chunk_rows)
        wide = load_monitor_rows(store, "p")["IBMQREP_APPLYMON"]
        cells_sql, args = store.import_cells_sql(done[0][0])
        cells = store.con.execute(f"SELECT * FROM ({cells_sql}) ORDER BY col, line", args).fetchall()
    return done[0][1], wide, cells


def test_small_batches_store_exactly_what_one_pass_stores(tmp_path):
    f = _write(
        tmp_path / "q_APPLYMON.csv", _rows(20, queues=("Q1", "Q2"))
    )  # 40 rows, MONITOR_INTERVAL derived
    one, wide_one, cells_one = _stored(tmp_path / "one.duckdb", 1000, [f])
    many, wide_many, cells_many = _stored(tmp_path / "many.duckdb", 3, [f])
    assert cells_many == cells_one and len(cells_one) == 40 * 4  # 3 stored columns + MONITOR_INTERVAL
    assert (
        (one.n_rows, one.numeric_columns)
        == (many.n_rows, many.numeric_columns)
        == (
            40,
            ("END2END_LATENCY", "TRANS_APPLIED", "ROWS_APPLIED", "MONITOR_INTERVAL"),
        )
    )
    assert (many.first_monitor_time, many.last_monitor_time) == (
        T0 + timedelta(seconds=10),
        T0 + timedelta(seconds=200),
    )
    for col in wide_one:
        assert np.array_equal(wide_one[col], wide_many[col]), col
    assert np.all(wide_many["MONITOR_INTERVAL"] == 10_000.0)  # the first row of each queue too


def test_a_bad_row_in_the_second_batch_names_file_line_column_value_and_leaves_nothing(tmp_path, db):
    rows = _rows(10)
    rows[6]["ROWS_APPLIED"] = "12x"  # line 8: in the third batch of 3 rows
    f = _write(tmp_path / "late_APPLYMON.csv", rows)
    good = _write(tmp_path / "good_APPLYMON.csv", _rows(4))
    with Store.open(db) as store:
        with pytest.raises(MonitorImportError) as e:
            import_files(store, [good, f], "p", chunk_rows=3)
        assert store.list_monitor_imports() == []
        assert store.con.execute("SELECT count(*) FROM monitor_rows").fetchall()[0][0] == 0
        assert store.con.execute("SELECT count(*) FROM monitor_cell_tables").fetchall()[0][0] == 0
        assert not store.con.execute(
            "SELECT * FROM duckdb_tables() WHERE table_name LIKE 'monitor_cells_%'"
        ).fetchall()
    assert f"{f}:8: ROWS_APPLIED '12x' is not a number (expected a finite number or NULL)" in str(e.value)
    assert "nothing was imported" in str(e.value)


def test_problems_of_several_batches_are_all_listed_in_line_order(tmp_path):
    rows = _rows(12)
    rows[1]["MONITOR_TIME"] = "yesterday"
    rows[7]["END2END_LATENCY"] = "nan"
    rows[10]["TRANS_APPLIED"] = "1O0"
    rows[11]["QSTART_TIME"] = "2024-13-01-00.00.00.000000"  # not read: not a problem
    f = _write(tmp_path / "bad_APPLYMON.csv", rows)
    with pytest.raises(MonitorImportError) as e:
        parse_file(f, chunk_rows=4)
    msg = str(e.value)
    assert msg.startswith("3 malformed row(s) in bad_APPLYMON.csv")
    assert msg.index(f"{f}:3: MONITOR_TIME 'yesterday'") < msg.index(f"{f}:9: END2END_LATENCY 'nan'")
    assert f"{f}:12: TRANS_APPLIED '1O0' is not a number" in msg and "QSTART_TIME" not in msg


def test_an_unknown_column_text_in_a_later_batch_is_not_stored_at_all(tmp_path):
    f = _write(tmp_path / "new_APPLYMON.csv", _rows(9, extra=lambda i: {"FUTURE_X": i if i < 7 else "n/a"}))
    for chunk_rows in (2, 100):
        pf = parse_file(f, chunk_rows=chunk_rows)
        assert "FUTURE_X" in pf.ignored_columns and "FUTURE_X" not in pf.numeric_columns
        assert not np.any(pf.col == "FUTURE_X"), chunk_rows


def test_an_unknown_numeric_column_is_not_stored_either(tmp_path):
    f = _write(
        tmp_path / "new_APPLYMON.csv", _rows(6, extra=lambda i: {"FUTURE_N": None if i < 3 else 7 * i})
    )
    pf = parse_file(f, chunk_rows=2)
    assert "FUTURE_N" in pf.ignored_columns and not np.any(pf.col == "FUTURE_N")


def test_progress_rises_to_the_end_of_every_file(tmp_path, db):
    files = [_write(tmp_path / f"{k}_APPLYMON.csv", _rows(30)) for k in "ab"]
    seen = []
    with Store.open(db) as store:
        import_files(store, files, chunk_rows=7, progress=lambda f, text: seen.append((f, text)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0 < fractions[0] and fractions[-1] <= 1.0
    assert (
        fractions[-1] > 0.9
        and any("a_APPLYMON.csv" in t for _, t in seen)
        and "b_APPLYMON.csv" in seen[-1][1]
    )


def test_lines_split_across_read_blocks_as_splitlines_does(tmp_path, monkeypatch):
    text = "a\r\nbb\rccc\n\x0cdd\u2028e\r\n\r\nf"
    f = tmp_path / "x.txt"
    f.write_bytes(text.encode("utf-8"))
    for block in (1, 2, 3, 5):
        monkeypatch.setattr(monitor_formats, "BLOCK_CHARS", block)
        assert list(text_lines(str(f), "utf-8")) == text.splitlines(), block


def test_a_byte_that_is_not_utf8_late_in_the_file_decodes_it_all_as_latin1(tmp_path, monkeypatch):
    monkeypatch.setattr(monitor_formats, "BLOCK_CHARS", 16)
    f = tmp_path / "x.del"
    f.write_bytes(b'2024-01-01-00.00.10.000000,"Q",1\n' * 4 + b'2024-01-01-00.00.50.000000,"Q\xe9",1\n')
    assert file_encoding(str(f)) == "latin-1"
    f.write_bytes(b"\xef\xbb\xbfMONITOR_TIME\n")
    assert file_encoding(str(f)) == "utf-8-sig"


@pytest.mark.parametrize(("tail", "codec"), [("é".encode(), "utf-8-sig"), (b"\xc3", "latin-1")])
def test_a_character_split_across_read_blocks_is_decoded_whole(tmp_path, monkeypatch, tail, codec):
    """The block after a character's first byte is plain ASCII: it still completes (or breaks) the character."""
    monkeypatch.setattr(monitor_formats, "BLOCK_CHARS", 16)
    f = tmp_path / f"split-{codec}.del"
    f.write_bytes(b"x" * 15 + tail + b"y" * 40)
    assert file_encoding(str(f)) == codec


def test_a_queue_name_escaped_for_spreadsheets_reads_back_unchanged(tmp_path):
    f = _write(tmp_path / "q_APPLYMON.csv", _rows(3, queues=("=HYPERLINK(1)",)))
    assert "'=HYPERLINK(1)" in (tmp_path / "q_APPLYMON.csv").read_text()
    assert set(parse_file(f).queue) == {"=HYPERLINK(1)"}


def test_cli_error_for_a_bad_row_is_one_line(tmp_path, capsys):
    rows = _rows(5)
    rows[3]["TRANS_APPLIED"] = "1e999"
    f = _write(tmp_path / "bad_APPLYMON.csv", rows)
    assert qrtune_main(["import-monitor", f, "--db", str(tmp_path / "s.duckdb")]) == 3
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{f}:5: TRANS_APPLIED '1e999' is not a number" in err


def test_the_fit_sample_drawn_by_duckdb_is_the_one_drawn_from_all_intervals(tmp_path, db, baseline):
    settings = project_to_scenario(baseline)
    model = engine_fit_model(settings, "fit_fakes")
    offered = np.concatenate([np.linspace(300, 2200, 30), np.linspace(2200, 300, 30)])
    tables = synthesize_intervals(model, settings, fit_fakes.TRUE, offered, 10.0, np.random.default_rng(3))
    files = []
    for table, rows in tables.items():
        rows = [
            dict(r, MONITOR_TIME=r["MONITOR_TIME"] + timedelta(seconds=k % 3)) for k, r in enumerate(rows)
        ]
        if table == "IBMQREP_APPLYMON":
            rows[5]["ROWS_APPLIED"] = 0  # not an interval
            rows = [{k: v for k, v in r.items() if k != "MONITOR_INTERVAL"} for r in rows]  # from spacing
        (tmp_path / f"{table}.csv").write_text(to_csv_text(table, rows))
        files.append(tmp_path / f"{table}.csv")
    with Store.open(db) as store:
        import_files(store, files, baseline.name)
        every = intervals_from_monitor(load_monitor_rows(store, baseline.name), 10.0)
        sample = sample_intervals(store, baseline.name, 10.0, holdout_every=3, max_intervals=7)
    assert len(every) == 59 and any("capture_rows_per_s" in iv.measured for iv in every)
    assert sample == sample_of(every, holdout_every=3, max_intervals=7)
    assert (sample.n_fit_total, sample.n_holdout_total, len(sample.fit), len(sample.held)) == (40, 19, 7, 7)


def test_a_field_over_the_csv_limit_or_a_device_is_a_clean_error(tmp_path):
    f = tmp_path / "huge_APPLYMON.csv"
    f.write_text("MONITOR_TIME,RECVQ,ROWS_APPLIED\n2024-01-01-00.00.10.000000,Q," + "9" * 200_000 + "\n")
    with pytest.raises(
        MonitorImportError, match=r"huge_APPLYMON.csv:2: not a valid delimited row \(field larger"
    ):
        parse_file(f)
    with pytest.raises(MonitorImportError, match="/dev/zero: not a regular file"):
        parse_file("/dev/zero")


def test_an_import_killed_half_way_is_invisible_and_removed_by_the_next(tmp_path, db):
    f = _write(tmp_path / "q_APPLYMON.csv", _rows(12, extra=lambda i: {"MONITOR_INTERVAL": 10_000}))
    with Store.open(db) as store:  # a process killed after two committed batches: the import is unfinished
        import engine.monitor.importer as mi

        job = mi._monitor_job(f, 10, None, None)
        import_id = store.begin_monitor_import("p", f, "IBMQREP_APPLYMON")
        batches = job.raw.batches(5)
        for raw_rows in (next(batches), next(batches)):
            with store.transaction():
                job.write(store, import_id, *job.check(raw_rows))
    with Store.open(db) as store:
        assert store.con.execute("SELECT count(*) FROM monitor_rows").fetchall()[0][0] == 10 * 4
        assert store.list_monitor_imports() == [] and load_monitor_rows(store) == {}
        import_files(store, [f], "p")
        assert [m.n_rows for m in store.list_monitor_imports()] == [12]
        assert store.con.execute("SELECT count(*) FROM monitor_imports").fetchall()[0][0] == 1
        assert (
            store.con.execute("SELECT count(*) FROM monitor_rows").fetchall()[0][0] == 0
        )  # the killed import's
        [(_, name, _)] = store.con.execute("SELECT * FROM monitor_cell_tables").fetchall()  # the new one
        assert store.con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0] == 12


def test_a_wide_table_written_but_not_listed_when_killed_is_removed_by_the_next_import(
    tmp_path, db, monkeypatch
):
    """DuckDB's table is committed before it is listed; a process killed in between leaves it behind."""
    import engine.monitor.importer as mi

    f = _write(tmp_path / "q_APPLYMON.csv", _rows(5))
    with Store.open(db) as store:
        import_id = store.begin_monitor_import("p", f, "IBMQREP_APPLYMON")
        store.con.execute(f"CREATE TABLE monitor_cells_{import_id} AS SELECT 1 AS x").fetchall()
    fell_back = []
    monkeypatch.setattr(mi, "_stream_rows", lambda *a, **k: fell_back.append(1))
    with Store.open(db) as store:
        [(new_id, done)] = import_files(store, [f], "p")  # the killed import's id is given out again
        assert not fell_back and new_id == import_id and done.n_rows == 5
        assert store.con.execute(f"SELECT count(*) FROM monitor_cells_{new_id}").fetchall()[0][0] == 5
