"""Db2 Mirror over time: changes tracked while replication is suspended, then resynchronised.

While a ``mirror_suspend`` event lasts, every modify on the source is tracked instead of being
mirrored. On resume, the tracked changes are resynchronised to the other node at the resync
rate of the steady-state Db2 Mirror model (:func:`engine.perf.mirror.resync_time_s`: one remote
action per change, ``resync.parallel_degree`` streams bounded by the target's cores), while new
changes are mirrored synchronously again. The tracked backlog is a discrete-time reflected
random walk (Lindley in 1 s bins, vectorised): ``B[k] = max(0, B[k-1] + tracked[k] - resync[k])``.

The change rate is the steady-state model's write operations per second (``throughput`` times
the write fraction), or a profile's rows/s read as changes/s. Resync competing with the running
application for CPU is not modelled.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from engine.errors import FieldError, UnsupportedKindError
from engine.sim import profiles as _profiles
from engine.sim.limits import check_duration, check_rate
from engine.sim.result import SIM_VERSION, SimResult, SimulationCancelled

#: Width of the Db2 Mirror simulation's time bins, s.
MIRROR_BIN_S = 1.0


def mirror_rates(settings: dict, prediction=None) -> tuple[float, float, list[str], str]:
    """Change rate and resync rate of a ``db2mirror`` scenario (changes/s), notes, coefficients version.

    Raises
    ------
    UnsupportedKindError
        The Db2 Mirror engine is not available.
    """
    try:
        from engine.perf import mirror
        from engine.perf.coeffload import load
    except ImportError as e:  # pragma: no cover - the engine ships together
        raise UnsupportedKindError(f"the Db2 Mirror engine is not available ({e})") from None
    if prediction is None:
        from engine.predict import predict_settings

        prediction = predict_settings(settings)
    cfg, _ = mirror.parse_settings(settings)
    coeffs = load("mirror")
    per_change_s = mirror.resync_time_s(replace(cfg, resync_tracked_changes=1.0), coeffs)
    notes = []
    write_frac = cfg.write_frac
    if write_frac is None:
        write_frac = 1.0
        notes.append("write fraction not set: every operation counted as a tracked change")
    ops = prediction.metrics.get("throughput") or prediction.metrics.get("tps") or 0.0
    return float(ops) * write_frac, 1.0 / per_change_s, notes, prediction.coefficients_version


def simulate_mirror_rates(
    changes_per_s: float,
    resync_per_s: float,
    duration_s: float,
    seed=0,
    profile=None,
    events=(),
    progress=None,
    cancel=None,
    notes=(),
    coefficients_version: str = "",
) -> SimResult:
    """Tracked changes and resync over time for given rates (changes/s).

    Parameters
    ----------
    changes_per_s : float
        Source modifies per second when ``profile`` is None.
    resync_per_s : float
        Tracked changes resynchronised per second after a resume (> 0).
    duration_s : float
        Simulated time, s.
    events : iterable of Event
        ``mirror_suspend`` events (others are refused).

    Raises
    ------
    FieldError
        A bad duration (not finite, <= 0 or over the bins limit of :mod:`engine.sim.limits`),
        rate or event kind.
    """
    check_duration(duration_s, MIRROR_BIN_S)
    if not (resync_per_s > 0 and math.isfinite(resync_per_s)):
        raise FieldError("resync rate", resync_per_s, "a rate > 0 changes/s")
    events = tuple(events)
    for e in events:
        if e.kind != "mirror_suspend":
            raise FieldError("--event", e.kind, "mirror_suspend for a Db2 Mirror project")
    if cancel is not None and cancel():
        raise SimulationCancelled("simulation cancelled")
    profile = profile or _profiles.constant(changes_per_s)
    check_rate(profile.peak_rows_per_s(duration_s))
    seq = np.random.SeedSequence(seed)
    rng = np.random.default_rng(seq)
    nb = math.ceil(duration_s / MIRROR_BIN_S)
    edges = np.arange(nb + 1, dtype=float) * (duration_s / nb)
    dt = np.diff(edges)
    # mean rate over each bin: the profile is piecewise constant, sample it finely
    fine = edges[:-1, None] + dt[:, None] * (np.arange(20) + 0.5)[None, :] / 20
    rate = profile.rate_at(fine).mean(axis=1)
    changes = rng.poisson(rate * dt).astype(float)
    suspended = np.zeros(nb)
    for e in events:
        suspended += np.clip(np.minimum(edges[1:], e.end_s) - np.maximum(edges[:-1], e.start_s), 0, None) / dt
    suspended = np.clip(suspended, 0.0, 1.0)
    tracked = rng.binomial(changes.astype(np.int64), suspended).astype(float)
    capacity = resync_per_s * dt * (1.0 - suspended)
    s = np.cumsum(tracked - capacity)
    backlog = s - np.minimum(0.0, np.minimum.accumulate(s))
    resynced = np.concatenate(([0.0], backlog[:-1])) + tracked - backlog
    level = np.concatenate(([0.0], backlog))
    ev_out = []
    for e in events:
        after = np.flatnonzero((edges >= e.end_s) & (level <= 0.0))
        at_resume = float(np.interp(e.end_s, edges, level))
        window = edges >= e.start_s
        ev_out.append(
            {
                **e.to_json(),
                "end_s": e.end_s,
                "tracked_changes_at_resume": at_resume,
                "peak_backlog_rows": float(level[window].max()) if window.any() else None,
                "resync_time_s": at_resume / resync_per_s,
                "catch_up_s": float(edges[after[0]] - e.end_s)
                if after.size and e.end_s <= duration_s
                else None,
            }
        )
    if progress is not None:
        progress(1.0)
    summary = {
        "engine": SIM_VERSION,
        "kind": "db2mirror",
        "coefficients_version": coefficients_version,
        "seed": seq.entropy,
        "duration_s": float(duration_s),
        "profile": profile.to_json(),
        "changes_per_s": float(changes.sum() / duration_s),
        "resync_changes_per_s": resync_per_s,
        "peak_tracked_changes": float(level.max()),
        "tracked_changes_at_end": float(level[-1]),
        "events": ev_out,
        "notes": list(notes),
    }
    ts = {
        "t_s": edges[1:],
        "mirror.changes_per_s": changes / dt,
        "mirror.tracked_changes": backlog,
        "mirror.resync_changes_per_s": resynced / dt,
        "mirror.suspended_fraction": suspended,
    }
    return SimResult({}, ts, summary, None)


#: The keywords of :func:`engine.sim.run.simulate_settings` a Db2 Mirror run takes (the others are Q Replication's).
MIRROR_RUN_KEYWORDS = ("seed", "profile", "events", "progress", "cancel")


def simulate_mirror(settings: dict, duration_s: float, prediction=None, **run) -> SimResult:
    """Simulate a ``db2mirror`` scenario (see the module docstring).

    Parameters
    ----------
    settings : dict
        The scenario.
    duration_s : float
        Simulated time, s.
    prediction : Prediction or None
        Its steady state (None: predicted here).
    **run
        Keywords of :func:`engine.sim.run.simulate_settings`: those named in
        :data:`MIRROR_RUN_KEYWORDS` go to :func:`simulate_mirror_rates`, the others are ignored.
    """
    changes, resync, notes, version = mirror_rates(settings, prediction)
    used = {k: v for k, v in run.items() if k in MIRROR_RUN_KEYWORDS}
    res = simulate_mirror_rates(
        changes, resync, duration_s, notes=notes, coefficients_version=version, **used
    )
    res.settings = settings
    return res
