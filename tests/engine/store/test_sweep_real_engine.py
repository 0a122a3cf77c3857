"""Sweeps with the real Q Replication engine: the same numbers in process, on a local pool, on Dask.

Every point of a sweep must equal what ``qrtune predict`` gives for the same settings
(a sweep is only a faster way to run many predictions), whichever executor ran it, and
an interrupted sweep must keep its finished points and resume to the same result.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from cli_run import run
from store_fakes import ROOT

from engine.errors import QrtuneError
from engine.predict import predict_project
from engine.store import Store
from engine.studies.cluster import dask_executor
from engine.studies.sweep import n_points, parse_axes, point_changes, run_sweep

AXES = ["qapply.num_apply_agents=1,4,8,16", "qcapture.trans_batch_sz=1,3,5"]


def _points(db, sweep_id) -> dict:
    """point index -> (settings, metrics, stages, bottleneck, coefficients version) as stored."""
    with Store.open(db, read_only=True) as s:
        out = {}
        for r in s.list_runs(sweep_id=sweep_id):
            data = s.load_run(r.id)
            assert r.status == "ok", r.error
            out[r.point_index] = (
                r.settings_json,
                {m.metric: m.value for m in data.metrics},
                [(x.name, x.capacity, x.utilisation, x.latency_ms) for x in data.stages],
                r.bottleneck,
                r.coefficients_version,
            )
    return out


@pytest.fixture(scope="module")
def in_process(tmp_path_factory):
    """The reference: the sweep predicted in this process (workers=0)."""
    from engine import projectfile

    baseline = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    db = tmp_path_factory.mktemp("ref") / "runs.duckdb"
    axes = parse_axes(AXES, baseline)
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=0, progress=False)
    assert (r.n_points, r.n_run, r.n_failed) == (12, 12, 0)
    return baseline, axes, _points(db, r.sweep_id), r


def test_every_point_equals_a_plain_prediction(in_process):
    baseline, axes, points, result = in_process
    assert sorted(points) == list(range(12))
    for index in range(n_points(axes)):
        project = baseline
        for node_id, name, value in point_changes(axes, index):
            project = project.with_param(node_id, name, value)
        pred = predict_project(project)
        settings, metrics, stages, bottleneck, version = points[index]
        assert metrics == pred.metrics
        assert (
            bottleneck == pred.bottleneck
            and version == pred.coefficients_version == result.coefficients_version
        )
        assert stages == [(x.name, x.capacity, x.utilisation, x.latency_ms) for x in pred.stages]
        assert (
            json.loads(settings)["qapply"]["num_apply_agents"]
            == project.node("ab-5-qapply").params["num_apply_agents"]
        )


def test_the_sweep_answers_the_journeys_questions(in_process):
    """Agents help until another stage limits; batching makes messages bigger."""
    _, _, points, _ = in_process
    rate = {i: points[i][1]["apply_rows_per_s"] for i in points}
    size = {i: points[i][1]["msg_size_kb"] for i in points}
    for batch in range(3):  # point index = agents_index * 3 + batch_index (agents 1, 4, 8, 16)
        series = [rate[a * 3 + batch] for a in range(4)]
        assert series[0] < series[1] < series[2] and series[2] > 2 * series[0]
        assert points[batch][3] == "qapply_agents" and points[9 + batch][3] != "qapply_agents"
    for agents in range(4):
        sizes = [size[agents * 3 + b] for b in range(3)]
        assert sizes[0] < sizes[1] < sizes[2]


def test_local_pool_gives_identical_results(in_process, db):
    baseline, axes, reference, _ = in_process
    with Store.open(db) as s:
        r = run_sweep(baseline, axes, s, workers=2, batch_size=2, progress=False)
    assert r.n_run == 12 and r.n_failed == 0
    _assert_same(_points(db, r.sweep_id), reference)


@pytest.mark.slow
def test_dask_local_cluster_gives_identical_results(in_process, db, monkeypatch):
    distributed = pytest.importorskip("distributed")  # the `dask` extra, installed by make test
    import engine.store

    baseline, axes, reference, _ = in_process
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        processes=True,
        dashboard_address=None,
        silence_logs=40,
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with Store.open(db) as s:
            r = run_sweep(
                baseline, axes, s, scheduler=cluster.scheduler_address, batch_size=3, progress=False
            )
        # a cluster running another qrtune would give other numbers: refused before any point runs
        monkeypatch.setattr(engine.store, "engine_version", lambda: "9.9")
        with pytest.raises(
            QrtuneError,
            match=r"2 of 2 Dask workers .* different versions \(worker .*: qrtune .* \(here 9.9\)",
        ):
            dask_executor(cluster.scheduler_address)
    assert r.n_run == 12 and r.n_failed == 0
    _assert_same(_points(db, r.sweep_id), reference)


def _sweep_cmd(db, *extra):
    return [
        sys.executable,
        "-X",
        "faulthandler",
        "-m",
        "engine",
        "sweep",
        "sample_runs/redpaper-baseline.json",
        *[x for a in AXES for x in ("--set", a)],
        "--db",
        str(db),
        "--predictor",
        "store_fakes:predict_real_slow",
        *extra,
    ]


def _env(delay_s: str) -> dict:
    env = dict(os.environ, QRTUNE_FAKE_DELAY_S=delay_s)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests" / "engine" / "store"), str(ROOT)])
    return env


def _wait_for_progress(proc, at_least: int) -> int:
    deadline = time.monotonic() + 60
    seen = 0
    while time.monotonic() < deadline and seen < at_least:
        line = proc.stderr.readline()
        if "/12" in line:
            seen = int(line.split("]")[1].split("/")[0])
    assert seen >= at_least, "the sweep made no progress"
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("how", ["sigkill", "ctrl-c"])
def test_interrupted_real_engine_sweep_keeps_points_and_resumes_to_the_same_numbers(in_process, db, how):
    _, _, reference, _ = in_process
    proc = subprocess.Popen(
        _sweep_cmd(db, "--workers", "2", "--batch-size", "1"),
        cwd=ROOT,
        env=_env("0.3"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        seen = _wait_for_progress(proc, 3)
        if how == "sigkill":
            os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers, like a crash
        else:
            proc.send_signal(signal.SIGINT)  # Ctrl-C in the terminal reaches the sweep process
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # show where it hangs (faulthandler prints every thread on SIGABRT)
            os.kill(proc.pid, signal.SIGABRT)
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"the sweep did not end after {how}:\n{err[-6000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    with Store.open(db, read_only=True) as s:  # the file opens after the crash
        kept = s.count_runs()
        (sweep,) = s.list_sweeps()
    assert seen <= kept < 12
    assert (sweep["n_done"], sweep["n_points"], sweep["n_failed"]) == (kept, 12, 0)
    if how == "ctrl-c":
        assert proc.returncode == 130 and "run the same command again to resume" in err
    resumed = run(_sweep_cmd(db, "--workers", "0", "--no-progress", "--json"), env=_env("0"))
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert (summary["already_stored"], summary["run_now"]) == (kept, 12 - kept)
    _assert_same(_points(db, summary["sweep_id"]), reference)


def _assert_same(points: dict, reference: dict) -> None:
    """Equal to the in-process sweep, unless the shared checkout's coefficients were refitted meanwhile."""
    versions = {p[4] for p in points.values()}
    assert len(versions) == 1  # never a mix of coefficient sets in one sweep
    if versions != {reference[0][4]}:
        pytest.skip(
            f"assets/coefficients/qrep.json changed during the test ({reference[0][4]} -> {versions})"
        )
    assert points == reference
