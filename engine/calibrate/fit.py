"""Fitting a project's coefficients to imported monitor intervals, judged on held-out intervals.

Every imported IBMQREP_APPLYMON row is one observed interval: ROWS_APPLIED over the
interval gives the apply rate, END2END/Q/APPLY/CAPTURE_LATENCY the interval's mean
latencies (ms). The IBMQREP_CAPQMON row of the same time (nearest MONITOR_TIME within
half an interval) gives the rate the source offered (ROWS_PUBLISHED per second) and
the message size (MQ_BYTES / MQ_MESSAGES). Each interval is predicted at steady state
with the project's settings and ``workload.offered_rows_per_s`` set to the observed
offered rate.

Intervals are split deterministically: every ``holdout_every``-th interval (in time
order) is held out; the others are fitted. The fit adjusts the engine's coefficients
by bounded least squares on log ratios (predicted / measured) of every metric both
sides have, and the error (median absolute percentage error over all held-out metric
values) is reported before and after.

The engine contract (what an engine implements so ``qrtune fit`` can adjust it)
-----------------------------------------------------------------------------
An engine module (``engine.perf.<kind>``, e.g. ``engine.perf.qrep``) that supports fitting
exposes two functions; nothing else in this module is engine-specific:

``fit_parameters(settings: dict) -> dict[str, entry]``
    The coefficients a fit may adjust for this scenario, by the engine's own coefficient
    names (e.g. those of ``assets/coefficients/qrep.json``). Offer only coefficients that
    monitor intervals can inform (CPU and elapsed time per row, transaction and message;
    fixed delays), not every calibrated one. ``entry`` is either a tuple
    ``(value, low, high, unit)`` or a mapping ``{"value": v, "bounds": [low, high],
    "unit": u}`` (the coefficient file's own layout; ``"low"``/``"high"`` keys also work).
    ``value`` is the engine's current value; ``0 < low <= value <= high`` (the fit works on
    log ratios, so values must be positive); ``unit`` is text (``us/row``, ``ms``).
``predict(settings: dict, coefficients: Mapping[str, float] | None = None) -> Prediction``
    A prediction in which the named coefficients replace the engine's own values and all
    others keep theirs; ``None`` (or ``{}``) gives exactly the plain prediction. The fit
    always passes a plain ``dict`` of floats holding every name ``fit_parameters``
    returned. Cheap: a fit calls it (intervals x (coefficients + 1)) times per iteration, at
    most :data:`MAX_PREDICTIONS` times in all and for at most :data:`FIT_BUDGET_S` seconds.
    The prediction's ``coefficients_version`` should say the values were overridden
    (e.g. ``qrep-20261122-abc+override``) so stored runs are not mistaken for plain ones.

:func:`check_engine_contract` checks a module against this contract (the engine's tests
can call it), :func:`engine_fit_model` loads it, and :func:`fitted_predict` predicts with a
fit kept in the store (``qrtune predict PROJECT --db PATH --fitted``).

Limitations: one send/receive queue pair per project (intervals of several receive
queues are all matched against the nearest CAPQMON row of any queue).
"""

from __future__ import annotations

import copy
import importlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np

from engine.calibrate.fit_limits import FIT_BUDGET_S, MAX_INTERVALS, MAX_PREDICTIONS
from engine.errors import QrtuneError
from engine.metrics import APPLYMON_LATENCIES
from engine.monitor.catalogue import APPLYMON_READ, CAPMON_READ, CAPQMON_READ
from engine.monitor.intervals import interval_lengths_sql
from engine.monitor.timing import TIMING_COLUMNS, TIMING_METRICS, of_table
from engine.perf import ENGINE_MODULES, predictor
from engine.settings import SettingsReader
from engine.store.errors import FitError

#: Monitor latency column -> metric name of the engine.
LATENCY_COLUMNS = APPLYMON_LATENCIES


@dataclass(frozen=True)
class Interval:
    """One observed monitor interval.

    Attributes
    ----------
    monitor_time : datetime
        APPLYMON MONITOR_TIME (end of the interval).
    queue : str
        RECVQ.
    interval_s : float
        Length of the interval, s.
    offered_rows_per_s : float
        Rows the source offered (CAPQMON ROWS_PUBLISHED / s; ROWS_APPLIED / s when no CAPQMON row matches).
    measured : dict[str, float]
        Engine metric name -> measured value (rows/s, ms, KB).
    """

    monitor_time: datetime
    queue: str
    interval_s: float
    offered_rows_per_s: float
    measured: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FitModel:
    """A coefficient-parameterised steady-state predictor.

    Attributes
    ----------
    name : str
        The engine module.
    parameters : dict[str, tuple[float, float, float, str]]
        Coefficient -> (base value, low, high, unit).
    predict : callable
        ``predict(settings, coefficients) -> Prediction``.
    version : str
        Version of the base coefficients.
    """

    name: str
    parameters: dict
    predict: Callable
    version: str = ""
    timing: tuple = ()
    """The coefficients of ``parameters`` only the timing columns pin (the engine's ``timing_fit_parameters``)."""


def _normalise_entry(name: str, entry, module_name: str) -> tuple[float, float, float, str]:
    """``(value, low, high, unit)`` from a tuple or a coefficient-file-style mapping; checks the bounds."""
    where = f"{module_name}.fit_parameters: coefficient {name!r}"
    try:
        if isinstance(entry, Mapping):
            value = float(entry["value"])
            if "bounds" in entry:
                low, high = (float(b) for b in entry["bounds"])
            else:
                low, high = float(entry["low"]), float(entry["high"])
            unit = str(entry.get("unit", ""))
        else:
            value, low, high, unit = entry
            value, low, high, unit = float(value), float(low), float(high), str(unit)
    except (KeyError, TypeError, ValueError) as e:
        raise FitError(
            f"{where}: expected (value, low, high, unit) or {{'value', 'bounds', 'unit'}}, got "
            f"{entry!r} ({e})"
        ) from None
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low <= value <= high):
        raise FitError(
            f"{where}: value {value:g} with bounds [{low:g}, {high:g}]; expected 0 < low <= value <= high "
            "(the fit works on log ratios)"
        )
    return value, low, high, unit


