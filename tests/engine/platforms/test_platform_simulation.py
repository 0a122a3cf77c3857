"""The simulator runs the platform samples through a channel outage and a client outage and catches up."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import projectfile
from engine.predict import predict_project
from engine.sim import Event, profiles, simulate

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    "sample, outage",
    [
        ("zos-to-linux-bindings", "channel_stop"),
        ("zos-to-linux-client", "apply_stop"),  # the client connection lost: Q Apply stops getting
        ("aix-unidirectional", "channel_stop"),
    ],
)
def test_an_outage_at_half_the_capacity_is_caught_up(sample, outage):
    project = projectfile.load(ROOT / "sample_runs" / f"{sample}.json")
    rate = 0.5 * predict_project(project).metrics["apply_rows_per_s"]
    res = simulate(project, 420, seed=3, profile=profiles.constant(rate), events=[Event(outage, 60, 60)])
    event = res.summary["events"][0]
    assert event["backlog_at_end_of_event_rows"] == pytest.approx(rate * 60, rel=0.1)
    assert event["catch_up_s"] is not None and 0 < event["catch_up_s"] < 300
    assert res.summary["throughput_rows_per_s"] == pytest.approx(rate, rel=0.1)


def test_the_simulated_linux_queue_manager_uses_its_queue_buffer_not_a_buffer_pool():
    project = projectfile.load(ROOT / "sample_runs" / "zos-to-linux-bindings.json")
    res = simulate(project, 30, seed=1, profile=profiles.constant(1000))
    notes = " ".join(res.config.notes)
    assert "receive queue: a distributed queue manager (Linux x86-64)" in notes
    assert res.config.recvq_buffer_msgs < 100  # 128 KB of ~6 KB messages, not 240,000 buffer-pool pages
