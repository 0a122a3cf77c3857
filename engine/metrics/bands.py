"""Prediction bands: the range a published value is expected in, from the calibration residuals.

Bands are fitted by ``python -m engine.metrics.bands --fit``: it runs every calibration scenario
(``assets/validation/calibration.json``) through the current engines and, per metric, takes the
:data:`COVERAGE` quantile of the absolute log ratio ``|ln(published / predicted)|``; the band of
a value ``v`` is ``[v / f, v * f]`` with ``f = exp(quantile)``. Metrics with fewer than
:data:`MIN_N` published values use the pooled residuals of their class (rates, latencies, CPU,
other) as well. The result is ``assets/coefficients/bands.json``, stamped with the coefficient
version of every engine it ran.

At run time the fitted factors are used while the engine's coefficient version matches the
stamp. After a refit of an engine (a new version) its bands fall back to the residual summary
that engine's own coefficient file records, read at run time, so a refit never breaks them:

* ``qrep.json`` carries, per metric, the median and 90th-percentile absolute percentage error
  (``median_ape``, ``p90_ape``) and the root mean square of the log ratio (``log_sd``). The
  band is the :data:`COVERAGE` quantile of the absolute percentage error, interpolated
  between the median and the 90th percentile, used as a symmetric factor:
  ``[v / (1 + q), v * (1 + q)]``. A value that was predicted within ``q`` of the truth lies in
  this band, so on the calibration set the share inside is about :data:`COVERAGE`.
* ``mirror.json`` carries one log-ratio RMS for CPU metrics (``cpu_rms_log``) and one for the
  rest (``model_rms_log``): the band is ``v * exp(+-z * rms)`` with ``z`` the normal quantile
  of :data:`COVERAGE` (two-sided).
* A project that models a DB2 V8 migration (a target Db2 with ``v8_migration``) widens the
  apply-side CPU bands by the V8 CPU change range of its workload type
  (:func:`engine.perf.db2v8.apply_cpu_band`).

:func:`measure_coverage` runs the calibration scenarios and counts, per metric, how many
published values fall inside their band: the coverage the bands are quoted with is measured,
never assumed (``python -m engine.metrics.bands`` prints it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist

from engine.errors import QrtuneError
from engine.io.packagedata import asset_path
from engine.metrics import catalog
from engine.metrics.catalog import is_share_pct
from engine.perf import predictor
from engine.perf.coeffload import CoefficientsError, load
from engine.perf.result import Prediction

#: Share of calibration values the bands are built to contain.
COVERAGE = 0.80

#: Bundled copy of the published measurements.
CALIBRATION_PATH = asset_path("validation", "calibration.json")

#: Coefficient file holding the residuals of each scenario kind.
RESIDUAL_FILES = {"qrep": "qrep", "db2mirror": "mirror"}

#: Fitted band file (``assets/coefficients/bands.json``) and its format string.
BANDS_FILE = "bands"
BANDS_FORMAT = "qrtune-bands/1"

#: Fewest published values of a metric for its own quantile; fewer also pool their class.
MIN_N = 5

#: Metrics whose band the DB2 V8 CPU change range widens.
V8_CPU_METRICS = ("apply_cpu_us_per_row", "apply_lpar_busy_pct", "total_cpu_us_per_row", "target_cpu_pct")


def band_label(coverage: float = COVERAGE) -> str:
    """Text naming a band (``80% band``)."""
    return f"{round(100 * coverage)}% band"


def _ape_quantile(median_ape: float, p90_ape: float, coverage: float) -> float:
    """Absolute percentage error at ``coverage``, interpolated between the median and the 90th percentile."""
    if coverage <= 0.5:
        return median_ape * coverage / 0.5
    if coverage <= 0.9:
        return median_ape + (p90_ape - median_ape) * (coverage - 0.5) / 0.4
    return p90_ape * (1.0 + (coverage - 0.9) / 0.1)


def _normal_z(coverage: float) -> float:
    return NormalDist().inv_cdf(0.5 + coverage / 2.0)


def summary_factors(kind: str, coverage: float = COVERAGE) -> dict:
    """Band factors from the residual summary in ``kind``'s own coefficient file (the fallback).

    Raises
    ------
    CoefficientsError
        The coefficient file is missing or malformed.
    """
    name = RESIDUAL_FILES.get(kind)
    if name is None:
        return {}
    doc = load(name)
    out: dict = {}
    if kind == "qrep":
        for metric, r in (doc.get("residuals") or {}).items():
            if not isinstance(r, dict):
                continue
            med, p90 = r.get("median_ape"), r.get("p90_ape")
            if isinstance(med, (int, float)) and isinstance(p90, (int, float)):
                out[metric] = 1.0 + _ape_quantile(float(med), float(p90), coverage)
            elif isinstance(r.get("log_sd"), (int, float)):
                out[metric] = math.exp(_normal_z(coverage) * float(r["log_sd"]))
    elif kind == "db2mirror":
        fit = doc.get("fit") or {}
        z = _normal_z(coverage)
        for key, metrics in (
            ("cpu_rms_log", ("source_cpu_pct", "target_cpu_pct")),
            ("model_rms_log", ("throughput", "response_time_ms", "tps")),
        ):
            rms = fit.get(key)
            if isinstance(rms, (int, float)):
                for metric in metrics:
                    out[metric] = math.exp(z * float(rms))
    return out


def coefficients_version(kind: str) -> str:
    """Current coefficient version of ``kind``'s engine ('' when it has none)."""
    name = RESIDUAL_FILES.get(kind)
    if name is None:
        return ""
    try:
        return str(load(name).get("version", ""))
    except CoefficientsError:
        return ""


