"""CSV exports never hand a spreadsheet a formula."""

from engine.compare import _csv_value
from engine.io.csvcell import safe_row, text_cell


def test_text_starting_like_a_formula_is_quoted_numbers_are_not():
    assert [text_cell(v) for v in ("=HYPERLINK(1)", "+1", "-x", "@SUM(A1)", "\tx", "\rx")] == [
        "'=HYPERLINK(1)",
        "'+1",
        "'-x",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
    ]
    assert [text_cell(v) for v in ("QUEUE.A", "", -5, -5.5, None)] == ["QUEUE.A", "", -5, -5.5, None]


def test_rows_and_compare_cells_are_escaped():
    assert safe_row({"queue": "=cmd|' /C calc'!A0", "measured": -3.0}) == {
        "queue": "'=cmd|' /C calc'!A0",
        "measured": -3.0,
    }
    assert _csv_value("=1+1") == "'=1+1" and _csv_value(-2.5) == "-2.5"
