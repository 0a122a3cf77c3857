"""The steady-state solver's hooks for platforms: distributed queue managers and client apply.

:mod:`engine.perf.qrep.pipeline` calls these at five points: :func:`adjust` once the flow's
rate-independent set-up is done, :func:`backlog_us_per_msg` for the reads back of messages
beyond the queues' memory at a depth, :func:`commit_force_us` for the log force of Q Capture's MQ
commit, :func:`add_stages` once the stages' capacities at a throughput are known, and
:func:`inert_settings` to report platform settings that cannot change this flow. With every node
on z/OS and Q Apply in bindings mode they change nothing.
"""

from __future__ import annotations

import math
from dataclasses import replace

from engine.perf.qrep import client_apply, distributed_qm
from engine.perf.qrep.platforms import LOG_PAGE_BYTES, MIN_LOGBUFFERPAGES
from engine.registry import KINDS, scenario_specs
from engine.registry.platform_knobs import ZOS

_SPECS = scenario_specs("qrep")

#: New stages -> bottleneck vocabulary of ../shared/validation/README.md.
STAGE_VOCABULARY = {**distributed_qm.STAGE_VOCABULARY, **client_apply.STAGE_VOCABULARY}

#: Scenario settings of the sender-receiver channel.
_CHANNEL_PATHS = tuple(
    spec.scenario_paths["qrep"] for spec in KINDS["channel"].params if spec.name != "description"
)
_QM_LOG_KNOBS = ("logtype", "logbufferpages", "log_disk_mb_per_s", "log_write_us")
_QM_BUFFER_KNOBS = ("defaultpqbuffersize", "defaultqbuffersize")


def adjust(flow) -> None:
    """Apply the platform mechanisms to a solver flow's rate-independent terms."""
    if flow.platform.all_zos:
        return
    distributed_qm.adjust(flow, flow.platform)
    client_apply.adjust(flow, flow.platform)


def backlog_us_per_msg(flow, depth_msgs: float, out: dict) -> None:
    """Replace, in ``out`` (stage -> us per message), the page-set reads by the queue-file reads of
    distributed queue managers at ``depth_msgs`` (nothing on z/OS)."""
    if not flow.platform.all_zos:
        distributed_qm.backlog_us_per_msg(flow, flow.platform, depth_msgs, out)


def commit_force_us(flow, mpc: float, zos_force_us: float) -> float:
    """Log-force time (us) of Q Capture's MQCMIT of ``mpc`` messages (the z/OS figure on z/OS)."""
    return distributed_qm.capture_commit_force_us(flow, flow.platform, mpc, zos_force_us)


def add_stages(flow, point) -> None:
    """Add (and replace) the platform stages of ``point.caps`` at the evaluated throughput."""
    if flow.platform.all_zos:
        return
    distributed_qm.capacities(flow, flow.platform, point)
    client_apply.capacities(flow, flow.platform, point)


def _servers(p, colocated: bool) -> dict:
    """Core clocks and z/OS CPU ratings that do not apply to where the nodes run."""
    out = {}
    for path, os_name, who in (
        ("hardware.source_core_ghz", p.source_os, "the source Db2"),
        ("hardware.capture_core_ghz", p.capture_os, "Q Capture"),
        ("hardware.apply_core_ghz", p.apply_os, "Q Apply"),
    ):
        if os_name == ZOS:
            out[path] = f"{who} runs on z/OS, whose CPs hardware.cpu_model or hardware.mips_per_cp rate"
    if colocated and p.capture_os != ZOS:
        out["hardware.capture_core_ghz"] = "Q Capture runs on the source's server (its cores and clock)"
    if ZOS not in (p.source_os, p.capture_os, p.apply_os, p.send_qm.os, p.recv_qm.os):
        why = "no node runs on z/OS: cores and hardware.*_core_ghz set every server's speed"
        out["hardware.cpu_model"] = why
        out["hardware.mips_per_cp"] = why
    return out


def _queue_manager(group: str, qm, persistent: bool, used: bool) -> dict:
    """Distributed-queue-manager knobs of one queue manager that cannot act, with the reason."""
    if not used:
        why = (
            "the flow has no queue manager on this side (a drain, or a client Q Apply reading the send queue)"
        )
    elif qm.os == ZOS:
        why = "the queue manager runs on z/OS (buffer pools, page sets and the z/OS log)"
    else:
        why = ""
    names = _QM_LOG_KNOBS + _QM_BUFFER_KNOBS if why else ()
    out = {f"{group}.{name}": why for name in names}
    if not why:
        unused = distributed_qm.queue_buffer_knob(not persistent)
        kind = "non-persistent" if not persistent else "persistent"
        out[f"{group}.{unused}"] = f"the queue holds {kind} messages (the other queue buffer applies)"
        if not persistent and group == "recv_qm":
            for name in _QM_LOG_KNOBS:
                out[f"{group}.{name}"] = "non-persistent messages are not logged"
    return out


