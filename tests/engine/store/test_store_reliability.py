"""Nothing a user ran is lost: an old store file migrates, failed runs are kept, the file is shared.

The old store under tests/data/stores/ is a real version-1 file (see its README); it is never
regenerated, so a change that cannot read it any more fails here.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import time

import pytest
import store_fakes
from cli_run import agents_sweep_argv, python, qrtune
from store_fakes import ROOT

from engine.cli import main as qrtune_main
from engine.errors import ValueRangeError
from engine.store import SCHEMA_VERSION, Store, StoreError, StoreLockedError, failure_bundle

OLD_V1 = ROOT / "tests" / "data" / "stores" / "store-schema-v1.duckdb.gz"


@pytest.fixture
def old_store(tmp_path):
    path = tmp_path / "old.duckdb"
    with gzip.open(OLD_V1, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def test_old_v1_store_file_migrates_and_keeps_everything(old_store):
    with pytest.raises(StoreError, match="schema version 1; .* open it once for writing"):
        Store.open(old_store, read_only=True)
    with Store.open(old_store) as s:
        assert s.schema_version == SCHEMA_VERSION
        runs = {r.id: r for r in s.list_runs()}
        assert sorted(runs) == [1, 2, 3, 4, 5]
        assert runs[4].status == "failed" and "0 is not allowed" in runs[4].error
        assert [r.point_index for r in s.list_runs(sweep_id=1)] == [0, 1]
        run3 = s.load_run(3)
        assert run3.metric("apply_rows_per_s") == pytest.approx(10000 * 8**0.5)
        assert run3.metric("end2end_latency_ms") == pytest.approx(125.0)
        assert run3.stages[0].name == "qapply_agents" and run3.run.bottleneck == "qapply_cpu"
        sim = s.load_run(5)
        assert sim.run.seed == 7 and list(sim.timeseries["xmitq_depth"][1]) == [0, 1, 4, 9, 16, 25]
        assert [(m.table_name, m.n_rows) for m in s.list_monitor_imports("Old baseline")] == [
            ("IBMQREP_APPLYMON", 2)
        ]
        assert s.latest_fit("Old baseline") is None  # the version-2 table exists and is empty
        from engine.compare import compare_runs

        cmp = compare_runs(s, [2, 3])
        assert cmp.metric("end2end_latency_ms").pct_delta[1] == pytest.approx(-50.0)
        new_id = s.record_prediction(store_fakes_project(), store_fakes.predict(_settings()))
        assert new_id == 6  # ids carry on after the old runs
    with Store.open(old_store, read_only=True) as s:  # migrated for good
        assert s.schema_version == SCHEMA_VERSION and s.count_runs() == 6


def test_commands_migrate_an_old_store_before_reading_it(old_store, capsys):
    assert qrtune_main(["runs", "--db", str(old_store), "--sweep", "1"]) == 0
    out = capsys.readouterr().out
    assert "qapply.num_apply_agents=4" in out and "28,284" in out  # 10000 * sqrt(8) rows/s, point 1
    assert qrtune_main(["compare", "2", "3", "--db", str(old_store), "--format", "csv"]) == 0
    assert "metric,end2end_latency_ms,ms,250.0,125.0,-125.0,-50.0" in capsys.readouterr().out
    with Store.open(old_store, read_only=True) as s:
        assert s.schema_version == SCHEMA_VERSION


def store_fakes_project():
    from engine import projectfile

    return projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")


def _settings():
    from engine.scenario import project_to_scenario

    return project_to_scenario(store_fakes_project())


def test_record_failure_keeps_the_run_and_its_error(db, baseline):
    with Store.open(db) as s:
        ok = s.record_prediction(baseline, store_fakes.predict(_settings()))
        error = ValueRangeError("qapply.num_apply_agents", 0, "an integer from 1 to 128")
        bad = s.record_run(baseline, failure_bundle(baseline, error, kind="gui"))
        data = s.load_run(bad)
    assert bad == ok + 1
    assert data.run.status == "failed" and data.run.kind == "gui" and data.metrics == ()
    assert data.run.error == (
        "ValueRangeError: qapply.num_apply_agents: 0 is not allowed; expected an integer from 1 to 128"
    )
    assert data.settings["qapply"]["num_apply_agents"] == 6  # what was run is kept


def test_predict_db_records_an_engine_failure_as_a_failed_run(db, monkeypatch, capsys):
    import engine.cli.predict as predict_cli

    def reject(project):
        raise ValueRangeError("qapply.num_apply_agents", 6, "at most 5 in this engine")

    monkeypatch.setattr(predict_cli, "predict_project", reject)
    status = qrtune_main(["predict", "sample_runs/redpaper-baseline.json", "--db", str(db)])
    err = capsys.readouterr().err
    assert status == 2 and "recorded as failed run 1" in err and "at most 5 in this engine" in err
    with Store.open(db, read_only=True) as s:
        (run,) = s.list_runs()
    assert run.status == "failed" and run.kind == "predict" and run.error.startswith("ValueRangeError: ")


_WRITE_ONE = """
import sys, store_fakes
from engine import projectfile
from engine.scenario import project_to_scenario
from engine.store import Store
p = projectfile.load(sys.argv[2])
with Store.open(sys.argv[1]) as s:
    print(s.record_prediction(p, store_fakes.predict(project_to_scenario(p))))
