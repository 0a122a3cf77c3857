"""The validation paragraph of a report: the engine against the published measurements.

Runs :func:`engine.evaluate.evaluate_scenario` over a ``qrtune-scenarios/1`` file
(default: the bundled ``assets/validation/calibration.json``) and compares each
predicted metric with the measured one, as ``../shared/validation/score.py`` and
the workbench's Validation view do: rates and latencies apart, absolute
percentage errors, bottlenecks named right.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.evaluate import evaluate_scenario, read_scenarios
from engine.report.model import KindScore, ValidationScore

#: The published measurements shipped with qrtune.
BUNDLED_SCENARIOS = Path(__file__).resolve().parents[2] / "assets" / "validation" / "calibration.json"


def is_latency(metric: str) -> bool:
    """Latency-like metrics, scored apart from rates (published latencies are noisy)."""
    return metric.endswith(("latency_ms", "response_time_ms")) or metric == "apply_db2_class2_ms"


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def _p90(values: list[float]) -> float | None:
    return float(np.percentile(values, 90)) if values else None


def score_scenarios(path: str | Path | None = None) -> ValidationScore:
    """Score the engine on the scenarios of ``path`` (default :data:`BUNDLED_SCENARIOS`).

    Raises
    ------
    ScenarioError
        The file cannot be read or is not a ``qrtune-scenarios/1`` file.
    """
    path = Path(path) if path is not None else BUNDLED_SCENARIOS
    scenarios = read_scenarios(path)
    rates: dict[str, list[float]] = {}
    lats: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}  # kind -> [scenarios, measured, predicted]
    right = named = 0
    not_predicted = []
    for s in scenarios:
        kind = s.get("kind", "")
        c = counts.setdefault(kind, [0, 0, 0])
        c[0] += 1
        settings = {k: v for k, v in s.items() if not k.startswith("measured")}
        try:
            result = evaluate_scenario(settings)
        except Exception as e:  # noqa: BLE001 - an engine failure is reported per scenario
            result = {"predicted": {}, "bottleneck": None, "error": f"the engine failed: {type(e).__name__}: {e}"}
        if result.get("error"):
            not_predicted.append((s["id"], result["error"]))
        predicted = result.get("predicted", {})
        for metric, measured in (s.get("measured") or {}).items():
            if not isinstance(measured, (int, float)) or isinstance(measured, bool):
                continue
            c[1] += 1
            p = predicted.get(metric)
            if p is None or not math.isfinite(p):
                continue
            c[2] += 1
            if measured:
                err = abs(p - measured) / abs(measured) * 100.0
                (lats if is_latency(metric) else rates).setdefault(kind, []).append(err)
        if s.get("measured_bottleneck"):
            named += 1
            right += int(result.get("bottleneck") == s["measured_bottleneck"])
    all_rates = [e for v in rates.values() for e in v]
    all_lats = [e for v in lats.values() for e in v]
    by_kind = tuple(
        KindScore(kind, c[0], c[1], c[2], _median(rates.get(kind, [])), _median(lats.get(kind, [])))
        for kind, c in counts.items()
    )
    return ValidationScore(
        source=path.name, n_scenarios=len(scenarios), n_measured=sum(c[1] for c in counts.values()),
        n_predicted=sum(c[2] for c in counts.values()), rate_median_abs_pct=_median(all_rates),
        rate_p90_abs_pct=_p90(all_rates), latency_median_abs_pct=_median(all_lats),
        bottlenecks_right=right, bottlenecks_named=named, by_kind=by_kind, not_predicted=tuple(not_predicted),
    )


def describe(score: ValidationScore) -> str:
    """One sentence a reader can quote."""

    def pct(v):
        return "n/a" if v is None else f"{v:.1f}%"

    cover = 100.0 * score.n_predicted / score.n_measured if score.n_measured else 0.0
    text = (f"{score.n_scenarios} published scenarios; {score.n_predicted} of {score.n_measured} measured "
            f"metrics predicted ({cover:.0f}%). Rates: median absolute error {pct(score.rate_median_abs_pct)}, "
            f"90th percentile {pct(score.rate_p90_abs_pct)}. Latencies: median absolute error "
            f"{pct(score.latency_median_abs_pct)}.")
    if score.bottlenecks_named:
        text += f" Bottleneck named right in {score.bottlenecks_right} of {score.bottlenecks_named}."
    return text
