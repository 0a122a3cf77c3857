"""PDF reports drawn with Qt: :func:`write_pdf` renders an :class:`engine.report.Report`.

The content comes from :mod:`engine.report` (no Qt there); this package lays it
out on A4 pages (:mod:`app.report.layout`), with text set by QTextDocument (it
stays extractable), and charts (:mod:`app.report.charts`) and the topology
diagram (:mod:`app.report.diagram`) drawn as vectors. The file is written to a
temporary file next to the target and renamed over it, so a failure never
leaves half a PDF. Safe to call from a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from engine.io.atomicfile import atomic_path

#: Resolution of the PDF's device coordinates (dots per inch); vectors and text do not depend on it.
DPI = 300


def ensure_application() -> None:
    """Create a (headless when there is no display) QApplication when none exists; fonts need one."""
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication(["qrtune"])
        app.setApplicationName("qrtune")
        globals()["_APP"] = app  # keep it alive


def write_pdf(report, path: str | os.PathLike, progress: Callable[[float, str], None] | None = None) -> int:
    """Render ``report`` to the PDF file ``path`` (atomically); returns the number of pages.

    The file is written through :func:`engine.io.atomicfile.atomic_path`: the user's umask
    (or the existing file's mode), never half a file in place of the old one.

    Raises
    ------
    OSError
        The file cannot be written (nothing is left behind).
    """
    ensure_application()
    from PySide6.QtCore import QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter

    from app.report.compose import compose
    from app.report.layout import Context, draw_footer, paginate

    path = Path(path)
    progress = progress or (lambda f, t="": None)
    if not path.parent.is_dir():  # said here, not as Qt's "QPainter::begin(): Returned false"
        raise FileNotFoundError(f"cannot write {path}: the folder {path.parent} does not exist")
    with atomic_path(path) as tmp:
        writer = QPdfWriter(str(tmp))
        writer.setResolution(DPI)
        writer.setPageLayout(
            QPageLayout(
                QPageSize(QPageSize.A4),
                QPageLayout.Portrait,
                QMarginsF(16, 14, 16, 12),
                QPageLayout.Millimeter,
            )
        )
        writer.setTitle(report.title)
        writer.setCreator(f"qrtune {report.engine_version}")
        ctx = Context(writer, DPI)
        page = QSizeF(writer.width(), writer.height())
        progress(0.1, "laying out")
        blocks = compose(report)
        pages = paginate(blocks, page, ctx, footer_h=ctx.mm(9))
        painter = QPainter()
        if not painter.begin(writer):
            raise OSError(f"cannot write {path}: the PDF writer did not start")
        try:
            footer = f"{report.title} - qrtune {report.engine_version} - {report.created:%Y-%m-%d %H:%M}"
            for i, placed in enumerate(pages):
                if i:
                    writer.newPage()
                for p in placed:
                    p.block.draw(painter, p.rect, ctx)
                draw_footer(painter, page, ctx, footer, i + 1, len(pages))
                progress(0.1 + 0.85 * (i + 1) / len(pages), f"page {i + 1} of {len(pages)}")
        finally:
            painter.end()
    progress(1.0, f"wrote {path.name}")
    return len(pages)


__all__ = ["DPI", "ensure_application", "write_pdf"]
