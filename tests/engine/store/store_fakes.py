"""Fake predictors for store and sweep tests: deterministic functions of the settings.

Importable by worker processes (spawn/forkserver copy the parent's sys.path).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.perf.result import Prediction, StageResult

#: The repository root (tests run commands from there).
ROOT = Path(__file__).resolve().parents[3]

#: The fake predictor as ``module:function`` (``--predictor`` / ``run_sweep(predictor=...)``).
FAKE = "store_fakes:predict"


def predict(settings: dict) -> Prediction:
    """A toy pipeline: capture capacity grows with TRANS_BATCH_SZ, apply capacity with agents."""
    agents = settings["qapply"]["num_apply_agents"]
    batch = settings["qcapture"]["trans_batch_sz"]
    capture = 4000.0 * batch / (1.0 + 0.2 * batch)
    apply_ = 900.0 * agents
    rate = min(capture, apply_)
    stages = (
        StageResult("qcapture", capture, rate / capture, "rows/s", 2.0),
        StageResult("qapply_agents", apply_, rate / apply_, "rows/s", 1000.0 * agents / apply_),
    )
    bottleneck = "qcapture" if capture < apply_ else "qapply_agents"
    return Prediction(
        "qrep",
        {"apply_rows_per_s": rate, "apply_latency_ms": 5.0 + 100.0 / agents, "msg_size_kb": 1.5 * batch},
        {"apply_rows_per_s": "rows/s", "apply_latency_ms": "ms", "msg_size_kb": "KB"},
        stages,
        bottleneck,
        (),
        "fake-1",
    )


def predict_slow(settings: dict) -> Prediction:
    """:func:`predict` taking ``QRTUNE_FAKE_DELAY_S`` seconds (for kill-mid-sweep tests)."""
    time.sleep(float(os.environ.get("QRTUNE_FAKE_DELAY_S", "0.05")))
    return predict(settings)


def predict_reject_16(settings: dict) -> Prediction:
    """:func:`predict`, but 16 agents is rejected with a user error (a failed point)."""
    from engine.errors import FieldError

    if settings["qapply"]["num_apply_agents"] == 16:
        raise FieldError("qapply.num_apply_agents", 16, "at most 15 in this fake engine")
    return predict(settings)


def predict_unsupported(settings: dict) -> Prediction:
    """An engine that does not exist for this kind."""
    from engine.errors import UnsupportedKindError

    raise UnsupportedKindError(f"qrtune cannot yet predict scenarios of kind {settings.get('kind')!r}")


def predict_real_slow(settings: dict) -> Prediction:
    """The real engine (engine.predict.predict_settings), ``QRTUNE_FAKE_DELAY_S`` seconds slower per point.

    The numbers are the engine's own; the delay only makes an interrupt land mid-sweep.
    """
    from engine.predict import predict_settings

    time.sleep(float(os.environ.get("QRTUNE_FAKE_DELAY_S", "0.05")))
    return predict_settings(settings)
