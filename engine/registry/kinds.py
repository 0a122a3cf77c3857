"""Node kinds of a qrtune topology and every knob they carry.

Each :class:`NodeKind` has a stable string id, a display name, the kinds it may
link to (its output port) and its :class:`~engine.registry.params.ParamSpec` list.
Defaults are the product defaults; where the seeds tuned a value differently,
the help says so. ``scenario_paths`` tie each knob to the settings of
../shared/validation's scenario format, so project files and published
scenarios feed the same engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.registry.params import (
    SEED_DB2_V8,
    SEED_MIRROR,
    SEED_MQ_V8,
    SEED_QREP_2005,
    SEED_QREP_ZOS,
    ParamSpec,
)

CPU_MODELS = ("z900-2064-216", "z196-2817-778", "zEC12-2827", "z13-2964", "POWER9", "POWER10")
Q = "qrep"
MIR = "db2mirror"
MOV = "mq-mover"
V8 = "db2-v8-storage"


@dataclass(frozen=True)
class NodeKind:
    """A kind of node: what it is, what it links to, which knobs it has."""

    id: str
    name: str
    description: str
    links_to: tuple[str, ...]
    params: tuple[ParamSpec, ...]

    def param(self, name: str) -> ParamSpec:
        """Return the spec named ``name``; raises KeyError if the kind lacks it."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict:
        """Every parameter at its product default."""
        return {p.name: (dict(p.default) if isinstance(p.default, dict) else p.default) for p in self.params}


def _p(name, type_, default, unit, help_, seed, paths=None, **kw) -> ParamSpec:
    return ParamSpec(name, type_, default, unit, help_, seed, scenario_paths=paths or {}, **kw)


