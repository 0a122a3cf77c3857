"""Finished sweep points column-wise: what a sweep's worker sends back and the store appends as it is.

A sweep's points are predicted in worker processes; the one writing process should do
nothing per point but append. :class:`PointColumns` holds a batch of points as numpy
columns - one per :class:`~engine.store.records.RunRecord` field (``id`` excepted), and the
metric and stage rows in long form keyed by point index - so it pickles compactly, batches
join with :meth:`PointColumns.concat`, and :meth:`engine.store.Store.record_point_columns`
writes them with three column-wise inserts and no Python object per point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from engine.store.base import _DTYPES, record_columns
from engine.store.records import MetricRow, RunRecord, StageMetricRow

_RUN_FIELDS = tuple(f.name for f in fields(RunRecord) if f.name != "id")
_METRIC_FIELDS = tuple(f.name for f in fields(MetricRow) if f.name != "run_id")
_STAGE_FIELDS = tuple(f.name for f in fields(StageMetricRow) if f.name != "run_id")


@dataclass
class PointColumns:
    """Runs of sweep points with their metric and stage rows, as columns.

    Attributes
    ----------
    index : numpy.ndarray
        Point index of each run (int64), unique within one batch.
    runs : dict[str, numpy.ndarray]
        :class:`RunRecord` field name -> one value per run (every field but ``id``).
    metrics, stages : dict[str, numpy.ndarray]
        :class:`MetricRow` / :class:`StageMetricRow` field name -> one value per row (``run_id``
        excepted), plus ``point_index``: the point each row belongs to.
    """

    index: np.ndarray
    runs: dict
    metrics: dict
    stages: dict

    @property
    def n(self) -> int:
        """Number of runs (points)."""
        return len(self.index)

    @classmethod
    def build(
        cls, runs: Sequence[RunRecord], metrics: Sequence[list], stages: Sequence[list]
    ) -> PointColumns:
        """The columns of sweep point runs (settings as they are to be stored) and their rows.

        Parameters
        ----------
        runs : sequence of RunRecord
            One per point (``point_index`` set, ``id`` ignored).
        metrics, stages : sequence of lists of tuples
            For each run, its :class:`MetricRow` / :class:`StageMetricRow` fields but ``run_id``, as tuples
            (:func:`engine.store.bundles.metric_values`, :func:`~engine.store.bundles.stage_values`).
        """
        index = np.array([r.point_index for r in runs], dtype=np.int64)
        run_columns = record_columns(runs, _RUN_FIELDS, RunRecord)
        run_columns["point_index"] = index
        return cls(
            index,
            run_columns,
            _long_form(index, metrics, MetricRow, _METRIC_FIELDS),
            _long_form(index, stages, StageMetricRow, _STAGE_FIELDS),
        )

    @classmethod
    def from_bundles(cls, bundles: Sequence) -> PointColumns:
        """The columns of ``bundles`` (:class:`~engine.store.bundles.RunBundle` of sweep points)."""

        def values(rows, names):
            return [tuple(getattr(row, name) for name in names) for row in rows]

        return cls.build(
            [b.run for b in bundles],
            [values(b.metrics, _METRIC_FIELDS) for b in bundles],
            [values(b.stages, _STAGE_FIELDS) for b in bundles],
        )

    @classmethod
    def concat(cls, parts: Sequence[PointColumns]) -> PointColumns:
        """One batch of ``parts``' runs in that order (their point indexes must not repeat)."""

        def joined(get) -> dict:
            return {name: np.concatenate([get(p)[name] for p in parts]) for name in get(parts[0])}

        return cls(
            np.concatenate([p.index for p in parts]),
            joined(lambda p: p.runs),
            joined(lambda p: p.metrics),
            joined(lambda p: p.stages),
        )

    def without(self, indexes) -> PointColumns:
        """This batch without the points whose index is in ``indexes`` (and their rows)."""
        gone = np.asarray(list(indexes), dtype=np.int64)
        if not len(gone):
            return self
        keep = ~np.isin(self.index, gone)

        def rows(table: dict) -> dict:
            kept = ~np.isin(table["point_index"], gone)
            return {name: column[kept] for name, column in table.items()}

        return PointColumns(
            self.index[keep],
            {name: column[keep] for name, column in self.runs.items()},
            rows(self.metrics),
            rows(self.stages),
        )

    def row_positions(self, point_index: np.ndarray) -> np.ndarray:
        """Position among the runs of each of ``point_index`` (the run a metric or stage row belongs to)."""
        order = np.argsort(self.index, kind="stable")
        return order[np.searchsorted(self.index, point_index, sorter=order)]

    def run_records(self, run_ids: Sequence[int]) -> list[RunRecord]:
        """The runs as records, the ``k``-th with id ``run_ids[k]``."""
        rows = zip(*(self.runs[name].tolist() for name in _RUN_FIELDS))
        return [RunRecord(int(i), *row) for i, row in zip(run_ids, rows)]

    def metrics_by_point(self) -> dict[int, dict[str, tuple[float, str]]]:
        """Point index -> {metric: (value, unit)} (empty for a failed point)."""
        out: dict[int, dict[str, tuple[float, str]]] = {int(i): {} for i in self.index}
        m = self.metrics
        for i, name, value, unit in zip(m["point_index"], m["metric"], m["value"], m["unit"]):
            out[int(i)][name] = (float(value), unit)
        return out


def _long_form(index: np.ndarray, per_run: Sequence[list], record_type, names: tuple) -> dict:
    """Rows given per run (tuples of the ``names`` fields) as columns, with the point index of each row."""
    rows = [row for run_rows in per_run for row in run_rows]
    dtypes = {f.name: _DTYPES.get(f.type, object) for f in fields(record_type)}
    columns = list(zip(*rows)) if rows else [()] * len(names)
    out = {name: np.array(column, dtype=dtypes[name]) for name, column in zip(names, columns)}
    out["point_index"] = np.repeat(index, [len(r) for r in per_run])
    return out


__all__ = ["PointColumns"]
