"""Write the sample projects of ``sample_runs/`` from the templates and the seeds' published settings.

Run ``python sample_runs/build.py`` to regenerate them. Each sample is the
configuration one seed describes (settings only: no measured value appears).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's engine, installed or not

from engine import projectfile, templates  # noqa: E402
from engine.model import Project  # noqa: E402
from engine.topology import FLOW_KINDS, RECEIVE_QM, flows  # noqa: E402

HERE = Path(__file__).resolve().parent

#: 000_b67a63c5fea2a7a6.txt, Table 2-1: the Q Capture settings of the Redpaper study that seed 001 does not
#: publish; the 2005 study's samples use them too.
REDPAPER_CAPTURE = dict(
    sleep_interval_ms=50,
    monitor_interval_ms=10_000,
    max_message_size_kb=10_240,
    changed_cols_only=False,
)
#: 000_b67a63c5fea2a7a6.txt, Table 2-3: the queue manager settings of the Redpaper study that seed 001 does not
#: publish; the 2005 study's samples use them too.
REDPAPER_QUEUE_MANAGER = dict(
    buffpool_pages=240_000,
    maxshortmsgs=-1,
    maxmsgl=20_971_520,
    security=False,
    logload=16_000_000,
)

#: 000_b67a63c5fea2a7a6.txt, Tables 2-1 (Q Capture), 2-2 (Q Apply), 2-3 (MQ) and 2.5 (workload, table)
REDPAPER = {
    "source_db2": dict(
        cpu_model="z196-2817-778",
        source_lpar_cps=3,
        platform="z/OS V1R11",
        db2_version="DB2 9 for z/OS",
        columns={"INTEGER": 10, "CHAR(20)": 10, "DATE": 5, "DECIMAL(20,0)": 5},
        row_bytes=315,
        unique_indexes=1,
        index_column_type="INTEGER",
        rows_per_txn=5,
        inserts_per_txn=1,
        updates_per_txn=3,
        deletes_per_txn=1,
        columns_changed_per_update=1,
        offered_rows_per_s=None,
    ),
    "qcapture": dict(
        capture_lpar_cps=3,
        memory_limit_mb=500,
        commit_interval_ms=500,
        trans_batch_sz=3,
        msg_persistence=True,
        **REDPAPER_CAPTURE,
    ),
    "queue_manager": dict(mq_version="WebSphere MQ V7.0.1", read_ahead=True, **REDPAPER_QUEUE_MANAGER),
    "channel": dict(
        batchsz=200,
        network_latency_ms=0.0,
        description="source and target LPARs in one sysplex, single MQ channel",
    ),
    "qapply": dict(
        apply_lpar_cps=3,
        num_apply_agents=6,
        memory_limit_mb=200,
        monitor_interval_ms=10_000,
        conflict_action="F",
    ),
    "target_db2": dict(locking="row"),
}

#: 001_538a2843961b4ba9.txt, configurations: z900 2064-216 LPARs of four 200-MIPS processors, 10-row insert
#: transactions of a 14-column, 212-byte table, eight jobs with 9 ms think time.
DW2005 = {
    "source_db2": dict(
        cpu_model="z900-2064-216",
        mips_per_cp=200.0,
        source_lpar_cps=4,
        platform="z/OS",
        db2_version="DB2 for z/OS V7",
        columns={"unspecified": 14},
        row_bytes=212,
        unique_indexes=1,
        rows_per_txn=10,
        inserts_per_txn=10,
        updates_per_txn=0,
        deletes_per_txn=0,
        columns_changed_per_update=0,
        jobs=8,
        think_time_ms=9.0,
    ),
    "qcapture": dict(
        capture_lpar_cps=4,
        capture_colocated_with_source=True,
        qrep_version="WebSphere II 8.2 Q replication",
        trans_batch_sz=1,
        **REDPAPER_CAPTURE,
    ),
    "queue_manager": dict(mq_version="WebSphere MQ 5.3.1", **REDPAPER_QUEUE_MANAGER),
    "channel": dict(
        batchsz=200, network_latency_ms=None, description="1 Gb OSA Ethernet between two LPARs of one machine"
    ),
    "qapply": dict(apply_lpar_cps=4, num_apply_agents=16, memory_limit_mb=200, conflict_action="F"),
    "target_db2": dict(locking="row", db2_version="DB2 for z/OS V7"),
}

#: 002_4094ace59eb76d2a.txt, Case Study #2, third scenario: 25-core source, 11-core target, 964 GB each, SQL OLTP,
#: 92 job sets (the configuration that brought throughput and CPU back to the baseline's).
MIRROR_CS2 = {
    "source": dict(
        cores=25,
        memory_gb=964.0,
        memory_pool="*BASE",
        workload_name="SQL OLTP, 23 stored-procedure transactions (10 modify)",
        api="sql",
        commitment_control=True,
        job_sets=92,
        users=None,
    ),
    "target": dict(cores=11, memory_gb=964.0, memory_pool="*BASE"),
}

#: 003_ae22eb27d25a695a.txt, buffer pool configuration 1: 819,200 2 KB non-persistent messages, 200 per commit,
#: a 200,000-buffer pool, BATCHSZ 200.
MQ_MOVER = {
    "mq_application": dict(
        cpu_model="zEC12-2827",
        messages=819_200,
        message_bytes=2048,
        persistent=False,
        msgs_per_put_commit=200,
    ),
    "queue_manager": dict(buffpool_pages=200_000, pageclas="4KB", maxshortmsgs=-1),
    "channel": dict(batchsz=200, description="sender-receiver, non-SSL, 10Gb network"),
}


#: 004_ffcf34fd6a8d592a.txt, "Customer 1 (Europe 1/05)" V7 DBM1 below-2GB storage (MB) and the catalog
#: migration example (10 GB of SPT01, SYSPKAGE, SYSDBASE).
DB2_V8 = {
    "db2_v8_migration": dict(
        virtual_pool=0.0,
        buffer_control_block=78.0,
        dataspace_lookaside_buffer=5.0,
        castout_buffer=38.0,
        edm_pool=118.0,
        compression_dictionary=340.0,
        system_agents=73.0,
        system_agents_count=1170,
        user_threads=18.0,
        user_threads_count=25,
        rds_op_pool=29.0,
        rid_pool=92.0,
        dsc_control_block=53.0,
        trace_table=15.0,
        stack_storage=49.0,
        total=908.0,
        workload_type="online",
        catalog_gb=10.0,
    ),
}


#: Journey 11: the Redpaper baseline with Q Apply, the target Db2 (and in bindings mode the receiving queue
#: manager) moved to a Linux x86-64 server of 8 cores at 2.9 GHz in the same data centre (0.5 ms round trip).
#: An example configuration, not a measured one: the seeds publish no Linux measurement.
LINUX_TARGET = {
    "qapply": dict(os_platform="Linux x86-64", apply_lpar_cps=8, core_ghz=2.9),
    "target_db2": dict(os_platform="Linux x86-64", db2_version="Db2 11.5 for Linux, UNIX and Windows"),
}
LINUX_RECEIVE_QM = dict(os_platform="Linux x86-64", mq_version="IBM MQ 9.3 for Linux", logbufferpages=0)
#: Bindings: a sender-receiver channel from the z/OS queue manager to the Linux one (0.25 ms each way).
LINUX_CHANNEL = dict(network_latency_ms=0.25, description="z/OS sysplex to a Linux server, same data centre")
#: Client: Q Apply connects over SVRCONN to the z/OS receiving queue manager (0.5 ms round trip).
LINUX_CLIENT = dict(mq_connection="client", client_rtt_us=500.0, sharecnv=10)

#: 001_538a2843961b4ba9.txt, AIX configuration: two LPARs of an IBM pSeries p690 with 8 processors each, 10/100
#: Mbit Ethernet, AIX 5.2, MQ 5.3, DB2 V8.2, SSA disk with fast write cache; the workload of the z/OS study.
#: Assumed where the seed is silent: POWER4+ cores at 1.7 GHz (the p690 clock of 2004), an SSA log disk of 40 MB/s and
#: 0.5 ms per cached write.
AIX_2005 = {
    "source_db2": dict(
        os_platform="AIX", core_ghz=1.7, source_lpar_cps=8, platform="AIX 5.2", db2_version="DB2 V8.2"
    ),
    "qcapture": dict(os_platform="AIX", core_ghz=1.7, capture_lpar_cps=8),
    "queue_manager": dict(
        os_platform="AIX", mq_version="WebSphere MQ 5.3", log_disk_mb_per_s=40.0, log_write_us=500.0
    ),
    "channel": dict(network_mbps=100.0, description="10/100 Mbit Ethernet between two p690 LPARs"),
    "qapply": dict(os_platform="AIX", core_ghz=1.7, apply_lpar_cps=8),
    "target_db2": dict(os_platform="AIX", db2_version="DB2 V8.2"),
}


def on_receive_side(project: Project, params: dict) -> Project:
    """Set ``params`` on the receiving queue manager of the project's first flow."""
    node = flows(project, limit=1)[0][RECEIVE_QM]
    assert node.kind == FLOW_KINDS[RECEIVE_QM]
    for name, value in params.items():
        project = project.with_param(node.id, name, value)
    return project