_RP = SEED_QREP_ZOS
SOURCE_DB2 = NodeKind(
    "source_db2",
    "Source Db2 subsystem",
    "The Db2 whose log Q Capture reads, with the application workload that changes it.",
    ("qcapture",),
    (
        _p("cpu_model", "enum", "z196-2817-778", "", "Processor model of the source LPAR; scales every CPU cost.",
           f"{_RP}, 2.3 Environment", {Q: "hardware.cpu_model"}, choices=CPU_MODELS),
        _p("mips_per_cp", "float", None, "MIPS", "Rated MIPS of one processor, when known (z900 LPARs: about 200).",
           f"{SEED_QREP_2005}, Configurations", {Q: "hardware.mips_per_cp"}, minimum=1, maximum=10000,
           nullable=True, null_meaning="use the CPU model's rating"),
        _p("source_lpar_cps", "int", 3, "CPs", "Processors of the LPAR running the source workload.",
           f"{_RP}, 2.3 Environment", {Q: "hardware.source_lpar_cps"}, minimum=1, maximum=200),
        _p("platform", "str", "z/OS V1R11", "", "Operating system of the source.", f"{_RP}, 2.3 Environment",
           {Q: "software.platform"}),
        _p("db2_version", "str", "DB2 9 for z/OS", "", "Db2 release at the source.", f"{_RP}, 2.3 Environment",
           {Q: "software.db2"}),
        _p("columns", "column_map", {"INTEGER": 10, "CHAR(20)": 10, "DATE": 5, "DECIMAL(20,0)": 5}, "",
           "Replicated table columns by Db2 type; fewer columns replicate faster (default schema: 30 columns).",
           f"{_RP}, 3.1 Number of columns", {Q: "table.columns"}),
        _p("row_bytes", "int", 315, "bytes", "Length of one row.", f"{_RP}, 2.5 Workload",
           {Q: "table.row_bytes"}, minimum=1, maximum=32704),
        _p("unique_indexes", "int", 1, "", "Unique indexes on the table; each adds Db2 and Q Apply dependency "
           "work (define secondary indexes non-unique where possible).", f"{_RP}, Table 3-4",
           {Q: "table.unique_indexes"}, minimum=0, maximum=64),
        _p("index_column_type", "enum", "INTEGER", "", "Db2 type of the unique index column.",
           f"{_RP}, 3.4 Unique indexes", {Q: "table.index_column_type"},
           choices=("INTEGER", "CHAR", "DECIMAL", "DATE")),
        _p("rows_per_txn", "int", 5, "rows", "Rows changed per source transaction (commit).",
           f"{_RP}, Table 3-3", {Q: "workload.rows_per_txn"}, minimum=1, maximum=1_000_000),
        _p("inserts_per_txn", "int", 1, "rows", "Inserts per transaction.", f"{_RP}, 2.5 Workload",
           {Q: "workload.inserts_per_txn"}, minimum=0, maximum=1_000_000),
        _p("updates_per_txn", "int", 3, "rows", "Updates per transaction.", f"{_RP}, 2.5 Workload",
           {Q: "workload.updates_per_txn"}, minimum=0, maximum=1_000_000),
        _p("deletes_per_txn", "int", 1, "rows", "Deletes per transaction.", f"{_RP}, 2.5 Workload",
           {Q: "workload.deletes_per_txn"}, minimum=0, maximum=1_000_000),
        _p("columns_changed_per_update", "int", 1, "columns", "Columns an UPDATE changes; with CHANGED_COLS_ONLY "
           "only these and the key are sent.", f"{_RP}, 4.1 Column suppression",
           {Q: "workload.columns_changed_per_update"}, minimum=0, maximum=750),
        _p("dependent_txn_pct", "float", 0.0, "%", "Transactions that change a row or unique-key value an earlier "
           "transaction still being applied changed; Q Apply applies them in order (the seeds' workload had none).",
           f"{_RP}, 2.1 Q Apply serialization and 3.4 Unique indexes", {Q: "workload.dependent_txn_pct"},
           minimum=0, maximum=100),
        _p("offered_rows_per_s", "float", None, "rows/s", "Rate the application offers.",
           f"{_RP}, 2.5 Workload", {Q: "workload.offered_rows_per_s"}, minimum=0, maximum=10_000_000,
           nullable=True, null_meaning="drive to the maximum sustainable rate"),
        _p("jobs", "int", None, "jobs", "Application jobs driving the workload (closed workload).",
           f"{SEED_QREP_2005}, Figures 7 and 8", {Q: "workload.jobs"}, minimum=1, maximum=100_000,
           nullable=True, null_meaning="an open workload at the offered rate"),
        _p("think_time_ms", "float", None, "ms", "Think time of each job between transactions.",
           f"{SEED_QREP_2005}, Figures 7 and 8", {Q: "workload.think_time_ms"}, minimum=0, maximum=3_600_000,
           nullable=True, null_meaning="no think time"),
    ),
)

