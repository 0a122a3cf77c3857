"""Reading the files Db2 users produce from the monitor tables into rows of text fields.

Four shapes are recognised from the file itself:

``csv``
    Delimited (comma, semicolon, tab or bar) with a header line of column names.
``del``
    Delimited without a header: ``EXPORT TO f.del OF DEL SELECT * FROM ASN.IBMQREP_APPLYMON`` on
    Linux, UNIX and Windows, ``UNLOAD ... DELIMITED`` on z/OS. Strings are quoted, NULL is an
    empty field, ``FOR BIT DATA`` columns hold raw bytes (any byte, quotes doubled) or hex.
``clp``
    The Db2 command line processor's table (``db2 "SELECT * FROM ..." > f.txt``): a header line,
    a line of dashes giving each column's width, the rows, ``N record(s) selected.``; NULL is
    ``-`` and ``FOR BIT DATA`` is shown as ``x'0A1B...'``.
``clp-x``
    ``db2 -x`` output: the same rows without the header, dashes and footer (fields split on blanks).

The bytes are decoded as UTF-8, else as Latin-1 (raw ``FOR BIT DATA`` bytes are not UTF-8;
every byte maps to one character, so the delimiters and quotes are found and nothing is lost), or
as EBCDIC (code page 037) when a z/OS file was transferred in binary.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.store.errors import MonitorImportError

DELIMITERS = ",;\t|"
"""Field delimiters of delimited files (Db2's COLDEL choices seen in practice)."""
_DASHES = re.compile(r"^\s*-+( +-+)*\s*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_FOOTER = re.compile(r"^\s*\d+ record\(s\) selected\.?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class RawTable:
    """A file's rows as text fields, before any column is interpreted.

    Attributes
    ----------
    shape : str
        ``csv``, ``del``, ``clp`` or ``clp-x`` (see the module docstring).
    header : tuple[str, ...] or None
        Column names from the file, upper case; None when the file has none.
    rows : list[tuple[int, list[str]]]
        (line number in the file, stripped fields) per non-blank row.
    """

    shape: str
    header: tuple | None
    rows: list


def decode(data: bytes) -> str:
    """The text of a file: UTF-8 (BOM dropped), else EBCDIC 037 if it looks like it, else Latin-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    sample = data[:4096]
    ebcdic_digits = sum(0xF0 <= b <= 0xF9 for b in sample)
    ascii_digits = sum(0x30 <= b <= 0x39 for b in sample)
    return data.decode("cp037" if ebcdic_digits > 2 * ascii_digits else "latin-1")


def column_name(raw: str) -> str:
    """A header cell as a column name: unquoted, without a table prefix, upper case."""
    return raw.strip().strip('"').strip().rsplit(".", 1)[-1].upper()


def read_raw(path: str, known_columns: frozenset) -> RawTable:
    """Read ``path`` into text fields and recognise its shape.

    Parameters
    ----------
    path : str
    known_columns : frozenset of str
        Column names of the monitor tables: a first line naming one of them is a header.

    Raises
    ------
    MonitorImportError
        The file cannot be read or is empty.
    """
    try:
        text = decode(Path(path).read_bytes())
    except OSError as e:
        raise MonitorImportError(f"{path}: cannot read the file: {e}") from None
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise MonitorImportError(f"{path}:1: empty file (expected rows of a monitor table)")
    dashes = next((i for i, line in enumerate(lines[: first + 40]) if _DASHES.match(line)), None)
    if dashes is not None and dashes > 0:
        return _clp_table(lines, dashes)
    if not any(d in lines[first] for d in DELIMITERS + '"') and len(lines[first].split()) >= 2:
        return RawTable("clp-x", None, list(_blank_separated(lines)))
    return _delimited(text, lines[first], known_columns)


def _clp_table(lines: list[str], dashes: int) -> RawTable:
    """The CLP's table: columns cut at the positions of the dash groups under the header."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[dashes])]
    spans[-1] = (spans[-1][0], None)  # the last column runs to the end of its line

    def cut(line: str) -> list[str]:
        return [line[a:b].strip() for a, b in spans]

    header = tuple(column_name(h) for h in cut(lines[dashes - 1]))
    rows = []
    for number, line in enumerate(lines[dashes + 1 :], start=dashes + 2):
        if _FOOTER.match(line):
            break
        if line.strip():
            rows.append((number, cut(line)))
    return RawTable("clp", header, rows)


def _blank_separated(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    for number, line in enumerate(lines, start=1):
        if line.strip() and not _FOOTER.match(line):
            yield number, line.split()


def _delimited(text: str, first_line: str, known_columns: frozenset) -> RawTable:
    """A delimited file; its first row is a header when it names a known column."""
    delimiter = max(DELIMITERS, key=first_line.count)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = []
    for fields in reader:
        if fields and any(f.strip() for f in fields):
            rows.append((reader.line_num, [f.strip() for f in fields]))
    if rows and _is_header(rows[0][1], known_columns):
        return RawTable("csv", tuple(column_name(f) for f in rows[0][1]), rows[1:])
    return RawTable("del", None, rows)


def _is_value(field: str) -> bool:
    """A number or a date/timestamp: what a data row has and a header line has not."""
    if _DATE.match(field):
        return True
    try:
        float(field)
    except ValueError:
        return False
    return True


def _is_header(fields: list[str], known_columns: frozenset) -> bool:
    """A line of column names: one names a known column and none is a number or a timestamp."""
    return any(column_name(f) in known_columns for f in fields) and not any(_is_value(f) for f in fields)