def _fit_parameters(module, name: str, settings: dict) -> dict[str, tuple[float, float, float, str]]:
    """``module.fit_parameters(settings)`` normalised (:func:`_normalise_entry`), ``name`` in the errors.

    Raises
    ------
    FitError
        The engine does not expose fittable coefficients, or offers one with bounds that do not
        hold its value.
    """
    if not hasattr(module, "fit_parameters"):
        raise FitError(
            f"the {settings.get('kind')} engine ({name}) does not expose fittable coefficients "
            "(fit_parameters(settings) and predict(settings, coefficients)) yet"
        )
    return {k: _normalise_entry(k, v, name) for k, v in module.fit_parameters(settings).items()}


def check_engine_contract(module, settings: dict) -> dict[str, tuple[float, float, float, str]]:
    """Check ``module`` against the fit contract on ``settings``; returns its normalised parameters.

    Checks that ``fit_parameters`` offers at least one coefficient with valid bounds, that
    ``predict(settings, base values)`` equals ``predict(settings)`` (metric by metric), and
    that ``predict`` answers a changed coefficient (each one at its bound moves some metric).

    Raises
    ------
    FitError
        The module breaks the contract; the message says how.
    """
    name = getattr(module, "__name__", str(module))
    params = _fit_parameters(module, name, settings)
    if not params:
        raise FitError(f"{name}.fit_parameters offers no coefficient for this scenario")
    base = {k: v[0] for k, v in params.items()}
    plain, with_base = module.predict(settings).metrics, module.predict(settings, dict(base)).metrics
    differ = [m for m in plain if not _close(plain[m], with_base.get(m))]
    if differ:
        raise FitError(
            f"{name}.predict(settings, base coefficients) differs from predict(settings) in "
            f"{', '.join(differ[:5])}: the values fit_parameters reports must be the ones in use"
        )
    deaf = []
    for k, (value, low, high, _) in params.items():
        moved = dict(base, **{k: high if high > value else low})
        if all(_close(v, module.predict(settings, moved).metrics.get(m)) for m, v in plain.items()):
            deaf.append(k)
    if deaf:
        raise FitError(
            f"{name}.predict ignores coefficient {', '.join(deaf)} (no metric moves at its bound): "
            "do not offer it to the fit, or pass the override through"
        )
    return params


def _close(a, b, rel: float = 1e-9) -> bool:
    if a is None or b is None:
        return a is b
    if not (math.isfinite(a) and math.isfinite(b)):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def engine_fit_model(settings: dict, module_name: str | None = None, timing: bool = False) -> FitModel:
    """The :class:`FitModel` of the engine for ``settings["kind"]`` (or of ``module_name``).

    With ``timing`` (the intervals have the 10.2.1+ timing columns) the model also offers the
    coefficients of the engine's optional ``timing_fit_parameters(settings)`` (same form as
    ``fit_parameters``), named in :attr:`FitModel.timing`.

    Raises
    ------
    UnsupportedKindError
        No engine exists for the kind.
    FitError
        The engine does not expose fittable coefficients (see the module docstring), or
        offers one with bounds that do not hold its value.
    """
    if module_name is None:
        predictor(settings.get("kind", ""))  # raises UnsupportedKindError when missing
        module_name = ENGINE_MODULES[settings["kind"]]
    module = importlib.import_module(module_name)
    params = _fit_parameters(module, module_name, settings)
    if not params:
        raise FitError(
            f"the {settings.get('kind')} engine ({module_name}) offers no coefficient to fit for this project"
        )
    extra = {}
    if timing and hasattr(module, "timing_fit_parameters"):
        extra = {
            k: _normalise_entry(k, v, module_name)
            for k, v in module.timing_fit_parameters(settings).items()
            if k not in params
        }
    version = module.predict(settings).coefficients_version  # the plain one, not an override's
    return FitModel(module_name, {**params, **extra}, module.predict, version or "", tuple(extra))


def fitted_predict(settings: dict, fit: Mapping, module_name: str | None = None):
    """Predict ``settings`` with the coefficients of a stored fit (:meth:`engine.store.Store.latest_fit`).

    The engine is ``module_name``, else the one the fit was made with (its report's ``model``),
    else the engine of ``settings["kind"]``.

    Returns
    -------
    (Prediction, str)
        The prediction (its ``coefficients_version`` ends in ``+fit<ID>`` unless the engine
        already marks overridden coefficients with a ``+``) and a note ("" when the fit was made on the engine's current
        coefficients; else a warning that the base coefficients have changed since).

    Raises
    ------
    FitError
        The engine no longer offers a coefficient the fit adjusted.
    """
    model = engine_fit_model(settings, module_name or (fit.get("report") or {}).get("model") or None)
    coefficients = {k: float(v) for k, v in fit["coefficients"].items()}
    unknown = [k for k in coefficients if k not in model.parameters]
    if unknown:
        raise FitError(
            f"fit {fit.get('id')} adjusted {', '.join(unknown)}, which the engine no longer offers; "
            "fit again with qrtune fit"
        )
    note = ""
    base_version = fit.get("base_coefficients_version") or ""
    if base_version and model.version and base_version != model.version:
        note = (
            f"fit {fit.get('id')} was made on coefficients {base_version}; the engine now has {model.version} "
            "(fit again with qrtune fit to follow them)"
        )
    pred = model.predict(settings, coefficients)
    if "+" not in (pred.coefficients_version or ""):  # stored runs must not pass for plain ones
        pred = replace(
            pred, coefficients_version=f"{pred.coefficients_version or model.version}+fit{fit.get('id', '')}"
        )
    return pred, note


def _settings_at(settings: dict, offered_rows_per_s: float) -> dict:
    s = copy.deepcopy(settings)
    s.setdefault("workload", {})["offered_rows_per_s"] = float(offered_rows_per_s)
    return s


def _at_rates(settings: dict, intervals: Sequence[Interval]) -> list[dict]:
    """The project's settings at each interval's offered rate (one copy per interval)."""
    return [_settings_at(settings, iv.offered_rows_per_s) for iv in intervals]


def predict_intervals(
    model: FitModel, settings: dict, intervals: Sequence[Interval], coefficients: dict, at: list | None = None
) -> list[dict]:
    """The engine's metrics for each interval at its offered rate, with ``coefficients``.

    ``at`` is :func:`_at_rates` of the intervals when already made (the fit's loop makes it once).
    """
    return [model.predict(s, coefficients).metrics for s in (at or _at_rates(settings, intervals))]