QCAPTURE = NodeKind(
    "qcapture",
    "Q Capture",
    "Reads the Db2 log, rebuilds transactions in memory and puts them as MQ messages.",
    ("queue_manager",),
    (
        _p("capture_lpar_cps", "int", 3, "CPs", "Processors of the LPAR running Q Capture and its queue manager.",
           f"{_RP}, 2.3 Environment", {Q: "hardware.capture_lpar_cps"}, minimum=1, maximum=200),
        _p("capture_colocated_with_source", "bool", False, "", "Q Capture runs in the source workload's LPAR "
           "and competes with it for CPU.", f"{SEED_QREP_2005}, Configurations",
           {Q: "hardware.capture_colocated_with_source"}),
        _p("qrep_version", "str", "Q Replication V10.1.0", "", "Q Replication release.",
           f"{_RP}, 2.3 Environment", {Q: "software.qrep"}),
        _p("memory_limit_mb", "int", 500, "MB", "Memory to build transactions; a transaction that does not fit "
           "spills to a file (the seeds used 500 MB).", f"{_RP}, Table 2-1 and 4.4 MEMORY_LIMIT",
           {Q: "qcapture.memory_limit_mb"}, minimum=1, maximum=100_000),
        _p("commit_interval_ms", "int", 500, "ms", "Longest time between MQ commits of Q Capture.",
           f"{_RP}, Table 2-1 and 4.5 COMMIT_INTERVAL", {Q: "qcapture.commit_interval_ms"},
           minimum=100, maximum=600_000),
        _p("sleep_interval_ms", "int", 500, "ms", "Pause after reaching the end of the log (the seeds tuned 50 ms "
           "for steadier latency).", f"{_RP}, Table 2-1", {Q: "qcapture.sleep_interval_ms"},
           minimum=1, maximum=100_000),
        _p("trans_batch_sz", "int", 1, "txns", "Source transactions grouped into one MQ message and one target "
           "transaction (the seeds tuned 3 for small OLTP transactions).", f"{_RP}, Table 4-3 TRANS_BATCH_SZ",
           {Q: "qcapture.trans_batch_sz"}, minimum=1, maximum=10_000),
        _p("msg_persistence", "bool", True, "", "Persistent MQ messages are logged and recoverable.",
           f"{_RP}, Table 5-1 Message persistence", {Q: "qcapture.msg_persistence"}),
        _p("monitor_interval_ms", "int", 60_000, "ms", "Interval of IBMQREP_CAPMON rows (the seeds used 10 s).",
           f"{_RP}, Table 2-1", {Q: "qcapture.monitor_interval_ms"}, minimum=1000, maximum=86_400_000),
        _p("max_message_size_kb", "int", 64, "KB", "Largest MQ message Q Capture builds; must stay below MQ "
           "MAXMSGL (the seeds used 10240 KB).", f"{_RP}, Table 2-1", {Q: "qcapture.max_message_size_kb"},
           minimum=1, maximum=102_400),
        _p("changed_cols_only", "bool", True, "", "Send only changed columns and the key for updates; needs "
           "conflict action I, not F (the seeds ran N).", f"{_RP}, Table 4-1 Column suppression",
           {Q: "qcapture.changed_cols_only"}),
    ),
)

QUEUE_MANAGER = NodeKind(
    "queue_manager",
    "MQ queue manager",
    "Holds the transmit or receive queue in a buffer pool backed by page sets, with its log.",
    ("channel", "qapply"),
    (
        _p("mq_version", "str", "WebSphere MQ V7.0.1", "", "MQ release.", f"{_RP}, 2.3 Environment",
           {Q: "software.mq"}),
        _p("buffpool_pages", "int", 50_000, "4 KB pages", "Buffers of the queue's buffer pool; ideally large "
           "enough to hold any backlog (the seeds used 240000).", f"{_RP}, Table 2-3 BUFFPOOL",
           {Q: "mq.buffpool_pages", MOV: "buffpool_buffers"}, minimum=1000, maximum=50_000_000),
        _p("pageclas", "enum", "4KB", "", "Buffer pool page class: 4KB pageable or FIXED4KB page-fixed.",
           f"{SEED_MQ_V8}, Buffer pools", {MOV: "pageclas"}, choices=("4KB", "FIXED4KB")),
        _p("dwp_start_pct", "int", 85, "%", "Buffer pool usage at which the deferred write processor starts.",
           f"{SEED_MQ_V8}, Deferred write processor", {MOV: "dwp_start_pct"}, minimum=1, maximum=100),
        _p("dwp_target_pct", "int_pair", [75, 85], "%", "Usage band the deferred write processor holds.",
           f"{SEED_MQ_V8}, Deferred write processor", {MOV: "dwp_target_pct"}),
        _p("maxshortmsgs", "int", 0, "", "0: short messages share 4 KB pages; -1: one message per page, no page "
           "scans (the seeds used -1).", f"{_RP}, Table 2-3 MAXSHORTMSGS", {Q: "mq.maxshortmsgs"},
           minimum=-1, maximum=1_000_000),
        _p("maxmsgl", "int", 4_194_304, "bytes", "Largest message the queue accepts; keep above Q Capture "
           "MAX_MESSAGE_SIZE (the seeds used 20971520).", f"{_RP}, Table 2-3 MAXMSGL", {Q: "mq.maxmsgl"},
           minimum=1024, maximum=104_857_600),
        _p("security", "bool", True, "", "MQ security checking (the seeds switched it off).",
           f"{_RP}, Table 5-4 MQ security", {Q: "mq.security"}),
        _p("read_ahead", "bool", False, "", "Pre-stage messages of deep queues into the buffer pool "
           "(PM63802; the seeds switched it on).", f"{_RP}, Table 2-3 READ-AHEAD", {Q: "mq.read_ahead", MOV: "read_ahead"}),
        _p("logload", "int", 500_000, "log records", "Log records between checkpoints (the seeds used 16000000).",
           f"{_RP}, Table 2-3 LOGLOAD", {Q: "mq.logload"}, minimum=200, maximum=16_000_000),
        _p("global_trace", "bool", False, "", "MQ GLOBAL trace on.", f"{_RP}, Table 5-3 MQ trace",
           {Q: "mq.global_trace"}),
        _p("chinit_trace", "bool", False, "", "Channel initiator trace on.", f"{_RP}, Table 5-3 MQ trace",
           {Q: "mq.chinit_trace"}),
        _p("shared_queue", "bool", False, "", "Queues shared in a coupling facility instead of private queues.",
           f"{_RP}, Table 5-5 Shared queues", {Q: "mq.shared_queue"}),
        _p("initial_depth_msgs", "int", 0, "messages", "Messages already on the queue when the run starts "
           "(a pre-loaded receive queue).", f"{SEED_QREP_2005}, Figure 6", {Q: "run.initial_receive_queue_depth"},
           minimum=0, maximum=1_000_000_000),
    ),
)

