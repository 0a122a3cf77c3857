"""Leave-one-table-out cross-validation of the fitted coefficients.

usage: python -m engine.calibrate.crossval [--data CALIBRATION.json] [--kinds qrep,db2mirror] [--groups SUBSTR ...]
                                 [--jobs 2] [--max-nfev N] [--json OUT] [--keep-dir DIR]

qrtune is scored on published tables it has never seen, so what matters is how the fitted
coefficients extrapolate, not the in-sample error. This tool groups the calibration
scenarios by the published table they come from (:func:`table_of`, from the ``source``
field: ``000 Table 3-3``, ``002 Case Study #1, Figure 7-1`` ...), and for each table refits
the coefficients without it (:func:`engine.calibrate.qrep.calibrate` for ``kind: qrep``,
:func:`engine.calibrate.misc.mirror.fit` for ``kind: db2mirror``, with ``exclude``),
predicts the held-out table with those coefficients and compares the predictions with the
measurements. The fits run in memory (``--keep-dir`` saves each fold's coefficient
document); nothing under ``assets/`` is read for coefficients or written.

Every table is reported twice, with the statistics ``../shared/validation/score.py``
prints (:func:`summarise`): *in-sample* from one fit on all the data (the coefficients a
fresh calibration would ship) and *held-out* from the fold that did not see the table.
The overall lines pool the rows of every table. The coefficients that move most between
folds are listed too: a coefficient one table alone decides is a candidate for a prior.

The MQ mover and DB2 V8 engines are not cross-validated: each has one published scenario
and coefficients read from seed tables.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from engine.calibrate.qrep import MAX_NFEV
from engine.io import jsonout
from engine.io.atomicfile import atomic_write_text
from engine.io.packagedata import asset_path
from engine.validation_summary import is_latency

BUNDLED_DATA = asset_path("validation", "calibration.json")

#: A measured step smaller than this share is noise, not a trend (score.py ``CHANGE_THRESHOLD``).
CHANGE_THRESHOLD = 0.05
#: Kinds with a calibration fit that accepts an exclusion.
KINDS = ("qrep", "db2mirror")


# --------------------------------------------------------------------------- statistics (score.py's)


def metric_class(metric: str) -> str:
    """``"latency"`` for the scorer's latency names, else ``"rate"``."""
    return "latency" if is_latency(metric) else "rate"


def ape(predicted: float, measured: float) -> float:
    """Absolute percentage error as a fraction; a measured zero scores ``|predicted|``."""
    if measured == 0:
        return abs(predicted) if abs(predicted) > 1e-9 else 0.0
    return abs(predicted - measured) / abs(measured)


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _p90(sorted_errors: list) -> float:
    return sorted_errors[min(len(sorted_errors) - 1, int(0.9 * len(sorted_errors)))]


