"""Knobs of the platform each Q Replication node runs on, of a distributed queue manager and of client apply.

Every node of a flow (source Db2, Q Capture, the two queue managers, Q Apply, target Db2)
runs on z/OS or on Linux/UNIX/Windows (:data:`PLATFORMS`, IBM's platform names). z/OS is the
default, so projects and scenarios written before these knobs existed are unchanged. A
Linux/UNIX/Windows server is given as cores (the ``*_lpar_cps`` knobs count them) and their
clock (``core_ghz``), never as MIPS. A queue manager on Linux/UNIX/Windows has the log and queue
buffer settings of its ``qm.ini`` (``LogType``, ``LogBufferPages``, ``DefaultPQBufferSize``,
``DefaultQBufferSize``) and its log disk; Q Apply connects to its queue manager in bindings mode
or as an MQ client over a SVRCONN channel (``SHARECNV``, the round-trip time).

The knobs join the node kinds of :mod:`engine.registry.kinds` (``SOURCE_DB2_KNOBS`` ...). A
scenario carries the two queue managers' knobs apart: the first queue manager of the flow (the
transmission queue's) under ``send_qm.*``, the receiving one under ``recv_qm.*``
(:data:`RECEIVE_QM_PATHS`, filled by :func:`engine.scenario.project_to_scenario`).
"""

from __future__ import annotations

from dataclasses import replace

from engine.registry.params import SEED_MQ_V8, SEED_QREP_2005, ParamSpec

#: Operating systems a node may run on (IBM's names); the first is the default.
PLATFORMS = ("z/OS", "AIX", "Linux on POWER", "Linux x86-64", "Windows x86-64")
#: Processor family of each platform: ``z`` (z/Architecture CPs rated by MIPS), ``POWER`` or ``x86``.
PROCESSOR_FAMILY = {
    "z/OS": "z",
    "AIX": "POWER",
    "Linux on POWER": "POWER",
    "Linux x86-64": "x86",
    "Windows x86-64": "x86",
}
ZOS = PLATFORMS[0]
#: Where a knob of z/OS only applies, and one of Linux/UNIX/Windows only (:attr:`ParamSpec.platforms`).
ZOS_ONLY = (ZOS,)
LUW = PLATFORMS[1:]
CONNECTIONS = ("bindings", "client")
LOG_TYPES = ("CIRCULAR", "LINEAR")
Q = "qrep"
#: Seeds discussing the knobs (the qm.ini names themselves are IBM MQ's documented ones).
_MQ_DOC = f"{SEED_QREP_2005}, How does Q replication work? (MQ log files and data files)"
_LOG_RATE_DOC = f"{SEED_MQ_V8}, Upper bounds of persistent message logging rate"
_CLIENT_DOC = f"{SEED_MQ_V8}, How much storage does a connection use? (client channels, SHARECNV)"
_NETWORK_DOC = f"{SEED_QREP_2005}, Latency (long network distances)"


def _p(name, type_, default, unit, help_, seed, path, **kw) -> ParamSpec:
    return ParamSpec(name, type_, default, unit, help_, seed, scenario_paths={Q: path}, **kw)


def _platform(path: str, what: str) -> ParamSpec:
    return _p(
        "os_platform",
        "enum",
        ZOS,
        "",
        f"Operating system {what} runs on: z/OS, or Linux/UNIX/Windows on POWER or x86 "
        "(cores and clock set on the node, not MIPS).",
        f"{SEED_QREP_2005}, Configurations (AIX and z/OS)",
        path,
        choices=PLATFORMS,
    )


def _ghz(path: str, what: str) -> ParamSpec:
    return _p(
        "core_ghz",
        "float",
        2.5,
        "GHz",
        f"Clock of one core of the Linux/UNIX/Windows server {what} runs on (z/OS: cpu_model rates the CPs).",
        f"{SEED_QREP_2005}, Configurations (AIX p690 LPARs)",
        path,
        minimum=0.5,
        maximum=10.0,
        platforms=LUW,
    )