CHANNEL = NodeKind(
    "channel",
    "MQ channel",
    "Sender-receiver channel moving messages from the transmit queue to the remote queue manager.",
    ("queue_manager",),
    (
        _p("batchsz", "int", 50, "messages", "Messages between channel syncpoints (the seeds used 200).",
           f"{_RP}, Table 2-3 BATCHSZ", {Q: "mq.batchsz", MOV: "batchsz"}, minimum=1, maximum=9999),
        _p("network_latency_ms", "float", 0.0, "ms", "One-way network delay between the queue managers.",
           f"{_RP}, 2.3 Environment", {Q: "hardware.network_latency_ms", MOV: "network_latency_ms"}, minimum=0,
           maximum=10_000,
           nullable=True, null_meaning="not stated; treated as negligible"),
        _p("network_mbps", "float", 10_000.0, "Mb/s", "Network bandwidth (adds message bits / bandwidth to "
           "the channel's time per message).", f"{SEED_MQ_V8}, Channels",
           {Q: "hardware.network_mbps", MOV: "network_mbps"}, minimum=1, maximum=1_000_000),
        _p("description", "str", "sender-receiver, non-SSL", "", "Channel set-up in words.",
           f"{SEED_MQ_V8}, Channels", {Q: "hardware.network_note", MOV: "channel"}),
        _p("compmsg", "enum", "NONE", "", "Message compression: ZLIBFAST (hardware or software) or ZLIBHIGH.",
           f"{SEED_MQ_V8}, Channel compression", {Q: "mq.compmsg", MOV: "compmsg"}, choices=("NONE", "ZLIBFAST", "ZLIBHIGH")),
        _p("compressibility", "float", 0.5, "", "Share of the message bytes compression removes (an assumption "
           "for row data; measure a sample). Used only with compmsg.", f"{SEED_MQ_V8}, Channel compression",
           {Q: "mq.compressibility", MOV: "compressibility"}, minimum=0, maximum=0.95),
        _p("ssl", "bool", False, "", "TLS on the channel (16 KB segments instead of 32 KB).",
           f"{SEED_MQ_V8}, SSL channels", {Q: "mq.ssl", MOV: "ssl"}),
    ),
)

