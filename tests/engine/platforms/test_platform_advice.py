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


def _browser_reads_ms(prediction) -> float:
    return next(st.backlog_read_ms for st in prediction.stages if st.name == "qapply_browser")


def _browser_bound(project):
    """``project`` with a fast Linux log disk and 16 apply agents: Q Apply's browser limits the flow."""
    qm = flows(project, limit=1)[0][RECEIVE_QM].id
    for name, value in (("log_disk_mb_per_s", 2000.0), ("log_write_us", 50.0)):
        project = project.with_param(qm, name, value)
    return project.with_param(project.nodes_of("qapply")[0].id, "num_apply_agents", 16)


def test_a_linux_receive_queue_deeper_than_its_buffer_is_advised_a_buffer_that_holds_it():
    project = _browser_bound(_load("zos-to-linux-bindings"))
    advice = advise(project)
    depth_kb = (
        advice.prediction.metrics["queue_depth_msgs"] * advice.prediction.metrics["msg_size_kb"]
    )  # 1000 bytes
    recv = flows(project, limit=1)[0][RECEIVE_QM]
    assert advice.prediction.bottleneck == "qapply_browser"
    assert recv.params["defaultpqbuffersize"] < depth_kb * 1000  # 128 KiB against about 500 KB
    assert _browser_reads_ms(advice.prediction) > 0.0
    rec = _recommended(advice, "queue_buffer")
    assert rec is not None and "DefaultPQBufferSize" in rec.title
    (change,) = rec.changes  # only the Linux queue manager: the z/OS one has buffer pools
    assert change.node_id == recv.id and change.param == "defaultpqbuffersize"
    assert change.after >= 2 * depth_kb * 1000 and change.after & (change.after - 1) == 0  # a power of two
    assert _browser_reads_ms(rec.prediction) == 0.0
    assert rec.after["apply_rows_per_s"] > 1.01 * rec.before["apply_rows_per_s"]


def test_the_queue_buffer_advice_follows_the_message_persistence():
    project = _browser_bound(_load("zos-to-linux-bindings"))
    capture = project.nodes_of("qcapture")[0].id
    project = project.with_param(capture, "msg_persistence", False)
    rec = _recommended(advise(project), "queue_buffer")
    assert rec is not None and "DefaultQBufferSize" in rec.title
    assert {c.param for c in rec.changes} == {"defaultqbuffersize"}


def test_no_queue_buffer_advice_when_the_buffer_holds_the_modelled_depth():
    project = _load("zos-to-linux-bindings")
    recv = flows(project, limit=1)[0][RECEIVE_QM].id
    project = project.with_param(recv, "defaultpqbuffersize", 4 * 1024 * 1024)
    advice = advise(project)
    assert _browser_reads_ms(advice.prediction) == 0.0
    assert _recommended(advice, "queue_buffer") is None
