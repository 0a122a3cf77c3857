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

from engine.report.build import (
    build_report,
    compare,
    group_metrics,
    run_from_project,
    run_from_project_file,
    runs_from_store,
)
from engine.report.model import (
    LATENCY_PARTS,
    MetricComparison,
    MetricGroup,
    MetricValue,
    Report,
    ReportRun,
    RunComparison,
    SettingDifference,
    SettingRow,
    StageRow,
    ValidationScore,
    format_delta,
    format_value,
)
from engine.report.validation import BUNDLED_SCENARIOS, describe, score_scenarios

__all__ = [
    "BUNDLED_SCENARIOS",
    "LATENCY_PARTS",
    "MetricComparison",
    "MetricGroup",
    "MetricValue",
    "Report",
    "ReportRun",
    "RunComparison",
    "SettingDifference",
    "SettingRow",
    "StageRow",
    "ValidationScore",
    "build_report",
    "compare",
    "describe",
    "format_delta",
    "format_value",
    "group_metrics",
    "run_from_project",
    "run_from_project_file",
    "runs_from_store",
    "score_scenarios",
]
