"""Coefficient sets fitted to imported monitor intervals (``qrtune fit``)."""

from __future__ import annotations

import json

from engine.store.base import StoreBase
from engine.store.provenance import canonical_json, utc_now
from engine.store.records import FitRecord


class FitsMixin(StoreBase):
    """The fits part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    def record_fit(self, project, result) -> int:
        """Keep the coefficients fitted for ``project``; returns the fit id.

        Parameters
        ----------
        project : engine.model.Project
        result : engine.calibrate.fit.FitResult
            What :func:`engine.calibrate.fit.fit_coefficients` found: the fitted set, the base version,
            the counts of intervals and the held-out errors ``qrtune fit`` prints
            (:func:`engine.calibrate.fit.error_pct`'s ``mean_metric_pct``, before and after), all of
            them kept in the fit's report.
        """
        return self._insert_for_project(
            "fits",
            project,
            lambda new_id, digest: FitRecord(
                new_id,
                project.name,
                digest,
                utc_now(),
                result.base_version,
                canonical_json(result.fitted),
                result.n_fit,
                result.n_holdout,
                result.before["mean_metric_pct"],
                result.after["mean_metric_pct"],
                canonical_json(result.to_json()),
            ),
        )

    def latest_fit(self, project_name: str) -> dict | None:
        """The newest fit of ``project_name`` as plain data, or None."""
        rows = self.con.execute(
            "SELECT id, created, base_coefficients_version, coefficients_json, n_fit, n_holdout, error_before_pct, "
            "error_after_pct, report_json FROM fits WHERE project_name = ? ORDER BY id DESC LIMIT 1",
            [project_name],
        ).fetchall()
        if not rows:
            return None
        keys = (
            "id",
            "created",
            "base_coefficients_version",
            "coefficients",
            "n_fit",
            "n_holdout",
            "error_before_pct",
            "error_after_pct",
            "report",
        )
        data = dict(zip(keys, rows[0]))
        data["coefficients"] = json.loads(data["coefficients"])
        data["report"] = json.loads(data["report"])
        return data
