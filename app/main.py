"""Start the workbench: the QApplication, the main window and the smoke test."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def run_gui(project_path: str | None, smoke_test_dir: str | None = None) -> int:
    """Open the main window on ``project_path`` (or an empty unidirectional project).

    With ``smoke_test_dir`` the window opens offscreen, saves a screenshot of
    each main view there as PNG and returns 0 without entering the event loop.
    """
    if smoke_test_dir:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("qrtune")
    app.setOrganizationName("qrtune")
    window = MainWindow()
    if project_path:
        window.open_project(project_path)
    if smoke_test_dir:
        out = Path(smoke_test_dir)
        out.mkdir(parents=True, exist_ok=True)
        window.resize(1280, 800)
        window.show()
        app.processEvents()
        for name, widget in window.smoke_views().items():
            widget.grab().save(str(out / f"{name}.png"))
        window.close()
        return 0
    window.show()
    return app.exec()
