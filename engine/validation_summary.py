"""The engine against published measurements, per scenario and metric, and the summary figures.

Runs :func:`engine.evaluate.evaluate_scenario` over the scenarios of a ``qrtune-scenarios/1``
file (by default the bundled ``assets/validation/calibration.json``, a copy of
``../shared/validation/calibration.json``) and compares each predicted metric with the
measured one. The figures are computed the way ``../shared/validation/score.py`` computes
its summary line, so the workbench's Validation view, ``qrtune report`` and the scorer
agree:

* a measured metric counts as predicted when the engine returns a finite number for it;
* metrics are scored in two classes, rates (throughput, sizes, CPU, utilisation ...) and
  latencies (names ending in ``latency_ms``, ``response_time_ms``, ``_mqput_us``,
  ``_mqget_us``, ``_mqcommit_us`` or ``elapsed_us_per_msg``), because published latencies
  are noisy;
* the error is the absolute percentage error ``|predicted - measured| / |measured| * 100``
  (a measured zero scores ``|predicted| * 100``, or 0 when the prediction is zero too);
* the median is the usual one and the 90th percentile is the sorted error at rank
  ``min(n - 1, int(0.9 n))``.

Some measurements were published more than once for the same settings, in different tables
(the Redpaper's baseline run recurs in most of its tables), and a metric's values can differ
between those runs (the baseline's APPLY_LATENCY differs tenfold from one table to another).
The engine gives one value for one set of settings, so every check
carries the range published for its settings (:func:`published_ranges`) and the summary
counts the checks whose published values lie :data:`APART_FACTOR` times apart or more.

The workbench (``app.panels.validation``) and the report (``engine.report.validation``)
format these results; neither computes them.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.io.packagedata import asset_path

#: The published measurements shipped with qrtune.
BUNDLED_SCENARIOS = asset_path("validation", "calibration.json")

#: Name endings of latency-like metrics (the scorer's latency class).
LATENCY_SUFFIXES = (
    "latency_ms",
    "response_time_ms",
    "_mqput_us",
    "_mqget_us",
    "_mqcommit_us",
    "elapsed_us_per_msg",
)

#: Published values of one metric for the same settings this many times apart (highest over
#: lowest) or more disagree beyond what one prediction can match (within 30% of both needs
#: a ratio under 1.86).
APART_FACTOR = 2.0


@dataclass(frozen=True)
class MetricCheck:
    """One measured metric of one scenario and what the engine predicts for it.

    Attributes
    ----------
    scenario_id, kind, source : str
        The scenario's ``id``, ``kind`` (``qrep``, ``db2mirror`` ...) and ``source``.
    metric : str
        Metric name, with its unit in the name (``apply_rows_per_s``).
    measured : float
        Published value, in the metric's unit.
    predicted : float or None
        The engine's value in the same unit; None when it returned no finite number.
    error_pct : float or None
        Signed percentage error ``(predicted - measured) / |measured| * 100`` (positive: the
        engine predicts more); for a measured zero, the scorer's absolute error. None when
        not predicted.
    is_latency : bool
        Scored with the latencies (see :func:`is_latency`).
    published_range : tuple[float, float, int] or None
        Lowest and highest value published for the same settings and metric and how many
        scenarios publish it; None when the settings were published once or always with the
        same value (:func:`published_ranges`).
    """

    scenario_id: str
    kind: str
    source: str
    metric: str
    measured: float
    predicted: float | None
    error_pct: float | None
    is_latency: bool
    published_range: tuple[float, float, int] | None = None

    @property
    def abs_error_pct(self) -> float | None:
        """Absolute percentage error (%), None when not predicted."""
        return None if self.error_pct is None else abs(self.error_pct)

    @property
    def published_apart(self) -> bool:
        """True when the values published for these settings are :data:`APART_FACTOR` times apart or more."""
        if self.published_range is None:
            return False
        low, high, _ = self.published_range
        return low > 0 and high >= APART_FACTOR * low


@dataclass(frozen=True)
class KindSummary:
    """Counts and median absolute errors (%) of one scenario kind."""

    kind: str
    n_scenarios: int
    n_measured: int
    n_predicted: int
    rate_median_abs_pct: float | None
    latency_median_abs_pct: float | None


@dataclass(frozen=True)
class ValidationSummary:
    """Counts and absolute percentage errors (%) over a set of checks.

    Attributes
    ----------
    n_scenarios, n_measured, n_predicted : int
        Scenarios, measured metrics, and measured metrics the engine predicts.
    rate_median_abs_pct, rate_p90_abs_pct, latency_median_abs_pct, latency_p90_abs_pct : float or None
        Median and 90th percentile absolute errors (%) of each class; None without any.
    rate_n, latency_n : int
        Predicted metrics of each class.
    n_published_apart : int
        Checks whose settings were published more than once with values
        :data:`APART_FACTOR` times apart or more (:attr:`MetricCheck.published_apart`).
    bottlenecks_right, bottlenecks_named : int
        Scenarios whose published bottleneck the engine names, of those that publish one.
    errors : tuple[tuple[str, str], ...]
        (scenario id, the engine's message) of scenarios it could not predict.
    by_kind : tuple[KindSummary, ...]
        The same per scenario kind, in order of first appearance.
    """

    n_scenarios: int
    n_measured: int
    n_predicted: int
    rate_median_abs_pct: float | None
    rate_p90_abs_pct: float | None
    latency_median_abs_pct: float | None
    bottlenecks_right: int = 0
    bottlenecks_named: int = 0
    errors: tuple = ()
    latency_p90_abs_pct: float | None = None
    rate_n: int = 0
    latency_n: int = 0
    by_kind: tuple = ()
    n_published_apart: int = 0

    @property
    def coverage(self) -> float:
        """Fraction (0..1) of measured metrics the engine predicts."""
        return self.n_predicted / self.n_measured if self.n_measured else 0.0


def is_latency(metric: str) -> bool:
    """True for latency-like metrics (scored apart from rates), as the scorer classes them."""
    return metric.endswith(LATENCY_SUFFIXES)


def error_pct(predicted: float, measured: float) -> float:
    """Signed percentage error (%) of ``predicted`` against ``measured`` (same unit).

    ``(predicted - measured) / |measured| * 100``; for ``measured == 0`` the scorer's
    convention, ``|predicted| * 100`` (0 when ``|predicted| <= 1e-9``).
    """
    if measured == 0:
        return abs(predicted) * 100.0 if abs(predicted) > 1e-9 else 0.0
    return (predicted - measured) / abs(measured) * 100.0


def settings_key(scenario: dict) -> str:
    """What makes two scenarios the same run: every field but ``id``, ``source``, ``notes`` and ``measured...``."""
    settings = {
        k: v
        for k, v in scenario.items()
        if k not in ("id", "source", "notes") and not k.startswith("measured")
    }
    return json.dumps(settings, sort_keys=True, default=str)


def published_ranges(scenarios: list[dict]) -> dict[tuple[str, str], tuple[float, float, int]]:
    """(lowest, highest, scenarios) of each metric published for the same settings, by (scenario id, metric).

    Only metrics whose settings appear in two or more scenarios with different values are
    listed: a measurement published once, or repeated with the same value, has no range.
    """
    groups: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for s in scenarios:
        key = settings_key(s)
        for metric, value in (s.get("measured") or {}).items():
            if _number(value):
                groups.setdefault((key, metric), []).append((s["id"], float(value)))
    ranges = {}
    for (_, metric), published in groups.items():
        values = [v for _, v in published]
        if min(values) != max(values):
            for scenario_id, _ in published:
                ranges[(scenario_id, metric)] = (min(values), max(values), len(values))
    return ranges


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def median(values: list[float]) -> float | None:
    """Median, None for no values."""
    return float(statistics.median(values)) if values else None


def p90(values: list[float]) -> float | None:
    """90th percentile as the scorer takes it (sorted value at rank ``min(n - 1, int(0.9 n))``)."""
    if not values:
        return None
    e = sorted(values)
    return float(e[min(len(e) - 1, int(0.9 * len(e)))])


def check_scenarios(
    scenarios: list[dict],
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[list[MetricCheck], ValidationSummary]:
    """Predict every scenario and compare with its ``measured`` values.

    Parameters
    ----------
    scenarios : list of dict
        Scenarios of a ``qrtune-scenarios/1`` file (:func:`engine.evaluate.read_scenarios`);
        keys starting with ``measured`` are hidden from the engine.
    progress : callable, optional
        ``progress(fraction 0..1, scenario id)`` after each scenario.
    cancelled : callable, optional
        Checked before each scenario; when it returns True the checks so far are returned.

    Returns
    -------
    checks : list[MetricCheck]
        One per numeric measured metric, in file order.
    summary : ValidationSummary

    Notes
    -----
    An engine failure on one scenario (any exception) is recorded in ``summary.errors``
    with the engine's message; it never stops the others.
    """
    from engine.evaluate import evaluate_scenario

    checks: list[MetricCheck] = []
    errors = []
    kinds: list[str] = []
    ranges = published_ranges(scenarios)
    right = named = 0
    for i, s in enumerate(scenarios):
        if cancelled and cancelled():
            break
        kinds.append(s.get("kind", ""))
        settings = {k: v for k, v in s.items() if not k.startswith("measured")}
        try:
            result = evaluate_scenario(settings)
        except Exception as e:  # noqa: BLE001 - an engine bug is reported per scenario, never stops the rest
            result = {
                "id": s["id"],
                "predicted": {},
                "bottleneck": None,
                "error": f"the engine failed: {type(e).__name__}: {e}",
            }
        if result.get("error"):
            errors.append((s["id"], result["error"]))
        predicted = result.get("predicted") or {}
        for metric, measured in (s.get("measured") or {}).items():
            if not _number(measured):
                continue
            p = predicted.get(metric)
            p = float(p) if _number(p) else None
            checks.append(
                MetricCheck(
                    s["id"],
                    s.get("kind", ""),
                    s.get("source", ""),
                    metric,
                    float(measured),
                    p,
                    None if p is None else error_pct(p, measured),
                    is_latency(metric),
                    ranges.get((s["id"], metric)),
                )
            )
        if s.get("measured_bottleneck"):
            named += 1
            right += int(result.get("bottleneck") == s["measured_bottleneck"])
        if progress:
            progress((i + 1) / len(scenarios), s["id"])
    return checks, summarise(checks, len(scenarios), right, named, errors, scenario_kinds=kinds)


def summarise(
    checks: list[MetricCheck],
    n_scenarios: int,
    right: int = 0,
    named: int = 0,
    errors: Iterable = (),
    scenario_kinds: Iterable[str] | None = None,
) -> ValidationSummary:
    """Counts, medians and 90th percentiles of the absolute errors, overall and per kind.

    Parameters
    ----------
    checks : list[MetricCheck]
    n_scenarios : int
        Scenarios checked (including those without any prediction).
    right, named : int
        Bottlenecks named right, and scenarios that publish one.
    errors : iterable of (str, str)
        (scenario id, message) of scenarios not predicted.
    scenario_kinds : iterable of str, optional
        Kind of every scenario checked, for per-kind scenario counts (default: the kinds
        seen in ``checks``, each scenario counted once).
    """
    checks = list(checks)
    rates = [c.abs_error_pct for c in checks if c.abs_error_pct is not None and not c.is_latency]
    lats = [c.abs_error_pct for c in checks if c.abs_error_pct is not None and c.is_latency]
    if scenario_kinds is None:
        scenario_kinds = list({(c.scenario_id, c.kind): c.kind for c in checks}.values())
    n_by_kind: dict[str, int] = {}
    for k in scenario_kinds:
        n_by_kind[k] = n_by_kind.get(k, 0) + 1
    for c in checks:
        n_by_kind.setdefault(c.kind, 0)
    by_kind = []
    for kind, n in n_by_kind.items():
        mine = [c for c in checks if c.kind == kind]
        by_kind.append(
            KindSummary(
                kind,
                n,
                len(mine),
                sum(c.predicted is not None for c in mine),
                median([c.abs_error_pct for c in mine if c.abs_error_pct is not None and not c.is_latency]),
                median([c.abs_error_pct for c in mine if c.abs_error_pct is not None and c.is_latency]),
            )
        )
    return ValidationSummary(
        n_scenarios=n_scenarios,
        n_measured=len(checks),
        n_predicted=sum(c.predicted is not None for c in checks),
        rate_median_abs_pct=median(rates),
        rate_p90_abs_pct=p90(rates),
        latency_median_abs_pct=median(lats),
        bottlenecks_right=right,
        bottlenecks_named=named,
        errors=tuple(errors),
        latency_p90_abs_pct=p90(lats),
        rate_n=len(rates),
        latency_n=len(lats),
        by_kind=tuple(by_kind),
        n_published_apart=sum(c.published_apart for c in checks),
    )


def published_apart_text(n: int) -> str:
    """Why ``n`` measurements cannot all be matched: their settings were published with values far apart."""
    return (
        f"{n} measured values belong to settings published more than once with values {APART_FACTOR:g}x apart "
        "or more (one prediction cannot match them all)"
    )


def describe(summary: ValidationSummary) -> str:
    """One line a user can read, like the scorer's summary line."""

    def f(v):
        return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}%"

    text = (
        f"{summary.n_scenarios} scenarios, {summary.n_predicted} of {summary.n_measured} measured metrics "
        f"predicted ({summary.coverage * 100:.0f}% coverage); rates: median error {f(summary.rate_median_abs_pct)}, "
        f"90th percentile {f(summary.rate_p90_abs_pct)}; latencies: median {f(summary.latency_median_abs_pct)}, "
        f"90th percentile {f(summary.latency_p90_abs_pct)}"
    )
    if summary.bottlenecks_named:
        text += f"; bottleneck named right in {summary.bottlenecks_right} of {summary.bottlenecks_named}"
    if summary.errors:
        text += f"; {len(summary.errors)} scenarios not predicted"
    if summary.n_published_apart:
        text += "; " + published_apart_text(summary.n_published_apart)
    return text
