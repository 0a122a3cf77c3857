"""``qrtune evaluate``: predictions for a file of published-measurement scenarios.

Reads the ``qrtune-scenarios/1`` format of ../shared/validation/README.md and
returns ``{"results": [{"id", "predicted", "bottleneck", "ignored"}]}``. A
scenario whose kind has no engine gets an ``error`` and no numbers: qrtune
never prints invented values.
"""

from __future__ import annotations

import math
from pathlib import Path

from engine.errors import QrtuneError, ScenarioError, UnsupportedKindError, one_line
from engine.io import jsonfile
from engine.predict import predict_settings

SCENARIO_FORMAT = "qrtune-scenarios/1"


def read_scenarios(path: str | Path) -> list[dict]:
    """Read and check a scenario file.

    Raises
    ------
    ScenarioError
        Unreadable, binary or too large file, malformed JSON (see :func:`engine.io.jsonfile.read_json`),
        wrong ``format`` or scenarios without id and kind.
    """
    path = Path(path)
    doc = jsonfile.read_json(path, ScenarioError)
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


def _failed(scenario: dict, error: str) -> dict:
    """The result record of a scenario that could not be predicted: no numbers, the error in one line."""
    return {
        "id": scenario["id"],
        "predicted": {},
        "bottleneck": None,
        "ignored": [],
        "error": one_line(error),
    }


def published_bottleneck(prediction) -> str | None:
    """The bottleneck in the published vocabulary (../shared/validation/README.md).

    Engines name the busiest stage (``capture_cpu``, ``apply_mq_log``...); the published
    measurements name its resource (``cpu``, ``mq_log``).
    """
    if prediction.kind == "qrep" and prediction.bottleneck is not None:
        from engine.perf.qrep import VOCABULARY
        from engine.perf.qrep.queue_maps import base_name

        resource = base_name(prediction.bottleneck)  # one queue map's browser is a browser
        return VOCABULARY.get(resource, resource)
    return prediction.bottleneck


def evaluate_scenario(scenario: dict) -> dict:
    """One result record for one scenario; engine errors and invalid settings become an ``error`` field."""
    try:
        p = predict_settings(scenario)
    except (UnsupportedKindError, QrtuneError) as e:
        return _failed(scenario, str(e))
    except (ValueError, TypeError, KeyError, AttributeError, ArithmeticError) as e:
        # a setting of the wrong type or shape that the engine's own checks missed: this scenario
        # gets the error, the others in the file are still predicted
        return _failed(scenario, f"invalid settings: {type(e).__name__}: {e}")
    predicted = {k: v for k, v in p.metrics.items() if isinstance(v, (int, float)) and math.isfinite(v)}
    out = {
        "id": scenario["id"],
        "predicted": predicted,
        "bottleneck": published_bottleneck(p),
        "ignored": list(p.ignored),
    }
    if p.bands:
        out["bands"] = {k: list(v) for k, v in p.bands.items()}
    return out


def evaluate_file(path: str | Path) -> dict:
    """Evaluate every scenario in ``path``; see :func:`read_scenarios` for errors."""
    return {"results": [evaluate_scenario(s) for s in read_scenarios(path)]}
