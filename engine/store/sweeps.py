"""Sweeps: their registration, their points' progress, and the compact form of their points' settings.

A sweep's points differ from each other in the swept knobs only, so each point's settings are
stored as a JSON merge patch (:mod:`engine.store.settings_patch`) against the settings of the
sweep's first recorded point (``sweeps.base_settings_json``): about 0.1 KB a point instead of
1.5 KB. Reading a run gives its full settings back; the views of :mod:`engine.store.views`
expand them in SQL.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from engine.store.base import StoreBase, where_equal
from engine.store.point_columns import PointColumns
from engine.store.provenance import canonical_json, utc_now
from engine.store.records import MetricRow, RunRecord, StageMetricRow, StoredPoint, SweepRecord
from engine.store.settings_patch import PATCH_KEY, make_patch, merge_patch


class SweepsMixin(StoreBase):
    """The sweeps part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    def sweep_by_key(self, sweep_key: str) -> int | None:
        """Id of the sweep with ``sweep_key``, or None."""
        rows = self.con.execute("SELECT id FROM sweeps WHERE sweep_key = ?", [sweep_key]).fetchall()
        return int(rows[0][0]) if rows else None

    def create_sweep(self, sweep_key: str, project, axes: Any, n_points: int) -> int:
        """Register a new sweep (and its project); returns its id."""
        return self._insert_for_project(
            "sweeps",
            project,
            lambda new_id, digest: SweepRecord(
                new_id, sweep_key, project.name, digest, canonical_json(axes), n_points, utc_now()
            ),
        )

    def list_sweeps(self, project_name: str | None = None) -> list[dict]:
        """Sweeps and simulation studies, newest first: ``id``, ``project_name``, ``kind`` (``sweep`` or
        ``study``), ``axes`` (list of dicts, :func:`point_axes`), ``n_points``, ``n_done`` (points
        recorded), ``n_failed`` and ``started``."""
        where, args = where_equal({"s.project_name": project_name})
        sql = (
            "SELECT s.id, s.project_name, s.axes_json, s.n_points, s.started, count(DISTINCT r.point_index), "
            "count(DISTINCT r.point_index) FILTER (WHERE r.status <> 'ok') FROM sweeps s "
            f"LEFT JOIN runs r ON r.sweep_id = s.id{where} GROUP BY ALL ORDER BY s.id DESC"
        )
        return [
            {
                "id": int(i),
                "project_name": p,
                "kind": "study" if _is_study(plan := json.loads(a)) else "sweep",
                "axes": point_axes(plan),
                "n_points": int(n),
                "started": st,
                "n_done": int(d),
                "n_failed": int(fl),
            }
            for i, p, a, n, st, d, fl in self.con.execute(sql, args).fetchall()
        ]

    def sweep_run_counts(self, sweep_id: int) -> tuple[int, int, int | None, int | None]:
        """``(runs, ok runs, first ok run id, last ok run id)`` of ``sweep_id`` in point order, counted in SQL
        (a 100,000-point sweep is never read into memory for its summary line)."""
        row = self.con.execute(
            "SELECT count(*), count(*) FILTER (WHERE status = 'ok'), "
            "arg_min(id, (point_index, id)) FILTER (WHERE status = 'ok'), "
            "arg_max(id, (point_index, id)) FILTER (WHERE status = 'ok') FROM runs WHERE sweep_id = ?",
            [sweep_id],
        ).fetchall()[0]
        return int(row[0]), int(row[1]), row[2], row[3]

    def done_points(self, sweep_id: int) -> set[int]:
        """Point indexes of ``sweep_id`` already recorded (finished, ok or failed)."""
        rows = self.con.execute(
            "SELECT DISTINCT point_index FROM runs WHERE sweep_id = ?", [sweep_id]
        ).fetchall()
        return {int(r[0]) for r in rows}

    def done_points_between(self, sweep_id: int, first: int, last: int) -> set[int]:
        """:meth:`done_points` among the point indexes ``first`` to ``last`` (inclusive)."""
        rows = self.con.execute(
            "SELECT DISTINCT point_index FROM runs WHERE sweep_id = ? AND point_index BETWEEN ? AND ?",
            [sweep_id, int(first), int(last)],
        ).fetchall()
        return {int(r[0]) for r in rows}

    def done_point_mask(self, sweep_id: int, n_points: int) -> np.ndarray:
        """Which of the ``n_points`` points of ``sweep_id`` are recorded: a boolean array (1 byte a point)."""
        done = np.zeros(n_points, dtype=bool)
        column = self.con.execute(
            "SELECT DISTINCT point_index FROM runs WHERE sweep_id = ? AND point_index BETWEEN 0 AND ?",
            [sweep_id, n_points - 1],
        ).fetchnumpy()["point_index"]
        done[np.asarray(column, dtype=np.int64)] = True
        return done

    def sweep_points(self, sweep_id: int) -> list[StoredPoint]:
        """The recorded points of sweep ``sweep_id``, each once, by the newest run that recorded it.

        Two writers of the same sweep may both record a point; its newest run stands for it.
        """
        runs = [r for r in self.list_runs(sweep_id=sweep_id) if r.point_index is not None]
        metrics = self.metrics_of([r.id for r in runs]) if runs else {}
        points: dict[int, StoredPoint] = {}
        for r in runs:
            if r.point_index not in points:
                points[r.point_index] = StoredPoint.of(r, metrics[r.id])
        return list(points.values())

    # -- compact settings of sweep points ------------------------------------------------
    def _base_settings(self, sweep_id: int) -> str | None:
        rows = self.con.execute("SELECT base_settings_json FROM sweeps WHERE id = ?", [sweep_id]).fetchall()
        return rows[0][0] if rows else None

    def sweep_base_settings(self, sweep_id: int, settings_json: str | None = None) -> str | None:
        """The settings (JSON) the points of ``sweep_id`` are stored against; a sweep without any yet
        gets ``settings_json`` (its first point's), when given. None: the sweep has no base."""
        text = self._base_settings(sweep_id)
        if text is None and settings_json is not None:
            self._check_writable()
            self.con.execute(
                "UPDATE sweeps SET base_settings_json = ? WHERE id = ?", [settings_json, sweep_id]
            ).fetchall()
            text = settings_json
        return text

    def encode_settings(self, runs: Sequence[RunRecord]) -> list[RunRecord]:
        """``runs`` with each sweep point's settings as a patch against its sweep's base settings.

        The first point recorded of a sweep sets the base. A point whose settings no patch can
        express (a knob set to null) keeps its full settings.
        """
        bases: dict[int, dict | None] = {}
        out = []
        for run in runs:
            if run.sweep_id is None or run.status != "ok":
                out.append(run)
                continue
            if run.sweep_id not in bases:
                bases[run.sweep_id] = json.loads(self.sweep_base_settings(run.sweep_id, run.settings_json))
            out.append(encode_point_settings(bases[run.sweep_id], run))
        return out

    def record_point_columns(self, points: PointColumns) -> np.ndarray:
        """Append sweep points given column-wise (a worker's :class:`PointColumns`) in one transaction.

        The settings are stored as given: encode them first with :func:`encode_point_settings`
        against :meth:`sweep_base_settings`. Nothing is done per point but the run ids' arithmetic.

        Returns
        -------
        numpy.ndarray
            The new run ids (int64), in the order of ``points``.
        """
        self._check_writable()
        if not points.n:
            return np.zeros(0, dtype=np.int64)
        with self.transaction():
            first = self._allocate_run_ids(points.n)
            ids = np.arange(first, first + points.n, dtype=np.int64)
            self.insert_record_columns(RunRecord, id=ids, **points.runs)
            for record_type, rows in ((MetricRow, points.metrics), (StageMetricRow, points.stages)):
                columns = dict(rows)
                run_id = ids[points.row_positions(columns.pop("point_index"))]
                self.insert_record_columns(record_type, run_id=run_id, **columns)
        return ids

    def expand_settings(self, runs: Sequence[RunRecord]) -> list[RunRecord]:
        """``runs`` with every stored patch applied: each record carries its full settings."""
        bases: dict[int, dict] = {}
        out = []
        for run in runs:
            if run.sweep_id is None or not run.settings_json.startswith('{"' + PATCH_KEY):
                out.append(run)
                continue
            if run.sweep_id not in bases:
                bases[run.sweep_id] = json.loads(self._base_settings(run.sweep_id) or "{}")
            full = merge_patch(bases[run.sweep_id], json.loads(run.settings_json)[PATCH_KEY])
            out.append(replace(run, settings_json=canonical_json(full)))
        return out


