"""A project from the user's own Q Replication control tables (``qrtune import-config``).

The configuration of a running system is in its control tables: IBMQREP_CAPPARMS (Q Capture's
COMMIT_INTERVAL, MEMORY_LIMIT, SLEEP_INTERVAL, MONITOR_INTERVAL, TRANS_BATCH_SZ ...),
IBMQREP_APPLYPARMS (Q Apply's), IBMQREP_SENDQUEUES and IBMQREP_RECVQUEUES (one row per queue map:
its send and receive queue, MAX_MESSAGE_SIZE, NUM_PARALLEL_SENDQS, NUM_APPLY_AGENTS, MEMORY_LIMIT,
MAXAGENTS_CORRELID) and IBMQREP_SUBS / IBMQREP_TARGETS (which tables go through which queue
map). Each file is an export of one table in any form the monitor import reads (header CSV,
``EXPORT ... OF DEL``, z/OS UNLOAD DELIMITED, CLP output), of any release
(:mod:`engine.monitor.layouts`; a headerless file by its column count and cell types).

The project has one flow per queue map (Db2 source -> Q Capture -> queue managers and channel ->
Q Apply -> Db2 target), each node's parameters set from the columns IBM names as the parameter
(MEMORY_LIMIT of IBMQREP_CAPPARMS on Q Capture, of IBMQREP_RECVQUEUES on Q Apply). What the
tables do not hold (the machines, disks and network; the workload: rate, rows per transaction,
row size) keeps the product's defaults and is listed in :attr:`ImportedConfig.not_known` and the
project's description for the user to fill in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from engine import templates
from engine.model import Project, build_project
from engine.monitor.formats import column_name, read_raw
from engine.monitor.layouts import TableSpec, match_layout, parameter_layout, table_layouts
from engine.monitor.values import is_null, to_float
from engine.registry.kinds import KINDS
from engine.store.errors import MonitorImportError

CONFIG_TABLES = (
    "IBMQREP_CAPPARMS",
    "IBMQREP_APPLYPARMS",
    "IBMQREP_SENDQUEUES",
    "IBMQREP_RECVQUEUES",
    "IBMQREP_SUBS",
    "IBMQREP_TARGETS",
)
"""The control tables ``qrtune import-config`` reads (the first four are required)."""
REQUIRED = CONFIG_TABLES[:4]
MAX_ROWS = 100_000
"""Rows read from one control table (a system has one row per queue map or subscription)."""
NOT_KNOWN = (
    "the machines (CPU model, cores, disks, network between the sites)",
    "the workload (OFFERED_ROWS_PER_S, rows per transaction, row size, columns, indexes)",
    "the queue managers' buffer pools, logs and channels",
)
"""What the control tables do not hold: the project keeps the product's defaults for these."""
_KEY_COLUMNS = {
    "IBMQREP_CAPPARMS": {"RESTARTQ", "COMMIT_INTERVAL"},
    "IBMQREP_APPLYPARMS": {"APPLY_PATH", "PWDFILE"},
    "IBMQREP_SENDQUEUES": {"PUBQMAPNAME"},
    "IBMQREP_RECVQUEUES": {"REPQMAPNAME"},
    "IBMQREP_SUBS": {"SUBNAME", "SENDQ"},
    "IBMQREP_TARGETS": {"SUBNAME", "RECVQ"},
}
"""Header columns that tell a table from the others."""


@dataclass(frozen=True)
class ControlTable:
    """One exported control table: its rows as column -> text (None for NULL)."""

    name: str
    path: str
    rows: tuple


def _known_columns() -> frozenset:
    return frozenset(c for t in CONFIG_TABLES for lay in table_layouts(t) for c in lay.names) - {"QMGR"}


def _table_from_name(path: str) -> str | None:
    stem = Path(path).name.upper().replace("IBMQREP_", "")
    found = [t for t in CONFIG_TABLES if t.removeprefix("IBMQREP_") in stem]
    return max(found, key=len) if found else None  # SENDQUEUES, not SUBS, in SUBS_SENDQUEUES? the longest


def _table_from_header(header: tuple) -> str | None:
    found = [t for t, keys in _KEY_COLUMNS.items() if keys <= set(header)]
    return found[0] if len(found) == 1 else None


