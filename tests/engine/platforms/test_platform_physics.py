"""Physics a user can check on Linux/UNIX/Windows nodes, distributed queue managers and client apply.

Issue 14: for small persistent messages client apply is slower than bindings and the gap grows
with the round-trip time; a larger LogBufferPages or a faster log disk lifts a log-bound Linux
queue manager; non-persistent messages remove the log stage. Plus the platform mechanisms
themselves (core speed, db2ReadLog without the merged-log delay) and the errors for bad values.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import ValueRangeError
from engine.perf.mqtransport import coefficients, qm_cpu
from engine.perf.qrep import predict
from engine.perf.qrep.coefficients import load
from engine.perf.qrep.distributed_qm import reference_us_per_core_us, with_distributed_mq_calls
from engine.perf.qrep.inputs import read_inputs
from engine.perf.qrep.pipeline import _Flow
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]


def _scenario(name: str) -> dict:
    return project_to_scenario(projectfile.load(ROOT / "sample_runs" / f"{name}.json"))


def _small_messages(settings: dict) -> dict:
    """One 20-byte insert per transaction and per message: small persistent messages."""
    s = copy.deepcopy(settings)
    s["table"]["columns"] = {"INTEGER": 5}
    s["table"]["row_bytes"] = 20
    s["workload"].update(rows_per_txn=1, inserts_per_txn=1, updates_per_txn=0, deletes_per_txn=0)
    s["qcapture"]["trans_batch_sz"] = 1
    return s


def _client(rtt_us: float, rows_per_s: float | None = None) -> dict:
    s = _small_messages(_scenario("zos-to-linux-client"))
    s["hardware"]["client_rtt_us"] = rtt_us
    s["workload"]["offered_rows_per_s"] = rows_per_s
    return s


def _bindings(rows_per_s: float | None = None) -> dict:
    s = _small_messages(_scenario("zos-to-linux-bindings"))
    s["workload"]["offered_rows_per_s"] = rows_per_s
    return s


def _rate(settings: dict) -> float:
    return predict(settings).metrics["apply_rows_per_s"]


def test_client_apply_is_slower_than_bindings_and_the_gap_grows_with_the_round_trip():
    bindings = _rate(_bindings())
    gaps = [1.0 - _rate(_client(rtt)) / bindings for rtt in (200.0, 1000.0, 10_000.0)]
    assert 0.0 < gaps[0] < gaps[1] < gaps[2], gaps


def test_client_apply_latency_grows_with_the_round_trip_at_a_light_load():
    bindings = predict(_bindings(500.0)).metrics["apply_latency_ms"]
    client = [predict(_client(rtt, 500.0)).metrics["apply_latency_ms"] for rtt in (100.0, 1000.0)]
    assert bindings < client[0] < client[1]


def test_a_client_round_trip_in_ms_equals_the_same_in_us():
    in_us = _client(2000.0)
    in_ms = copy.deepcopy(in_us)
    del in_ms["hardware"]["client_rtt_us"]
    in_ms["hardware"]["client_rtt_ms"] = 2.0
    assert predict(in_ms).metrics == predict(in_us).metrics


def test_a_client_bound_by_its_round_trips_names_the_client_stage():
    p = predict(_client(1000.0))
    assert p.bottleneck == "mq_client"
    assert max(p.stages, key=lambda s: s.utilisation).name == "mq_client"


def _log_bound(**recv_qm) -> dict:
    """2,000-byte rows through a Linux queue manager with a slow log disk and a small log buffer."""
    s = copy.deepcopy(_scenario("zos-to-linux-bindings"))
    s["table"]["row_bytes"] = 2000
    s["recv_qm"].update(log_disk_mb_per_s=20.0, log_write_us=5000.0, logbufferpages=18)
    s["recv_qm"].update(recv_qm)
    return s


def test_a_log_bound_linux_queue_manager_is_lifted_by_a_larger_log_buffer_or_a_faster_disk():
    base = predict(_log_bound())
    assert base.bottleneck == "apply_mq_log_disk"
    rate = base.metrics["apply_rows_per_s"]
    assert _rate(_log_bound(logbufferpages=4096)) > 1.5 * rate
    assert _rate(_log_bound(log_disk_mb_per_s=400.0, log_write_us=100.0)) > 1.5 * rate


def test_linear_logging_writes_more_than_circular_on_a_log_bound_queue_manager():
    assert _rate(_log_bound(logtype="LINEAR")) < _rate(_log_bound(logtype="CIRCULAR"))


def test_non_persistent_messages_remove_the_log_stage():
    persistent = _scenario("aix-unidirectional")
    names = {s.name for s in predict(persistent).stages}
    assert {"mq_log_disk", "apply_mq_log_disk"} <= names
    fast = copy.deepcopy(persistent)
    fast["qcapture"]["msg_persistence"] = False
    names = {s.name for s in predict(fast).stages}
    assert not names & {"mq_log_disk", "apply_mq_log_disk", "mq_log", "apply_mq_log"}


def test_a_queue_deeper_than_its_queue_buffer_costs_queue_file_reads():
    small = _scenario("zos-to-linux-bindings")
    large = copy.deepcopy(small)
    large["recv_qm"]["defaultpqbuffersize"] = 100 * 1024 * 1024
    browser = {
        name: next(s for s in predict(x).stages if s.name == "qapply_browser")
        for name, x in (("small", small), ("large", large))
    }
    assert browser["large"].capacity > browser["small"].capacity


def _at_rate(settings: dict, rows_per_s: float) -> dict:
    s = copy.deepcopy(settings)
    s["workload"]["offered_rows_per_s"] = rows_per_s
    s["workload"].pop("jobs", None)
    return s


def _browser(settings: dict, rows_per_s: float):
    return next(st for st in predict(_at_rate(settings, rows_per_s)).stages if st.name == "qapply_browser")


def test_the_queue_depth_that_spills_to_the_queue_file_follows_the_load():
    # the modelled depth is a commit's messages on each queue, and Q Capture commits fewer
    # messages at a time at a lighter load (a COMMIT_INTERVAL's worth until the transaction
    # limit fills first): at 10 rows/s they fit the 128 KB queue buffer, near the maximum most
    # of them are read back from the queue file
    s = _scenario("zos-to-linux-bindings")
    light, moderate, heavy = (_browser(s, rate) for rate in (10.0, 500.0, 25_000.0))
    assert light.backlog_read_ms == 0.0
    assert 0.0 < moderate.backlog_read_ms < heavy.backlog_read_ms
    assert moderate.capacity > heavy.capacity  # both with full TRANS_BATCH_SZ messages


@pytest.mark.parametrize("rows_per_s", [10.0, 5_000.0, 25_000.0])
def test_the_reported_queue_depth_is_two_commits_and_decides_the_queue_file_reads(rows_per_s):
    """queue_depth_msgs is the depth the engine charges reads for: a buffer just above it reads nothing back."""
    s = _at_rate(_scenario("zos-to-linux-bindings"), rows_per_s)
    m = predict(s).metrics
    assert m["queue_depth_msgs"] == pytest.approx(2.0 * m["msgs_per_mq_commit"], rel=1e-12)
    depth_bytes = m["queue_depth_msgs"] * m["msg_size_kb"] * 1000  # message sizes in KB of 1000 bytes
    held = copy.deepcopy(s)
    held["recv_qm"]["defaultpqbuffersize"] = max(32_768, int(depth_bytes * 1.01) + 1)
    assert _browser(held, rows_per_s).backlog_read_ms == 0.0
    short = copy.deepcopy(s)
    short["recv_qm"]["defaultpqbuffersize"] = int(depth_bytes * 0.99)
    if short["recv_qm"]["defaultpqbuffersize"] >= 32_768:  # the smallest buffer MQ allows
        assert _browser(short, rows_per_s).backlog_read_ms > 0.0


@pytest.mark.parametrize("rows_per_s, reported", [(10.0, True), (25_000.0, False)])
def test_the_queue_buffer_is_reported_without_effect_exactly_when_the_depth_fits_the_smallest(
    rows_per_s, reported
):
    path = "recv_qm.defaultpqbuffersize"
    s = _at_rate(_scenario("zos-to-linux-bindings"), rows_per_s)
    smallest = copy.deepcopy(s)
    smallest["recv_qm"]["defaultpqbuffersize"] = 32_768
    base, small = predict(s), predict(smallest)
    assert (path in base.ignored_reasons) == reported
    same = all(small.metrics[k] == pytest.approx(v, rel=1e-12) for k, v in base.metrics.items())
    assert same == reported


def test_faster_cores_lift_a_cpu_bound_linux_apply():
    s = _scenario("zos-to-linux-bindings")
    s["hardware"]["apply_lpar_cps"] = 1
    s["recv_qm"]["defaultpqbuffersize"] = 100 * 1024 * 1024
    slow = predict(s)
    assert next(st for st in slow.stages if st.name == "qapply_cpu").utilisation > 0.85  # CPU-limited
    s["hardware"]["apply_core_ghz"] = 5.0
    assert _rate(s) > 1.5 * slow.metrics["apply_rows_per_s"]


def test_db2_on_linux_reads_its_own_log_without_the_merged_log_delay():
    """Q Capture on its own server: z/OS reads the member's log through the data-sharing merged
    log (a delay), Db2 for Linux/UNIX/Windows with db2ReadLog (none)."""
    zos = _scenario("dw2005-zos-unidirectional")
    zos["hardware"]["capture_colocated_with_source"] = False
    aix = _scenario("aix-unidirectional")
    aix["hardware"]["capture_colocated_with_source"] = False
    assert predict(aix).metrics["capture_latency_ms"] < predict(zos).metrics["capture_latency_ms"] - 100.0


def test_every_node_on_z_os_by_default_gives_the_same_prediction_as_before():
    s = _scenario("redpaper-baseline")
    bare = copy.deepcopy(s)
    for group in ("platform", "send_qm", "recv_qm"):
        bare.pop(group)
    for path in ("source_core_ghz", "capture_core_ghz", "apply_core_ghz", "client_rtt_us"):
        bare["hardware"].pop(path)
    for path in ("mq_connection", "sharecnv"):
        bare["qapply"].pop(path)
    assert predict(bare).metrics == predict(s).metrics


@pytest.mark.parametrize(
    "path, value, match",
    [
        ("platform.qapply", "AIX", r"platform\.target_db2: .z/OS. .*'AIX', the platform of Q Apply"),
        ("platform.qcapture", "Linux x86-64", r"platform\.qcapture: .Linux x86-64. .*source Db2"),
        ("recv_qm.logbufferpages", 5, r"recv_qm\.logbufferpages: 5 .*18 to 4096"),
        ("platform.recv_qm", "Solaris", r"platform\.recv_qm: .Solaris. .*one of 'z/OS'"),
        ("hardware.apply_core_ghz", 0.1, r"hardware\.apply_core_ghz: 0\.1 "),
        ("qapply.mq_connection", "shared", r"qapply\.mq_connection"),
    ],
)
def test_bad_platform_values_are_refused_naming_the_field_and_what_is_allowed(path, value, match):
    s = _scenario("redpaper-baseline")
    group, key = path.split(".")
    s[group][key] = value
    with pytest.raises(ValueRangeError, match=match):
        predict(s)


def test_both_round_trip_spellings_at_once_are_refused():
    s = _client(500.0)
    s["hardware"]["client_rtt_ms"] = 0.5
    with pytest.raises(ValueRangeError, match=r"hardware\.client_rtt_ms"):
        predict(s)


def _log_capacity_rows_per_s(settings: dict) -> float:
    p = predict(settings)
    return next(st.capacity for st in p.stages if st.name == "apply_mq_log_disk")


def test_more_apply_agents_share_the_linux_log_writes_so_the_log_carries_more():
    few, many = copy.deepcopy(_log_bound(logbufferpages=4096)), copy.deepcopy(_log_bound(logbufferpages=4096))
    few["qapply"]["num_apply_agents"] = 1
    many["qapply"]["num_apply_agents"] = 16
    assert _log_capacity_rows_per_s(many) > 1.5 * _log_capacity_rows_per_s(few)


def test_non_persistent_messages_lift_a_linux_log_bound_flow():
    persistent = _log_bound()
    non_persistent = copy.deepcopy(persistent)
    non_persistent["qcapture"]["msg_persistence"] = False
    p = predict(non_persistent)
    assert not {st.name for st in p.stages} & {"apply_mq_log_disk", "mq_log_disk"}
    assert p.metrics["apply_rows_per_s"] > 1.5 * _rate(persistent)


def test_linux_queue_manager_calls_cost_the_fitted_distributed_cpu():
    flow = _Flow(*_inputs_and_coefficients(_scenario("zos-to-linux-bindings")))
    msg_bytes, k = flow.geometry.msg_bytes, coefficients()
    assert flow.demands.get_cpu_us == pytest.approx(
        reference_us_per_core_us() * qm_cpu.call_us(msg_bytes, True, k)
    )
    assert flow.demands.browse_get_cpu_us == pytest.approx(
        reference_us_per_core_us() * qm_cpu.call_us(msg_bytes, False, k)
    )
    zos = _Flow(*_inputs_and_coefficients(_scenario("redpaper-baseline")))
    assert with_distributed_mq_calls(zos.demands, zos.inp, zos.geometry.msg_bytes) is zos.demands


def _inputs_and_coefficients(settings: dict):
    return read_inputs(settings)[0], load()
