"""Pinned predictions for the baseline sample project (redpaper-baseline.json).

These numbers change when the model or ``assets/coefficients/qrep.json`` is recalibrated:
rerun ``python tests/engine/qrep/test_regression.py`` and paste its output into PINNED.
"""

from pathlib import Path

import pytest

from engine import projectfile
from engine.predict import predict_project

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_runs" / "redpaper-baseline.json"

PINNED = {
    "apply_rows_per_s": 43370.25161882024,
    "msg_size_kb": 5.865331562999999,
    "channel_msgs_per_s": 2891.3501079213497,
    "end2end_latency_ms": 766.9226764631562,
    "capture_latency_ms": 580.4129099657985,
    "qlatency_ms": 39.43952167857023,
    "apply_latency_ms": 147.07024481878753,
    "capture_cpu_us_per_row": 14.640411827460868,
    "apply_cpu_us_per_row": 44.42756636483412,
    "apply_lpar_busy_pct": 82.96916317447139,
    "capture_lpar_busy_pct": 29.446838017300937,
    "apply_db2_class2_ms": 1.8430393317854061,
    "msgs_per_mq_commit": 43.430309666666666,
}
PINNED_BOTTLENECK = "qapply_agents"


def current():
    p = predict_project(projectfile.load(SAMPLE))
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
    print(f"PINNED_BOTTLENECK = {p.bottleneck!r}")
