"""IBM MQ component measurements as observations of the component models.

Each measured value a mechanism represents becomes an :class:`Observation`: the record, the metric,
the measured number and a function of the coefficients that predicts it. The records no mechanism
represents are returned by :func:`not_represented` with the reason.

Request/reply (MQ-CPH) accounting, as the reports state it: one round trip is an MQPUT and an
MQGET of the request and of the reply (four calls); the requester's put and get commit separately
and the responder gets and puts in one unit of work (three commits per round trip, two messages
logged).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.calibrate.mq_components.parameters import REFERENCE_SERVER, SERVERS
from engine.perf.mqtransport import LOG_PAGE_BYTES, MB, distributed_log, qm_cpu, tcp, zos

Coefs = Mapping[str, float]

#: Mechanism groups, in report order: name -> what the group models.
GROUPS = {
    "distributed log": "log write size, latency and MB/s by device and concurrent committers (mqio)",
    "queue manager CPU": "host CPU per round trip: MQ calls, persistence, channels (bindings, queue manager to queue manager)",
    "client connection CPU": "host CPU per round trip with client (SVRCONN) requesters or requesters and responders",
    "persistent rate": "peak persistent round trips/s, least of the CPU and the log (V9.3 NVMe, SAN, NFS)",
    "channel over distance": "sender-receiver channels over a WAN: link, batch round trip, TCP window, loss",
    "z/OS channel CPU": "CPU per request/reply transaction over z/OS SDR/RCVR channels, with and without TLS",
    "z/OS log": "z/OS active log MB/s, single and dual copy, and queue-manager CPU per MB logged",
}


@dataclass(frozen=True)
class Observation:
    """One measured value and the model's prediction of it."""

    record_id: str
    group: str
    metric: str
    measured: float
    predict: Callable[[Coefs], float]


def _size(r) -> float:
    return float(r["settings"].get("message_size_bytes") or 0.0)


def _persistent(r) -> bool:
    return r["settings"].get("persistence") == "persistent"


def rr_commit_bytes(msg_bytes: float, k: Coefs) -> float:
    """Mean log bytes per commit of a request/reply round trip: two messages logged over three commits."""
    return 2.0 * (msg_bytes + k["log_record_header_bytes"]) / 3.0


def _log_buffer(r) -> float:
    log = r["settings"].get("log") or {}
    stated = log.get("LogBufferPages") if isinstance(log, dict) else None
    digits = re.match(r"\d+", str(stated)) if stated else None
    pages = int(digits.group()) if digits else 4096  # "4096 (best practice #6 ...)"; not stated: 4096
    return pages * LOG_PAGE_BYTES


def _mqio_device(r) -> str | None:
    log = r["settings"].get("log") or {}
    return log.get("log_filesystem") if isinstance(log, dict) else None


def _mqio_log(r) -> list[Observation]:
    dev = _mqio_device(r)
    n = r["settings"].get("requester_apps")
    rated = r["settings"].get("rating") not in (None, "unrated")
    if rated or not dev or not isinstance(n, (int, float)) or not _size(r):
        return []
    m, buf, delay = (
        _size(r),
        _log_buffer(r),
        float(r["settings"].get("nfs_injected_delay_us_each_way") or 0.0),
    )

    def w(k):
        return distributed_log.write_bytes(n, rr_commit_bytes(m, k), buf, k)

    def lat(k):
        return distributed_log.write_us(
            w(k), k[f"log_latency_us:{dev}"], k[f"log_bandwidth_mb_per_s:{dev}"], delay
        )

    def rate(k):
        return w(k) / distributed_log.cycle_us(
            w(k), k[f"log_latency_us:{dev}"], k[f"log_bandwidth_mb_per_s:{dev}"], k, delay
        )

    preds = {
        "log_write_size_KB": lambda k: w(k) / 1024.0,
        "log_write_size_bytes": w,
        "log_write_latency_us": lat,
        "log_MB_per_s": rate,
    }
    meas = r["measured"]
    return [
        Observation(r["id"], "distributed log", name, float(meas[name]), fn)
        for name, fn in preds.items()
        if name in meas
    ]


