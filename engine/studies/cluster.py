"""Sweeps and studies on a Dask cluster: checked workers, fast workers, and an end when the cluster goes.

* **Same numbers as a local run.** Before any point, every worker the scheduler knows is asked
  for :func:`worker_versions` (qrtune, Python, dask, distributed, cloudpickle, and a hash of the
  coefficient files' content, so a file edited in place is caught although its version label
  stays); any difference refuses the cluster. Every task checks again on the worker that runs
  it, so a worker that joins later with another version fails the sweep instead of mixing its
  numbers in: each recorded run therefore names the version that computed it.
* **Local speed.** Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_``, which turns off glibc's
  dynamic mmap threshold: a simulation then spends most of its time in the kernel (a 40-run
  study ran 3.5-4x slower than a local pool). Workers started by ``qrtune worker`` get
  :data:`WORKER_ENVIRON` before they start, which restores it.
* **A lost cluster ends the sweep.** When the scheduler goes away, or no worker is left for
  :data:`NO_WORKERS_TIMEOUT_S`, every point still waiting fails with :class:`ClusterLostError`
  (one line, exit 4); the points finished before are already in the store and the same command
  resumes the sweep.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib
import platform
import threading
import time
from functools import lru_cache

from engine.errors import PartialWorkError, QrtuneError
from engine.io.packagedata import asset_path

WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": "67108864"}
"""Set in each worker process before it starts: glibc's mmap threshold fixed at 64 MiB (bytes),
which keeps simulations' large arrays off the per-allocation mmap/munmap path."""

NO_WORKERS_TIMEOUT_S = 30.0
"""A cluster without any worker for this long (s) ends the sweep."""

SCHEDULER_LOST_TIMEOUT_S = 10.0
"""A client disconnected from its scheduler for this long (s) ends the sweep."""

CHECK_INTERVAL_S = 1.0
"""How often (s) the cluster's health is looked at while points are pending."""

VERSION_PACKAGES = ("dask", "distributed", "cloudpickle")
"""Packages whose versions must match between the client and every worker."""


class ClusterLostError(PartialWorkError):
    """The Dask cluster went away mid-sweep (scheduler lost or no worker left); exits 4."""


class WorkerVersionError(QrtuneError):
    """A Dask worker runs another qrtune, Python, Dask or coefficient set than the client."""