QAPPLY = NodeKind(
    "qapply",
    "Q Apply",
    "Browses the receive queue and applies transactions in parallel with its agents.",
    ("target_db2",),
    (
        _p("apply_lpar_cps", "int", 3, "CPs", "Processors of the LPAR running Q Apply and the target Db2.",
           f"{_RP}, 2.3 Environment", {Q: "hardware.apply_lpar_cps"}, minimum=1, maximum=200),
        _p("apply_colocated_with_target", "bool", True, "", "Q Apply runs in the target Db2's LPAR.",
           f"{SEED_QREP_2005}, Configurations", {Q: "hardware.apply_colocated_with_target"}),
        _p("num_apply_agents", "int", 16, "agents", "Agents applying transactions in parallel; use the fewest "
           "that hold the workload (the seeds used 6 to keep CPU below 90%).", f"{_RP}, Table 2-2 and 4.2",
           {Q: "qapply.num_apply_agents"}, minimum=1, maximum=128),
        _p("memory_limit_mb", "int", 100, "MB", "Memory buffering transactions from the receive queue (the "
           "seeds used 200 MB).", f"{_RP}, Table 4-6 Q Apply MEMORY_LIMIT", {Q: "qapply.memory_limit_mb"},
           minimum=1, maximum=100_000),
        _p("monitor_interval_ms", "int", 60_000, "ms", "Interval of IBMQREP_APPLYMON rows (the seeds used 10 s).",
           f"{_RP}, Table 2-2", {Q: "qapply.monitor_interval_ms"}, minimum=1000, maximum=86_400_000),
        _p("conflict_action", "enum", "I", "", "On a conflict: I ignore, F force, D disable, Q stop the queue "
           "(the seeds used F).", f"{_RP}, Table 2-2", {Q: "qapply.conflict_action"},
           choices=("I", "F", "D", "Q")),
        _p("maxagents_correlid", "int", 0, "agents", "Agents that may apply transactions of one correlation id "
           "at once; 0 means no limit. Modelled for a closed workload (jobs): parallel agents are at most this "
           "times the jobs; with an offered rate the correlation ids are unknown and it is ignored.",
           f"{_RP}, 4.2 Q Apply agents", {Q: "qapply.maxagents_correlid"}, minimum=0, maximum=128),
        _p("commit_count", "int", 1, "txns", "Source transactions grouped into one target commit (a bigger "
           "target transaction: longer Db2 class 2 elapsed per commit, fewer commits).",
           f"{_RP}, Summary", {Q: "qapply.commit_count"}, minimum=1, maximum=10_000),
    ),
)

TARGET_DB2 = NodeKind(
    "target_db2",
    "Target Db2 subsystem",
    "The Db2 Q Apply changes; its class 2 elapsed time per transaction sets the apply rate.",
    (),
    (
        _p("locking", "enum", "row", "", "Lock size of the target tables; row locking is highly recommended.",
           f"{_RP}, Summary", {Q: "target_db2.locking"}, choices=("row", "page")),
        _p("db2_version", "str", "DB2 9 for z/OS", "", "Db2 release at the target.", f"{_RP}, 2.3 Environment"),
        _p("v8_migration", "bool", False, "", "Model a migration of this Db2 to V8 (CPU change band).",
           f"{SEED_DB2_V8}, CPU"),
        _p("v8_workload_type", "enum", "online", "", "Workload type for the V8 CPU change band.",
           f"{SEED_DB2_V8}, CPU", choices=("online", "batch", "query", "utility", "data_sharing", "drda")),
    ),
)

