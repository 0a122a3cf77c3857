"""The Q / SQL Replication ratio of the comparison table: two decimals, two significant digits when small."""

from __future__ import annotations

from engine.report.sql_comparison import ComparisonRow


def _ratio(q, sql) -> str:
    return ComparisonRow("figure", q, sql, "ms").ratio_text


def test_the_ratio_has_two_decimals_and_two_significant_digits_below_a_tenth():
    assert _ratio(11_903, 3_661) == "3.25x"
    assert _ratio(3_000, 3_000) == "1.00x"
    assert _ratio(3.63, 878.3) == "0.0041x"
    assert _ratio(56.1, 2_282) == "0.025x"
    assert _ratio(0.0, 5.0) == "0x"


def test_no_ratio_without_both_values_or_with_a_zero_denominator():
    assert _ratio(None, 5.0) == _ratio(5.0, None) == _ratio(5.0, 0.0) == ""
