"""Report content: what a PDF report of projects or stored runs shows (no Qt, no drawing).

:func:`build_report` gathers a :class:`Report`: a title block (project, date,
engine and coefficient versions), per run a settings table with IBM parameter
names and changed-from-default marks, results grouped as ``qrtune predict``
prints them (throughput, the CAPTURE_LATENCY / QLATENCY / APPLY_LATENCY /
END2END_LATENCY breakdown, CPU per row), per-stage utilisation and the
bottleneck; for several runs a comparison with deltas against the first; and
the engine's score against the published measurements. ``app.report`` renders
a :class:`Report` to PDF; ``qrtune report`` is the command line.
"""

from engine.metrics.catalog import format_setting, format_value
from engine.report.build import (
    build_report,
    compare,
    run_from_project,
    run_from_project_file,
    runs_from_store,
)
from engine.report.model import Report, ReportRun, format_delta
from engine.report.validation import describe, score_scenarios

#: What front ends use; the records of a report (rows, groups, comparisons) are in
#: :mod:`engine.report.model`.
__all__ = [
    "Report",
    "ReportRun",
    "build_report",
    "compare",
    "describe",
    "format_delta",
    "format_setting",
    "format_value",
    "run_from_project",
    "run_from_project_file",
    "runs_from_store",
    "score_scenarios",
]