def _pairs(intervals: Sequence[Interval], predicted: Sequence[dict]):
    for iv, pred in zip(intervals, predicted):
        for metric, meas in iv.measured.items():
            p = pred.get(metric)
            if p is not None and meas > 0 and p is not None and math.isfinite(p) and p > 0:
                yield metric, float(p), float(meas)


def error_pct(
    model: FitModel, settings: dict, intervals: Sequence[Interval], coefficients: dict, at: list | None = None
) -> dict:
    """Absolute percentage errors of predicted vs measured on ``intervals``.

    Returns
    -------
    dict
        ``median_pct`` (median absolute % error, all metric values pooled), ``mean_metric_pct``
        (the mean over metrics of each metric's median absolute % error: every metric counts
        once, so a latency far off is not hidden by throughputs that match trivially; the
        headline ``qrtune fit`` prints and stores), ``by_metric`` {metric: median %}, ``n_values``.
    """
    pairs = list(_pairs(intervals, predict_intervals(model, settings, intervals, coefficients, at)))
    if not pairs:
        return {"median_pct": float("nan"), "mean_metric_pct": float("nan"), "by_metric": {}, "n_values": 0}
    errs: dict[str, list[float]] = {}
    for metric, p, m in pairs:
        errs.setdefault(metric, []).append(100.0 * abs(p - m) / m)
    pooled = [e for v in errs.values() for e in v]
    by_metric = {k: float(np.median(v)) for k, v in errs.items()}
    return {
        "median_pct": float(np.median(pooled)),
        "mean_metric_pct": float(np.mean(list(by_metric.values()))),
        "by_metric": by_metric,
        "n_values": len(pooled),
    }


def comparison_rows(
    model: FitModel,
    settings: dict,
    intervals: Sequence[Interval],
    before: dict,
    after: dict,
    held_out: Sequence[Interval] = (),
) -> list[dict]:
    """Measured and predicted values interval by interval (for overlays and ``qrtune fit --export``).

    Returns
    -------
    list of dict
        One per interval and measured metric: ``monitor_time``, ``queue``, ``held_out`` (bool),
        ``offered_rows_per_s``, ``metric``, ``measured``, ``predicted_before`` (with ``before``
        coefficients), ``predicted_after`` (with ``after``), in the metric's unit.
    """
    held = {id(iv) for iv in held_out}
    p_before = predict_intervals(model, settings, intervals, before)
    p_after = predict_intervals(model, settings, intervals, after)
    rows = []
    for iv, pb, pa in zip(intervals, p_before, p_after):
        for metric, measured in iv.measured.items():
            rows.append(
                {
                    "monitor_time": iv.monitor_time,
                    "queue": iv.queue,
                    "held_out": id(iv) in held,
                    "offered_rows_per_s": iv.offered_rows_per_s,
                    "metric": metric,
                    "measured": measured,
                    "predicted_before": pb.get(metric),
                    "predicted_after": pa.get(metric),
                }
            )
    return rows


@dataclass(frozen=True)
class FitResult:
    """Outcome of :func:`fit_coefficients`.

    Attributes
    ----------
    base : dict[str, float]
        Coefficients before.
    fitted : dict[str, float]
        Coefficients after.
    units : dict[str, str]
    n_fit, n_holdout : int
        Intervals fitted and held out (at most ``max_intervals`` each).
    n_fit_total, n_holdout_total : int
        Intervals on each side of the split before spacing them out.
    fit_intervals, held_intervals : tuple[Interval, ...]
        The intervals fitted and held out (for :func:`comparison_rows`; not in :meth:`to_json`).
    before, after : dict
        :func:`error_pct` on the held-out intervals with the base and the fitted coefficients.
    train_after : dict
        :func:`error_pct` on the fitted intervals after the fit.
    n_predictions : int
        Engine predictions the least-squares loop made.
    stopped_at : str
        Empty when the fit converged (to :data:`FIT_TOLERANCE`); else the budget it stopped at
        (``"15.2 s (the budget is 15 s)"``), the coefficients being the best seen until then.
    bounds : dict[str, tuple[float, float]]
        Each coefficient's physical range (low, high), in its unit.
    """

    base: dict
    fitted: dict
    units: dict
    n_fit: int
    n_holdout: int
    before: dict
    after: dict
    train_after: dict
    model: str = ""
    base_version: str = ""
    n_fit_total: int = 0
    n_holdout_total: int = 0
    fit_intervals: tuple = ()
    held_intervals: tuple = ()
    n_predictions: int = 0
    stopped_at: str = ""
    bounds: dict = field(default_factory=dict)
    without_timing: dict = field(default_factory=dict)
    """When the intervals have timing columns: the same fit without them (neither fitted to nor
    their coefficients adjusted), ``fitted`` and ``after`` (:func:`error_pct` on the held-out
    intervals); else empty."""

    def bound_hit(self, name: str) -> str:
        """``"upper"`` or ``"lower"`` when coefficient ``name`` was fitted to that end of its range
        (within :data:`AT_BOUND_SHARE` of it), else "".

        A coefficient at a bound says the intervals ask for more than the engine's mechanism
        can give within its physical range: a setting of the project may not match the system.
        """
        low, high = self.bounds.get(name, (None, None))
        value = self.fitted.get(name)
        if value is None or low is None or value == self.base.get(name):
            return ""
        if value >= high * (1.0 - AT_BOUND_SHARE):
            return "upper"
        if value <= low * (1.0 + AT_BOUND_SHARE):
            return "lower"
        return ""

    def at_bound(self) -> dict:
        """Coefficient -> ``"upper"`` or ``"lower"``, for those fitted to a bound (:meth:`bound_hit`)."""
        return {name: hit for name in self.fitted if (hit := self.bound_hit(name))}

    def to_json(self) -> dict:
        """Plain data for JSON output and the store."""
        return {
            "model": self.model,
            "base_version": self.base_version,
            "base": self.base,
            "fitted": self.fitted,
            "units": self.units,
            "n_fit": self.n_fit,
            "n_holdout": self.n_holdout,
            "n_fit_total": self.n_fit_total,
            "n_holdout_total": self.n_holdout_total,
            "holdout_error_before": self.before,
            "holdout_error_after": self.after,
            "fit_error_after": self.train_after,
            "n_predictions": self.n_predictions,
            "stopped_at_budget": self.stopped_at,
            "at_bound": self.at_bound(),
            "without_timing": {
                "fitted": self.without_timing.get("fitted", {}),
                "holdout_error_after": self.without_timing.get("after", {}),
            }
            if self.without_timing
            else {},
        }