MIRROR_NODE = NodeKind(
    "db2_mirror_node",
    "Db2 Mirror node",
    "An IBM i partition of a Db2 Mirror pair; the source node runs the application workload.",
    ("roce_link",),
    (
        _p("role", "enum", "source", "", "source runs the workload (both do in active-active); target is its "
           "mirror.", f"{SEED_MIRROR}, 2 Db2 Mirror", choices=("source", "target")),
        _p("cores", "int", 4, "cores", "Processor cores of the node.", f"{SEED_MIRROR}, 7 Case studies",
           {MIR: "hardware.{role}_cores"}, minimum=1, maximum=240, nullable=True,
           null_meaning="not stated; same as the source"),
        _p("memory_gb", "float", 256.0, "GB", "Memory of the node.", f"{SEED_MIRROR}, 7 Case studies",
           {MIR: "hardware.{role}_memory_gb"}, minimum=1, maximum=65_536),
        _p("storage", "enum", "SSD", "", "Storage of the node: SSD/flash or HDD.", f"{SEED_MIRROR}, 7.1",
           {MIR: "hardware.storage"}, choices=("SSD", "HDD")),
        _p("storage_model", "str", "Storwize V7000", "", "Storage subsystem.", f"{SEED_MIRROR}, 7.1",
           {MIR: "hardware.storage_model"}),
        _p("memory_pool", "enum", "*BASE", "", "Pool of the QDBMSRVR replication jobs: *BASE (the default, "
           "apart from the application's pool), the application's own pool (shared; best for active-active, "
           "7.3.6) or a separate pool.", f"{SEED_MIRROR}, 4.2 and 7.3.6", {MIR: "hardware.{role}_memory_pool"},
           choices=("*BASE", "application", "separate")),
        _p("workload_name", "str", "OLTP", "", "Name of the workload.", f"{SEED_MIRROR}, 7 Case studies",
           {MIR: "workload.name"}),
        _p("api", "enum", "native", "", "Database access: native record I/O or SQL.",
           f"{SEED_MIRROR}, 7 Case studies", {MIR: "workload.api"}, choices=("native", "sql")),
        _p("read_pct", "float", 60.0, "%", "Share of database operations that read.",
           f"{SEED_MIRROR}, 7 Case studies", {MIR: "workload.read_pct"}, minimum=0, maximum=100),
        _p("write_pct", "float", 40.0, "%", "Share of database operations that modify (mirrored).",
           f"{SEED_MIRROR}, 7 Case studies", {MIR: "workload.write_pct"}, minimum=0, maximum=100),
        _p("commitment_control", "bool", True, "", "Changes run under commitment control.",
           f"{SEED_MIRROR}, 4 Application design", {MIR: "workload.commitment_control"}),
        _p("reads_for_update", "bool", False, "", "Reads lock rows for update (mirrored locks).",
           f"{SEED_MIRROR}, 4 Application design", {MIR: "workload.reads_for_update"}),
        _p("users", "int", None, "users", "Interactive users driving the workload.",
           f"{SEED_MIRROR}, Case Study #1", {MIR: "workload.users"}, minimum=1, maximum=10_000_000,
           nullable=True, null_meaning="driven by job sets instead"),
        _p("job_sets", "int", None, "job sets", "Batch job sets driving the workload.",
           f"{SEED_MIRROR}, Case Study #2", {MIR: "workload.job_sets"}, minimum=1, maximum=100_000,
           nullable=True, null_meaning="driven by users instead"),
        _p("memory_mb_per_user", "float", 0.5, "MB", "Memory each user needs.", f"{SEED_MIRROR}, Case Study #1",
           {MIR: "workload.memory_mb_per_user"}, minimum=0, maximum=10_000),
        _p("think_time_ms", "float", None, "ms", "Think time between transactions of a user or job.",
           f"{SEED_MIRROR}, 7 Case studies", {MIR: "workload.think_time_ms"}, minimum=0, maximum=3_600_000,
           nullable=True, null_meaning="the fitted think time of the workload profile"),
        _p("shared_storage", "bool", False, "", "Both nodes use one storage subsystem, so mirrored writes "
           "double its load (Case Study #1).", f"{SEED_MIRROR}, 7.1.2", {MIR: "hardware.shared_storage"}),
        _p("workload_style", "enum", "auto", "", "A job stream without users or job sets: interactive or batch "
           "(application CPU and waits per operation differ); auto reads it from the workload name.",
           f"{SEED_MIRROR}, 7.4 Client scenarios", {MIR: "workload.style"}, choices=("auto", "interactive", "batch")),
        _p("opens_for_update_per_txn", "float", 0.0, "opens", "Full opens for update per transaction; each is "
           "mirrored.", f"{SEED_MIRROR}, 6.2 and 6.3", {MIR: "workload.opens_for_update_per_txn"}, minimum=0,
           maximum=1_000_000),
        _p("preload", "bool", False, "", "Objects pre-loaded into this node's memory (SETOBJACC); on the target "
           "it spares mirrored row locks a read.", f"{SEED_MIRROR}, 7.4.2", {MIR: "hardware.{role}_preload"}),
    ),
)