def compare(scenarios: Iterable[dict], predictions: dict, relations: Iterable[dict] = ()) -> dict:
    """Rows, trends and relations of ``scenarios`` against ``predictions``, as score.py counts them.

    Parameters
    ----------
    scenarios : iterable of dict
        Scenarios with ``measured`` values, in file order (trends compare neighbours).
    predictions : dict
        Scenario id to ``{metric: predicted value}``.
    relations : iterable of dict
        Published ratios ``{"id", "a", "b", "metric", "ratio"}`` to check.

    Returns
    -------
    dict
        ``rows`` (one per measured metric with a finite prediction: id, metric, class,
        measured, predicted, ape), ``missing`` count, ``trends`` ``[ok, n]`` and
        ``relations`` (id, published, predicted ratio, ape).
    """
    scenarios = list(scenarios)
    rows, missing = [], 0
    for s in scenarios:
        pred = predictions.get(s["id"]) or {}
        for m, v in s.get("measured", {}).items():
            p = pred.get(m)
            if not _finite(p):
                missing += 1
                continue
            rows.append(
                {
                    "id": s["id"],
                    "metric": m,
                    "class": metric_class(m),
                    "measured": v,
                    "predicted": p,
                    "ape": ape(p, v),
                }
            )
    by_source: dict = {}
    for s in scenarios:
        by_source.setdefault(s.get("source", ""), []).append(s)
    ok = n = 0
    for group in by_source.values():
        for x, y in zip(group, group[1:]):
            px, py = predictions.get(x["id"]) or {}, predictions.get(y["id"]) or {}
            for m, mx in x.get("measured", {}).items():
                my = y.get("measured", {}).get(m)
                if metric_class(m) != "rate" or my is None or mx == 0:
                    continue
                if abs(my - mx) / abs(mx) < CHANGE_THRESHOLD:
                    continue
                if not (isinstance(px.get(m), (int, float)) and isinstance(py.get(m), (int, float))):
                    continue
                n += 1
                ok += (my - mx) * (py[m] - px[m]) > 0
    rels = []
    for r in relations:
        pa = (predictions.get(r["a"]) or {}).get(r["metric"])
        pb = (predictions.get(r["b"]) or {}).get(r["metric"])
        ratio = pa / pb if isinstance(pa, (int, float)) and isinstance(pb, (int, float)) and pb else None
        rels.append(
            {
                "id": r["id"],
                "published": r["ratio"],
                "predicted": ratio,
                "ape": None if ratio is None else ape(ratio, r["ratio"]),
            }
        )
    return {"rows": rows, "missing": missing, "trends": [ok, n], "relations": rels}


def summarise(cmp: dict) -> dict:
    """score.py's summary figures of one :func:`compare` result (fractions, not percent).

    Keys: ``coverage``, ``rate_median_ape``, ``rate_p90_ape``, ``rate_n``, the same for
    ``latency``, ``trend_agreement`` (None without trends), ``trend_n``,
    ``relations_median_ape`` (None without relations). The median is the usual one; the
    90th percentile is the sorted error at rank ``min(n - 1, int(0.9 n))``.
    """
    rows = cmp["rows"]
    total = len(rows) + cmp["missing"]
    out: dict = {"coverage": len(rows) / total if total else None}
    for cls in ("rate", "latency"):
        e = sorted(r["ape"] for r in rows if r["class"] == cls)
        out[f"{cls}_n"] = len(e)
        out[f"{cls}_median_ape"] = statistics.median(e) if e else None
        out[f"{cls}_p90_ape"] = _p90(e) if e else None
    ok, n = cmp["trends"]
    out["trend_agreement"] = ok / n if n else None
    out["trend_n"] = n
    done = [r["ape"] for r in cmp["relations"] if r["ape"] is not None]
    out["relations_median_ape"] = statistics.median(done) if done else None
    out["relations_n"] = len(done)
    return out


def merge(cmps: Iterable[dict]) -> dict:
    """Pool several :func:`compare` results (the overall line of the cross-validation)."""
    out = {"rows": [], "missing": 0, "trends": [0, 0], "relations": []}
    for c in cmps:
        out["rows"] += c["rows"]
        out["missing"] += c["missing"]
        out["trends"] = [out["trends"][0] + c["trends"][0], out["trends"][1] + c["trends"][1]]
        out["relations"] += c["relations"]
    return out


# --------------------------------------------------------------------------- grouping

_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")


def table_of(scenario: dict) -> str:
    """The published table a scenario comes from, e.g. ``"000 Table 3-3"``.

    From the ``source`` field (``"000_<hash>.txt (title), Table 3-3 (rows per source
    transaction)"``): the seed number and the part after the document title, without a
    trailing parenthesised note, so runs of one table described separately stay together.
    A scenario without a source is its own table (its id).
    """
    src = scenario.get("source") or ""
    if not src:
        return scenario["id"]
    seed = src.split("_", 1)[0].split(".", 1)[0]
    _, sep, rest = src.partition("), ")
    where = rest if sep else src
    while True:
        stripped = _TRAILING_NOTE.sub("", where)
        if stripped == where or not stripped:
            break
        where = stripped
    return f"{seed} {where.strip()}"


