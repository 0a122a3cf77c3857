"""Write the coefficients of the topology mechanisms: ``assets/coefficients/topologies.json``.

usage: python -m engine.calibrate.topologies [--data CALIBRATION.json] [--out PATH]

The coupling-facility, SMDS, SCM and merged-log coefficients are documented priors: the seeds
name the mechanisms (003: SMDS for messages over 63 KB and tiered offload thresholds, an
internal CF with 4 dedicated processors; 001: data sharing makes Q Capture merge several
logs) but publish no figure for them, so each prior's assumption is written next to it.

The SQL Replication coefficient ``sql_apply_row_wait_us`` is fitted (bounded least squares on
log ratios, with a pull toward its prior) to every relation of the calibration file whose
``a`` scenario has ``topology: sql-replication`` and whose metric is a throughput: the 2005
seed states the SQL-to-Q throughput ratio for z/OS (Figure 2) and AIX (Figure 3). The capture
CPU relation (source CPU per row about three times Q Replication's) is not fitted: it follows
from the CD insert and prune shares, and the relation scores it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from datetime import UTC, datetime
from pathlib import Path

from scipy.optimize import least_squares

from engine.io.atomicfile import atomic_write_text
from engine.io.packagedata import asset_path
from engine.perf.qrep import predict, sql_replication
from engine.perf.qrep.coefficients import load
from engine.perf.qrep.inputs import read_inputs
from engine.perf.qrep.topology_coefficients import COEFF_PATH, TopologyCoefficients

DEFAULT_DATA = asset_path("validation", "calibration.json")
#: Weight of the pull of a fitted coefficient toward its prior (per unit of log ratio).
PRIOR_WEIGHT = 0.1
#: Metrics of the relations the SQL Apply wait is fitted to.
THROUGHPUT_METRICS = ("capture_rows_per_s", "apply_rows_per_s")

#: name -> (prior, low, high, fitted, unit, meaning, assumption)
PARAMETERS = {
    "cf_cpu_us_per_request": (
        6.0,
        1.0,
        50.0,
        False,
        "us",
        "CF processor time per list-structure request",
        "a CF processor serves some 100,000-200,000 simple synchronous requests a second "
        "(5-10 us each); seed 003 gives no CF figure",
    ),
    "cf_cpu_us_per_kb": (
        0.4,
        0.05,
        5.0,
        False,
        "us/KB",
        "CF processor and link time per KB of entry data",
        "coupling links move a few GB/s; 0.4 us/KB is about 2.5 GB/s",
    ),
    "cf_entry_overhead_bytes": (
        1024.0,
        256.0,
        4096.0,
        False,
        "bytes",
        "CF storage per message besides its data (list entry, "
        "adjunct area, MQMD; what an offloaded message leaves in the structure)",
        "MQ sizes a shared message's entry at about 1 KB besides its data",
    ),
    "smds_io_us": (
        300.0,
        50.0,
        5000.0,
        False,
        "us",
        "one SMDS block I/O (write at MQPUT, read at the first MQGET)",
        "DS8000-class disk through media manager, zHPF off as in seed 003's set-up",
    ),
    "smds_mb_s": (
        300.0,
        20.0,
        4000.0,
        False,
        "MB/s",
        "transfer rate of an SMDS data set (FICON)",
        "a few hundred MB/s per data set over 4 FICON paths (seed 003: DS8870, 4 channel paths)",
    ),
    "smds_parallel_ios": (
        8.0,
        1.0,
        64.0,
        False,
        "I/Os",
        "SMDS I/Os a queue manager has in flight at once",
        "DSBUFS(100) buffers; concurrency limited by the data set's volumes (HyperPAV aliases)",
    ),
    "db2_offload_us": (
        2000.0,
        200.0,
        50000.0,
        False,
        "us",
        "one Db2 insert or select of an offloaded message (OFFLOAD(DB2))",
        "a Db2 BLOB insert with its log write; seed 003 notes SMDS was introduced as the much faster "
        "alternative to Db2",
    ),
    "scm_access_us": (
        60.0,
        5.0,
        2000.0,
        False,
        "us",
        "extra elapsed to bring an entry back from storage-class memory",
        "flash read latency of tens of us; MQ's prefetch of list entries hides part of it",
    ),
    "ooo_browse_share": (
        0.1,
        0.0,
        1.0,
        False,
        "browse MQGETs per message passed",
        "Q Apply browser work for each message it passes, with parallel send queues, to find the next "
        "message in sequence",
        "the browser reads each message once and keeps those it passes until their turn: a message "
        "passed costs a look-up among the held ones and a repositioning of the browse cursor, taken as "
        "a tenth of a browse MQGET (1 would be browsing again from the head of the queue for each); no "
        "seed or MQ component record measures parallel send queues, so this stays on its prior",
    ),
    "scm_cf_cpu_us": (
        10.0,
        1.0,
        200.0,
        False,
        "us",
        "CF processor time to move one entry to and from SCM",
        "about two CF requests' worth of processor time",
    ),
    "ifi_merge_row_us": (
        1.5,
        0.0,
        20.0,
        False,
        "ref us/row",
        "Q Capture merged-log (IFI 306) CPU per row per doubling of the data-sharing members",
        "one comparison of log record sequence numbers (LRSN) per member stream level; seed 001 says "
        "'Q replication must retrieve and process multiple log files' and gives no figure",
    ),
    "sql_cd_insert_share": (
        1.0,
        0.5,
        2.0,
        False,
        "",
        "SQL Capture's CD-table insert CPU as a share of the application's own change of the row",
        "the CD insert writes the same row (plus IBMSNAP columns) with the same logging",
    ),
    "sql_prune_share": (
        1.0,
        0.3,
        2.0,
        False,
        "",
        "pruning (delete) of an applied CD row as a share of the application's own change of the row",
        "a delete by key costs about what an insert does (index and log records)",
    ),
    "sql_fetch_row_us": (
        8.0,
        1.0,
        100.0,
        False,
        "ref us/row",
        "DRDA block fetch of one CD row, on each side",
        "rows travel in 32 KB query blocks; per-row cost is the row's share of the block",
    ),
    "sql_apply_row_wait_us": (
        150.0,
        20.0,
        5000.0,
        True,
        "us",
        "synchronous waits of the single Apply thread per applied row "
        "(fetch round trips, target log writes and I/O, commit)",
        "fitted to the 2005 seed's SQL-to-Q Replication throughput relations",
    ),
    "sql_apply_cycle_ms": (
        500.0,
        50.0,
        10000.0,
        False,
        "ms",
        "Apply's overhead per cycle (reading the register and pruning "
        "control tables, opening the fetch, the final commit)",
        "SQL Apply in continuous mode starts a cycle about every second at light load",
    ),
    "db2_log_mb_s": (
        100.0,
        10.0,
        2000.0,
        False,
        "MB/s",
        "source Db2 active-log write bandwidth",
        "dual logging on ESS 800-class disk (seed 001's z/OS configuration)",
    ),
    "db2_log_record_bytes": (
        120.0,
        40.0,
        500.0,
        False,
        "bytes",
        "log record header and control bytes per logged row change",
        "Db2 for z/OS log record header plus the data record's control fields",
    ),
}


def prior_coefficients() -> TopologyCoefficients:
    """Every coefficient at its prior."""
    return TopologyCoefficients({name: spec[0] for name, spec in PARAMETERS.items()}, "prior")


def sql_relations(doc: dict) -> list[tuple[dict, dict, str, float]]:
    """(SQL scenario, Q scenario, metric, published ratio) of every SQL-versus-Q throughput relation."""
    by_id = {s["id"]: s for s in doc.get("scenarios", [])}
    out = []
    for rel in doc.get("relations", []):
        a, b = by_id.get(rel.get("a")), by_id.get(rel.get("b"))
        if a and b and a.get("topology") == "sql-replication" and rel.get("metric") in THROUGHPUT_METRICS:
            out.append((a, b, rel["metric"], float(rel["ratio"])))
    return out


def _predicted_ratio(k: TopologyCoefficients, sql: dict, q: dict, metric: str) -> float:
    inputs, _ = read_inputs(sql)
    sql_rate = sql_replication.solve(inputs, load(), k).rows_per_s
    return sql_rate / predict(q).metrics[metric]


def fit(doc: dict) -> tuple[dict, dict]:
    """Fit the SQL Apply wait; returns (values, fit summary)."""
    values = {name: spec[0] for name, spec in PARAMETERS.items()}
    relations = sql_relations(doc)
    if not relations:
        return values, {"relations": 0, "note": "no SQL Replication relation: every coefficient at its prior"}
    prior, lo, hi = PARAMETERS["sql_apply_row_wait_us"][:3]
    base = prior_coefficients()

    def residuals(x):
        k = base.with_values(sql_apply_row_wait_us=math.exp(x[0]))
        res = [math.log(_predicted_ratio(k, a, b, m) / ratio) for a, b, m, ratio in relations]
        return res + [PRIOR_WEIGHT * (x[0] - math.log(prior))]

    sol = least_squares(residuals, [math.log(prior)], bounds=([math.log(lo)], [math.log(hi)]))
    values["sql_apply_row_wait_us"] = round(math.exp(sol.x[0]), 3)
    k = base.with_values(**values)
    summary = {
        "relations": len(relations),
        "ratios": [
            {"a": a["id"], "b": b["id"], "published": r, "predicted": round(_predicted_ratio(k, a, b, m), 4)}
            for a, b, m, r in relations
        ],
    }
    return values, summary


def document(values: dict, summary: dict) -> dict:
    """The coefficient file's content."""
    digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:10]
    return {
        "format": "qrtune-coefficients/1",
        "engine": "qrep-topologies",
        "version": f"topologies-{digest}",
        "created_by": "python -m engine.calibrate.topologies",
        "created": datetime.now(UTC).strftime("%Y-%m-%d"),
        "parameters": {
            name: {
                "value": values[name],
                "unit": unit,
                "meaning": meaning,
                "assumption": assumption,
                "fitted": fitted,
                "bounds": [lo, hi],
                "prior": prior,
            }
            for name, (prior, lo, hi, fitted, unit, meaning, assumption) in PARAMETERS.items()
        },
        "fit": summary,
    }


