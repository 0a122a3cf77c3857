"""The advisor's "how many queue maps": the fewest maps that hold the rate, found with the engine."""

from __future__ import annotations

from pathlib import Path

from engine import projectfile
from engine.advise import advise
from engine.advise.queue_map_rule import HOLD_SHARE, QueueMapsRule
from engine.predict import predict_project

ROOT = Path(__file__).resolve().parents[3]


def _maps(project, count: int):
    qc = project.nodes_of("qcapture")[0]
    return project.with_param(qc.id, "queue_maps", count)


def test_a_channel_bound_map_gets_the_fewest_queue_maps_that_hold_98_percent_of_the_best():
    project = _maps(projectfile.load(ROOT / "sample_runs" / "four-queue-maps.json"), 1)
    advice = advise(project)
    assert advice.prediction.bottleneck == "mq_channel"
    (rec,) = [r for r in advice.recommendations if r.to_json()["rule"] == "queue_maps"]
    chosen = rec.to_json()["changes"][0]["after"]
    rates = {n: predict_project(_maps(project, n)).metrics["apply_rows_per_s"] for n in range(1, 17)}
    best = max(rates.values())
    assert rates[chosen] >= HOLD_SHARE * best
    assert all(rates[n] < HOLD_SHARE * best for n in range(1, chosen))
    assert chosen > 1


def test_not_applicable_when_a_shared_resource_is_the_bottleneck():
    project = projectfile.load(ROOT / "sample_runs" / "four-queue-maps.json")
    p = predict_project(project)
    assert p.bottleneck == "qapply_cpu"
    assert not QueueMapsRule().applies(project, p)
