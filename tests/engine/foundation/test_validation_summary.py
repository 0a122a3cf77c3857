"""engine.validation_summary: the one computation of the engine-against-measurements figures.

The workbench's Validation view and the report's validation paragraph both use it; it
scores the way ../shared/validation/score.py does (metric classes, error, 90th percentile).
"""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine.evaluate
from engine.report import score_scenarios
from engine.validation_summary import (
    BUNDLED_SCENARIOS,
    MetricCheck,
    check_scenarios,
    describe,
    is_latency,
    published_ranges,
    summarise,
)

SCORER = Path(__file__).resolve().parents[3].parent / "shared" / "validation" / "score.py"


def check(metric, measured, predicted, kind="qrep", sid="s"):
    err = None if predicted is None else (predicted - measured) / abs(measured) * 100.0
    return MetricCheck(sid, kind, "", metric, measured, predicted, err, is_latency(metric))


def test_metric_classes_are_the_scorers():
    assert is_latency("end2end_latency_ms") and is_latency("response_time_ms")
    assert (
        is_latency("capture_mqput_us")
        and is_latency("apply_mqget_us")
        and is_latency("total_elapsed_us_per_msg")
    )
    assert not is_latency("apply_db2_class2_ms") and not is_latency("apply_rows_per_s")


def test_medians_p90_rank_and_per_kind_from_known_errors():
    checks = [check("apply_rows_per_s", 100.0, 100.0 + e) for e in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)]
    checks += [
        check("end2end_latency_ms", 10.0, 12.0, kind="db2mirror", sid="m"),
        check("capture_mqput_us", 10.0, 5.0, kind="db2mirror", sid="m"),
        check("apply_rows_per_s", 50.0, None, kind="db2mirror", sid="m"),
    ]
    s = summarise(checks, n_scenarios=11)
    assert (s.n_measured, s.n_predicted, s.rate_n, s.latency_n) == (13, 12, 10, 2)
    assert s.rate_median_abs_pct == pytest.approx(5.5)
    assert s.rate_p90_abs_pct == pytest.approx(10.0)  # sorted[int(0.9 * 10)], not the interpolated 9.1
    assert s.latency_median_abs_pct == pytest.approx(35.0) and s.latency_p90_abs_pct == pytest.approx(50.0)
    assert s.coverage == pytest.approx(12 / 13)
    qrep, mirror = s.by_kind
    assert (qrep.kind, qrep.n_scenarios, qrep.n_measured, qrep.n_predicted) == ("qrep", 1, 10, 10)
    assert (mirror.kind, mirror.n_predicted, mirror.rate_median_abs_pct, mirror.latency_median_abs_pct) == (
        "db2mirror",
        2,
        None,
        pytest.approx(35.0),
    )
    assert "12 of 13 measured metrics" in describe(s)


def test_engine_failures_non_finite_predictions_and_measured_zero(monkeypatch):
    def fake(settings):
        if settings["id"] == "boom":
            raise RuntimeError("kaput")
        return {
            "id": settings["id"],
            "bottleneck": "qapply_agents",
            "predicted": {"apply_rows_per_s": 90.0, "qlatency_ms": math.nan, "apply_mq_log_mb_per_s": 0.0},
        }

    monkeypatch.setattr(engine.evaluate, "evaluate_scenario", fake)
    scen = [
        {
            "id": "a",
            "kind": "qrep",
            "measured": {
                "apply_rows_per_s": 100.0,
                "qlatency_ms": 5.0,
                "apply_mq_log_mb_per_s": 0,
                "note": "text",
            },
            "measured_bottleneck": "qapply_agents",
        },
        {"id": "boom", "kind": "qrep", "measured": {"apply_rows_per_s": 1.0}, "measured_bottleneck": "x"},
    ]
    seen = []
    checks, s = check_scenarios(scen, progress=lambda f, sid: seen.append((f, sid)))
    assert [(c.metric, c.predicted, c.error_pct) for c in checks] == [
        ("apply_rows_per_s", 90.0, pytest.approx(-10.0)),
        ("qlatency_ms", None, None),
        ("apply_mq_log_mb_per_s", 0.0, 0.0),
        ("apply_rows_per_s", None, None),
    ]
    assert (s.n_measured, s.n_predicted, s.bottlenecks_right, s.bottlenecks_named) == (4, 2, 1, 2)
    assert s.errors == (("boom", "the engine failed: RuntimeError: kaput"),)
    assert seen == [(0.5, "a"), (1.0, "boom")]
    checks, s = check_scenarios(
        scen, cancelled=lambda: len(seen) >= 2, progress=lambda f, sid: seen.append(sid)
    )
    assert checks == [] and s.by_kind == ()