def split(intervals: Sequence[Interval], holdout_every: int = 4) -> tuple[list[Interval], list[Interval]]:
    """(fit, held out): every ``holdout_every``-th interval in time order is held out."""
    if holdout_every < 2:
        raise FitError(f"holdout_every must be 2 or more, got {holdout_every}")
    fit = [iv for k, iv in enumerate(intervals) if k % holdout_every != holdout_every - 1]
    held = [iv for k, iv in enumerate(intervals) if k % holdout_every == holdout_every - 1]
    return fit, held


def evenly(items: Sequence, n: int) -> list:
    """At most ``n`` of ``items``, evenly spaced over the sequence (all of them when there are fewer)."""
    if len(items) <= n:
        return list(items)
    return [items[k] for k in np.linspace(0, len(items) - 1, n).round().astype(int)]


_SAMPLED = "_qrtune_fit_intervals"
"""Temporary table of the usable intervals while :func:`sample_intervals` picks its sample."""
_MEASURED = (
    "apply_rows_per_s",
    *LATENCY_COLUMNS.values(),
    "capture_rows_per_s",
    "msg_size_kb",
    *TIMING_METRICS,
)
"""Measured metrics of an interval, in the order :attr:`Interval.measured` lists them."""


def _lengths_sql(relation: str, default_interval_s: float) -> str:
    """``relation`` with ``interval_s``: MONITOR_INTERVAL where imported, else the spacing of MONITOR_TIME, else the default."""
    return (
        "SELECT *, coalesce(CASE WHEN MONITOR_INTERVAL > 0 THEN MONITOR_INTERVAL / 1000.0 END, length_s, "
        f"CAST('{float(default_interval_s)!r}' AS DOUBLE)) AS interval_s FROM ({interval_lengths_sql(relation)})"
    )


def _seconds(column: str) -> str:
    return f"(epoch_us({column}) / 1e6)"


def _timing_picks(table: str) -> str:
    return "".join(f", {t.sql()} AS {t.metric}" for t in of_table(table))


def _capq_sql(default_interval_s: float) -> str:
    """The IBMQREP_CAPQMON rows (relation ``capq_wide``) as offered rows/s, message size (KB) and MQPUT time by MONITOR_TIME."""
    return (
        "SELECT monitor_time AS c_time, CASE WHEN ROWS_PUBLISHED > 0 THEN ROWS_PUBLISHED / interval_s END AS "
        "capture_rows_per_s, CASE WHEN MQ_MESSAGES > 0 THEN MQ_BYTES / MQ_MESSAGES / 1024.0 END AS msg_size_kb"
        f"{_timing_picks('IBMQREP_CAPQMON')} FROM ({_lengths_sql('capq_wide', default_interval_s)})"
    )


def _capmon_sql() -> str:
    """The IBMQREP_CAPMON rows (relation ``capmon_wide``) as MQCMIT time by MONITOR_TIME."""
    return f"SELECT monitor_time AS c_time{_timing_picks('IBMQREP_CAPMON')} FROM capmon_wide"


def _nearest_sql(base: str, relation: str, metrics: Sequence[str]) -> str:
    """``base`` with ``metrics`` of the row of ``relation`` (by ``c_time``) nearest its MONITOR_TIME within half an interval."""
    t, p, n = _seconds("b.monitor_time"), _seconds("p.c_time"), _seconds("n.c_time")
    prev = f"p.c_time IS NOT NULL AND (n.c_time IS NULL OR {t} - {p} <= {n} - {t})"
    near = f"(CASE WHEN {prev} THEN {t} - {p} ELSE {n} - {t} END) <= 0.5 * b.interval_s"
    picks = "".join(
        f", CASE WHEN {near} THEN (CASE WHEN {prev} THEN p.{m} ELSE n.{m} END) END AS {m}" for m in metrics
    )
    return (
        f"SELECT b.*{picks} FROM ({base}) b ASOF LEFT JOIN {relation} p ON b.monitor_time >= p.c_time "
        f"ASOF LEFT JOIN {relation} n ON b.monitor_time <= n.c_time"
    )


def _intervals_sql(
    has_trans: bool, with_capq: bool, default_interval_s: float, with_capmon: bool = False
) -> str:
    """SQL of the usable intervals, in time order, from relations ``apply_wide``, ``capq_wide``, ``capmon_wide``.

    Columns ``monitor_time``, ``queue``, ``interval_s``, ``offered_rows_per_s``, ``k`` (0-based
    position in time order) and one per :data:`_MEASURED` metric (NULL where not measured).
    ``has_trans``: IBMQREP_APPLYMON has TRANS_APPLIED (latencies only of intervals that applied
    transactions); ``with_capq`` (``with_capmon``): match the nearest IBMQREP_CAPQMON
    (IBMQREP_CAPMON) row within half an interval.
    """
    trans_ok = "TRANS_APPLIED > 0" if has_trans else "TRUE"
    latencies = ", ".join(
        f'CASE WHEN {trans_ok} AND "{col}" > 0 THEN "{col}" END AS {metric}'
        for col, metric in LATENCY_COLUMNS.items()
    )
    source = (
        f"SELECT monitor_time, queue, interval_s, ROWS_APPLIED / interval_s AS apply_rows_per_s, {latencies}"
        f"{_timing_picks('IBMQREP_APPLYMON')} "
        f"FROM ({_lengths_sql('apply_wide', default_interval_s)}) WHERE ROWS_APPLIED > 0"
    )
    relations = []
    for wanted, name, sql in (
        (with_capq, "capq", _capq_sql(default_interval_s)),
        (with_capmon, "capmon", _capmon_sql()),
    ):
        metrics = [m for m in _MEASURED if f" AS {m}" in sql]
        if wanted:
            source = _nearest_sql(source, name, metrics)
            relations.append(f"{name} AS ({sql})")
        else:
            source = f"SELECT *{''.join(f', NULL::DOUBLE AS {m}' for m in metrics)} FROM ({source})"
    prefix = f"WITH {', '.join(relations)} " if relations else ""
    return (
        f"{prefix}SELECT monitor_time, queue, interval_s, coalesce(capture_rows_per_s, apply_rows_per_s) "
        f"AS offered_rows_per_s, {', '.join(_MEASURED)}, "
        f"row_number() OVER (ORDER BY monitor_time, queue) - 1 AS k FROM ({source})"
    )