"""


def test_release_lets_another_process_in_and_ids_stay_unique(db, baseline):
    pred = store_fakes.predict(_settings())
    s = Store.open(db)
    try:
        s.record_prediction(baseline, pred)
        s.release()
        other = python(
            "-c",
            _WRITE_ONE,
            db,
            ROOT / "sample_runs" / "redpaper-baseline.json",
            timeout_s=60,
            env={"PYTHONPATH": f"{ROOT / 'tests' / 'engine' / 'store'}:{ROOT}", "PATH": "/usr/bin:/bin"},
        )
        assert other.returncode == 0, other.stderr
        assert other.stdout.strip() == "2"
        assert s.record_prediction(baseline, pred) == 3  # reopened, and knows about run 2
    finally:
        s.close()
    with pytest.raises(StoreError, match="closed"):
        s.con  # noqa: B018 - closed for good, not released


_HOLD = """
import sys
from engine.store import Store
s = Store.open(sys.argv[1])
print("locked", flush=True)
sys.stdin.readline()  # hold the file until told to let go
s.close()
"""


def _holder(db):
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(db)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "locked"
    return holder


@pytest.mark.slow
def test_cli_names_the_file_and_process_then_waits(db, baseline):
    Store.open(db).close()
    holder = _holder(db)
    try:
        quick = qrtune("runs", "--db", db, "--wait", "0", timeout_s=60)
        assert quick.returncode == 2 and "Traceback" not in quick.stderr
        assert f"the results store {db} is in use by another process (process {holder.pid})" in quick.stderr
        waiting = subprocess.Popen(
            [sys.executable, "-m", "engine", "runs", "--db", str(db)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # waits up to 10 s
        note = waiting.stderr.readline()
        assert f"the results store {db} is in use" in note and "waiting up to 10 s" in note
        holder.communicate("go\n", timeout=20)  # let go: the waiting command gets the file
        out, err = waiting.communicate(timeout=60)
        assert waiting.returncode == 0, err
        assert "no runs recorded yet" in out
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait(timeout=20)


def test_a_locked_store_is_reported_not_waited_for_forever(db):
    Store.open(db).close()
    holder = _holder(db)
    try:
        t0 = time.monotonic()
        with pytest.raises(StoreLockedError, match=r"after waiting 0.5 s; .*--db"):
            Store.open(db, wait_s=0.5)
        assert time.monotonic() - t0 > 0.4
    finally:
        holder.kill()
        holder.wait(timeout=20)


@pytest.mark.slow
def test_a_running_cli_sweep_lets_another_process_record(db, baseline, env_with_fakes):
    """The workbench records a run while a command-line sweep writes the same file."""
    env = dict(env_with_fakes, QRTUNE_FAKE_DELAY_S="0.05")
    sweep = subprocess.Popen(
        agents_sweep_argv(db, "1..40", "--batch-size", "2", "--predictor", "store_fakes:predict_slow"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = ""
        while "/40" not in line:  # the first points are written
            line = sweep.stderr.readline()
            assert line or sweep.poll() is None, "the sweep ended without progress"
        t0 = time.monotonic()
        with Store.open(db, wait_s=10) as s:  # like the workbench (it waits 2 s)
            gui_run = s.record_prediction(baseline, store_fakes.predict(_settings()), kind="gui")
        waited_s = time.monotonic() - t0
        _, err = sweep.communicate(timeout=60)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait(timeout=10)
    assert sweep.returncode == 0, err
    assert waited_s < 2.0  # the sweep holds the file only while writing
    with Store.open(db, read_only=True) as s:
        runs = s.list_runs(limit=None)
    assert len(runs) == 41 and len({r.id for r in runs}) == 41
    assert sorted(r.point_index for r in runs if r.kind == "sweep") == list(range(40))
    assert next(r for r in runs if r.id == gui_run).kind == "gui"


@pytest.mark.slow
def test_the_same_sweep_run_twice_at_once_records_each_point_once(db, env_with_fakes):
    env = dict(env_with_fakes, QRTUNE_FAKE_DELAY_S="0.03")
    cmd = agents_sweep_argv(
        db, "1..40", "--batch-size", "4", "--predictor", "store_fakes:predict_slow", "--no-progress", "--json"
    )
    runs = [
        subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [0, 0], [err for _, err in outs]
    import json

    summaries = [json.loads(out) for out, _ in outs]
    assert summaries[0]["sweep_id"] == summaries[1]["sweep_id"]
    with Store.open(db, read_only=True) as s:
        points = [r.point_index for r in s.list_runs(limit=None)]
    assert sorted(points) == list(range(40))  # no point twice
    assert sum(x["run_now"] for x in summaries) == 40
