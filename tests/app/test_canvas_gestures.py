"""End-to-end canvas gestures driven by real mouse, wheel, key and drag-and-drop events on the view.

Each gesture must change the document (or only the view, for zoom and pan) and one undo must restore
the project exactly.
"""

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from app.canvas import KIND_MIME, CanvasView, NodePalette, TopologyScene
from app.canvas.items import NODE_H, NODE_W
from app.document import Document
from engine import templates


def make(qtbot, project=None, size=(1000, 700)):
    doc = Document(project or templates.unidirectional())
    scene = TopologyScene(doc)
    view = CanvasView(scene)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return doc, scene, view


def drop_kind(view, kind: str, pos: QPoint) -> list[bool]:
    """Drag ``kind`` over the viewport and drop it at ``pos`` like the palette does; acceptance of each event."""
    mime = QMimeData()
    mime.setData(KIND_MIME, kind.encode())
    p = QPointF(pos)
    accepted = []
    for event in (
        QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier),  # a QPoint, as Qt declares
        QDragMoveEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier),
        QDropEvent(p, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier),
    ):
        QApplication.sendEvent(view.viewport(), event)
        accepted.append(event.isAccepted())
    return accepted


def wheel(view, pos: QPoint, steps: int) -> None:
    event = QWheelEvent(
        QPointF(pos),
        QPointF(view.viewport().mapToGlobal(pos)),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), event)


def test_drop_a_palette_kind_on_the_canvas_adds_it_where_dropped_and_undo_removes_it(qtbot):
    doc, scene, view = make(qtbot)
    before = doc.project
    palette = NodePalette()
    qtbot.addWidget(palette)
    row = next(i for i in range(palette.count()) if palette.item(i).data(Qt.UserRole) == "channel")
    mime = palette.mimeData([palette.item(row)])  # what the palette puts on the drag
    assert bytes(mime.data(KIND_MIME)) == b"channel"
    pos = QPoint(420, 560)
    assert drop_kind(view, "channel", pos) == [True, True, True]
    assert len(doc.project.nodes) == len(before.nodes) + 1
    node = doc.project.nodes[-1]
    assert node.kind == "channel" and node.label == "MQ channel"
    centre = view.mapToScene(pos)
    assert (node.x + NODE_W / 2, node.y + NODE_H / 2) == (round(centre.x()), round(centre.y()))  # centred
    assert scene.selected_node_ids() == [node.id] and node.id in scene.nodes
    doc.undo_stack.undo()
    assert doc.project == before and node.id not in scene.nodes


def test_drop_of_something_else_is_ignored(qtbot):
    doc, _, view = make(qtbot)
    before = doc.project
    mime = QMimeData()
    mime.setText("qapply")
    event = QDragEnterEvent(QPoint(300, 300), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(view.viewport(), event)
    assert doc.project is before


def test_draw_a_link_with_the_mouse_then_undo(qtbot):
    doc, scene, view = make(qtbot)
    a = doc.add_node("qapply", 0, 300)
    b = doc.add_node("target_db2", 400, 300)
    before = doc.project
    view.fit_to_view()
    start = view.mapFromScene(scene.nodes[a].out_port.scene_centre())
    end = view.mapFromScene(scene.nodes[b].sceneBoundingRect().center())
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), (start + end) / 2)
    assert scene._drag_line is not None  # the rubber link follows the mouse
    qtbot.mouseMove(view.viewport(), end)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=end)
    assert scene._drag_line is None
    new = [link for link in doc.project.links if (link.source, link.target) == (a, b)]
    assert len(new) == 1 and new[0].id in scene.links
    assert doc.project.nodes == before.nodes  # drawing a link moves nothing
    doc.undo_stack.undo()
    assert doc.project == before and new[0].id not in scene.links


def test_a_refused_link_drawn_with_the_mouse_shows_the_models_message(qtbot):
    doc, scene, view = make(qtbot)
    src = doc.project.nodes_of("source_db2")[0].id
    tgt = doc.project.nodes_of("target_db2")[0].id
    before = doc.project
    view.fit_to_view()
    messages = []
    scene.message.connect(messages.append)
    start = view.mapFromScene(scene.nodes[src].out_port.scene_centre())
    end = view.mapFromScene(scene.nodes[tgt].sceneBoundingRect().center())
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), end)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=end)
    assert doc.project is before and doc.undo_stack.count() == 0
    assert len(messages) == 1 and "cannot feed" in messages[0]
    # dropping the rubber link on empty canvas does nothing and says nothing
    empty = view.mapFromScene(QPointF(-1500, -1500))
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), empty)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=empty)
    assert doc.project is before and len(messages) == 1


