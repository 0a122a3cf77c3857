"""Every knob a prediction cannot depend on is named, on its node, with the engine's reason.

The knob walk (test_knob_walk.py) proves each knob either moves an output or is in the
prediction's ``ignored``; these tests check that a user is told which knob it is and why
(:func:`engine.predict.ignored_knobs`, the inspector's notes and ``qrtune predict``).
"""

from __future__ import annotations

from pathlib import Path

from engine.cli.predict import format_prediction
from engine.io import projectfile
from engine.predict import ignored_knobs, predict_project
from engine.scenario import knob_paths
from engine.studies.sweep import with_changes

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"
#: Big transactions (the per-commit transaction limit fills slowly) and a long SLEEP_INTERVAL:
#: a pass over the log outlasts COMMIT_INTERVAL (as in test_qrep_load_sweep.py).
LONG_PASSES = [
    "source_db2.offered_rows_per_s=20000",
    "source_db2.rows_per_txn=100",
    "source_db2.inserts_per_txn=20",
    "source_db2.updates_per_txn=60",
    "source_db2.deletes_per_txn=20",
    "qcapture.sleep_interval_ms=4000",
    "qcapture.trans_batch_sz=1",
]


def _project(name: str, changes=()):
    return with_changes(projectfile.load(SAMPLES / f"{name}.json"), list(changes))


def _knob(project, kind: str, name: str, index: int = 0) -> tuple[str, str]:
    return project.nodes_of(kind)[index].id, name


def test_commit_interval_is_named_with_why_at_light_load_and_not_where_it_acts():
    light = _project("redpaper-baseline", ["source_db2.offered_rows_per_s=2000"])
    why = ignored_knobs(light, predict_project(light))[_knob(light, "qcapture", "commit_interval_ms")]
    assert why.startswith("Q Capture commits every") and "before any COMMIT_INTERVAL" in why
    long_passes = _project("redpaper-baseline", LONG_PASSES)
    assert _knob(long_passes, "qcapture", "commit_interval_ms") not in ignored_knobs(
        long_passes, predict_project(long_passes)
    )


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
    first, second = (n.id for n in project.nodes_of("qcapture"))
    assert knobs[(second, "sleep_interval_ms")].startswith(f"the engine takes the value of node {first}")
    assert (first, "sleep_interval_ms") not in knobs


def test_predict_prints_the_knobs_by_node_with_ibm_names_and_reasons():
    project = _project("redpaper-baseline", ["source_db2.offered_rows_per_s=2000"])
    text = format_prediction(predict_project(project), project.name, project)
    tail = text.split("Knobs with no effect on this prediction, and why\n", 1)[1]
    qcapture = project.nodes_of("qcapture")[0]
    after = tail.split(f"    {qcapture.label} ({qcapture.id})\n", 1)[1].splitlines()
    section = after[: next(i for i, line in enumerate(after) if not line.startswith("      "))]
    assert any(line.startswith("      COMMIT_INTERVAL: Q Capture commits every") for line in section)
    assert "qcapture.commit_interval_ms" not in text  # IBM's name, not the settings path


def test_a_report_lists_the_same_knobs_and_reasons():
    from engine.report.build import run_from_project

    project = _project("redpaper-baseline", ["source_db2.offered_rows_per_s=2000"])
    rows = run_from_project(project).ignored
    qcapture = project.nodes_of("qcapture")[0]
    node = f"{qcapture.label} ({qcapture.id})"
    assert any(
        n == node and "COMMIT_INTERVAL" in names and "before any COMMIT_INTERVAL" in why
        for n, why, names in rows
    )
