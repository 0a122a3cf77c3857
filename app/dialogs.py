"""Message boxes of the window, always plain text.

Their text often quotes a project file (a project's name, a path, an error about a field),
and Qt's static ``QMessageBox.question`` and friends render text that looks like HTML as
rich text: a project named ``<img src=...><h1>URGENT</h1>`` would draw an image and a
heading. These boxes set ``Qt.PlainText``, so whatever the file holds is shown as typed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def _box(parent: QWidget | None, icon, title: str, text: str, buttons) -> QMessageBox:
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.PlainText)
    return box


def ask(parent: QWidget | None, title: str, text: str, buttons, default) -> QMessageBox.StandardButton:
    """Ask a question (``buttons``, a QMessageBox.StandardButton combination); returns the button chosen.

    Closing the box with Escape returns the box's escape button (Cancel, Ignore or the like).
    """
    box = _box(parent, QMessageBox.Question, title, text, buttons)
    box.setDefaultButton(default)
    box.exec()
    clicked = box.clickedButton()
    return box.standardButton(clicked) if clicked is not None else QMessageBox.NoButton


def show_error(parent: QWidget | None, title: str, text: str) -> QMessageBox:
    """Show an error over ``parent`` without blocking the caller (window-modal); returns the box."""
    box = _box(parent, QMessageBox.Critical, title, text, QMessageBox.Ok)
    box.setAttribute(Qt.WA_DeleteOnClose)
    box.setWindowModality(Qt.WindowModal)
    box.open()
    return box


def show_warning(parent: QWidget | None, title: str, text: str) -> None:
    """Show a warning and wait until it is closed."""
    _box(parent, QMessageBox.Warning, title, text, QMessageBox.Ok).exec()