def _fitted_doc() -> dict | None:
    try:
        doc = load(BANDS_FILE)
    except CoefficientsError:
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == BANDS_FORMAT else None


def band_source(kind: str) -> str:
    """``fitted`` when ``bands.json`` matches ``kind``'s coefficients, ``summary`` otherwise."""
    doc = _fitted_doc()
    if (
        doc
        and doc.get("engines", {}).get(kind) == coefficients_version(kind)
        and kind in doc.get("kinds", {})
    ):
        return "fitted"
    return "summary"


def band_factors(kind: str, coverage: float = COVERAGE) -> dict:
    """Band factor per metric for scenario ``kind``: the band of a value ``v`` is ``[v / f, v * f]``.

    Parameters
    ----------
    kind : str
        Scenario kind (``qrep``, ``db2mirror`` ...). Kinds without residuals give ``{}``.
    coverage : float
        Share of calibration values the band should contain, 0 < coverage < 1. The fitted
        factors of ``bands.json`` are used when it was fitted for this coverage and the
        engine's current coefficients; otherwise the coefficient file's residual summary.

    Raises
    ------
    ValueError
        ``coverage`` is not between 0 and 1.
    CoefficientsError
        The engine's coefficient file is missing or malformed.
    """
    if not 0.0 < coverage < 1.0:
        raise ValueError(f"coverage {coverage!r}: expected a share between 0 and 1 (exclusive)")
    doc = _fitted_doc()
    if doc and abs(float(doc.get("coverage", -1)) - coverage) < 1e-9 and band_source(kind) == "fitted":
        return {m: float(r["factor"]) for m, r in doc["kinds"][kind].items()}
    return summary_factors(kind, coverage)


def bands_for(kind: str, metrics: dict, coverage: float = COVERAGE) -> dict:
    """``{metric: (low, high)}`` for every positive metric that has residuals."""
    factors = band_factors(kind, coverage)
    out = {}
    for name, value in metrics.items():
        f = factors.get(name)
        if f is None or isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            continue
        high = value * f
        out[name] = (value / f, min(high, 100.0) if is_share_pct(name) else high)
    return out


