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


def test_f1_shows_the_user_guide_in_a_window_with_its_screenshots(window, qtbot):
    from app.help import USER_GUIDE, open_user_guide

    assert open_user_guide(window)
    help_window = window.help_window
    qtbot.waitExposed(help_window)
    text = help_window.browser.toPlainText()
    assert "How many apply agents do I need?" in text and "```" not in text  # rendered, not raw Markdown
    images = [f for f in help_window.browser.document().allFormats() if f.isImageFormat()]
    names = {f.toImageFormat().name() for f in images}
    assert "user-guide/journey01-topology.png" in names
    for name in names:  # every screenshot it names is there to be drawn
        assert (USER_GUIDE.parent / name).is_file(), name
    help_window.fit_images()
    page_px = help_window.browser.viewport().width()
    widths, block = [], help_window.browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat():
                widths.append(it.fragment().charFormat().toImageFormat().width())
            it += 1
        block = block.next()
    assert widths and all(0 < w <= page_px for w in widths), (widths, page_px)  # screenshots fit the page
    screen = window.screen().availableGeometry()
    assert help_window.width() <= screen.width() and help_window.height() <= screen.height()
    assert open_user_guide(window) and window.help_window is help_window  # F1 again: the same window
    help_window.close()
