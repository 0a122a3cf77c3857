"""``qrtune evaluate``: predictions for a file of published-measurement scenarios.

Reads the ``qrtune-scenarios/1`` format of ../shared/validation/README.md and
returns ``{"results": [{"id", "predicted", "bottleneck", "ignored"}]}``. A
scenario whose kind has no engine gets an ``error`` and no numbers: qrtune
never prints invented values.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from engine.errors import QrtuneError, ScenarioError, UnsupportedKindError
from engine.predict import predict_settings

SCENARIO_FORMAT = "qrtune-scenarios/1"


def read_scenarios(path: str | Path) -> list[dict]:
    """Read and check a scenario file.

    Raises
    ------
    ScenarioError
        Unreadable file, malformed JSON, wrong ``format`` or scenarios without id and kind.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from e
    except json.JSONDecodeError as e:
        raise ScenarioError(f"{path}: not valid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e
    if not isinstance(doc, dict) or doc.get("format") != SCENARIO_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ScenarioError(f"{path}: format: {found!r} is not allowed; expected {SCENARIO_FORMAT!r}")
    scenarios = doc.get("scenarios")
    if not isinstance(scenarios, list):
        raise ScenarioError(f"{path}: scenarios: expected a list of scenarios")
    for i, s in enumerate(scenarios):
        if not isinstance(s, dict) or not isinstance(s.get("id"), str) or not isinstance(s.get("kind"), str):
            raise ScenarioError(f"{path}: scenarios[{i}]: expected an object with text fields id and kind")
    return scenarios


def evaluate_scenario(scenario: dict) -> dict:
    """One result record for one scenario; engine errors become an ``error`` field."""
    try:
        p = predict_settings(scenario)
    except (UnsupportedKindError, QrtuneError) as e:
        return {"id": scenario["id"], "predicted": {}, "bottleneck": None, "ignored": [], "error": str(e)}
    predicted = {k: v for k, v in p.metrics.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    out = {"id": scenario["id"], "predicted": predicted, "bottleneck": p.bottleneck, "ignored": list(p.ignored)}
    if p.bands:
        out["bands"] = {k: list(v) for k, v in p.bands.items()}
    return out


def evaluate_file(path: str | Path) -> dict:
    """Evaluate every scenario in ``path``; see :func:`read_scenarios` for errors."""
    return {"results": [evaluate_scenario(s) for s in read_scenarios(path)]}
