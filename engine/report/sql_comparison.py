"""Q Replication against SQL Replication, figure by figure (journey 13: "is the move worth it?").

A Q Replication prediction made with ``sql_apply.compare`` carries SQL Replication's figures
for the same workload and hardware as ``sql_...`` metrics
(:func:`engine.perf.qrep.sql_replication.comparison_metrics`). :func:`sql_comparison_rows`
pairs them with Q Replication's for the window's "Q vs SQL Replication" tab and the PDF.
"""

from __future__ import annotations

from collections import namedtuple

from engine.metrics import label

#: (Q Replication metric, SQL Replication metric) in the order printed.
PAIRS = (
    ("qrep_max_rows_per_s", "sql_max_rows_per_s"),
    ("apply_rows_per_s", "sql_apply_rows_per_s"),
    ("backlog_growth_rows_per_s", "sql_backlog_growth_rows_per_s"),
    ("end2end_latency_ms", "sql_end2end_latency_ms"),
    ("capture_latency_ms", "sql_capture_latency_ms"),
    ("qlatency_ms", "sql_qlatency_ms"),
    ("apply_latency_ms", "sql_apply_latency_ms"),
    ("capture_cpu_us_per_row", "sql_capture_cpu_us_per_row"),
    ("apply_cpu_us_per_row", "sql_apply_cpu_us_per_row"),
    ("total_cpu_us_per_row", "sql_total_cpu_us_per_row"),
    ("source_lpar_busy_pct", "sql_source_lpar_busy_pct"),
)
#: Labels where Q and SQL Replication name the figure differently.
_LABELS = {
    "qrep_max_rows_per_s": "Most rows/s (driven to the maximum)",
    "apply_rows_per_s": "Rows applied at the workload's rate",
    "qlatency_ms": "QLATENCY (SQL: time in the CD tables)",
    "capture_cpu_us_per_row": "Source CPU per row (SQL: Capture, CD insert, prune)",
}


class ComparisonRow(namedtuple("ComparisonRow", "label qrep sql unit")):
    """One figure of both products: label, Q value, SQL value (None when one lacks it), unit."""

    __slots__ = ()

    @property
    def ratio_text(self) -> str:
        """Q over SQL Replication, ``"3.25x"`` (two significant digits below 0.1: ``"0.0041x"``);
        ``""`` when either value is missing or SQL's is 0."""
        if self.qrep is None or not self.sql:
            return ""
        ratio = self.qrep / self.sql
        return f"{ratio:,.2f}x" if abs(ratio) >= 0.1 else f"{ratio:.2g}x"


def sql_comparison_rows(metrics: dict, units: dict) -> tuple:
    """The side-by-side rows of a prediction, empty when it has no SQL Replication figures.

    Parameters
    ----------
    metrics, units : dict
        A Q Replication prediction's metrics and units.
    """
    if "sql_max_rows_per_s" not in metrics:
        return ()
    rows = []
    for q_name, sql_name in PAIRS:
        q, sql = metrics.get(q_name), metrics.get(sql_name)
        if q is None and sql is None:
            continue
        unit = units.get(q_name) or units.get(sql_name, "")
        rows.append(ComparisonRow(_LABELS.get(q_name, label(q_name)), q, sql, unit))
    return tuple(rows)
