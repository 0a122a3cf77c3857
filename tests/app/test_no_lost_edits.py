"""Nothing the user typed is lost: refused input survives reselection, typed values reach saves,
closing or opening asks first, and an autosave brings edits back after a crash."""

import json
import os

import pytest
from PySide6.QtWidgets import QMessageBox

from app import dialogs
from app.autosave import find_recoverable
from app.panels.fields import ColumnMapField
from engine import projectfile, templates


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "mine.json"
    projectfile.save(templates.unidirectional("Mine"), path)
    return path


def answer(monkeypatch, button):
    """Make the unsaved-changes question answer ``button``; returns the list of questions asked."""
    asked = []

    def question(parent, title, text, *args, **kwargs):
        asked.append((title, text))
        return button

    monkeypatch.setattr(dialogs, "ask", question)
    return asked


def test_refused_input_stays_marked_when_the_node_is_selected_again(fake_engine, window):
    doc, insp = window.document, window.inspector
    qapply = doc.project.nodes_of("qapply")[0].id
    qcapture = doc.project.nodes_of("qcapture")[0].id
    before = doc.project
    window.scene.select_node(qapply)
    field = insp.fields["num_apply_agents"]
    field.edit.setText("200")
    field.edit.editingFinished.emit()
    message = field.error
    assert "NUM_APPLY_AGENTS" in message and "200" in message and "from 1 to 128" in message
    assert "nodes[" not in message and doc.project.node(qapply).label in message
    window.scene.select_node(qcapture)
    assert insp.node_id == qcapture and "num_apply_agents" not in insp.fields
    window.scene.select_node(qapply)
    field = insp.fields["num_apply_agents"]
    assert field.edit.text() == "200" and field.error == message
    assert doc.project is before
    field.edit.setText("12")
    field.edit.editingFinished.emit()
    assert doc.project.node(qapply).params["num_apply_agents"] == 12 and not insp.pending
    # the window kept predicting through all of it, on the accepted value
    window.live.update(wait=True)
    assert window.live.prediction.metrics["apply_rows_per_s"] == min(800.0 * 12, 3000.0 * 1)


def test_column_map_row_without_a_type_is_marked_not_dropped(window):
    doc, insp = window.document, window.inspector
    source = doc.project.nodes_of("source_db2")[0].id
    window.scene.select_node(source)
    field = insp.fields["columns"]
    assert isinstance(field, ColumnMapField)
    before = doc.project
    field.table.item(1, 0).setText("")
    assert field.table.rowCount() == 4 and field.table.item(1, 1).text() == "10"
    assert "row 2 has no column type" in field.error and doc.project is before
    field.table.item(1, 0).setText("DATE")
    assert "DATE appears twice" in field.error and doc.project is before
    field.table.item(1, 0).setText("VARCHAR(40)")
    assert field.error == ""
    assert doc.project.node(source).params["columns"]["VARCHAR(40)"] == 10


def test_a_value_still_in_its_field_is_saved_by_ctrl_s(window, saved):
    assert window.open_project(str(saved), ask=False)
    qapply = window.document.project.nodes_of("qapply")[0].id
    window.scene.select_node(qapply)
    field = window.inspector.fields["num_apply_agents"]
    field.edit.setText("7")  # typed, editing not finished (the cursor is still in the field)
    window.act_save.trigger()
    assert projectfile.load(saved).node(qapply).params["num_apply_agents"] == 7
    assert not window.document.is_modified()


def test_close_with_unsaved_edits_asks_and_cancel_keeps_everything(window, monkeypatch, saved):
    assert window.open_project(str(saved), ask=False)
    window.confirm_discard = window._ask_discard  # the real question
    qapply = window.document.project.nodes_of("qapply")[0].id
    window.document.set_param(qapply, "num_apply_agents", 3)
    asked = answer(monkeypatch, QMessageBox.Cancel)
    assert not window.close()
    assert len(asked) == 1 and "Mine" in asked[0][1]
    assert window.document.project.node(qapply).params["num_apply_agents"] == 3
    assert window.document.is_modified()
    # opening another project asks too, and Cancel keeps the edit
    other = saved.parent / "other.json"
    projectfile.save(templates.bidirectional("Other"), other)
    assert not window.open_project(str(other))
    assert len(asked) == 2 and window.document.project.name == "Mine"
    assert not window.new_from_template("peer-to-peer") and window.document.project.name == "Mine"
    # Save writes the file, then the window closes
    answer(monkeypatch, QMessageBox.Save)
    assert window.close()
    assert projectfile.load(saved).node(qapply).params["num_apply_agents"] == 3