def attach_bands(prediction: Prediction, coverage: float = COVERAGE) -> Prediction:
    """``prediction`` with residual bands on every metric that has residuals.

    Bands an engine set itself on metrics without residuals (the DB2 V8 storage estimate)
    are kept. A missing coefficient file leaves the prediction unchanged.
    """
    try:
        new = bands_for(prediction.kind, prediction.metrics, coverage)
    except CoefficientsError:
        return prediction
    if not new:
        return prediction
    merged = {k: v for k, v in prediction.bands.items() if k not in new}
    merged.update(new)
    return replace(prediction, bands=merged)


def v8_workload_type(project) -> str | None:
    """Workload type of the first target Db2 that models a V8 migration, or None."""
    for node in project.nodes_of("target_db2"):
        if node.params.get("v8_migration"):
            return str(node.params.get("v8_workload_type") or "online")
    return None


def widen_for_v8(prediction: Prediction, workload_type: str) -> Prediction:
    """Widen the apply-side CPU bands by the DB2 V8 CPU change range of ``workload_type``.

    The low end moves by the range's low change, the high end by its high change
    (:func:`engine.perf.db2v8.apply_cpu_band`); a metric without a residual band gets the
    V8 range around its value alone.

    Raises
    ------
    FieldError
        ``workload_type`` is not a V8 workload type.
    """
    from engine.perf.db2v8 import apply_cpu_band

    bands = dict(prediction.bands)
    for name in V8_CPU_METRICS:
        value = prediction.metrics.get(name)
        if not isinstance(value, (int, float)) or not value > 0:
            continue
        lo, hi = bands.get(name, (value, value))
        lo_v8 = apply_cpu_band(lo, workload_type)
        hi_v8 = apply_cpu_band(hi, workload_type)
        low, high = min(lo_v8[0], lo), max(hi_v8[1], hi)
        if is_share_pct(name):
            high = min(high, 100.0)
        bands[name] = (low, high)
    return replace(prediction, bands=bands)


def for_project(project, prediction: Prediction) -> Prediction:
    """Bands of ``prediction`` with what only the project knows (a modelled DB2 V8 migration)."""
    workload = v8_workload_type(project)
    return widen_for_v8(prediction, workload) if workload else prediction


def coverage_statement(kind: str) -> str:
    """One sentence on where ``kind``'s bands come from and the coverage measured for them."""
    doc = _fitted_doc()
    if band_source(kind) == "fitted" and doc:
        per = doc["measured"].get("per_metric", {})
        metrics = doc["kinds"].get(kind, {})
        n = sum(per.get(m, {}).get("n", 0) for m in metrics)
        inside = sum(per.get(m, {}).get("inside", 0) for m in metrics)
        loo = sum(per.get(m, {}).get("inside_leave_one_out", 0) for m in metrics)
        if n:
            return (
                f"{band_label(doc['coverage'])}s: {100 * inside / n:.0f}% of {n} published {kind} values fall "
                f"inside on the calibration set ({100 * loo / n:.0f}% leaving each value out of the fit)"
            )
    name = RESIDUAL_FILES.get(kind)
    if name is None:
        return f"no calibration residuals for {kind}: no bands"
    return (
        f"{band_label()}s from the residual summary in {name}.json (its coefficients changed since the bands "
        "were fitted; run python -m engine.metrics.bands --fit to measure their coverage)"
    )


@dataclass(frozen=True)
class MetricCoverage:
    """How many published values of one metric fall inside their band.

    Attributes
    ----------
    metric : str
        The metric's catalogue name (``apply_rows_per_s``).
    n : int
        Published values with a band.
    inside : int
        Of those, inside the band.
    """

    metric: str
    n: int
    inside: int

    @property
    def coverage(self) -> float:
        """Share inside, 0..1 (NaN when ``n`` is 0)."""
        return self.inside / self.n if self.n else float("nan")


def load_scenarios(path: str | Path | None = None) -> list:
    """Scenarios of a ``qrtune-scenarios/1`` file (default: the bundled calibration set)."""
    p = Path(path) if path is not None else CALIBRATION_PATH
    doc = json.loads(p.read_text(encoding="utf-8"))
    return list(doc.get("scenarios", [])) if isinstance(doc, dict) else list(doc)


