"""The store: schema and migrations, round trips of every record, the one-writer lock."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import duckdb
import numpy as np
import pytest
import store_fakes
from store_runs import record_simulated

from engine.store import (
    SCHEMA_VERSION,
    Store,
    StoreError,
    StoreLockedError,
    UnknownRunError,
    default_db_path,
    project_hash,
)
from engine.store.schema import MIGRATIONS


def _pred(project):
    from engine.scenario import project_to_scenario

    return store_fakes.predict(project_to_scenario(project))


def test_new_store_has_current_schema(db):
    with Store.open(db) as s:
        assert s.schema_version == SCHEMA_VERSION == 5
        assert s.count_runs() == 0


def test_version_1_store_is_migrated_and_keeps_its_runs(db):
    con = duckdb.connect(str(db))
    for stmt in MIGRATIONS[1]:
        con.execute(stmt)
    con.execute("INSERT INTO schema_info VALUES (1, now()::TIMESTAMP)")
    con.execute(
        "INSERT INTO runs VALUES (7, 'p', 'h', '{}', '0.1', '', NULL, 'predict', now()::TIMESTAMP, 'ok', "
        "'qrep', NULL, NULL, NULL, '', '')"
    )
    con.close()
    with pytest.raises(StoreError, match="open it once for writing"):
        Store.open(db, read_only=True)
    with Store.open(db) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert [r.id for r in s.list_runs()] == [7]
        assert s.latest_fit("p") is None  # the v2 table exists


def test_newer_store_is_refused(db):
    with Store.open(db) as s:
        s.con.execute("INSERT INTO schema_info VALUES (99, now()::TIMESTAMP)").fetchall()
    with pytest.raises(StoreError, match="schema version 99, newer"):
        Store.open(db)


def test_foreign_duckdb_file_is_refused(db):
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE something (x INTEGER)")
    con.close()
    with pytest.raises(StoreError, match="not a qrtune results store"):
        Store.open(db)


def test_read_only_open_of_missing_file_names_it(tmp_path):
    with pytest.raises(StoreError, match="no results store at"):
        Store.open(tmp_path / "nope.duckdb", read_only=True)


def test_default_path_is_in_user_data_dir(monkeypatch):
    monkeypatch.delenv("QRTUNE_DB", raising=False)
    p = default_db_path()
    assert p.name == "runs.duckdb" and "qrtune" in str(p.parent)
    monkeypatch.setenv("QRTUNE_DB", "/tmp/x.duckdb")
    assert str(default_db_path()) == "/tmp/x.duckdb"


def test_prediction_round_trip(db, baseline):
    pred = _pred(baseline)
    with Store.open(db) as s:
        run_id = s.record_prediction(baseline, pred, label="first")
        data = s.load_run(run_id)
    assert data.run.kind == "predict" and data.run.status == "ok" and data.run.label == "first"
    assert data.run.project_name == baseline.name and data.run.project_hash == project_hash(baseline)
    assert data.run.coefficients_version == "fake-1" and data.run.bottleneck == pred.bottleneck
    assert {m.metric: m.value for m in data.metrics} == pred.metrics
    assert {m.metric: m.unit for m in data.metrics} == pred.units
    assert [(st.name, st.capacity, st.utilisation, st.latency_ms) for st in data.stages] == [
        (x.name, x.capacity, x.utilisation, x.latency_ms) for x in pred.stages
    ]
    assert data.settings["qapply"]["num_apply_agents"] == 6 and data.settings["kind"] == "qrep"


def test_project_is_kept_and_hash_ignores_layout(db, baseline):
    from dataclasses import replace

    moved = replace(baseline, name="renamed", nodes=tuple(replace(n, x=n.x + 5) for n in baseline.nodes))
    assert project_hash(moved) == project_hash(baseline)
    assert project_hash(baseline.with_param("ab-5-qapply", "num_apply_agents", 7)) != project_hash(baseline)
    with Store.open(db) as s:
        digest = s.save_project(baseline)
        assert s.load_project(digest) == baseline


def test_simulation_round_trip_with_timeseries(db, baseline):
    t = np.arange(0.0, 60.0, 10.0)
    depth = np.array([0, 5, 50, 20, 3, 0.0])
    with Store.open(db) as s:
        run_id = record_simulated(
            s,
            baseline,
            {"peak_depth": 50.0, "catch_up_s": 30.0},
            {"peak_depth": "msgs"},
            timeseries={"qdepth": (t[::-1], depth[::-1]), "rate": (t, t * 2)},
            seed=42,
        )
        data = s.load_run(run_id)
    assert data.run.kind == "simulate" and data.run.seed == 42
    assert data.metric("peak_depth") == 50.0
    np.testing.assert_array_equal(data.timeseries["qdepth"][0], t)  # sorted by time
    np.testing.assert_array_equal(data.timeseries["qdepth"][1], depth)
    np.testing.assert_array_equal(data.timeseries["rate"][1], t * 2)


def test_ids_increase_and_list_filters(db, baseline, bidirectional):
    with Store.open(db) as s:
        a = s.record_prediction(baseline, _pred(baseline))
        b = s.record_prediction(bidirectional, _pred(bidirectional), kind="gui")
        c = s.record_prediction(baseline, _pred(baseline))
        assert a < b < c
        assert [r.id for r in s.list_runs()] == [c, b, a]
        assert [r.id for r in s.list_runs(project_name=baseline.name)] == [c, a]
        assert [r.id for r in s.list_runs(kind="gui")] == [b]
        assert len(s.list_runs(limit=2)) == 2
        with pytest.raises(UnknownRunError, match="no run 999"):
            s.get_runs([a, 999])


def test_failed_transaction_leaves_nothing(db, baseline):
    with Store.open(db) as s:
        with pytest.raises(RuntimeError), s.transaction():
            s.record_prediction(baseline, _pred(baseline))
            raise RuntimeError("boom")
        assert s.count_runs() == 0
        assert s.record_prediction(baseline, _pred(baseline)) == 1


def test_reopen_keeps_runs(db, baseline):
    with Store.open(db) as s:
        s.record_prediction(baseline, _pred(baseline))
    with Store.open(db, read_only=True) as s:
        assert s.count_runs() == 1
        with pytest.raises(StoreError, match="read-only"):
            s.record_prediction(baseline, _pred(baseline))


_HOLDER = """
import sys, time
from engine.store import Store
s = Store.open(sys.argv[1])
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
s.close()
"""


@pytest.mark.slow
def test_second_process_gets_clear_message_or_waits(db, tmp_path, baseline):
    Store.open(db).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db), "1.5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreLockedError) as e:
            Store.open(db)
        msg = str(e.value)
        assert str(db) in msg and f"process {holder.pid}" in msg and "--db" in msg
        with pytest.raises(StoreLockedError):
            Store.open(db, read_only=True)
        t0 = time.monotonic()
        with Store.open(db, wait_s=20) as s:  # waits for the holder to let go
            assert time.monotonic() - t0 > 0.3
            s.record_prediction(baseline, _pred(baseline))
    finally:
        holder.wait(timeout=20)
    with Store.open(db, read_only=True) as s:
        assert s.count_runs() == 1


def test_bulk_metric_columns(db):
    n = 10_000
    with Store.open(db) as s:
        s.record_metrics_columns(
            np.arange(n) // 10,
            np.array([f"m{i % 10}" for i in range(n)], dtype=object),
            np.arange(n, dtype=float),
            np.full(n, "ms", dtype=object),
        )
        (total,) = s.con.execute("SELECT sum(value) FROM metrics").fetchall()[0]
    assert total == n * (n - 1) / 2
    assert json.loads(json.dumps({"ok": True}))