def zos_to_linux(name: str, client: bool) -> Project:
    """Journey 11's project: the Redpaper baseline with its target on Linux, bindings or client apply."""
    project = configure(templates.unidirectional(name), REDPAPER, LINUX_TARGET)
    if client:
        return configure(project, {"qapply": LINUX_CLIENT})
    return on_receive_side(configure(project, {"channel": LINUX_CHANNEL}), LINUX_RECEIVE_QM)


def zos_to_linux_reading_the_send_queue(name: str) -> Project:
    """Journey 11's client project without the channel: Q Apply on Linux reads the send queue on the z/OS queue manager."""
    project = configure(templates.client_reads_send_queue(name), REDPAPER, LINUX_TARGET)
    return configure(project, {"qapply": LINUX_CLIENT})


#: Topologies of issue 14 (part 2) built on the seeds' configurations: the settings added to each.
#: A shared capture and receive queue in a CF list structure (seed 003's CFLEVEL(5) with SMDS, MQ's
#: default OFFLD tiers); the Redpaper table with a 4,685-byte VARCHAR added (5,000-byte rows), so
#: TRANS_BATCH_SZ 3 gives ~76 KB messages (over 63 KB: always offloaded).
QSG = {
    "source_db2": dict(
        columns={"INTEGER": 10, "CHAR(20)": 10, "DATE": 5, "DECIMAL(20,0)": 5, "VARCHAR(4685)": 1},
        row_bytes=5000,
    ),
    "queue_manager": dict(shared_queue=True, cf_structure_size_mb=512, offload="SMDS", cf_cps=2),
}
#: The 2005 study's tables spread evenly over four replication queue maps, driven to the maximum.
FOUR_QUEUE_MAPS = {
    "source_db2": dict(jobs=None, think_time_ms=None, offered_rows_per_s=None),
    "qcapture": dict(queue_maps=4),
}
#: The 2005 study's workload at 3,000 rows/s (a rate the seed calls low) with SQL Replication beside it.
SQL_VS_Q = {
    "source_db2": dict(jobs=None, think_time_ms=None, offered_rows_per_s=3000.0),
    "qapply": dict(compare_sql_replication=True, sleep_minutes=0.0),
}


