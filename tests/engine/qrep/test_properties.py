"""Property tests: random valid configurations give finite, non-negative, stable predictions."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ValueRangeError
from engine.perf.qrep import predict

TYPES = [
    "INTEGER",
    "SMALLINT",
    "BIGINT",
    "DECIMAL(20,0)",
    "DECIMAL(7,2)",
    "CHAR(4)",
    "CHAR(20)",
    "CHAR(67)",
    "VARCHAR(200)",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "FLOAT",
    "unspecified",
]


@st.composite
def configs(draw):
    columns = draw(st.dictionaries(st.sampled_from(TYPES), st.integers(1, 60), min_size=1, max_size=5))
    rows = draw(st.integers(1, 500))
    ins, upd, dele = draw(st.integers(0, 5)), draw(st.integers(0, 5)), draw(st.integers(0, 5))
    mode = draw(st.sampled_from(["steady", "steady", "drain"]))
    drive = draw(st.sampled_from(["max", "offered", "closed"]))
    s = {
        "id": "random",
        "kind": "qrep",
        "topology": draw(st.sampled_from(["unidirectional", "bidirectional", "peer-to-peer"])),
        "hardware": {
            "cpu_model": draw(st.sampled_from(["z900-2064-216", "z196-2817-778", "zEC12-2827", "z13-2964"])),
            "source_lpar_cps": draw(st.integers(1, 32)),
            "capture_lpar_cps": draw(st.integers(1, 32)),
            "apply_lpar_cps": draw(st.integers(1, 32)),
            "capture_colocated_with_source": draw(st.booleans()),
            "apply_colocated_with_target": draw(st.booleans()),
            "network_latency_ms": draw(st.floats(0, 100, allow_subnormal=False)),
            "network_mbps": draw(st.one_of(st.none(), st.floats(1, 100_000, allow_subnormal=False))),
        },
        "table": {
            "columns": columns,
            "unique_indexes": draw(st.integers(0, 10)),
            "index_column_type": draw(st.sampled_from(["INTEGER", "CHAR", "DECIMAL", "DATE"])),
        },
        "workload": {
            "rows_per_txn": rows,
            "inserts_per_txn": ins,
            "updates_per_txn": upd,
            "deletes_per_txn": dele,
            "columns_changed_per_update": draw(st.integers(0, 5)),
            "dependent_txn_pct": draw(st.floats(0, 100, allow_subnormal=False)),
            "offered_rows_per_s": draw(st.floats(1, 200_000, allow_subnormal=False))
            if drive == "offered"
            else None,
            "jobs": draw(st.integers(1, 64)) if drive == "closed" else None,
            "think_time_ms": draw(st.floats(0, 100, allow_subnormal=False)) if drive == "closed" else None,
        },
        "qcapture": {
            "memory_limit_mb": draw(st.integers(1, 2000)),
            "commit_interval_ms": draw(st.integers(100, 5000)),
            "sleep_interval_ms": draw(st.integers(1, 5000)),
            "trans_batch_sz": draw(st.integers(1, 50)),
            "msg_persistence": draw(st.booleans()),
            "max_message_size_kb": draw(st.integers(1, 20000)),
            "changed_cols_only": draw(st.booleans()),
        },
        "qapply": {
            "num_apply_agents": draw(st.integers(1, 64)),
            "memory_limit_mb": draw(st.integers(1, 2000)),
            "conflict_action": draw(st.sampled_from(["I", "F", "D", "Q"])),
            "commit_count": draw(st.integers(1, 20)),
            "maxagents_correlid": draw(st.integers(0, 8)),
        },
        "mq": {
            "batchsz": draw(st.integers(1, 9999)),
            "maxmsgl": draw(st.integers(1024, 104_857_600)),
            "maxshortmsgs": draw(st.sampled_from([-1, 0])),
            "security": draw(st.booleans()),
            "read_ahead": draw(st.booleans()),
            "logload": draw(st.integers(200, 16_000_000)),
            "buffpool_pages": draw(st.integers(1000, 10_000_000)),
            "global_trace": draw(st.booleans()),
            "chinit_trace": draw(st.booleans()),
            "shared_queue": draw(st.booleans()),
            "compmsg": draw(st.sampled_from(["NONE", "ZLIBFAST", "ZLIBHIGH"])),
            "ssl": draw(st.booleans()),
            "compressibility": draw(st.floats(0, 0.95, allow_subnormal=False)),
        },
        "target_db2": {"locking": draw(st.sampled_from(["row", "page"]))},
        "run": {"mode": mode},
    }
    if "unspecified" in columns:
        s["table"]["row_bytes"] = draw(st.integers(10, 5000))
    if mode == "drain":
        s["run"]["initial_receive_queue_depth"] = draw(st.integers(1, 10_000_000))
    return s


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_configurations_are_finite_non_negative_and_stable(s):
    try:
        p = predict(s)
    except ValueRangeError as refused:  # MQ fails the put of a message larger than MAXMSGL
        assert refused.path == "mq.maxmsgl" and "messages Q Capture puts" in str(refused)
        return
    assert p.metrics["apply_rows_per_s"] > 0
    for name, v in p.metrics.items():
        assert math.isfinite(v) and v >= 0, (name, v)
    for stage in p.stages:
        assert math.isfinite(stage.capacity) and stage.capacity > 0
        assert 0 <= stage.utilisation <= 1
    if "end2end_latency_ms" in p.metrics:
        m = p.metrics
        assert (
            abs(m["end2end_latency_ms"] - m["capture_latency_ms"] - m["qlatency_ms"] - m["apply_latency_ms"])
            <= 1e-9 * m["end2end_latency_ms"]
        )
    again = predict(s)
    assert again.metrics == p.metrics and again.bottleneck == p.bottleneck