def _calls(r) -> tuple[float, float, float] | None:
    """(MQ calls, client calls, channel message sides) on the queue manager's host per round trip."""
    conn = str(r["settings"].get("connection", "")).lower()
    if "jms" in conn or "jms" in r["tags"]:
        return None
    if "sender/receiver" in conn:
        return 2.0, 0.0, 2.0
    if conn.startswith("requesters client") or "responders bind" in conn:
        return 4.0, 2.0, 0.0
    if "requesters and responders client" in conn:
        return 4.0, 4.0, 0.0
    if conn.startswith("bindings"):
        return 4.0, 0.0, 0.0
    return None


def _server_key(r) -> str | None:
    cpu = r["machine"].get("cpu") if isinstance(r["machine"], dict) else None
    if (r["report"], cpu) == REFERENCE_SERVER:
        return ""
    return SERVERS.get((r["report"], cpu))


def cpu_per_round_trip(msg_bytes: float, persistent: bool, calls, k: Coefs, server: str = "") -> float:
    """Host core-us per request/reply round trip on a server (``server`` "" is the reference).

    The fixed parts run at the server's ``speed:``, the per-size parts at its ``copy_speed:``, the
    persistent parts (log records, log I/O) at its ``log_speed:``.
    """
    n_calls, n_client, n_channel = calls
    total = (
        n_calls * qm_cpu.call_us(msg_bytes, persistent, k)
        + n_client * qm_cpu.client_call_us(msg_bytes, k)
        + n_channel * qm_cpu.channel_msg_us(msg_bytes, k)
    )
    if not server:
        return total
    logging = n_calls * (qm_cpu.call_us(msg_bytes, persistent, k) - qm_cpu.call_us(msg_bytes, False, k))
    fixed = (
        n_calls * qm_cpu.call_fixed_us(False, k)
        + n_client * k["client_call_us"]
        + n_channel * k["channel_msg_us"]
    )
    copies = total - fixed - logging
    return (
        fixed / k[f"speed:{server}"] + copies / k[f"copy_speed:{server}"] + logging / k[f"log_speed:{server}"]
    )


def _qm_cpu(r) -> list[Observation]:
    meas, s = r["measured"], r["settings"]
    cores = r["machine"].get("cores") if isinstance(r["machine"], dict) else None
    calls, server = _calls(r), _server_key(r)
    if not (
        "round_trips_per_s" in meas and "qm_host_cpu_pct" in meas and cores and calls and server is not None
    ):
        return []
    if s.get("tls") or "ha" in r["tags"] or r["report"] == "rdqm_performance_1.1.pdf":
        return []
    if meas["qm_host_cpu_pct"] < MIN_HOST_CPU_PCT:
        return []
    group = "client connection CPU" if calls[1] else "queue manager CPU"
    m, p, rate = _size(r), _persistent(r), float(meas["round_trips_per_s"])

    def host_pct(k):
        return k["host_background_pct"] + 100.0 * rate * cpu_per_round_trip(m, p, calls, k, server) / (
            cores * 1e6
        )

    return [Observation(r["id"], group, "qm_host_cpu_pct", float(meas["qm_host_cpu_pct"]), host_pct)]


#: Host CPU% below which a peak row's CPU does not measure the MQ work (a few % of many cores).
MIN_HOST_CPU_PCT = 5.0