def _interval_objects(rows: list) -> list[Interval]:
    """:class:`Interval` per row of :func:`_intervals_sql` (columns in its order, ``k`` last)."""
    out = []
    for monitor_time, queue, interval_s, offered, *measured, _ in rows:
        values = {m: float(v) for m, v in zip(_MEASURED, measured) if v is not None}
        out.append(Interval(monitor_time, str(queue), float(interval_s), float(offered), values))
    return out


def _no_rows_error() -> FitError:
    return FitError(
        "no imported IBMQREP_APPLYMON rows with ROWS_APPLIED to fit to; "
        "import exports with qrtune import-monitor FILE... --project PROJECT"
    )


def _wide_relation(con, name: str, table: Mapping | None, columns: Sequence[str]) -> None:
    """Register a wide table of :func:`engine.monitor.importer.load_monitor_rows` as view ``name`` (NaN as NULL)."""
    table = table or {
        "monitor_time": np.asarray([], dtype="datetime64[us]"),
        "queue": np.asarray([], dtype=object),
    }
    data = {
        "monitor_time": np.asarray(table["monitor_time"]).astype("datetime64[us]"),
        "queue": table["queue"],
    }
    picks = []
    for k, col in enumerate(columns):
        if col in table:
            data[f"c{k}"] = np.asarray(table[col], dtype=np.float64)
            picks.append(f'CASE WHEN isnan(c{k}) THEN NULL ELSE c{k} END AS "{col}"')
        else:
            picks.append(f'NULL::DOUBLE AS "{col}"')
    con.register(f"{name}_np", {k: np.asarray(v) for k, v in data.items()})
    con.execute(
        f"CREATE VIEW {name} AS SELECT queue::VARCHAR AS queue, monitor_time, {', '.join(picks)} FROM {name}_np"
    )


def intervals_from_monitor(tables: Mapping[str, dict], default_interval_s: float = 10.0) -> list[Interval]:
    """Observed intervals from the wide tables of :func:`engine.monitor.importer.load_monitor_rows`.

    Intervals with no applied rows are left out (their latencies are reported as 0 by the product).
    The same SQL as :func:`sample_intervals` runs over the arrays (in an in-memory DuckDB).

    Raises
    ------
    FitError
        No IBMQREP_APPLYMON rows, or none with ROWS_APPLIED.
    """
    import duckdb

    apply_ = tables.get("IBMQREP_APPLYMON")
    if not apply_ or "ROWS_APPLIED" not in apply_:
        raise _no_rows_error()
    capq = tables.get("IBMQREP_CAPQMON")
    with_capq = capq is not None and "ROWS_PUBLISHED" in capq
    capmon = tables.get("IBMQREP_CAPMON")
    with_capmon = capmon is not None and any(c in capmon for c in CAPMON_READ)
    con = duckdb.connect()
    try:
        _wide_relation(con, "apply_wide", apply_, APPLYMON_READ)
        _wide_relation(con, "capq_wide", capq if with_capq else None, CAPQMON_READ)
        _wide_relation(con, "capmon_wide", capmon if with_capmon else None, CAPMON_READ)
        sql = _intervals_sql("TRANS_APPLIED" in apply_, with_capq, default_interval_s, with_capmon)
        out = _interval_objects(con.execute(sql + " ORDER BY k").fetchall())
    finally:
        con.close()
    if not out:
        raise FitError("the imported IBMQREP_APPLYMON rows applied no rows; nothing to fit to")
    return out


@dataclass(frozen=True)
class IntervalSample:
    """The intervals a fit uses: every ``holdout_every``-th held out, at most ``max_intervals`` a side.

    Attributes
    ----------
    fit, held : tuple[Interval, ...]
        Evenly spaced in time over the intervals of each side (:func:`evenly`).
    n_fit_total, n_holdout_total : int
        Intervals on each side of the split before spacing them out.
    """

    fit: tuple
    held: tuple
    n_fit_total: int
    n_holdout_total: int


def _split_positions(n: int, holdout_every: int, max_intervals: int) -> tuple[list[int], list[int], int, int]:
    """Time-order positions of the fitted and held-out intervals :func:`sample_of` would take out of ``n``."""
    positions = np.arange(n)
    fit_all, held_all = split(positions, holdout_every)
    return evenly(fit_all, max_intervals), evenly(held_all, max_intervals), len(fit_all), len(held_all)


def sample_of(
    intervals: Sequence[Interval], holdout_every: int = 4, max_intervals: int = MAX_INTERVALS
) -> IntervalSample:
    """The :class:`IntervalSample` of a list of intervals (in time order)."""
    fit_k, held_k, n_fit, n_held = _split_positions(len(intervals), holdout_every, max_intervals)
    return IntervalSample(
        tuple(intervals[k] for k in fit_k), tuple(intervals[k] for k in held_k), n_fit, n_held
    )


