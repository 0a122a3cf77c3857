"""A small page-flow layout for PDF reports: blocks stacked down A4 pages.

A block knows its height at a given width, draws itself into a rectangle and,
when it is a table, splits between rows so a long table continues on the next
page under a repeated header. Text is laid out by :class:`QTextDocument` (so it
stays text in the PDF: pdftotext extracts it); charts and diagrams are drawn
with :class:`QPainter` as vectors. Layout works in the writer's device pixels.

Layout is two passes: :func:`paginate` places every block on pages, then
:func:`render` draws them with a footer naming the page and the page count.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QTextDocument

from app import style

FONT_FAMILY = style.REPORT_FONT_FAMILY
BASE_PT = style.REPORT_BASE_PT

STYLE = f"""
body {{ color: {style.TEXT}; }}
h1 {{ font-size: 17pt; font-weight: 600; color: {style.HEADING}; margin: 0; }}
h2 {{ font-size: 12.5pt; font-weight: 600; color: {style.HEADING}; margin-top: 6px; margin-bottom: 2px; }}
h3 {{ font-size: 10pt; font-weight: 600; color: {style.SUBHEADING}; margin-top: 4px; margin-bottom: 2px; }}
p {{ margin-top: 1px; margin-bottom: 3px; }}
.muted {{ color: {style.MUTED}; }}
.small {{ font-size: 7.5pt; }}
table.grid {{ border-collapse: collapse; border-color: {style.RULE}; }}
table.grid th {{ background-color: {style.HEADER_BACKGROUND}; color: {style.HEADING}; font-weight: 600; text-align: left; }}
table.grid td, table.grid th {{ border: 0.5px solid {style.CELL_BORDER}; }}
td.num, th.num {{ text-align: right; }}
tr.changed td {{ background-color: {style.CHANGED_BACKGROUND}; }}
td.mark {{ color: {style.CHANGED_MARK}; font-weight: 600; }}
tr.bott td {{ background-color: {style.BOTTLENECK_BACKGROUND}; }}
tr.group td {{ background-color: {style.GROUP_BACKGROUND}; font-weight: 600; color: {style.SUBHEADING}; }}
"""


@dataclass
class Context:
    """What blocks need to lay out: the paint device (font metrics) and its resolution (dots per inch)."""

    device: object
    dpi: float

    def mm(self, value: float) -> float:
        """``value`` millimetres in device pixels."""
        return value * self.dpi / 25.4

    def pt(self, value: float) -> float:
        """``value`` points in device pixels."""
        return value * self.dpi / 72.0


def report_font(pt: float, bold: bool = False) -> QFont:
    """The report's font at ``pt`` points, without ligatures (so "ff", "fi" stay searchable letters)."""
    font = QFont(FONT_FAMILY)
    font.setPointSizeF(pt)
    font.setBold(bold)
    for tag in ("liga", "clig", "dlig"):
        font.setFeature(QFont.Tag(tag), 0)
    return font


def text_document(html: str, width: float, ctx: Context) -> QTextDocument:
    """A :class:`QTextDocument` of ``html`` laid out at ``width`` device pixels."""
    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(ctx.device)
    font = report_font(BASE_PT)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet(STYLE)
    doc.setDocumentMargin(0)
    doc.setHtml(html)
    doc.setTextWidth(width)
    return doc


class Block:
    """Something stacked on a page. ``keep_with_next``: never end a page with this block."""

    keep_with_next = False
    space_after_mm = 2.5

    def height(self, width: float, ctx: Context) -> float:
        raise NotImplementedError

    def split(self, width: float, avail: float, ctx: Context) -> tuple[Block | None, Block | None]:
        """(part that fits in ``avail``, the rest); ``(None, self)`` when nothing fits."""
        return (self, None) if self.height(width, ctx) <= avail else (None, self)

    def draw(self, painter: QPainter, rect: QRectF, ctx: Context) -> None:
        raise NotImplementedError


class Html(Block):
    """A paragraph, heading or small table given as HTML; never split."""

    def __init__(self, html: str, keep_with_next: bool = False, space_after_mm: float = 2.0):
        self.html = html
        self.keep_with_next = keep_with_next
        self.space_after_mm = space_after_mm
        self._doc: tuple[float, QTextDocument] | None = None

    def doc(self, width: float, ctx: Context) -> QTextDocument:
        if self._doc is None or self._doc[0] != width:
            self._doc = (width, text_document(self.html, width, ctx))
        return self._doc[1]

    def height(self, width: float, ctx: Context) -> float:
        return self.doc(width, ctx).size().height()

    def draw(self, painter: QPainter, rect: QRectF, ctx: Context) -> None:
        doc = self.doc(rect.width(), ctx)
        painter.save()
        painter.translate(rect.topLeft())
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height() + 2))
        painter.restore()


