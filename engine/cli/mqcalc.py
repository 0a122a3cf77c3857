"""``qrtune mq-calc`` and ``qrtune v8``: the MQ storage/cost calculators and the DB2 V8 migration helpers.

Every option is checked before anything is computed; a bad one prints one line naming the
option, the value and what is allowed (exit status 2).
"""

from __future__ import annotations

import math

from engine.cli import argtypes
from engine.errors import FieldError
from engine.io import jsonout
from engine.metrics.catalog import format_number
from engine.perf import db2v8
from engine.perf import mq_calculators as mc

#: MQ's largest message (MAXMSGL 100 MB), in KB.
MAX_MESSAGE_KB = 100 * 1024.0
#: SSLRKEYC's largest value (999,999,999 bytes), in KB.
MAX_RENEG_KB = 999_999_999 / 1024.0


def register(sub) -> None:
    p = sub.add_parser(
        "mq-calc", help="MQ storage, SSL, compression and log calculators", description=__doc__
    )
    argtypes.add_number(
        p,
        "--message-kb",
        "message size",
        minimum=0.0,
        maximum=MAX_MESSAGE_KB,
        unit="KB",
        default=64.0,
        above_minimum=True,
    )
    argtypes.add_number(
        p,
        "--compressibility",
        "fraction the data compresses",
        minimum=0.0,
        maximum=1.0,
        default=0.0,
        below_maximum=True,
    )
    p.add_argument("--compmsg", default="ZLIBFAST", choices=("NONE", "ZLIBFAST", "ZLIBHIGH"))
    p.add_argument("--ssl", action="store_true", help="TLS channel (16 KB segments)")
    argtypes.add_number(
        p,
        "--reneg-kb",
        "SSLRKEYC, used with --ssl",
        minimum=0.0,
        maximum=MAX_RENEG_KB,
        unit="KB",
        default=1024.0,
        above_minimum=True,
    )
    p.add_argument(
        "--sharecnv",
        type=int,
        default=None,
        choices=(0, 1, 10),
        help="SHARECNV of a client (SVRCONN) connection; leave it out for a local (bindings) connection",
    )
    argtypes.add_number(
        p,
        "--log-tb-per-year",
        "MQ log written per year",
        minimum=0.0,
        maximum=1e9,
        unit="TB",
        default=256.0,
        above_minimum=True,
    )
    argtypes.add_number(
        p,
        "--log-growth-pct",
        "yearly growth of the log rate",
        minimum=0.0,
        maximum=1e6,
        unit="%",
        default=100.0,
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run_mq)
    v = sub.add_parser(
        "v8", help="DB2 V8 migration: CPU change band, catalog time, page-fix advice", description=__doc__
    )
    v.add_argument(
        "--workload",
        default="online",
        help="online, batch, query, utility, data_sharing, drda, online_data_sharing, batch_data_sharing",
    )
    argtypes.add_number(
        v,
        "--cpu",
        "a V7 Db2 CPU figure, in any unit, to put a band on",
        minimum=0.0,
        maximum=1e12,
        default=100.0,
    )
    argtypes.add_number(
        v,
        "--catalog-gb",
        "size of SPT01, SYSPKAGE, SYSDBASE ...",
        minimum=0.0,
        maximum=1e6,
        unit="GB",
        default=1.0,
    )
    v.add_argument(
        "--pool",
        action="append",
        default=[],
        metavar="NAME:BUFFERS:PAGES_IO",
        help="a buffer pool for page-fix advice (repeatable)",
    )
    v.add_argument("--json", action="store_true", help="print the results as JSON")
    v.set_defaults(func=run_v8)


def run_mq(a) -> int:
    kb, comp, reneg = a.message_kb, a.compressibility, a.reneg_kb
    tb, growth = a.log_tb_per_year, a.log_growth_pct
    out = {
        "connection_storage_kb": mc.connection_storage_kb(a.sharecnv),
        "channel_footprint_kb": mc.channel_footprint_kb(kb),
        "compression": mc.compression_cost(kb, comp, a.compmsg, a.ssl),
        "ssl_renegotiation_us_per_msg": list(mc.ssl_renegotiation_us_per_msg(kb, reneg, comp))
        if a.ssl
        else None,
        "log_bytes_per_message": {
            "rba6": mc.log_bytes_per_message(kb * 1024, False),
            "rba8": mc.log_bytes_per_message(kb * 1024, True),
        },
        "years_until_rba_reset": {
            "rba6": mc.years_until_rba_reset(tb, growth, False),
            "rba8": mc.years_until_rba_reset(tb, growth, True),
        },
    }
    print(jsonout.dumps(out, indent=1) if a.json else format_mq(out, a))
    return 0


