"""Fit of the MQ transport component models to IBM's MQ component measurements.

``python -m engine.calibrate.mq_components [--components FILE]`` reads the measurements (default:
the committed copy ``assets/validation/mq-components.json`` of ``validation/components/``), fits the
coefficients of :mod:`engine.perf.mqtransport` (:mod:`.parameters` gives their units, bounds and
the documented priors the data cannot pin), and writes ``assets/coefficients/mq_components.json``
with the per-group median and 90th-percentile errors and the records not represented and why.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path

from engine.calibrate.mq_components.fit import PRIOR_WEIGHT, fit, group_errors
from engine.calibrate.mq_components.observations import GROUPS, not_represented, observations
from engine.calibrate.mq_components.parameters import PARAMETERS
from engine.io.atomicfile import atomic_write_text
from engine.io.packagedata import asset_path

DEFAULT_COMPONENTS = asset_path("validation", "mq-components.json")
OUTPUT = asset_path("coefficients", "mq_components.json")


def load_records(path: str | Path = DEFAULT_COMPONENTS) -> list[dict]:
    """The component records of ``path`` (a JSON list)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def build(records: list[dict]) -> dict:
    """The coefficient document for ``records``: fitted values, units, bounds, errors, exclusions."""
    obs = observations(records)
    values = fit(obs)
    digest = hashlib.sha256(json.dumps([r["id"] for r in records]).encode()).hexdigest()[:8]
    used = {o.record_id for o in obs}
    return {
        "format": "qrtune-coefficients/1",
        "engine": "mq-components",
        "version": f"mqc-{datetime.date.today():%Y%m%d}-{digest}",
        "created_by": "python -m engine.calibrate.mq_components (fitted to validation/components/mq-components.json)",
        "parameters": {
            p.name: {
                "value": round(values[p.name], 6),
                "unit": p.unit,
                "bounds": [p.low, p.high],
                "fitted": p.fitted,
                "meaning": p.meaning,
                **({"source": p.source} if p.source else {}),
            }
            for p in PARAMETERS
        },
        "groups": {
            e.group: {
                "what": GROUPS[e.group],
                "values": e.count,
                "median_error": round(e.median, 4),
                "p90_error": round(e.p90, 4),
            }
            for e in group_errors(obs, values)
        },
        "records": {"total": len(records), "represented": len(used)},
        "not_represented": {why: sorted(ids) for why, ids in not_represented(records, used).items()},
    }


def note(doc: dict) -> str:
    """The fit's note (Markdown): per-group errors, priors, records not represented and why."""
    lines = [
        "# MQ component fit",
        "",
        f"Coefficients `{doc['version']}`, written by `python -m engine.calibrate.mq_components` from",
        "`validation/components/mq-components.json`. Error is |predicted / measured - 1| per measured value;",
        f"{doc['records']['represented']} of {doc['records']['total']} records are represented.",
        f"Every fitted coefficient is also pulled towards its starting value (weight {PRIOR_WEIGHT:g} per unit",
        "of relative change, a group's weight being 1), so one that no record pins stays there (e.g. the log",
        "speed of a report's server without persistent tests) instead of wherever the optimiser stopped.",
        "",
        "| mechanism group | what it models | values | median error | p90 error |",
        "|---|---|---:|---:|---:|",
    ]
    for group, e in doc["groups"].items():
        med, p90 = 100 * e["median_error"], 100 * e["p90_error"]
        lines.append(f"| {group} | {e['what']} | {e['values']} | {med:.1f}% | {p90:.1f}% |")
    lines += ["", "## Documented priors (not pinned by the component data)", ""]
    for name, p in doc["parameters"].items():
        if not p["fitted"]:
            lines.append(f"- `{name}` = {p['value']:g} {p['unit']}: {p['source']}")
    lines += ["", "## Records not represented", ""]
    lines += [f"- {why} ({len(ids)}): {', '.join(ids)}" for why, ids in doc["not_represented"].items()]
    return "\n".join(lines) + "\n"


def write(doc: dict, path: str | Path = OUTPUT) -> None:
    """Write ``doc`` to ``path`` and its note beside it (``.md``), atomically."""
    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")
    atomic_write_text(Path(path).with_suffix(".md"), note(doc))