def _receive_log_inert(flow, rows_per_s: float) -> dict:
    """The receiving queue manager's log buffer and log type, when its log disk cannot limit the flow.

    Its log writes are off the channel's path (shared writes), so they act only through the
    ``apply_mq_log_disk`` stage: when that stage carries more than the flow even with the smallest
    log buffer and linear logging, neither knob changes a result. LogBufferPages alone cannot act
    when the committers' shared writes fit even the smallest buffer.
    """
    recv, k = flow.platform.inputs.recv_qm, flow.platform.k
    log_bytes_per_msg = flow.demands.apply_log_bytes_per_msg
    if flow.platform.inputs.no_channel or not (
        recv.distributed and flow.inp.persistent and log_bytes_per_msg > 0.0
    ):
        return {}
    smallest = MIN_LOGBUFFERPAGES * LOG_PAGE_BYTES
    write = distributed_qm.apply_write_bytes(flow)
    out = {}
    if write <= smallest:
        out["recv_qm.logbufferpages"] = (
            f"the receiving queue manager's log writes ({write:,.0f} bytes, its committers' records together) fit "
            f"even the smallest log buffer (LogBufferPages {MIN_LOGBUFFERPAGES})"
        )
    worst = replace(recv, logbufferpages=MIN_LOGBUFFERPAGES, logtype="LINEAR")
    worst_rows_per_s = (
        distributed_qm.apply_log_bytes_per_s(flow, worst, k) * flow.geometry.rows_per_msg / log_bytes_per_msg
    )
    if worst_rows_per_s * flow.c.max_drive_utilisation <= rows_per_s:
        return out
    why = (
        f"the receiving queue manager's log disk carries {worst_rows_per_s:,.0f} rows/s even with LogBufferPages "
        f"{MIN_LOGBUFFERPAGES} and linear logging, more than this flow's {rows_per_s:,.0f} rows/s"
    )
    return {"recv_qm.logbufferpages": why, "recv_qm.logtype": why}


def _send_log_inert(flow, rows_per_s: float) -> dict:
    """The sending queue manager's log buffer, when one commit's log records fit in it.

    Q Capture's MQCMIT forces its log records in ``ceil(bytes / buffer)`` writes
    (:func:`engine.perf.qrep.distributed_qm.force_us`): one write at this LogBufferPages and at
    any larger one; only a buffer smaller than the commit would take more writes.
    """
    send = flow.platform.inputs.send_qm
    if flow.drain or not (send.distributed and flow.inp.persistent):
        return {}
    commit_bytes = (
        flow.msgs_per_commit(rows_per_s) * flow.demands.capture_log_bytes_per_msg
        + flow.c.restart_bytes_per_commit
    )
    buffer = distributed_qm.buffer_bytes(send, flow.platform.k)
    if commit_bytes > buffer:
        return {}
    pages_needed = math.ceil(commit_bytes / LOG_PAGE_BYTES)
    return {
        "send_qm.logbufferpages": f"one MQ commit logs {commit_bytes:,.0f} bytes, one log write with this "
        f"buffer ({buffer / LOG_PAGE_BYTES:,.0f} pages) or a larger one; below {pages_needed:,} pages it "
        "would take more writes"
    }


def _queue_buffer_inert(flow, rows_per_s: float) -> dict:
    """A distributed queue's buffer size, when the modelled depth at ``rows_per_s`` fits even the smallest."""
    p, g = flow.platform.inputs, flow.geometry
    knob = distributed_qm.queue_buffer_knob(flow.inp.persistent)
    depth_msgs = flow.depth_msgs_at(rows_per_s)
    out = {}
    for group, qm, used in (("send_qm", p.send_qm, not flow.drain), ("recv_qm", p.recv_qm, not p.no_channel)):
        smallest = _SPECS[f"{group}.{knob}"].minimum
        if used and qm.distributed and depth_msgs * g.msg_bytes <= smallest:
            out[f"{group}.{knob}"] = (
                f"the modelled queue depth at this load ({depth_msgs:,.0f} messages, "
                f"{depth_msgs * g.msg_bytes / 1024:,.0f} KB) fits even the smallest queue buffer "
                f"({smallest / 1024:,.0f} KB): no queue-file reads"
            )
    return out


def inert_settings(flow, rows_per_s: float) -> dict:
    """Platform settings path -> why it cannot change this flow's results at ``rows_per_s``."""
    p, inp = flow.platform.inputs, flow.inp
    out = _servers(p, inp.capture_colocated_with_source)
    persistent = inp.persistent
    out.update(_queue_manager("send_qm", p.send_qm, persistent, not flow.drain))
    out.update(_queue_manager("recv_qm", p.recv_qm, persistent, not p.no_channel))
    if p.no_channel:
        out.update(
            dict.fromkeys(
                _CHANNEL_PATHS, "Q Apply reads the send queue (qapply.reads_send_queue): no channel"
            )
        )
        out["qcapture.num_parallel_sendqs"] = (
            "Q Apply reads the send queue (qapply.reads_send_queue): no channel to spread over send queues"
        )
    if not p.client:
        why = "Q Apply connects in bindings mode (qapply.mq_connection)"
        out["hardware.client_rtt_us"] = why
        out["qapply.sharecnv"] = why
        out["qapply.reads_send_queue"] = why
    out.update(_receive_log_inert(flow, rows_per_s))
    out.update(_send_log_inert(flow, rows_per_s))
    out.update(_queue_buffer_inert(flow, rows_per_s))
    if p.recv_qm.distributed and p.send_qm.distributed:
        why = "both queue managers run on Linux/UNIX/Windows: queue buffers and files, not buffer pools"
        out["mq.buffpool_pages"] = out["mq.read_ahead"] = out["mq.dwp_start_pct"] = why
        why = "both queue managers run on Linux/UNIX/Windows: no z/OS security checks or LOGLOAD checkpoints"
        out["mq.security"] = out["mq.logload"] = why
    return out
