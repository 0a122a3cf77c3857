"""The inspector form is generated from the registry; bad values are marked inline, never lost."""

from app.document import Document
from app.panels.fields import BoolField, ColumnMapField, EnumField, TextField, parse_text
from app.panels.inspector import Inspector
from engine import templates
from engine.registry import KINDS


def make(qtbot, kind="qapply"):
    doc = Document(templates.unidirectional())
    insp = Inspector(doc)
    qtbot.addWidget(insp)
    node = doc.project.nodes_of(kind)[0]
    insp.show_node(node.id)
    return doc, insp, node.id


def type_into(qtbot, field, text):
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_form_has_every_knob_with_unit_range_default_and_seed_in_tooltip(qtbot):
    _, insp, _ = make(qtbot)
    kind = KINDS["qapply"]
    # every knob but the core clock, which a Q Apply on z/OS (CPs rated by the CPU model) cannot have
    assert list(insp.fields) == [p.name for p in kind.params if p.name != "core_ghz"]
    insp.show_all.setChecked(True)
    assert list(insp.fields) == [p.name for p in kind.params]
    f = insp.fields["num_apply_agents"]
    assert isinstance(f, TextField) and f.edit.text() == "16"
    tip = f.toolTip()
    assert "NUM_APPLY_AGENTS" in tip and "from 1 to 128" in tip and "Default:</i> 16" in tip
    assert "Table 2-2 and 4.2" in tip  # the seed section
    assert isinstance(insp.fields["conflict_action"], EnumField)
    assert isinstance(insp.fields["apply_colocated_with_target"], BoolField)


def test_bad_value_is_marked_inline_kept_and_the_project_unchanged(qtbot):
    doc, insp, node_id = make(qtbot)
    before = doc.project
    f = insp.fields["num_apply_agents"]
    type_into(qtbot, f, "0")
    assert doc.project is before
    assert "NUM_APPLY_AGENTS: 0 is not allowed; expected an integer from 1 to 128 agents" in f.error
    assert f.edit.text() == "0"  # the typed text stays
    assert "c0202a" in f.edit.styleSheet()
    assert not f.messages.isHidden() and f.messages.parent() is not f  # its own full-width row of the form
    type_into(qtbot, f, "lots")
    assert '"lots" is not allowed' in f.error and f.edit.text() == "lots"
    type_into(qtbot, f, "6")
    assert f.error == "" and f.edit.styleSheet() == "" and f.messages.isHidden()
    assert doc.project.node(node_id).params["num_apply_agents"] == 6


def test_good_values_of_each_type_reach_the_model_and_undo_updates_the_form(qtbot):
    doc, insp, node_id = make(qtbot)
    enum = insp.fields["conflict_action"]
    enum.combo.setCurrentIndex(enum.combo.findData("F"))
    enum.combo.activated.emit(enum.combo.currentIndex())
    box = insp.fields["apply_colocated_with_target"]
    box.box.setChecked(False)
    p = doc.project.node(node_id).params
    assert p["conflict_action"] == "F" and p["apply_colocated_with_target"] is False
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert box.box.isChecked() and enum.combo.currentData() == "I"


def test_nullable_knob_empty_means_null(qtbot):
    doc, insp, node_id = make(qtbot, "source_db2")
    f = insp.fields["offered_rows_per_s"]
    assert f.edit.text() == "" and "drive to the maximum" in f.edit.placeholderText()
    type_into(qtbot, f, "12,000")
    assert doc.project.node(node_id).params["offered_rows_per_s"] == 12000.0
    type_into(qtbot, f, "")
    assert doc.project.node(node_id).params["offered_rows_per_s"] is None
    # a non-nullable knob left empty is refused, not turned into a default
    g = insp.fields["rows_per_txn"]
    type_into(qtbot, g, "")
    assert "null is not allowed" in g.error


def test_column_map_editor(qtbot):
    doc, insp, node_id = make(qtbot, "source_db2")
    f = insp.fields["columns"]
    assert isinstance(f, ColumnMapField)
    assert f.current() == {"INTEGER": 10, "CHAR(20)": 10, "DATE": 5, "DECIMAL(20,0)": 5}
    assert f.total.text() == "30 columns"
    f.table.item(0, 1).setText("4")
    assert doc.project.node(node_id).params["columns"]["INTEGER"] == 4
    f.table.item(1, 1).setText("-2")
    assert "is not allowed" in f.error and doc.project.node(node_id).params["columns"]["CHAR(20)"] == 10
    f.table.item(1, 1).setText("2")
    assert f.error == ""
    f.add_button.click()
    assert "VARCHAR(100)" in doc.project.node(node_id).params["columns"]
    doc.undo_stack.undo()
    assert "VARCHAR(100)" not in f.current()