def test_report_score_is_the_shared_summary(monkeypatch, tmp_path):
    monkeypatch.setattr(
        engine.evaluate,
        "evaluate_scenario",
        lambda st: {
            "id": st["id"],
            "bottleneck": None,
            "predicted": {"capture_mqput_us": 30.0, "apply_db2_class2_ms": 3.0},
        },
    )
    path = tmp_path / "scen.json"
    path.write_text(
        json.dumps(
            {
                "format": "qrtune-scenarios/1",
                "scenarios": [
                    {
                        "id": "x",
                        "kind": "mq-mover",
                        "measured": {"capture_mqput_us": 20.0, "apply_db2_class2_ms": 2.0},
                    }
                ],
            }
        )
    )
    score = score_scenarios(path)
    # mqput time is a latency and Db2 class 2 time a rate, as the scorer has them
    assert score.latency_median_abs_pct == pytest.approx(50.0) and score.rate_median_abs_pct == pytest.approx(
        50.0
    )
    assert score.by_kind[0].kind == "mq-mover" and score.source == "scen.json"
    # the report's record is the shared summary of that file, not a copy of it
    from engine.evaluate import read_scenarios
    from engine.validation_summary import ValidationSummary

    _, summary = check_scenarios(read_scenarios(path))
    assert isinstance(score, ValidationSummary) and score.not_predicted == score.errors == ()
    assert {f: getattr(score, f) for f in vars(summary)} == vars(summary)


@pytest.mark.skipif(
    not SCORER.is_file(), reason="../shared/validation/score.py is not next to the repository"
)
def test_bundled_figures_equal_the_scorers_summary_line():
    qrtune = Path(sys.executable).parent / "qrtune"
    if not qrtune.is_file():
        pytest.skip("no qrtune script next to the interpreter")
    out = subprocess.run(
        [sys.executable, str(SCORER), "--cmd", f"{qrtune} evaluate", str(BUNDLED_SCENARIOS)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    line = out.strip().splitlines()[-1]
    m = re.search(
        r"coverage ([\d.]+)% \| rates median ([\d.]+)% p90 ([\d.]+)% \(n=(\d+)\) \| latencies median "
        r"([\d.]+)% p90 ([\d.]+)% \(n=(\d+)\).*bottlenecks (\d+)/(\d+)",
        line,
    )
    assert m, line
    from engine.evaluate import read_scenarios

    _, s = check_scenarios(read_scenarios(BUNDLED_SCENARIOS))
    ours = (
        f"{100 * s.coverage:.1f}",
        f"{s.rate_median_abs_pct:.1f}",
        f"{s.rate_p90_abs_pct:.1f}",
        str(s.rate_n),
        f"{s.latency_median_abs_pct:.1f}",
        f"{s.latency_p90_abs_pct:.1f}",
        str(s.latency_n),
        str(s.bottlenecks_right),
        str(s.bottlenecks_named),
    )
    assert ours == m.groups()


def test_settings_published_twice_carry_the_range_and_far_apart_ones_are_counted(monkeypatch):
    base = {"kind": "qrep", "source": "a", "qapply": {"num_apply_agents": 6}}
    scenarios = [
        {**base, "id": "t1", "measured": {"apply_latency_ms": 441.0, "apply_rows_per_s": 43300.0}},
        {
            **base,
            "id": "t2",
            "source": "b",
            "notes": "another table",
            "measured": {"apply_latency_ms": 43.0, "apply_rows_per_s": 43300.0},
        },
        {**base, "id": "t3", "qapply": {"num_apply_agents": 8}, "measured": {"apply_latency_ms": 90.0}},
    ]
    ranges = published_ranges(scenarios)
    assert ranges == {
        ("t1", "apply_latency_ms"): (43.0, 441.0, 2),
        ("t2", "apply_latency_ms"): (43.0, 441.0, 2),
    }
    monkeypatch.setattr(
        engine.evaluate,
        "evaluate_scenario",
        lambda s: {"id": s["id"], "predicted": {"apply_latency_ms": 150.0}},
    )
    checks, summary = check_scenarios(scenarios)
    by = {(c.scenario_id, c.metric): c for c in checks}
    assert (
        by[("t1", "apply_latency_ms")].published_apart and not by[("t3", "apply_latency_ms")].published_apart
    )
    assert by[("t1", "apply_rows_per_s")].published_range is None  # repeated with the same value: no range
    assert summary.n_published_apart == 2
    assert "2 measured values belong to settings published more than once with values 2x apart" in describe(
        summary
    )


def test_the_bundled_baseline_apply_latency_is_published_43_to_441_ms():
    checks, summary = check_scenarios(json.loads(BUNDLED_SCENARIOS.read_text())["scenarios"])
    baseline = next(
        c for c in checks if c.scenario_id == "rp-t2-4-baseline" and c.metric == "apply_latency_ms"
    )
    assert baseline.published_range == (43.0, 441.0, 10) and baseline.published_apart
    assert summary.n_published_apart == sum(c.published_apart for c in checks) >= 10
    assert score_scenarios().n_published_apart == summary.n_published_apart