def _v93_persistent_rate(r) -> list[Observation]:
    if not (r["id"].startswith(("L93-T6-RRBB", "L93-T7-RRBB")) and _persistent(r)):
        return []
    dev = "V93-" + {"SAN": "SAN", "NFS": "NFS"}.get(r["id"].rsplit("-", 1)[-1], "NVMe")
    m, n, buf = _size(r), float(r["settings"]["requester_apps_at_peak"]), _log_buffer(r)
    cores = r["machine"]["cores"]

    def rate(k):
        log = distributed_log.mb_per_s(
            n, rr_commit_bytes(m, k), buf, k[f"log_latency_us:{dev}"], k[f"log_bandwidth_mb_per_s:{dev}"], k
        )
        log_rt = log * MB / (3.0 * rr_commit_bytes(m, k))
        cpu_rt = cores * 1e6 / cpu_per_round_trip(m, True, (4.0, 0.0, 0.0), k)
        return min(log_rt, cpu_rt)

    return [
        Observation(
            r["id"], "persistent rate", "round_trips_per_s", float(r["measured"]["round_trips_per_s"]), rate
        )
    ]


_NETWORK = re.compile(r"(\d+)ms latency each direction|(\d+)ms each direction")
_LOSS = re.compile(r"([\d.]+)% packet loss")


def _channel_distance(r) -> list[Observation]:
    s = r["settings"]
    if not (r["id"].startswith("FASP-") and s.get("transport") == "TCP direct"):
        return []
    net = str(s.get("network", ""))
    hit = _NETWORK.search(net)
    rtt_s = 2e-3 * float(hit.group(1) or hit.group(2)) if hit else 0.0
    loss_hit = _LOSS.search(net)
    loss = float(loss_hit.group(1)) / 100.0 if loss_hit else 0.0
    m, channels = _size(r), int(str(s.get("channels", "1")).split()[0])
    link_mbit = 1000.0  # "1Gb links via Netropy WAN emulator"
    return [
        Observation(
            r["id"],
            "channel over distance",
            "msgs_per_s",
            float(r["measured"]["msgs_per_s"]),
            lambda k: tcp.msgs_per_s(m, channels, link_mbit, rtt_s, loss, k),
        )
    ]


_ZC_CIPHER = {
    "ZC-B": "ECDHE_RSA_256_CBC_SHA384",
    "ZC-C": "TLS_RSA_WITH_AES_256_CBC_SHA256",
    "ZC-D": "TLS_AES_128_GCM_SHA256",
    "ZC-E": "TLS_CHACHA20_POLY1305_SHA256",
}


def _zos_channel(r) -> list[Observation]:
    if not (r["id"].startswith("ZC-") and "transaction_cost_cpu_us" in r["measured"]):
        return []
    series = r["id"][:4]
    cipher = _ZC_CIPHER.get(series) if series != "ZC-A" else None
    if series != "ZC-A" and cipher is None:
        return []
    m = _size(r)
    return [
        Observation(
            r["id"],
            "z/OS channel CPU",
            "transaction_cost_cpu_us",
            float(r["measured"]["transaction_cost_cpu_us"]),
            lambda k: zos.transaction_us(m, k, cipher),
        )
    ]


_ZOS_LOG_METRICS = {
    "log_MB_per_s": False,  # single active log copy (ZHW baseline)
    "peak_log_MB_per_s_per_log_compressed_archives": False,
    "peak_MB_per_s_per_log_compressed_archives": False,
    "peak_log_MB_per_s_per_log_uncompressed_archives": True,
    "peak_MB_per_s_per_log_uncompressed_archives": True,
    "max_log_MB_per_s_per_log_copy": True,
    "log_write_MB_per_s_per_copy": True,
}


def _zos_log_mb_per_s(dual: bool, k: Coefs) -> float:
    return zos.log_mb_per_s(dual, k)


def _zos_log(r) -> list[Observation]:
    if "zos" not in r["tags"] or "log" not in r["tags"]:
        return []
    out = []
    for metric, dual in _ZOS_LOG_METRICS.items():
        if metric in r["measured"] and not (metric == "log_MB_per_s" and not r["id"].endswith("Baseline")):
            out.append(
                Observation(
                    r["id"],
                    "z/OS log",
                    metric,
                    float(r["measured"][metric]),
                    functools.partial(_zos_log_mb_per_s, dual),
                )
            )
    if "qm_cpu_us_per_MB" in r["measured"]:
        out.append(
            Observation(
                r["id"],
                "z/OS log",
                "qm_cpu_us_per_MB",
                float(r["measured"]["qm_cpu_us_per_MB"]),
                lambda k: k["zos_mstr_cpu_us_per_mb"],
            )
        )
    return out


