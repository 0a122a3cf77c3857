"""The Q Replication control tables qrtune reads, release by release: their columns, order and types.

A file with a header line names its columns. A Db2 ``EXPORT ... OF DEL``, ``db2 -x`` output or a
z/OS ``UNLOAD ... DELIMITED`` file does not: its columns are in the table's column order, which is
the ``CREATE TABLE`` order plus the columns each later release's migration script appended
(``ALTER TABLE ... ADD``). Those are kept in one data file,
``assets/layouts/qrep_control_tables.json``, each column with its type, the release that added it
and the IBM script it comes from (IBM's public migration scripts, ``repl/mig*/q/*.sql`` of
github.com/IBM/db2-samples). Types change too: the log sequence columns go from
``CHAR(10) FOR BIT DATA`` to ``VARCHAR(16) FOR BIT DATA`` at 9.7 Fix Pack 3 and counters become
``BIGINT`` in 11.5's fix packs; the z/OS migration of 9.7 adds two IBMQREP_APPLYMON columns in
another order than Linux, UNIX and Windows.

A headerless file is matched to the layouts with as many columns as it has fields whose types its
cells fit (:func:`match_layout`), or to the release named with ``--release``; several releases
share one column order (a release that changed only types, or another table), and a table whose
columns differ from every documented layout is reported with the counts each release has.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

from engine.io.packagedata import asset_path
from engine.monitor.values import is_null, parse_timestamp, to_float
from engine.store.errors import MonitorImportError

DATA_FILE = ("layouts", "qrep_control_tables.json")
"""The data file of every release's layout, below ``assets/``."""
SOURCE_REPOSITORY = "github.com/IBM/db2-samples"
"""Where the migration scripts named in the data file are published."""
PLATFORMS = ("luw", "zos")
"""Linux, UNIX and Windows; z/OS."""
_NUMERIC_TYPES = ("INTEGER", "INT", "SMALLINT", "BIGINT", "DECIMAL", "DOUBLE")


@dataclass(frozen=True)
class Column:
    """One column of a control table at one release.

    Attributes
    ----------
    name : str
        As IBM spells it.
    type : str
        Db2 type at that release (``INTEGER``, ``TIMESTAMP``, ``VARCHAR(16) FOR BIT DATA`` ...).
    added : str
        Release whose script added the column.
    source : str
        The script it comes from.
    """

    name: str
    type: str
    added: str
    source: str

    @property
    def kind(self) -> str:
        """``time``, ``number``, ``bit`` (FOR BIT DATA) or ``text``."""
        if self.type == "TIMESTAMP":
            return "time"
        if self.type.split("(")[0] in _NUMERIC_TYPES:
            return "number"
        return "bit" if "FOR BIT DATA" in self.type else "text"


@dataclass(frozen=True)
class Layout:
    """A table's column order shared by one or more releases on one platform.

    Attributes
    ----------
    table : str
    platform : str
        ``luw`` or ``zos``.
    releases : tuple[str, ...]
        The releases with this column order (oldest first).
    columns : tuple[Column, ...]
        The columns at the newest of ``releases`` (types as that release has them).
    """

    table: str
    platform: str
    releases: tuple
    columns: tuple

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def label(self) -> str:
        """The releases as a user reads them: ``9.7 FP3 .. 10.1 FP`` (with ``z/OS`` when it is z/OS's)."""
        span = self.releases[0] if len(self.releases) == 1 else f"{self.releases[0]} .. {self.releases[-1]}"
        return span + (" z/OS" if self.platform == "zos" else "")


@cache
def _data() -> dict:
    return json.loads(asset_path(*DATA_FILE).read_text(encoding="utf-8"))


def release_names() -> tuple[str, ...]:
    """Every documented release, oldest first (``8.2`` .. ``11.5 FP``)."""
    return tuple(r["name"] for r in _data()["releases"])


def _release_key(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.strip().upper()).replace("FIXPACK", "FP")


def canonical_release(text: str) -> str:
    """The documented release ``text`` names (``11.5``, ``9.7.3`` = ``9.7 FP3``, ``10.2.1fp``).

    Raises
    ------
    MonitorImportError
        ``text`` names no documented release (the message lists them).
    """
    key = _release_key(text)
    for r in _data()["releases"]:
        if key in {_release_key(r["name"]), *map(_release_key, r["aliases"])}:
            return r["name"]
    raise MonitorImportError(
        f"--release {text!r} is not a documented release; use one of {', '.join(release_names())}"
    )


