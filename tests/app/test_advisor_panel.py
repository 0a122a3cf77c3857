"""The advisor panel: runs in the background, lists engine-checked results, applies one as an undoable edit."""

import pytest

from app.document import Document
from app.panels.advisor import AdvisorPanel
from engine import projectfile

QA, SRC, QC = "ab-5-qapply", "ab-0-source-db2", "ab-1-qcapture"
#: The advice for the baseline's busiest stage, whichever it is with the fitted coefficients: rule -> (node, knob).
BOTTLENECK_RULES = {"more_apply_agents": (QA, "num_apply_agents"), "trans_batch_sz": (QC, "trans_batch_sz")}


@pytest.fixture
def doc(root, qtbot):
    return Document(projectfile.load(root / "sample_runs" / "redpaper-baseline.json"))


@pytest.fixture
def panel(qtbot, doc, db_path):
    p = AdvisorPanel(doc, lambda: db_path)
    qtbot.addWidget(p)
    yield p
    if p.tasks.busy():
        p.tasks.cancel()
        p.tasks.wait(5000)


def test_advice_runs_in_background_and_applies_undoably(panel, doc, qtbot, db_path):
    with qtbot.waitSignal(panel.tasks.finished, timeout=30000):
        assert panel.run_advice()
        assert not panel.advise_button.isEnabled() and panel.cancel_button.isEnabled()
    assert panel.advise_button.isEnabled() and panel.progress.isHidden()
    assert panel.list.count() == len(panel.results) >= 1
    # the advice for the baseline's busiest stage: more agents (Q Apply) or batching (the channel)
    rules = [r.rule for r in panel.results]
    rule = next(r for r in BOTTLENECK_RULES if r in rules)
    node, knob = BOTTLENECK_RULES[rule]
    row = rules.index(rule)
    rec = panel.results[row]
    panel.list.setCurrentRow(row)
    assert "Cost / risk" in panel.detail.toPlainText() or "Cost / risk" in panel.detail.toHtml()
    text = panel.detail.toPlainText()  # IBM's names, as in the results view
    assert "ROWS_APPLIED" in text and "END2END_LATENCY" in text and "apply_rows_per_s" not in text
    assert "ROWS_APPLIED" in panel.list.item(row).text() or rec.metric != "apply_rows_per_s"
    before = doc.project.node(node).params[knob]
    target = rec.project.node(node).params[knob]
    assert target != before
    depth = doc.undo_stack.count()
    with qtbot.waitSignal(panel.applied):
        assert panel.apply_current()
    assert doc.project.node(node).params[knob] == target
    assert doc.undo_stack.count() == depth + 1 and doc.is_modified()
    doc.undo_stack.undo()
    assert doc.project.node(node).params[knob] == before
    # every result was recorded as a run
    from engine.store import Store

    with Store.open(db_path, read_only=True) as store:
        assert len(store.list_runs(kind="advise")) == len(panel.results) + 1


def test_applying_keeps_edits_made_meanwhile(panel, doc, qtbot):
    with qtbot.waitSignal(panel.tasks.finished, timeout=30000):
        panel.run_advice()
    rules = [r.rule for r in panel.results]
    row = rules.index(next(r for r in BOTTLENECK_RULES if r in rules))
    panel.list.setCurrentRow(row)
    doc.set_param(SRC, "unique_indexes", 2)  # an unrelated edit after the advice was computed
    panel.apply_current()
    assert doc.project.node(SRC).params["unique_indexes"] == 2


def test_goal_seek_shows_best_point_and_applies_it(panel, doc, qtbot):
    with qtbot.waitSignal(panel.tasks.finished, timeout=30000):
        assert panel.run_goal("fewest-agents:40000")
    assert panel.list.count() == 1
    result = panel.results[0]
    assert result.feasible
    assert "Goal met" in panel.list.item(0).text()
    panel.apply_current()
    assert doc.project.node(QA).params["num_apply_agents"] == result.values[0]
    assert doc.project.node(SRC).params["offered_rows_per_s"] == 40000.0
    doc.undo_stack.undo()
    assert doc.project.node(SRC).params["offered_rows_per_s"] is None


def test_bad_goal_is_reported_without_running(panel):
    assert not panel.run_goal("cheapest please")
    assert "fewest-agents" in panel.status.text()
    assert not panel.tasks.busy()


def test_main_window_has_advisor_dock_and_bands_in_results(window, qtbot):
    assert window.advisor_dock.widget() is window.advisor
    assert window.advisor_dock.toggleViewAction() in window.menuBar().actions()[2].menu().actions()
    window.live.update(wait=True)
    table = window.results.table
    assert table.columnCount() == 4 and "band" in table.horizontalHeaderItem(3).text()
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    band = table.item(names.index("ROWS_APPLIED"), 3).text()
    assert ".." in band