def measure_coverage(scenarios: list | None = None, coverage: float = COVERAGE, predict=None) -> dict:
    """Count published values inside their bands, per metric.

    Parameters
    ----------
    scenarios : list, optional
        Scenarios with ``measured`` values (default: the bundled calibration set).
    coverage : float
        The coverage the bands are built for.
    predict : callable, optional
        ``settings -> Prediction`` without bands (default: the engines of :mod:`engine.perf`).

    Returns
    -------
    dict
        ``{metric: MetricCoverage}``; scenarios an engine cannot predict are skipped.
    """
    if scenarios is None:
        scenarios = load_scenarios()
    counts: dict = {}
    for sc in scenarios:
        measured = sc.get("measured") or {}
        if not measured:
            continue
        try:
            pred = (predict or predictor(sc.get("kind", "")))(sc)
        except QrtuneError:
            continue
        except Exception:  # noqa: BLE001, S112 - counted as not covered by leaving it out; an engine bug shows elsewhere
            continue
        bands = bands_for(pred.kind, pred.metrics, coverage)
        for metric, value in measured.items():
            band = bands.get(metric)
            if band is None or not isinstance(value, (int, float)):
                continue
            n, inside = counts.get(metric, (0, 0))
            counts[metric] = (n + 1, inside + int(band[0] <= value <= band[1]))
    return {m: MetricCoverage(m, n, k) for m, (n, k) in sorted(counts.items())}


def overall(per_metric: dict) -> MetricCoverage:
    """All metrics' counts pooled."""
    return MetricCoverage(
        "all", sum(c.n for c in per_metric.values()), sum(c.inside for c in per_metric.values())
    )


def metric_class(metric: str, kind: str | None = None) -> str:
    """Pooling class of a metric from its catalogue entry: ``cpu`` (its group), ``rate`` (a unit per
    second), ``latency`` (a time) or ``other``."""
    entry = catalog.info(metric, kind)
    if entry.group == "cpu":
        return "cpu"
    if entry.unit.endswith("/s"):
        return "rate"
    if entry.unit in ("ms", "us", "s"):
        return "latency"
    return "other"


