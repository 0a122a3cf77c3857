"""A monitor cell's text as a value: NULL, a number or a Db2 timestamp."""

from __future__ import annotations

import math
import re
from datetime import datetime

NULLS = {"", "NULL", "-", "?"}
"""How an export writes NULL: an empty field (DEL), ``NULL``, ``-`` (the CLP) or ``?``."""
_TS_PATTERNS = (
    re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-T ](\d{2})[.:](\d{2})[.:](\d{2})(?:[.,](\d{1,12}))?$"),
)


def parse_timestamp(text: str) -> datetime | None:
    """A Db2 (``2013-04-02-10.15.30.123456``) or ISO timestamp; None when ``text`` is neither."""
    text = text.strip()
    if len(text) in (19, 26) and text[4] == "-" and text[7] == "-":  # the usual forms, at C speed
        if text[10] == "-" and text[13] == "." and text[16] == ".":
            iso = f"{text[:10]} {text[11:13]}:{text[14:16]}:{text[17:]}"
        else:
            iso = text
        try:
            ts = datetime.fromisoformat(iso)
        except ValueError:
            ts = None
        if (
            ts is not None
            and ts.tzinfo is None
            and iso[10] in " T"
            and iso[13] == ":"
            and iso[16] == ":"
            and (len(iso) == 19 or iso[19] in ".,")
        ):
            return ts
    m = _TS_PATTERNS[0].match(text)
    if not m:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    micro = int((frac or "0").ljust(6, "0")[:6])
    try:
        return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro)
    except ValueError:
        return None


def is_null(text: str) -> bool:
    """True when ``text`` is how an export writes NULL (:data:`NULLS`)."""
    return text.strip().upper() in NULLS


def to_float(text: str) -> float | None:
    """``text`` as a finite float; None when it is not one."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None