def test_rubber_band_select_then_delete_key_then_undo(qtbot):
    doc, scene, view = make(qtbot, size=(1600, 500))
    before = doc.project
    view.fit_to_view()
    nodes = doc.project.nodes
    # a band around the first two nodes, starting on empty canvas above them
    boxes = [scene.nodes[n.id].mapRectToScene(scene.nodes[n.id].box()) for n in nodes[:2]]
    r0, r1 = boxes
    top_left = view.mapFromScene(QPointF(r0.left() - 10, r0.top() - 30))
    bottom_right = view.mapFromScene(QPointF(r1.right() - 5, r1.bottom() + 30))
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=top_left)
    for t in (0.3, 0.7, 1.0):
        qtbot.mouseMove(view.viewport(), top_left + (bottom_right - top_left) * t)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=bottom_right)
    assert sorted(scene.selected_node_ids()) == sorted([nodes[0].id, nodes[1].id])
    assert doc.project is before  # selecting is not an edit
    scene.delete_selected()  # what the window's Delete action (Del, Backspace) calls
    assert {n.id for n in doc.project.nodes} == {n.id for n in nodes[2:]}
    assert all(nodes[0].id not in (link.source, link.target) for link in doc.project.links)
    doc.undo_stack.undo()
    assert doc.project == before and len(scene.links) == len(before.links)


def test_wheel_zooms_about_the_cursor_within_limits_without_editing(qtbot):
    doc, scene, view = make(qtbot)
    before = doc.project
    view.reset_zoom()
    item = scene.nodes[doc.project.nodes[2].id]
    view.centerOn(item)
    at = view.mapFromScene(item.sceneBoundingRect().center())
    wheel(view, at, 1)
    assert abs(view.zoom() - 1.15) < 1e-9
    # the scene point under the cursor stays under the cursor (anchor under mouse)
    assert (view.mapFromScene(item.sceneBoundingRect().center()) - at).manhattanLength() <= 2
    wheel(view, at, -1)
    wheel(view, at, -1)
    assert abs(view.zoom() - 1 / 1.15) < 1e-9
    for _ in range(40):
        wheel(view, at, -1)
    assert view.zoom() == 0.15
    for _ in range(60):
        wheel(view, at, 1)
    assert view.zoom() == 4.0
    assert doc.project is before and doc.undo_stack.count() == 0


def _centre(view) -> QPointF:
    return view.mapToScene(view.viewport().rect().center())


def test_middle_button_and_space_drag_pan_the_view_not_the_nodes(qtbot):
    doc, scene, view = make(qtbot, size=(600, 400))
    before = doc.project
    view.reset_zoom()
    item = scene.nodes[doc.project.nodes[3].id]
    view.centerOn(item)
    c0 = _centre(view)
    start = view.mapFromScene(item.sceneBoundingRect().center())  # on a node: must not drag it
    qtbot.mousePress(view.viewport(), Qt.MiddleButton, pos=start)
    for dx in (20, 60, 120):
        qtbot.mouseMove(view.viewport(), start + QPoint(dx, 40))
    qtbot.mouseRelease(view.viewport(), Qt.MiddleButton, pos=start + QPoint(120, 40))
    c1 = _centre(view)
    assert abs((c0.x() - c1.x()) - 120) <= 2 and abs((c0.y() - c1.y()) - 40) <= 2
    assert view.dragMode() == view.DragMode.RubberBandDrag  # back to selecting
    assert doc.project is before and doc.undo_stack.count() == 0
    # Space held: the left button pans too
    view.setFocus()
    qtbot.keyPress(view, Qt.Key_Space)
    assert view.dragMode() == view.DragMode.ScrollHandDrag
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    for dx in (-20, -60, -80):
        qtbot.mouseMove(view.viewport(), start + QPoint(dx, 0))
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=start + QPoint(-80, 0))
    qtbot.keyRelease(view, Qt.Key_Space)
    c2 = _centre(view)
    assert abs((c2.x() - c1.x()) - 80) <= 2
    assert view.dragMode() == view.DragMode.RubberBandDrag
    assert doc.project is before and doc.undo_stack.count() == 0


def test_fit_to_view_shows_every_node_after_adding_a_far_one(qtbot):
    doc, scene, view = make(qtbot, size=(800, 500))
    doc.add_node("qapply", 3000, 1800)
    view.fit_whole()  # Fit to View (Ctrl+0)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    tags = 20 / view.zoom()  # the bottleneck and platform tags: a line of text above and below, on screen
    for item in scene.nodes.values():
        assert visible.contains(item.mapRectToScene(item.box()).adjusted(-8, -tags, 8, tags))
    assert view.zoom() <= 1.0
