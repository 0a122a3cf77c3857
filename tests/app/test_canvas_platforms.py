"""The canvas shows the platform each node runs on and draws a client connection unlike a bindings link."""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter

from app.canvas import CanvasView, TopologyScene
from app.canvas.platform_marks import platform_text
from app.document import Document
from engine import projectfile

ROOT = Path(__file__).resolve().parents[2]


def _scene(qtbot, sample: str):
    doc = Document(projectfile.load(ROOT / "sample_runs" / f"{sample}.json"))
    scene = TopologyScene(doc)
    qtbot.addWidget(CanvasView(scene))
    return doc, scene


def test_every_node_names_its_platform_with_cores_and_clock_off_z_os(qtbot):
    doc, scene = _scene(qtbot, "zos-to-linux-bindings")
    by_kind = {item.kind: item for item in scene.nodes.values()}
    assert by_kind["qcapture"].platform == "z/OS"
    assert by_kind["qapply"].platform == "Linux x86-64, 8 cores x 2.9 GHz"
    assert by_kind["target_db2"].platform == "Linux x86-64"
    assert "Linux x86-64" in by_kind["qapply"].toolTip()


def test_only_the_client_connection_is_drawn_as_a_client_link_and_follows_the_setting(qtbot):
    doc, scene = _scene(qtbot, "zos-to-linux-bindings")
    assert not any(link.is_client() for link in scene.links.values())
    doc, scene = _scene(qtbot, "zos-to-linux-client")
    clients = [link for link in scene.links.values() if link.is_client()]
    assert [(c.source.kind, c.target.kind) for c in clients] == [("queue_manager", "qapply")]
    image = QImage(1600, 400, QImage.Format_ARGB32)
    image.fill(Qt.white)
    painter = QPainter(image)
    scene.render(painter)  # paints the dashed, labelled link without error
    painter.end()
    doc.set_param(doc.project.nodes_of("qapply")[0].id, "mq_connection", "bindings")
    assert not clients[0].is_client()


def test_nodes_without_a_platform_knob_show_none():
    project = projectfile.load(ROOT / "sample_runs" / "mirror-active-passive.json")
    assert all(platform_text(n) == "" for n in project.nodes)
