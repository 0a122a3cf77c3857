"""CSV cells a spreadsheet cannot mistake for formulas.

A text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run
as a formula by Excel, LibreOffice and Google Sheets when the CSV is opened (a queue named
``=HYPERLINK(...)`` in a fit export). :func:`text_cell` prefixes such text with an
apostrophe, which spreadsheets hide and treat as "this is text" (OWASP's advice). Numbers
are never changed: ``-5`` stays a negative number.
"""

from __future__ import annotations

from typing import Any

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: Any) -> Any:
    """``value`` itself, or for text that starts like a formula, that text after an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_LEAD):
        return "'" + value
    return value


def plain_text(text: str) -> str:
    """The text :func:`text_cell` escaped (a cell read back from qrtune's own CSV); other text unchanged."""
    if text.startswith("'") and text[1:].startswith(FORMULA_LEAD):
        return text[1:]
    return text


def safe_row(row: dict) -> dict:
    """``row`` with every text value passed through :func:`text_cell`."""
    return {key: text_cell(value) for key, value in row.items()}