def sample_intervals(
    store,
    project_name: str | None,
    default_interval_s: float = 10.0,
    holdout_every: int = 4,
    max_intervals: int = MAX_INTERVALS,
) -> IntervalSample:
    """The :class:`IntervalSample` of the intervals imported into ``store`` (for ``project_name``; None: all).

    DuckDB merges the imported cells and derives each interval once (into a temporary table)
    and picks the sample from it; only the picked intervals reach Python, and DuckDB works within
    :data:`engine.store.monitor.MONITOR_MEMORY_LIMIT` (writing to disk beyond it), so memory does
    not grow with the number of imported rows.
    The intervals are those of :func:`intervals_from_monitor` on :func:`engine.monitor.importer.load_monitor_rows`.

    Raises
    ------
    FitError
        No IBMQREP_APPLYMON rows, or none with ROWS_APPLIED, or ``holdout_every`` below 2.
    """
    present = store.monitor_columns(project_name)
    apply_cols = present.get("IBMQREP_APPLYMON", ())
    if "ROWS_APPLIED" not in apply_cols:
        raise _no_rows_error()
    with_capq = "ROWS_PUBLISHED" in present.get("IBMQREP_CAPQMON", ())
    apply_sql, apply_args = store.monitor_wide_sql("IBMQREP_APPLYMON", APPLYMON_READ, project_name)
    capq_sql, capq_args = store.monitor_wide_sql("IBMQREP_CAPQMON", CAPQMON_READ, project_name)
    with_capmon = any(c in present.get("IBMQREP_CAPMON", ()) for c in CAPMON_READ)
    capmon_sql, capmon_args = store.monitor_wide_sql("IBMQREP_CAPMON", CAPMON_READ, project_name)
    intervals = _intervals_sql("TRANS_APPLIED" in apply_cols, with_capq, default_interval_s, with_capmon)
    sql = (
        f"WITH apply_wide AS ({apply_sql}), capq_wide AS ({capq_sql}), capmon_wide AS ({capmon_sql}) "
        f"SELECT * FROM ({intervals})"
    )
    con = store.con
    with store.monitor_memory_limit():
        args = apply_args + capq_args + capmon_args
        con.execute(f"CREATE OR REPLACE TEMP TABLE {_SAMPLED} AS {sql}", args).fetchall()
        try:
            n = int(con.execute(f"SELECT count(*) FROM {_SAMPLED}").fetchall()[0][0])
            if not n:
                raise FitError("the imported IBMQREP_APPLYMON rows applied no rows; nothing to fit to")
            fit_k, held_k, n_fit, n_held = _split_positions(n, holdout_every, max_intervals)
            wanted = sorted({int(k) for k in (*fit_k, *held_k)})
            rows = con.execute(
                f"SELECT * FROM {_SAMPLED} WHERE k IN (SELECT unnest(?::BIGINT[])) ORDER BY k", [wanted]
            ).fetchall()
        finally:
            con.execute(f"DROP TABLE IF EXISTS {_SAMPLED}").fetchall()
    by_k = dict(zip(wanted, _interval_objects(rows)))
    return IntervalSample(tuple(by_k[k] for k in fit_k), tuple(by_k[k] for k in held_k), n_fit, n_held)


def _fitted_names(model: FitModel, only: Sequence[str] | None) -> list[str]:
    names = list(only) if only else list(model.parameters)
    unknown = [n for n in names if n not in model.parameters]
    if unknown:
        raise FitError(
            f"coefficient {', '.join(unknown)} is not fittable; the engine offers: "
            f"{', '.join(model.parameters)}"
        )
    return names


def fit_coefficients(
    model: FitModel,
    settings: dict,
    intervals: Sequence[Interval],
    holdout_every: int = 4,
    only: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    max_intervals: int = MAX_INTERVALS,
) -> FitResult:
    """Fit ``model``'s coefficients to ``intervals`` (bounded least squares on log ratios).

    Parameters
    ----------
    model : FitModel
    settings : dict
        The project's scenario settings.
    intervals : sequence of Interval
    holdout_every : int
        Every n-th interval is held out of the fit and used to judge it.
    only : sequence of str, optional
        Fit only these coefficients (default: all the engine offers).
    metrics : sequence of str, optional
        Fit to these measured metrics only (default: every metric both sides have); the
        errors before and after are still reported for all.
    max_intervals : int
        After the split, at most this many fitted and this many held-out intervals are
        used, evenly spaced in time (``n_fit_total`` / ``n_holdout_total`` of the result
        say how many there were).

    Raises
    ------
    FitError
        Fewer than 4 intervals, an unknown coefficient in ``only``, or nothing to compare.
    """
    if len(intervals) < 4:
        raise FitError(f"{len(intervals)} usable interval(s); at least 4 are needed to fit and hold some out")
    _fitted_names(model, only)
    return fit_sample(model, settings, sample_of(intervals, holdout_every, max_intervals), only, metrics)


#: Relative change (of a coefficient, in log space, and of the cost) below which the fit stops: monitor
#: latencies are whole milliseconds of interval means, counters are rounded, and interval-to-interval
#: noise is a few percent, so a 0.1% change in a coefficient or in the sum of squared log ratios is
#: below what the data resolve (scipy's ``xtol`` / ``ftol``).
FIT_TOLERANCE = 1e-3
#: Step of the 2-point Jacobian in log space (a 0.1% change of a coefficient): large enough to move
#: the engine's predictions well above its own numerical noise, small against the fit's resolution.
FIT_DIFF_STEP = 1e-3
#: What a user is told when a fitted coefficient ends at a bound of its range.
AT_BOUND_ADVICE = (
    "A coefficient at a bound of its physical range: the intervals ask for more than the engine's "
    "mechanism gives there. Check the project's settings against the system (LPAR processors, network "
    "latency, BATCHSZ, NUM_APPLY_AGENTS) before trusting the fitted values."
)
#: A fitted coefficient within this share of an end of its range is reported at that bound: ten
#: times the fit's resolution (:data:`FIT_TOLERANCE`), so a value the solver left a step short of
#: the bound counts.
AT_BOUND_SHARE = 10 * FIT_TOLERANCE


class _BudgetSpent(Exception):
    """Raised inside the residuals to leave the solver when the fit's budget is spent."""


@dataclass
class _Budget:
    """The fit's budget (predictions and wall clock) and the best point the residuals have seen."""

    max_predictions: int
    budget_s: float
    per_evaluation: int
    progress: Callable | None = None
    started: float = field(default_factory=lambda: time.monotonic())
    predictions: int = 0
    best_cost: float = math.inf
    best_x: np.ndarray | None = None
    stopped_at: str = ""

    def spend(self) -> None:
        """Count one evaluation of the residuals; raise :class:`_BudgetSpent` when the budget is spent."""
        elapsed_s = time.monotonic() - self.started
        if self.predictions + self.per_evaluation > self.max_predictions:
            self.stopped_at = (
                f"{self.predictions:,} engine predictions (the budget is {self.max_predictions:,})"
            )
        elif elapsed_s > self.budget_s:
            self.stopped_at = f"{elapsed_s:.1f} s (the budget is {self.budget_s:g} s)"
        if self.stopped_at:
            raise _BudgetSpent()
        self.predictions += self.per_evaluation
        if self.progress is not None:
            spent = max(self.predictions / self.max_predictions, elapsed_s / self.budget_s)
            self.progress(
                min(1.0, spent), f"fitting: {self.predictions:,} engine predictions, {elapsed_s:.0f} s"
            )

    def keep(self, x: np.ndarray, residuals: np.ndarray) -> None:
        """Remember ``x`` when its residuals are the smallest seen."""
        cost = float(np.dot(residuals, residuals))
        if cost < self.best_cost:
            self.best_cost, self.best_x = cost, np.array(x, dtype=float)