def read_control_table(
    path: str | Path, *, release: str | None = None, platform: str | None = None
) -> ControlTable:
    """The rows of one exported control table.

    Raises
    ------
    MonitorImportError
        Unreadable, not one of :data:`CONFIG_TABLES`, or columns that match no layout.
    """
    path = str(path)
    raw = read_raw(path, _known_columns())
    name = _table_from_name(path) or (_table_from_header(raw.header) if raw.header else None)
    if raw.header is not None:
        names = raw.header
        if name is None:
            raise MonitorImportError(
                f"{path}:1: cannot tell which control table this is; name the file after it"
            )
    elif raw.first is None:
        raise MonitorImportError(f"{path}:1: no rows and no header line")
    else:
        where = f"{path}:{raw.first[0]}"
        if name in ("IBMQREP_CAPPARMS", "IBMQREP_APPLYPARMS"):
            names = parameter_layout(TableSpec(name, None, ()), len(raw.first[1]), release, where)
        else:
            tables = (name,) if name else CONFIG_TABLES[2:]
            found, names, _ = match_layout(
                tables, raw.sample(20), release=release, platform=platform, where=where
            )
            name = str(found)
    out = []
    for line, fields in islice(raw.rows(), MAX_ROWS):
        if len(fields) != len(names):
            raise MonitorImportError(
                f"{path}:{line}: {len(fields)} fields but {name} has {len(names)} columns"
            )
        out.append({column_name(n): (None if is_null(v) else v) for n, v in zip(names, fields)})
    return ControlTable(str(name), path, tuple(out))


def _value(spec, text: str | None, where: str):
    """A control table's cell as the value of parameter ``spec`` (numbers, Y/N flags, choices)."""
    if text is None:
        return None
    if spec.type == "bool":
        if text.upper() not in ("Y", "N"):
            raise MonitorImportError(f"{where}: {spec.label} {text!r} is not Y or N")
        return text.upper() == "Y"
    if spec.type in ("int", "float"):
        number = to_float(text)
        if number is None:
            raise MonitorImportError(f"{where}: {spec.label} {text[:40]!r} is not a number")
        return int(number) if spec.type == "int" else number
    if spec.type == "enum" and spec.choices and text not in spec.choices:
        return None  # a value the model has no choice for keeps the default
    return text if spec.type in ("enum", "str") else None


def _params_from(kind: str, row: dict, where: str, skip: Sequence[str] = ()) -> dict:
    """The parameters of a node of ``kind`` that ``row`` holds under their IBM names."""
    out = {}
    for spec in KINDS[kind].params:
        if spec.label in row and spec.label not in skip:
            value = _value(spec, row[spec.label], where)
            if value is not None:
                out[spec.name] = value
    return out


@dataclass(frozen=True)
class QueueMap:
    """One queue map: its send queue row, its receive queue row (either may be missing) and its tables."""

    name: str
    send: dict | None
    receive: dict | None
    subscriptions: int


def queue_maps(tables: dict[str, ControlTable]) -> list[QueueMap]:
    """The queue maps of IBMQREP_SENDQUEUES and IBMQREP_RECVQUEUES, paired by their receive queue."""
    sends = list(tables["IBMQREP_SENDQUEUES"].rows)
    receives = {r.get("RECVQ"): r for r in tables["IBMQREP_RECVQUEUES"].rows}
    subs = tables.get("IBMQREP_SUBS")
    per_sendq: dict[str, int] = {}
    for row in subs.rows if subs else ():
        per_sendq[row.get("SENDQ")] = per_sendq.get(row.get("SENDQ"), 0) + 1
    out = []
    for send in sends:
        receive = receives.pop(send.get("RECVQ"), None)
        out.append(
            QueueMap(
                send.get("PUBQMAPNAME") or send.get("SENDQ"),
                send,
                receive,
                per_sendq.get(send.get("SENDQ"), 0),
            )
        )
    out += [QueueMap(r.get("REPQMAPNAME") or r.get("RECVQ"), None, r, 0) for r in receives.values()]
    return out


