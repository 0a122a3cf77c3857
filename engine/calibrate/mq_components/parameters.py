"""The MQ component coefficients: name, start value, bounds, unit, meaning, and whether the data pins it.

A parameter with ``fitted=False`` is a documented prior the component measurements cannot pin; its
``source`` says where it comes from. Fitted ones are adjusted within their bounds by
:mod:`engine.calibrate.mq_components.fit`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.perf.mqtransport.zos import TLS_CIPHERS


@dataclass(frozen=True)
class Parameter:
    """One coefficient of the MQ component models."""

    name: str
    value: float
    low: float
    high: float
    unit: str
    meaning: str
    fitted: bool = True
    source: str = ""


#: Log devices of the mqio report (log_filesystem) and of the V9.3 report's persistent tables.
LOG_DEVICES = (
    "Local HDD",
    "SAN",
    "NFS-1G",
    "NFS-1GR",
    "NFS-10G",
    "NFS-10GR",
    "V93-NVMe",
    "V93-SAN",
    "V93-NFS",
)

#: Servers of the reports, by (report, CPU) -> key of their speed factor; the reference is V9.3's.
SERVERS = {
    (
        "MQ_V9.2_Performance_Report_xLinux.pdf",
        "2 x 12-core Intel Xeon E5-2690 v3 @ 2.60GHz",
    ): "xeon_e5_2690v3_v92",
    (
        "MQ_V9.1_Performance_Report_xLinux.pdf",
        "2 x 12-core Intel Xeon E5-2690 v3 @ 2.60GHz",
    ): "xeon_e5_2690v3_v91",
    (
        "MQ_for_Windows_V910_Performance.pdf",
        "2 x 14-core Intel Xeon E5-2690 v4 @ 2.60GHz",
    ): "xeon_e5_2690v4_win91",
    ("archive/mplb.pdf", "24 x Intel Xeon E5-2697 v2 cores @ 2.70GHz"): "xeon_e5_2697v2_v8",
    ("archive/mp6t.pdf", "8 x 4.4 GHz SMT4 processors"): "power7_aix_v8",
    ("archive/mp6t.pdf", "2 x 6-core 3.891GHz SMT8"): "power8_aix_v8",
    ("archive/mp7m.pdf", "4 x 10-core Xeon @ 2.4GHz"): "xeon_win_v8",
    ("archive/mplc.pdf", "4 dedicated CPUs"): "linux_on_z_v8",
    ("mqio_v1.pdf", None): "xeon_e5_2690v4_mqio",
}
REFERENCE_SERVER = ("MQ_V9.3_Performance_Report_xLinux_v2.pdf", "2 x 16-core Intel Xeon Gold 6346 @ 3.10GHz")


def _device_parameters() -> list[Parameter]:
    out = []
    for dev in LOG_DEVICES:
        out.append(
            Parameter(
                f"log_latency_us:{dev}", 200.0, 5.0, 20000.0, "us", f"fixed time of one log write on {dev}"
            )
        )
        out.append(
            Parameter(
                f"log_bandwidth_mb_per_s:{dev}", 500.0, 20.0, 20000.0, "MB/s", f"log write bandwidth of {dev}"
            )
        )
    return out


def _tls_parameters() -> list[Parameter]:
    out = []
    for c in TLS_CIPHERS:
        out.append(Parameter(f"tls_us:{c}", 20.0, 0.0, 2000.0, "us/msg", f"z/OS TLS CPU per message, {c}"))
        out.append(Parameter(f"tls_us_per_kb:{c}", 5.0, 0.0, 200.0, "us/KB", f"z/OS TLS CPU per KB, {c}"))
    return out


PARAMETERS: tuple[Parameter, ...] = (
    # distributed log
    Parameter(
        "log_first_write_bytes",
        3000.0,
        0.0,
        16384.0,
        "bytes",
        "a lone committer's write beyond its share of the records (whole pages, TripleWrite)",
    ),
    Parameter(
        "log_first_write_share",
        0.5,
        0.1,
        2.0,
        "",
        "share of a unit of work's log bytes in a lone committer's write (large messages are written as they are put)",
    ),
    Parameter(
        "log_aggregation",
        0.3,
        0.0,
        1.0,
        "",
        "share of every other concurrent committer's log bytes that joins a write",
    ),
    Parameter("log_gap_us", 20.0, 0.0, 500.0, "us", "log writer's time between two writes"),
    Parameter(
        "log_copy_mb_per_s", 2000.0, 200.0, 50000.0, "MB/s", "rate the log writer moves records into a write"
    ),
    Parameter(
        "log_record_header_bytes",
        500.0,
        100.0,
        3000.0,
        "bytes",
        "log bytes of an MQPUT beyond the message (headers, MQMD) and of an MQGET",
    ),
    *_device_parameters(),
    # distributed queue-manager CPU
    Parameter(
        "call_us",
        5.0,
        0.5,
        100.0,
        "ref core-us",
        "CPU of one MQPUT or MQGET in bindings mode, non-persistent",
    ),
    Parameter(
        "call_us_per_kb", 0.2, 0.0, 10.0, "ref core-us/KB", "CPU per KB of message of one MQPUT or MQGET"
    ),
    Parameter(
        "large_msg_kb",
        1000.0,
        50.0,
        100000.0,
        "KB",
        "message size at which a KB costs twice as much to copy as in a small message (processor caches)",
    ),
    Parameter(
        "host_background_pct",
        0.5,
        0.0,
        5.0,
        "% of host",
        "host CPU busy without MQ traffic (operating system, monitoring), part of the reported CPU%",
    ),
    Parameter(
        "persistent_us",
        10.0,
        0.0,
        200.0,
        "ref core-us",
        "extra CPU of a persistent MQPUT or MQGET (log records, forces)",
    ),
    Parameter(
        "persistent_us_per_kb", 0.2, 0.0, 10.0, "ref core-us/KB", "extra CPU per KB of a persistent call"
    ),
    Parameter(
        "client_call_us",
        10.0,
        0.0,
        200.0,
        "ref core-us",
        "extra queue-manager host CPU when an MQI call comes from a client (SVRCONN)",
    ),
    Parameter(
        "client_call_us_per_kb",
        0.2,
        0.0,
        10.0,
        "ref core-us/KB",
        "extra CPU per KB of a client call on the queue-manager host",
    ),
    Parameter(
        "channel_msg_us",
        5.0,
        0.0,
        200.0,
        "ref core-us",
        "CPU of a sender or receiver channel per message, one side",
    ),
    Parameter(
        "channel_msg_us_per_kb", 0.2, 0.0, 10.0, "ref core-us/KB", "channel CPU per KB of message, one side"
    ),
    *(
        Parameter(
            f"speed:{key}",
            1.0,
            0.1,
            5.0,
            "",
            f"speed of server {key} relative to the reference server (queue-manager code)",
        )
        for key in SERVERS.values()
    ),
    *(
        Parameter(
            f"log_speed:{key}",
            1.0,
            0.1,
            5.0,
            "",
            f"speed of server {key} in the persistent calls' CPU (log records, log I/O), relative to the reference",
        )
        for key in SERVERS.values()
    ),
    *(
        Parameter(
            f"copy_speed:{key}",
            1.0,
            0.1,
            5.0,
            "",
            f"speed of server {key} copying message bytes, relative to the reference server",
        )
        for key in SERVERS.values()
    ),
    # channels over distance
    Parameter(
        "header_bytes",
        428.0,
        0.0,
        2000.0,
        "bytes",
        "bytes a message carries on a channel beyond its data (transmission header, MQMD)",
        False,
        "assets/coefficients/mq.json header_bytes (seed 003)",
    ),
    Parameter(
        "link_efficiency",
        0.9,
        0.5,
        1.0,
        "",
        "share of a link's bit rate that carries channel bytes (TCP/IP framing)",
    ),
    Parameter(
        "tcp_window_bytes",
        65536.0,
        8192.0,
        16777216.0,
        "bytes",
        "unacknowledged bytes one channel's TCP connection keeps in flight",
    ),
    Parameter(
        "mathis_constant",
        1.22,
        0.3,
        3.0,
        "",
        "constant of TCP throughput under random loss, MSS/RTT x C/sqrt(p)",
    ),
    # z/OS
    Parameter(
        "zos_msg_us",
        50.0,
        1.0,
        1000.0,
        "z16 us/msg",
        "z/OS CPU of one message over a channel (both LPARs, MSTR, CHIN and MQ calls)",
    ),
    Parameter(
        "zos_msg_us_per_kb", 1.0, 0.0, 50.0, "z16 us/KB", "z/OS CPU per KB of a message over a channel"
    ),
    *_tls_parameters(),
    Parameter(
        "zos_chin_share",
        0.7,
        0.3,
        0.9,
        "",
        "channel initiator's share of a message's z/OS CPU over a channel (no TLS)",
        False,
        "MQ for z/OS channel compression report, CPU by CHIN task (16 KB, requester side: adaptor 10 + dispatcher 35 us of 63 us per message side); one configuration, kept as a prior",
    ),
    Parameter(
        "zos_log_mb_per_s",
        500.0,
        100.0,
        2000.0,
        "MB/s",
        "most MB/s a single z/OS active log copy writes (DS8000, zHPF)",
    ),
    Parameter(
        "zos_log_dual_mb_per_s",
        300.0,
        50.0,
        2000.0,
        "MB/s",
        "most MB/s per copy with dual logging or uncompressed archiving on the same volumes",
    ),
    Parameter(
        "zos_mstr_cpu_us_per_mb",
        600.0,
        50.0,
        5000.0,
        "us/MB",
        "queue-manager CPU per MB logged (large persistent messages)",
    ),
)


def by_name() -> dict[str, Parameter]:
    """Every parameter by name."""
    return {p.name: p for p in PARAMETERS}