def _kept_fitted(path: Path) -> tuple[dict, dict]:
    """The fitted values of the coefficient file at ``path`` and its fit summary, priors for the rest."""
    stored = json.loads(path.read_text(encoding="utf-8"))
    values = {name: spec[0] for name, spec in PARAMETERS.items()}
    for name, spec in PARAMETERS.items():
        if spec[3] and name in stored.get("parameters", {}):
            values[name] = stored["parameters"][name]["value"]
    return values, stored.get("fit", {})


def main(argv: list[str] | None = None) -> int:
    """Fit and write the file; one line of summary."""
    ap = argparse.ArgumentParser(prog="python -m engine.calibrate.topologies")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=COEFF_PATH)
    ap.add_argument(
        "--keep-fitted",
        action="store_true",
        help="keep the fitted values of the coefficient file, every other one at its prior (adds new priors)",
    )
    a = ap.parse_args(argv)
    if a.keep_fitted:
        values, summary = _kept_fitted(a.out)
    else:
        values, summary = fit(json.loads(a.data.read_text(encoding="utf-8")))
    atomic_write_text(a.out, json.dumps(document(values, summary), indent=1, allow_nan=False) + "\n")
    print(f"wrote {a.out}: sql_apply_row_wait_us {values['sql_apply_row_wait_us']:g} us, {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