def fit_sample(
    model: FitModel,
    settings: dict,
    sample: IntervalSample,
    only: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    budget_s: float = FIT_BUDGET_S,
    max_predictions: int = MAX_PREDICTIONS,
    progress: Callable | None = None,
) -> FitResult:
    """Fit ``model``'s coefficients to the intervals of ``sample`` (:func:`sample_intervals`, :func:`sample_of`).

    ``only`` and ``metrics`` are those of :func:`fit_coefficients`. The least-squares loop stops
    when a step changes the coefficients or the cost by less than :data:`FIT_TOLERANCE`, or when
    it has made ``max_predictions`` engine predictions or run ``budget_s`` seconds; then the
    coefficients with the smallest residuals seen are returned and ``stopped_at`` of the
    result says which budget was spent.

    Parameters
    ----------
    budget_s : float
        Wall-clock seconds for the least-squares loop (default :data:`FIT_BUDGET_S`).
    max_predictions : int
        Engine predictions the loop may make (default :data:`MAX_PREDICTIONS`).
    progress : callable, optional
        ``progress(fraction, text)`` after each evaluation (fraction of the budget spent); it
        may raise to cancel the fit.

    Raises
    ------
    FitError
        Fewer than 4 intervals, an unknown coefficient in ``only``, nothing to compare, or a
        budget that is not positive.
    """
    from scipy.optimize import least_squares

    n_total = sample.n_fit_total + sample.n_holdout_total
    if n_total < 4:
        raise FitError(f"{n_total} usable interval(s); at least 4 are needed to fit and hold some out")
    if not (budget_s > 0 and max_predictions > 0):
        raise FitError(
            f"budget_s {budget_s!r} and max_predictions {max_predictions!r}: both must be positive"
        )
    names = _fitted_names(model, only)
    fit_set, held = sample.fit, sample.held
    base = {k: float(v[0]) for k, v in model.parameters.items()}
    lo = np.array([math.log(model.parameters[n][1] / base[n]) for n in names])
    hi = np.array([math.log(model.parameters[n][2] / base[n]) for n in names])

    def coeffs(x: np.ndarray) -> dict:
        c = dict(base)
        c.update({n: base[n] * math.exp(v) for n, v in zip(names, x)})
        return c

    at = _at_rates(settings, fit_set)  # made once: the solver predicts every interval many times
    base_preds = predict_intervals(model, settings, fit_set, base, at)
    targets = [
        (k, metric, meas)
        for k, (iv, pred) in enumerate(zip(fit_set, base_preds))
        for metric, meas in iv.measured.items()
        if meas > 0 and metric in pred and (not metrics or metric in metrics)
    ]
    if not targets:
        raise FitError("the engine predicts none of the measured metrics; nothing to fit")
    budget = _Budget(max_predictions, budget_s, len(fit_set), progress)

    def residuals(x: np.ndarray) -> np.ndarray:
        budget.spend()
        try:
            preds = predict_intervals(model, settings, fit_set, coeffs(x), at)
        except (QrtuneError, ArithmeticError, ValueError):  # the engine rejects these coefficients: far off
            return np.full(len(targets), 10.0)
        out = np.empty(len(targets))
        for r, (k, metric, meas) in enumerate(targets):
            p = preds[k].get(metric, float("nan"))
            out[r] = math.log(max(p, 1e-9) / meas) if math.isfinite(p) else 10.0
        budget.keep(x, out)
        return out

    x0 = np.clip(np.zeros(len(names)), lo, hi)
    try:
        least_squares(
            residuals,
            x0,
            bounds=(lo, hi),
            method="trf",
            x_scale=1.0,
            diff_step=FIT_DIFF_STEP,
            xtol=FIT_TOLERANCE,
            ftol=FIT_TOLERANCE,
            max_nfev=max_predictions,  # the budget stops it first; nfev leaves out the Jacobian's
        )
    except _BudgetSpent:
        pass
    fitted = coeffs(budget.best_x if budget.best_x is not None else x0)
    return FitResult(
        base=base,
        fitted=fitted,
        units={k: v[3] for k, v in model.parameters.items()},
        n_fit=len(fit_set),
        n_holdout=len(held),
        n_fit_total=sample.n_fit_total,
        n_holdout_total=sample.n_holdout_total,
        fit_intervals=tuple(fit_set),
        held_intervals=tuple(held),
        before=error_pct(model, settings, held, base),
        after=error_pct(model, settings, held, fitted),
        train_after=error_pct(model, settings, fit_set, fitted, at),
        model=model.name,
        base_version=model.version,
        n_predictions=budget.predictions,
        stopped_at=budget.stopped_at,
        bounds={k: (float(v[1]), float(v[2])) for k, v in model.parameters.items()},
    )


def measures_timing(sample: IntervalSample) -> bool:
    """Whether some interval of ``sample`` has a timing column (:data:`engine.monitor.timing.TIMING_COLUMNS`)."""
    return any(m in iv.measured for iv in (*sample.fit, *sample.held) for m in TIMING_METRICS)


def fit_with_timing(
    model: FitModel,
    settings: dict,
    sample: IntervalSample,
    only: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    **budget,
) -> FitResult:
    """:func:`fit_sample`, and when ``sample`` has timing columns the same fit without them for comparison.

    The fit without them fits to the other measured metrics and leaves the coefficients only
    they pin (:attr:`FitModel.timing`) at their base values; its fitted coefficients and
    held-out errors (every metric, the timing ones included) are the result's ``without_timing``.
    ``budget`` holds :func:`fit_sample`'s ``budget_s``, ``max_predictions``, ``progress`` (each
    fit gets the whole budget).
    """
    result = fit_sample(model, settings, sample, only, metrics, **budget)
    if not measures_timing(sample):
        return result
    names = [n for n in _fitted_names(model, only) if n not in model.timing]
    measured = {m for iv in sample.fit for m in iv.measured}
    others = [m for m in (metrics or sorted(measured)) if m not in TIMING_METRICS]
    if not names or not others:
        return result
    plain = fit_sample(model, settings, sample, names, others, **budget)
    return replace(result, without_timing={"fitted": plain.fitted, "after": plain.after})


