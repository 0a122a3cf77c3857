"""Numbers on the command line are checked where argparse reads them, against inclusive or open bounds."""

from __future__ import annotations

import argparse

import pytest

from engine.cli import argtypes


def test_inclusive_bounds_take_their_ends():
    parse = argtypes.number(0.0, 100.0, "%")
    assert parse("0") == 0.0 and parse("100") == 100.0
    with pytest.raises(argparse.ArgumentTypeError, match=r"expected a number from 0 to 100 %"):
        parse("100.5")


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "1e9"])
def test_a_size_above_zero_refuses_zero_and_what_is_not_finite(text):
    parse = argtypes.number(0.0, 102_400.0, "KB", above_minimum=True)
    with pytest.raises(
        argparse.ArgumentTypeError, match=rf"^{text} is not allowed; expected a number above 0 to 102400 KB"
    ):
        parse(text)
    assert parse("0.001") == 0.001


def test_a_fraction_below_one_refuses_one():
    parse = argtypes.number(0.0, 1.0, below_maximum=True)
    assert parse("0") == 0.0 and parse("0.999") == 0.999
    with pytest.raises(argparse.ArgumentTypeError, match="expected a number from 0 to below 1"):
        parse("1")