def scenario_text(events: Sequence[str]) -> str:
    """A simulation study's scenario: its events joined by ``,`` (``no-outage`` for none)."""
    return ",".join(events) or "no-outage"


def _is_study(stored: Any) -> bool:
    return isinstance(stored, dict) and stored.get("study") == "simulate"


def point_axes(stored: Any) -> list[dict]:
    """A sweep's stored axes as the list of axes its point index runs over (last fastest).

    A sweep stores that list. A simulation study stores its whole plan (knob axes, scenarios,
    seeds); its run index is knob point x scenario x seed, so its axes are the knob axes and
    then two more, ``study.scenario`` (:func:`scenario_text` of each) and ``study.seed``, each
    with a ``label`` to show.
    """
    if not _is_study(stored):
        return list(stored) if isinstance(stored, list) else []
    return [
        *stored.get("axes", []),
        {
            "target": "study",
            "param": "scenario",
            "label": "Outage scenario",
            "node_ids": [],
            "values": [scenario_text(s) for s in stored.get("scenarios", [[]])],
        },
        {
            "target": "study",
            "param": "seed",
            "label": "Seed",
            "node_ids": [],
            "values": list(stored.get("seeds", [0])),
        },
    ]


def encode_point_settings(base: dict | None, run: RunRecord) -> RunRecord:
    """``run`` (a sweep point) with its settings as a patch against ``base`` (its sweep's base settings,
    parsed) when it finished ``ok`` and a patch gives them back exactly; else unchanged."""
    if base is None or run.status != "ok":
        return run
    return replace(run, settings_json=_as_patch(base, run.settings_json))


def _as_patch(base: dict, settings_json: str) -> str:
    """``settings_json`` as ``{"$patch": ...}`` against ``base`` when that gives it back exactly, else unchanged."""
    settings = json.loads(settings_json)
    patch = make_patch(base, settings)
    if patch is None or merge_patch(base, patch) != settings:
        return settings_json
    return canonical_json({PATCH_KEY: patch})