#: Rows a report table shows at most; the rest are left out with a note (a 10,240-point sweep's
#: table of every point would fill 250 pages, a 994-node project's settings 450).
MAX_TABLE_ROWS = 500
#: Rows :meth:`Table.split` lays out first when looking for a page break (then twice as many, ...).
FIRST_PROBE_ROWS = 16


class Table(Block):
    """An HTML table that splits between rows, repeating its header on the next page.

    Splitting lays out only about a page's worth of rows (twice as many rows each try until they
    overflow, then a binary search between the last two tries), so a table is laid out in time
    linear in its rows. Tables longer than :data:`MAX_TABLE_ROWS` rows show that many and a
    last row saying how many are left out and where to find them (``more``).

    Parameters
    ----------
    headers : list[str]
        Column headings (HTML).
    rows : list[str]
        One ``<tr>...</tr>`` per row.
    widths : list[int]
        Column widths in percent of the page width.
    right : set[int]
        Columns whose heading is right-aligned (numbers).
    caption : str
        HTML heading above the table (repeated with "(continued)" after a page break).
    more : str
        Where the rows left out beyond :data:`MAX_TABLE_ROWS` can be read (plain text), e.g.
        ``qrtune export --sweep 3 lists every point``.
    """

    #: The block type that lays out the table's HTML (a subclass may use a cheaper one).
    html_block = Html

    def __init__(
        self,
        headers: list[str],
        rows: list[str],
        widths: list[int],
        right: set | frozenset = frozenset(),
        caption: str = "",
        continued: bool = False,
        more: str = "",
    ):
        if len(rows) > MAX_TABLE_ROWS:
            left_out = len(rows) - MAX_TABLE_ROWS
            note = f"{left_out:,} more rows are not shown here (a table shows at most {MAX_TABLE_ROWS:,})"
            rows = [
                *rows[:MAX_TABLE_ROWS],
                f'<tr><td colspan="{len(headers)}"><i>{html.escape(note + ("; " + more if more else ""))}</i></td></tr>',
            ]
        self.headers, self.rows, self.widths, self.right, self.caption = (
            headers,
            rows,
            widths,
            set(right),
            caption,
        )
        self.continued = continued
        self._cache: dict[tuple[float, int], Html] = {}

    def _html(self, rows: list[str]) -> str:
        head = "".join(
            f'<th width="{w}%"{" class=num" if i in self.right else ""}>{h}</th>'
            for i, (h, w) in enumerate(zip(self.headers, self.widths))
        )
        cap = self.caption + (
            ' <span class="muted small">(continued)</span>' if self.continued and self.caption else ""
        )
        cap_html = f"<h3>{cap}</h3>" if cap else ""
        return (
            f'{cap_html}<table class="grid" width="100%" cellspacing="0" cellpadding="2">'
            f"<thead><tr>{head}</tr></thead>{''.join(rows)}</table>"
        )

    def _part(self, k: int, width: float, ctx: Context) -> Html:
        key = (width, k)
        if key not in self._cache:
            self._cache[key] = self.html_block(self._html(self.rows[:k]))
        return self._cache[key]

    def height(self, width: float, ctx: Context) -> float:
        return self._part(len(self.rows), width, ctx).height(width, ctx)

    def split(self, width: float, avail: float, ctx: Context):
        n = len(self.rows)

        def fits(k: int) -> bool:
            return self._part(k, width, ctx).height(width, ctx) <= avail

        lo, k = 0, min(n, FIRST_PROBE_ROWS)  # lo rows fit; grow k until k rows do not
        while fits(k):
            if k == n:
                return self, None
            lo, k = k, min(n, 2 * k)
        hi = k - 1  # largest k with height(k) <= avail lies in lo..hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._part(mid, width, ctx).height(width, ctx) <= avail:
                lo = mid
            else:
                hi = mid - 1
        if lo < 3:  # a header with one or two rows looks orphaned: move the table on
            return None, self
        lo = min(lo, max(len(self.rows) - 3, 3))  # nor one or two rows alone on the next page (widows)
        first = Table(self.headers, self.rows[:lo], self.widths, self.right, self.caption, self.continued)
        rest = Table(self.headers, self.rows[lo:], self.widths, self.right, self.caption, continued=True)
        return first, rest

    def draw(self, painter: QPainter, rect: QRectF, ctx: Context) -> None:
        self._part(len(self.rows), rect.width(), ctx).draw(painter, rect, ctx)