ROCE_LINK = NodeKind(
    "roce_link",
    "RoCE link",
    "RDMA over Converged Ethernet adapters joining the two Db2 Mirror nodes; carries every mirrored write.",
    ("db2_mirror_node",),
    (
        _p("mode", "enum", "active-passive", "", "none (not mirrored), active-passive or active-active.",
           f"{SEED_MIRROR}, 2 Db2 Mirror", {MIR: "mode"}, choices=("none", "active-passive", "active-active")),
        _p("link_gbps", "float", 100.0, "Gb/s", "Bandwidth of the RoCE links together.", f"{SEED_MIRROR}, 2.4 RoCE",
           minimum=1, maximum=10_000),
        _p("distance_km", "float", 0.0, "km", "Distance between the nodes (adds about 5 us per km each way).",
           f"{SEED_MIRROR}, 2.4 RoCE", {MIR: "link.distance_km"}, minimum=0, maximum=200),
        _p("resync_tracked_changes", "int", None, "rows", "Row changes tracked during a suspension, to "
           "estimate the resynchronisation time.", f"{SEED_MIRROR}, 5.4 Tracking and resync",
           {MIR: "resync.tracked_changes"}, minimum=0, maximum=10**13, nullable=True,
           null_meaning="no resynchronisation estimate"),
        _p("resync_parallel_degree", "int", 1, "", "Parallel degree of resynchronisation (QSYS2.CHANGE_MIRROR, "
           "needs Db2 SMP).", f"{SEED_MIRROR}, 5.4.2", {MIR: "resync.parallel_degree"}, minimum=1, maximum=256),
    ),
)

MQ_APPLICATION = NodeKind(
    "mq_application",
    "MQ putting application",
    "An application putting messages to a transmission queue faster than the channel sends them.",
    ("queue_manager",),
    (
        _p("cpu_model", "enum", "zEC12-2827", "", "Processor model.", f"{SEED_MQ_V8}, Test environment",
           {MOV: "cpu_model"}, choices=CPU_MODELS),
        _p("messages", "int", 819_200, "messages", "Messages put.", f"{SEED_MQ_V8}, Buffer pool tests",
           {MOV: "messages"}, minimum=1, maximum=1_000_000_000, nullable=True,
           null_meaning="enough to fill the buffer pool"),
        _p("message_bytes", "int", 2048, "bytes", "Size of each message.", f"{SEED_MQ_V8}, Buffer pool tests",
           {MOV: "message_bytes"}, minimum=1, maximum=104_857_600),
        _p("persistent", "bool", False, "", "Persistent messages.", f"{SEED_MQ_V8}, Buffer pool tests",
           {MOV: "persistent"}),
        _p("msgs_per_put_commit", "int", 200, "messages", "Messages per MQCMIT of the putter.",
           f"{SEED_MQ_V8}, Buffer pool tests", {MOV: "msgs_per_put_commit"}, minimum=1, maximum=100_000),
        _p("sharecnv", "enum", "local", "", "How the application connects: local (bindings), or as a client "
           "over a SVRCONN channel with SHARECNV 0, 1 or 10. Sets the queue manager storage and the CSA per "
           "connection only; the mover's rates are those of a local putter.",
           f"{SEED_MQ_V8}, How much storage does a connection use?", {MOV: "sharecnv"},
           choices=("local", "0", "1", "10")),
    ),
)