def quantile(values: list, q: float) -> float:
    """Linearly interpolated ``q`` quantile of ``values`` (``nan`` for none)."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    i = math.floor(pos)
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (xs[j] - xs[i]) * (pos - i)


def calibration_residuals(scenarios: list) -> dict:
    """``{kind: {metric: [|ln(published / predicted)|, ...]}}`` of the current engines (no bands)."""
    out: dict = {}
    for sc in scenarios:
        measured = sc.get("measured") or {}
        kind = sc.get("kind", "")
        if not measured or kind not in RESIDUAL_FILES:
            continue
        try:
            pred = predictor(kind)(sc)
        except QrtuneError:
            continue
        except Exception as e:  # noqa: BLE001 - one engine failing must not stop the other kinds' fit
            print(
                f"engine.metrics.bands: {sc.get('id')}: {kind} engine failed ({type(e).__name__}: {e}); skipped"
            )
            continue
        for metric, value in measured.items():
            p = pred.metrics.get(metric)
            if isinstance(value, (int, float)) and isinstance(p, (int, float)) and value > 0 and p > 0:
                out.setdefault(kind, {}).setdefault(metric, []).append(abs(math.log(value / p)))
    return out


def _factor(own: list, pooled: list, coverage: float) -> float:
    sample = own if len(own) >= MIN_N else own + pooled
    # a hair wider than the quantile, so a residual that ties with it stays inside after rounding
    return math.exp(quantile(sample, coverage)) * (1.0 + 1e-9) if sample else float("nan")


def fit_bands(scenarios: list | None = None, coverage: float = COVERAGE) -> dict:
    """Fit the band factors on published measurements; returns the ``bands.json`` document.

    The document also records the coverage measured on the same scenarios (in sample) and
    leaving each published value out of its own band's fit (``leave_one_out``).
    """
    if scenarios is None:
        scenarios = load_scenarios()
    res = calibration_residuals(scenarios)
    kinds: dict = {}
    n_in = n_loo = n_all = 0
    per_metric: dict = {}
    for kind, metrics in sorted(res.items()):
        pooled: dict[str, list] = {}
        for metric, xs in metrics.items():
            pooled.setdefault(metric_class(metric, kind), []).extend(xs)
        kinds[kind] = {}
        for metric, xs in sorted(metrics.items()):
            others = [
                x
                for m, ys in metrics.items()
                if m != metric and metric_class(m, kind) == metric_class(metric, kind)
                for x in ys
            ]
            f = _factor(xs, others, coverage)
            kinds[kind][metric] = {
                "factor": f,
                "n": len(xs),
                "class": metric_class(metric, kind),
                "pooled": len(xs) < MIN_N,
            }
            inside = sum(1 for x in xs if x <= math.log(f) + 1e-12)
            loo = 0
            for i, x in enumerate(xs):
                f_i = _factor(xs[:i] + xs[i + 1 :], others, coverage)
                loo += int(not math.isnan(f_i) and x <= math.log(f_i) + 1e-12)
            per_metric[metric] = {"n": len(xs), "inside": inside, "inside_leave_one_out": loo}
            n_in, n_loo, n_all = n_in + inside, n_loo + loo, n_all + len(xs)
    return {
        "format": BANDS_FORMAT,
        "version": "bands-" + "-".join(f"{k}:{coefficients_version(k)}" for k in sorted(kinds)),
        "created_by": "python -m engine.metrics.bands --fit",
        "coverage": coverage,
        "engines": {k: coefficients_version(k) for k in kinds},
        "kinds": kinds,
        "measured": {
            "n": n_all,
            "in_sample": round(n_in / n_all, 4) if n_all else None,
            "leave_one_out": round(n_loo / n_all, 4) if n_all else None,
            "per_metric": per_metric,
        },
    }


def coverage_text(per_metric: dict, coverage: float = COVERAGE) -> str:
    """A readable coverage table."""
    lines = [
        f"{band_label(coverage)}: published values inside the band on the calibration set",
        "",
        f"  {'metric':<28} {'inside':>6} {'of':>4} {'coverage':>9}",
    ]
    for c in per_metric.values():
        lines.append(f"  {c.metric:<28} {c.inside:>6} {c.n:>4} {100 * c.coverage:>8.0f}%")
    tot = overall(per_metric)
    lines += ["", f"  {'all metrics':<28} {tot.inside:>6} {tot.n:>4} {100 * tot.coverage:>8.1f}%"]
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m engine.metrics.bands [--fit] [--coverage 0.8] [FILE]``: fit bands or print their coverage."""
    import argparse

    from engine.io.atomicfile import atomic_write_text
    from engine.perf.coeffload import COEFF_DIR

    ap = argparse.ArgumentParser(
        description="Fit prediction bands, or measure their coverage, on published measurements."
    )
    ap.add_argument(
        "file", nargs="?", default=None, help="scenarios file (default: the bundled calibration set)"
    )
    ap.add_argument("--coverage", type=float, default=COVERAGE)
    ap.add_argument(
        "--fit", action="store_true", help="fit the band factors and write assets/coefficients/bands.json"
    )
    a = ap.parse_args(argv)
    scenarios = load_scenarios(a.file)
    if a.fit:
        doc = fit_bands(scenarios, a.coverage)
        path = COEFF_DIR / f"{BANDS_FILE}.json"
        atomic_write_text(path, json.dumps(doc, indent=1, allow_nan=False) + "\n")
        load.cache_clear()
        m = doc["measured"]
        print(
            f"wrote {path}: {m['n']} published values, {100 * m['in_sample']:.1f}% inside in sample, "
            f"{100 * m['leave_one_out']:.1f}% leaving each value out of its band's fit"
        )
    per = measure_coverage(scenarios, a.coverage)
    print(coverage_text(per, a.coverage))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
