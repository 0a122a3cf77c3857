"""The Simulation tab's load profile and outage event forms edit the project: undoable, saved, read back."""

from pathlib import Path

import pytest

from app.document import Document
from app.panels.load_profile import PROFILE_KINDS, ProfileEditor
from app.panels.outage_events import EventsEditor
from engine import projectfile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


@pytest.fixture
def document(qtbot):
    return Document(projectfile.load(SAMPLES / "redpaper-baseline.json"))


def choose(editor: ProfileEditor, kind) -> None:
    index = list(PROFILE_KINDS).index(kind)
    editor.kind.setCurrentIndex(index)
    editor.kind.activated.emit(index)


def test_a_daily_peak_is_edited_undone_and_saved(document, qtbot, tmp_path):
    editor = ProfileEditor(document)
    qtbot.addWidget(editor)
    assert document.project.simulation.profile is None and editor.kind.currentData() is None
    choose(editor, "bursts")
    peak = editor.editors["bursts"]
    peak["burst_rows_per_s"].setValue(8000)  # committed at once (no keyboard tracking)
    peak["burst_s"].setText("2h")
    peak["burst_s"].editingFinished.emit()
    doc = document.project.simulation.profile
    assert doc["kind"] == "bursts" and doc["burst_rows_per_s"] == 8000 and doc["burst_s"] == 7200
    model = document.project.simulation.profile_model()
    assert model.rate_at([3600.0, 9 * 3600.0, 11 * 3600.0]).tolist() == [200.0, 8000.0, 200.0]
    assert document.undo_stack.undoText() == "Load profile: Daily peak and quiet night"
    path = tmp_path / "peak.json"
    document.save(path)
    assert projectfile.load(path) == document.project  # round-trips through the file
    document.undo_stack.undo()
    assert document.project.simulation.profile["burst_s"] == 3600 and peak["burst_s"].text() == "1h"
    document.undo_stack.undo()
    assert document.project.simulation.profile["burst_rows_per_s"] == 5000
    assert peak["burst_rows_per_s"].value() == 5000  # the form follows undo
    document.undo_stack.undo()
    assert document.project.simulation.profile is None and editor.kind.currentData() is None
    reopened = Document.open(path)
    shown = ProfileEditor(reopened)
    qtbot.addWidget(shown)
    assert shown.kind.currentData() == "bursts" and shown.editors["bursts"]["burst_s"].text() == "2h"


def test_a_refused_value_changes_nothing_and_says_why(document, qtbot):
    editor = ProfileEditor(document)
    qtbot.addWidget(editor)
    choose(editor, "bursts")
    before = document.project
    editor.editors["bursts"]["burst_s"].setText("2d")
    editor.editors["bursts"]["burst_s"].editingFinished.emit()
    assert document.project is before
    assert (
        editor.message.text().startswith("Peak lasts: '2d' is not allowed")
        and "." not in editor.message.text()[:10]
    )
    editor.editors["bursts"]["burst_s"].setText("30h")  # longer than the day it repeats in
    editor.editors["bursts"]["burst_s"].editingFinished.emit()
    assert document.project is before and "Peak lasts" in editor.message.text()
    assert "simulation" not in editor.message.text() and "burst_s" not in editor.message.text()


def test_steps_from_a_csv_file(document, qtbot, tmp_path):
    csv = tmp_path / "day.csv"
    csv.write_text("t_s,rows_per_s\n0,300\n3600,2500\n7200,800\n", encoding="utf-8")
    editor = ProfileEditor(document)
    qtbot.addWidget(editor)
    assert editor.import_file(str(csv))
    assert document.project.simulation.profile["steps"] == [[0.0, 300.0], [3600.0, 2500.0], [7200.0, 800.0]]
    assert editor.kind.currentData() == "steps" and editor.steps.rowCount() == 3
    assert editor.steps.item(1, 0).text() == "1h"
    editor.steps.item(1, 1).setText("3,000")  # typed in the table
    assert document.project.simulation.profile["steps"][1] == [3600.0, 3000.0]
    bad = tmp_path / "bad.csv"
    bad.write_text("0,300\n60,lots\n", encoding="utf-8")
    assert not editor.import_file(str(bad)) and "two numbers" in editor.message.text()


def test_events_are_added_changed_removed_and_undone(document, qtbot, tmp_path):
    editor = EventsEditor(document)
    qtbot.addWidget(editor)
    assert editor.add_event()
    assert document.project.simulation.event_texts() == ["channel-stop@2m+20m"]
    kinds = editor.table.cellWidget(0, 0)
    assert [kinds.itemText(i) for i in range(kinds.count())] == [
        "MQ channel stop",
        "Q Apply stop",
        "Target Db2 slow-down",
    ]
    kinds.setCurrentIndex(2)
    kinds.activated.emit(2)
    length = editor.table.cellWidget(0, 2)
    length.setText("5m")
    length.editingFinished.emit()
    editor.table.cellWidget(0, 3).setValue(0.25)
    assert document.project.simulation.event_texts() == ["target-slow@2m+5m*0.25"]
    assert editor.add_event()
    assert document.project.simulation.event_texts()[1] == "channel-stop@17m+20m"
    document.save(tmp_path / "events.json")
    assert projectfile.load(tmp_path / "events.json").simulation == document.project.simulation
    editor.table.setCurrentCell(0, 1)
    assert editor.remove_event()
    assert document.project.simulation.event_texts() == ["channel-stop@17m+20m"]
    document.undo_stack.undo()
    assert editor.table.rowCount() == 2 and editor.table.cellWidget(0, 3).value() == 0.25
    start = editor.table.cellWidget(0, 1)
    start.setText("soon")
    start.editingFinished.emit()
    assert "Starts at: 'soon' is not allowed" in editor.message.text()


def test_a_db2_mirror_pair_offers_only_a_suspend(qtbot):
    document = Document(projectfile.load(SAMPLES / "mirror-active-passive.json"))
    editor = EventsEditor(document)
    qtbot.addWidget(editor)
    editor.add_event()
    assert document.project.simulation.event_texts() == ["mirror-suspend@2m+20m"]


def test_the_project_file_refuses_a_bad_simulation_by_name():
    from engine.errors import FieldError

    data = projectfile.migrate(projectfile.jsonfile.read_json(SAMPLES / "redpaper-baseline.json", FieldError))
    data["simulation"] = {"events": [{"kind": "channel_stop", "start_s": -1, "duration_s": 60}]}
    with pytest.raises(FieldError, match="start_s: -1"):
        projectfile.build_project(data)
    data["simulation"] = {"profile": {"kind": "weekly"}}
    with pytest.raises(FieldError, match="simulation.profile.kind"):
        projectfile.build_project(data)
