"""The report's "Q against SQL Replication" table (a prediction made with ``sql_apply.compare``).

One row per figure (throughput, latencies, CPU per row) with Q Replication's value, SQL
Replication's for the same workload and hardware, and their ratio
(:func:`engine.report.sql_comparison.sql_comparison_rows`).
"""

from __future__ import annotations

import html

from app.report.layout import Block, Html, Table
from engine.report import ReportRun, format_value
from engine.report.sql_comparison import sql_comparison_rows


def _cell(value) -> str:
    return "-" if value is None else format_value(value)


def run_sql_comparison_blocks(run: ReportRun) -> list[Block]:
    """The Q-against-SQL table of one run (empty list when the run has no SQL Replication figures)."""
    rows = sql_comparison_rows(run.metrics, run.units)
    if not rows:
        return []
    body = [
        "<tr><td>"
        + html.escape(r.label)
        + f"</td><td class=num>{_cell(r.qrep)}</td><td class=num>{_cell(r.sql)}</td>"
        + f"<td class=num>{r.ratio_text or '-'}</td><td>{html.escape(r.unit)}</td></tr>"
        for r in rows
    ]
    return [
        Table(
            ["Figure", "Q Replication", "SQL Replication", "Q / SQL", "Unit"],
            body,
            [40, 16, 16, 12, 16],
            right={1, 2, 3},
            caption="Q against SQL Replication (same workload and hardware)",
        ),
        Html(
            "<p class='muted small'>SQL Replication: Capture inserts each change into CD staging tables, "
            "one Apply per subscription set fetches them over a database connection each cycle and "
            "applies them row by row (seed 001 found Q Replication about three times faster).</p>"
        ),
    ]