@lru_cache(maxsize=1)
def coefficients_digest() -> str:
    """sha256 (first 16 hex digits) of every coefficient file's name and content (``assets/coefficients``)."""
    digest = hashlib.sha256()
    for path in sorted(asset_path("coefficients").glob("*.json")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def worker_versions() -> dict:
    """What a process runs: qrtune, Python, dask, distributed, cloudpickle and the coefficients' hash."""
    from engine.store import engine_version

    out = {
        "qrtune": engine_version(),
        "python": platform.python_version(),
        "coefficients": coefficients_digest(),
    }
    for name in VERSION_PACKAGES:
        try:
            out[name] = importlib.import_module(name).__version__
        except ImportError:  # pragma: no cover - a local pool has no dask
            out[name] = ""
    return out


def version_differences(ours: dict, theirs: dict) -> str:
    """``qrtune 0.1.dev5 (here 0.1.dev7), coefficients ab12 (here cd34)``, or "" when they agree."""
    differ = [f"{k} {theirs.get(k) or 'missing'} (here {v})" for k, v in ours.items() if theirs.get(k) != v]
    return ", ".join(differ)


def checked_call(expected: dict, fn, *args):
    """Run ``fn(*args)`` on a worker after checking it runs ``expected`` (:func:`worker_versions`).

    Raises
    ------
    WorkerVersionError
        The worker differs; nothing is run.
    """
    differ = version_differences(expected, worker_versions())
    if differ:
        raise WorkerVersionError(
            f"a Dask worker runs different versions: {differ}; use the same on every worker"
        )
    return fn(*args)


def check_workers(client, address: str, timeout_s: float) -> None:
    """Refuse the cluster unless every worker runs what this process runs.

    Raises
    ------
    QrtuneError
        No worker joined within ``timeout_s``, a worker cannot import qrtune's engine, or any
        worker's :func:`worker_versions` differ (the message names the worker and the versions).
    """
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        raise QrtuneError(
            f"the Dask scheduler at {address} has no workers (waited {timeout_s:.0f} s)"
        ) from None
    try:
        theirs = client.run(worker_versions, on_error="raise")
    except Exception as e:  # noqa: BLE001 - whatever a worker raises, the sweep cannot use it
        raise QrtuneError(
            f"the Dask workers at {address} cannot run qrtune's engine ({type(e).__name__}: {e}); "
            "install the same qrtune on every worker (pip install 'qrtune[dask]')"
        ) from None
    ours = worker_versions()
    bad = {worker: version_differences(ours, v) for worker, v in sorted(theirs.items())}
    bad = {worker: d for worker, d in bad.items() if d}
    if bad:
        worker, differ = next(iter(bad.items()))
        raise QrtuneError(
            f"{len(bad)} of {len(theirs)} Dask workers at {address} run different versions "
            f"(worker {worker}: {differ}); use the same versions on every worker"
        )


class _PointFuture(cf.Future):
    """The future of one task: cancelling it cancels the task on the cluster."""

    def __init__(self, inner: cf.Future):
        super().__init__()
        self.inner = inner

    def cancel(self) -> bool:
        self.inner.cancel()
        return super().cancel()

    def settle(self, exc: BaseException | None = None, result=None) -> None:
        """Set the outcome unless it is already set (or cancelled)."""
        try:
            if exc is not None:
                self.set_exception(exc)
            else:
                self.set_result(result)
        except cf.InvalidStateError:
            pass


class ClusterExecutor(cf.Executor):
    """An executor over a Dask client whose tasks check the worker's versions and fail when the cluster goes.

    Parameters
    ----------
    client : distributed.Client
        Connected to the scheduler at ``address``.
    address : str
        For messages.
    no_workers_timeout_s, scheduler_lost_timeout_s : float
        See :data:`NO_WORKERS_TIMEOUT_S` and :data:`SCHEDULER_LOST_TIMEOUT_S`.
    """

    def __init__(
        self,
        client,
        address: str,
        no_workers_timeout_s: float = NO_WORKERS_TIMEOUT_S,
        scheduler_lost_timeout_s: float = SCHEDULER_LOST_TIMEOUT_S,
    ):
        self.client, self.address = client, address
        self.expected = worker_versions()
        self.inner = client.get_executor(pure=False)
        self.timeouts_s = {"workers": no_workers_timeout_s, "scheduler": scheduler_lost_timeout_s}
        self.pending: set[_PointFuture] = set()
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="dask-cluster-watch", daemon=True)
        self.watcher.start()

    def submit(self, fn, /, *args, **kwargs):
        inner = self.inner.submit(checked_call, self.expected, fn, *args, **kwargs)
        outer = _PointFuture(inner)
        with self.lock:
            self.pending.add(outer)
        inner.add_done_callback(lambda f: self._settle(outer, f))
        return outer

    def _settle(self, outer: _PointFuture, inner: cf.Future) -> None:
        with self.lock:
            self.pending.discard(outer)
        if inner.cancelled():
            if not outer.cancelled():  # not cancelled by us: the client lost its scheduler
                outer.settle(self._lost(f"lost the Dask scheduler at {self.address}"))
        elif inner.exception() is not None:
            outer.settle(inner.exception())
        else:
            outer.settle(result=inner.result())

    def _lost(self, why: str) -> ClusterLostError:
        return ClusterLostError(
            f"{why}; the points finished before are kept in the store: run the same command again to resume"
        )

    def _problem(self) -> tuple[str, str] | None:
        """``(kind, message)`` of what is wrong with the cluster now, or None."""
        lost = ("scheduler", f"lost the Dask scheduler at {self.address}")
        if self.client.status != "running":
            return lost
        try:
            n_workers = len(self.client.scheduler_info().get("workers", {}))
        except Exception:  # noqa: BLE001 - a client mid-reconnect may fail to answer
            return lost
        if n_workers == 0:
            return "workers", f"no Dask worker left at {self.address}"
        return None

    def _watch(self) -> None:
        since: dict[str, float] = {}
        while not self.stopped.wait(CHECK_INTERVAL_S):
            problem = self._problem()
            if problem is None:
                since.clear()
                continue
            kind, message = problem
            began = since.setdefault(kind, time.monotonic())
            if time.monotonic() - began >= self.timeouts_s[kind]:
                self._fail_pending(f"{message} for {self.timeouts_s[kind]:.0f} s")
                since.clear()

    def _fail_pending(self, why: str) -> None:
        with self.lock:
            pending, self.pending = list(self.pending), set()
        for outer in pending:
            outer.settle(self._lost(why))  # before the task's own cancellation can say anything else
            outer.inner.cancel()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.stopped.set()
        if cancel_futures:
            self._fail_pending("the sweep was stopped")
        self.inner.shutdown(wait=False)


