"""The platform each node of a Q Replication flow runs on, and how fast its processors do the flow's work.

Every CPU cost of the engine is reference-CPU microseconds: time on one processor of the
reference CPU model (a z196 CP, :mod:`engine.perf.qrep.coefficients`). A z/OS LPAR scales them
by its CPU model or MIPS per CP (``hardware.cpu_model``); a Linux/UNIX/Windows server by its
cores' clock: a core of ``G`` GHz doing ``w`` reference work per cycle takes
``reference_cp_ghz / (G * w)`` times the reference time (``w`` per processor family, x86 or
POWER, in ``assets/coefficients/platforms.json`` with the reasoning behind each value). The
solver keeps one time factor (the z/OS one) and multiplies each LPAR's CPU work by
:meth:`FlowPlatform.speed` of the role that LPAR hosts.

Where the platforms change mechanisms rather than speed:

* Db2 for Linux/UNIX/Windows: Q Capture reads the log with ``db2ReadLog`` from its own
  database; the z/OS data-sharing merged-log delay (IFI) does not exist (:meth:`FlowPlatform.log_merge_delay_ms`).
* A queue manager on Linux/UNIX/Windows: its log disk and queue buffers
  (:mod:`engine.perf.qrep.distributed_qm`).
* Q Apply as an MQ client (:mod:`engine.perf.qrep.client_apply`).

Settings (``platform.*``, ``hardware.*_core_ghz``, ``send_qm.*``, ``recv_qm.*``,
``qapply.mq_connection``, ``qapply.sharecnv``, ``hardware.client_rtt_us`` or ``_ms``) are read by
:func:`read_platform`; nodes that must share a server (the source Db2 and Q Capture, Q Capture
and its queue manager, Q Apply and the target Db2, Q Apply and a bindings-mode queue manager)
must name the same platform, or the error names the setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.errors import ValueRangeError
from engine.io.packagedata import asset_path
from engine.perf.coeffload import read_document
from engine.registry.platform_knobs import PROCESSOR_FAMILY, ZOS
from engine.settings import SettingsReader, registry_defaults, scaled_spec

ASSUMPTIONS_PATH = asset_path("coefficients", "platforms.json")
#: Microseconds per millisecond (``hardware.client_rtt_ms`` spells the round trip in ms).
MS_US = 1000.0
#: Bytes of one MQ log buffer page.
LOG_PAGE_BYTES = 4096.0
#: LogBufferPages values below this (other than 0, the default) are raised to it by MQ; refused here.
MIN_LOGBUFFERPAGES = 18


@dataclass(frozen=True)
class QueueManagerPlatform:
    """One queue manager's platform (``os``) and, on Linux/UNIX/Windows, its qm.ini settings.

    ``logtype`` (CIRCULAR or LINEAR), ``logbufferpages`` (LogBufferPages, 0 for the default), the log
    disk's ``log_disk_mb_per_s`` (MB/s) and ``log_write_us`` (us per write), and the queue buffers
    DefaultPQBufferSize and DefaultQBufferSize as ``pq_buffer_bytes`` and ``q_buffer_bytes``.
    """

    os: str
    logtype: str
    logbufferpages: int
    log_disk_mb_per_s: float
    log_write_us: float
    pq_buffer_bytes: float
    q_buffer_bytes: float

    @property
    def distributed(self) -> bool:
        """True on Linux/UNIX/Windows (MQ for Multiplatforms)."""
        return self.os != ZOS


@dataclass(frozen=True)
class PlatformInputs:
    """Platforms of a flow's nodes (IBM's names), the servers' core clocks and Q Apply's connection.

    ``oses`` maps the roles ``S`` (source Db2), ``C`` (Q Capture), ``A`` (Q Apply) and ``T``
    (target Db2) to their platform, ``core_ghz`` the roles S, C and A to their cores' clock.
    """

    oses: dict
    core_ghz: dict
    send_qm: QueueManagerPlatform
    recv_qm: QueueManagerPlatform
    connection: str
    client_rtt_us: float
    sharecnv: int
    reads_send_queue: bool = False

    @property
    def client(self) -> bool:
        """Q Apply is an MQ client of a remote queue manager."""
        return self.connection == "client"

    @property
    def no_channel(self) -> bool:
        """A client Q Apply reads the send queue on Q Capture's queue manager: no channel, one queue manager."""
        return self.client and self.reads_send_queue

    @property
    def served_by(self) -> QueueManagerPlatform:
        """The queue manager Q Apply's MQGETs run on: the sending one when it reads the send queue."""
        return self.send_qm if self.no_channel else self.recv_qm

    def os_of(self, role: str) -> str:
        """Platform of the server hosting role ``S`` (source), ``C`` (Q Capture), ``A`` (Q Apply) or ``T``."""
        return self.oses[role]

    @property
    def source_os(self) -> str:
        """Platform of the source Db2 (and so of Q Capture)."""
        return self.oses["S"]

    @property
    def capture_os(self) -> str:
        """Platform of Q Capture."""
        return self.oses["C"]

    @property
    def apply_os(self) -> str:
        """Platform of Q Apply (and of the target Db2)."""
        return self.oses["A"]


@lru_cache(maxsize=1)
def assumptions() -> dict:
    """Values of ``assets/coefficients/platforms.json`` by name.

    Raises
    ------
    CoefficientsError
        The file is missing or not valid JSON.
    """
    doc = read_document(
        ASSUMPTIONS_PATH, "the platform assumptions", "restore assets/coefficients/platforms.json"
    )
    return {name: float(spec["value"]) for name, spec in doc["parameters"].items()}