SOURCE_DB2_KNOBS = (
    _platform("platform.source_db2", "the source Db2 and its workload"),
    _ghz("hardware.source_core_ghz", "the source Db2"),
)
QCAPTURE_KNOBS = (
    _platform("platform.qcapture", "Q Capture"),
    _ghz("hardware.capture_core_ghz", "Q Capture"),
)
TARGET_DB2_KNOBS = (_platform("platform.target_db2", "the target Db2"),)
QAPPLY_KNOBS = (
    _platform("platform.qapply", "Q Apply"),
    _ghz("hardware.apply_core_ghz", "Q Apply and the target Db2"),
    _p(
        "mq_connection",
        "enum",
        "bindings",
        "",
        "bindings: Q Apply connects to a queue manager on its own server, fed by a sender-receiver "
        "channel; client: an MQ client over a SVRCONN channel to a remote queue manager (every MQGET "
        "and MQCMIT a network round trip, no queue manager or log on Q Apply's server).",
        _CLIENT_DOC,
        "qapply.mq_connection",
        choices=CONNECTIONS,
    ),
    _p(
        "reads_send_queue",
        "bool",
        False,
        "",
        "A client Q Apply reads the send queue on Q Capture's queue manager itself: no channel, no "
        "receiving queue manager (the send queue is the receive queue). Needs mq_connection client.",
        _CLIENT_DOC,
        "qapply.reads_send_queue",
    ),
    _p(
        "client_rtt_us",
        "float",
        500.0,
        "us",
        "Network round-trip time between Q Apply and the remote queue manager of a client connection "
        "(scenarios may give hardware.client_rtt_ms instead).",
        _NETWORK_DOC,
        "hardware.client_rtt_us",
        minimum=1.0,
        maximum=1_000_000.0,
    ),
    _p(
        "sharecnv",
        "int",
        10,
        "conversations",
        "SHARECNV of the SVRCONN channel: conversations sharing one channel instance (0: no sharing, "
        "the lightest calls).",
        _CLIENT_DOC,
        "qapply.sharecnv",
        minimum=0,
        maximum=999_999_999,
    ),
)


def _qm_knobs(group: str) -> tuple:
    """The distributed queue manager knobs of the ``group`` (``send_qm`` or ``recv_qm``) queue manager."""
    return (
        _p(
            "os_platform",
            "enum",
            ZOS,
            "",
            "Operating system the queue manager runs on (z/OS: buffer pools, page sets and the z/OS log; "
            "Linux/UNIX/Windows: qm.ini log and queue buffers).",
            f"{SEED_QREP_2005}, Configurations (AIX and z/OS)",
            f"platform.{group}",
            choices=PLATFORMS,
        ),
    ) + tuple(replace(spec, platforms=LUW) for spec in _qm_ini_knobs(group))


def _qm_ini_knobs(group: str) -> tuple:
    """The ``qm.ini`` log and queue buffer knobs and the log disk of a Linux/UNIX/Windows queue manager."""
    return (
        _p(
            "logtype",
            "enum",
            "CIRCULAR",
            "",
            "LogType of a Linux/UNIX/Windows queue manager: LINEAR formats new log extents, writing the "
            "log disk twice as much.",
            _MQ_DOC,
            f"{group}.logtype",
            choices=LOG_TYPES,
        ),
        _p(
            "logbufferpages",
            "int",
            0,
            "4 KB pages",
            "LogBufferPages: the most one log write carries (0: the default, 512 pages; else 18 to 4096).",
            _MQ_DOC,
            f"{group}.logbufferpages",
            minimum=0,
            maximum=4096,
        ),
        _p(
            "log_disk_mb_per_s",
            "float",
            200.0,
            "MB/s",
            "Sequential write bandwidth of the queue manager's log disk (Linux/UNIX/Windows).",
            _LOG_RATE_DOC,
            f"{group}.log_disk_mb_per_s",
            minimum=1.0,
            maximum=100_000.0,
        ),
        _p(
            "log_write_us",
            "float",
            1000.0,
            "us",
            "Latency of one log write to the log disk (local NVMe tens of us, cached SAN a few hundred, "
            "disk without write cache several ms).",
            _LOG_RATE_DOC,
            f"{group}.log_write_us",
            minimum=1.0,
            maximum=100_000.0,
        ),
        _p(
            "defaultpqbuffersize",
            "int",
            131_072,
            "bytes",
            "DefaultPQBufferSize: memory of a queue for persistent messages; deeper queues go to the queue file.",
            _MQ_DOC,
            f"{group}.defaultpqbuffersize",
            minimum=32_768,
            maximum=104_857_600,
        ),
        _p(
            "defaultqbuffersize",
            "int",
            65_536,
            "bytes",
            "DefaultQBufferSize: memory of a queue for non-persistent messages; deeper queues go to the "
            "queue file.",
            _MQ_DOC,
            f"{group}.defaultqbuffersize",
            minimum=32_768,
            maximum=104_857_600,
        ),
    )


QUEUE_MANAGER_KNOBS = _qm_knobs("send_qm")
#: Knob name of a queue manager -> its path under ``send_qm`` in a scenario (the registry's own paths).
SEND_QM_PATH_OF = {spec.name: spec.scenario_paths[Q] for spec in QUEUE_MANAGER_KNOBS}
#: The receiving queue manager's knobs by scenario path (the registry's specs map the sending one).
RECEIVE_QM_PATHS = {spec.scenario_paths[Q]: spec for spec in _qm_knobs("recv_qm")}
#: Knob name of a queue manager -> its path under ``recv_qm`` in a scenario.
RECEIVE_QM_PATH_OF = {spec.name: path for path, spec in RECEIVE_QM_PATHS.items()}