class Drawing(Block):
    """A vector drawing (chart, diagram) ``height_mm`` tall, drawn by ``fn(painter, rect, ctx)``."""

    def __init__(
        self, height_mm: float, fn: Callable[[QPainter, QRectF, Context], None], space_after_mm: float = 3.0
    ):
        self.height_mm = height_mm
        self.fn = fn
        self.space_after_mm = space_after_mm

    def height(self, width: float, ctx: Context) -> float:
        return ctx.mm(self.height_mm)

    def draw(self, painter: QPainter, rect: QRectF, ctx: Context) -> None:
        painter.save()
        painter.setClipRect(rect.adjusted(-2, -2, 2, 2))
        self.fn(painter, rect, ctx)
        painter.restore()


class PageBreak(Block):
    """Start a new page (nothing drawn)."""

    def height(self, width: float, ctx: Context) -> float:
        return 0.0

    def draw(self, painter, rect, ctx) -> None:  # pragma: no cover - never placed
        pass


@dataclass
class Placed:
    block: Block
    rect: QRectF


def paginate(blocks: list[Block], page: QSizeF, ctx: Context, footer_h: float) -> list[list[Placed]]:
    """Place ``blocks`` top to bottom on pages of ``page`` size (device pixels) leaving ``footer_h`` free."""
    width, bottom = page.width(), page.height() - footer_h
    pages: list[list[Placed]] = [[]]
    y = 0.0
    queue = list(blocks)
    i = 0
    while i < len(queue):
        block = queue[i]
        if isinstance(block, PageBreak):
            if pages[-1]:
                pages.append([])
                y = 0.0
            i += 1
            continue
        avail = bottom - y
        if block.keep_with_next and i + 1 < len(queue) and pages[-1]:
            nxt = queue[i + 1]
            need = block.height(width, ctx) + ctx.mm(block.space_after_mm)
            fits_next = (
                nxt.split(width, avail - need, ctx)[0] is not None if not isinstance(nxt, PageBreak) else True
            )
            if need > avail or not fits_next:
                pages.append([])
                y = 0.0
                continue
        part, rest = block.split(width, avail, ctx)
        if part is None:
            if not pages[-1]:  # taller than a whole page: draw it clipped rather than loop forever
                part, rest = block, None
            else:
                pages.append([])
                y = 0.0
                continue
        h = part.height(width, ctx)
        pages[-1].append(Placed(part, QRectF(0, y, width, h)))
        y += h + ctx.mm(part.space_after_mm)
        if rest is not None:
            queue[i] = rest
            pages.append([])
            y = 0.0
        else:
            i += 1
    return [p for p in pages if p] or [[]]


def draw_footer(
    painter: QPainter, page: QSizeF, ctx: Context, title: str, tail: str, index: int, count: int
) -> None:
    """A thin rule, ``title - tail`` on the left and "page i of n" on the right, at the bottom of the page.

    A title too long for the room the page number leaves is shortened in its middle ("...");
    ``tail`` (the version and the date) is always printed whole.
    """
    y = page.height() - ctx.mm(6)
    painter.save()
    painter.setPen(QPen(QColor(style.RULE), ctx.pt(0.5)))
    painter.drawLine(0, int(y), int(page.width()), int(y))
    painter.setFont(report_font(7))
    painter.setPen(QColor(style.MUTED))
    metrics = QFontMetricsF(painter.font(), painter.device())
    right = f"page {index} of {count}"
    sep = " - "
    room = page.width() - metrics.horizontalAdvance(right + sep + tail) - ctx.mm(4)
    left = metrics.elidedText(title, Qt.ElideMiddle, max(room, 0.0)) + sep + tail
    box = QRectF(0, y + ctx.mm(1), page.width(), ctx.mm(5))
    painter.drawText(box, Qt.AlignLeft | Qt.AlignTop, left)
    painter.drawText(box, Qt.AlignRight | Qt.AlignTop, right)
    painter.restore()
