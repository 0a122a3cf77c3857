"""The Help menu: the start page, the user guide (F1), the keyboard shortcuts and About (versions,
coefficient versions)."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox

from app.help_window import USER_GUIDE
from app.menus import add_menu

ROOT = Path(__file__).resolve().parents[1]
COEFFICIENTS = ROOT / "assets" / "coefficients"


def coefficient_versions(folder: Path = COEFFICIENTS) -> dict[str, str]:
    """Each fitted coefficient file's ``version`` (``qrep.json`` -> ``qrep-...``); "?" when it has none."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        try:
            out[path.stem] = str(json.loads(path.read_text(encoding="utf-8")).get("version", "?"))
        except (OSError, ValueError, AttributeError):
            out[path.stem] = "unreadable"
    return out


def versions() -> dict[str, str]:
    """qrtune's version (the same ``qrtune --version`` prints) and those of the libraries it runs on."""
    import duckdb
    import numpy
    import pyqtgraph
    import PySide6
    from PySide6.QtCore import qVersion

    from engine.store.provenance import engine_version

    return {
        "qrtune": engine_version(),
        "Python": platform.python_version(),
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "numpy": numpy.__version__,
        "DuckDB": duckdb.__version__,
    }


def about_html(prediction_version: str = "") -> str:
    """The About text: versions, the coefficients in use and where the numbers come from."""
    rows = "".join(f"<tr><td>{k}</td><td><b>{v}</b></td></tr>" for k, v in versions().items())
    coeffs = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in coefficient_versions().items())
    now = (
        f"<p>The open project's prediction uses coefficients <b>{prediction_version}</b>.</p>"
        if prediction_version
        else ""
    )
    return (
        f"<h3>qrtune</h3><p>Predicts IBM Q Replication, MQ and Db2 Mirror performance from mechanisms "
        f"fitted to published IBM measurements.</p><table>{rows}</table>"
        f"<p><b>Fitted coefficients</b> (assets/coefficients)</p><table>{coeffs}</table>{now}"
    )


def shortcuts_html(actions) -> str:
    """A table of every action that has a keyboard shortcut: what it does and its keys."""
    rows = []
    for action in actions:
        keys = ", ".join(k.toString(QKeySequence.NativeText) for k in action.shortcuts())
        if keys:
            rows.append(f"<tr><td>{action.text().replace('&', '')}</td><td><b>{keys}</b></td></tr>")
    from app.canvas.view import CANVAS_KEYS

    extra = "".join(f"<tr><td>{what}</td><td><b>{keys}</b></td></tr>" for what, keys in CANVAS_KEYS)
    return f"<table cellspacing='6'>{''.join(rows)}{extra}</table>"


def build_help_menu(window) -> dict[str, QAction]:
    """Add the Help menu to ``window`` (a :class:`app.main_window.MainWindow`); returns its actions by name."""
    menu = add_menu(window, window.menuBar(), "&Help")
    guide = QAction("&User Guide", window, shortcut=QKeySequence.HelpContents)
    guide.triggered.connect(lambda: open_user_guide(window))
    keys = QAction("&Keyboard Shortcuts", window, shortcut=QKeySequence("Ctrl+/"))
    keys.triggered.connect(
        lambda: QMessageBox.information(window, "Keyboard shortcuts", shortcuts_html(window.actions()))
    )
    about = QAction("&About qrtune", window)
    about.triggered.connect(lambda: show_about(window))
    start = QAction("&Start Page", window)
    start.setStatusTip("The questions qrtune answers, each opening the sample project that answers it")
    start.triggered.connect(lambda: window.show_start_page())
    menu.addAction(start)
    for action in (guide, keys, about):
        window.addAction(action)
        menu.addAction(action)
    return {"guide": guide, "shortcuts": keys, "about": about, "start": start}


def open_user_guide(window) -> bool:
    """Show the user guide in its own window (:class:`app.help_window.HelpWindow`), kept for the next F1."""
    from app.help_window import HelpWindow

    if not USER_GUIDE.is_file():
        window.show_message(f"The user guide is missing from this installation ({USER_GUIDE}).")
        return False
    if getattr(window, "help_window", None) is None:
        window.help_window = HelpWindow(window, USER_GUIDE)
    window.help_window.show()
    window.help_window.raise_()
    return True


def show_about(window) -> None:
    """The About box, naming the coefficient version of the open project's prediction."""
    prediction = getattr(window.live, "prediction", None)
    QMessageBox.about(window, "About qrtune", about_html(getattr(prediction, "coefficients_version", "")))
