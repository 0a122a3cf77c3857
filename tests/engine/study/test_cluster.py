"""Dask clusters: every worker checked (versions and coefficient content), fast workers, and a lost
cluster ends the sweep in one line with its finished points kept."""

from __future__ import annotations

import concurrent.futures as cf
import os
import re
import socket
import subprocess
import sys
import time

import pytest
from cli_run import ROOT, SAMPLE, run

from engine.errors import PartialWorkError, QrtuneError
from engine.studies import cluster
from engine.studies.cluster import (
    ClusterExecutor,
    ClusterLostError,
    WorkerVersionError,
    checked_call,
    coefficients_digest,
    worker_versions,
)


def test_a_task_on_a_worker_with_other_versions_runs_nothing():
    ours = worker_versions()
    assert checked_call(ours, pow, 2, 10) == 1024
    with pytest.raises(WorkerVersionError, match=r"coefficients .* \(here edited\)"):
        checked_call({**ours, "coefficients": "edited"}, pow, 2, 10)


def test_the_coefficients_hash_follows_the_files_content(tmp_path, monkeypatch):
    (tmp_path / "coefficients").mkdir()
    (tmp_path / "coefficients" / "qrep.json").write_text('{"version": "v1", "a": 1.0}')
    monkeypatch.setattr(cluster, "asset_path", lambda *parts: tmp_path.joinpath(*parts))
    coefficients_digest.cache_clear()
    try:
        first = coefficients_digest()
        (tmp_path / "coefficients" / "qrep.json").write_text('{"version": "v1", "a": 1.1}')  # same label
        coefficients_digest.cache_clear()
        assert coefficients_digest() != first
    finally:
        coefficients_digest.cache_clear()


class _FakeClient:
    """A client whose tasks never finish; its status and worker count are set by the test."""

    def __init__(self):
        self.status, self.workers = "running", {"tcp://w1": {}}

    def get_executor(self, **kwargs):
        client = self

        class Never(cf.Executor):
            def submit(self, fn, *args, **kwargs):
                client.last = cf.Future()
                return client.last

        return Never()

    def scheduler_info(self):
        return {"workers": self.workers}


@pytest.mark.parametrize(
    "break_it, message",
    [
        (lambda c: setattr(c, "status", "closed"), "lost the Dask scheduler at tcp://x:1 for 0 s"),
        (lambda c: setattr(c, "workers", {}), "no Dask worker left at tcp://x:1 for 0 s"),
    ],
    ids=["scheduler-lost", "no-workers"],
)
def test_points_waiting_on_a_lost_cluster_fail_with_one_line(monkeypatch, break_it, message):
    monkeypatch.setattr(cluster, "CHECK_INTERVAL_S", 0.05)
    client = _FakeClient()
    pool = ClusterExecutor(client, "tcp://x:1", no_workers_timeout_s=0.2, scheduler_lost_timeout_s=0.2)
    try:
        fut = pool.submit(pow, 2, 3)
        time.sleep(0.4)
        assert not fut.done()  # a healthy cluster: the point waits
        break_it(client)
        with pytest.raises(ClusterLostError, match=message) as e:
            fut.result(timeout=5)
        assert isinstance(e.value, PartialWorkError) and "run the same command again" in str(e.value)
        assert client.last.cancelled()  # the task is cancelled on the cluster too
    finally:
        pool.shutdown()


def _one_worker_edits_its_coefficients():
    import engine.studies.cluster as c

    c.coefficients_digest = lambda: "edited-in-place"


@pytest.mark.slow
def test_every_worker_is_checked_and_a_late_mismatch_fails_its_points():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, silence_logs=40
        ) as local,
        distributed.Client(local) as client,
    ):
        address = local.scheduler_address
        _, pool = cluster.dask_executor(address)  # the same versions everywhere: accepted
        first, second = sorted(client.scheduler_info()["workers"])
        client.run(_one_worker_edits_its_coefficients, workers=[second])
        with pytest.raises(
            QrtuneError, match=rf"1 of 2 Dask workers .* \(worker {second}: coefficients edited"
        ):
            cluster.dask_executor(address)
        # a worker that changed after the check: its points fail instead of being recorded as ours
        futures = [pool.submit(pow, 2, k) for k in range(40)]
        outcomes = [f.exception(timeout=60) for f in futures]
        assert any(isinstance(o, WorkerVersionError) for o in outcomes)
        pool.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_scheduler_killed_mid_sweep_ends_it_with_one_line_and_exit_4(tmp_path):
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port)]
        + ["--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "qrtune", "worker", address, "--nworkers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    db = tmp_path / "runs.duckdb"
    try:
        probe = f"import os; from distributed import Client; c = Client('{address}', timeout='30s'); "
        probe += "c.wait_for_workers(1, timeout=60); print(c.run(lambda: os.environ.get('MALLOC_MMAP_THRESHOLD_')))"
        env = run([sys.executable, "-c", probe], timeout_s=120)
        assert list(eval(env.stdout).values()) == [cluster.WORKER_ENVIRON["MALLOC_MMAP_THRESHOLD_"]]
        sweep = subprocess.Popen(
            [sys.executable, "-m", "qrtune", "sweep", ROOT / SAMPLE, "--simulate", "--duration", "1m"]
            + ["--seeds", "30"]
            + ["--set", "qapply.num_apply_agents=8", "--scenario", "none"]
            + ["--scheduler", address, "--db", str(db)],
            cwd=tmp_path,  # the client imports qrtune as the workers do (qrtune.engine...)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        err = b""
        while not re.search(rb" [1-9]\d*/30 ", err) and sweep.poll() is None:  # a run recorded
            err += os.read(sweep.stderr.fileno(), 4096)
        scheduler.kill()
        killed = time.monotonic()
        err += sweep.communicate(timeout=90)[1]
        assert time.monotonic() - killed < 60
        lines = [line.strip() for line in err.decode().replace("\r", "\n").splitlines() if line.strip()]
        assert sweep.returncode == 4, lines[-3:]
        assert lines[-1] == (
            f"qrtune sweep: lost the Dask scheduler at {address}; the points finished before are kept "
            "in the store: run the same command again to resume"
        )
        assert not any("Traceback" in line or "Error" in line for line in lines[:-1])
    finally:
        scheduler.kill()
        worker.kill()
        scheduler.wait(10)
        worker.wait(10)
    assert _recorded(db) >= 1  # finished points kept


def _recorded(db) -> int:
    """Runs in the store at ``db`` (0 while it is missing or held by the sweep)."""
    if not db.exists():
        return 0
    out = run([sys.executable, "-m", "engine", "runs", "--db", str(db), "--json"], cwd=ROOT)
    return len(__import__("json").loads(out.stdout)) if out.returncode == 0 else 0