def table_names() -> tuple[str, ...]:
    """Every table the data file describes."""
    return tuple(_data()["tables"])


def source_of(key: str) -> str:
    """The script a data-file source key names, as a path in :data:`SOURCE_REPOSITORY` (or its description)."""
    return _data()["sources"][key]


def _ordered(added: list, table: dict, release: str, platform: str) -> list:
    """One release's added columns, in z/OS's order where the z/OS script differs."""
    if platform != "zos":
        return added
    for entry in table.get("zos_order", ()):
        if entry["release"] == release:
            by_name = {c[0]: c for c in added}
            return [by_name[n] for n in entry["columns"]]
    return added


@cache
def columns_at(table_name: str, release: str, platform: str = "luw") -> tuple[Column, ...]:
    """The columns of ``table_name`` at ``release`` on ``platform``, in table order, with their types then.

    Raises
    ------
    KeyError
        Unknown table or release.
    """
    table = _data()["tables"][table_name]
    order = release_names()
    upto = order.index(release)
    columns: dict[str, Column] = {}
    for entry in table["added"]:
        if order.index(entry["release"]) <= upto:
            for name, typ in _ordered(entry["columns"], table, entry["release"], platform):
                columns[name] = Column(name, typ, entry["release"], source_of(entry["source"]))
    for entry in table.get("retyped", ()):
        if order.index(entry["release"]) <= upto:
            for name, typ in entry["columns"]:
                columns[name] = Column(name, typ, columns[name].added, source_of(entry["source"]))
    return tuple(columns.values())


def _first_release(table_name: str) -> str:
    return _data()["tables"][table_name]["added"][0]["release"]


@cache
def table_layouts(table_name: str, platform: str = "luw") -> tuple[Layout, ...]:
    """The distinct column orders of ``table_name`` on ``platform``, oldest first, each with its releases."""
    order = release_names()
    out: list[Layout] = []
    for release in order[order.index(_first_release(table_name)) :]:
        columns = columns_at(table_name, release, platform)
        names = tuple(c.name for c in columns)
        if out and out[-1].names == names:
            out[-1] = Layout(table_name, platform, (*out[-1].releases, release), columns)
        else:
            out.append(Layout(table_name, platform, (release,), columns))
    return tuple(out)


def bounds(table_name: str) -> dict[str, tuple[float, float]]:
    """Columns with documented value ranges (Q_PERCENT_FULL 0 .. 100)."""
    return {k: tuple(v) for k, v in _data()["tables"][table_name].get("bounds", {}).items()}


def unit_changes(table_name: str) -> list[dict]:
    """Columns whose unit changed at a release (HEARTBEAT_INTERVAL: s before 10.2.1, ms from it)."""
    return list(_data()["tables"][table_name].get("units", ()))


def _all_columns(table_name: str) -> dict[str, Column]:
    """Every column the table has at any release on any platform (its newest type)."""
    return {c.name: c for c in columns_at(table_name, release_names()[-1])}


def column_kinds(table_name: str) -> dict[str, str]:
    """Column -> ``time``, ``number``, ``bit`` or ``text`` (:attr:`Column.kind`) at the newest release."""
    return {name: c.kind for name, c in _all_columns(table_name).items()}


@dataclass(frozen=True)
class TableSpec:
    """What qrtune knows about one monitor or parameter table.

    Attributes
    ----------
    name : str
        Table name as IBM spells it.
    queue_column : str or None
        Column naming the queue a row is about (None: one row per program).
    numeric : tuple[str, ...]
        Known numeric columns: a value that is not a number is an error.
    text : tuple[str, ...]
        Known text and ``FOR BIT DATA`` columns (log sequence numbers, names), not stored.
    times : tuple[str, ...]
        Known timestamp columns besides MONITOR_TIME.
    bit_data : tuple[str, ...]
        ``FOR BIT DATA`` columns (exported as raw bytes, or as hex with ``HEX()``).
    """

    name: str
    queue_column: str | None
    numeric: tuple
    text: tuple = ()
    times: tuple = ()
    bit_data: tuple = ()

    @property
    def is_parameters(self) -> bool:
        """True for IBMQREP_CAPPARMS / IBMQREP_APPLYPARMS (one row, no MONITOR_TIME)."""
        return self.name.endswith("PARMS")


