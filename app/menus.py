"""Menus the window owns."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QMenuBar, QWidget


def add_menu(window: QWidget, parent: QMenuBar | QMenu, title: str) -> QMenu:
    """A menu titled ``title`` added to ``parent`` (the menu bar or a menu), owned by ``window``.

    ``parent.addMenu(title)`` would leave the menu's lifetime to its Python wrapper under PySide6 6.9:
    a temporary wrapper of it (``menuBar().actions()[0].menu()``) deleted it, and with it every menu
    inside it (File > Open Recent). Made here with a parent, Qt owns it.
    """
    menu = QMenu(title, window)
    parent.addMenu(menu)
    return menu
