"""Goal seeking: minimise or maximise one metric subject to bounds on others, over chosen knobs.

A :class:`Goal` names an objective (a predicted metric, a derived metric of
:mod:`engine.advise.outage`, or one of the searched knobs itself, written ``TARGET.PARAM``),
a sense (``min`` or ``max``), constraints (``apply_lpar_busy_pct<=90``) and the knobs to
search, each an :class:`engine.studies.sweep.Axis` (``qapply.num_apply_agents=1..16``). Every point is
a project built with :meth:`~engine.model.Project.with_param` and predicted by the engine
(:func:`engine.predict.predict_project`); results are memoised per point.

Search
------
``exhaustive``
    Every point of the grid, when it has at most ``exhaustive_limit`` points: the exact optimum.
``coordinate``
    Larger grids: start from the best of a few spread points, then improve one knob at a time
    with the others held (a line search per knob) until a full pass changes nothing. A line of
    up to ``line_limit`` values is scanned completely; a longer one coarse-to-fine (evenly
    spaced samples, then the neighbourhood of the best, narrowing down to single steps), which
    finds the boundary of a constraint that is monotone in the knob (the smallest buffer pool
    that holds an outage) in a logarithmic number of runs, like bisection.

Points are ranked feasible first; feasible points by the objective (ties keep the point found
first: the lower knob values in exhaustive order, the current value in a line search);
infeasible ones by their total relative constraint violation, so a search that finds nothing
feasible reports the nearest miss.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.errors import FieldError, QrtuneError
from engine.model import Project
from engine.studies.sweep import Axis, parse_axis

OPS = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, ">": lambda a, b: a > b}
SENSES = {
    "min": "min",
    "minimise": "min",
    "minimize": "min",
    "max": "max",
    "maximise": "max",
    "maximize": "max",
}


@dataclass(frozen=True)
class Constraint:
    """``metric OP value`` (OP one of ``<=``, ``>=``, ``<``, ``>``); a metric the engine does not give fails it."""

    metric: str
    op: str
    value: float

    def satisfied(self, metrics: dict) -> bool:
        v = metrics.get(self.metric)
        return isinstance(v, (int, float)) and not math.isnan(v) and OPS[self.op](v, self.value)

    def violation(self, metrics: dict) -> float:
        """Relative shortfall (0 when satisfied, 1e6 when the metric is missing)."""
        v = metrics.get(self.metric)
        if not isinstance(v, (int, float)) or math.isnan(v):
            return 1e6
        if self.satisfied(metrics):
            return 0.0
        return abs(v - self.value) / max(abs(self.value), 1e-9) + 1e-9

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


@dataclass(frozen=True)
class Goal:
    """What to seek.

    Attributes
    ----------
    objective : str
        Metric name, or ``TARGET.PARAM`` of one of ``knobs`` (the knob's own value).
    sense : str
        ``min`` or ``max``.
    constraints : tuple[Constraint, ...]
    knobs : tuple[Axis, ...]
        Knobs searched and their candidate values.
    fixed : tuple[Axis, ...]
        Knobs held at one value during the search (e.g. the offered rate).
    text : str
        The goal as written.
    """

    objective: str
    sense: str
    constraints: tuple
    knobs: tuple
    fixed: tuple = ()
    text: str = ""

    @property
    def n_points(self) -> int:
        return math.prod(len(a.values) for a in self.knobs)

    def describe(self) -> str:
        verb = "minimise" if self.sense == "min" else "maximise"
        parts = [f"{verb} {self.objective}"]
        if self.constraints:
            parts.append("subject to " + ", ".join(str(c) for c in self.constraints))
        parts.append("over " + " ".join(f"{a.name}({len(a.values)} values)" for a in self.knobs))
        if self.fixed:
            parts.append("with " + " ".join(f"{a.name}={a.values[0]}" for a in self.fixed))
        return " ".join(parts)


@dataclass
class GoalResult:
    """The outcome of :func:`seek`.

    Attributes
    ----------
    goal : Goal
    feasible : bool
        A point met every constraint.
    values : tuple
        Best knob values, in ``goal.knobs`` order.
    project : Project
        The base project with ``goal.fixed`` and the best values set.
    prediction : Prediction
        The engine's prediction of ``project``.
    metrics : dict
        Its metrics plus the derived ones.
    objective_value : float
    method : str
        ``exhaustive`` or ``coordinate``.
    evaluations : int
        Engine runs made (memoised points count once).
    elapsed_s : float
    failed_points : int
        Points the engine refused (a typed error).
    baseline : dict
        Metrics of the project as it was (no knob changed), for before/after views.
    """

    goal: Goal
    feasible: bool
    values: tuple
    project: Project
    prediction: object
    metrics: dict
    objective_value: float
    method: str
    evaluations: int
    elapsed_s: float
    failed_points: int = 0
    baseline: dict = field(default_factory=dict)

    def changes(self) -> list:
        """``[(knob name, value)]`` of the best point."""
        return [(a.name, v) for a, v in zip(self.goal.knobs, self.values)]


_CONSTRAINT_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*(<=|>=|<|>)\s*([-+0-9.eE_,]+)\s*$")


def parse_constraint(text: str) -> Constraint:
    """Parse ``metric<=value``.

    Raises
    ------
    FieldError
        Not of that form.
    """
    m = _CONSTRAINT_RE.match(text)
    if not m:
        raise FieldError(
            "goal constraint",
            text,
            "METRIC<=VALUE, METRIC>=VALUE, METRIC<VALUE or METRIC>VALUE, e.g. apply_lpar_busy_pct<=90",
        )
    try:
        value = float(m.group(3).replace("_", "").replace(",", ""))
    except ValueError:
        raise FieldError("goal constraint", text, "a number after the comparison") from None
    return Constraint(m.group(1), m.group(2), value)


_RANGE_RE = re.compile(r"^\s*(-?\d+)\.\.(-?\d+)(?::(\d+))?\s*$")


def parse_knob(text: str, project: Project) -> Axis:
    """``TARGET.PARAM=VALUES`` as :func:`engine.studies.sweep.parse_axis`, fast for one long integer range.

    A single ``LOW..HIGH[:STEP]`` range is validated at both ends by the knob's spec and
    expanded directly (a buffer pool searched in steps of 1,000 pages has 50,000 values).

    Raises
    ------
    FieldError
        As :func:`engine.studies.sweep.parse_axis`.
    """
    left, _, right = text.partition("=")
    m = _RANGE_RE.match(right)
    if not m:
        return parse_axis(text, project)
    low, high, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
    if step <= 0 or high < low:
        return parse_axis(text, project)  # reports the malformed range
    ends = parse_axis(f"{left}={low},{high}", project)
    values = tuple(range(low, high + 1, step))
    return Axis(ends.target, ends.param, ends.node_ids, values)


def parse_goal(text: str, project: Project) -> Goal:
    """Parse a goal written as one line.

    ``(min|max) OBJECTIVE [subject to C1, C2 ...] over AXIS [AXIS ...] [with KNOB=VALUE ...]``
    where constraints are ``metric<=value`` items separated by commas, and axes and fixed
    knobs are ``TARGET.PARAM=VALUES`` items (the syntax of ``qrtune sweep --set``) separated
    by spaces. Example::

        min qapply.num_apply_agents subject to apply_rows_per_s>=60000, end2end_latency_ms<=1000,
        apply_lpar_busy_pct<=90 over qapply.num_apply_agents=1..16 with source_db2.offered_rows_per_s=60000

    Raises
    ------
    FieldError
        Malformed text, an unknown knob or value; the message names the part.
    """
    pattern = r"^\s*(\w+)\s+(\S+)(?:\s+subject\s+to\s+(.*?))?\s+over\s+(.*?)(?:\s+with\s+(.*))?\s*$"
    m = re.match(pattern, text, flags=re.IGNORECASE | re.DOTALL)
    if not m:
        raise FieldError(
            "--goal",
            text,
            "'min|max OBJECTIVE [subject to METRIC<=V, ...] over TARGET.PARAM=VALUES "
            "[...] [with TARGET.PARAM=VALUE ...]'",
        )
    sense = SENSES.get(m.group(1).lower())
    if sense is None:
        raise FieldError("--goal", m.group(1), "min, minimise, max or maximise")
    constraints = tuple(parse_constraint(c) for c in (m.group(3) or "").split(",") if c.strip())
    knobs = tuple(parse_knob(a, project) for a in m.group(4).split())
    fixed = tuple(parse_axis(a, project) for a in (m.group(5) or "").split())
    for a in fixed:
        if len(a.values) != 1:
            raise FieldError(f"--goal with {a.name}", list(a.values), "exactly one value for a held knob")
    return make_goal(m.group(2), sense, constraints, knobs, fixed, text=" ".join(text.split()))


def make_goal(
    objective: str,
    sense: str,
    constraints: Sequence[Constraint],
    knobs: Sequence[Axis],
    fixed: Sequence[Axis] = (),
    text: str = "",
) -> Goal:
    """Build and check a :class:`Goal`.

    Raises
    ------
    FieldError
        No knobs, an empty axis, the same knob twice, or a knob objective that is not searched.
    """
    if sense not in ("min", "max"):
        raise FieldError("goal sense", sense, "min or max")
    if not knobs:
        raise FieldError("goal", text or objective, "at least one knob to search (over TARGET.PARAM=VALUES)")
    seen = set()
    for a in tuple(knobs) + tuple(fixed):
        if not a.values:
            raise FieldError(f"goal knob {a.name}", [], "at least one value")
        for node_id in a.node_ids:
            if (node_id, a.param) in seen:
                raise FieldError(f"goal knob {a.name}", node_id, "a knob named once")
            seen.add((node_id, a.param))
    if "=" in objective or ("." in objective and objective not in {a.name for a in knobs}):
        raise FieldError(
            "goal objective",
            objective,
            "a metric name or one of the searched knobs: " + ", ".join(a.name for a in knobs),
        )
    return Goal(objective, sense, tuple(constraints), tuple(knobs), tuple(fixed), text)


def _build(base: Project, axes: Sequence[Axis], values: Sequence) -> Project:
    p = base
    for a, v in zip(axes, values):
        for node_id in a.node_ids:
            p = p.with_param(node_id, a.param, v)
    return p


class _Evaluator:
    """Memoised engine runs of the goal's points.

    When every searched knob maps onto scenario settings paths (the registry's
    ``scenario_paths``), points are predicted by setting those paths on the base project's
    scenario instead of rebuilding the project and its topology each time; this shortcut is
    used only after it reproduces :func:`engine.scenario.project_to_scenario` at both ends of
    every axis.
    """

    def __init__(self, project: Project, goal: Goal, predict: Callable | None, cancelled: Callable | None):
        from engine.advise.outage import transmit_queue_manager

        self.base = _build(project, goal.fixed, [a.values[0] for a in goal.fixed])
        self.goal = goal
        self.predict = predict
        self.cancelled = cancelled or (lambda: False)
        self.cache: dict = {}
        self.failed = 0
        self.knob_index = {a.name: i for i, a in enumerate(goal.knobs)}
        qm = transmit_queue_manager(self.base)
        self.qm_id = qm.id if qm is not None else None
        self.paths = self._paths() if predict is None else None

    def _paths(self):
        from engine.scenario import knob_paths, project_to_scenario

        try:
            self.base_settings = project_to_scenario(self.base)
        except QrtuneError:
            return None
        path_of = {(node.id, spec.name): path for node, spec, path in knob_paths(self.base)}
        paths = []
        for a in self.goal.knobs:
            ax = [path_of.get((node_id, a.param)) for node_id in a.node_ids]
            if None in ax:
                return None
            paths.append(ax)
        firsts = [a.values[0] for a in self.goal.knobs]
        for i, a in enumerate(self.goal.knobs):
            for v in (a.values[0], a.values[-1]):
                point = tuple(firsts[:i] + [v] + firsts[i + 1 :])
                try:
                    slow = project_to_scenario(_build(self.base, self.goal.knobs, point))
                except QrtuneError:
                    return None
                if self._fast_settings(point, paths) != slow:
                    return None
        return paths

    def _fast_settings(self, values: tuple, paths) -> dict:
        import copy

        from engine.settings import set_path

        s = copy.deepcopy(self.base_settings)
        for ax, v in zip(paths, values):
            for path in ax:
                set_path(s, path, v)
        return s

    def _predict(self, values: tuple):
        from engine.predict import for_project, predict_project, predict_settings

        if self.paths is not None:
            return for_project(self.base, predict_settings(self._fast_settings(values, self.paths)))
        project = _build(self.base, self.goal.knobs, values)
        return (self.predict or predict_project)(project)

    def __call__(self, values: tuple) -> tuple:
        """``(rank key, metrics)`` of a point."""
        hit = self.cache.get(values)
        if hit is not None:
            return hit
        if self.cancelled():
            raise _Cancelled(QrtuneError("goal seeking cancelled"))
        try:
            pred = self._predict(values)
            metrics = dict(pred.metrics)
            if pred.kind == "qrep" and self.qm_id is not None:
                from engine.advise.outage import outage_metrics

                qm = self.base.node(self.qm_id)
                i = next((k for k, a in enumerate(self.goal.knobs) if self.qm_id in a.node_ids), None)
                if i is not None:
                    qm = _build(self.base, self.goal.knobs[i : i + 1], values[i : i + 1]).node(self.qm_id)
                metrics.update(outage_metrics(self.base, metrics, qm=qm))
        except QrtuneError:
            self.failed += 1
            metrics = {}
        out = (self.rank(values, metrics), metrics)
        self.cache[values] = out
        return out

    def objective(self, values: tuple, metrics: dict) -> float:
        i = self.knob_index.get(self.goal.objective)
        v = values[i] if i is not None else metrics.get(self.goal.objective)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
            return math.nan
        return float(v)

    def rank(self, values: tuple, metrics: dict) -> tuple:
        if not metrics:
            return (2, math.inf, 0.0)
        violation = sum(c.violation(metrics) for c in self.goal.constraints)
        obj = self.objective(values, metrics)
        if violation > 0 or math.isnan(obj):
            return (1, violation if not math.isnan(obj) else violation + 1e6, 0.0)
        return (0, obj if self.goal.sense == "min" else -obj, 0.0)


class _Cancelled(Exception):
    pass


def _better(a: tuple, b: tuple) -> bool:
    """Strictly better rank (ties keep the incumbent)."""
    return a < b


def _exhaustive(ev: _Evaluator, goal: Goal, progress) -> tuple:
    best, best_key = None, None
    total = goal.n_points
    for k, values in enumerate(itertools.product(*(a.values for a in goal.knobs))):
        key, _ = ev(values)
        if best_key is None or _better(key, best_key):
            best, best_key = values, key
        if progress and k % 256 == 0:
            progress(k / total, f"{k} of {total} points")
    return best


def _line(ev: _Evaluator, goal: Goal, point: list, i: int, line_limit: int) -> None:
    """Improve ``point`` along knob ``i`` in place."""
    values = goal.knobs[i].values
    n = len(values)

    def key_at(j):
        p = tuple(point[:i]) + (values[j],) + tuple(point[i + 1 :])
        return ev(p)[0]

    current = values.index(point[i])
    best_j, best_key = current, key_at(current)
    if n <= line_limit:
        candidates = range(n)
    else:
        lo, hi = 0, n - 1
        samples = 16
        while True:
            step = max(1, (hi - lo) // samples)
            idx = sorted(set(list(range(lo, hi + 1, step)) + [hi]))
            for j in idx:
                k = key_at(j)
                if _better(k, best_key):
                    best_j, best_key = j, k
            if step == 1:
                break
            lo, hi = max(0, best_j - step), min(n - 1, best_j + step)
        candidates = ()
    for j in candidates:
        k = key_at(j)
        if _better(k, best_key):
            best_j, best_key = j, k
    point[i] = values[best_j]


def _starts(goal: Goal, n_starts: int) -> list:
    """Spread starting points: all lows, all highs, all middles, then strided mixes."""
    axes = goal.knobs
    pts = [
        tuple(a.values[0] for a in axes),
        tuple(a.values[-1] for a in axes),
        tuple(a.values[len(a.values) // 2] for a in axes),
    ]
    for s in range(max(0, n_starts - 3)):
        pts.append(
            tuple(
                a.values[(s * 7919 + 3 * k * 104729 + len(a.values) // 3) % len(a.values)]
                for k, a in enumerate(axes)
            )
        )
    out = []
    for p in pts:
        if p not in out:
            out.append(p)
    return out


def _coordinate(ev: _Evaluator, goal: Goal, line_limit: int, n_starts: int, progress) -> tuple:
    best, best_key = None, None
    starts = _starts(goal, n_starts)
    for s_i, start in enumerate(starts):
        point = list(start)
        for _ in range(50):
            before = tuple(point)
            for i in range(len(goal.knobs)):
                _line(ev, goal, point, i, line_limit)
            if tuple(point) == before:
                break
        key = ev(tuple(point))[0]
        if best_key is None or _better(key, best_key):
            best, best_key = tuple(point), key
        if progress:
            progress((s_i + 1) / len(starts), f"start {s_i + 1} of {len(starts)}: {len(ev.cache)} runs")
    return best


def _check_objective(ev: _Evaluator, goal: Goal) -> None:
    """Refuse an objective that is neither a searched knob nor a metric the engine gives (a misspelling).

    The spread start points (all lows, all highs, all middles) are asked in turn: a latency is left
    out of a point whose workload outruns its capacity (all lows: one apply agent), not of every point.

    Raises
    ------
    FieldError
        A start point predicts, and none of them has the objective among its metrics.
    """
    if goal.objective in ev.knob_index:
        return
    metrics: dict = {}
    for point in _starts(goal, 3):
        _, found = ev(point)
        if goal.objective in found:
            return
        metrics = metrics or found
    if metrics:
        raise FieldError(
            "goal objective",
            goal.objective,
            "a searched knob or a metric the engine predicts: " + ", ".join(sorted(metrics)),
        )


def seek(
    project: Project,
    goal: Goal,
    exhaustive_limit: int = 4096,
    exhaustive_budget_s: float = 1.5,
    line_limit: int = 64,
    n_starts: int = 4,
    method: str = "auto",
    predict: Callable | None = None,
    progress: Callable | None = None,
    cancelled: Callable | None = None,
) -> GoalResult:
    """Search ``goal`` on ``project``.

    Parameters
    ----------
    project : Project
    goal : Goal
    exhaustive_limit : int
        Grids of at most this many points are searched exhaustively (``method='auto'``) ...
    exhaustive_budget_s : float
        ... when the engine's time for the first few points, times the grid size, stays within
        this budget (s); otherwise the coordinate search runs.
    line_limit : int
        Knobs with at most this many values are scanned fully in a coordinate line search.
    n_starts : int
        Starting points of the coordinate search.
    method : str
        ``auto``, ``exhaustive`` or ``coordinate``.
    predict : callable, optional
        ``Project -> Prediction`` (default :func:`engine.predict.predict_project`).
    progress : callable, optional
        ``progress(fraction, text)``.
    cancelled : callable, optional
        Returns True to stop; :func:`seek` then raises :class:`~engine.errors.QrtuneError`.

    Raises
    ------
    FieldError
        ``method`` is unknown, or the objective is neither a knob nor a predicted metric.
    QrtuneError
        The search was cancelled, or no point could be predicted at all.
    """
    if method not in ("auto", "exhaustive", "coordinate"):
        raise FieldError("method", method, "auto, exhaustive or coordinate")
    t0 = time.perf_counter()
    ev = _Evaluator(project, goal, predict, cancelled)
    _check_objective(ev, goal)
    if method == "auto":
        method = "exhaustive" if goal.n_points <= exhaustive_limit else "coordinate"
        if method == "exhaustive" and goal.n_points > 16:
            # time a few points: a slow engine (Db2 Mirror MVA) makes a mid-sized grid a coordinate search
            probes = _starts(goal, 3)  # the grid's low, high and middle corners
            t1 = time.perf_counter()
            for values in probes:
                ev(values)
            per_point_s = (time.perf_counter() - t1) / len(probes)
            if per_point_s * goal.n_points > exhaustive_budget_s:
                method = "coordinate"
    try:
        if method == "exhaustive":
            best = _exhaustive(ev, goal, progress)
        else:
            best = _coordinate(ev, goal, line_limit, n_starts, progress)
    except _Cancelled as c:
        raise c.args[0] from None
    key, metrics = ev(best)
    if key[0] == 2:
        raise QrtuneError(f"goal seeking: the engine could not predict any point of {goal.describe()}")
    best_project = _build(ev.base, goal.knobs, best)
    from engine.predict import predict_project

    prediction = (predict or predict_project)(best_project)
    try:
        base_pred = (predict or predict_project)(project)
        baseline = dict(base_pred.metrics)
        if base_pred.kind == "qrep":
            from engine.advise.outage import outage_metrics

            baseline.update(outage_metrics(project, baseline))
    except QrtuneError:
        baseline = {}
    return GoalResult(
        goal=goal,
        feasible=key[0] == 0,
        values=best,
        project=best_project,
        prediction=prediction,
        metrics=metrics,
        objective_value=ev.objective(best, metrics),
        method=method,
        evaluations=len(ev.cache),
        elapsed_s=time.perf_counter() - t0,
        failed_points=ev.failed,
        baseline=baseline,
    )


def seek_change(project: Project, goal: Goal) -> Project | None:
    """The project :func:`seek` finds for ``goal``, or None when no point meets its constraints.

    What a rule (:meth:`engine.advise.base.Rule.change`) that searches its knob's value proposes.
    """
    result = seek(project, goal)
    return result.project if result.feasible else None