def _spec(name: str, queue_column: str | None) -> TableSpec:
    """A table's spec from its columns at every release (MONITOR_INTERVAL is numeric in every table)."""
    columns = _all_columns(name).values()
    of = {
        kind: tuple(c.name for c in columns if c.kind == kind) for kind in ("number", "time", "text", "bit")
    }
    numeric = tuple(dict.fromkeys(("MONITOR_INTERVAL", *of["number"])))
    times = tuple(n for n in of["time"] if n != "MONITOR_TIME")
    text = tuple(n for n in (*of["text"], *of["bit"]) if n != queue_column)
    return TableSpec(name, queue_column, numeric, text, times, of["bit"])


CAPMON = _spec("IBMQREP_CAPMON", None)
CAPQMON = _spec("IBMQREP_CAPQMON", "SENDQ")
APPLYMON = _spec("IBMQREP_APPLYMON", "RECVQ")
CAPPARMS = _spec("IBMQREP_CAPPARMS", None)
APPLYPARMS = _spec("IBMQREP_APPLYPARMS", None)
MONITOR_TABLES = {t.name: t for t in (CAPMON, CAPQMON, APPLYMON)}
"""The tables with one row per MONITOR_INTERVAL."""
TABLES = {**MONITOR_TABLES, CAPPARMS.name: CAPPARMS, APPLYPARMS.name: APPLYPARMS}
"""Every table ``qrtune import-monitor`` reads."""
CONFIG_TABLES = ("IBMQREP_SENDQUEUES", "IBMQREP_RECVQUEUES", "IBMQREP_SUBS", "IBMQREP_TARGETS")
"""The configuration tables ``qrtune import-config`` reads besides the parameter tables."""
INTERVAL_SOURCE = {"IBMQREP_CAPMON": CAPPARMS, "IBMQREP_CAPQMON": CAPPARMS, "IBMQREP_APPLYMON": APPLYPARMS}
"""The parameter table holding each monitor table's MONITOR_INTERVAL."""


def layouts(table: TableSpec) -> dict[str, tuple[str, ...]]:
    """Release -> the table's column order at that release (Linux, UNIX and Windows)."""
    return {r: layout.names for layout in table_layouts(table.name) for r in layout.releases}


def _counts(table_name: str) -> str:
    return ", ".join(f"{len(lay.columns)} ({lay.label})" for lay in table_layouts(table_name))


def _fits(column: Column, text: str, limits: dict) -> bool:
    """A cell's text fits its column's type (NULL fits every column)."""
    if is_null(text):
        return True
    if column.kind == "time":
        return parse_timestamp(text) is not None
    if column.kind == "number":
        value = to_float(text)
        low, high = limits.get(column.name, (-float("inf"), float("inf")))
        return value is not None and low <= value <= high
    if column.kind == "text":  # a name, not a number or a timestamp where IBM has VARCHAR
        return to_float(text) is None and parse_timestamp(text) is None
    return True


def _consistent(layout: Layout, sample: list) -> bool:
    limits = bounds(layout.table)
    return all(
        len(fields) == len(layout.columns)
        and all(_fits(c, v, limits) for c, v in zip(layout.columns, fields))
        for fields in sample
    )


def _candidates(tables: tuple, n_fields: int, platform: str | None) -> list[Layout]:
    platforms = PLATFORMS if platform is None else (platform,)
    return [
        lay for t in tables for p in platforms for lay in table_layouts(t, p) if len(lay.columns) == n_fields
    ]


def _by_release(table: TableSpec, release: str, platform: str | None, n_fields: int, where: str) -> tuple:
    canonical = canonical_release(release)
    first = _first_release(table.name)
    if release_names().index(canonical) < release_names().index(first):
        raise MonitorImportError(f"{where}: {table.name} has no release {canonical} (its first is {first})")
    columns = columns_at(table.name, canonical, platform or "luw")
    if table.is_parameters and n_fields > len(columns):
        return tuple(c.name for c in columns) + tuple(f"_EXTRA{i}" for i in range(n_fields - len(columns)))
    if len(columns) != n_fields:
        raise MonitorImportError(
            f"{where}: {table.name} at release {canonical} has {len(columns)} columns, the file {n_fields}"
        )
    return tuple(c.name for c in columns)


