"""How the Q Replication metrics are grouped for reading: ``qrtune predict`` and the PDF report use these sections."""

from __future__ import annotations

#: Sections of a Q Replication breakdown: (heading, [(metric, label)]).
QREP_SECTIONS = (
    (
        "Throughput",
        (
            ("capture_rows_per_s", "Q Capture"),
            ("apply_rows_per_s", "Q Apply"),
            ("tps", "source transactions"),
            ("channel_msgs_per_s", "channel messages"),
            ("channel_mb_per_s", "channel bytes"),
            ("apply_mb_per_s", "Q Apply message bytes"),
            ("msg_size_kb", "message size"),
            ("rows_per_msg", "rows per message"),
            ("msgs_per_mq_commit", "messages per MQ commit"),
            ("backlog_growth_rows_per_s", "backlog growth (overload)"),
            ("elapsed_s", "drain time"),
        ),
    ),
    (
        "Latency",
        (
            ("capture_latency_ms", "CAPTURE_LATENCY"),
            ("qlatency_ms", "QLATENCY"),
            ("apply_latency_ms", "APPLY_LATENCY"),
            ("end2end_latency_ms", "END2END_LATENCY"),
            ("source_response_time_ms", "source transaction response"),
        ),
    ),
    (
        "CPU",
        (
            ("capture_cpu_us_per_row", "Q Capture per row"),
            ("apply_cpu_us_per_row", "Q Apply per row"),
            ("total_cpu_us_per_row", "replication total per row"),
            ("source_lpar_busy_pct", "source LPAR busy"),
            ("capture_lpar_busy_pct", "Q Capture LPAR busy"),
            ("apply_lpar_busy_pct", "Q Apply LPAR busy"),
            ("zos_qmgr_cpu_us_per_msg", "z/OS queue manager per message"),
            ("zos_chinit_cpu_us_per_msg", "z/OS channel initiator per message"),
            ("zos_mq_cpu_us_per_msg", "z/OS MQ per message"),
        ),
    ),
    (
        "Db2 and MQ",
        (
            ("apply_db2_class2_ms", "Db2 class 2 elapsed per target txn"),
            ("capture_mqput_us", "MQPUT elapsed"),
            ("capture_mqcommit_us", "MQCMIT elapsed"),
            ("apply_mqget_us", "MQGET elapsed"),
            ("capture_mq_log_mb_per_s", "capture-side MQ log"),
            ("apply_mq_log_mb_per_s", "apply-side MQ log"),
            ("queue_depth_msgs", "modelled queue depth"),
        ),
    ),
)
