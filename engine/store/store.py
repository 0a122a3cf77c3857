"""The results store: one DuckDB file holding runs, their metrics, stages and time series.

See the package docstring of :mod:`engine.store` for the API tour.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engine.store.connection import connect, default_db_path
from engine.store.errors import StoreError, StoreNeedsMigrationError, UnknownRunError
from engine.store.records import MetricRow, MonitorImport, RunData, RunRecord, StageMetricRow
from engine.store.schema import SCHEMA_VERSION, current_version, migrate

_RUN_COLUMNS = (
    "id, project_name, project_hash, settings_json, engine_version, coefficients_version, seed, kind, "
    "started, status, scenario_kind, bottleneck, sweep_id, point_index, label, error"
)
_names = itertools.count()

#: Seconds a released store waits to get its file back from another process (see :meth:`Store.release`).
REACQUIRE_WAIT_S = 60.0


def utc_now() -> datetime:
    """Now, in UTC, without tzinfo (DuckDB TIMESTAMP)."""
    return datetime.now(UTC).replace(tzinfo=None)


@lru_cache(maxsize=1)
def engine_version() -> str:
    """The installed qrtune version ("0+unknown" when not installed); read once per process
    (the package metadata lookup costs ~2 ms, once per recorded run otherwise)."""
    try:
        from importlib.metadata import version

        return version("qrtune")
    except Exception:  # noqa: BLE001 - pragma: no cover - running from a bare checkout
        return "0+unknown"


def canonical_json(data: Any) -> str:
    """JSON with sorted keys and no spaces: equal data gives equal text (and hash)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def project_model_dict(project) -> dict:
    """What a project's results depend on: topology, nodes (id, kind, params) and links.

    Names, labels, descriptions and canvas positions are left out, so moving a node
    or renaming the project keeps its hash.
    """
    return {
        "topology": project.topology,
        "nodes": [{"id": n.id, "kind": n.kind, "params": dict(n.params)} for n in project.nodes],
        "links": [[link.source, link.target] for link in project.links],
    }


def project_hash(project) -> str:
    """sha256 (hex) of :func:`project_model_dict` as canonical JSON."""
    return hashlib.sha256(canonical_json(project_model_dict(project)).encode()).hexdigest()


@dataclass
class RunBundle:
    """A run ready to write: its record (id filled in by the store) and its rows.

    Attributes
    ----------
    run : RunRecord
        ``id`` is ignored; the store assigns the next id.
    metrics : list of (name, value, unit)
    stages : list of (stage, capacity, utilisation, latency_ms, unit)
    timeseries : dict
        Series name -> (t_s array, value array).
    """

    run: RunRecord
    metrics: list = field(default_factory=list)
    stages: list = field(default_factory=list)
    timeseries: dict = field(default_factory=dict)


def bundle_from_prediction(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    prediction,
    kind: str,
    label: str = "",
    sweep_id: int | None = None,
    point_index: int | None = None,
    started: datetime | None = None,
) -> RunBundle:
    """Build a :class:`RunBundle` from an engine :class:`~engine.perf.result.Prediction`."""
    record = RunRecord(
        id=0,
        project_name=project_name,
        project_hash=project_hash_,
        settings_json=canonical_json(settings),
        engine_version=engine_version(),
        coefficients_version=prediction.coefficients_version or "",
        seed=None,
        kind=kind,
        started=started or utc_now(),
        status="ok",
        scenario_kind=prediction.kind,
        bottleneck=prediction.bottleneck,
        sweep_id=sweep_id,
        point_index=point_index,
        label=label,
        error="",
    )
    metrics = [(k, _float(v), prediction.units.get(k, "")) for k, v in prediction.metrics.items()]
    stages = [(s.name, _float(s.capacity), _float(s.utilisation), _float(s.latency_ms), s.unit) for s in prediction.stages]
    return RunBundle(record, metrics, stages)


