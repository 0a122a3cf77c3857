"""Every knob of every node of every sample either changes a result or is reported in ``ignored``.

The walk loads each project of ``sample_runs/`` (new samples are walked automatically), and for
every node -- both flows of a two-way project, both Db2 Mirror nodes -- sets each registry knob
that maps to the sample's scenario kind to other values across its registry range (both ends,
the geometric middle, and x2 / half / +-10% of the sample's value), predicts the project and
compares all metrics and the bottleneck with the sample's own prediction. A knob that never
changes them must be in the prediction's ``ignored`` (by its settings path, or as
``"<node id>.<param>"`` when the engine does not read that node) with a reason in
``ignored_reasons``; a value the engine rejects must be rejected with a message naming a
setting (never a traceback). A second test checks that no step between neighbouring values of
an integer knob is larger than the knob's documented integer steps allow.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import FieldError, ValueRangeError
from engine.predict import predict_project
from engine.scenario import knob_paths, project_to_scenario

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted(p.stem for p in (ROOT / "sample_runs").glob("*.json"))


def _candidates(spec, current) -> list:
    if spec.type == "bool":
        return [not bool(current)]
    if spec.type == "enum":
        return [c for c in spec.choices if c != current]
    if spec.type == "int_pair" and isinstance(current, (list, tuple)):
        return [[current[0] - 10, current[1] - 5]]
    if spec.type == "column_map" and isinstance(current, dict):
        return [{k: v * 2 for k, v in current.items()}]
    if spec.type not in ("int", "float") or spec.minimum is None or spec.maximum is None:
        return []
    lo, hi = spec.minimum, spec.maximum
    out = [lo, hi, math.sqrt(lo * hi) if lo > 0 else hi / 100]
    if isinstance(current, (int, float)) and not isinstance(current, bool):
        out += [current * 2, current / 2 if current else 1, current * 1.1, current * 0.9]
    if spec.type == "int":
        out = [int(round(v)) for v in out]
    return [v for v in out if v != current and lo <= v <= hi]


def _signature(p) -> tuple:
    return {k: round(v, 9) for k, v in p.metrics.items()}, p.bottleneck


def _walk(project, base, node, spec) -> str:
    """'changes', 'rejected' (every value refused with a message) or 'dead'."""
    tried = rejected = 0
    for value in _candidates(spec, node.params.get(spec.name)):
        tried += 1
        try:
            p = predict_project(project.with_param(node.id, spec.name, value))
        except (FieldError, ValueError) as e:  # ValueRangeError is a ValueError
            assert "." in str(e) or ":" in str(e), f"{node.id}.{spec.name}={value!r}: unclear message {e}"
            rejected += 1
            continue
        if _signature(p) != _signature(base):
            return "changes"
    return "rejected" if tried and rejected == tried else "dead"


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_knob_of_every_node_changes_a_result_or_is_reported_with_a_reason(sample):
    project = projectfile.load(ROOT / "sample_runs" / f"{sample}.json")
    base = predict_project(project)
    dead, walked = [], set()
    for node, spec, path in knob_paths(project):
        key = f"{node.id}.{spec.name}"
        for name in (key, path):
            if name in base.ignored:
                assert base.ignored_reasons.get(name), f"{sample}: {name} is ignored without a reason"
                break
        else:
            walked.add(node.id)
            if _walk(project, base, node, spec) == "dead":
                dead.append(key)
    assert not dead, f"{sample}: knobs that change nothing and are not reported in ignored: {dead}"
    assert walked, f"{sample}: no knob was walked"


def test_the_second_flow_of_a_two_way_sample_is_walked_or_reported():
    """Knobs of the second flow's nodes are reported by node id (the engine mirrors the first flow)."""
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-bidirectional.json")
    p = predict_project(project)
    assert "ba-5-qapply.num_apply_agents" in p.ignored
    assert "first flow" in p.ignored_reasons["ba-5-qapply.num_apply_agents"]
    assert "ab-5-qapply.num_apply_agents" not in p.ignored


def test_a_queue_depth_does_not_switch_the_run_into_a_drain():
    """INITIAL_DEPTH_MSGS 0 -> 1 changes nothing in a steady run; the drain is the explicit run_mode."""
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    qm = [n for n in project.nodes if n.kind == "queue_manager"][-1]
    base = predict_project(project)
    deeper = project.with_param(qm.id, "initial_depth_msgs", 1)
    assert project_to_scenario(deeper)["run"]["mode"] == "steady"
    assert _signature(predict_project(deeper)) == _signature(base)
    drain = deeper.with_param(qm.id, "run_mode", "drain").with_param(qm.id, "initial_depth_msgs", 100_000)
    assert project_to_scenario(drain)["run"] == {
        "mode": "drain",
        "initial_receive_queue_depth": 100_000,
        "catch_up_payload_msgs": 0,
    }
    assert "elapsed_s" in predict_project(drain).metrics


def test_maxmsgl_below_a_message_fails_as_mq_does_and_above_it_changes_nothing():
    """MQ refuses a put larger than MAXMSGL (MQRC_MSG_TOO_BIG_FOR_Q); Q Capture splits only at
    MAX_MESSAGE_SIZE. The error names the queue manager by its label, MAXMSGL and the message size."""
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    qm = next(n for n in project.nodes if n.kind == "queue_manager")
    base = predict_project(project)
    msg_bytes = base.metrics["msg_size_kb"] * 1000.0
    with pytest.raises(ValueRangeError) as refused:
        predict_project(project.with_param(qm.id, "maxmsgl", int(msg_bytes) - 1))
    text = str(refused.value)
    assert text.startswith(f"{qm.label} MAXMSGL: ") and "\n" not in text
    assert f"{math.ceil(msg_bytes):,}-byte messages" in text
    roomy = predict_project(project.with_param(qm.id, "maxmsgl", int(msg_bytes) + 1))
    assert roomy.metrics == base.metrics
    assert "mq.maxmsgl" in base.ignored


def test_the_bottleneck_has_one_name_in_predict_the_stage_table_and_the_advisor():
    """The busiest stage names the bottleneck; only ``qrtune evaluate`` translates it to the
    published vocabulary (``capture_cpu`` -> ``cpu``)."""
    from engine.advise import advise
    from engine.evaluate import published_bottleneck
    from engine.limit import limit_of

    for sample in ("redpaper-baseline", "dw2005-zos-unidirectional"):
        project = projectfile.load(ROOT / "sample_runs" / f"{sample}.json")
        p = predict_project(project)
        marked = [s.name for s in p.stages if getattr(s, "is_bottleneck", False)]
        assert advise(project).prediction.bottleneck == p.bottleneck
        if p.bottleneck is None:  # the closed workload's rate is carried: no stage is marked
            assert marked == [] and limit_of(p).holds_offered and published_bottleneck(p) is None
            continue
        assert marked == [p.bottleneck]
        assert max(p.stages, key=lambda s: s.utilisation).name == p.bottleneck
        assert published_bottleneck(p) in {
            "cpu",
            "qcapture",
            "mq_log",
            "mq_channel",
            "qapply_agents",
            "qapply_cpu",
            "qapply_browser",
            "source_workload",
        }
