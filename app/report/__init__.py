"""PDF reports drawn with Qt: :func:`write_pdf` renders an :class:`engine.report.Report`.

The content comes from :mod:`engine.report` (no Qt there); this package lays it
out on A4 pages (:mod:`app.report.layout`), with text set by QTextDocument (it
stays extractable), and charts (:mod:`app.report.charts`) and the topology
diagram (:mod:`app.report.diagram`) drawn as vectors. The PDF is drawn into
memory, checked to be complete, and written by :func:`engine.io.atomicfile.atomic_write_bytes`,
so a failure (a full disk) never leaves half a PDF in place of the previous one.
Safe to call from a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from engine.errors import OutputFileError
from engine.io.atomicfile import atomic_write_bytes, writable_target

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

    The file is written through :func:`engine.io.atomicfile.atomic_write_bytes`: the user's
    umask (or the existing file's mode), never half a file in place of the old one.

    Raises
    ------
    OutputFileError
        The file cannot be written (not a regular file, a full disk, the PDF writer failed);
        the previous file is unchanged.
    """
    path = Path(path)
    progress = progress or (lambda f, t="": None)
    writable_target(path)  # a folder, FIFO or device is refused before the layout work
    data, pages = render_pdf(report, progress)
    if data is None:
        raise OutputFileError(
            f"cannot write {path}: the PDF writer did not finish the file; nothing was written"
        )
    atomic_write_bytes(path, data)
    progress(1.0, f"wrote {path.name}")
    return pages


def render_pdf(report, progress: Callable[[float, str], None]) -> tuple[bytes | None, int]:
    """The PDF bytes of ``report`` (None when Qt's painter did not finish them) and its page count."""
    ensure_application()
    from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter

    from app.report.compose import compose
    from app.report.layout import Context, draw_footer, paginate

    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(DPI)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.A4), QPageLayout.Portrait, QMarginsF(16, 14, 16, 12), QPageLayout.Millimeter
        )
    )
    writer.setTitle(report.title)
    writer.setCreator(f"qrtune {report.engine_version}")
    ctx = Context(writer, DPI)
    page = QSizeF(writer.width(), writer.height())
    progress(0.1, "laying out")
    pages = paginate(compose(report), page, ctx, footer_h=ctx.mm(9))
    painter = QPainter()
    if not painter.begin(writer):
        return None, len(pages)
    try:
        footer_tail = f"qrtune {report.engine_version} - {report.created:%Y-%m-%d %H:%M}"
        for i, placed in enumerate(pages):
            if i:
                writer.newPage()
            for p in placed:
                p.block.draw(painter, p.rect, ctx)
            draw_footer(painter, page, ctx, report.title, footer_tail, i + 1, len(pages))
            progress(0.1 + 0.85 * (i + 1) / len(pages), f"page {i + 1} of {len(pages)}")
    finally:
        finished = painter.end()
    data = bytes(buffer.data())
    complete = finished and data.startswith(b"%PDF") and b"%%EOF" in data[-64:]
    return (data if complete else None), len(pages)


__all__ = ["DPI", "ensure_application", "render_pdf", "write_pdf"]