def test_label_and_project_properties(qtbot):
    doc, insp, node_id = make(qtbot)
    insp.label_edit.setText("Apply at B")
    insp.label_edit.editingFinished.emit()
    assert doc.project.node(node_id).label == "Apply at B"
    insp.show_node("")
    from PySide6.QtGui import QTextCursor

    insp.description_edit.setPlainText("x")
    insp.description_edit.moveCursor(QTextCursor.End)
    insp.description_edit.insertPlainText("yz")
    assert doc.project.description.endswith("xyz")
    # typing a description is one undo step, not one per key
    assert doc.undo_stack.undoText() == "Edit project properties"
    doc.remove_items([node_id])
    insp.show_node(node_id)
    assert insp.node_id == ""


def test_parse_text():
    from engine.registry import KINDS as K

    qm = K["queue_manager"]
    assert parse_text(qm.param("dwp_target_pct"), "70, 80") == [70, 80]
    assert parse_text(qm.param("buffpool_pages"), "240_000") == 240000
    assert parse_text(K["channel"].param("network_latency_ms"), "0.5") == 0.5


def test_project_form_follows_a_new_project(qtbot):
    doc = Document(templates.unidirectional())
    insp = Inspector(doc)
    qtbot.addWidget(insp)
    assert "unidirectional" in insp.title.text()
    doc.reset(templates.TEMPLATES["db2-mirror-pair"](), None)
    assert doc.project.topology in insp.title.text() and "unidirectional" not in insp.title.text()
    assert insp.name_edit.text() == doc.project.name


def test_an_empty_label_is_marked_and_the_window_keeps_the_old_one(qtbot):
    doc, insp, node_id = make(qtbot)
    insp.label_edit.setText("  ")
    insp.label_edit.editingFinished.emit()
    assert doc.project.node(node_id).label == "Q Apply B" and doc.undo_stack.count() == 0
    assert (
        not insp.label_error.isHidden() and "label: a node label cannot be empty" in insp.label_error.text()
    )
    doc.set_param(node_id, "num_apply_agents", 5)  # another edit leaves the mark alone
    assert not insp.label_error.isHidden()
    insp.label_edit.setText("Apply")
    insp.label_edit.editingFinished.emit()
    assert doc.project.node(node_id).label == "Apply" and insp.label_error.isHidden()
    doc.undo_stack.undo()
    assert insp.label_edit.text() == "Q Apply B"


def test_a_knob_the_live_prediction_ignores_says_why_until_it_matters(window):
    """MAXAGENTS_CORRELID acts only on a closed workload whose jobs are fewer than the agents: the
    form says so, and stops saying it once 4 jobs may use 2 agents each of 16 (the real engine
    decides, not the form)."""
    doc, insp = window.document, window.inspector
    qapply = doc.project.nodes_of("qapply")[0].id
    source = doc.project.nodes_of("source_db2")[0].id
    window.live.update(wait=True)
    window.scene.select_node(qapply)
    field = insp.fields["maxagents_correlid"]
    assert field.note.startswith("No effect on this prediction: correlation ids are known only")
    assert insp.fields["num_apply_agents"].note == ""  # the bottleneck's knob has its effect
    doc.set_param(source, "jobs", 4)
    doc.set_param(qapply, "maxagents_correlid", 2)
    window.live.update(wait=True)
    assert window.live.shown is not None and field.note == ""
    window.live._fail(doc.project, "no engine")  # no prediction: nothing to explain
    assert field.note == ""


def test_the_notes_follow_the_selected_node(window):
    doc, insp = window.document, window.inspector
    window.live.update(wait=True)
    window.scene.select_node(doc.project.nodes_of("qcapture")[0].id)
    assert "COMMIT_INTERVAL" in insp.fields["commit_interval_ms"].note
    window.scene.select_node(doc.project.nodes_of("qapply")[0].id)
    assert "commit_interval_ms" not in insp.fields and insp.fields["maxagents_correlid"].note


def test_a_value_wider_than_its_field_shows_its_beginning(qtbot):
    _, insp, _ = make(qtbot, "qcapture")
    field = insp.fields["qrep_version"]
    assert len(field.edit.text()) > 10 and field.edit.cursorPosition() == 0
    insp.show_node("")  # the project's name too
    assert insp.name_edit.text() and insp.name_edit.cursorPosition() == 0