@dataclass(frozen=True)
class ImportedConfig:
    """The project built from the control tables and what it could not know."""

    project: Project
    queue_maps: tuple
    not_known: tuple


def _flow_params(qmap: QueueMap, tables: dict) -> dict:
    """Node kind -> the parameters this queue map's flow takes from the tables."""
    cap = tables["IBMQREP_CAPPARMS"]
    app = tables["IBMQREP_APPLYPARMS"]
    qcapture = _params_from("qcapture", cap.rows[0], f"{cap.path}:1") if cap.rows else {}
    qapply = _params_from("qapply", app.rows[0], f"{app.path}:1", skip=("MEMORY_LIMIT",)) if app.rows else {}
    if qmap.send:
        where = f"{tables['IBMQREP_SENDQUEUES'].path}: queue map {qmap.name}"
        qcapture |= _params_from("qcapture", qmap.send, where, skip=("MEMORY_LIMIT",))
    if qmap.receive:
        qapply |= _params_from(
            "qapply", qmap.receive, f"{tables['IBMQREP_RECVQUEUES'].path}: queue map {qmap.name}"
        )
    qcapture["queue_maps"] = 1
    return {"qcapture": qcapture, "qapply": qapply}


def project_from_tables(tables: dict[str, ControlTable], name: str) -> ImportedConfig:
    """One flow per queue map, each node's parameters from the control tables.

    Raises
    ------
    MonitorImportError
        A required table is missing or has no row, or a cell is not a value of its parameter.
    """
    missing = [t for t in REQUIRED if t not in tables]
    if missing:
        raise MonitorImportError(f"the control tables lack {', '.join(missing)} (give an export of each)")
    maps = queue_maps(tables)
    if not maps:
        raise MonitorImportError(
            f"{tables['IBMQREP_SENDQUEUES'].path}: no queue map in IBMQREP_SENDQUEUES or IBMQREP_RECVQUEUES"
        )
    nodes, links = [], []
    for k, qmap in enumerate(maps):
        flow_nodes, flow_links = templates.flow_nodes(f"qm{k + 1}", "A", "B", k, False)
        params = _flow_params(qmap, tables)
        for node in flow_nodes:
            node["params"] = params.get(node["kind"], {})
            node["label"] = f"{node['label']} [{qmap.name}]"
        nodes += flow_nodes
        links += flow_links
    description = (
        f"From the control tables ({', '.join(sorted(Path(t.path).name for t in tables.values()))}): "
        f"{len(maps)} queue map(s): "
        + "; ".join(f"{m.name} ({m.subscriptions} subscription(s))" for m in maps)
        + ". Not in the control tables, still the defaults, to fill in: "
        + "; ".join(NOT_KNOWN)
        + "."
    )
    project = build_project(
        {
            "name": name,
            "topology": "unidirectional",
            "description": description,
            "nodes": nodes,
            "links": [{"id": f"link-{i + 1}", "source": a, "target": b} for i, (a, b) in enumerate(links)],
        }
    )
    return ImportedConfig(project, tuple(maps), NOT_KNOWN)


def import_config(
    paths: Sequence[str | Path], name: str = "", *, release: str | None = None, platform: str | None = None
) -> ImportedConfig:
    """Read the exported control tables and build the project (:func:`project_from_tables`).

    Raises
    ------
    MonitorImportError
        A file cannot be read or is not a control table, two files hold one table, or a table is missing.
    """
    tables: dict[str, ControlTable] = {}
    for p in paths:
        table = read_control_table(p, release=release, platform=platform)
        if table.name in tables:
            raise MonitorImportError(
                f"{p}: a second export of {table.name} (the first is {tables[table.name].path})"
            )
        tables[table.name] = table
    return project_from_tables(tables, name or _default_name(tables))


def _default_name(tables: dict[str, ControlTable]) -> str:
    """``Q Replication QM1 -> QM2`` from the queue managers of IBMQREP_CAPPARMS and IBMQREP_APPLYPARMS."""
    qmgrs = [
        (tables[t].rows[0].get("QMGR") if tables.get(t) and tables[t].rows else None) for t in REQUIRED[:2]
    ]
    return "Q Replication " + " -> ".join(q or "?" for q in qmgrs)