def _quiet_client_logs() -> None:
    """No log records (tracebacks of closed connections) from Dask's client side in this process:
    what went wrong reaches the user as one :class:`ClusterLostError` or :class:`QrtuneError` line."""
    import logging

    import distributed  # noqa: F401 - its logging configuration first, then silence it

    loggers = [
        name for name in logging.root.manager.loggerDict if name.startswith(("distributed", "tornado"))
    ]
    for name in {"distributed", "tornado", *loggers}:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def dask_executor(address: str, check_timeout_s: float = 60.0, **timeouts) -> tuple:
    """``(client, executor)`` for the Dask cluster at ``address`` (``tcp://HOST:PORT``, ``tls://...``).

    Every worker is checked (:func:`check_workers`) before anything runs; the executor is a
    :class:`ClusterExecutor` (``timeouts``: its ``no_workers_timeout_s``, ``scheduler_lost_timeout_s``).
    TLS and other security settings come from Dask's configuration (``distributed.comm.tls.*``).

    Raises
    ------
    QrtuneError
        dask.distributed is not installed, the scheduler cannot be reached, or the workers
        cannot be used (see :func:`check_workers`).
    """
    try:
        from distributed import Client
    except ImportError:
        raise QrtuneError("--scheduler needs dask.distributed: pip install 'qrtune[dask]'") from None
    _quiet_client_logs()
    try:
        client = Client(address, timeout="10s")  # a silent address fails well within a command's 20 s
    except (OSError, TimeoutError) as e:
        raise QrtuneError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        check_workers(client, address, check_timeout_s)
    except BaseException:
        client.close()
        raise
    return client, ClusterExecutor(client, address, **timeouts)


def nanny_config() -> dict:
    """Dask configuration that has each nanny set :data:`WORKER_ENVIRON` before its worker starts.

    Dask's own ``pre-spawn-environ`` (``MALLOC_TRIM_THRESHOLD_``, the thread counts) is kept; use it
    as ``dask.config.set(nanny_config())`` around a ``LocalCluster`` or a worker started in-process.
    """
    import dask.config

    key = "distributed.nanny.pre-spawn-environ"
    return {key: {**dask.config.get(key, default={}), **WORKER_ENVIRON}}


def run_worker(scheduler: str, n_workers: int, options: list[str]) -> int:
    """Run ``dask worker SCHEDULER`` in this process (nannies with :func:`nanny_config`) until it ends.

    Parameters
    ----------
    scheduler : str
        The scheduler's address.
    n_workers : int
        Worker processes (one thread each: a simulation holds the GIL).
    options : list of str
        Further ``dask worker`` options (``--host``, ``--tls-ca-file``, ...).

    Raises
    ------
    QrtuneError
        dask.distributed is not installed, or ``dask worker`` refused its options.
    """
    try:
        import click
        import dask.config
        from distributed.cli.dask_worker import main as dask_worker
    except ImportError:
        raise QrtuneError("qrtune worker needs dask.distributed: pip install 'qrtune[dask]'") from None
    argv = [scheduler, "--nworkers", str(n_workers), "--nthreads", "1", *options]
    with dask.config.set(nanny_config()):
        try:
            dask_worker.main(args=argv, prog_name="qrtune worker", standalone_mode=False)
        except click.ClickException as e:
            raise QrtuneError(f"dask worker: {e.format_message()}") from None
    return 0


__all__ = [
    "ClusterExecutor",
    "ClusterLostError",
    "WORKER_ENVIRON",
    "WorkerVersionError",
    "check_workers",
    "checked_call",
    "coefficients_digest",
    "dask_executor",
    "nanny_config",
    "run_worker",
    "worker_versions",
]
