"""The Help menu: user guide on F1, shortcuts, About with versions and coefficient versions."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

from app.help import about_html, coefficient_versions, shortcuts_html


def test_help_menu_has_guide_shortcuts_and_about(window):
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus[-1] == "Help"
    guide = window.help_actions["guide"]
    assert guide.shortcut() == QKeySequence(QKeySequence.HelpContents)
    table = shortcuts_html(window.actions())
    assert "Predict and Record" in table and "F5" in table and "Fit to View" in table


def test_about_names_versions_and_every_coefficient_file(window):
    window.live.update(wait=True)
    versions = coefficient_versions()
    assert {"qrep", "mirror", "mq"} <= set(versions) and all(v for v in versions.values())
    html = about_html(window.live.prediction.coefficients_version)
    assert "PySide6" in html and "DuckDB" in html and versions["qrep"] in html
    assert window.live.prediction.coefficients_version in html
