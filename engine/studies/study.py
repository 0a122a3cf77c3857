"""Simulation studies: knobs x outage scenarios x seeds, simulated in parallel, summarised across seeds.

A study is a sweep whose points are time-domain simulations (:func:`engine.sim.simulate`) instead
of steady-state predictions. Each point is one combination of knob values (the sweep's axes), one
outage scenario (a list of events such as ``channel-stop@2m+5m``) and one seed; it runs on a local
process pool or a Dask cluster (:func:`engine.studies.sweep.run_batches`) and is recorded in the store as
a ``simulate`` run of the study's sweep, with its summary: peak backlog, catch-up time after the
events, END2END latency percentiles, throughput. :func:`distribution` then gives, per knob
combination and scenario, the spread across seeds, e.g. the catch-up time at the 95th percentile:
what can be promised with 95% confidence.

A run that did not catch up within the simulated time has no ``catch_up_s``; it counts as longer
than any that did (the percentile is then reported as not reached within the run).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import FieldError, QrtuneError
from engine.model import Project
from engine.store.sweeps import scenario_text
from engine.studies.sweep import Axis, n_points, point_changes, point_label

SUMMARY_METRICS = (
    "catch_up_s",
    "peak_backlog_rows",
    "end2end_latency_p95_ms",
    "end2end_latency_p99_ms",
    "throughput_rows_per_s",
)
"""The per-run figures whose spread across seeds a study reports."""
PERCENTILES = (50, 95)
"""Percentiles across seeds reported for each figure."""


@dataclass(frozen=True)
class StudyPlan:
    """What a study runs: the knob axes x the outage scenarios x the seeds, for ``duration_s`` each.

    Attributes
    ----------
    axes : tuple of engine.studies.sweep.Axis
        Knob axes (empty: the project as it is).
    scenarios : tuple of tuple of str
        Each scenario's events (``KIND@START+LENGTH[*FACTOR]``); ``()`` is no outage.
    seeds : tuple of int
        Seeds every combination runs with.
    duration_s : float
        Simulated time per run, s.
    rate_rows_per_s : float or None
        Constant offered rate; None: the project's own workload.
    """

    axes: tuple
    scenarios: tuple
    seeds: tuple
    duration_s: float
    rate_rows_per_s: float | None = None

    @property
    def n_knob_points(self) -> int:
        """Combinations of knob values."""
        return n_points(self.axes) if self.axes else 1

    @property
    def n_runs(self) -> int:
        """Runs in the study."""
        return self.n_knob_points * len(self.scenarios) * len(self.seeds)

    def point(self, index: int) -> tuple[int, int, int]:
        """``(knob point, scenario index, seed)`` of run ``index``."""
        knob, rest = divmod(index, len(self.scenarios) * len(self.seeds))
        scenario, seed_index = divmod(rest, len(self.seeds))
        return knob, scenario, self.seeds[seed_index]

    def changes(self, knob: int) -> list:
        """The knob changes of knob point ``knob``."""
        return point_changes(self.axes, knob) if self.axes else []

    def label(self, index: int) -> str:
        """``NUM_APPLY_AGENTS=4 channel-stop@2m+5m seed 3``-style text of run ``index``."""
        knob, scenario, seed = self.point(index)
        knobs = point_label(self.axes, knob) if self.axes else "as is"
        return f"{knobs} {scenario_text(self.scenarios[scenario])} seed {seed}"

    def as_data(self) -> dict:
        """The plan as plain data (stored as the study's axes)."""
        return {
            "axes": [
                {"target": a.target, "param": a.param, "node_ids": list(a.node_ids), "values": list(a.values)}
                for a in self.axes
            ],
            "scenarios": [list(s) for s in self.scenarios],
            "seeds": list(self.seeds),
            "duration_s": self.duration_s,
            "rate_rows_per_s": self.rate_rows_per_s,
            "study": "simulate",
        }


def parse_scenarios(texts: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """``--scenario`` values: events separated by ``,``; ``none`` (or nothing given) is the run without outage.

    Raises
    ------
    FieldError
        An event that :func:`engine.sim.parse_event` rejects.
    """
    from engine.sim import parse_event

    out = []
    for text in texts or ("none",):
        events = tuple(e.strip() for e in text.split(",") if e.strip() and e.strip().lower() != "none")
        for e in events:
            parse_event(e)
        out.append(events)
    return tuple(dict.fromkeys(out))


def parse_seeds(n_seeds: int) -> tuple[int, ...]:
    """Seeds ``0 .. n_seeds - 1``.

    Raises
    ------
    FieldError
        ``n_seeds`` below 1.
    """
    if n_seeds < 1:
        raise FieldError("--seeds", n_seeds, "a number of seeds >= 1")
    return tuple(range(n_seeds))


def run_study_points(project: Project, plan: StudyPlan, batch: Sequence[int]) -> list:
    """Simulate the runs ``batch`` of ``plan`` (runs in a worker).

    Returns
    -------
    list of (index, settings, summary, error)
        ``settings`` as :func:`engine.sim.bundle.simulation_settings` gives them; ``summary``
        the simulation's (:attr:`engine.sim.result.SimResult.summary`: its flat metrics have
        ``catch_up_s`` when every event was caught up), None and ``error`` a one-line message
        when the run failed.
    """
    from engine.sim import parse_event, profiles, simulate
    from engine.sim.bundle import simulation_settings
    from engine.store.bundles import scenario_or_empty

    out = []
    for index in batch:
        knob, scenario, seed = plan.point(index)
        events = plan.scenarios[scenario]
        profile = profiles.constant(plan.rate_rows_per_s) if plan.rate_rows_per_s is not None else None
        p = project
        asked = {"duration_s": plan.duration_s, "seed": seed, "events": events}
        try:
            for node_id, name, value in plan.changes(knob):
                p = p.with_param(node_id, name, value)
            result = simulate(
                p, plan.duration_s, seed=seed, profile=profile, events=[parse_event(e) for e in events]
            )
            settings = simulation_settings(
                scenario_or_empty(p), **asked, profile=result.summary.get("profile")
            )
            out.append((index, settings, result.summary, ""))
        except (QrtuneError, ValueError, ArithmeticError) as e:
            settings = simulation_settings(
                scenario_or_empty(p), **asked, profile=profile.to_json() if profile else None
            )
            out.append((index, settings, None, f"{type(e).__name__}: {e}"))
    return out


def study_key(project_hash: str, plan: StudyPlan, version: str) -> str:
    """What makes two studies the same (resuming one skips the runs already recorded)."""
    from engine.store import canonical_json

    return hashlib.sha256(canonical_json([project_hash, plan.as_data(), version]).encode()).hexdigest()


@dataclass(frozen=True)
class Spread:
    """One figure across the seeds of one knob combination and scenario.

    Attributes
    ----------
    n_runs : int
        Runs that finished (ok).
    n_missing : int
        Runs without the figure (for ``catch_up_s``: not caught up within the run).
    percentiles : dict[int, float or None]
        Percentile -> value (None: beyond the runs that have the figure, e.g. not caught up).
    """

    n_runs: int
    n_missing: int
    percentiles: dict


def spread(values: Sequence[float | None]) -> Spread:
    """Percentiles (:data:`PERCENTILES`) of ``values``; a None counts as larger than every number."""
    have = np.sort(np.asarray([v for v in values if v is not None], dtype=float))
    n = len(values)
    out = {}
    for q in PERCENTILES:
        rank = math.ceil(q / 100.0 * n) if n else 0  # nearest-rank percentile
        out[q] = float(have[rank - 1]) if 0 < rank <= have.size else None
    return Spread(n, n - have.size, out)


def distribution(plan: StudyPlan, results: dict[int, dict]) -> list[dict]:
    """Per knob combination and scenario: the spread of :data:`SUMMARY_METRICS` across seeds.

    Parameters
    ----------
    plan : StudyPlan
    results : dict
        Run index -> its metrics (failed runs left out).

    Returns
    -------
    list of dict
        ``knobs`` (label), ``scenario`` (text), ``n_seeds`` and per figure a :class:`Spread`.
    """
    groups: dict[tuple[int, int], list[dict]] = {}
    for index, metrics in results.items():
        knob, scenario, _ = plan.point(index)
        groups.setdefault((knob, scenario), []).append(metrics)
    rows = []
    for (knob, scenario), runs in sorted(groups.items()):
        row = {
            "knobs": point_label(plan.axes, knob) if plan.axes else "as is",
            "scenario": scenario_text(plan.scenarios[scenario]),
            "n_seeds": len(runs),
        }
        for name in SUMMARY_METRICS:
            row[name] = spread([m.get(name) for m in runs])
        if not plan.scenarios[scenario]:  # no outage: nothing to catch up with
            row["catch_up_s"] = Spread(len(runs), 0, dict.fromkeys(PERCENTILES))
        rows.append(row)
    return rows


__all__ = [
    "PERCENTILES",
    "SUMMARY_METRICS",
    "Axis",
    "Spread",
    "StudyPlan",
    "distribution",
    "parse_scenarios",
    "parse_seeds",
    "run_study_points",
    "spread",
    "study_key",
]
