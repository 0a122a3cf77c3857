"""The advisor answers journey 11's questions: bindings instead of a slow client, a bigger log buffer."""

from __future__ import annotations

from pathlib import Path

from engine import projectfile
from engine.advise import advise
from engine.topology import RECEIVE_QM, flows

ROOT = Path(__file__).resolve().parents[3]


def _load(name: str):
    return projectfile.load(ROOT / "sample_runs" / f"{name}.json")


def _recommended(advice, rule_id: str):
    return next((r for r in advice.recommendations if r.rule == rule_id), None)


def test_a_client_limited_by_round_trips_is_advised_to_connect_in_bindings_mode():
    advice = advise(_load("zos-to-linux-client"))
    assert advice.prediction.bottleneck == "mq_client"
    rec = _recommended(advice, "bindings_apply")
    assert rec is not None
    assert rec.after["apply_rows_per_s"] > rec.before["apply_rows_per_s"]


def test_a_log_bound_linux_queue_manager_is_advised_the_largest_log_buffer():
    project = _load("zos-to-linux-bindings")
    source = project.nodes_of("source_db2")[0].id
    project = project.with_param(source, "row_bytes", 2000)
    qm = flows(project, limit=1)[0][RECEIVE_QM].id
    for name, value in (("log_disk_mb_per_s", 20.0), ("log_write_us", 5000.0), ("logbufferpages", 18)):
        project = project.with_param(qm, name, value)
    advice = advise(project)
    assert advice.prediction.bottleneck == "apply_mq_log_disk"
    assert _recommended(advice, "logbufferpages") is not None


def test_no_buffer_pool_advice_for_a_distributed_transmit_queue():
    advice = advise(_load("aix-unidirectional"))
    assert _recommended(advice, "buffpool_outage") is None
