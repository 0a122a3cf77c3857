"""Goal seeking: the optimum on small grids equals an independent exhaustive search with the engine;
the coordinate search finds it on larger grids; named goals and parse errors."""

import itertools
import math

import pytest

from engine import projectfile
from engine.advise.goals import goal_from_text
from engine.advise.goalseek import Constraint, make_goal, parse_constraint, parse_goal, seek
from engine.advise.outage import outage_metrics, pool_pages_for
from engine.errors import FieldError, QrtuneError
from engine.predict import predict_project


@pytest.fixture
def base(root):
    return projectfile.load(root / "sample_runs" / "redpaper-baseline.json")


def brute_force(project, knobs, objective, sense, constraints, fixed=()):
    """Independent exhaustive search: build each project and run the engine on it."""
    for node_id, param, value in fixed:
        project = project.with_param(node_id, param, value)
    best = None
    for values in itertools.product(*(vals for _, _, vals in knobs)):
        p = project
        for (node_id, param, _), v in zip(knobs, values):
            p = p.with_param(node_id, param, v)
        m = dict(predict_project(p).metrics)
        m.update(outage_metrics(p, m))
        if not all(c.satisfied(m) for c in constraints):
            continue
        obj = dict(zip([f"{n}.{q}" for n, q, _ in knobs], values)).get(objective, m.get(objective))
        key = obj if sense == "min" else -obj
        if best is None or key < best[0]:
            best = (key, values)
    return best


def test_fewest_agents_matches_exhaustive(base):
    goal = parse_goal(
        "min ab-5-qapply.num_apply_agents subject to apply_rows_per_s>=39960, end2end_latency_ms<1000, "
        "apply_lpar_busy_pct<90 over ab-5-qapply.num_apply_agents=1..16 "
        "with ab-0-source-db2.offered_rows_per_s=40000",
        base,
    )
    result = seek(base, goal)
    assert result.method == "exhaustive" and result.feasible
    cons = goal.constraints
    expected = brute_force(
        base,
        [("ab-5-qapply", "num_apply_agents", range(1, 17))],
        "ab-5-qapply.num_apply_agents",
        "min",
        cons,
        fixed=[("ab-0-source-db2", "offered_rows_per_s", 40000.0)],
    )
    assert expected is not None
    assert result.values == expected[1]
    # one agent fewer misses a constraint: it is the fewest
    n = result.values[0]
    if n > 1:
        fewer = base.with_param("ab-0-source-db2", "offered_rows_per_s", 40000.0).with_param(
            "ab-5-qapply", "num_apply_agents", n - 1
        )
        m = predict_project(fewer).metrics
        assert not all(c.satisfied(m) for c in cons)
    assert result.project.node("ab-5-qapply").params["num_apply_agents"] == n
    assert result.metrics["apply_rows_per_s"] == pytest.approx(
        predict_project(result.project).metrics["apply_rows_per_s"]
    )


def test_two_knob_maximum_matches_exhaustive_and_coordinate_search_finds_it(base):
    text = (
        "max apply_rows_per_s subject to apply_lpar_busy_pct<=90 over ab-5-qapply.num_apply_agents=2..12:2 "
        "ab-1-qcapture.trans_batch_sz=1..6"
    )
    goal = parse_goal(text, base)
    ex = seek(base, goal)
    assert ex.method == "exhaustive" and ex.evaluations == 36
    expected = brute_force(
        base,
        [
            ("ab-5-qapply", "num_apply_agents", range(2, 13, 2)),
            ("ab-1-qcapture", "trans_batch_sz", range(1, 7)),
        ],
        "apply_rows_per_s",
        "max",
        goal.constraints,
    )
    assert ex.values == expected[1]
    co = seek(base, goal, method="coordinate")
    assert co.method == "coordinate"
    assert co.objective_value == pytest.approx(ex.objective_value, rel=1e-9)


def test_outage_pool_bisection_matches_closed_form(base):
    goal = goal_from_text("outage-pool:20", base)
    assert goal.n_points == 50_000
    result = seek(base, goal)
    assert result.method == "coordinate" and result.feasible
    assert result.evaluations < 500  # far fewer than the 50,000 grid points
    pages = result.values[0]
    exact = pool_pages_for(20.0, result.metrics)
    assert pages == math.ceil(exact / 1000) * 1000
    assert result.metrics["outage_held_min"] >= 20.0


def test_infeasible_goal_reports_nearest_miss(base):
    goal = goal_from_text("fewest-agents:10000000", base)
    result = seek(base, goal)
    assert not result.feasible
    assert not all(c.satisfied(result.metrics) for c in goal.constraints)


def test_memoised_evaluations_and_cancel(base):
    goal = parse_goal(
        "min ab-5-qapply.num_apply_agents subject to apply_lpar_busy_pct<=90 "
        "over ab-5-qapply.num_apply_agents=1..8",
        base,
    )
    assert seek(base, goal).evaluations == 8
    with pytest.raises(QrtuneError, match="cancelled"):
        seek(base, goal, cancelled=lambda: True)


def test_fast_path_agrees_with_project_rebuild(base):
    goal = parse_goal(
        "max apply_rows_per_s over qapply.num_apply_agents=1..6 qcapture.trans_batch_sz=1..3", base
    )
    fast = seek(base, goal)
    slow = seek(base, goal, predict=predict_project)
    assert fast.values == slow.values
    assert fast.metrics["apply_rows_per_s"] == pytest.approx(slow.metrics["apply_rows_per_s"], rel=1e-12)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "minimise x",
        "min x over",
        "foo x over qapply.num_apply_agents=1..3",
        "min x subject to nonsense over qapply.num_apply_agents=1..3",
        ("min qapply.num_apply_agents over qapply.num_apply_agents=1..3 with qcapture.trans_batch_sz=1,2"),
        "min qcapture.trans_batch_sz over qapply.num_apply_agents=1..3",
    ],
)
def test_bad_goals_are_clear_errors(base, text):
    with pytest.raises(FieldError):
        parse_goal(text, base)


def test_constraints():
    c = parse_constraint("apply_lpar_busy_pct<=90")
    assert c == Constraint("apply_lpar_busy_pct", "<=", 90.0)
    assert c.satisfied({"apply_lpar_busy_pct": 90.0}) and not c.satisfied({"apply_lpar_busy_pct": 90.5})
    assert not c.satisfied({})  # a metric the engine did not give never satisfies
    assert c.violation({"apply_lpar_busy_pct": 99.0}) == pytest.approx(0.1, rel=1e-6)
    with pytest.raises(FieldError):
        make_goal("x", "sideways", (), ())


def test_mirror_baseline_goal_is_the_fewest_job_sets(root):
    """Journey 7: the fewest job sets that bring mirrored throughput back to the unmirrored baseline."""
    project = projectfile.load(root / "sample_runs" / "mirror-active-passive.json")
    goal = goal_from_text("mirror-baseline", project)
    unmirrored = predict_project(project.with_param("roce", "mode", "none")).metrics["throughput"]
    assert goal.constraints[0].value == pytest.approx(unmirrored, rel=1e-5)
    result = seek(project, goal)
    assert result.feasible
    n = result.values[0]
    node = goal.knobs[0].node_ids[0]
    assert (
        predict_project(project.with_param(node, "job_sets", n)).metrics["throughput"]
        >= goal.constraints[0].value
    )
    fewer = predict_project(project.with_param(node, "job_sets", n - 1)).metrics["throughput"]
    assert fewer < goal.constraints[0].value or n == goal.knobs[0].values[0]
