"""The scene mirrors the document; gestures become document edits."""

from PySide6.QtCore import QMimeData, QPointF, Qt

from app.canvas import KIND_MIME, CanvasView, TopologyScene
from app.canvas.items import NodeItem, utilisation_colour
from app.document import Document
from app.stages import NodeLoad
from engine import templates
from engine.errors import TopologyError


def make(qtbot, project=None):
    doc = Document(project or templates.unidirectional())
    scene = TopologyScene(doc)
    view = CanvasView(scene)
    qtbot.addWidget(view)
    return doc, scene, view


def test_items_follow_the_document_through_undo_and_redo(qtbot):
    doc, scene, _ = make(qtbot)
    assert set(scene.nodes) == {n.id for n in doc.project.nodes}
    assert set(scene.links) == {link.id for link in doc.project.links}
    new = doc.add_node("qapply", 50, 400)
    assert isinstance(scene.nodes[new], NodeItem) and scene.nodes[new].pos() == QPointF(50, 400)
    doc.undo_stack.undo()
    assert new not in scene.nodes
    doc.undo_stack.redo()
    assert new in scene.nodes
    channel = doc.project.nodes_of("channel")[0].id
    doc.remove_items([channel])
    assert channel not in scene.nodes and len(scene.links) == 4
    assert all(link.scene() is scene for link in scene.links.values())
    doc.undo_stack.undo()
    assert channel in scene.nodes and len(scene.links) == 6
    # links are attached to the items they draw between
    link = next(item for item in scene.links.values() if item.source.node_id == channel)
    assert link in scene.nodes[channel].links


def test_refused_link_shows_the_models_message_unchanged(qtbot):
    doc, scene, _ = make(qtbot)
    src = doc.project.nodes_of("source_db2")[0].id
    tgt = doc.project.nodes_of("target_db2")[0].id
    with qtbot.waitSignal(scene.message) as sig:
        assert not scene.try_link(src, tgt)
    try:
        doc.project.with_link(src, tgt)
    except TopologyError as e:  # the exact text the model gives
        expected = str(e)
    assert sig.args == [expected]
    assert "cannot feed" in expected


def test_link_by_dragging_from_an_output_port(qtbot):
    doc, scene, view = make(qtbot, templates.unidirectional())
    a = doc.add_node("qapply", 0, 600)
    b = doc.add_node("target_db2", 400, 600)
    view.resize(1200, 900)
    view.fit_to_view()
    start = view.mapFromScene(scene.nodes[a].out_port.scene_centre())
    end = view.mapFromScene(scene.nodes[b].sceneBoundingRect().center())
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), end)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=end)
    assert any((link.source, link.target) == (a, b) for link in doc.project.links)


def test_drag_a_node_is_one_move_command(qtbot):
    doc, scene, view = make(qtbot)
    view.resize(1600, 600)
    view.resetTransform()
    node = doc.project.nodes[0]
    item = scene.nodes[node.id]
    view.centerOn(item)
    centre = view.mapFromScene(item.sceneBoundingRect().center() + QPointF(0, 10))
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=centre)
    for dx in (10, 30, 60):
        qtbot.mouseMove(view.viewport(), centre + QPointF(dx, 20).toPoint())
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=centre + QPointF(60, 20).toPoint())
    moved = doc.project.node(node.id)
    assert (moved.x, moved.y) == (node.x + 60, node.y + 20)
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert scene.nodes[node.id].pos() == QPointF(node.x, node.y)


def test_drop_a_kind_from_the_palette_adds_a_node(qtbot):
    doc, scene, _ = make(qtbot)
    node_id = scene.add_kind_at("channel", QPointF(500, 500))
    assert doc.project.node(node_id).kind == "channel"
    assert scene.selected_node_ids() == [node_id]
    mime = QMimeData()
    mime.setData(KIND_MIME, b"qcapture")
    assert mime.hasFormat(KIND_MIME)
    from app.canvas import NodePalette

    palette = NodePalette()
    qtbot.addWidget(palette)
    assert palette.count() == 10 and palette.mimeTypes() == [KIND_MIME]


def test_delete_selection_rubber_band_and_zoom(qtbot):
    doc, scene, view = make(qtbot)
    for item in list(scene.nodes.values())[:2]:
        item.setSelected(True)
    scene.delete_selected()
    assert len(doc.project.nodes) == 5 and doc.undo_stack.count() == 1
    view.resize(800, 600)
    view.fit_to_view()
    assert 0.15 <= view.zoom() <= 1.0
    z = view.zoom()
    view.zoom_by(2.0)
    assert abs(view.zoom() - min(2 * z, 4.0)) < 1e-9
    view.zoom_by(1000)
    assert view.zoom() == 4.0
    assert view.dragMode() == view.DragMode.RubberBandDrag


def test_loads_colour_nodes_and_mark_the_bottleneck(qtbot):
    doc, scene, _ = make(qtbot)
    qapply = doc.project.nodes_of("qapply")[0].id
    scene.set_loads({qapply: NodeLoad(0.97, ("qapply_agents",), True)})
    item = scene.nodes[qapply]
    assert item.bottleneck and item.utilisation == 0.97
    assert "bottleneck" in item.toolTip()
    assert (
        utilisation_colour(0.97).red() == 255
        and utilisation_colour(0.0).green() > utilisation_colour(0.97).green()
    )
    scene.set_loads(None)
    assert not item.bottleneck and item.utilisation is None
