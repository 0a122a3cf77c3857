"""Argument types of the qrtune command line: every number checked where it is parsed.

Each factory returns a function for argparse's ``type=``; a value outside what the
command can use (``--seed -1``, ``--wait nan``, ``--batch-size 0``, ``--workers -1``)
is an argparse error (one line, exit 2) naming the allowed values, so no command ever
starts on it.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

from engine.errors import FieldError
from engine.metrics.catalog import format_setting
from engine.registry import KINDS

#: Largest value of an integer argument: what the results store's BIGINT columns hold.
INT64_MAX = 2**63 - 1
#: Longest wait for another process holding the store (s): one day.
MAX_WAIT_S = 86_400.0
#: Largest offered rate (rows/s) a command takes: the maximum of the OFFERED_ROWS_PER_S knob.
MAX_RATE_ROWS_PER_S = float(KINDS["source_db2"].param("offered_rows_per_s").maximum)
#: Longest simulated time (s) a command takes: a year.
MAX_DURATION_S = 366 * 86_400.0
#: A Dask scheduler address: tcp://HOST:PORT and the other schemes distributed knows.
_SCHEDULER = re.compile(r"(tcp|tls|inproc|ucx|ws|wss)://([^\s/:]+)(:\d{1,5})?/?")


def integer(minimum: int = 0, maximum: int = INT64_MAX) -> Callable[[str], int]:
    """An integer from ``minimum`` to ``maximum`` (inclusive); ``allowed`` on the result says so in words."""
    allowed = f"{minimum:,} or more" if maximum == INT64_MAX else f"from {minimum:,} to {maximum:,}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{value} is not allowed; expected an integer {allowed}")
        return value

    vars(parse).update(
        allowed=allowed, minimum=minimum, maximum=maximum
    )  # read by help texts and the fuzz suite
    return parse


def _with_unit(text: str, unit: str) -> str:
    """``text`` followed by ``unit`` (``20 min``, ``1%``)."""
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}" if unit else text


def number(
    minimum: float = 0.0,
    maximum: float = 1e12,
    unit: str = "",
    above_minimum: bool = False,
    below_maximum: bool = False,
) -> Callable[[str], float]:
    """A finite number from ``minimum`` to ``maximum``; NaN and infinities never are.

    The bounds are inclusive unless ``above_minimum`` (the number must exceed ``minimum``: a
    message size) or ``below_maximum`` (it must stay under ``maximum``: a fraction below 1).
    The returned function's ``allowed`` says what it takes in words (``from 0 to 10,080 min``).
    """
    low = f"above {format_setting(minimum)}" if above_minimum else f"from {format_setting(minimum)}"
    high = f"to below {format_setting(maximum)}" if below_maximum else f"to {format_setting(maximum)}"
    allowed = _with_unit(f"{low} {high}", unit)

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
        in_range = (value > minimum if above_minimum else value >= minimum) and (
            value < maximum if below_maximum else value <= maximum
        )
        if not (math.isfinite(value) and in_range):
            raise argparse.ArgumentTypeError(f"{text[:40]} is not allowed; expected a number {allowed}")
        return value

    vars(parse).update(
        allowed=allowed, minimum=minimum, maximum=maximum
    )  # read by help texts and the fuzz suite
    return parse


def _add_checked(
    parser, flag: str, parse, help_text: str, default, metavar, default_text: str | None
) -> None:
    """Add ``flag`` parsed by ``parse``; its help is ``help_text``, ``parse.allowed`` and the default.

    ``default_text`` is what the option left out means (``20 min``, ``the CPU count``); ``%`` in
    what is added is escaped for argparse.
    """
    shown = f"; default {default_text}" if default_text else ""
    help_ = help_text + f" ({parse.allowed}{shown})".replace("%", "%%")
    parser.add_argument(flag, type=parse, default=default, metavar=metavar, help=help_)


def add_number(
    parser: argparse.ArgumentParser,
    flag: str,
    help_text: str,
    *,
    default: float | None = None,
    metavar: str | None = None,
    default_text: str | None = None,
    **bounds,
) -> None:
    """Add a number option checked by :func:`number` (``bounds`` are its arguments).

    Its help is ``help_text`` (argparse help, ``%%`` for a literal ``%``) followed by the
    allowed values, written from the same bounds the check uses so the two never disagree,
    and the default; ``default_text`` names it where ``default`` is None (worked out later).
    """
    parse = number(**bounds)
    if default_text is None and default is not None:
        default_text = _with_unit(format_setting(default), bounds.get("unit", ""))
    _add_checked(parser, flag, parse, help_text, default, metavar, default_text)


def add_integer(
    parser: argparse.ArgumentParser,
    flag: str,
    help_text: str,
    *,
    minimum: int = 0,
    maximum: int = INT64_MAX,
    default: int | None = None,
    metavar: str = "N",
    default_text: str | None = None,
) -> None:
    """Add an integer option checked by :func:`integer`; its help is written as :func:`add_number`'s."""
    parse = integer(minimum, maximum)
    if default_text is None and default is not None:
        default_text = f"{default:,}"
    _add_checked(parser, flag, parse, help_text, default, metavar, default_text)


def text(max_chars: int) -> Callable[[str], str]:
    """Text of at most ``max_chars`` characters (a report title, not a document)."""

    def parse(value: str) -> str:
        if len(value) > max_chars:
            raise argparse.ArgumentTypeError(f"{len(value):,} characters; at most {max_chars} are allowed")
        return value

    return parse


def scheduler_address(text: str) -> str:
    """A Dask scheduler address such as ``tcp://10.0.0.5:8786``: a known scheme, a host, a port up to 65535.

    An IPv4 host has four numbers up to 255 (``tcp://256.1.1.1:99999`` waited for the connection
    timeout before failing).
    """
    m = _SCHEDULER.fullmatch(text)
    host = m.group(2) if m else ""
    port = int(m.group(3)[1:]) if m and m.group(3) else 8786
    octets = host.split(".")
    bad_ip = len(octets) == 4 and all(o.isdigit() for o in octets) and any(int(o) > 255 for o in octets)
    if not m or not 1 <= port <= 65535 or bad_ip:
        raise argparse.ArgumentTypeError(
            f"{text[:60]!r} is not a scheduler address; expected tcp://HOST:PORT"
        )
    return text


def duration_s(text: str, option: str = "--duration") -> float:
    """Parse a simulated time (``600``, ``90s``, ``20m``, ``1h``) above 0 and at most :data:`MAX_DURATION_S`.

    Raises
    ------
    FieldError
        Not a time, or outside those bounds (``1e308``, ``100000h``).
    """
    from engine.sim import parse_duration_s

    value = parse_duration_s(text, option)
    if not 0 < value <= MAX_DURATION_S:
        raise FieldError(option, text, f"a time above 0 and at most {MAX_DURATION_S / 86_400:g} days")
    return value
