"""Side-by-side comparison of stored runs, shaped for the compare view (no Qt here).

Uses :func:`engine.compare.compare_runs` when the engine provides it; otherwise
the same comparison is made here from the stored runs: the settings that differ
between the runs, and every metric with its absolute and percent delta against
the first run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MetricRowCmp:
    """One metric across the compared runs."""

    metric: str
    unit: str
    values: tuple  # float or None per run
    delta: tuple  # absolute delta vs the first run (None where unknown)
    delta_pct: tuple  # percent delta vs the first run (None where the reference is 0 or unknown)


@dataclass(frozen=True)
class Comparison:
    """Runs side by side: labels, differing settings, metrics; ``runs`` keeps the RunData."""

    run_ids: tuple
    labels: tuple
    settings: tuple  # (path, values per run)
    metrics: tuple  # MetricRowCmp
    runs: tuple = field(default=(), repr=False)


def _leaves(obj: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(obj, dict) and obj and not prefix.endswith("columns"):
        for k, v in obj.items():
            out.update(_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = obj
    return out


def run_label(run) -> str:
    """Short label of a RunRecord for legends and column headers."""
    text = f"#{run.id} {run.kind}"
    if run.label:
        text += f" {run.label}"
    return text


def compare_data(runs: list) -> Comparison:
    """Compare RunData objects (the first is the reference).

    Raises
    ------
    ValueError
        Fewer than two runs.
    """
    if len(runs) < 2:
        raise ValueError(f"compare needs at least two runs; got {len(runs)}")
    leaves = []
    for r in runs:
        try:
            leaves.append(_leaves(json.loads(r.run.settings_json)))
        except (TypeError, ValueError):
            leaves.append({})
    paths = sorted(set().union(*leaves) - {"id"})
    settings = []
    for p in paths:
        values = tuple(leaf.get(p) for leaf in leaves)
        if any(json.dumps(v, sort_keys=True, default=str) != json.dumps(values[0], sort_keys=True, default=str)
               for v in values[1:]):
            settings.append((p, values))
    names: list[str] = []
    units: dict[str, str] = {}
    per_run: list[dict[str, float]] = []
    for r in runs:
        d = {}
        for m in r.metrics:
            if m.metric not in units:
                names.append(m.metric)
                units[m.metric] = m.unit
            d[m.metric] = m.value
        per_run.append(d)
    metrics = []
    for name in names:
        values = tuple(_num(d.get(name)) for d in per_run)
        ref = values[0]
        delta = tuple(None if v is None or ref is None else v - ref for v in values)
        pct = tuple(None if v is None or ref in (None, 0) else (v - ref) / abs(ref) * 100.0 for v in values)
        metrics.append(MetricRowCmp(name, units[name], values, delta, pct))
    return Comparison(tuple(r.run.id for r in runs), tuple(run_label(r.run) for r in runs), tuple(settings),
                      tuple(metrics), tuple(runs))


def _num(v) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def compare(store, run_ids: list[int]) -> Comparison:
    """Load ``run_ids`` from an open store and compare them."""
    return compare_data([store.load_run(i) for i in run_ids])
