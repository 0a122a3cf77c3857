"""Monitor-table CSV import: real column names across releases, file:line errors, all or nothing."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from engine.monitor.importer import (
    APPLYMON,
    CAPMON,
    CAPQMON,
    detect_table,
    import_files,
    load_monitor_rows,
    parse_file,
    parse_timestamp,
    to_csv_text,
)
from engine.store import MonitorImportError, Store

T0 = datetime(2013, 4, 2, 10, 0, 0)


def _applymon_rows(n=3, with_interval=True):
    rows = []
    for i in range(n):
        r = {
            "MONITOR_TIME": T0 + timedelta(seconds=10 * i),
            "RECVQ": "QA.TO.QB.RECVQ",
            "QSTART_TIME": T0 - timedelta(hours=1),
            "CURRENT_MEMORY": 2_097_152,
            "QDEPTH": 40 + i,
            "END2END_LATENCY": 520 + i,
            "QLATENCY": 300,
            "APPLY_LATENCY": 200 + i,
            "CAPTURE_LATENCY": 20,
            "TRANS_APPLIED": 1000,
            "ROWS_APPLIED": 5000 + i,
            "OLDEST_COMMIT_LSN": "x'00AB'",
        }
        if with_interval:
            r["MONITOR_INTERVAL"] = 10_000
        rows.append(r)
    return rows


def test_timestamps_db2_and_iso():
    assert parse_timestamp("2013-04-02-10.15.30.123456") == datetime(2013, 4, 2, 10, 15, 30, 123456)
    assert parse_timestamp("2013-04-02 10:15:30") == datetime(2013, 4, 2, 10, 15, 30)
    assert parse_timestamp("2013-04-02T10:15:30.5") == datetime(2013, 4, 2, 10, 15, 30, 500000)
    assert parse_timestamp("2013-04-02-10.15.30.123456789012") == datetime(2013, 4, 2, 10, 15, 30, 123456)
    assert parse_timestamp("yesterday") is None and parse_timestamp("2013-13-02 10:15:30") is None


def test_table_from_file_name_or_columns():
    assert detect_table("x/ASN.IBMQREP_CAPQMON.csv", ["MONITOR_TIME"]) is CAPQMON
    assert detect_table("export1.csv", ["MONITOR_TIME", "RECVQ"]) is APPLYMON
    assert detect_table("export2.csv", ["MONITOR_TIME", "SENDQ", "ROWS_PUBLISHED"]) is CAPQMON
    assert detect_table("export3.csv", ["MONITOR_TIME", "ROWS_PROCESSED"]) is CAPMON
    with pytest.raises(MonitorImportError, match="cannot tell which monitor table"):
        detect_table("export4.csv", ["MONITOR_TIME", "FOO"])


def test_applymon_values_units_and_text_columns(tmp_path):
    f = tmp_path / "IBMQREP_APPLYMON.csv"
    f.write_text(to_csv_text("IBMQREP_APPLYMON", _applymon_rows()))
    pf = parse_file(f)
    assert pf.table is APPLYMON and pf.n_rows == 3
    assert pf.numeric_columns == (
        "END2END_LATENCY",
        "QLATENCY",
        "APPLY_LATENCY",
        "CAPTURE_LATENCY",
        "TRANS_APPLIED",
        "ROWS_APPLIED",
        "MONITOR_INTERVAL",
    )
    assert pf.ignored_columns == ("QSTART_TIME", "CURRENT_MEMORY", "QDEPTH", "OLDEST_COMMIT_LSN")  # not read
    cells = {(int(line), c): v for line, c, v in zip(pf.line, pf.col, pf.value)}
    assert cells[(2, "END2END_LATENCY")] == 520 and cells[(4, "ROWS_APPLIED")] == 5002
    assert cells[(3, "APPLY_LATENCY")] == 201 and cells[(2, "MONITOR_INTERVAL")] == 10_000
    assert not {c for _, c in cells} & set(pf.ignored_columns)


def test_older_and_newer_releases_columns(tmp_path, db):
    old = [
        {k: v for k, v in r.items() if k not in ("MONITOR_INTERVAL", "CAPTURE_LATENCY", "QSTART_TIME")}
        for r in _applymon_rows()
    ]
    new = [dict(r, NUM_MQGETS=12, FUTURE_COUNTER=7, FUTURE_NOTE="hello") for r in _applymon_rows()]
    (tmp_path / "old_APPLYMON.csv").write_text(to_csv_text("IBMQREP_APPLYMON", old))
    (tmp_path / "new_APPLYMON.csv").write_text(to_csv_text("IBMQREP_APPLYMON", new))
    pf_new = parse_file(tmp_path / "new_APPLYMON.csv")
    assert "NUM_MQGETS" in pf_new.numeric_columns and "FUTURE_COUNTER" not in pf_new.numeric_columns
    assert pf_new.ignored_columns[-2:] == ("FUTURE_COUNTER", "FUTURE_NOTE")  # a newer release's: not read
    with Store.open(db) as s:
        import_files(s, [tmp_path / "old_APPLYMON.csv", tmp_path / "new_APPLYMON.csv"], "proj")
        wide = load_monitor_rows(s, "proj")["IBMQREP_APPLYMON"]
    # the same three intervals exported by two releases: one row each, the newer release's columns joined
    assert len(wide["monitor_time"]) == 3
    assert list(wide["NUM_MQGETS"]) == [12] * 3 and "FUTURE_COUNTER" not in wide
    assert not np.isnan(wide["CAPTURE_LATENCY"]).any()
    with Store.open(db, read_only=True) as s:  # both files are kept whole
        assert [m.n_rows for m in s.list_monitor_imports("proj")] == [3, 3]


def test_capqmon_and_capmon_semicolon_quoted(tmp_path, db):
    (tmp_path / "q.csv").write_text(
        '"MONITOR_TIME";"SENDQ";"ROWS_PUBLISHED";"TRANS_PUBLISHED";"MQ_BYTES";"MQ_MESSAGES";"CURRENT_SEQ"\n'
        '"2013-04-02-10.00.10.000000";"QA.TO.QB.SENDQ";50000;10000;1800000;3334;"0000AB12"\n'
    )
    (tmp_path / "c.csv").write_text(
        "ASN.IBMQREP_CAPMON.MONITOR_TIME,ASN.IBMQREP_CAPMON.CURRENT_MEMORY,ASN.IBMQREP_CAPMON.ROWS_PROCESSED,"
        "ASN.IBMQREP_CAPMON.MQCMIT_TIME,ASN.IBMQREP_CAPMON.NUM_MQCMITS\n2013-04-02 10:00:10,52428800,50000,41,2\n"
    )
    with Store.open(db) as s:
        import_files(s, [tmp_path / "q.csv", tmp_path / "c.csv"])
        wide = load_monitor_rows(s)
    q = wide["IBMQREP_CAPQMON"]
    assert (
        q["queue"][0] == "QA.TO.QB.SENDQ" and q["ROWS_PUBLISHED"][0] == 50000 and q["MQ_BYTES"][0] == 1800000
    )
    assert "CURRENT_SEQ" not in q and "TRANS_PUBLISHED" not in q  # not read
    c = wide["IBMQREP_CAPMON"]
    assert (c["MQCMIT_TIME"][0], c["NUM_MQCMITS"][0]) == (41, 2) and "CURRENT_MEMORY" not in c


def test_malformed_rows_name_file_and_line_and_import_nothing(tmp_path, db):
    good = tmp_path / "good_APPLYMON.csv"
    good.write_text(to_csv_text("IBMQREP_APPLYMON", _applymon_rows()))
    bad = tmp_path / "bad_CAPQMON.csv"
    bad.write_text(
        "MONITOR_TIME,SENDQ,ROWS_PUBLISHED,TRANS_PUBLISHED\n"
        "2013-04-02 10:00:10,QA,50000,10000\n"
        "2013-04-02 10:00:20,QA,5O000,10000\n"
        "2013-04-02 10:00:30,QA,50000\n"
        "02/04/2013,QA,1,1\n"
        "2013-04-02 10:00:50,,1,1\n"
    )
    with Store.open(db) as s:
        with pytest.raises(MonitorImportError) as e:
            import_files(s, [good, bad])
        assert s.list_monitor_imports() == []
        assert s.con.execute("SELECT count(*) FROM monitor_rows").fetchall()[0][0] == 0
        assert s.con.execute("SELECT count(*) FROM monitor_cell_tables").fetchall()[0][0] == 0
    msg = str(e.value)
    assert "nothing was imported" in msg
    assert f"{bad}:3: ROWS_PUBLISHED '5O000' is not a number" in msg
    assert f"{bad}:4: 3 fields but the header has 4" in msg
    assert f"{bad}:5: MONITOR_TIME '02/04/2013' is not a timestamp" in msg
    assert f"{bad}:6: SENDQ is empty" in msg
    assert msg.index(":3:") < msg.index(":4:") < msg.index(":5:")


def test_missing_required_column(tmp_path):
    f = tmp_path / "x_APPLYMON.csv"
    f.write_text("MONITOR_TIME,ROWS_APPLIED\n2013-04-02 10:00:10,5\n")
    with pytest.raises(
        MonitorImportError, match=r"x_APPLYMON.csv:1: IBMQREP_APPLYMON export lacks column RECVQ"
    ):
        parse_file(f)


def test_an_overlapping_export_imported_again_is_not_doubled(tmp_path, db):
    first = tmp_path / "mon1_APPLYMON.csv"
    first.write_text(to_csv_text("IBMQREP_APPLYMON", _applymon_rows(4)))
    week = tmp_path / "mon2_APPLYMON.csv"  # rows 2..6: overlaps rows 2 and 3 of the first
    rows = _applymon_rows(7)[2:]
    week.write_text(to_csv_text("IBMQREP_APPLYMON", rows))
    with Store.open(db) as s:
        import_files(s, [first], "p")
        import_files(s, [week], "p")
        import_files(s, [week], "other project")
        imports = s.list_monitor_imports()
        wide = load_monitor_rows(s, "p")["IBMQREP_APPLYMON"]
        other = load_monitor_rows(s, "other project")["IBMQREP_APPLYMON"]
    assert [(m.project_name, m.n_rows) for m in imports] == [("p", 4), ("p", 5), ("other project", 5)]
    times = wide["monitor_time"].astype("datetime64[s]").astype(datetime).tolist()
    assert times == [T0 + timedelta(seconds=10 * i) for i in range(7)]  # each interval once, in time order
    assert (
        list(wide["APPLY_LATENCY"]) == [200, 201, 202, 203, 204, 205, 206] and len(other["monitor_time"]) == 5
    )


def test_the_stored_columns_are_numeric_columns_of_their_table_and_documented():
    from pathlib import Path

    from engine.monitor.catalogue import STORED

    doc = (Path(__file__).resolve().parents[3] / "docs" / "monitor-export.md").read_text(encoding="utf-8")
    section = " ".join(doc.split("## What is imported", 1)[1].split("\n## ", 1)[0].split())
    for table, columns in STORED.items():
        spec = {t.name: t for t in (APPLYMON, CAPQMON, CAPMON)}[table]
        assert set(columns) <= set(spec.numeric), table  # the readers convert them to numbers
        assert "MONITOR_INTERVAL" in columns
        assert all(c in section for c in columns if c != "MONITOR_INTERVAL"), table
