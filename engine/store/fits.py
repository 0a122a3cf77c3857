"""Coefficient sets fitted to imported monitor intervals (``qrtune fit``)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from engine.store.provenance import canonical_json, utc_now
from engine.store.records import FitRecord


class FitsMixin:
    """The fits part of :class:`engine.store.Store` (needs :class:`~engine.store.base.StoreBase`)."""

    def record_fit(
        self,
        project,
        base_version: str,
        coefficients: Mapping,
        n_fit: int,
        n_holdout: int,
        error_before_pct: float,
        error_after_pct: float,
        report: Mapping,
    ) -> int:
        """Keep a fitted coefficient set for ``project``; returns the fit id.

        ``error_before_pct`` / ``error_after_pct`` are the held-out errors ``qrtune fit``
        prints (:func:`engine.fit.error_pct`'s ``mean_metric_pct``); ``report`` keeps all of them.
        """
        self._check_writable()
        with self.transaction():
            digest = self._save_project(project)
            new_id = self.next_id("fits")
            self.insert_records(
                [
                    FitRecord(
                        new_id,
                        project.name,
                        digest,
                        utc_now(),
                        base_version,
                        canonical_json(coefficients),
                        n_fit,
                        n_holdout,
                        error_before_pct,
                        error_after_pct,
                        canonical_json(report),
                    )
                ]
            )
        return new_id

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