def test_close_discard_drops_the_edits_and_the_autosave(window, monkeypatch, saved):
    assert window.open_project(str(saved), ask=False)
    window.confirm_discard = window._ask_discard
    qapply = window.document.project.nodes_of("qapply")[0].id
    window.document.set_param(qapply, "num_apply_agents", 4)
    assert window.autosaver.save_now() is not None and window.autosaver.file.exists()
    answer(monkeypatch, QMessageBox.Discard)
    assert window.close()
    assert not window.autosaver.file.exists()
    assert projectfile.load(saved).node(qapply).params["num_apply_agents"] == 16


def test_no_question_when_nothing_changed(window, monkeypatch):
    window.confirm_discard = window._ask_discard
    asked = answer(monkeypatch, QMessageBox.Cancel)
    assert window.close() and asked == []


def test_autosave_of_the_window_is_recovered_after_a_crash(
    qtbot, window, monkeypatch, saved, tmp_path, settings, db_path
):
    from app.main_window import MainWindow

    assert window.open_project(str(saved), ask=False)
    window.autosaver.timer.setInterval(20)
    qapply = window.document.project.nodes_of("qapply")[0].id
    window.document.set_param(qapply, "num_apply_agents", 5)
    window.document.rename_node(qapply, "Apply at B")
    qtbot.waitUntil(lambda: window.autosaver.file.exists(), timeout=3000)
    qtbot.waitUntil(lambda: "Apply at B" in window.autosaver.file.read_text(), timeout=3000)
    # the process dies without closing the window: its autosave is what is left
    data = json.loads(window.autosaver.file.read_text())
    data["pid"] = 2**22 + 4242
    window.autosaver.file.write_text(json.dumps(data))
    directory = window.autosaver.directory
    assert [e.original_path for e in find_recoverable(directory)] == [str(saved.resolve())]

    again = MainWindow(settings=settings, db_path=db_path, autosave_dir=directory)
    qtbot.addWidget(again)
    again.confirm_discard = lambda: True
    asked = answer(monkeypatch, QMessageBox.Yes)
    assert again.offer_recovery()
    assert len(asked) == 1 and "Mine" in asked[0][1]
    node = again.document.project.node(qapply)
    assert node.params["num_apply_agents"] == 5 and node.label == "Apply at B"
    assert again.document.path == str(saved.resolve()) and again.document.is_modified()
    assert again.isWindowModified()
    assert find_recoverable(directory) == []  # recovered once, not offered again
    # the recovered autosave was never deleted: the new session took it over and rewrote it
    kept = json.loads(data_file.read_text()) if (data_file := again.autosaver.file).exists() else {}
    assert data_file.parent == directory and kept.get("pid") == os.getpid()
    assert kept["project"]["nodes"] and "Apply at B" in data_file.read_text()
    assert again.save()
    assert projectfile.load(saved).node(qapply).label == "Apply at B"


def test_declined_recovery_can_be_kept_for_later_or_discarded(qtbot, window, monkeypatch, dead_autosave):
    directory = dead_autosave(templates.peer_to_peer("Lost"))
    before = window.document.project
    answer(monkeypatch, QMessageBox.Ignore)
    assert not window.offer_recovery() and window.document.project is before
    assert len(find_recoverable(directory)) == 1  # still there for next time
    answer(monkeypatch, QMessageBox.Discard)
    assert not window.offer_recovery()
    assert find_recoverable(directory) == []


def test_save_as_with_a_refused_value_in_a_field_writes_nothing_and_stays_modified(window, saved, tmp_path):
    assert window.open_project(str(saved), ask=False)
    qapply = window.document.project.nodes_of("qapply")[0]
    window.scene.select_node(qapply.id)
    field = window.inspector.fields["num_apply_agents"]
    field.edit.setText("200")  # out of range: refused
    other = tmp_path / "other.json"
    assert not window.save_as(str(other))
    assert not other.exists() and "Not saved" in window.last_message
    assert f"{qapply.label} NUM_APPLY_AGENTS: 200 is not allowed" in window.last_message  # the user's words
    assert "nodes[" not in window.last_message and "num_apply_agents" not in window.last_message
    field.edit.setText("12")
    qcapture = window.document.project.nodes_of("qcapture")[0].id
    window.document.set_param(qcapture, "trans_batch_sz", 2)  # something to save
    assert (
        window.save_as(str(other))
        and projectfile.load(other).node(qapply.id).params["num_apply_agents"] == 12
    )
    assert not window.document.is_modified()


def test_undo_text_and_shortcut_list_use_ibm_names(window):
    from app.help import shortcuts_html

    qapply = window.document.project.nodes_of("qapply")[0]
    window.document.set_param(qapply.id, "num_apply_agents", 6)
    assert window.document.undo_stack.undoText() == f"Set NUM_APPLY_AGENTS = 6 on {qapply.label}"
    table = shortcuts_html(window.actions())
    assert "Undo" in table and "Redo" in table and "Ctrl+Z" in table
