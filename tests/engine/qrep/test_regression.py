"""Pinned predictions for the baseline sample project (redpaper-baseline.json).

These numbers change when the model or ``assets/coefficients/qrep.json`` is recalibrated:
rerun ``PYTHONPATH=. .venv/bin/python tests/engine/qrep/test_regression.py`` and paste its output into PINNED.
"""

import pytest
from qrep_test_helpers import BASELINE_PROJECT

from engine import projectfile
from engine.predict import predict_project

PINNED = {
    "apply_rows_per_s": 43284.83179507714,
    "msg_size_kb": 5.817940737999999,
    "channel_msgs_per_s": 2885.6554530051426,
    "end2end_latency_ms": 767.9584314573251,
    "capture_latency_ms": 578.6738848168683,
    "qlatency_ms": 42.56974337011518,
    "apply_latency_ms": 146.71480327034172,
    "capture_cpu_us_per_row": 14.680483629136491,
    "apply_cpu_us_per_row": 44.28056886257989,
    "apply_lpar_busy_pct": 82.24767760552307,
    "capture_lpar_busy_pct": 29.156510344723657,
    "apply_db2_class2_ms": 1.8523575927055802,
    "msgs_per_mq_commit": 43.234115333333335,
}
PINNED_BOTTLENECK = "qapply_agents"


def current():
    p = predict_project(projectfile.load(BASELINE_PROJECT))
    keys = (
        "apply_rows_per_s",
        "msg_size_kb",
        "channel_msgs_per_s",
        "end2end_latency_ms",
        "capture_latency_ms",
        "qlatency_ms",
        "apply_latency_ms",
        "capture_cpu_us_per_row",
        "apply_cpu_us_per_row",
        "apply_lpar_busy_pct",
        "capture_lpar_busy_pct",
        "apply_db2_class2_ms",
        "msgs_per_mq_commit",
    )
    return p, {k: p.metrics[k] for k in keys}


def test_baseline_sample_matches_pinned_values():
    p, values = current()
    assert p.bottleneck == PINNED_BOTTLENECK
    for k, v in PINNED.items():
        assert values[k] == pytest.approx(v, rel=1e-6), k


def test_baseline_sample_is_in_the_published_range():
    # Redpaper Table 2-4 measured ~43K rows/s, 5.8 KB messages, 83% apply LPAR busy
    _, v = current()
    assert 38_000 < v["apply_rows_per_s"] < 48_000
    assert 5.0 < v["msg_size_kb"] < 6.6
    assert 70 < v["apply_lpar_busy_pct"] < 92


if __name__ == "__main__":
    p, values = current()
    print("PINNED = {")
    for k, v in values.items():
        print(f'    "{k}": {v!r},')
    print("}")
    print(f'PINNED_BOTTLENECK = "{p.bottleneck}"')
