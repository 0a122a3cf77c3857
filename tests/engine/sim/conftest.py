"""Shared fixtures: a pipeline configuration built from a hand-made steady-state prediction.

The prediction below is not a published measurement: it is a made-up set of stage
capacities (rows/s unless stated) shaped like the steady-state engine's output, so the
simulation's mechanisms can be checked on their own.
"""

import pytest

from engine.perf.result import Prediction, StageResult
from engine.sim.config import build_config

SETTINGS = {
    "kind": "qrep",
    "topology": "unidirectional",
    "table": {"row_bytes": 500, "columns": {"INTEGER": 10, "CHAR(20)": 10}},
    "workload": {"rows_per_txn": 5, "offered_rows_per_s": None},
    "qcapture": {
        "memory_limit_mb": 500,
        "commit_interval_ms": 500,
        "sleep_interval_ms": 50,
        "trans_batch_sz": 3,
        "monitor_interval_ms": 10000,
        "max_message_size_kb": 10240,
    },
    "mq": {"buffpool_pages": 240000, "maxmsgl": 20971520, "batchsz": 200},
    "qapply": {"num_apply_agents": 6, "memory_limit_mb": 200, "monitor_interval_ms": 10000},
    "hardware": {"network_latency_ms": 2.0},
}


def fake_prediction(channel_msgs_per_s=3000.0, apply_rows_per_s=32000.0, pageset_rows_per_s=15000.0):
    stages = [
        StageResult("source_workload", 60000.0, 0.5),
        StageResult("qcapture", 45000.0, 0.6),
        StageResult("mq_log", 60000.0, 0.5),
        StageResult("mq_channel", channel_msgs_per_s, 0.9, "msgs/s"),
        StageResult("qapply_agents", apply_rows_per_s, 0.9),
        StageResult("target_db2", apply_rows_per_s * 1.25, 0.7),
    ]
    if pageset_rows_per_s:
        stages.insert(4, StageResult("mq_pageset", pageset_rows_per_s, 0.1))
    return Prediction(
        "qrep",
        {"msg_size_kb": 5.0, "apply_rows_per_s": apply_rows_per_s},
        stages=tuple(stages),
        bottleneck="qapply_agents",
        coefficients_version="test",
    )


@pytest.fixture
def settings():
    import copy

    return copy.deepcopy(SETTINGS)


@pytest.fixture
def cfg(settings):
    return build_config(settings, fake_prediction(), delays={})


@pytest.fixture
def fake_engine(monkeypatch):
    """``engine.predict.predict_settings`` answering every scenario with :func:`fake_prediction`.

    ``engine.evaluate`` binds the name at import: it is patched there too, so a first import
    of it during a test cannot keep the stand-in for the tests that run after.
    """
    import engine.evaluate
    import engine.predict

    for module in (engine.predict, engine.evaluate):
        monkeypatch.setattr(module, "predict_settings", lambda settings: fake_prediction())


@pytest.fixture
def make_prediction():
    """:func:`fake_prediction` as a fixture (test modules should not import conftest)."""
    return fake_prediction
