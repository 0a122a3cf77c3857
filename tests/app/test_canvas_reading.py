"""A canvas a DBA reads: arrows along the data, one lane per queue map, text at the platform's size,
the keyboard and right-click menus reaching every node, and a drawing that stays under the pointer."""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from app.canvas import CanvasView, TopologyScene
from app.canvas.items import NODE_H, NODE_W, canvas_font
from app.canvas.menus import menu_for
from app.document import Document
from engine import projectfile, templates
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def make(qtbot, project, size=(900, 600)):
    doc = Document(project)
    scene = TopologyScene(doc)
    view = CanvasView(scene)
    qtbot.addWidget(view)
    view.resize(*size)
    view.fit_to_view()
    return doc, scene, view


def _centre(scene, node_id: str) -> QPointF:
    item = scene.nodes[node_id]
    return item.mapToScene(item.box().center())


def test_every_arrow_points_from_its_source_to_its_target_in_both_flows(qtbot):
    doc, scene, _ = make(qtbot, templates.bidirectional())
    for link in doc.project.links:
        item = scene.links[link.id]
        data = _centre(scene, link.target) - _centre(scene, link.source)
        angle = item.arrow_angle()
        along = data.x() * math.cos(angle) + data.y() * math.sin(angle)
        assert along > 0.9 * math.hypot(data.x(), data.y()), (link.source, link.target)
        tip = item.path().pointAtPercent(1.0)
        assert item.target.mapRectToScene(item.target.box()).adjusted(-8, 0, 8, 0).contains(tip)
    # the return flow is drawn right to left under its partner: its arrows point left
    back = [scene.links[link.id] for link in doc.project.links if link.source.startswith("ba-")]
    assert back and all(math.cos(item.arrow_angle()) < -0.9 for item in back)
    assert all(scene.nodes[n.id].facing_left for n in doc.project.nodes if n.id.startswith("ba-"))
    # a Q Capture's output port is on the side its data leaves by
    capture_b = scene.nodes["ba-1-qcapture"]
    assert capture_b.out_port.scene_centre().x() < capture_b.in_port.scene_centre().x()


def test_a_node_dragged_past_its_neighbour_turns_to_keep_its_arrows_along_the_data(qtbot):
    doc, scene, _ = make(qtbot, templates.unidirectional())
    target = doc.project.nodes_of("target_db2")[0]
    doc.move_nodes({target.id: (-400.0, target.y)})  # now left of its Q Apply
    link = next(item for item in scene.links.values() if item.target.node_id == target.id)
    assert scene.nodes[target.id].facing_left  # its input port turns to the right, towards its Q Apply
    assert math.cos(link.arrow_angle()) < 0  # the arrow still points into the target
    doc.undo_stack.undo()
    assert math.cos(link.arrow_angle()) > 0


def test_one_lane_per_queue_map_between_q_capture_and_q_apply(qtbot):
    project = projectfile.load(SAMPLES / "four-queue-maps.json")
    doc, scene, _ = make(qtbot, project)
    kinds = {n.id: n.kind for n in project.nodes}
    for link in project.links:
        item = scene.links[link.id]
        inside = kinds[link.source] != "source_db2" and kinds[link.target] != "target_db2"
        assert item.lanes == (4 if inside else 1), (link.source, link.target)
        assert len(item.strands()) == item.lanes
    capture = project.nodes_of("qcapture")[0].id
    assert scene.nodes[capture].note == "4 queue maps"
    assert "4 queue maps" in scene.nodes[capture].detail_lines()
    doc.set_param(capture, "queue_maps", 2)
    assert {item.lanes for item in scene.links.values()} == {1, 2}
    doc.undo_stack.undo()
    assert {item.lanes for item in scene.links.values()} == {1, 4}