#: Role letter -> the setting naming its platform, and -> the setting of its cores' clock.
_OS_PATHS = {
    "S": "platform.source_db2",
    "C": "platform.qcapture",
    "A": "platform.qapply",
    "T": "platform.target_db2",
}
_GHZ_PATHS = {
    "S": "hardware.source_core_ghz",
    "C": "hardware.capture_core_ghz",
    "A": "hardware.apply_core_ghz",
}


def _queue_manager(r: SettingsReader, group: str) -> QueueManagerPlatform:
    pages = r.integer(f"{group}.logbufferpages")
    if 0 < pages < MIN_LOGBUFFERPAGES:
        raise ValueRangeError(
            f"{group}.logbufferpages", pages, f"0 (the default, 512 pages) or {MIN_LOGBUFFERPAGES} to 4096"
        )
    return QueueManagerPlatform(
        os=r.choice(f"platform.{group}"),
        logtype=r.choice(f"{group}.logtype"),
        logbufferpages=pages,
        log_disk_mb_per_s=r.number(f"{group}.log_disk_mb_per_s"),
        log_write_us=r.number(f"{group}.log_write_us"),
        pq_buffer_bytes=r.integer(f"{group}.defaultpqbuffersize"),
        q_buffer_bytes=r.integer(f"{group}.defaultqbuffersize"),
    )


def _client_rtt_us(r: SettingsReader) -> float:
    """``hardware.client_rtt_us``, or ``hardware.client_rtt_ms`` given instead (not both)."""
    in_ms = r.raw("hardware.client_rtt_ms")
    if in_ms is None:
        return r.number("hardware.client_rtt_us")
    if r.raw("hardware.client_rtt_us") is not None:
        raise ValueRangeError(
            "hardware.client_rtt_ms", in_ms, "absent when hardware.client_rtt_us gives the round trip"
        )
    return MS_US * r.number(
        "hardware.client_rtt_ms", scaled_spec(r.spec("hardware.client_rtt_us"), MS_US, "ms")
    )


def _same(path: str, value: str, other: str, why: str) -> None:
    if value != other:
        raise ValueRangeError(path, value, f"{other!r}, the platform of {why}")


def read_platform(r: SettingsReader) -> PlatformInputs:
    """Read and check the platform settings through the engine's settings reader ``r``.

    Raises
    ------
    ValueRangeError
        A value out of its registry range, LogBufferPages between 1 and 17, both round-trip
        spellings, or two nodes that share a server on different platforms (the message names
        the setting and the platform it must match).
    """
    p = PlatformInputs(
        oses={role: r.choice(path) for role, path in _OS_PATHS.items()},
        core_ghz={role: r.number(path) for role, path in _GHZ_PATHS.items()},
        send_qm=_queue_manager(r, "send_qm"),
        recv_qm=_queue_manager(r, "recv_qm"),
        connection=r.choice("qapply.mq_connection"),
        client_rtt_us=_client_rtt_us(r),
        sharecnv=r.integer("qapply.sharecnv"),
        reads_send_queue=r.flag("qapply.reads_send_queue"),
    )
    if p.reads_send_queue and not p.client:
        raise ValueRangeError(
            "qapply.reads_send_queue",
            True,
            "false unless qapply.mq_connection is client (a bindings Q Apply reads "
            "the receive queue of its own queue manager)",
        )
    _same("platform.qcapture", p.capture_os, p.source_os, "the source Db2 whose log Q Capture reads")
    _same("platform.send_qm", p.send_qm.os, p.capture_os, "Q Capture, which puts to it in bindings mode")
    _same("platform.target_db2", p.oses["T"], p.apply_os, "Q Apply, which runs with its target Db2")
    if not p.client:
        _same("platform.recv_qm", p.recv_qm.os, p.apply_os, "Q Apply, connected in bindings mode")
    return p


class FlowPlatform:
    """Speeds and platform mechanisms of one flow (built by the solver for its inputs).

    Parameters
    ----------
    platform : PlatformInputs
    zos_time_factor : float
        The solver's time factor: reference-CPU time to time on one CP of ``hardware.cpu_model``.
    """

    def __init__(self, platform: PlatformInputs, zos_time_factor: float):
        self.inputs = platform
        self.k = assumptions()
        self.role_speed = {role: self._role_speed(role, zos_time_factor) for role in "SCA"}

    def _role_speed(self, role: str, zos_time_factor: float) -> float:
        os_name = self.inputs.os_of(role)
        if os_name == ZOS:
            return 1.0
        family = PROCESSOR_FAMILY[os_name].lower()
        per_cycle = self.k[f"work_per_cycle_{family}"]
        time_factor = self.k["reference_cp_ghz"] / (self.inputs.core_ghz[role] * per_cycle)
        return time_factor / zos_time_factor

    def speed(self, roles: str) -> float:
        """CPU time multiplier of the server hosting ``roles`` (``"SC"``: the first role's server), vs z/OS."""
        return self.role_speed[roles[0]]

    @property
    def all_zos(self) -> bool:
        """Every node on z/OS and Q Apply in bindings mode (the engine's behaviour before platforms existed)."""
        p = self.inputs
        oses = (*p.oses.values(), p.send_qm.os, p.recv_qm.os)
        return all(o == ZOS for o in oses) and not p.client

    def log_merge_delay_ms(self, zos_delay_ms: float) -> float:
        """The merged-log read delay: z/OS data sharing only (db2ReadLog reads the database's own log)."""
        return zos_delay_ms if self.inputs.source_os == ZOS else 0.0


#: Every node on z/OS, Q Apply in bindings mode: the registry's defaults (inputs without platform settings).
ALL_ZOS = read_platform(registry_defaults("qrep"))
