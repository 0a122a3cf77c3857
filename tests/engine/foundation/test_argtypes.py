"""Numbers on the command line are checked where argparse reads them, against inclusive or open bounds."""

from __future__ import annotations

import argparse

import pytest

from engine.cli import argtypes


def test_inclusive_bounds_take_their_ends():
    parse = argtypes.number(0.0, 100.0, "%")
    assert parse("0") == 0.0 and parse("100") == 100.0
    with pytest.raises(argparse.ArgumentTypeError, match=r"expected a number from 0 to 100%"):
        parse("100.5")


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "1e9"])
def test_a_size_above_zero_refuses_zero_and_what_is_not_finite(text):
    parse = argtypes.number(0.0, 102_400.0, "KB", above_minimum=True)
    with pytest.raises(
        argparse.ArgumentTypeError, match=rf"^{text} is not allowed; expected a number above 0 to 102,400 KB"
    ):
        parse(text)
    assert parse("0.001") == 0.001


def test_a_fraction_below_one_refuses_one():
    parse = argtypes.number(0.0, 1.0, below_maximum=True)
    assert parse("0") == 0.0 and parse("0.999") == 0.999
    with pytest.raises(argparse.ArgumentTypeError, match="expected a number from 0 to below 1"):
        parse("1")


def test_an_option_help_names_the_range_its_check_uses_and_the_default():
    parser = argparse.ArgumentParser()
    argtypes.add_number(
        parser, "--outage-min", "outage to hold", minimum=0.0, maximum=10_080.0, unit="min", default=20.0
    )
    argtypes.add_integer(parser, "--workers", "worker processes", maximum=1024, default_text="the CPU count")
    argtypes.add_number(parser, "--gain", "smallest gain", minimum=0.0, maximum=1000.0, unit="%", default=1.0)
    helps = {a.dest: a.help for a in parser._actions}
    assert helps["outage_min"] == "outage to hold (from 0 to 10,080 min; default 20 min)"
    assert helps["workers"] == "worker processes (from 0 to 1,024; default the CPU count)"
    assert parser.format_help().count("from 0 to 1,000%; default 1%") == 1
    assert parser.parse_args([]).outage_min == 20.0 and parser.parse_args([]).workers is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--workers", "1025"])
