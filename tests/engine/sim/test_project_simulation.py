"""A project's saved load profile and outage events: in the file, and run by ``simulate`` and ``sweep --simulate``."""

from __future__ import annotations

import argparse
from dataclasses import replace

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.sim.events import Event, event_text, parse_event
from engine.sim.result import flat_metrics
from engine.simulation_setup import build_setup


@pytest.fixture
def baseline(root):
    return projectfile.load(root / "sample_runs" / "redpaper-baseline.json")


@pytest.mark.parametrize(
    "event",
    [
        Event("channel_stop", 120.0, 1200.0),
        Event("apply_stop", 90.0, 30.5),
        Event("target_slow", 3600.0, 7200.0, 0.25),
        Event("mirror_suspend", 0.0, 86400.0),
    ],
)
def test_an_event_reads_back_from_its_text(event):
    assert parse_event(event_text(event)) == event


def test_the_file_keeps_the_setup_and_a_file_without_one_is_unchanged(baseline, root):
    setup = build_setup(
        {
            "profile": {
                "kind": "batch_window",
                "base_rows_per_s": 1000,
                "start_s": 60,
                "duration_s": 60,
                "batch_rows_per_s": 9000,
                "batch_rows_per_txn": 500,
            },
            "events": [{"kind": "target-slow", "start_s": 30, "duration_s": 10, "factor": 0.5}],
        }
    )
    project = replace(baseline, simulation=setup)
    again = projectfile.loads(projectfile.dumps(project))
    assert again == project and again.simulation.event_texts() == ["target-slow@30s+10s*0.5"]
    assert "simulation" not in projectfile.dumps(baseline)
    with pytest.raises(FieldError, match="simulation.events"):
        build_setup({"events": {"kind": "channel_stop"}})
    with pytest.raises(FieldError, match="simulation.when"):
        build_setup({"when": "now"})


def _study_args(**kw):
    base = {"axes": [], "scenario": [], "seeds": 1, "duration": "30s", "rate": None, "yes": False}
    return argparse.Namespace(**(base | kw))


def test_a_simulation_study_runs_the_projects_events_and_profile(baseline):
    from engine.cli.study import _plan
    from engine.studies.study import run_study_points

    project = replace(
        baseline,
        simulation=build_setup(
            {
                "profile": {"kind": "constant", "rows_per_s": 1500},
                "events": [{"kind": "channel_stop", "start_s": 5, "duration_s": 5}],
            }
        ),
    )
    assert _plan(_study_args(), project).scenarios == (("channel-stop@5s+5s",),)
    assert _plan(_study_args(scenario=["none"]), project).scenarios == ((),)  # given: the option wins
    assert _plan(_study_args(), baseline).scenarios == ((),)
    [(_, settings, summary, error)] = run_study_points(project, _plan(_study_args(), project), [0])
    metrics, _ = flat_metrics(summary)
    assert not error and settings["simulation"]["events"] == ["channel-stop@5s+5s"]
    assert metrics["offered_rows_per_s"] == pytest.approx(1500, rel=0.1)  # the saved profile's rate
    assert metrics["event1_peak_backlog_rows"] > 1000