def test_goals_follow_the_project_kind_and_every_open_resets_the_advisor(window, root, qtbot):
    window.open_project(str(root / "sample_runs" / "redpaper-baseline.json"), ask=False)
    goals = [window.advisor.goal_box.itemText(i) for i in range(window.advisor.goal_box.count())]
    assert goals[0].startswith("fewest-agents:") and "outage-pool:20" in goals
    window.advisor.results = ["stale"]
    window.advisor.list.addItem("a result of the previous project")
    window.advisor.apply_button.setEnabled(True)
    window.open_project(str(root / "sample_runs" / "mirror-active-passive.json"), ask=False)
    goals = [window.advisor.goal_box.itemText(i) for i in range(window.advisor.goal_box.count())]
    assert goals == ["mirror-baseline", "mirror-baseline:cores"]  # no fewest-agents on a Db2 Mirror pair
    assert window.advisor.list.count() == 0 and window.advisor.results == []
    assert not window.advisor.apply_button.isEnabled()
    window.new_from_template("mq-mover")
    assert window.advisor.goal_box.count() == 0
    assert "write one" in window.advisor.goal_box.lineEdit().placeholderText()


def test_the_goal_form_offers_goals_in_words_with_value_unit_and_node(panel, doc):
    form = panel.goal_form
    labels = [form.kind_box.itemText(i) for i in range(form.kind_box.count())]
    assert labels[0] == "Reach a target rate with the fewest apply agents"
    assert "Minimise END2END latency at a target rate" in labels and labels[-1] == "Write the goal yourself"
    assert form.value_label.text() == "Target rate" and form.unit.text() == "rows/s"
    assert form.value.text() == "60,000"  # the baseline sets no offered rate
    assert form.node_box.isHidden()  # one Q Apply: nothing to choose
    assert panel.goal_box.isHidden()
    form.kind_box.setCurrentIndex(form.kind_box.count() - 1)
    assert not panel.goal_box.isHidden() and form.value_row.isHidden()
    assert form.goal_text() is None
    assert (
        form.choose("max_rate") and form.value_label.text() == "Q Apply CPU limit" and form.unit.text() == "%"
    )


def test_seek_from_the_form_runs_the_goal_the_engine_takes(panel, doc, qtbot):
    form = panel.goal_form
    assert form.choose("fewest_agents")
    form.value.setText("40,000")
    with qtbot.waitSignal(panel.tasks.finished, timeout=30000):
        panel.seek_button.click()
    result = panel.results[0]
    assert result.feasible and result.goal.text == " ".join(form.goal_text().split())
    item = panel.list.item(0).text()
    assert item == f"Goal met: Q Apply B: NUM_APPLY_AGENTS {result.values[0]}"
    detail = panel.detail.toPlainText()
    assert "Reach a target rate with the fewest apply agents: 40,000 rows/s" in detail
    assert "ROWS_APPLIED >= 39,960" in detail and "apply_rows_per_s" not in detail
    from engine.store import Store

    with Store.open(panel.db_path_fn(), read_only=True) as store:
        labels = [r.label for r in store.list_runs(kind="goalseek")]
    assert labels == [f"goal: Q Apply B: NUM_APPLY_AGENTS {result.values[0]}"]


def test_a_bad_form_field_is_named_and_nothing_runs(panel):
    form = panel.goal_form
    form.choose("min_end2end")
    form.value.setText("lots")
    assert not panel.seek_form_goal()
    assert panel.status.text().startswith('Target rate: "lots" is not allowed; expected a number from 1 to')
    assert not panel.tasks.busy()


def test_a_two_way_project_chooses_the_q_apply_by_label(window, root):
    assert window.open_project(str(root / "sample_runs" / "redpaper-bidirectional.json"), ask=False)
    form = window.advisor.goal_form
    assert not form.node_box.isHidden() and form.node_label.text() == "Q Apply"
    assert [form.node_box.itemText(i) for i in range(form.node_box.count())] == ["Q Apply B", "Q Apply A"]
    form.node_box.setCurrentIndex(1)
    assert "ba-5-qapply.num_apply_agents" in form.goal_text()
    window.new_from_template("mq-mover")
    assert [form.kind_box.itemText(i) for i in range(form.kind_box.count())] == ["Write the goal yourself"]


def test_a_second_q_apply_drawn_shows_the_q_apply_field(panel, doc):
    form = panel.goal_form
    assert form.choose("min_cpu_per_row") and form.node_box.isHidden()
    form.value.setText("25,000")
    doc.add_node("qapply", 0.0, 0.0, label="Q Apply C")
    assert not form.node_box.isHidden() and form.current_kind().id == "min_cpu_per_row"
    assert [form.node_box.itemText(i) for i in range(form.node_box.count())] == ["Q Apply B", "Q Apply C"]
    assert form.value.text() == "25,000"  # what the user typed stays
    doc.undo_stack.undo()
    assert form.node_box.isHidden()