BUILDERS = (_mqio_log, _qm_cpu, _v93_persistent_rate, _channel_distance, _zos_channel, _zos_log)


def observations(records: list[dict]) -> list[Observation]:
    """Every observation the component models make of ``records``."""
    return [obs for r in records for build in BUILDERS for obs in build(r)]


#: Why a record is not represented: (test on the record, reason), first match wins.
_REASONS: tuple[tuple[Callable[[dict], bool], str], ...] = (
    (
        lambda r: r["report"].startswith("MFT"),
        "MQ Managed File Transfer agents: not a Q Replication component",
    ),
    (
        lambda r: "AMS" in r["report"] or "ams" in r["settings"] or "ams_policy" in r["settings"],
        "Advanced Message Security: Q Replication does not use it",
    ),
    (lambda r: "Streaming" in r["report"], "streaming queues: not used by Q Replication"),
    (
        lambda r: r["report"].startswith("MQ914_fasp"),
        "fasp.io gateway channels: not modelled (the TCP rows are represented)",
    ),
    (lambda r: "jms" in r["tags"], "JMS API cost: Q Capture and Q Apply use the MQI"),
    (
        lambda r: bool(r["settings"].get("tls")) or "tls" in r["tags"],
        "TLS comparisons (client channels, key negotiation, channel start, CHIN CPU by task): only z/OS channel TLS per message is modelled",
    ),
    (
        lambda r: r["report"].startswith("rdqm") or "ha" in r["tags"],
        "replicated data queue managers (HA log replication): not a Q Replication topology",
    ),
    (
        lambda r: "shared_queue" in r["tags"],
        "shared-queue CF/SCM single measurements: the CF model stays on documented priors",
    ),
    (lambda r: "archive" in r["tags"], "archive log recovery rates: restart recovery is not modelled"),
    (
        lambda r: "private_queue" in r["tags"],
        "z/OS private-queue peak rates: processors in use and CPU% not stated",
    ),
    (
        lambda r: 0 < r["measured"].get("qm_host_cpu_pct", 100) < MIN_HOST_CPU_PCT,
        f"host CPU under {MIN_HOST_CPU_PCT:.0f}%: too little to read a cost per round trip from a whole-host figure",
    ),
    (
        lambda r: any(k.startswith("v7.5_") for k in r["measured"]),
        "V7.5 comparison columns of the V8 reports: superseded releases",
    ),
    (
        lambda r: "zHyperWrite" in r["report"] or "dasd" in r["tags"],
        "synchronous remote copy (PPRC, zHyperWrite) of the z/OS log: not a setting of the engine",
    ),
    (
        lambda r: r["id"].startswith("ZC-S3"),
        "CHIN CPU by task: one configuration, used as the documented prior zos_chin_share",
    ),
    (
        lambda r: r["settings"].get("rating") not in (None, "unrated"),
        "rated requesters: the number of concurrent committers is not known",
    ),
    (
        lambda r: "channel_count" in r["tags"],
        "1 against 10 channel pairs: two points, one per channel count; a channel's serial time per message stays a prior",
    ),
    (
        lambda r: r["report"] == "mqio_v1.pdf",
        "mqio special cases (lock contention, I/O merges, amqsrua totals, write-cache settings): single configurations",
    ),
)


#: Reason of a record no rule explains (the test holds it empty).
UNEXPLAINED = "no mechanism of the engine measures this quantity"


def not_represented(records: list[dict], used: set[str]) -> dict[str, list[str]]:
    """Records no observation uses, by reason."""
    out: dict[str, list[str]] = {}
    for r in records:
        if r["id"] in used:
            continue
        reason = next((why for test, why in _REASONS if test(r)), UNEXPLAINED)
        out.setdefault(reason, []).append(r["id"])
    return out
