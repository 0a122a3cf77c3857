"""What every output metric and knob is called for a user: IBM's names, labels, units, sources.

:mod:`engine.metrics.catalog` holds the metrics (monitor column or report name, label, unit,
display unit by magnitude, better direction, group), :mod:`engine.metrics.knobs` the knobs'
IBM parameter names and :mod:`engine.metrics.sources` the seed documents' titles.
"""

from engine.metrics.catalog import (
    APPLYMON_LATENCIES,
    MetricInfo,
    better_direction,
    display_value,
    format_metric,
    info,
    label,
)
from engine.metrics.knobs import knob_label
from engine.metrics.sources import source_title

__all__ = [
    "APPLYMON_LATENCIES",
    "MetricInfo",
    "better_direction",
    "display_value",
    "format_metric",
    "info",
    "knob_label",
    "label",
    "source_title",
]
