"""The engines: one predictor per scenario kind, found by :func:`predictor`.

Each engine module exposes ``predict(settings: dict) -> Prediction`` where
``settings`` is a scenario of ../shared/validation's format (see
:mod:`engine.scenario`). Modules are imported lazily so the CLI and GUI start fast.
:func:`engine.predict.predict_settings` adds the prediction bands.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from engine.errors import UnsupportedKindError
from engine.perf.result import Prediction, StageResult

#: Scenario kind -> module implementing ``predict``.
ENGINE_MODULES = {
    "qrep": "engine.perf.qrep",
    "db2mirror": "engine.perf.mirror",
    "mq-mover": "engine.perf.mqmover",
    "db2-v8-storage": "engine.perf.db2v8",
}


def predictor(kind: str) -> Callable[[dict], Prediction]:
    """Return the ``predict`` function for scenario ``kind``.

    Raises
    ------
    UnsupportedKindError
        No engine exists (yet) for that kind.
    """
    module_name = ENGINE_MODULES.get(kind)
    if module_name is None:
        raise UnsupportedKindError(
            f"unknown scenario kind {kind!r}; expected one of {', '.join(ENGINE_MODULES)}"
        )
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name != module_name:
            raise
        raise UnsupportedKindError(f"qrtune cannot yet predict scenarios of kind {kind!r}") from None
    return module.predict


__all__ = ["Prediction", "StageResult", "predictor", "ENGINE_MODULES"]
