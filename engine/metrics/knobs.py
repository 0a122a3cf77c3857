"""Knob labels as IBM documents the parameters, without units glued on.

The registry keeps each knob under a lower-case key that may carry its unit
(``commit_interval_ms``); a user searching IBM's documentation must find the
label, so a knob that is an IBM parameter shows IBM's exact name
(``COMMIT_INTERVAL``) with its unit in its own column, and a knob that is not
(the LPAR's processors, the offered rate) shows a plain description.
"""

from __future__ import annotations

#: Registry key -> IBM's parameter name, for knobs whose key adds a unit suffix to it.
IBM_NAMES = {
    "memory_limit_mb": "MEMORY_LIMIT",
    "commit_interval_ms": "COMMIT_INTERVAL",
    "sleep_interval_ms": "SLEEP_INTERVAL",
    "monitor_interval_ms": "MONITOR_INTERVAL",
    "buffpool_pages": "BUFFPOOL",
    "max_message_size_kb": "MAX_MESSAGE_SIZE",
    "qfull_retry_delay_ms": "QFULL_RETRY_DELAY",
    "extended_region_mb": "EXTENDED REGION SIZE (MAX)",
    "scmmaxsize_gb": "SCMMAXSIZE",
    # DEFINE CFSTRUCT's offload rules (MQSC keywords OFFLD1TH..OFFLD3TH)
    "offld1thr": "OFFLD1TH",
    "offld2thr": "OFFLD2TH",
    "offld3thr": "OFFLD3TH",
    # the queue manager's qm.ini stanzas (Log, TuningParameters) on Linux, UNIX and Windows
    "logtype": "LogType",
    "logbufferpages": "LogBufferPages",
    "defaultqbuffersize": "DefaultQBufferSize",
    "defaultpqbuffersize": "DefaultPQBufferSize",
}

#: Registry keys that are IBM's parameter names as they stand (shown upper case).
IBM_AS_IS = frozenset(
    {
        "trans_batch_sz",
        "num_apply_agents",
        "batchsz",
        "maxmsgl",
        "compmsg",
        "sharecnv",
        "msg_persistence",
        "changed_cols_only",
        "conflict_action",
        "maxagents_correlid",
        "pageclas",
        "logload",
        "maxshortmsgs",
        "commit_count",
        "num_parallel_sendqs",
        "qfull_num_retries",
        "offload",
        "offld1sz",
        "offld2sz",
        "offld3sz",
    }
)

#: Registry key -> a plain description, where the words of the key do not read well.
PLAIN = {
    "read_pct": "Read share",
    "write_pct": "Write share",
    "dependent_txn_pct": "Dependent transactions",
    "link_gbps": "Link speed",
    "row_bytes": "Mirrored row size",
    "network_mbps": "Network bandwidth",
    "catalog_gb": "Catalog size",
    "mips_per_cp": "MIPS per processor",
    "msgs_per_put_commit": "Messages per put commit",
    "initial_depth_msgs": "Initial queue depth",
    "qrep_version": "Q Replication version",
    "dwp_start_pct": "Deferred write start (buffer pool % full)",
    "dwp_target_pct": "Deferred write target band (low, high)",
    "read_ahead": "Read-ahead",
    "distance_km": "Distance between sites",
    "core_ghz": "Core speed",
    "client_rtt_us": "Client round trip",
    "log_write_us": "Log write time",
    "log_disk_mb_per_s": "Log disk bandwidth",
    "cf_structure_size_mb": "CF structure size",
    "chinit_trace": "CHINIT trace",
    "global_trace": "GLOBAL trace",
    "compare_sql_replication": "Compare with SQL Replication",
}

#: Words written as IBM writes them in descriptive labels.
_WORDS = {
    "cpu": "CPU",
    "lpar": "LPAR",
    "cps": "processors",
    "cf": "CF",
    "os": "OS",
    "mq": "MQ",
    "db2": "Db2",
    "ssl": "SSL",
    "api": "API",
    "edm": "EDM",
    "rid": "RID",
    "rds": "RDS",
    "dsc": "DSC",
    "dwp": "DWP",
    "v7": "V7",
    "v8": "V8",
    "txn": "transaction",
    "pct": "",
    "ms": "",
    "mb": "",
    "kb": "",
    "gb": "",
    "km": "",
    "gbps": "",
    "mbps": "",
    "s": "",
    "op": "operation",
}


def knob_label(name: str) -> str:
    """The label a user reads for the knob stored as ``name``.

    Parameters
    ----------
    name : str
        The registry key (:attr:`engine.registry.ParamSpec.name`), e.g. ``commit_interval_ms``.

    Returns
    -------
    str
        IBM's parameter name (``COMMIT_INTERVAL``, ``TRANS_BATCH_SZ``) or a plain description
        without the unit (``Apply LPAR processors``, ``Offered rows per second``).
    """
    if name in IBM_NAMES:
        return IBM_NAMES[name]
    if name in IBM_AS_IS:
        return name.upper()
    if name in PLAIN:
        return PLAIN[name]
    words = [_WORDS.get(w, w) for w in name.replace("_per_s", "_per_second").split("_")]
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:]