DB2_V8_MIGRATION = NodeKind(
    "db2_v8_migration",
    "DB2 V7 to V8 migration",
    "A DB2 V7 subsystem's DBM1 storage below the 2 GB bar, to estimate what V8 moves above it.",
    (),
    tuple(
        _p(name, "float", 0.0, "MB", f"V7 DBM1 {text} below the bar.", f"{SEED_DB2_V8}, DBM1 storage",
           {V8: f"v7_measured_mb.{name}"}, minimum=0, maximum=2048)
        for name, text in (
            ("virtual_pool", "virtual buffer pools"),
            ("buffer_control_block", "buffer control blocks"),
            ("dataspace_lookaside_buffer", "data space lookaside buffers"),
            ("castout_buffer", "castout buffers"),
            ("edm_pool", "EDM pool"),
            ("compression_dictionary", "compression dictionaries"),
            ("system_agents", "system agent storage"),
            ("user_threads", "user thread storage"),
            ("rds_op_pool", "RDS OP pool"),
            ("rid_pool", "RID pool"),
            ("dsc_control_block", "dynamic statement cache control blocks"),
            ("trace_table", "trace tables"),
            ("stack_storage", "stack storage"),
            ("total", "total"),
        )
    )
    + (
        _p("system_agents_count", "int", 0, "agents", "System agents in V7.", f"{SEED_DB2_V8}, DBM1 storage",
           {V8: "v7_measured_mb.system_agents_count"}, minimum=0, maximum=100_000),
        _p("user_threads_count", "int", 0, "threads", "User threads in V7.", f"{SEED_DB2_V8}, DBM1 storage",
           {V8: "v7_measured_mb.user_threads_count"}, minimum=0, maximum=100_000),
        _p("workload_type", "enum", "online", "", "Workload type for the V7 to V8 CPU change band.",
           f"{SEED_DB2_V8}, CPU", {V8: "workload_type"},
           choices=("online", "online_data_sharing", "batch", "batch_data_sharing", "drda", "utility", "query",
                    "data_sharing")),
        _p("v7_db2_cpu_ms_per_txn", "float", None, "ms", "Db2 class 2 CPU per transaction in V7, to put the V8 "
           "CPU change band on.", f"{SEED_DB2_V8}, CPU", {V8: "v7_db2_cpu_ms_per_txn"}, minimum=0,
           maximum=1_000_000, nullable=True, null_meaning="no CPU band"),
        _p("catalog_gb", "float", None, "GB", "GB of SPT01, SYSPKAGE, SYSDBASE and the other large catalog and "
           "directory table spaces, for the catalog migration time to new-function mode.",
           f"{SEED_DB2_V8}, Catalog migration", {V8: "catalog_gb"}, minimum=0, maximum=1_000_000, nullable=True,
           null_meaning="no catalog migration estimate"),
        _p("extended_region_mb", "float", None, "MB", "DBM1 EXTENDED REGION SIZE (MAX) of the statistics "
           "report: the storage below the bar DBM1 may use once MVS and the extended CSA have taken theirs; "
           "the headroom is measured against it.", f"{SEED_DB2_V8}, Virtual Storage-Related Tuning - continued",
           {V8: "extended_region_mb"}, minimum=1, maximum=2048, nullable=True,
           null_meaning="the whole 2 GB below the bar, 2048 MB"),
    ),
)

KINDS: dict[str, NodeKind] = {
    k.id: k
    for k in (
        SOURCE_DB2,
        QCAPTURE,
        QUEUE_MANAGER,
        CHANNEL,
        QAPPLY,
        TARGET_DB2,
        MIRROR_NODE,
        ROCE_LINK,
        MQ_APPLICATION,
        DB2_V8_MIGRATION,
    )
}
