"""The canvas's right-click menus: on a node, on a link, on the empty canvas.

Every action goes through the scene (and so the document): deleting is an undo step like the
Delete key, adding a node is the palette's add at the clicked place, Properties shows the
node's knobs in the inspector.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QMenu, QWidget

from app.canvas.items import LinkItem, NodeItem
from engine.registry import KINDS


def node_menu(scene, item: NodeItem, parent: QWidget | None = None) -> QMenu:
    """Properties, Delete, and Fit to View for a right-clicked node (selected alone unless already selected)."""
    if not item.isSelected():
        scene.select_node(item.node_id)
    menu = QMenu(parent)
    menu.addAction("&Properties", lambda: scene.properties_requested.emit(item.node_id))
    menu.addSeparator()
    count = len(scene.selected_node_ids()) + len(scene.selected_link_ids())
    menu.addAction("&Delete" if count == 1 else f"&Delete {count} items", scene.delete_selected)
    menu.addSeparator()
    menu.addAction("&Fit to View", scene.fit_requested.emit)
    return menu


def link_menu(scene, item: LinkItem, parent: QWidget | None = None) -> QMenu:
    """Delete the link, or open the properties of the node at either end."""
    scene.clearSelection()
    item.setSelected(True)
    menu = QMenu(parent)
    for end in (item.source, item.target):
        menu.addAction(
            f"Properties of {end.label}", lambda node_id=end.node_id: scene.open_properties(node_id)
        )
    menu.addSeparator()
    menu.addAction("&Delete Link", scene.delete_selected)
    menu.addSeparator()
    menu.addAction("&Fit to View", scene.fit_requested.emit)
    return menu


def background_menu(scene, pos: QPointF, parent: QWidget | None = None) -> QMenu:
    """Add any kind of node at ``pos`` (scene coordinates), select every node, or fit the view."""
    menu = QMenu(parent)
    add = QMenu("&Add Node", menu)  # parented: PySide6 6.9 deletes an addMenu(title) menu with its wrapper
    menu.addMenu(add)
    for kind in KINDS.values():
        add.addAction(kind.name, lambda kind_id=kind.id: scene.add_kind_at(kind_id, pos))
    menu.addSeparator()
    menu.addAction("Select &All", scene.select_all)
    menu.addAction("&Fit to View", scene.fit_requested.emit)
    return menu


def menu_for(scene, pos: QPointF, parent: QWidget | None = None) -> QMenu:
    """The menu for a right click at scene position ``pos``: the node's, the link's or the canvas's."""
    node = scene.node_at(pos)
    if node is not None:
        return node_menu(scene, node, parent)
    link = scene.link_at(pos)
    if link is not None:
        return link_menu(scene, link, parent)
    return background_menu(scene, pos, parent)