def _counted_row(
    t: datetime, queue: tuple[str, str], interval_s: float, counted: str, rows: float, rows_per_txn: float
) -> dict:
    """The first columns of a monitor row: time, queue, interval and its row and transaction counts.

    Parameters
    ----------
    t : datetime
        MONITOR_TIME.
    queue : tuple[str, str]
        The queue column and the queue's name (``("RECVQ", "QA.TO.QB.RECVQ")``).
    interval_s : float
        The interval, s (MONITOR_INTERVAL is in ms).
    counted : str
        What the counters count: ``rows`` goes in ``ROWS_<counted>`` and ``rows / rows_per_txn``
        in ``TRANS_<counted>``, both rounded.
    """
    return {
        "MONITOR_TIME": t,
        queue[0]: queue[1],
        "MONITOR_INTERVAL": int(interval_s * 1000),
        f"ROWS_{counted}": round(rows),
        f"TRANS_{counted}": round(rows / rows_per_txn),
    }


def synthesize_intervals(
    model: FitModel,
    settings: dict,
    coefficients: dict,
    offered_rows_per_s: Sequence[float],
    interval_s: float,
    rng: np.random.Generator,
    noise: float = 0.03,
    start: datetime | None = None,
    recvq: str = "QA.TO.QB.RECVQ",
    sendq: str = "QA.TO.QB.SENDQ",
    timing: bool = False,
) -> dict[str, list[dict]]:
    """Monitor rows (APPLYMON and CAPQMON, real column names and units) from the steady-state model.

    Each interval is predicted at its offered rate with ``coefficients``; counters are
    rates times the interval, latencies the predicted means; every value gets
    multiplicative log-normal noise of relative size ``noise``. This stands in for the
    time-domain simulator where that is not available. With ``timing`` the rows also have
    the 10.2.1+ timing columns (:func:`_timing_cells`) and IBMQREP_CAPMON rows are made.
    """
    start = start or datetime(2024, 1, 1)
    apply_rows, capq_rows, capmon_rows = [], [], []
    rows_per_txn = float((settings.get("workload") or {}).get("rows_per_txn") or 1)
    for k, offered in enumerate(offered_rows_per_s):
        pred = model.predict(_settings_at(settings, offered), coefficients).metrics
        t = start + timedelta(seconds=interval_s * (k + 1))

        def jitter(v: float) -> float:
            return float(v) * math.exp(noise * rng.standard_normal())

        applied = jitter(pred["apply_rows_per_s"]) * interval_s
        row = _counted_row(t, ("RECVQ", recvq), interval_s, "APPLIED", applied, rows_per_txn)
        for col, metric in LATENCY_COLUMNS.items():
            if metric in pred:
                row[col] = round(jitter(pred[metric]))
        apply_rows.append(row)
        published = jitter(pred.get("capture_rows_per_s", offered)) * interval_s
        crow = _counted_row(t, ("SENDQ", sendq), interval_s, "PUBLISHED", published, rows_per_txn)
        if "msg_size_kb" in pred:
            msgs = max(
                1,
                round(
                    published
                    / rows_per_txn
                    / SettingsReader(settings, "qrep").integer("qcapture.trans_batch_sz")
                ),
            )
            crow["MQ_MESSAGES"] = msgs
            crow["MQ_BYTES"] = round(jitter(pred["msg_size_kb"]) * 1024 * msgs)
        capq_rows.append(crow)
        if timing:
            capmon = {"MONITOR_TIME": t, "MONITOR_INTERVAL": int(interval_s * 1000)}
            _timing_cells(pred, (row, crow, capmon), applied, jitter)
            capmon_rows.append(capmon)
    out = {"IBMQREP_APPLYMON": apply_rows, "IBMQREP_CAPQMON": capq_rows}
    return {**out, "IBMQREP_CAPMON": capmon_rows} if timing else out


def _timing_cells(pred: dict, rows: tuple, applied_rows: float, jitter: Callable) -> None:
    """Add the timing columns of one interval to its (APPLYMON, CAPQMON, CAPMON) rows.

    The counters are the interval's calls (a commit per transaction, an MQGET per message, the
    CAPQMON row's MQ_MESSAGES, the messages over ``msgs_per_mq_commit``); each time column is
    the predicted mean per call (with noise) times its counter, in ms.
    """
    apply_row, capq_row, capmon_row = rows
    messages = max(1.0, applied_rows / pred["rows_per_msg"])
    apply_row["NUM_DBMS_COMMITS"] = apply_row["TRANS_APPLIED"]
    apply_row["NUM_MQGETS"] = round(messages)
    if "MQ_MESSAGES" in capq_row:
        capmon_row["NUM_MQCMITS"] = max(1, round(capq_row["MQ_MESSAGES"] / pred["msgs_per_mq_commit"]))
    by_table = {"IBMQREP_APPLYMON": apply_row, "IBMQREP_CAPQMON": capq_row, "IBMQREP_CAPMON": capmon_row}
    for t in TIMING_COLUMNS:
        row = by_table[t.table]
        calls = row.get(t.per[0])
        if t.metric in pred and calls:
            row[t.column] = round(jitter(pred[t.metric]) * calls / t.per_ms, 3)


__all__ = [
    "FIT_BUDGET_S",
    "FIT_DIFF_STEP",
    "FIT_TOLERANCE",
    "LATENCY_COLUMNS",
    "MAX_INTERVALS",
    "MAX_PREDICTIONS",
    "FitModel",
    "FitResult",
    "Interval",
    "check_engine_contract",
    "engine_fit_model",
    "error_pct",
    "evenly",
    "IntervalSample",
    "fit_coefficients",
    "fit_sample",
    "fit_with_timing",
    "measures_timing",
    "sample_intervals",
    "sample_of",
    "fitted_predict",
    "intervals_from_monitor",
    "predict_intervals",
    "split",
    "synthesize_intervals",
]
