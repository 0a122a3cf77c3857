"""Sweeps: the cartesian product of knob settings, predicted in parallel, streamed into the store.

An axis is written ``TARGET.PARAM=VALUES`` where TARGET is a node kind (every node of
that kind gets the value, e.g. both Q Apply nodes of a bidirectional project) or one
node id, PARAM is the knob's IBM name, and VALUES is a comma list whose items are
values or integer ranges ``LOW..HIGH`` (inclusive) or ``LOW..HIGH:STEP``:

    qapply.num_apply_agents=1,4,8,16    qcapture.trans_batch_sz=1..5    ab-5-qapply.commit_count=1..9:2

Every point is a new project built with :meth:`engine.model.Project.with_param` (so
each value is validated by the knob's spec), turned into scenario settings and
predicted. Points run in batches on a local process pool (spawn or forkserver, never
fork) or on a Dask cluster through ``Client(address).get_executor()``; the one process
that called :func:`run_sweep` writes finished batches into the store, one transaction
per batch. A sweep is identified by a key (project content, axes, engine version,
predictor), so running the same command again skips the points already stored: an
interrupted sweep resumes.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.errors import FieldError, QrtuneError, UnsupportedKindError
from engine.model import Project
from engine.progress import Progress
from engine.registry import KINDS
from engine.studies.point_ranges import PointRanges

#: The predictor a sweep uses unless told otherwise (``module:function``).
DEFAULT_PREDICTOR = "engine.predict:predict_settings"


@dataclass(frozen=True)
class Axis:
    """One sweep axis: a knob on one or more nodes and the values it takes.

    Attributes
    ----------
    target : str
        The node kind or node id as written.
    param : str
        Knob name (``num_apply_agents``).
    node_ids : tuple[str, ...]
        Nodes the value is set on.
    values : tuple
        Validated values, in sweep order.
    """

    target: str
    param: str
    node_ids: tuple
    values: tuple

    @property
    def name(self) -> str:
        """``target.param`` as written on the command line."""
        return f"{self.target}.{self.param}"


#: Most points one worker task predicts (pickling a task and its result costs ~0.1-0.2 ms whatever its size).
MAX_BATCH_POINTS = 256

#: Most finished points the sweep holds before writing them, whatever the write interval (a bound on
#: the memory the points waiting to be written take).
MAX_BUFFERED_POINTS = 8192

#: Largest sweep grid run without asking (``qrtune sweep --yes`` runs larger ones); also the most values
#: one ``LOW..HIGH`` range may expand to.
MAX_GRID_POINTS = 100_000

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def knob_spec(target: str, param: str, project: Project | None = None):
    """The registry spec of knob ``param`` on ``target`` (a node kind, or a node id of ``project``).

    Returns None when the target or the knob is unknown (a node id without its project).
    """
    kind = target if target in KINDS else None
    if kind is None and project is not None:
        kind = next((n.kind for n in project.nodes if n.id == target), None)
    if kind not in KINDS:
        return None
    try:
        return KINDS[kind].param(param)
    except KeyError:
        return None


def _expand(token: str, spec, where: str) -> list:
    """Values of one comma item: a range ``a..b[:step]`` or a single value (text, converted by type)."""
    if ".." in token and spec.type in ("int", "float"):
        low_text, _, rest = token.partition("..")
        high_text, _, step_text = rest.partition(":")
        try:
            low, high = int(low_text), int(high_text)
            step = int(step_text) if step_text else 1
        except ValueError:
            raise FieldError(
                where, token, "a range of integers LOW..HIGH or LOW..HIGH:STEP, e.g. 1..8"
            ) from None
        if step <= 0 or high < low:
            raise FieldError(where, token, "a range LOW..HIGH with LOW <= HIGH and a positive STEP")
        if (high - low) // step + 1 > MAX_GRID_POINTS:  # counted before any value is made
            raise FieldError(where, token, f"a range of at most {MAX_GRID_POINTS:,} values")
        return list(range(low, high + 1, step))
    text = token.strip()
    if text.lower() in ("null", "none") and spec.nullable:
        return [None]
    if spec.type == "int":
        try:
            return [int(text)]
        except ValueError:
            try:
                return [float(text)]  # 4.0 is accepted by the spec, 4.5 is reported by it
            except ValueError:
                raise FieldError(where, text, spec.allowed()) from None
    if spec.type == "float":
        try:
            return [float(text)]
        except ValueError:
            raise FieldError(where, text, spec.allowed()) from None
    if spec.type == "bool":
        if text.lower() in _TRUE:
            return [True]
        if text.lower() in _FALSE:
            return [False]
        raise FieldError(where, text, "true or false")
    if spec.type in ("column_map", "int_pair"):
        raise FieldError(where, text, f"a knob that takes single values ({spec.name} is a {spec.type})")
    return [text]


def parse_axis(text: str, project: Project) -> Axis:
    """Parse ``TARGET.PARAM=VALUES`` against ``project``.

    Raises
    ------
    FieldError
        Malformed text, a target that is neither a node kind nor a node id of the
        project, an unknown knob, or a value the knob does not allow; the message
        names the ``--set`` item, the value and what is allowed.
    """
    where = f"--set {text}"
    left, eq, right = text.partition("=")
    target, dot, param = left.strip().rpartition(".")
    if not eq or not dot or not target or not param or not right.strip():
        raise FieldError("--set", text, "TARGET.PARAM=VALUES, e.g. qapply.num_apply_agents=1,4,8 or 1..8")
    node_ids = {n.id for n in project.nodes}
    if target in node_ids:
        nodes = [project.node(target)]
    elif target in KINDS:
        nodes = project.nodes_of(target)
        if not nodes:
            kinds_here = sorted({n.kind for n in project.nodes})
            raise FieldError(where, target, f"a node kind present in the project: {', '.join(kinds_here)}")
    else:
        kinds_here = sorted({n.kind for n in project.nodes})
        owners = [k for k in kinds_here if param in {p.name for p in KINDS[k].params}]
        hint = (
            f"; {param} is a knob of {' and '.join(owners)}: --set {owners[0]}.{param}={right}"
            if owners
            else ""
        )
        raise FieldError(
            where,
            target,
            f"a node kind ({', '.join(kinds_here)}) or a node id ({', '.join(sorted(node_ids))}){hint}",
        )
    kind = KINDS[nodes[0].kind]
    try:
        spec = kind.param(param)
    except KeyError:
        raise FieldError(
            where, param, f"a knob of {kind.id}: {', '.join(p.name for p in kind.params)}"
        ) from None
    values: list = []
    for token in right.split(","):
        if not token.strip():
            raise FieldError(where, right, "a comma list of values without empty items")
        for value in _expand(token.strip(), spec, where):
            values.append(spec.check(value, f"{where} ({target}.{param})"))
    # first occurrence of each value, in order (a dict: linear in the number of values; the
    # checked values are None, bool, int, float or str, hashed as they compare: 4 and 4.0 are one)
    return Axis(target, param, tuple(n.id for n in nodes), tuple(dict.fromkeys(values)))


def parse_axes(texts: Sequence[str], project: Project) -> list[Axis]:
    """Parse every ``--set`` item; the same knob of the same node on two axes is an error."""
    axes = [parse_axis(t, project) for t in texts]
    if not axes:
        raise FieldError("--set", None, "at least one TARGET.PARAM=VALUES axis")
    seen: dict[tuple, str] = {}
    for a in axes:
        for node_id in a.node_ids:
            key = (node_id, a.param)
            if key in seen:
                raise FieldError(f"--set {a.name}", node_id, f"a knob not already swept by --set {seen[key]}")
            seen[key] = a.name
    return axes


def with_changes(project: Project, texts: Sequence[str]) -> Project:
    """``project`` with each ``TARGET.PARAM=VALUE`` applied (the what-if ``--set`` of predict and simulate).

    Parameters
    ----------
    project : Project
        The project as loaded.
    texts : sequence of str
        ``TARGET.PARAM=VALUE`` items: TARGET a node kind (every node of it) or a node id.

    Raises
    ------
    FieldError
        An item names an unknown target or knob, a value out of range, or more than one value.
    """
    for text in texts:
        axis = parse_axis(text, project)
        if len(axis.values) != 1:
            raise FieldError("--set", text, "one value per knob (qrtune sweep runs several)")
        for node_id in axis.node_ids:
            project = project.with_param(node_id, axis.param, axis.values[0])
    return project


def n_points(axes: Sequence[Axis]) -> int:
    """Size of the cartesian product."""
    return math.prod(len(a.values) for a in axes)


def point_values(axes: Sequence[Axis], index: int) -> tuple:
    """Values of point ``index`` (row-major: the last axis varies fastest).

    Any axis record with a ``values`` sequence will do (the report's stored axes too).
    """
    out = []
    for a in reversed(axes):
        index, k = divmod(index, len(a.values))
        out.append(a.values[k])
    return tuple(reversed(out))


def point_changes(axes: Sequence[Axis], index: int) -> list[tuple[str, str, Any]]:
    """``(node_id, param, value)`` edits that make point ``index`` from the base project."""
    return [(node_id, a.param, v) for a, v in zip(axes, point_values(axes, index)) for node_id in a.node_ids]


def point_label(axes: Sequence[Axis], index: int) -> str:
    """``qapply.num_apply_agents=4 qcapture.trans_batch_sz=3`` for point ``index``."""
    return " ".join(f"{a.name}={v}" for a, v in zip(axes, point_values(axes, index)))


def sweep_key(
    project_hash: str, axes: Sequence[Axis], predictor: str, version: str, coefficients_version: str = ""
) -> str:
    """Identity of a sweep: same project content, axes, predictor, engine and coefficients versions
    give the same key (so a rerun resumes it; anything else starts a new sweep)."""
    from engine.store import canonical_json

    data = {
        "project": project_hash,
        "predictor": predictor,
        "engine": version,
        "axes": [[a.target, a.param, list(a.node_ids), list(a.values)] for a in axes],
    }
    if coefficients_version:
        data["coefficients"] = coefficients_version
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def _load_predictor(path: str) -> Callable[[dict], Any]:
    module_name, _, func = path.partition(":")
    return getattr(importlib.import_module(module_name), func or "predict")


def run_points(
    project: Project,
    batch: Sequence[tuple[int, list]],
    predictor: str = DEFAULT_PREDICTOR,
    raise_internal: bool = False,
) -> list:
    """Predict a batch of points (runs in a worker).

    Parameters
    ----------
    raise_internal : bool
        Raise an unexpected exception (an engine bug) instead of recording the point as failed.

    Returns
    -------
    list of (index, settings, prediction, error)
        ``prediction`` is None and ``error`` a one-line message when the point failed:
        a user error (a value not allowed in combination, an engine that rejects the
        settings), or ``internal error: ...`` for an unexpected exception.

    Raises
    ------
    UnsupportedKindError
        No engine exists for the project's kind.
    """
    from engine.studies.point_settings import PointSettings

    predict = _load_predictor(predictor)
    try:
        points = PointSettings(project)
    except QrtuneError as e:  # an incomplete project: every point fails as it would alone
        return [(index, {}, None, f"{type(e).__name__}: {e}") for index, _ in batch]
    out = []
    for index, changes in batch:
        settings: dict = {}
        try:
            settings = points.settings(changes)
            out.append((index, settings, predict(settings), ""))
        except UnsupportedKindError:
            raise
        except (QrtuneError, ValueError) as e:
            out.append((index, settings, None, f"{type(e).__name__}: {e}"))
        except Exception as e:
            if raise_internal:
                raise
            out.append((index, settings, None, f"internal error: {type(e).__name__}: {e}"))
    return out


@dataclass(frozen=True)
class SweepResult:
    """What a sweep did.

    Attributes
    ----------
    sweep_id : int
        The sweep's id in the store (the same for a resumed sweep).
    n_points : int
        Size of the cartesian product.
    n_skipped : int
        Points already in the store (a resumed sweep), or recorded meanwhile by another run
        of the same sweep; ``n_skipped + n_run == n_points``.
    n_run : int
        Points predicted and recorded by this call.
    n_failed : int
        Of those, points recorded as failed (see each run's ``error``).
    elapsed_s : float
    coefficients_version : str
        Coefficients of the engine that predicted the points ("" if the first point failed).
    """

    sweep_id: int
    n_points: int
    n_skipped: int
    n_run: int
    n_failed: int
    elapsed_s: float
    coefficients_version: str = ""


def local_executor(workers: int | None = None) -> Executor:
    """A process pool that starts workers with forkserver (spawn where unavailable), never fork."""
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(["engine.studies.sweep", "engine.scenario", "engine.io.parentwatch"])
    from engine.io.parentwatch import watch

    # workers end when this process dies (kill -9), instead of waiting forever for work
    return ProcessPoolExecutor(
        max_workers=workers or os.cpu_count() or 1, mp_context=ctx, initializer=watch, initargs=(os.getpid(),)
    )


@dataclass(frozen=True)
class PointContext:
    """What turns a sweep's predicted points into the runs the store keeps (sent to every worker).

    Attributes
    ----------
    project_name, project_hash : str
        The base project's name and content hash.
    sweep_id : int
        The sweep the points belong to.
    base_settings : dict or None
        The sweep's base settings (:meth:`engine.store.Store.sweep_base_settings`), parsed; each
        point's settings are stored as a patch against them (None: stored whole).
    """

    project_name: str
    project_hash: str
    sweep_id: int
    base_settings: dict | None


def stored_points(results: Sequence, axes: Sequence[Axis], context: PointContext):
    """The runs ``results`` (of :func:`run_points`) are recorded as, column-wise
    (:class:`engine.store.point_columns.PointColumns`), settings already encoded."""
    from engine.store import bundle_failed
    from engine.store.bundles import metric_values, prediction_record, stage_values
    from engine.store.point_columns import PointColumns
    from engine.store.sweeps import encode_point_settings

    runs, metrics, stages = [], [], []
    for index, settings, prediction, error in results:
        common = {
            "project_name": context.project_name,
            "project_hash_": context.project_hash,
            "settings": settings,
            "kind": "sweep",
            "label": point_label(axes, index),
            "sweep_id": context.sweep_id,
            "point_index": index,
        }
        if prediction is None:
            run, point_metrics, point_stages = bundle_failed(error=error, **common).run, [], []
        else:
            run = prediction_record(prediction=prediction, **common)
            point_metrics = metric_values(prediction.metrics, prediction.units)
            point_stages = stage_values(prediction.stages)
        runs.append(encode_point_settings(context.base_settings, run))
        metrics.append(point_metrics)
        stages.append(point_stages)
    return PointColumns.build(runs, metrics, stages)


def run_point_batch(
    project: Project,
    indexes: Sequence[int],
    axes: Sequence[Axis],
    predictor: str,
    context: PointContext,
):
    """Predict the points ``indexes`` of ``axes`` on ``project`` (runs in a worker): their
    :func:`stored_points`, ready for :meth:`engine.store.Store.record_point_columns`.

    Raises
    ------
    UnsupportedKindError
        No engine exists for the project's kind.
    """
    results = run_points(project, [(i, point_changes(axes, i)) for i in indexes], predictor)
    return stored_points(results, axes, context)


class _Writer:
    """Records finished points into the store: grouped, point-ordered, optionally releasing the file.

    Batches (:class:`~engine.store.point_columns.PointColumns`) are buffered and written at most
    every ``flush_interval_s`` (0: every batch at once) or once :data:`MAX_BUFFERED_POINTS` wait,
    one transaction per write; with
    ``release`` the store lets go of its file after each write so other processes can open it in
    between, and points another run of the same sweep recorded meanwhile are not written twice.
    The progress bar counts finished points. Nothing is kept per point once written.
    """

    def __init__(self, store, sweep_id, bar, flush_interval_s: float, release: bool):
        self.store, self.sweep_id, self.bar = store, sweep_id, bar
        self.flush_interval_s, self.release = flush_interval_s, release
        self.buffer: list = []
        self.n_buffered = 0  # points in the buffer
        self.last_flush = time.monotonic()
        self.n_failed = 0
        self.n_recorded = 0
        self.n_recorded_elsewhere = 0  # points another run of the same sweep wrote first

    def add(self, points) -> None:
        self.buffer.append(points)
        self.n_buffered += points.n
        if (
            time.monotonic() - self.last_flush >= self.flush_interval_s
            or self.n_buffered >= MAX_BUFFERED_POINTS
        ):
            self.flush()

    def flush(self) -> None:
        from engine.store.point_columns import PointColumns

        if not self.buffer:
            return
        # batches hold consecutive runs of the points to do: ordered by their first point, in point order
        points = PointColumns.concat(sorted(self.buffer, key=lambda p: int(p.index[0])))
        n_finished = points.n
        if self.release:  # the file was let go: another run of the same sweep may have recorded some points
            done = self.store.done_points_between(self.sweep_id, points.index.min(), points.index.max())
            points = points.without(done)
            self.n_recorded_elsewhere += n_finished - points.n
        self.store.record_point_columns(points)
        if self.release:
            self.store.release()
        self.bar.update(n_finished)
        self.buffer, self.n_buffered = [], 0
        self.last_flush = time.monotonic()
        self.n_failed += int(np.count_nonzero(points.runs["status"] != "ok"))
        self.n_recorded += points.n


def run_sweep(
    project: Project,
    axes: Sequence[Axis],
    store,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    batch_size: int | None = None,
    predictor: str = DEFAULT_PREDICTOR,
    progress: bool = True,
    executor: Executor | None = None,
    flush_interval_s: float = 0.0,
    release_between_writes: bool = False,
) -> SweepResult:
    """Predict every point of ``axes`` on ``project`` and record each into ``store``.

    The first point of the product is predicted in this process before anything else: an
    engine missing for the project's kind stops the sweep before any pool starts, and its
    coefficients version becomes part of the sweep's key (a sweep resumed after the
    coefficients were refitted starts afresh instead of mixing old and new numbers).
    Whatever was recorded stays recorded when the sweep is interrupted (Ctrl-C: the points
    finished so far are written before the interrupt propagates; SIGKILL: every written
    group is committed, at most ``flush_interval_s`` of work is lost) and the same call
    resumes it.

    Parameters
    ----------
    project : Project
        The base project.
    axes : sequence of Axis
        From :func:`parse_axes`.
    store : engine.store.Store
        Open for writing; this process is the only writer.
    workers : int, optional
        Local pool size (default: CPU count). ``0`` predicts in this process.
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler; points then run on that cluster (every worker
        checked first, see :func:`engine.studies.cluster.dask_executor`).
    batch_size : int, optional
        Points per task (default: enough for ~8 tasks per worker, at most :data:`MAX_BATCH_POINTS`).
    predictor : str
        ``module:function`` taking settings and returning a Prediction (tests inject fakes).
    progress : bool
        Draw a progress bar on stderr (it counts recorded points).
    executor : Executor, optional
        Use this executor instead of creating one (left open).
    flush_interval_s : float
        Group finished points and write them at most this often, s (0: every batch as it finishes).
    release_between_writes : bool
        Let go of the store file after every write (:meth:`engine.store.Store.release`), so the
        workbench or another command can open it while the sweep runs.

    Raises
    ------
    UnsupportedKindError
        No engine predicts this project's kind (found on the first point, before any work).
    StoreLockedError
        With ``release_between_writes``: another process kept the file for longer than
        :data:`engine.store.REACQUIRE_WAIT_S` (every point written until then is kept).
    """
    from engine.store import canonical_json, engine_version, project_hash

    t0 = time.monotonic()
    total = n_points(axes)
    digest = project_hash(project)
    probe = run_points(project, [(0, point_changes(axes, 0))], predictor, raise_internal=True)
    client = None
    if scheduler and executor is None:  # reach the cluster (and check it) before anything is recorded
        from engine.studies.cluster import dask_executor

        client, executor = dask_executor(scheduler)
    coefficients_version = probe[0][2].coefficients_version if probe[0][2] is not None else ""
    key = sweep_key(digest, axes, predictor, engine_version(), coefficients_version)
    sweep_id = store.sweep_by_key(key)
    if sweep_id is None:
        axes_data = [
            {"target": a.target, "param": a.param, "node_ids": list(a.node_ids), "values": list(a.values)}
            for a in axes
        ]
        sweep_id = store.create_sweep(key, project, axes_data, total)
    base = store.sweep_base_settings(
        sweep_id, canonical_json(probe[0][1]) if probe[0][2] is not None else None
    )
    context = PointContext(project.name, digest, sweep_id, None if base is None else json.loads(base))
    done = store.done_point_mask(sweep_id, total)  # a byte a point: memory flat in the sweep's size
    n_done = int(done.sum())
    if release_between_writes:
        store.release()
    todo = PointRanges.not_done(done)  # point indexes still to run, in order: memory per gap, not per point
    del done
    bar = Progress(total, n_done, enabled=progress)
    writer = _Writer(store, sweep_id, bar, flush_interval_s, release_between_writes)
    try:
        if todo.first() == 0:
            writer.add(stored_points(probe, axes, context))
            todo = todo.without_first()
        if len(todo):
            if workers == 0 and executor is None and scheduler is None:
                step = batch_size or MAX_BATCH_POINTS
                for k in range(0, len(todo), step):
                    writer.add(
                        run_point_batch(project, todo[k : k + step].tolist(), axes, predictor, context)
                    )
            else:
                run_batches(
                    run_point_batch,
                    lambda batch: (project, batch, axes, predictor, context),
                    todo,
                    writer.add,
                    workers=workers,
                    client=client,
                    batch_size=batch_size,
                    executor=executor,
                    max_batch=MAX_BATCH_POINTS,
                )
    except BaseException:
        try:
            writer.flush()  # points finished before an interrupt are kept
        except Exception:  # noqa: BLE001, S110 - the interrupt or the first error is what the caller must see
            pass
        raise
    else:
        writer.flush()
    finally:
        bar.close()
        if client is not None:
            client.close()
    # points another run of the same sweep recorded while this one ran count as already stored, so
    # run_now + already_stored is always the number of points
    return SweepResult(
        sweep_id,
        total,
        n_done + writer.n_recorded_elsewhere,
        writer.n_recorded,
        writer.n_failed,
        time.monotonic() - t0,
        coefficients_version,
    )


def run_batches(
    task: Callable,
    args_of: Callable,
    todo: Sequence[int],
    add: Callable,
    *,
    workers: int | None = None,
    client=None,
    batch_size: int | None = None,
    executor: Executor | None = None,
    max_batch: int = 64,
) -> None:
    """Run ``task(*args_of(batch))`` for batches of ``todo`` in parallel; ``add`` takes each batch's result.

    Parameters
    ----------
    task : callable
        A module-level function (it is pickled by reference for the workers).
    args_of : callable
        A batch (list of point indexes) -> the arguments of ``task``.
    todo : sequence of int
        Point indexes to run (a list, a numpy array or a
        :class:`~engine.studies.point_ranges.PointRanges`: anything with a length that slices).
    add : callable
        Called in this process with each finished batch's result, as batches finish.
    workers : int, optional
        Local worker processes (default: CPU count) when neither ``client`` nor ``executor`` is given.
    client : distributed.Client, optional
        Run on its cluster (``executor`` is then the client's).
    batch_size : int, optional
        Points per task (default: about 8 tasks per worker, at most ``max_batch`` points).

    Ctrl-C cancels what waits; a pool made here is then terminated at once.
    """
    own = executor is None and client is None
    if client is not None:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or 1)
    else:
        n_workers = workers or os.cpu_count() or 1
        if executor is None:
            executor = local_executor(n_workers)
    size = batch_size or max(1, min(max_batch, math.ceil(len(todo) / (n_workers * 8))))
    # batches made as they are submitted: memory follows the batches in flight, not the points
    it = ([int(i) for i in todo[k : k + size]] for k in range(0, len(todo), size))
    pending: set = set()
    in_flight = max(2, 4 * n_workers)

    def submit(batch):
        pending.add(executor.submit(task, *args_of(batch)))

    interrupted = _InterruptFlag()
    try:
        for batch in itertools.islice(it, in_flight):
            submit(batch)
        while pending:
            finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            interrupted.raise_if_set()
            for fut in finished:
                add(fut.result())
                nxt = next(it, None)
                if nxt is not None:
                    submit(nxt)
    except BaseException as e:
        for fut in pending:
            fut.cancel()
        if own and isinstance(e, KeyboardInterrupt):
            _stop_now(executor)  # Ctrl-C: the points in flight are run again on resume
            own = False
        raise
    finally:
        interrupted.restore()
        if own:
            executor.shutdown(wait=True, cancel_futures=True)


class _InterruptFlag:
    """Ctrl-C noted by a flag while the pool runs, raised as KeyboardInterrupt at a safe point.

    A KeyboardInterrupt raised at any bytecode can land inside ``concurrent.futures.wait``
    while it holds a future's lock; the pool's manager thread then blocks on that lock
    forever and the process never exits. Outside the main thread (the workbench) the
    handler is left alone: nothing sends SIGINT there.
    """

    def __init__(self):
        self.set = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._note)

    def _note(self, signum, frame) -> None:
        self.set = True

    def raise_if_set(self) -> None:
        """Raise KeyboardInterrupt when Ctrl-C came since the pool started."""
        if self.set:
            raise KeyboardInterrupt

    def restore(self) -> None:
        """Put back the SIGINT handler that was there before."""
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


def _stop_now(executor: Executor) -> None:
    """End a local process pool at once: cancel what waits and terminate the workers.

    Waiting for the running batches after Ctrl-C can hang when the interrupt landed inside
    the pool's own bookkeeping (its manager thread then never joins); the finished points
    are already written, and the interrupted ones are simply run again on resume.
    """
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(5)


__all__ = [
    "DEFAULT_PREDICTOR",
    "MAX_BATCH_POINTS",
    "MAX_BUFFERED_POINTS",
    "Axis",
    "PointContext",
    "SweepResult",
    "local_executor",
    "n_points",
    "parse_axes",
    "parse_axis",
    "point_changes",
    "point_label",
    "point_values",
    "run_batches",
    "run_point_batch",
    "run_points",
    "run_sweep",
    "stored_points",
    "sweep_key",
]