def match_layout(
    tables: tuple,
    sample: list,
    *,
    release: str | None = None,
    platform: str | None = None,
    where: str = "",
) -> tuple[TableSpec | str, tuple[str, ...], str]:
    """The table, column order and releases of a headerless file from its first rows.

    Parameters
    ----------
    tables : tuple of TableSpec or str
        The tables the file may hold (one when its name tells).
    sample : list of list of str
        The file's first rows as text fields.
    release : str, optional
        ``--release``: that release's layout (the first of ``tables``).
    platform : str, optional
        ``luw`` or ``zos``; None: either, Linux, UNIX and Windows when both fit.
    where : str
        ``file:line`` for messages.

    Returns
    -------
    (table, names, label)
        ``label`` names the releases (``9.7 FP3 .. 10.1 FP``).

    Raises
    ------
    MonitorImportError
        No documented layout has that many columns, or the cells fit none of them, or several
        tables fit (the file's name must tell).
    """
    n_fields = len(sample[0])
    specs = {(t.name if isinstance(t, TableSpec) else t): t for t in tables}
    if release is not None:
        table = next(iter(specs.values()))
        spec = table if isinstance(table, TableSpec) else TableSpec(table, None, ())
        return table, _by_release(spec, release, platform, n_fields, where), canonical_release(release)
    candidates = _candidates(tuple(specs), n_fields, platform)
    if not candidates:
        raise MonitorImportError(_no_layout_message(specs, n_fields, where))
    fitting = [lay for lay in candidates if _consistent(lay, sample)]
    if not fitting and len({lay.table for lay in candidates}) == 1:
        fitting = candidates  # one table: its cells are checked one by one (file, line, column, value)
    distinct = {(lay.table, lay.names): lay for lay in fitting}
    if len({t for t, _ in distinct}) > 1:
        raise MonitorImportError(
            f"{where}: a file without a header with {n_fields} columns may be "
            f"{' or '.join(sorted({t for t, _ in distinct}))}; name the file after its table"
        )
    if not distinct:
        labels = "; ".join(f"{lay.table} {lay.label}" for lay in candidates)
        raise MonitorImportError(
            f"{where}: the {n_fields} fields of the first rows fit the types of no documented layout with "
            f"{n_fields} columns ({labels}); export with a header line, or name the columns with --columns"
        )
    chosen = min(distinct.values(), key=lambda lay: PLATFORMS.index(lay.platform))
    return specs[chosen.table], chosen.names, chosen.label


def _no_layout_message(specs: dict, n_fields: int, where: str) -> str:
    if len(specs) == 1:
        name = next(iter(specs))
        return (
            f"{where}: {name} export without a header has {n_fields} columns; the documented layouts have "
            f"{_counts(name)}. Export with a header line, or name the columns with --columns"
        )
    per_table = "; ".join(f"{t}: {_counts(t)}" for t in specs)
    return (
        f"{where}: an export without a header has {n_fields} columns, which no documented layout has "
        f"({per_table}); name the file after its table and export with a header line, or name the columns "
        "with --columns"
    )


def parameter_layout(table: TableSpec, n_fields: int, release: str | None, where: str) -> tuple[str, ...]:
    """The column order of a headerless parameter-table export (``SELECT *``, or MONITOR_INTERVAL alone).

    A release adds parameters at the end, so an export is read by the longest documented layout
    it reaches and its extra columns (a newer fix pack's) are ignored; one shorter than every layout
    is read as the leading columns of the oldest.

    Raises
    ------
    MonitorImportError
        Unknown release, or too few columns to reach MONITOR_INTERVAL.
    """
    if n_fields == 1:  # EXPORT ... SELECT MONITOR_INTERVAL FROM ...
        return ("MONITOR_INTERVAL",)
    if release is not None:
        return _by_release(table, release, None, n_fields, where)
    known = [lay for lay in table_layouts(table.name) if len(lay.columns) <= n_fields]
    if not known:  # the leading columns of the oldest layout (SELECT QMGR, ..., MONITOR_INTERVAL ...)
        oldest = table_layouts(table.name)[0].names
        if "MONITOR_INTERVAL" not in oldest[:n_fields]:
            raise MonitorImportError(_no_layout_message({table.name: table}, n_fields, where))
        return oldest[:n_fields]
    names = known[-1].names
    return names + tuple(f"_EXTRA{i}" for i in range(n_fields - len(names)))