def bundle_failed(
    *,
    project_name: str,
    project_hash_: str,
    settings: Mapping,
    error: str,
    kind: str,
    label: str = "",
    seed: int | None = None,
    sweep_id: int | None = None,
    point_index: int | None = None,
    started: datetime | None = None,
) -> RunBundle:
    """A :class:`RunBundle` for a run that failed: status ``failed``, ``error`` set, no metrics.

    Parameters
    ----------
    settings : Mapping
        What was run ({} when the settings could not even be built).
    error : str
        One line saying why, as the user saw it (``ValueRangeError: qapply.num_apply_agents ...``).
    """
    record = RunRecord(
        id=0, project_name=project_name, project_hash=project_hash_, settings_json=canonical_json(dict(settings)),
        engine_version=engine_version(), coefficients_version="", seed=seed, kind=kind,
        started=started or utc_now(), status="failed", scenario_kind=str(settings.get("kind", "") or ""),
        bottleneck=None, sweep_id=sweep_id, point_index=point_index, label=label, error=error or "failed",
    )
    return RunBundle(record)


def error_text(exc: BaseException) -> str:
    """``TypeName: message`` on one line, for the ``error`` of a failed run."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


class Store:
    """An open results store (one DuckDB file).

    Open with :meth:`Store.open`; use as a context manager or call :meth:`close`.
    A writable store holds the file's lock until closed, so keep it open only as
    long as needed (DuckDB allows one writing process per file).
    """

    def __init__(self, con, path: Path, read_only: bool, wait_s: float = 0.0):
        self._con = con
        self.path = path
        self.read_only = read_only
        self.wait_s = wait_s
        self._next_run_id: int | None = None
        self._in_tx = False
        self._released = False

    # -- opening and closing --------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike | None = None, read_only: bool = False, wait_s: float = 0.0) -> Store:
        """Open (and create or migrate when writable) the store at ``path``.

        Parameters
        ----------
        path : str or PathLike, optional
            Store file; default :func:`~engine.store.connection.default_db_path`.
        read_only : bool
            Read without taking the write lock (several readers may share a file no one writes).
        wait_s : float
            Seconds to wait for another process's lock before giving up.

        Raises
        ------
        StoreLockedError
            Another process holds the file.
        StoreNeedsMigrationError
            Read-only open of a store from an older qrtune (a writable open migrates it).
        StoreError
            Not a store, a store from a newer qrtune, or (read-only) a missing file.
        """
        path = Path(path) if path is not None else default_db_path()
        con = connect(path, read_only=read_only, wait_s=wait_s)
        try:
            if read_only:
                version = current_version(con)
                if version < SCHEMA_VERSION:
                    raise StoreNeedsMigrationError(
                        f"the store {path} has schema version {version}; this qrtune reads version "
                        f"{SCHEMA_VERSION}: open it once for writing to migrate it"
                    )
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"the store {path} has schema version {version}, newer than this qrtune "
                        f"understands (up to {SCHEMA_VERSION})"
                    )
            else:
                migrate(con, str(path))
        except Exception:
            con.close()
            raise
        return cls(con, path, read_only, wait_s)

    def close(self) -> None:
        """Release the file (and its lock) for good."""
        self._released = False
        if self._con is not None:
            self._con.close()
            self._con = None

    def release(self) -> None:
        """Let go of the file between writes; the next use of :attr:`con` opens it again.

        A long writer (a sweep) calls this after each write so that another process (the
        workbench, a ``qrtune runs``) can open the file in between. Reopening waits up to
        :data:`REACQUIRE_WAIT_S` (or ``wait_s`` if longer) for whoever took it meanwhile.

        Raises
        ------
        StoreError
            Called inside :meth:`transaction`.
        """
        if self._in_tx:
            raise StoreError(f"the store {self.path} cannot be released inside a transaction")
        if self._con is not None:
            self._con.close()
            self._con = None
            self._released = True
            self._next_run_id = None  # another process may record runs meanwhile

    def __enter__(self) -> Store:  # noqa: PYI034 - Store is not subclassed
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def con(self):
        """The DuckDB connection (for read queries by compare, fit and the GUI).

        Raises
        ------
        StoreError
            The store was closed.
        StoreLockedError
            The store was released and another process still holds the file after
            waiting :data:`REACQUIRE_WAIT_S` seconds.
        """
        if self._con is None:
            if not self._released:
                raise StoreError(f"the store {self.path} is closed")
            self._con = connect(self.path, read_only=self.read_only, wait_s=max(self.wait_s, REACQUIRE_WAIT_S))
            self._released = False
        return self._con

    @property
    def schema_version(self) -> int:
        """Schema version of the open file."""
        return current_version(self.con)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group writes: all of them are committed together or none is (nested use joins the outer)."""
        if self._in_tx:
            yield
            return
        self.con.execute("BEGIN TRANSACTION").fetchall()
        self._in_tx = True
        try:
            yield
        except BaseException:
            self._in_tx = False
            self._next_run_id = None
            self.con.execute("ROLLBACK").fetchall()
            raise
        self._in_tx = False
        self.con.execute("COMMIT").fetchall()

    # -- writing runs ----------------------------------------------------------------
    def _insert_columns(self, table: str, columns: Mapping[str, np.ndarray]) -> None:
        """Insert column arrays in one statement (DuckDB scans the numpy dict; no executemany)."""
        n = len(next(iter(columns.values())))
        if n == 0:
            return
        name = f"_qrtune_batch_{next(_names)}"
        self.con.register(name, {k: np.ascontiguousarray(v) for k, v in columns.items()})
        try:
            self.con.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM {name}"
            ).fetchall()
        finally:
            self.con.unregister(name)

    def _allocate_run_ids(self, n: int) -> int:
        if self._next_run_id is None:
            self._next_run_id = int(self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM runs").fetchall()[0][0])
        first = self._next_run_id
        self._next_run_id += n
        return first

    def _save_project(self, project) -> str:
        digest = project_hash(project)
        from engine.model import to_dict

        self.con.execute(
            "INSERT INTO projects VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [digest, project.name, canonical_json(to_dict(project))],
        ).fetchall()
        return digest

    def record_runs(self, bundles: Sequence[RunBundle]) -> list[int]:
        """Write runs with their metrics, stages and time series in one transaction.

        Returns
        -------
        list[int]
            The new run ids, in the order of ``bundles``.
        """
        self._check_writable()
        if not bundles:
            return []
        with self.transaction():
            first = self._allocate_run_ids(len(bundles))
            ids = list(range(first, first + len(bundles)))
            runs = [b.run for b in bundles]

            def col(name, dtype=object):
                return np.array([getattr(r, name) for r in runs], dtype=dtype)

            self._insert_columns("runs", {
                "id": np.asarray(ids, dtype=np.int64),
                **{name: col(name) for name in ("project_name", "project_hash", "settings_json", "engine_version",
                                                "coefficients_version", "seed", "kind")},
                "started": col("started", "datetime64[us]"),
                **{name: col(name) for name in ("status", "scenario_kind", "bottleneck", "sweep_id", "point_index",
                                                "label", "error")},
            })
            m_counts = [len(b.metrics) for b in bundles]
            if sum(m_counts):
                flat = [m for b in bundles for m in b.metrics]
                self._insert_columns("metrics", {
                    "run_id": np.repeat(np.asarray(ids, dtype=np.int64), m_counts),
                    "metric": np.array([m[0] for m in flat], dtype=object),
                    "value": np.array([m[1] for m in flat], dtype=np.float64),
                    "unit": np.array([m[2] for m in flat], dtype=object),
                })
            s_counts = [len(b.stages) for b in bundles]
            if sum(s_counts):
                flat = [s for b in bundles for s in b.stages]
                self._insert_columns("stage_metrics", {
                    "run_id": np.repeat(np.asarray(ids, dtype=np.int64), s_counts),
                    "stage": np.array([s[0] for s in flat], dtype=object),
                    "capacity": np.array([s[1] for s in flat], dtype=np.float64),
                    "utilisation": np.array([s[2] for s in flat], dtype=np.float64),
                    "latency_ms": np.array([s[3] for s in flat], dtype=np.float64),
                    "unit": np.array([s[4] for s in flat], dtype=object),
                })
            for run_id, b in zip(ids, bundles):
                for series, (t_s, values) in b.timeseries.items():
                    t_arr = np.asarray(t_s, dtype=np.float64)
                    v_arr = np.asarray(values, dtype=np.float64)
                    if t_arr.shape != v_arr.shape:
                        raise ValueError(f"time series {series!r}: {t_arr.size} times but {v_arr.size} values")
                    self._insert_columns("timeseries", {
                        "run_id": np.full(t_arr.size, run_id, dtype=np.int64),
                        "t_s": t_arr,
                        "series": np.full(t_arr.size, series, dtype=object),
                        "value": v_arr,
                    })
        return ids

    def record_metrics_columns(self, run_ids: np.ndarray, metric: np.ndarray, value: np.ndarray, unit: np.ndarray) -> None:
        """Append metric rows given as column arrays (the bulk path; runs must exist or follow)."""
        self._check_writable()
        with self.transaction():
            self._insert_columns("metrics", {"run_id": run_ids, "metric": metric, "value": value, "unit": unit})

    def record_prediction(
        self,
        project,
        prediction,
        kind: str = "predict",
        settings: Mapping | None = None,
        label: str = "",
    ) -> int:
        """Record a steady-state prediction of ``project``; returns the new run id.

        Parameters
        ----------
        project : engine.model.Project
        prediction : engine.perf.result.Prediction
        kind : str
            ``predict`` (CLI), ``gui`` ...
        settings : Mapping, optional
            The scenario settings predicted from; default ``project_to_scenario(project)``.
        label : str
            Text shown in run lists.
        """
        self._check_writable()
        if settings is None:
            from engine.scenario import project_to_scenario

            settings = project_to_scenario(project)
        with self.transaction():
            digest = self._save_project(project)
            bundle = bundle_from_prediction(
                project_name=project.name, project_hash_=digest, settings=settings,
                prediction=prediction, kind=kind, label=label,
            )
            return self.record_runs([bundle])[0]

    def record_simulation(
        self,
        project,
        metrics: Mapping[str, float],
        units: Mapping[str, str] | None = None,
        timeseries: Mapping[str, tuple] | None = None,
        seed: int | None = None,
        settings: Mapping | None = None,
        stages: Iterable = (),
        coefficients_version: str = "",
        scenario_kind: str = "",
        bottleneck: str | None = None,
        label: str = "",
    ) -> int:
        """Record a time-domain simulation of ``project``; returns the new run id.

        Parameters
        ----------
        metrics : Mapping[str, float]
            Summary metrics (throughput, latency percentiles, peak depth, catch-up time ...).
        units : Mapping[str, str], optional
            Unit per metric.
        timeseries : Mapping[str, (t_s, values)], optional
            Series name -> equal-length arrays of seconds from start and values.
        seed : int, optional
            The generator seed; the same settings, engine version and seed give the same numbers.
        settings : Mapping, optional
            Settings simulated (default ``project_to_scenario(project)`` plus nothing else:
            pass the simulation options in here, e.g. ``{"scenario": ..., "duration_s": 600}``).
        stages : iterable of StageResult-like objects
            Objects with ``name``, ``capacity``, ``utilisation``, ``latency_ms`` and ``unit``.
        """
        self._check_writable()
        if settings is None:
            from engine.scenario import project_to_scenario

            settings = project_to_scenario(project)
        units = dict(units or {})
        with self.transaction():
            digest = self._save_project(project)
            record = RunRecord(
                id=0, project_name=project.name, project_hash=digest, settings_json=canonical_json(settings),
                engine_version=engine_version(), coefficients_version=coefficients_version, seed=seed,
                kind="simulate", started=utc_now(), status="ok",
                scenario_kind=scenario_kind or str(settings.get("kind", "")), bottleneck=bottleneck,
                label=label,
            )
            bundle = RunBundle(
                record,
                [(k, _float(v), units.get(k, "")) for k, v in metrics.items()],
                [(s.name, _float(s.capacity), _float(s.utilisation), _float(getattr(s, "latency_ms", 0.0)),
                  getattr(s, "unit", "")) for s in stages],
                dict(timeseries or {}),
            )
            return self.record_runs([bundle])[0]

    def record_failure(
        self,
        project,
        error: BaseException | str,
        kind: str = "predict",
        settings: Mapping | None = None,
        seed: int | None = None,
        label: str = "",
    ) -> int:
        """Record a run of ``project`` that failed, with its error; returns the new run id.

        Nothing a user ran is lost: a prediction or simulation the engine rejected is kept
        as a ``failed`` run whose ``error`` says why, next to the runs that worked.

        Parameters
        ----------
        error : BaseException or str
            The exception raised (kept as ``TypeName: message``) or the message itself.
        kind : str
            ``predict``, ``simulate``, ``gui`` ...
        settings : Mapping, optional
            Settings run; default ``project_to_scenario(project)`` ({} when that fails too).
        """
        self._check_writable()
        if settings is None:
            try:
                from engine.scenario import project_to_scenario

                settings = project_to_scenario(project)
            except Exception:  # noqa: BLE001 - the settings themselves may be what failed
                settings = {}
        message = error_text(error) if isinstance(error, BaseException) else str(error)
        with self.transaction():
            digest = self._save_project(project)
            bundle = bundle_failed(project_name=project.name, project_hash_=digest, settings=settings,
                                   error=message, kind=kind, seed=seed, label=label)
            return self.record_runs([bundle])[0]

    def save_project(self, project) -> str:
        """Keep ``project``'s content (for reproducing its runs); returns its hash."""
        self._check_writable()
        return self._save_project(project)

    def load_project(self, digest: str):
        """The project stored under hash ``digest``; raises StoreError when absent."""
        from engine.model import build_project

        rows = self.con.execute("SELECT project_json FROM projects WHERE hash = ?", [digest]).fetchall()
        if not rows:
            raise StoreError(f"no project with hash {digest[:12]} in the store {self.path}")
        return build_project(json.loads(rows[0][0]))

    # -- reading runs ------------------------------------------------------------------
    def list_runs(
        self,
        project_name: str | None = None,
        kind: str | None = None,
        sweep_id: int | None = None,
        limit: int | None = None,
    ) -> list[RunRecord]:
        """Runs, newest first, optionally only one project's, one kind's or one sweep's.

        A sweep's runs (``sweep_id`` given) come in point order (the cartesian product's order).
        """
        where, args = [], []
        for col, value in (("project_name", project_name), ("kind", kind), ("sweep_id", sweep_id)):
            if value is not None:
                where.append(f"{col} = ?")
                args.append(value)
        sql = f"SELECT {_RUN_COLUMNS} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY point_index, id" if sweep_id is not None else " ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [RunRecord(*row) for row in self.con.execute(sql, args).fetchall()]

    def count_runs(self, project_name: str | None = None, kind: str | None = None,
                   sweep_id: int | None = None) -> int:
        """Number of runs stored (optionally only one project's, one kind's or one sweep's)."""
        where, args = [], []
        for col, value in (("project_name", project_name), ("kind", kind), ("sweep_id", sweep_id)):
            if value is not None:
                where.append(f"{col} = ?")
                args.append(value)
        sql = "SELECT count(*) FROM runs" + (" WHERE " + " AND ".join(where) if where else "")
        return int(self.con.execute(sql, args).fetchall()[0][0])

    def get_runs(self, run_ids: Sequence[int]) -> list[RunRecord]:
        """The records of ``run_ids``, in that order.

        Raises
        ------
        UnknownRunError
            Some id names no run.
        """
        ids = [int(i) for i in run_ids]
        rows = self.con.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE id IN (SELECT unnest(?::BIGINT[]))", [ids]
        ).fetchall()
        by_id = {row[0]: RunRecord(*row) for row in rows}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise UnknownRunError(
                f"no run {', '.join(map(str, missing))} in the store {self.path} "
                f"({self.count_runs()} runs; list them with qrtune runs --db {self.path})"
            )
        return [by_id[i] for i in ids]

    def metrics_of(self, run_ids: Sequence[int]) -> dict[int, dict[str, tuple[float, str]]]:
        """Run id -> {metric: (value, unit)} for ``run_ids``."""
        ids = [int(i) for i in run_ids]
        out: dict[int, dict[str, tuple[float, str]]] = {i: {} for i in ids}
        rows = self.con.execute(
            "SELECT run_id, metric, value, unit FROM metrics WHERE run_id IN (SELECT unnest(?::BIGINT[]))", [ids]
        ).fetchall()
        for run_id, metric, value, unit in rows:
            out[run_id][metric] = (value, unit or "")
        return out

    def stages_of(self, run_ids: Sequence[int]) -> dict[int, list[StageMetricRow]]:
        """Run id -> its stage rows (in recorded order) for ``run_ids``."""
        ids = [int(i) for i in run_ids]
        out: dict[int, list[StageMetricRow]] = {i: [] for i in ids}
        rows = self.con.execute(
            "SELECT run_id, stage, capacity, utilisation, latency_ms, unit FROM stage_metrics "
            "WHERE run_id IN (SELECT unnest(?::BIGINT[])) ORDER BY rowid", [ids]
        ).fetchall()
        for row in rows:
            out[row[0]].append(StageMetricRow(*row))
        return out

    def load_run(self, run_id: int) -> RunData:
        """Everything stored for ``run_id``.

        Raises
        ------
        UnknownRunError
            No such run.
        """
        run = self.get_runs([run_id])[0]
        metrics = tuple(
            MetricRow(*r)
            for r in self.con.execute(
                "SELECT run_id, metric, value, unit FROM metrics WHERE run_id = ? ORDER BY rowid", [run_id]
            ).fetchall()
        )
        stages = tuple(
            StageMetricRow(*r)
            for r in self.con.execute(
                "SELECT run_id, stage, capacity, utilisation, latency_ms, unit FROM stage_metrics "
                "WHERE run_id = ? ORDER BY rowid", [run_id]
            ).fetchall()
        )
        series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        rows = self.con.execute(
            "SELECT series, list(t_s ORDER BY t_s), list(value ORDER BY t_s) FROM timeseries WHERE run_id = ? "
            "GROUP BY series ORDER BY series", [run_id]
        ).fetchall()
        for name, t_s, values in rows:
            series[name] = (np.asarray(t_s, dtype=np.float64), np.asarray(values, dtype=np.float64))
        return RunData(run, metrics, stages, series)

    # -- sweeps ------------------------------------------------------------------------
    def sweep_by_key(self, sweep_key: str) -> int | None:
        """Id of the sweep with ``sweep_key``, or None."""
        rows = self.con.execute("SELECT id FROM sweeps WHERE sweep_key = ?", [sweep_key]).fetchall()
        return int(rows[0][0]) if rows else None

    def create_sweep(self, sweep_key: str, project, axes: Any, n_points: int) -> int:
        """Register a new sweep (and its project); returns its id."""
        self._check_writable()
        with self.transaction():
            digest = self._save_project(project)
            new_id = int(self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM sweeps").fetchall()[0][0])
            self.con.execute(
                "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?, ?, ?)",
                [new_id, sweep_key, project.name, digest, canonical_json(axes), n_points, utc_now()],
            ).fetchall()
        return new_id

    def list_sweeps(self, project_name: str | None = None) -> list[dict]:
        """Sweeps, newest first: ``id``, ``project_name``, ``axes`` (list of dicts), ``n_points``,
        ``n_done`` (points recorded), ``n_failed`` and ``started``."""
        sql = ("SELECT s.id, s.project_name, s.axes_json, s.n_points, s.started, count(DISTINCT r.point_index), "
               "count(DISTINCT r.point_index) FILTER (WHERE r.status <> 'ok') FROM sweeps s "
               "LEFT JOIN runs r ON r.sweep_id = s.id")
        args: list = []
        if project_name is not None:
            sql += " WHERE s.project_name = ?"
            args.append(project_name)
        sql += " GROUP BY ALL ORDER BY s.id DESC"
        return [{"id": int(i), "project_name": p, "axes": json.loads(a), "n_points": int(n), "started": st,
                 "n_done": int(d), "n_failed": int(fl)} for i, p, a, n, st, d, fl in self.con.execute(sql, args).fetchall()]

    def done_points(self, sweep_id: int) -> set[int]:
        """Point indexes of ``sweep_id`` already recorded (finished, ok or failed)."""
        rows = self.con.execute("SELECT DISTINCT point_index FROM runs WHERE sweep_id = ?", [sweep_id]).fetchall()
        return {int(r[0]) for r in rows}

    # -- monitor imports -----------------------------------------------------------------
    def record_monitor_import(self, project_name: str, file: str, table_name: str, columns: dict) -> int:
        """Write one parsed monitor CSV (long-form column arrays) and its import row; returns the import id.

        ``columns`` holds equal-length arrays ``line``, ``monitor_time`` (datetime64[us]),
        ``queue``, ``col``, ``value`` and the list ``numeric_columns``. Callers wanting
        several files all-or-nothing wrap the calls in :meth:`transaction`.
        """
        self._check_writable()
        with self.transaction():
            new_id = int(self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM monitor_imports").fetchall()[0][0])
            n_rows = int(columns["n_rows"])
            self.con.execute(
                "INSERT INTO monitor_imports VALUES (?, ?, ?, ?, ?, ?, ?)",
                [new_id, project_name, file, table_name, utc_now(), n_rows, json.dumps(list(columns["numeric_columns"]))],
            ).fetchall()
            size = len(columns["line"])
            self._insert_columns("monitor_rows", {
                "import_id": np.full(size, new_id, dtype=np.int64),
                "table_name": np.full(size, table_name, dtype=object),
                "line": np.asarray(columns["line"], dtype=np.int32),
                "monitor_time": np.asarray(columns["monitor_time"], dtype="datetime64[us]"),
                "queue": np.asarray(columns["queue"], dtype=object),
                "col": np.asarray(columns["col"], dtype=object),
                "value": np.asarray(columns["value"], dtype=np.float64),
            })
        return new_id

    def list_monitor_imports(self, project_name: str | None = None) -> list[MonitorImport]:
        """Imported monitor files, oldest first."""
        sql = "SELECT id, project_name, file, table_name, imported, n_rows, columns_json FROM monitor_imports"
        args: list = []
        if project_name is not None:
            sql += " WHERE project_name = ?"
            args.append(project_name)
        rows = self.con.execute(sql + " ORDER BY id", args).fetchall()
        return [MonitorImport(*r[:6], tuple(json.loads(r[6]))) for r in rows]

    # -- fits ------------------------------------------------------------------------------
    def record_fit(self, project, base_version: str, coefficients: Mapping, n_fit: int, n_holdout: int,
                   error_before_pct: float, error_after_pct: float, report: Mapping) -> int:
        """Keep a fitted coefficient set for ``project``; returns the fit id.

        ``error_before_pct`` / ``error_after_pct`` are the held-out errors ``qrtune fit``
        prints (:func:`engine.fit.error_pct`'s ``mean_metric_pct``); ``report`` keeps all of them.
        """
        self._check_writable()
        with self.transaction():
            digest = self._save_project(project)
            new_id = int(self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM fits").fetchall()[0][0])
            self.con.execute(
                "INSERT INTO fits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [new_id, project.name, digest, utc_now(), base_version, canonical_json(coefficients), n_fit,
                 n_holdout, error_before_pct, error_after_pct, canonical_json(report)],
            ).fetchall()
        return new_id

    def latest_fit(self, project_name: str) -> dict | None:
        """The newest fit of ``project_name`` as plain data, or None."""
        rows = self.con.execute(
            "SELECT id, created, base_coefficients_version, coefficients_json, n_fit, n_holdout, error_before_pct, "
            "error_after_pct, report_json FROM fits WHERE project_name = ? ORDER BY id DESC LIMIT 1", [project_name]
        ).fetchall()
        if not rows:
            return None
        row = rows[0]
        keys = ("id", "created", "base_coefficients_version", "coefficients", "n_fit", "n_holdout",
                "error_before_pct", "error_after_pct", "report")
        data = dict(zip(keys, row))
        data["coefficients"] = json.loads(data["coefficients"])
        data["report"] = json.loads(data["report"])
        return data

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError(f"the store {self.path} is open read-only")


__all__ = [
    "REACQUIRE_WAIT_S",
    "RunBundle",
    "Store",
    "bundle_failed",
    "bundle_from_prediction",
    "canonical_json",
    "engine_version",
    "error_text",
    "project_hash",
    "project_model_dict",
    "utc_now",
]
