"""Every knob a prediction cannot depend on is named, on its node, with the engine's reason.

The knob walk (test_knob_walk.py) proves each knob either moves an output or is in the
prediction's ``ignored``; these tests check that a user is told which knob it is and why
(:func:`engine.predict.ignored_knobs`, the inspector's notes and ``qrtune predict``).
"""

from __future__ import annotations

from pathlib import Path

from engine import projectfile
from engine.cli.predict import format_prediction
from engine.predict import ignored_knobs, predict_project
from engine.scenario import knob_paths
from engine.studies.sweep import with_changes

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"
#: 10,000 rows/s of 5-row transactions: Q Capture's transaction limit (~130) fills in ~65 ms,
#: before the shortest COMMIT_INTERVAL (100 ms); at 1,000 rows/s it takes ~650 ms.
LIMIT_FIRST = ["source_db2.offered_rows_per_s=10000"]
INTERVAL_FIRST = ["source_db2.offered_rows_per_s=1000"]


def _project(name: str, changes=()):
    return with_changes(projectfile.load(SAMPLES / f"{name}.json"), list(changes))


def _knob(project, kind: str, name: str, index: int = 0) -> tuple[str, str]:
    return project.nodes_of(kind)[index].id, name


def test_commit_interval_is_named_with_why_where_the_limit_fills_first_and_not_where_it_acts():
    busy = _project("redpaper-baseline", LIMIT_FIRST)
    why = ignored_knobs(busy, predict_project(busy))[_knob(busy, "qcapture", "commit_interval_ms")]
    assert (
        why.startswith("Q Capture reaches its transaction limit every")
        and "before any COMMIT_INTERVAL" in why
    )
    light = _project("redpaper-baseline", INTERVAL_FIRST)
    assert _knob(light, "qcapture", "commit_interval_ms") not in ignored_knobs(light, predict_project(light))


def test_every_ignored_setting_of_every_sample_is_some_nodes_knob():
    for path in sorted(SAMPLES.glob("*.json")):
        project = projectfile.load(path)
        pred = predict_project(project)
        knobs = ignored_knobs(project, pred)
        assert all(why for why in knobs.values()), path.stem
        named = {f"{node}.{name}" for node, name in knobs}
        paths = {p for n, s, p in knob_paths(project) if (n.id, s.name) in knobs}
        assert set(pred.ignored) <= named | paths, (path.stem, set(pred.ignored) - named - paths)
        every_path = {p for _, _, p in knob_paths(project) if "." in p}
        said = [
            (k, why)
            for k, why in knobs.items()
            if any(p in why.split() or f"({p}" in why for p in every_path)
        ]
        assert not said, said  # a knob is named as the user reads it, not by its settings path


def test_the_second_flow_of_a_two_way_project_names_the_node_whose_value_counts():
    project = _project("redpaper-bidirectional")
    knobs = ignored_knobs(project, predict_project(project))
    first, second = project.nodes_of("qcapture")
    assert knobs[(second.id, "sleep_interval_ms")].startswith(f"the engine takes the value of {first.label}")
    assert (first.id, "sleep_interval_ms") not in knobs


def test_predict_prints_the_knobs_by_node_with_ibm_names_and_reasons():
    project = _project("redpaper-baseline", LIMIT_FIRST)
    text = format_prediction(predict_project(project), project.name, project)
    tail = text.split("Knobs with no effect on this prediction, and why\n", 1)[1]
    qcapture = project.nodes_of("qcapture")[0]
    after = tail.split(f"    {qcapture.label}\n", 1)[1].splitlines()
    section = after[: next(i for i, line in enumerate(after) if not line.startswith("      "))]
    assert any(
        line.startswith("      COMMIT_INTERVAL: Q Capture reaches its transaction limit every")
        for line in section
    )
    assert "qcapture.commit_interval_ms" not in text  # IBM's name, not the settings path


def test_a_report_lists_the_same_knobs_and_reasons():
    from engine.report.build import run_from_project

    project = _project("redpaper-baseline", LIMIT_FIRST)
    rows = run_from_project(project).ignored
    qcapture = project.nodes_of("qcapture")[0]
    node = qcapture.label
    assert any(
        n == node and "COMMIT_INTERVAL" in names and "before any COMMIT_INTERVAL" in why
        for n, why, names in rows
    )
