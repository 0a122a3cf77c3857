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
from typing import Callable

from engine.errors import FieldError
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
    """An integer from ``minimum`` to ``maximum`` (inclusive)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{value} is not allowed; expected an integer from {minimum} to {maximum}"
            )
        return value

    return parse


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
    """
    low = f"above {minimum:g}" if above_minimum else f"from {minimum:g}"
    high = f"to below {maximum:g}" if below_maximum else f"to {maximum:g}"
    suffix = f" {unit}" if unit else ""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
        in_range = (value > minimum if above_minimum else value >= minimum) and (
            value < maximum if below_maximum else value <= maximum
        )
        if not (math.isfinite(value) and in_range):
            raise argparse.ArgumentTypeError(
                f"{text[:40]} is not allowed; expected a number {low} {high}{suffix}"
            )
        return value

    return parse


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


#: ``--wait``: seconds to wait for another process holding the results store.
wait_seconds = number(0.0, MAX_WAIT_S, "s")
#: ``--seed`` of the random numbers (stored in a BIGINT column).
seed = integer(0)

#: ``--rate``: a constant offered rate, rows/s.
rate = number(0.0, MAX_RATE_ROWS_PER_S, "rows/s")


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