def format_mq(out: dict, a) -> str:
    """The MQ calculators' results for the command line ``a``, one per line with its unit."""
    kb, comp, tb, growth = a.message_kb, a.compressibility, a.log_tb_per_year, a.log_growth_pct
    comp_cost = out["compression"]
    who = (
        "a local (bindings) connection"
        if a.sharecnv is None
        else f"a client connection, SHARECNV {a.sharecnv}"
    )
    rows = [
        (
            f"storage per connection ({who})",
            format_number(out["connection_storage_kb"]),
            "KB",
        ),
        ("channel storage footprint", format_number(out["channel_footprint_kb"]), "KB"),
    ]
    per_msg = "us per message"
    if a.compmsg == "NONE":
        rows.append(("compression (COMPMSG NONE)", "0", per_msg))
    else:
        how = f"COMPMSG {a.compmsg}, data {100 * comp:.0f}% compressible"
        rows += [
            (
                f"compress in {comp_cost['compress_in']} ({how})",
                format_number(comp_cost["compress_us"]),
                per_msg,
            ),
            (f"inflate in {comp_cost['inflate_in']}", format_number(comp_cost["inflate_us"]), per_msg),
        ]
    if out["ssl_renegotiation_us_per_msg"] is not None:
        lo, hi = out["ssl_renegotiation_us_per_msg"]
        rows.append((f"TLS renegotiation (SSLRKEYC {format_number(a.reneg_kb)} KB)", _range(lo, hi), per_msg))
    logged, years = out["log_bytes_per_message"], out["years_until_rba_reset"]
    growth_text = f"at {format_number(tb)} TB a year, growing {format_number(growth)}% a year"
    for rba in ("rba6", "rba8"):
        width = rba[-1]
        rows += [
            (f"MQ log per message ({width}-byte RBA)", format_number(round(logged[rba])), "bytes"),
            (
                f"until the log RBA must be reset ({width}-byte RBA)",
                format_number(years[rba]),
                f"years {growth_text}",
            ),
        ]
    return "\n".join([f"MQ calculators for {format_number(kb)} KB messages", "", *_aligned(rows)])


def _range(lo: float, hi: float) -> str:
    return f"{format_number(lo)} .. {format_number(hi)}"


def _aligned(rows: list[tuple[str, str, str]]) -> list[str]:
    """``(label, value, unit)`` rows with labels flush left and values flush right in their columns."""
    label_w = max(len(r[0]) for r in rows)
    value_w = max(len(r[1]) for r in rows)
    return [f"  {label:<{label_w}}  {value:>{value_w}} {unit}".rstrip() for label, value, unit in rows]


def _pool(spec: str) -> tuple[str, dict]:
    allowed = "NAME:BUFFERS:PAGES_IO with BUFFERS > 0 and PAGES_IO >= 0, e.g. BP4:5000:100000"
    parts = spec.split(":")
    if len(parts) != 3 or not parts[0]:
        raise FieldError("--pool", spec, allowed)
    try:
        b, io = float(parts[1]), float(parts[2])
    except ValueError:
        raise FieldError("--pool", spec, allowed) from None
    if not (math.isfinite(b) and math.isfinite(io) and b > 0 and io >= 0):
        raise FieldError("--pool", spec, allowed)
    return parts[0], {"buffers": b, "pages_io": io}


def run_v8(a) -> int:
    types = db2v8.workload_types()
    if a.workload not in types:
        raise FieldError("--workload", a.workload, "one of " + ", ".join(types))
    cpu, gb = a.cpu, a.catalog_gb
    pools = dict(_pool(spec) for spec in a.pool)
    out = {
        "cpu_band": list(db2v8.apply_cpu_band(cpu, a.workload)),
        "catalog_migration_min": db2v8.catalog_migration_minutes(gb),
        "page_fix": db2v8.page_fix_advice(pools),
    }
    print(jsonout.dumps(out, indent=1) if a.json else format_v8(out, a))
    return 0


def format_v8(out: dict, a) -> str:
    """The DB2 V8 migration helpers' results for the command line ``a``, one per line with its unit."""
    cpu, gb = a.cpu, a.catalog_gb
    rows = [
        (f"V7 CPU {format_number(cpu)} in V8", _range(*out["cpu_band"]), "(the same unit)"),
        (f"catalog migration of {format_number(gb)} GB", format_number(out["catalog_migration_min"]), "min"),
    ]
    rows += [
        (
            f"page-fix {p['pool']} (PGFIX YES)",
            format_number(p["intensity"]),
            "pages of I/O per buffer: " + ("recommended" if p["recommend"] else "not worth it"),
        )
        for p in out["page_fix"]
    ]
    return "\n".join([f"DB2 V8 migration, {a.workload} workload", "", *_aligned(rows)])
