"""Opening another project: no tab keeps a result of the one before (issue: results outlived their project)."""

import pytest

from app.tasks import simulation_available
from engine import projectfile, templates


def _all_text(widget) -> str:
    """Every text the widget and its children show (labels, buttons, table cells, chart titles)."""
    from PySide6.QtWidgets import QAbstractButton, QLabel, QTableWidget

    texts = []
    for w in [widget, *widget.findChildren(object)]:
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        elif isinstance(w, QTableWidget):
            texts += [
                w.item(r, c).text()
                for r in range(w.rowCount())
                for c in range(w.columnCount())
                if w.item(r, c)
            ]
    return "\n".join(texts)


@pytest.mark.skipif(bool(simulation_available()), reason=simulation_available() or "")
def test_opening_a_second_project_leaves_no_result_of_the_first(fake_engine, window, qtbot, tmp_path):
    first = templates.unidirectional("First project")
    second_path = tmp_path / "second.json"
    projectfile.save(templates.unidirectional("Second project"), second_path)
    window.document.reset(first, None)
    # results of the first project on every tab: a sweep, a simulation, a comparison
    sweep = window.view_widget("Sweep")
    with qtbot.waitSignal(window.tasks.finished, timeout=30000):
        assert window.sweep("qapply.num_apply_agents=1..4")
    simulation = window.view_widget("Simulation")
    simulation.duration.setText("1m")
    with qtbot.waitSignal(window.tasks.finished, timeout=60000):
        simulation.run_button.click()
    qcap = window.document.project.nodes_of("qcapture")[0].id
    a = window.predict_and_record()
    window.document.set_param(qcap, "trans_batch_sz", 3)
    b = window.predict_and_record()
    assert window.compare_runs([a, b])
    compare = window.view_widget("Compare")
    assert sweep.points and sweep.export_button.isEnabled() and not sweep.pick_label.isHidden()
    assert simulation.outcome is not None and compare.comparison is not None
    before = {name: _all_text(window.view_widget(name)) for name in ("Sweep", "Simulation", "Compare")}
    assert f"#{a}" in before["Compare"] and "Fewest NUM_APPLY_AGENTS" in before["Sweep"]

    assert window.open_project(str(second_path))
    assert window.document.project.name == "Second project"
    assert not sweep.points and sweep.section is None and sweep.sweep_id is None
    assert not sweep.export_button.isEnabled() and sweep.pick_label.isHidden()
    assert sweep.table.rowCount() == 0 and not sweep.rate_chart.curves and not sweep.rate_chart.lines
    assert (
        simulation.outcome is None
        and simulation.summary.rowCount() == 0
        and not simulation.depth_chart.curves
    )
    assert simulation.headline.isHidden()
    assert compare.comparison is None and compare.metrics_table.rowCount() == 0
    assert compare.settings_table.rowCount() == 0 and not compare.latency_chart.labels
    after = {name: _all_text(window.view_widget(name)) for name in ("Sweep", "Simulation", "Compare")}
    for name, text in after.items():
        assert "First project" not in text, name
        assert f"#{a}" not in text and f"#{b}" not in text and "Fewest" not in text, name
    # the Runs list follows the open project ("This project only"): none of the first's runs
    window.runs.refresh()
    assert window.runs.table.rowCount() == 0
