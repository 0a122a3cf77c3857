"""The validation paragraph of a report: the engine against the published measurements.

The figures come from :mod:`engine.validation_summary` (the same ones the workbench's
Validation view and ``../shared/validation/score.py`` show); this module turns them into
the report's :class:`~engine.report.model.ValidationScore` and its sentence.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from engine.report.model import ValidationScore
from engine.validation_summary import BUNDLED_SCENARIOS, check_scenarios, published_apart_text

__all__ = ["BUNDLED_SCENARIOS", "describe", "score_scenarios"]


def score_scenarios(path: str | Path | None = None) -> ValidationScore:
    """Score the engine on the scenarios of ``path`` (default :data:`BUNDLED_SCENARIOS`).

    Raises
    ------
    ScenarioError
        The file cannot be read or is not a ``qrtune-scenarios/1`` file.
    """
    from engine.evaluate import read_scenarios

    path = Path(path) if path is not None else BUNDLED_SCENARIOS
    _, summary = check_scenarios(read_scenarios(path))
    return ValidationScore(**{f.name: getattr(summary, f.name) for f in fields(summary)}, source=path.name)


def describe(score: ValidationScore) -> str:
    """One sentence a reader can quote."""

    def pct(v):
        return "n/a" if v is None else f"{v:.1f}%"

    cover = 100.0 * score.n_predicted / score.n_measured if score.n_measured else 0.0
    text = (
        f"{score.n_scenarios} published scenarios; {score.n_predicted} of {score.n_measured} measured "
        f"metrics predicted ({cover:.0f}%). Rates: median absolute error {pct(score.rate_median_abs_pct)}, "
        f"90th percentile {pct(score.rate_p90_abs_pct)}. Latencies: median absolute error "
        f"{pct(score.latency_median_abs_pct)}, 90th percentile {pct(score.latency_p90_abs_pct)}."
    )
    if score.bottlenecks_named:
        text += f" Bottleneck named right in {score.bottlenecks_right} of {score.bottlenecks_named}."
    if score.n_published_apart:
        apart = published_apart_text(score.n_published_apart)
        text += f" {apart[0].upper()}{apart[1:]}."
    return text