def configure(project: Project, *layers: dict) -> Project:
    """Set every node of each kind in each layer (node kind -> parameters) to its parameters, layer by layer."""
    for by_kind in layers:
        for node in project.nodes:
            for name, value in by_kind.get(node.kind, {}).items():
                project = project.with_param(node.id, name, value)
    return project


#: The flows a study's samples come in: the file and project name's suffix, and the template.
TOPOLOGIES = {
    "unidirectional": templates.unidirectional,
    "bidirectional": templates.bidirectional,
    "peer-to-peer": templates.peer_to_peer,
}


def each_topology(file_prefix: str, name: str, settings: dict, skip: tuple = ()) -> dict[str, Project]:
    """A study's sample in each topology of :data:`TOPOLOGIES` not in ``skip``.

    Returns ``{file_prefix}-{topology}.json`` -> the template's project named ``{name}, {topology}``
    with ``settings`` (node kind -> parameters).
    """
    return {
        f"{file_prefix}-{topology}.json": configure(template(f"{name}, {topology}"), settings)
        for topology, template in TOPOLOGIES.items()
        if topology not in skip
    }


def mirror(mode: str, name: str) -> Project:
    project = templates.db2_mirror_pair(name, mode)
    for node in project.nodes_of("db2_mirror_node"):
        for k, v in MIRROR_CS2[node.params["role"]].items():
            project = project.with_param(node.id, k, v)
    return project


def samples() -> dict[str, Project]:
    """Every sample project by file name."""
    return {
        "redpaper-baseline.json": configure(
            templates.unidirectional("Redpaper baseline (z196, Tables 2-1..2-3)"), REDPAPER
        ),
        **each_topology("redpaper", "Redpaper baseline", REDPAPER, skip=("unidirectional",)),
        **each_topology("dw2005-zos", "2005 z/OS study", DW2005),
        "zos-to-linux-bindings.json": zos_to_linux("z/OS to Linux, Q Apply in bindings mode", client=False),
        "zos-to-linux-client.json": zos_to_linux("z/OS to Linux, Q Apply as an MQ client", client=True),
        "zos-to-linux-client-send-queue.json": zos_to_linux_reading_the_send_queue(
            "z/OS to Linux, Q Apply as an MQ client reading the send queue"
        ),
        "aix-unidirectional.json": configure(
            templates.unidirectional("2005 AIX study, unidirectional"), DW2005, AIX_2005
        ),
        "mirror-active-passive.json": mirror("active-passive", "Db2 Mirror Case Study #2, active-passive"),
        "mirror-active-active.json": mirror(
            "active-active", "Db2 Mirror Case Study #2 configuration, active-active"
        ),
        "mq-buffer-pool-mover.json": configure(
            templates.mq_mover("MQ V8 buffer pool mover, 200,000 buffers"), MQ_MOVER
        ),
        "db2-v8-migration.json": configure(
            templates.db2_v8_migration("DB2 V8 migration, customer 1 DBM1 storage"), DB2_V8
        ),
        "qsg-shared-capture-queue.json": configure(
            templates.unidirectional("Redpaper baseline, shared queues in a CF structure"), REDPAPER, QSG
        ),
        "four-queue-maps.json": configure(
            templates.unidirectional("2005 z/OS study over four queue maps"), DW2005, FOUR_QUEUE_MAPS
        ),
        "sql-replication-vs-q.json": configure(
            templates.unidirectional("2005 z/OS study: Q against SQL Replication"), DW2005, SQL_VS_Q
        ),
    }


def main() -> None:
    for filename, project in samples().items():
        projectfile.save(project, HERE / filename)
        print(f"wrote sample_runs/{filename}")


if __name__ == "__main__":
    main()
