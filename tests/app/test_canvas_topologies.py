"""The canvas draws the queue-sharing-group, queue-map and SQL-comparison samples with their loads."""

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter

from app.canvas import CanvasView, TopologyScene
from app.document import Document
from app.stages import node_loads
from engine import projectfile
from engine.limit import limit_of
from engine.metrics.stages import stage_label
from engine.predict import predict_project

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("sample", "stage", "kind"),
    [
        ("qsg-shared-capture-queue", "cf_structure", "queue_manager"),
        ("four-queue-maps", "qapply_browser_map3", "qapply"),
        ("sql-replication-vs-q", "qapply_browser", "qapply"),
    ],
)
def test_each_sample_is_drawn_with_its_stages_on_their_nodes_and_its_bottleneck(qtbot, sample, stage, kind):
    doc = Document(projectfile.load(ROOT / "sample_runs" / f"{sample}.json"))
    scene = TopologyScene(doc)
    qtbot.addWidget(CanvasView(scene))
    prediction = predict_project(doc.project)
    scene.set_loads(node_loads(doc.project, prediction))
    items = list(scene.nodes.values())
    assert any(
        stage_label(stage) in item.toolTip() for item in items if item.kind == kind
    )  # the user's words
    assert not any(stage in item.toolTip() for item in items)
    held = limit_of(prediction).holds_offered  # an offered rate carried: headroom, no bottleneck mark
    assert sum(item.bottleneck for item in items) == (0 if held else 1)
    blank = QImage(1600, 400, QImage.Format_ARGB32)
    blank.fill(Qt.white)
    image = blank.copy()
    painter = QPainter(image)
    scene.render(painter)
    painter.end()
    assert image != blank
