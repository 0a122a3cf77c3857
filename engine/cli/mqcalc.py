"""``qrtune mq-calc`` and ``qrtune v8``: the MQ storage/cost calculators and the DB2 V8 migration helpers."""

from __future__ import annotations

import json

from engine.perf import db2v8
from engine.perf import mq_calculators as mc


def register(sub) -> None:
    p = sub.add_parser("mq-calc", help="MQ storage, SSL, compression and log calculators", description=__doc__)
    p.add_argument("--message-kb", type=float, default=64.0, help="message size in KB")
    p.add_argument("--compressibility", type=float, default=0.0, help="fraction the data compresses (0..1)")
    p.add_argument("--compmsg", default="ZLIBFAST", choices=("NONE", "ZLIBFAST", "ZLIBHIGH"))
    p.add_argument("--ssl", action="store_true", help="TLS channel (16 KB segments)")
    p.add_argument("--reneg-kb", type=float, default=1024.0, help="SSLRKEYC in KB")
    p.add_argument("--sharecnv", type=int, default=None, choices=(0, 1, 10))
    p.add_argument("--log-tb-per-year", type=float, default=256.0)
    p.add_argument("--log-growth-pct", type=float, default=100.0)
    p.set_defaults(func=run_mq)
    v = sub.add_parser("v8", help="DB2 V8 migration: CPU change band, catalog time, page-fix advice")
    v.add_argument("--workload", default="online", help="online, batch, query, utility, data_sharing, drda ...")
    v.add_argument("--cpu", type=float, default=100.0, help="a V7 Db2 CPU figure to put a band on")
    v.add_argument("--catalog-gb", type=float, default=1.0, help="GB of SPT01, SYSPKAGE, SYSDBASE ...")
    v.add_argument("--pool", action="append", default=[], metavar="NAME:BUFFERS:PAGES_IO",
                   help="a buffer pool for page-fix advice (repeatable)")
    v.set_defaults(func=run_v8)


def run_mq(a) -> int:
    out = {
        "connection_storage_kb": mc.connection_storage_kb(a.sharecnv),
        "channel_footprint_kb": mc.channel_footprint_kb(a.message_kb),
        "compression": mc.compression_cost(a.message_kb, a.compressibility, a.compmsg, a.ssl),
        "ssl_renegotiation_us_per_msg": list(mc.ssl_renegotiation_us_per_msg(a.message_kb, a.reneg_kb,
                                                                             a.compressibility)) if a.ssl else None,
        "log_bytes_per_message": {"rba6": mc.log_bytes_per_message(a.message_kb * 1024, False),
                                  "rba8": mc.log_bytes_per_message(a.message_kb * 1024, True)},
        "years_until_rba_reset": {"rba6": mc.years_until_rba_reset(a.log_tb_per_year, a.log_growth_pct, False),
                                  "rba8": mc.years_until_rba_reset(a.log_tb_per_year, a.log_growth_pct, True)},
    }
    print(json.dumps(out, indent=1))
    return 0


def run_v8(a) -> int:
    pools = {}
    for spec in a.pool:
        try:
            name, b, io = spec.split(":")
            pools[name] = {"buffers": float(b), "pages_io": float(io)}
        except ValueError:
            from engine.errors import FieldError

            raise FieldError("--pool", spec, "NAME:BUFFERS:PAGES_IO, e.g. BP4:5000:100000") from None
    out = {"cpu_band": list(db2v8.apply_cpu_band(a.cpu, a.workload)),
           "catalog_migration_min": db2v8.catalog_migration_minutes(a.catalog_gb),
           "page_fix": db2v8.page_fix_advice(pools)}
    print(json.dumps(out, indent=1))
    return 0
