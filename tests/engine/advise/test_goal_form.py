"""Advisor goals from a form: each kind builds a goal the engine takes; bad fields are named with what they allow."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.advise import goal_form
from engine.advise.goals import goal_from_text
from engine.errors import FieldError

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"


@pytest.fixture(scope="module")
def baseline():
    return projectfile.load(SAMPLES / "redpaper-baseline.json")


@pytest.fixture(scope="module")
def two_way():
    return projectfile.load(SAMPLES / "redpaper-bidirectional.json")


def test_the_fewest_agents_form_is_the_named_goal(baseline):
    assert goal_form.goal_from_form(baseline, "fewest_agents", "40,000") == goal_from_text(
        "fewest-agents:40000", baseline
    )


@pytest.mark.parametrize(
    "kind_id, value, objective, knobs",
    [
        ("fewest_queue_maps", "30000", "qcapture.queue_maps", ["qcapture.queue_maps"]),
        (
            "min_end2end",
            "30000",
            "end2end_latency_ms",
            ["qapply.num_apply_agents", "qcapture.trans_batch_sz"],
        ),
        (
            "min_cpu_per_row",
            "30_000",
            "apply_cpu_us_per_row",
            ["qapply.num_apply_agents", "qcapture.trans_batch_sz"],
        ),
        ("max_rate", "85", "apply_rows_per_s", ["qapply.num_apply_agents", "qcapture.trans_batch_sz"]),
        ("outage_pool", "20", "ab-2-queue-manager.buffpool_pages", ["ab-2-queue-manager.buffpool_pages"]),
    ],
)
def test_each_replication_goal_builds_a_goal_the_engine_parses(baseline, kind_id, value, objective, knobs):
    goal = goal_form.goal_from_form(baseline, kind_id, value)
    assert goal.objective == objective and [a.name for a in goal.knobs] == knobs
    assert goal == goal_from_text(goal_form.goal_text(baseline, kind_id, value), baseline)
    if kind_id in ("fewest_queue_maps", "min_end2end", "min_cpu_per_row"):
        assert [(c.metric, c.op, c.value) for c in goal.constraints] == [("apply_rows_per_s", ">=", 29970.0)]
        assert [(a.name, a.values) for a in goal.fixed] == [("source_db2.offered_rows_per_s", (30000.0,))]
    if kind_id == "max_rate":
        assert [(c.metric, c.value) for c in goal.constraints] == [("apply_lpar_busy_pct", 85.0)]


def test_a_project_with_two_q_applies_names_the_one_chosen_by_label(two_way):
    kind = goal_form.goal_kind("fewest_agents", two_way)
    assert goal_form.node_labels(kind, two_way) == ["Q Apply B", "Q Apply A"]
    goal = goal_form.goal_from_form(two_way, "fewest_agents", "20000", "Q Apply A")
    assert goal.knobs[0].node_ids == ("ba-5-qapply",)
    with pytest.raises(FieldError) as info:
        goal_form.goal_text(two_way, "fewest_agents", "20000", "Q Apply C")
    assert str(info.value) == ('Q Apply: "Q Apply C" is not allowed; expected one of: Q Apply B, Q Apply A')


@pytest.mark.parametrize("text", ["fast", "0", "-5", "nan", "inf", "2e7", ""])
def test_a_bad_rate_names_the_field_the_value_and_the_bounds(baseline, text):
    with pytest.raises(FieldError) as info:
        goal_form.goal_text(baseline, "min_end2end", text)
    message = str(info.value)
    assert message.startswith("Target rate: ") and "from 1 to 10,000,000 rows/s" in message
    assert "\n" not in message


def test_a_cpu_limit_above_100_percent_is_refused(baseline):
    with pytest.raises(FieldError, match=r"Q Apply CPU limit: .*from 1 to 100 %"):
        goal_form.goal_text(baseline, "max_rate", "120")


def test_goals_follow_the_project_kind(baseline):
    mirror = projectfile.load(SAMPLES / "mirror-active-passive.json")
    mover = projectfile.load(SAMPLES / "mq-buffer-pool-mover.json")
    assert [k.id for k in goal_form.goal_kinds(mirror)] == ["mirror_job_sets", "mirror_cores"]
    assert goal_form.goal_kinds(mover) == ()
    assert "fewest_agents" in [k.id for k in goal_form.goal_kinds(baseline)]
    with pytest.raises(FieldError) as info:
        goal_form.goal_text(mirror, "fewest_agents", "1000")
    message = str(info.value)
    assert message.startswith('Goal: "Reach a target rate with the fewest apply agents" is not allowed')
    assert "fewest job sets" in message and "fewest cores" in message
    assert "_" not in message


def test_the_mirror_goal_is_the_named_goal():
    mirror = projectfile.load(SAMPLES / "mirror-active-passive.json")
    assert goal_form.goal_from_form(mirror, "mirror_cores") == goal_from_text("mirror-baseline:cores", mirror)


def test_every_label_and_field_reads_as_words():
    for kind in goal_form.GOAL_KINDS:
        for text in (kind.label, kind.value_field, kind.node_field):
            assert "_" not in text and "." not in text


def test_minimising_end2end_at_a_rate_is_sought_though_a_saturated_point_has_no_latency(baseline):
    """One agent and TRANS_BATCH_SZ 1 cannot carry 30,000 rows/s: that point has no END2END_LATENCY, yet
    the objective is the engine's (other start points give it) and the search finds a point that holds."""
    from engine.advise.goalseek import seek

    result = seek(baseline, goal_form.goal_from_form(baseline, "min_end2end", "30000"))
    assert result.feasible and result.metrics["apply_rows_per_s"] >= 29970
    assert result.metrics["end2end_latency_ms"] > 0
    with pytest.raises(FieldError, match="goal objective"):
        seek(
            baseline,
            goal_from_text(
                goal_form.goal_text(baseline, "min_end2end", "30000").replace(
                    "end2end_latency_ms", "end2end_latncy_ms"
                ),
                baseline,
            ),
        )
