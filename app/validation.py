"""The engine against published measurements, per scenario and metric (no Qt here).

Runs :func:`engine.evaluate.evaluate_scenario` over a ``qrtune-scenarios/1``
file (by default the bundled ``assets/validation/calibration.json``) and compares
each predicted metric with the measured one. Rates and latencies are scored
separately (published latencies are noisy); a scenario the engine cannot
predict yet is listed with the engine's message and no numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BUNDLED_SCENARIOS = Path(__file__).resolve().parents[1] / "assets" / "validation" / "calibration.json"


@dataclass(frozen=True)
class MetricCheck:
    """One measured metric of one scenario and what the engine predicts for it."""

    scenario_id: str
    kind: str
    source: str
    metric: str
    measured: float
    predicted: float | None
    error_pct: float | None  # (predicted - measured) / measured * 100
    is_latency: bool


@dataclass(frozen=True)
class ValidationSummary:
    """Counts and error percentiles over a set of checks."""

    n_scenarios: int
    n_measured: int
    n_predicted: int
    rate_median_abs_pct: float | None
    rate_p90_abs_pct: float | None
    latency_median_abs_pct: float | None
    bottlenecks_right: int
    bottlenecks_named: int
    errors: tuple  # (scenario id, message)

    @property
    def coverage(self) -> float:
        return self.n_predicted / self.n_measured if self.n_measured else 0.0


def is_latency(metric: str) -> bool:
    """Latency-like metrics (scored apart from rates)."""
    return metric.endswith(("latency_ms", "response_time_ms")) or metric in ("apply_db2_class2_ms",)


def check_scenarios(
    scenarios: list[dict],
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[list[MetricCheck], ValidationSummary]:
    """Predict every scenario and compare with its ``measured`` values."""
    from engine.evaluate import evaluate_scenario

    checks: list[MetricCheck] = []
    errors = []
    right = named = 0
    for i, s in enumerate(scenarios):
        if cancelled and cancelled():
            break
        settings = {k: v for k, v in s.items() if not k.startswith("measured")}
        try:
            result = evaluate_scenario(settings)
        except Exception as e:  # noqa: BLE001 - an engine bug is reported per scenario, never stops the view
            result = {"id": s["id"], "predicted": {}, "bottleneck": None,
                      "error": f"the engine failed: {type(e).__name__}: {e}"}
        if result.get("error"):
            errors.append((s["id"], result["error"]))
        predicted = result.get("predicted", {})
        for metric, measured in (s.get("measured") or {}).items():
            if not isinstance(measured, (int, float)) or isinstance(measured, bool):
                continue
            p = predicted.get(metric)
            err = (p - measured) / measured * 100.0 if p is not None and measured else None
            checks.append(MetricCheck(s["id"], s.get("kind", ""), s.get("source", ""), metric, float(measured),
                                      None if p is None else float(p), err, is_latency(metric)))
        if s.get("measured_bottleneck"):
            named += 1
            right += int(result.get("bottleneck") == s["measured_bottleneck"])
        if progress:
            progress((i + 1) / len(scenarios), s["id"])
    return checks, summarise(checks, len(scenarios), right, named, errors)


def summarise(checks: list[MetricCheck], n_scenarios: int, right: int = 0, named: int = 0,
              errors=()) -> ValidationSummary:
    """Median and 90th percentile absolute percentage errors of rates, median of latencies."""
    rates = [abs(c.error_pct) for c in checks if c.error_pct is not None and not c.is_latency]
    lats = [abs(c.error_pct) for c in checks if c.error_pct is not None and c.is_latency]

    def pct(values, q):
        return float(np.percentile(values, q)) if values else None

    return ValidationSummary(
        n_scenarios, len(checks), sum(c.predicted is not None for c in checks),
        pct(rates, 50), pct(rates, 90), pct(lats, 50), right, named, tuple(errors),
    )


def describe(summary: ValidationSummary) -> str:
    """One line a user can read, like the scorer's summary line."""

    def f(v):
        return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}%"

    text = (f"{summary.n_scenarios} scenarios, {summary.n_predicted} of {summary.n_measured} measured metrics "
            f"predicted ({summary.coverage * 100:.0f}% coverage); rates: median error {f(summary.rate_median_abs_pct)}, "
            f"90th percentile {f(summary.rate_p90_abs_pct)}; latencies: median {f(summary.latency_median_abs_pct)}")
    if summary.bottlenecks_named:
        text += f"; bottleneck named right in {summary.bottlenecks_right} of {summary.bottlenecks_named}"
    if summary.errors:
        text += f"; {len(summary.errors)} scenarios not predicted"
    return text
