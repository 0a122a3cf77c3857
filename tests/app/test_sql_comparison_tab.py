"""The results view shows Q against SQL Replication in its own tab when the prediction compares them."""

from __future__ import annotations

from pathlib import Path

from app.panels.results import ResultsPanel
from app.panels.sql_comparison import TAB_TITLE
from engine import projectfile
from engine.predict import predict_project

ROOT = Path(__file__).resolve().parents[2]


def _tabs(panel) -> list:
    return [panel.tables.tabText(i) for i in range(panel.tables.count())]


def test_the_tab_appears_with_sql_figures_and_goes_without_them(qtbot):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    project = projectfile.load(ROOT / "sample_runs" / "sql-replication-vs-q.json")
    panel.show_prediction(predict_project(project), project)
    assert TAB_TITLE in _tabs(panel)
    table = panel.sql_table
    cells = {
        table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text())
        for r in range(table.rowCount())
    }
    q_max, sql_max = cells["Most rows/s (driven to the maximum)"]
    assert float(q_max.replace(",", "")) > 2 * float(sql_max.replace(",", ""))
    ratios = {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}
    q_apply, sql_apply = (float(v.replace(",", "")) for v in cells["APPLY_LATENCY"])
    assert (
        ratios["APPLY_LATENCY"] == f"{q_apply / sql_apply:.2g}x" != "0.00x"
    )  # a small ratio keeps its digits
    plain = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    panel.show_prediction(predict_project(plain), plain)
    assert TAB_TITLE not in _tabs(panel)


def test_the_canvas_places_cf_smds_and_per_map_stages_on_their_nodes():
    from app.stages import node_loads

    for sample, stages in (
        ("qsg-shared-capture-queue", ("cf_structure", "smds")),
        ("four-queue-maps", ("qapply_browser_map4", "mq_channel_map1")),
    ):
        project = projectfile.load(ROOT / "sample_runs" / f"{sample}.json")
        p = predict_project(project)
        loads = node_loads(project, p)
        names = {st.name for st in p.stages}
        assert set(stages) <= names
        kinds = {n.kind for n in project.nodes if n.id in loads and loads[n.id].utilisation > 0}
        assert {"queue_manager", "channel", "qapply"} <= kinds
        assert any(loads[n].bottleneck for n in loads)
        by_kind = {}
        for n in project.nodes:
            by_kind.setdefault(n.kind, set()).update(loads[n.id].stages if n.id in loads else ())
        for stage in stages:
            expected = "queue_manager" if stage in ("cf_structure", "smds") else None
            expected = expected or ("qapply" if stage.startswith("qapply") else "channel")
            assert stage in by_kind[expected], (stage, by_kind)