def groups_of(doc: dict, kinds: Iterable[str] = KINDS) -> dict:
    """Table label to the ids of its scenarios (of ``kinds``), in file order."""
    kinds = set(kinds)
    out: dict = {}
    for s in doc.get("scenarios", []):
        if s.get("kind") in kinds:
            out.setdefault((s["kind"], table_of(s)), []).append(s["id"])
    return out


# --------------------------------------------------------------------------- fitters


def fit_qrep(data: dict, exclude: list, max_nfev: int) -> dict:
    """Coefficient document of ``python -m engine.calibrate.qrep`` without ``exclude`` (ids)."""
    from engine.calibrate.qrep import calibrate

    doc, _ = calibrate(data, exclude=exclude, max_nfev=max_nfev, data_label="crossval")
    return doc


def predict_qrep(doc: dict, scenarios: list) -> dict:
    """Metrics predicted for ``scenarios`` with the qrep coefficient document ``doc``."""
    from engine.perf.qrep import predict
    from engine.perf.qrep.coefficients import from_document

    c = from_document(doc, "crossval")
    out = {}
    for s in scenarios:
        try:
            out[s["id"]] = {k: v for k, v in predict(s, c).metrics.items() if _finite(v)}
        except (ValueError, ZeroDivisionError, OverflowError):
            out[s["id"]] = {}
    return out


def qrep_values(doc: dict) -> dict:
    """Fitted coefficient values of a qrep document (for the spread between folds)."""
    return {n: p["value"] for n, p in doc["parameters"].items() if p.get("fitted")}


def fit_mirror(data: dict, exclude: list, max_nfev: int) -> dict:
    """Coefficient document of ``python -m engine.calibrate.misc.mirror`` without ``exclude`` (ids)."""
    from engine.calibrate.misc import mirror as cal

    coeffs, _ = cal.fit(data, max_nfev=max(max_nfev, 400), exclude=exclude)
    return coeffs


def predict_mirror(coeffs: dict, scenarios: list) -> dict:
    """Metrics predicted for ``scenarios`` with the mirror coefficient document ``coeffs``."""
    from engine.perf import mirror

    out = {}
    for s in scenarios:
        try:
            cfg, _ = mirror.parse_settings(s)
            m, _ = mirror.evaluate(cfg, coeffs)
            out[s["id"]] = {k: v for k, v in m.items() if _finite(v)}
        except (ValueError, ZeroDivisionError, OverflowError, FloatingPointError):
            out[s["id"]] = {}
    return out


def mirror_values(coeffs: dict) -> dict:
    """Flat coefficient values of a mirror document."""
    out = {}
    for sect in ("global", "profiles", "streams"):
        for k, v in coeffs.get(sect, {}).items():
            if isinstance(v, dict):
                out.update({f"{k}.{k2}": v2 for k2, v2 in v.items() if _finite(v2)})
            elif _finite(v):
                out[f"g.{k}"] = v
    return out


#: kind -> (fit(data, exclude ids, max_nfev) -> document, predict(document, scenarios) -> predictions,
#: values(document) -> {name: value})
FITTERS: dict[str, tuple[Callable, Callable, Callable]] = {
    "qrep": (fit_qrep, predict_qrep, qrep_values),
    "db2mirror": (fit_mirror, predict_mirror, mirror_values),
}