def test_node_text_keeps_the_platforms_default_size_on_screen_when_zoomed_out():
    default_pt = QGuiApplication.font().pointSizeF()
    image = QImage(10, 10, QImage.Format_ARGB32)
    painter = QPainter(image)
    try:
        painter.scale(0.5, 0.5)
        assert canvas_font(painter).pointSizeF() * 0.5 == default_pt
        painter.resetTransform()
        painter.scale(2.0, 2.0)  # zoomed in, text grows with the drawing
        assert canvas_font(painter, bold=True).pointSizeF() == default_pt
    finally:
        painter.end()


def _window(qtbot, project):
    """The canvas with a field after it, shown, so the keyboard focus can move on."""
    doc = Document(project)
    scene = TopologyScene(doc)
    box = QWidget()
    layout = QVBoxLayout(box)
    view = CanvasView(scene)
    after = QLineEdit()
    layout.addWidget(view)
    layout.addWidget(after)
    qtbot.addWidget(box)
    box.resize(900, 600)
    box.show()
    with qtbot.waitActive(box):
        box.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    view.keep_alive = box  # the test's reference to the window (qtbot holds only a weak one)
    return doc, scene, view, after


def test_the_keyboard_selects_moves_and_opens_nodes(qtbot):
    doc, scene, view, _ = _window(qtbot, templates.bidirectional())
    qtbot.keyClick(view, Qt.Key_Tab)
    assert scene.selected_node_ids() == ["ab-0-source-db2"]
    qtbot.keyClick(view, Qt.Key_Right)
    assert scene.selected_node_ids() == ["ab-1-qcapture"]
    qtbot.keyClick(view, Qt.Key_Down)
    assert scene.selected_node_ids() == ["ba-5-qapply"]  # the node under it, in the return flow
    qtbot.keyClick(view, Qt.Key_Tab, Qt.ShiftModifier)
    assert scene.selected_node_ids() == ["ba-6-target-db2"]
    before = doc.project.node("ba-6-target-db2")
    steps = doc.undo_stack.count()
    qtbot.keyClick(view, Qt.Key_Right, Qt.ControlModifier)
    qtbot.keyClick(view, Qt.Key_Down, Qt.ControlModifier)
    moved = doc.project.node("ba-6-target-db2")
    assert (moved.x, moved.y) == (before.x + 10, before.y + 10)
    assert doc.undo_stack.count() == steps + 1  # the nudges are one undo step
    doc.undo_stack.undo()
    assert (doc.project.node("ba-6-target-db2").x, doc.project.node("ba-6-target-db2").y) == (
        before.x,
        before.y,
    )
    with qtbot.waitSignal(scene.properties_requested) as asked:
        qtbot.keyClick(view, Qt.Key_Return)
    assert asked.args == ["ba-6-target-db2"]


def test_escape_and_tab_past_the_last_node_leave_the_canvas(qtbot):
    doc, scene, view, after = _window(qtbot, templates.db2_mirror_pair())
    qtbot.keyClick(view, Qt.Key_Tab)
    assert scene.selected_node_ids()
    qtbot.keyClick(view, Qt.Key_Escape)
    assert after.hasFocus() and not scene.selected_node_ids()
    view.setFocus()
    for _ in doc.project.nodes:
        qtbot.keyClick(view, Qt.Key_Tab)
        assert view.hasFocus()
    qtbot.keyClick(view, Qt.Key_Tab)  # past the last node: on to the next field
    assert after.hasFocus()


MENUS = []  # the menus a test reads (a menu without a parent goes with its last reference)


def _actions(menu) -> dict:
    MENUS.append(menu)
    return {a.text().replace("&", ""): a for a in menu.actions() if a.text()}


