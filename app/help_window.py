"""The user guide inside the window: docs/user-guide.md rendered with its screenshots (F1).

The guide ships in the wheel (``qrtune/docs``), so an installed workbench shows the same
pages as a checkout; links to other pages of the guide open in the same window, links to
the web in the desktop's browser.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

#: The user guide (Markdown, its screenshots in ``user-guide/`` beside it).
USER_GUIDE = Path(__file__).resolve().parents[1] / "docs" / "user-guide.md"


class HelpWindow(QDialog):
    """A window showing the user guide, its headings and screenshots, scrolled like a page."""

    def __init__(self, parent=None, guide: Path = USER_GUIDE):
        super().__init__(parent)
        self.setWindowTitle("qrtune user guide")
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.browser.setSource(QUrl.fromLocalFile(str(guide)), QTextDocument.MarkdownResource)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        if parent is not None:  # most of the window's room, never more than the screen
            room = parent.screen().availableGeometry()
            self.resize(min(900, int(room.width() * 0.8)), int(room.height() * 0.85))
        self.browser.sourceChanged.connect(lambda _: self.fit_images())

    def fit_images(self) -> None:
        """Draw every screenshot at most as wide as the page (its height follows), so none needs a scroll bar."""
        doc = self.browser.document()
        width_px = max(200, self.browser.viewport().width() - 2 * int(doc.documentMargin()) - 8)
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().isImageFormat():
                    image = fragment.charFormat().toImageFormat()
                    natural = doc.resource(QTextDocument.ImageResource, QUrl(image.name()))
                    natural_w = natural.width() if hasattr(natural, "width") else 0
                    if natural_w > width_px:
                        image.setWidth(width_px)
                        image.setHeight(natural.height() * width_px / natural_w)
                        cursor = QTextCursor(doc)
                        cursor.setPosition(fragment.position())
                        cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.KeepAnchor)
                        cursor.setCharFormat(image)
                it += 1
            block = block.next()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_images()

    def _follow(self, url: QUrl) -> None:
        """A link in the guide: its own pages and anchors here, anything else in the desktop's browser."""
        if url.isRelative() or url.isLocalFile():
            self.browser.setSource(url)
        else:
            QDesktopServices.openUrl(url)