def _fold(
    kind: str,
    label: str | None,
    exclude: list,
    data: dict,
    max_nfev: int,
    fitters: dict,
    keep_dir: str | None,
) -> dict:
    """One fit without ``exclude`` and its predictions of the ``kind`` scenarios (all of them)."""
    t0 = time.perf_counter()
    fit, predict, values = fitters[kind]
    doc = fit(data, list(exclude), max_nfev)
    scen = [s for s in data["scenarios"] if s.get("kind") == kind]
    preds = predict(doc, scen)
    if keep_dir:
        name = re.sub(r"[^A-Za-z0-9]+", "-", f"{kind} {label or 'all'}").strip("-") + ".json"
        atomic_write_text(Path(keep_dir) / name, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    fit_info = doc.get("fit") if isinstance(doc.get("fit"), dict) else {}
    return {
        "kind": kind,
        "table": label,
        "seconds": time.perf_counter() - t0,
        "predictions": preds,
        "values": values(doc),
        "stopped_at_max_nfev": fit_info.get("status") == 0,
    }


def crossvalidate(
    data: dict,
    kinds: Iterable[str] = KINDS,
    only: Iterable[str] = (),
    jobs: int = 2,
    max_nfev: int = MAX_NFEV,
    fitters: dict | None = None,
    keep_dir: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Leave each published table out in turn, refit, and score the held-out table.

    Parameters
    ----------
    data : dict
        A ``qrtune-scenarios/1`` document with measured values.
    kinds : iterable of str
        Scenario kinds to cross-validate (keys of ``fitters``).
    only : iterable of str
        If given, hold out only the tables whose label contains one of these texts
        (the in-sample fit always uses every table).
    jobs : int
        Worker processes (1: run in this process).
    max_nfev : int
        Most residual evaluations of each qrep fit.
    fitters : dict, optional
        kind -> (fit, predict, values) functions; default :data:`FITTERS`. ``fit(data,
        exclude_ids, max_nfev)`` returns a coefficient document, ``predict(document,
        scenarios)`` ``{id: {metric: value}}``, ``values(document)`` ``{name: value}``.
        With ``jobs > 1`` they must be importable module-level functions.
    keep_dir : str, optional
        Folder where each fold's coefficient document is saved.
    progress : callable, optional
        Called with one line of text as each fit finishes.

    Returns
    -------
    dict
        ``tables``: one entry per held-out table (kind, table, ids, in-sample and held-out
        :func:`summarise` figures, their rows, seconds); ``overall``: in-sample and
        held-out summaries pooled per kind and over all kinds; ``coefficients``: per kind
        and coefficient the full-fit value, the range over folds, the fold that moved it
        most and by how much (``max_rel_change``: the largest move over the largest
        magnitude, full fit or folds), most moved first; ``seconds``: wall time.
    """
    t0 = time.perf_counter()
    fitters = fitters or FITTERS
    if keep_dir:
        Path(keep_dir).mkdir(parents=True, exist_ok=True)
    kinds = [k for k in kinds if k in fitters]
    held = _held_out_tables(data, kinds, list(only))
    tasks: list[tuple] = [(k, None, []) for k in kinds if any(key[0] == k for key in held)]
    tasks += [(k, label, ids) for (k, label), ids in held.items()]
    results = _run_folds(tasks, data, max_nfev, fitters, keep_dir, jobs, progress)
    full = {r["kind"]: r for r in results if r["table"] is None}
    folds = {(r["kind"], r["table"]): r for r in results if r["table"] is not None}
    tables, comparisons = _table_scores(data, held, full, folds)
    return {
        "tables": tables,
        "overall": _pooled_scores(kinds, tables, comparisons),
        "coefficients": {
            kind: _coefficient_spread(full[kind]["values"], kind, folds) for kind in kinds if kind in full
        },
        "seconds": time.perf_counter() - t0,
        "jobs": jobs,
        "max_nfev": max_nfev,
    }


def _held_out_tables(data: dict, kinds: list, only: list) -> dict:
    """``{(kind, table label): [scenario ids]}`` of the tables to hold out in turn.

    Raises
    ------
    ValueError
        ``only`` names no table.
    """
    groups = groups_of(data, kinds)
    held = {
        key: ids for key, ids in groups.items() if not only or any(o.lower() in key[1].lower() for o in only)
    }
    if not held:
        raise ValueError(
            f"groups: {', '.join(only)} match no table; tables are " + ", ".join(label for _, label in groups)
        )
    return held


def _run_folds(
    tasks: list,
    data: dict,
    max_nfev: int,
    fitters: dict,
    keep_dir: str | None,
    jobs: int,
    progress: Callable[[str], None] | None,
) -> list:
    """Every fit of ``tasks`` (kind, held-out label or None, held-out ids): in this process or ``jobs`` workers."""
    results = []

    def done(r):
        results.append(r)
        if progress:
            progress(
                f"  fitted {r['kind']} {'without ' + r['table'] if r['table'] else 'on all tables'} "
                f"in {r['seconds']:.1f} s"
            )

    if jobs <= 1:
        for k, label, ids in tasks:
            done(_fold(k, label, ids, data, max_nfev, fitters, keep_dir))
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futs = [
            pool.submit(_fold, k, label, ids, data, max_nfev, fitters, keep_dir) for k, label, ids in tasks
        ]
        for f in as_completed(futs):
            done(f.result())
    return results


def _table_scores(data: dict, held: dict, full: dict, folds: dict) -> tuple[list, list]:
    """Per held-out table its in-sample and held-out scores; also each table's two comparisons (to pool)."""
    by_id = {s["id"]: s for s in data["scenarios"]}
    tables, comparisons = [], []
    for (kind, label), ids in held.items():
        scen = [by_id[i] for i in ids]
        idset = set(ids)
        rels = [r for r in data.get("relations", []) if r["a"] in idset or r["b"] in idset]
        fold = folds[(kind, label)]
        cin = compare(scen, full[kind]["predictions"], rels)
        cout = compare(scen, fold["predictions"], rels)
        tables.append(
            {
                "kind": kind,
                "table": label,
                "ids": ids,
                "seconds": fold["seconds"],
                "stopped_at_max_nfev": fold["stopped_at_max_nfev"],
                "in_sample": summarise(cin),
                "held_out": summarise(cout),
                "rows_in": cin["rows"],
                "rows_out": cout["rows"],
                "relations_in": cin["relations"],
                "relations_out": cout["relations"],
            }
        )
        comparisons.append((cin, cout))
    return tables, comparisons


def _pooled_scores(kinds: list, tables: list, comparisons: list) -> dict:
    """In-sample and held-out summaries pooled per kind and over all kinds."""
    overall = {}
    for kind in [*kinds, "all"]:
        sel = [c for t, c in zip(tables, comparisons) if kind in (t["kind"], "all")]
        if sel:
            overall[kind] = {
                "in_sample": summarise(merge(cin for cin, _ in sel)),
                "held_out": summarise(merge(cout for _, cout in sel)),
            }
    return overall


def _coefficient_spread(base: dict, kind: str, folds: dict) -> dict:
    """Per coefficient of ``kind``: full-fit value, range over the folds, the fold that moved it most
    (``max_rel_change``: the largest move over the largest magnitude); most moved first."""
    spread = {}
    for name, v in base.items():
        vals = {label: r["values"].get(name) for (k, label), r in folds.items() if k == kind}
        vals = {lab: x for lab, x in vals.items() if _finite(x)}
        if not vals:
            continue
        scale = max(abs(v), *(abs(x) for x in vals.values()), 1e-12)
        worst = max(vals, key=lambda lab: abs(vals[lab] - v))
        spread[name] = {
            "full": v,
            "min": min(vals.values()),
            "max": max(vals.values()),
            "max_rel_change": abs(vals[worst] - v) / scale,
            "moved_most_without": worst,
        }
    return dict(sorted(spread.items(), key=lambda kv: -kv[1]["max_rel_change"]))


# --------------------------------------------------------------------------- report


def _pct(v) -> str:
    return "   -" if v is None else f"{100 * v:5.1f}"


def _line(s: dict) -> str:
    n = s["trend_n"]
    tr = "  -   " if s["trend_agreement"] is None else f"{n * s['trend_agreement']:.0f}/{n}"
    return (
        f"{_pct(s['rate_median_ape'])} {_pct(s['rate_p90_ape'])} {s['rate_n']:3d}  "
        f"{_pct(s['latency_median_ape'])} {_pct(s['latency_p90_ape'])} {s['latency_n']:3d}  {tr:>6} "
        f"{_pct(s['relations_median_ape'])}"
    )


def render(report: dict, top_coefficients: int = 12) -> str:
    """The text report: per table in-sample vs held-out, overall, coefficients that move most."""
    head = (
        f"{'table':44} {'fit':4} {'rate med':>8} {'p90':>5} {'n':>3}  "
        f"{'lat med':>5} {'p90':>5} {'n':>3}  "
        f"{'trends':>6} {'rel':>5}"
    )
    out = [
        "leave-one-table-out cross-validation (errors in %: median and 90th percentile absolute "
        "percentage error, as score.py)",
        head,
    ]
    for t in report["tables"]:
        name = f"{t['kind']}: {t['table']}"[:44]
        out.append(f"{name:44} {'in':4} {_line(t['in_sample'])}")
        mark = "  *" if t.get("stopped_at_max_nfev") else ""
        out.append(f"{'':44} {'out':4} {_line(t['held_out'])}{mark}")
    out.append("")
    for kind, s in report["overall"].items():
        out.append(f"{'overall ' + kind:44} {'in':4} {_line(s['in_sample'])}")
        out.append(f"{'':44} {'out':4} {_line(s['held_out'])}")
    for kind, spread in report["coefficients"].items():
        out.append(f"\n{kind}: coefficients that move most when one table is left out")
        for name, r in list(spread.items())[:top_coefficients]:
            out.append(
                f"  {name:30} full {r['full']:<11.4g} folds {r['min']:.4g} .. {r['max']:.4g}  "
                f"(moves {100 * r['max_rel_change']:.0f}% without {r['moved_most_without']})"
            )
    if any(t.get("stopped_at_max_nfev") for t in report["tables"]):
        out.append(
            f"\n* the fit without this table stopped at --max-nfev {report['max_nfev']} before converging"
        )
    out.append(
        f"\n{len(report['tables'])} tables held out, {report['jobs']} worker(s), "
        f"total {report['seconds']:.0f} s"
    )
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--data",
        default=str(BUNDLED_DATA),
        help="scenario file with measured values (default: the bundled calibration.json)",
    )
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    ap.add_argument(
        "--groups",
        nargs="*",
        default=[],
        metavar="TEXT",
        help="hold out only tables whose label contains TEXT (e.g. 'Table 3-3')",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument(
        "--max-nfev",
        type=int,
        default=MAX_NFEV,
        help=f"most residual evaluations per qrep fit (default {MAX_NFEV}, as the calibration; "
        "100 gives a quicker, approximate run)",
    )
    ap.add_argument("--json", help="write the full report (every row, in-sample and held out) here")
    ap.add_argument("--keep-dir", help="save each fold's coefficient document in this folder")
    ap.add_argument("--list", action="store_true", help="list the tables and exit")
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    bad = [k for k in kinds if k not in FITTERS]
    if bad:
        ap.error(f"--kinds: {', '.join(bad)} not allowed; allowed: {', '.join(FITTERS)}")
    if a.jobs < 1:
        ap.error(f"--jobs: {a.jobs} not allowed; at least 1")
    try:
        data = json.loads(Path(a.data).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        ap.error(f"--data: {a.data}: cannot read a scenario file: {e}")
    if a.list:
        for (kind, label), ids in groups_of(data, kinds).items():
            print(f"{kind:10} {label:50} {len(ids):3d} scenarios  {ids[0]} .. {ids[-1]}")
        return 0
    try:
        report = crossvalidate(
            data,
            kinds,
            a.groups,
            a.jobs,
            a.max_nfev,
            keep_dir=a.keep_dir,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except ValueError as e:
        ap.error(str(e))
    print(render(report))
    if a.json:
        atomic_write_text(a.json, jsonout.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