def test_right_click_menus_delete_add_open_and_fit(qtbot):
    doc, scene, view = make(qtbot, templates.unidirectional())
    channel = doc.project.nodes_of("channel")[0].id
    node = _actions(menu_for(scene, _centre(scene, channel)))
    assert {"Properties", "Delete", "Fit to View"} <= set(node)
    with qtbot.waitSignal(scene.properties_requested) as asked:
        node["Properties"].trigger()
    assert asked.args == [channel]
    node["Delete"].trigger()
    assert channel not in {n.id for n in doc.project.nodes}
    doc.undo_stack.undo()
    assert channel in {n.id for n in doc.project.nodes}
    link = doc.project.links[0]
    middle = scene.links[link.id].path().pointAtPercent(0.5)
    on_link = _actions(menu_for(scene, middle))
    assert "Delete Link" in on_link
    on_link["Delete Link"].trigger()
    assert link.id not in {lk.id for lk in doc.project.links}
    empty = QPointF(300, 900)
    background = menu_for(scene, empty)
    add = _actions(_actions(background)["Add Node"].menu())
    add["Q Apply"].trigger()
    added = doc.project.nodes[-1]
    assert added.kind == "qapply"
    assert (added.x + NODE_W / 2, added.y + NODE_H / 2) == (round(empty.x()), round(empty.y()))
    view.zoom_by(2.0)
    assert not view.auto_fit
    _actions(background)["Fit to View"].trigger()
    assert view.auto_fit


def test_linking_and_a_resize_after_it_leave_every_node_where_it_was_on_screen(qtbot):
    project = templates.unidirectional()
    doc, scene, view = make(qtbot, project)
    a = doc.add_node("qapply", 0, 300)
    b = doc.add_node("target_db2", 400, 300)
    view.fit_to_view()

    def on_screen():
        return {node_id: view.mapFromScene(item.pos()) for node_id, item in scene.nodes.items()}

    before = on_screen()
    start = view.mapFromScene(scene.nodes[a].out_port.scene_centre())
    end = view.mapFromScene(_centre(scene, b))
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    qtbot.mouseMove(view.viewport(), end)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=end)
    assert any((link.source, link.target) == (a, b) for link in doc.project.links)
    view.resize(900, 540)  # the headline above the canvas grew a line
    assert on_screen() == before
    assert {n.id: (n.x, n.y) for n in doc.project.nodes} == {
        i: (p.x(), p.y()) for i, p in _positions(scene).items()
    }


def _positions(scene):
    return {node_id: item.pos() for node_id, item in scene.nodes.items()}


def test_a_client_reading_the_send_queue_is_drawn_saved_loaded_and_predicted(qtbot, tmp_path):
    project = projectfile.load(SAMPLES / "zos-to-linux-client-send-queue.json")
    doc, scene, _ = make(qtbot, project)
    assert not project.nodes_of("channel") and len(project.nodes_of("queue_manager")) == 1
    qm, qapply = project.nodes_of("queue_manager")[0], project.nodes_of("qapply")[0]
    client = next(
        item
        for item in scene.links.values()
        if (item.source.node_id, item.target.node_id) == (qm.id, qapply.id)
    )
    assert client.is_client()
    assert "reads the send queue" in client.toolTip() and "no channel" in client.toolTip()
    assert scene.nodes[qapply.id].note == "MQ client"
    path = doc.save(tmp_path / "client.json")
    loaded = projectfile.load(path)
    assert loaded == project
    assert loaded.node(qapply.id).params["reads_send_queue"] is True
    prediction = predict_project(loaded)
    assert prediction.metrics["apply_rows_per_s"] > 0
    assert "mq_channel" not in {st.name for st in prediction.stages}


def test_a_view_too_narrow_to_read_the_whole_drawing_shows_its_start_at_a_readable_zoom(qtbot):
    from app.canvas.items import READABLE_ZOOM

    doc, scene, view = make(qtbot, templates.bidirectional(), size=(460, 390))  # 150% of a 1280x800 window
    assert view.zoom() == READABLE_ZOOM
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    first = scene.nodes["ab-0-source-db2"]
    assert visible.contains(first.mapRectToScene(first.box()))
    _, wide_scene, wide = make(qtbot, templates.bidirectional(), size=(1600, 600))
    wide.show()  # a view never shown keeps its first viewport size
    qtbot.waitExposed(wide)
    assert READABLE_ZOOM < wide.zoom() <= 1.0
    seen = wide.mapToScene(wide.viewport().rect()).boundingRect()
    assert all(seen.contains(i.mapRectToScene(i.box())) for i in wide_scene.nodes.values())
