"""Writing and reading runs: their records, metrics, stages and time series, and the projects they ran on."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from engine.perf.result import StageResult
from engine.store.base import StoreBase, where_equal
from engine.store.bundles import RunBundle, prediction_bundle
from engine.store.errors import StoreError, UnknownRunError
from engine.store.provenance import canonical_json, project_hash
from engine.store.records import MetricRow, RunData, RunRecord, StageMetricRow, TimeseriesPoint, column_names

RUN_COLUMNS = ", ".join(column_names(RunRecord))
_METRIC_COLUMNS = ", ".join(column_names(MetricRow))
_STAGE_COLUMNS = ", ".join(column_names(StageMetricRow))
#: Runs read from the store at a time by :meth:`RunsMixin.iter_runs`.
RUN_CHUNK_ROWS = 2048


class RunsMixin(StoreBase):
    """The runs part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    def _allocate_run_ids(self, n: int) -> int:
        if self._next_run_id is None:
            self._next_run_id = self.next_id("runs")
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

    def _insert_for_project(self, table: str, project, make_record) -> int:
        """Save ``project`` and add the record ``make_record(new_id, project_digest)`` builds to ``table``.

        All in one transaction; returns the new record's id.
        """
        self._check_writable()
        with self.transaction():
            digest = self._save_project(project)
            new_id = self.next_id(table)
            self.insert_records([make_record(new_id, digest)])
        return new_id

    def record_runs(self, bundles: Sequence[RunBundle]) -> list[int]:
        """Write runs with their metrics, stages and time series in one transaction.

        The points of a sweep keep their settings as a patch against the sweep's first point
        (:meth:`engine.store.sweeps.SweepsMixin.encode_settings`).

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
            ids = np.arange(first, first + len(bundles), dtype=np.int64)
            self.insert_records(self.encode_settings([b.run for b in bundles]), id=ids)
            for attr in ("metrics", "stages"):
                counts = [len(getattr(b, attr)) for b in bundles]
                rows = [row for b in bundles for row in getattr(b, attr)]
                self.insert_records(rows, run_id=np.repeat(ids, counts))
            self._record_timeseries(ids.tolist(), [b.timeseries for b in bundles])
        return ids.tolist()

    def _record_timeseries(self, run_ids: Sequence[int], timeseries: Sequence[Mapping[str, tuple]]) -> None:
        """Write every run's time series (``series -> (t_s, values)``) in one statement.

        Raises
        ------
        ValueError
            A series has not as many values as times.
        """
        run_id, t_s, series, value = [], [], [], []
        for rid, per_run in zip(run_ids, timeseries):
            for name, (times, values) in per_run.items():
                t_arr = np.asarray(times, dtype=np.float64)
                v_arr = np.asarray(values, dtype=np.float64)
                if t_arr.shape != v_arr.shape:
                    raise ValueError(f"time series {name!r}: {t_arr.size} times but {v_arr.size} values")
                run_id.append(np.full(t_arr.size, rid, dtype=np.int64))
                t_s.append(t_arr.ravel())
                series.append(np.full(t_arr.size, name, dtype=object))
                value.append(v_arr.ravel())
        if run_id:
            self.insert_record_columns(
                TimeseriesPoint,
                run_id=np.concatenate(run_id),
                t_s=np.concatenate(t_s),
                series=np.concatenate(series),
                value=np.concatenate(value),
            )

    def record_metrics_columns(
        self, run_ids: np.ndarray, metric: np.ndarray, value: np.ndarray, unit: np.ndarray
    ) -> None:
        """Append metric rows given as column arrays (the bulk path; runs must exist or follow)."""
        self._check_writable()
        with self.transaction():
            self.insert_columns(
                "metrics", {"run_id": run_ids, "metric": metric, "value": value, "unit": unit}
            )

    def record_run(self, project, bundle: RunBundle) -> int:
        """Save ``project`` and record the one run ``bundle`` (built for it, :mod:`engine.store.bundles`);
        all in one transaction; returns the new run id.

        Raises
        ------
        ValueError
            ``bundle`` was built for another project (its ``project_hash`` is not ``project``'s).
        """
        self._check_writable()
        with self.transaction():
            digest = self._save_project(project)
            if bundle.run.project_hash != digest:
                raise ValueError(
                    f"run of project {bundle.run.project_name!r} recorded with project {project.name!r}"
                )
            return self.record_runs([bundle])[0]

    def record_prediction(self, project, prediction, kind: str = "predict", label: str = "") -> int:
        """Record a steady-state prediction of ``project`` (:func:`~engine.store.bundles.prediction_bundle`
        of its scenario); returns the new run id."""
        return self.record_run(project, prediction_bundle(project, prediction, kind=kind, label=label))

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
        sql, args = self._runs_query(project_name, kind, sweep_id, limit)
        return self.expand_settings([RunRecord(*row) for row in self.con.execute(sql, args).fetchall()])

    @staticmethod
    def _runs_query(
        project_name: str | None, kind: str | None, sweep_id: int | None, limit: int | None
    ) -> tuple[str, list]:
        """The SQL (and its arguments) selecting :meth:`list_runs`'s runs in its order."""
        where, args = where_equal({"project_name": project_name, "kind": kind, "sweep_id": sweep_id})
        sql = f"SELECT {RUN_COLUMNS} FROM runs{where}"
        sql += " ORDER BY point_index, id" if sweep_id is not None else " ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return sql, args

    def iter_runs(
        self,
        project_name: str | None = None,
        kind: str | None = None,
        sweep_id: int | None = None,
        limit: int | None = None,
        chunk_rows: int = RUN_CHUNK_ROWS,
    ) -> Iterator[list[RunRecord]]:
        """:meth:`list_runs`'s runs, in the same order, ``chunk_rows`` at a time as they are read.

        Memory stays bounded by the chunk whatever the number of runs (a 100,000-point sweep). The
        store must stay open while the chunks are used.
        """
        sql, args = self._runs_query(project_name, kind, sweep_id, limit)
        cursor = self.con.cursor()  # its own result, so other queries may run between chunks
        try:
            cursor.execute(sql, args)
            while chunk := cursor.fetchmany(chunk_rows):
                yield self.expand_settings([RunRecord(*row) for row in chunk])
        finally:
            cursor.close()

    def metric_units(
        self, project_name: str | None = None, kind: str | None = None, sweep_id: int | None = None
    ) -> dict[str, str]:
        """Metric -> unit of every metric the selected runs recorded, in the order they were first recorded."""
        where, args = where_equal({"project_name": project_name, "kind": kind, "sweep_id": sweep_id})
        rows = self.con.execute(
            "SELECT metric, any_value(unit), min(rowid) AS first FROM metrics "
            f"WHERE run_id IN (SELECT id FROM runs{where}) GROUP BY metric ORDER BY first",
            args,
        ).fetchall()
        return {metric: unit or "" for metric, unit, _ in rows}

    def count_runs(
        self, project_name: str | None = None, kind: str | None = None, sweep_id: int | None = None
    ) -> int:
        """Number of runs stored (optionally only one project's, one kind's or one sweep's)."""
        where, args = where_equal({"project_name": project_name, "kind": kind, "sweep_id": sweep_id})
        return int(self.con.execute(f"SELECT count(*) FROM runs{where}", args).fetchall()[0][0])

    def get_runs(self, run_ids: Sequence[int]) -> list[RunRecord]:
        """The records of ``run_ids``, in that order.

        Raises
        ------
        UnknownRunError
            Some id names no run.
        """
        ids = [int(i) for i in run_ids]
        rows = self.con.execute(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE id IN (SELECT unnest(?::BIGINT[]))", [ids]
        ).fetchall()
        by_id = {row[0]: RunRecord(*row) for row in rows}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise UnknownRunError(
                f"no run {', '.join(map(str, missing))} in the store {self.path} "
                f"({self.count_runs()} runs; list them with qrtune runs --db {self.path})"
            )
        return self.expand_settings([by_id[i] for i in ids])

    def metrics_of(self, run_ids: Sequence[int]) -> dict[int, dict[str, tuple[float, str]]]:
        """Run id -> {metric: (value, unit)} for ``run_ids``."""
        ids = [int(i) for i in run_ids]
        out: dict[int, dict[str, tuple[float, str]]] = {i: {} for i in ids}
        rows = self.con.execute(
            f"SELECT {_METRIC_COLUMNS} FROM metrics WHERE run_id IN (SELECT unnest(?::BIGINT[]))", [ids]
        ).fetchall()
        for run_id, metric, value, unit in rows:
            out[run_id][metric] = (value, unit or "")
        return out

    def stages_of(self, run_ids: Sequence[int]) -> dict[int, list[StageResult]]:
        """Run id -> its stages (in recorded order) for ``run_ids``."""
        ids = [int(i) for i in run_ids]
        out: dict[int, list[StageResult]] = {i: [] for i in ids}
        rows = self.con.execute(
            f"SELECT {_STAGE_COLUMNS} FROM stage_metrics WHERE run_id IN (SELECT unnest(?::BIGINT[])) ORDER BY rowid",
            [ids],
        ).fetchall()
        for row in rows:
            out[row[0]].append(StageMetricRow(*row).result())
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
                f"SELECT {_METRIC_COLUMNS} FROM metrics WHERE run_id = ? ORDER BY rowid", [run_id]
            ).fetchall()
        )
        stages = tuple(self.stages_of([run_id])[run_id])
        series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        rows = self.con.execute(
            "SELECT series, list(t_s ORDER BY t_s), list(value ORDER BY t_s) FROM timeseries WHERE run_id = ? "
            "GROUP BY series ORDER BY series",
            [run_id],
        ).fetchall()
        for name, t_s, values in rows:
            series[name] = (np.asarray(t_s, dtype=np.float64), np.asarray(values, dtype=np.float64))
        return RunData(run, metrics, stages, series)
