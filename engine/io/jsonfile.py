"""Reading JSON a user hands qrtune, with bounded work and one clear error for anything wrong.

Project files, scenario files, workload profiles and autosaves all come through
:func:`read_json` (or :func:`parse_json` for text in hand), which checks, before or
while parsing:

- the file: a regular file (a FIFO, folder or device such as ``/dev/zero`` is refused, never
  waited on); at most ``max_bytes`` are read, so a huge file stops at the limit;
- the encoding: UTF-8 text (a binary file is an error naming the first bad byte);
- the nesting depth: at most :data:`MAX_DEPTH` levels, counted before parsing in bounded
  memory, so no RecursionError can happen;
- the numbers: ``NaN``, ``Infinity``, numbers too large for a float (``1e400``) and
  integers over Python's 4,300-digit limit are refused;
- the strings: text with a lone surrogate (``"\\ud800"``), which no file or terminal can
  encode, is refused.

Every refusal raises the caller's error class (a :class:`~engine.errors.QrtuneError`)
with a message of at most a few hundred characters.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from typing import Any

import numpy as np

from engine.errors import QrtuneError

#: Largest project, scenario or profile file read (bytes); real ones are under 200 KB.
STDIN = "-"
"""The file name that reads standard input (``cat my.json | qrtune predict -``)."""
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted; qrtune's formats use at most 6.
MAX_DEPTH = 64
#: Bytes of JSON text :func:`nesting_depth` looks at at once.
NESTING_CHUNK_BYTES = 1 << 20
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN_ARRAY, _OPEN_OBJECT, _CLOSE_ARRAY, _CLOSE_OBJECT = (ord(c) for c in "[{]}")


def read_bytes(path: str | os.PathLike, error: type[QrtuneError], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """At most ``max_bytes`` of a file (``-``: standard input).

    Larger files, folders, FIFOs and devices (which could block or never end) and unreadable
    files raise ``error``; a FIFO is opened without blocking, so it never hangs.
    """
    try:
        if str(path) == STDIN:
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with open_regular(path) as f:
                data = f.read(max_bytes + 1)
    except NotRegularFileError as e:
        raise error(f"{_short(path)}: {e}; not a qrtune file") from None
    except OSError as e:
        raise error(f"{_short(path)}: cannot read: {e.strerror or type(e).__name__}") from None
    if len(data) > max_bytes:
        raise error(f"{_short(path)}: larger than {max_bytes // (1024 * 1024)} MB; not a qrtune file")
    return data


class NotRegularFileError(OSError):
    """A path names a folder, FIFO, socket or device where a file was expected."""


def open_regular(path: str | os.PathLike):
    """``path`` opened for binary reading; raises :class:`NotRegularFileError` unless it is a regular file.

    The file is opened without blocking (a FIFO with no writer would wait forever) and checked
    on the open descriptor, so nothing can swap it between the check and the read.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(f"a {_file_kind(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def decode_utf8(data: bytes, source: str, error: type[QrtuneError]) -> str:
    """``data`` as text; raises ``error`` naming the offset of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(
            f"{_short(source)}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
            "is it a binary file?"
        ) from None


def nesting_depth(text: str | bytes, chunk_bytes: int = NESTING_CHUNK_BYTES) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text, brackets inside strings not counted.

    The text is scanned ``chunk_bytes`` at a time, carrying whether a string is open and how
    many backslashes end the chunk, so memory stays bounded (a few times ``chunk_bytes``)
    whatever the file holds. A quote preceded by an odd number of backslashes is escaped.
    """
    raw = memoryview(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    state = _ScanState()
    for start in range(0, len(raw), chunk_bytes):
        state.scan(np.frombuffer(raw[start : start + chunk_bytes], dtype=np.uint8))
    return state.deepest


class _ScanState:
    """What :func:`nesting_depth` carries from one chunk to the next."""

    def __init__(self):
        self.depth = 0
        self.deepest = 0
        self.in_string = 0
        self.trailing_backslashes = 0

    def scan(self, codes: np.ndarray) -> None:
        n = len(codes)
        index = np.arange(n, dtype=np.int64)
        backslash = codes == _BACKSLASH
        # index of the last byte that is not a backslash, at or before each position
        last_other = np.maximum.accumulate(np.where(backslash, -1 - self.trailing_backslashes, index))
        quotes = np.flatnonzero(codes == _QUOTE)
        before = np.where(quotes > 0, last_other[np.maximum(quotes - 1, 0)], -1 - self.trailing_backslashes)
        real_quotes = quotes[(quotes - 1 - before) % 2 == 0]
        toggles = np.zeros(n, dtype=np.int8)
        toggles[real_quotes] = 1
        inside = (np.cumsum(toggles, dtype=np.int64) + self.in_string) & 1
        opens = (codes == _OPEN_ARRAY) | (codes == _OPEN_OBJECT)
        closes = (codes == _CLOSE_ARRAY) | (codes == _CLOSE_OBJECT)
        step = opens.view(np.int8) - closes.view(np.int8)
        step[inside == 1] = 0
        levels = np.cumsum(step, dtype=np.int64) + self.depth
        self.deepest = max(self.deepest, int(levels.max(initial=0)))
        self.depth = int(levels[-1]) if n else self.depth
        self.in_string = int(inside[-1]) if n else self.in_string
        self.trailing_backslashes = int(n - 1 - last_other[-1]) if n else self.trailing_backslashes


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number qrtune accepts")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is too large for a number")
    return value


def parse_json(text: str, source: str, error: type[QrtuneError]) -> Any:
    """Parse JSON text after the checks of this module; raises ``error`` with line and column.

    Parameters
    ----------
    text : str
        The JSON text.
    source : str
        Where it came from, for the message (a path).
    error : type
        The :class:`~engine.errors.QrtuneError` subclass raised.
    """
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise error(f"{_short(source)}: nested {depth} levels deep; at most {MAX_DEPTH} are allowed")
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise error(
            f"{_short(source)}: not valid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    except (ValueError, RecursionError) as e:
        raise error(f"{_short(source)}: not valid JSON: {_first_line(e)}") from None
    bad = _first_unencodable(data)
    if bad is not None:
        raise error(
            f"{_short(source)}: {_short(bad, 80)}: text with a lone surrogate (\\ud800-\\udfff) is refused"
        )
    return data


def read_json(path: str | os.PathLike, error: type[QrtuneError], max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Read and parse a JSON file with every check of this module; raises ``error``."""
    text = decode_utf8(read_bytes(path, error, max_bytes), str(path), error)
    return parse_json(text, str(path), error)


def _first_unencodable(data: Any) -> str | None:
    """The field path of the first string (key or value) that is not valid Unicode, or None."""
    stack: list[tuple[str, Any]] = [("(top level)", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if not _encodable(value):
                return path
        elif isinstance(value, dict):
            for key, item in value.items():
                if not _encodable(key):
                    return f"{path} key"
                stack.append((key if path == "(top level)" else f"{path}.{key}", item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _short(source: Any, limit: int = 120) -> str:
    text = str(source)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_line(e: BaseException, limit: int = 160) -> str:
    text = (str(e).splitlines() or [type(e).__name__])[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."
