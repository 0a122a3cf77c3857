"""Settings a flow reads but that cannot change its results at this configuration, with the reason.

A knob can be physically inert: CONFLICT_ACTION acts only on a conflict, the buffer pool only
when the queue outgrows it, COMMIT_INTERVAL only when the transaction limit does not fill first.
:func:`inert_settings` names each such setting with its reason, so a prediction reports it in
``ignored`` instead of silently returning the same numbers (the knob walk test checks that every
knob either changes an output or is reported here).
"""

from __future__ import annotations

import math

from engine.perf.qrep import latency, platform_flow
from engine.registry import scenario_specs

_SPECS = scenario_specs("qrep")


def _suppression(inp) -> dict:
    """Column suppression (CHANGED_COLS_ONLY, CONFLICT_ACTION, columns changed per update)."""
    out = {}
    suppress = inp.changed_cols_only and inp.conflict_action != "F"
    if inp.update_frac + inp.delete_frac <= 0.0:
        reason = "an insert-only workload sends every column and no before values"
        out.update(
            {
                "qcapture.changed_cols_only": reason,
                "qapply.conflict_action": reason,
                "workload.columns_changed_per_update": reason,
                "table.index_column_type": reason,
            }
        )
        return out
    if not suppress:
        out["workload.columns_changed_per_update"] = (
            "every column of an update is sent (no column suppression)"
        )
    if inp.conflict_action == "F":
        out["qcapture.changed_cols_only"] = (
            "with CONFLICT_ACTION F Q Capture sends every column; suppression needs "
            "CHANGED_COLS_ONLY Y and a conflict action other than F"
        )
    if not inp.changed_cols_only:
        out["qapply.conflict_action"] = (
            "the workload has no conflicts (CONFLICT_ACTION acts only on one) and "
            "CHANGED_COLS_ONLY N sends every column whatever the action"
        )
    return out


def _mix(inp) -> dict:
    """A mix with one operation type: only the proportions of the three counts are used."""
    counts = {
        "workload.inserts_per_txn": inp.insert_frac,
        "workload.updates_per_txn": inp.update_frac,
        "workload.deletes_per_txn": inp.delete_frac,
    }
    only = [path for path, share in counts.items() if share >= 1.0]
    return {
        path: "only the proportions of inserts, updates and deletes are used (workload.rows_per_txn gives the "
        "rows); a single operation type is 100% at any count"
        for path in only
    }


def _layout(inp) -> dict:
    out: dict[str, str] = {}
    if inp.mode == "drain":
        return out
    if inp.capture_colocated_with_source:
        out["hardware.capture_lpar_cps"] = (
            "Q Capture runs on the source LPAR (hardware.capture_colocated_with_source)"
        )
    if inp.topology != "unidirectional" and not inp.capture_colocated_with_source:
        out["hardware.apply_colocated_with_target"] = (
            "Q Capture runs on its own LPAR, so Q Apply shares the capture LPAR's role layout either way"
        )
    if (
        inp.topology != "unidirectional"
        and inp.capture_colocated_with_source
        and inp.apply_colocated_with_target
    ):
        out["hardware.apply_lpar_cps"] = (
            "Q Apply runs on the source LPAR (hardware.apply_colocated_with_target)"
        )
    if inp.mips_per_cp is not None:
        out["hardware.cpu_model"] = (
            "hardware.mips_per_cp sets the processor speed; the model only picks the disk "
            "generation of page-set reads, which a steady flow does not make"
        )
    if inp.jobs is None:
        out["qapply.maxagents_correlid"] = (
            "correlation ids are known only for a closed workload (workload.jobs)"
        )
    elif inp.jobs >= inp.num_apply_agents:
        out["qapply.maxagents_correlid"] = (
            f"{inp.jobs:,} jobs (correlation ids) can keep all {inp.num_apply_agents:,} agents busy "
            "with even one agent each"
        )
    elif inp.maxagents_correlid == 0 or inp.maxagents_correlid * inp.jobs >= inp.num_apply_agents:
        binding = math.ceil(inp.num_apply_agents / inp.jobs) - 1
        out["qapply.maxagents_correlid"] = (
            f"at this value it does not limit the agents: {inp.jobs:,} jobs (correlation ids) keep all "
            f"{inp.num_apply_agents:,} busy; it would at "
            + ("1 agent" if binding == 1 else f"1 to {binding:,} agents")
            + " per correlation id"
        )
    return out


def _mq(flow, rows_per_s: float) -> dict:
    g = flow.geometry
    out = {}
    out["mq.maxmsgl"] = (
        f"every message ({g.msg_bytes:,.0f} bytes) fits; MQ refuses only a message larger than MAXMSGL"
    )
    if g.msg_bytes >= 4096:
        out["mq.maxshortmsgs"] = f"messages of {g.msg_bytes:,.0f} bytes fill at least one 4 KB page each"
    if not flow.drain:
        pool_low = _SPECS["mq.buffpool_pages"].minimum
        depth_msgs = flow.depth_msgs_at(rows_per_s)
        reason = (
            f"the modelled queue depth at this load ({depth_msgs:,.0f} messages, "
            f"{depth_msgs * g.pages_per_msg:,.0f} pages) fits even the smallest buffer pool "
            f"({pool_low:,.0f} pages): no page-set reads"
        )
        depth_pages = depth_msgs * g.pages_per_msg
        if depth_pages < flow.inp.dwp_start_pct / 100.0 * pool_low:
            out["mq.buffpool_pages"] = reason
            out["mq.read_ahead"] = reason
        dwp_low = _SPECS["mq.dwp_start_pct"].minimum
        if depth_pages < dwp_low / 100.0 * flow.inp.buffpool_pages:
            out["mq.dwp_start_pct"] = (
                f"the modelled queue depth at this load ({depth_pages:,.0f} pages) stays below even the "
                f"lowest deferred-write start ({dwp_low:g}% of {flow.inp.buffpool_pages:,.0f} pages): "
                "nothing is written out and read back"
            )
    if not flow.drain:
        ci_low = _SPECS["qcapture.commit_interval_ms"].minimum
        fill_ms = latency.maxtrans_fill_ms(flow, rows_per_s)
        if fill_ms <= ci_low:
            out["qcapture.commit_interval_ms"] = (
                f"Q Capture reaches its transaction limit every {fill_ms:,.0f} ms and commits then, "
                f"before any COMMIT_INTERVAL (at least {ci_low:,.0f} ms) elapses at this load"
            )
    return out


def inert_settings(flow, rows_per_s: float) -> dict:
    """Settings path -> why it cannot change this flow's results (see the module docstring)."""
    inp = flow.inp
    out = {}
    out.update(_suppression(inp))
    out.update(_mix(inp))
    out.update(_layout(inp))
    out.update(_mq(flow, rows_per_s))
    if latency.log_merge_delay_ms(flow) <= 0.0:
        out["hardware.other_member_log_interval_ms"] = (
            "Q Capture reads one member's log alone (no data-sharing merged read): on the source "
            "LPAR with one member, or a platform without data sharing"
        )
    out.update(platform_flow.inert_settings(flow, rows_per_s))
    if flow.drain:
        return {
            k: v for k, v in out.items() if k.startswith(("table.", "workload.", "qapply.", "hardware.apply"))
        }
    return out
