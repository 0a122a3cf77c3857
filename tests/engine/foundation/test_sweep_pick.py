"""The pick of a sweep (engine.studies.sweep_pick): the fewest values holding the best throughput or the target rate
with every CPU under 90%, on crafted points."""

from types import SimpleNamespace

from engine import templates
from engine.studies.sweep_pick import choose, cpu_metrics, pick_smallest, rate_metrics, target_rate


def point(value, rate, cpu=50.0, capture_cpu=20.0, error=""):
    metrics = (
        {}
        if error
        else {
            "apply_rows_per_s": rate,
            "capture_rows_per_s": rate,
            "apply_lpar_busy_pct": cpu,
            "capture_lpar_busy_pct": capture_cpu,
            "end2end_latency_ms": 500.0,
        }
    )
    units = {k: "rows/s" if k.endswith("per_s") else "%" for k in metrics}
    return SimpleNamespace(value=value, metrics=metrics, units=units, error=error)


def test_fewest_value_reaching_the_best_throughput_with_every_cpu_under_the_limit():
    points = [
        point(1, 500),
        point(2, 900),
        point(3, 995, cpu=91),
        point(4, 1000, cpu=89.9),
        point(5, 1000, capture_cpu=95),
        point(6, 1000),
    ]
    pick = choose(points, "NUM_APPLY_AGENTS")
    assert pick.value == 4  # 3 reaches 99.5% of the best but its apply LPAR is 91% busy
    assert pick.rate_metric == "apply_rows_per_s" and pick.unit == "rows/s" and pick.best == 1000
    assert pick.busiest_cpu_pct == 89.9 and pick.target is None
    text = pick.describe()
    assert text.startswith("Fewest NUM_APPLY_AGENTS reaching 99% of the best throughput (1,000 rows/s)")
    assert text.endswith(": 4 (1,000 rows/s, busiest CPU 89.9%)")  # not rounded up to the limit
    # every CPU counts, not only the apply side's: 5's capture LPAR at 95% would disqualify it
    assert choose([p for p in points if p.value in (5, 6)], "X").value == 6


def test_the_target_rate_replaces_the_best_throughput_as_the_goal():
    points = [point(v, min(800.0 * v, 3000.0)) for v in range(1, 7)]  # 800, 1600, 2400, 3000, 3000, 3000
    assert choose(points, "NUM_APPLY_AGENTS").value == 4
    pick = choose(points, "NUM_APPLY_AGENTS", target=2400.0)
    assert pick.value == 3 and pick.goal == 2400.0
    assert "99% of the target rate (2,400 rows/s)" in pick.describe()
    missed = choose(points, "NUM_APPLY_AGENTS", target=5000.0)
    assert missed is not None and missed.point is None
    assert missed.describe() == (
        "No NUM_APPLY_AGENTS value reaches 99% of the target rate (5,000 rows/s) with every "
        "CPU under 90% (the best is 3,000 rows/s)."
    )


def test_a_target_in_another_unit_than_the_throughput_is_ignored():
    points = [point(v, 10.0 * v) for v in (1, 2, 3)]
    for p in points:
        p.units = {k: "MB/s" for k in p.metrics}
    assert choose(points, "BATCHSZ", target=15.0).target is None


def test_no_pick_for_failed_points_non_numbers_or_no_throughput():
    assert choose([point(1, 0, error="bad")], "X") is None
    assert choose([point(False, 100), point(True, 200)], "READ_AHEAD") is None
    assert choose([SimpleNamespace(value=1, metrics={"x_ms": 1.0}, units={}, error="")], "X") is None
    # failed points are left out of the pick
    pts = [point(1, 0, error="FieldError"), point(2, 100), point(3, 100)]
    assert choose(pts, "X").value == 2


def test_metric_choice_and_pick_smallest_keep_the_sweep_views_rules():
    assert rate_metrics({"tps", "apply_rows_per_s", "capture_rows_per_s"}) == [
        "apply_rows_per_s",
        "capture_rows_per_s",
    ]
    assert rate_metrics({"tps", "transfer_mb_per_s"}) == ["tps", "transfer_mb_per_s"]
    assert cpu_metrics({"apply_lpar_busy_pct", "source_cpu_pct", "apply_cpu_us_per_row"}) == [
        "apply_lpar_busy_pct",
        "source_cpu_pct",
    ]
    pts = [point(1, 500, 40), point(2, 990, 95), point(3, 1000, 92), point(4, 1000, 80)]
    assert pick_smallest(pts, "apply_rows_per_s", ["apply_lpar_busy_pct"]).value == 4
    assert pick_smallest(pts, "apply_rows_per_s", []).value == 2


def test_target_rate_of_a_project():
    p = templates.unidirectional("t")
    assert target_rate(p) is None  # drive to the maximum: no target
    src = p.nodes_of("source_db2")[0].id
    p = p.with_param(src, "offered_rows_per_s", 30000.0)
    assert target_rate(p) == 30000.0
    assert target_rate(p, ("num_apply_agents",)) == 30000.0
    assert target_rate(p, ("offered_rows_per_s",)) is None  # the sweep varies the target itself
