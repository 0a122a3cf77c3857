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

A file is read as a stream: :func:`read_raw` looks at its first lines only, and
:meth:`RawTable.batches` hands the rows over a batch at a time, so memory does not grow with
the file's size.
"""

from __future__ import annotations

import codecs
import csv
import functools
import os
import re
import stat
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from itertools import islice

from engine.store.errors import MonitorImportError

DELIMITERS = ",;\t|"
"""Field delimiters of delimited files (Db2's COLDEL choices seen in practice)."""
BLOCK_CHARS = 1 << 20
"""Bytes (or characters) read from a file at a time."""
_DASHES = re.compile(r"^\s*-+( +-+)*\s*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_FOOTER = re.compile(r"^\s*\d+ record\(s\) selected\.?\s*$", re.IGNORECASE)
_LOOKAHEAD_LINES = 40
"""Lines after the first non-blank one searched for the CLP's line of dashes."""


@dataclass(frozen=True)
class RawTable:
    """A file's shape and header; its rows as text fields are read on demand (:meth:`rows`).

    Attributes
    ----------
    path : str
    shape : str
        ``csv``, ``del``, ``clp`` or ``clp-x`` (see the module docstring).
    header : tuple[str, ...] or None
        Column names from the file, upper case; None when the file has none.
    encoding : str
        Python codec the file is read with.
    first : tuple[int, list[str]] or None
        The first data row (line number, fields); None for a file without rows.
    delimiter : str
        Field delimiter of ``csv`` and ``del`` files.
    spans : tuple[tuple[int, int or None], ...]
        Character positions of each column of a ``clp`` table.
    body_line : int
        Line number after which a ``clp`` table's rows start (its line of dashes).
    """

    path: str
    shape: str
    header: tuple | None
    encoding: str
    first: tuple | None = None
    delimiter: str = ","
    spans: tuple = ()
    body_line: int = 0

    def rows(self) -> Iterator[tuple[int, list[str]]]:
        """(line number in the file, stripped fields) per non-blank data row, read as a stream.

        Raises
        ------
        MonitorImportError
            The file cannot be read, or a delimited row is not valid CSV (file and line named).
        """
        if self.shape == "clp":
            return self._clp_rows()
        if self.shape == "clp-x":
            return _blank_separated(text_lines(self.path, self.encoding))
        return _delimited_rows(self.path, self.encoding, self.delimiter, skip_header=self.header is not None)

    def sample(self, n: int) -> list[list[str]]:
        """The fields of the first ``n`` data rows (fewer in a shorter file)."""
        return [fields for _, fields in islice(self.rows(), n)]

    def batches(self, size: int) -> Iterator[list[tuple[int, list[str]]]]:
        """:meth:`rows` in lists of at most ``size`` rows."""
        rows = self.rows()
        while batch := list(islice(rows, size)):
            yield batch

    def _clp_rows(self) -> Iterator[tuple[int, list[str]]]:
        lines = islice(enumerate(text_lines(self.path, self.encoding), start=1), self.body_line, None)
        for number, line in lines:
            if _FOOTER.match(line):
                return
            if line.strip():
                yield number, _cut(line, self.spans)


def file_encoding(path: str) -> str:
    """The codec of a file: UTF-8 (BOM dropped) when all of it is UTF-8, else EBCDIC 037 if it looks like it, else Latin-1.

    The answer is kept for the file's size and modification time (an import looks at each
    file twice, and reading a large file through the decoder takes a while).

    Raises
    ------
    MonitorImportError
        The file cannot be read.
    """
    try:
        st = os.stat(path)
    except OSError as e:
        raise MonitorImportError(f"{path}: cannot read the file: {e}") from None
    if not stat.S_ISREG(st.st_mode):  # /dev/zero or a pipe would never end
        raise MonitorImportError(f"{path}: not a regular file (expected an export of a monitor table)")
    return _encoding_of(path, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _encoding_of(path: str, size: int, mtime_ns: int) -> str:
    """:func:`file_encoding` of the file at ``path`` as it is with ``size`` and ``mtime_ns``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with open(path, "rb") as f:
            head = block = f.read(BLOCK_CHARS)
            try:
                while block:
                    if not (block.isascii() and not decoder.getstate()[0]):  # ASCII needs no decoding
                        decoder.decode(block)
                    block = f.read(BLOCK_CHARS)
                decoder.decode(b"", final=True)
                return "utf-8-sig"
            except UnicodeDecodeError:
                pass
    except OSError as e:
        raise MonitorImportError(f"{path}: cannot read the file: {e}") from None
    sample = head.removeprefix(codecs.BOM_UTF8)[:4096]
    ebcdic_digits = sum(0xF0 <= b <= 0xF9 for b in sample)
    ascii_digits = sum(0x30 <= b <= 0x39 for b in sample)
    return "cp037" if ebcdic_digits > 2 * ascii_digits else "latin-1"


def text_lines(path: str, encoding: str) -> Iterator[str]:
    """The file's lines without their line breaks, split where :meth:`str.splitlines` splits, as a stream."""
    with open(path, encoding=encoding, newline="") as f:
        rest = ""
        while block := f.read(BLOCK_CHARS):
            lines = (rest + block).splitlines(keepends=True)
            rest = lines.pop()
            if rest.splitlines()[0] != rest and not rest.endswith("\r"):  # a whole line ("\r\n" may be split)
                lines.append(rest)
                rest = ""
            yield from (line.splitlines()[0] for line in lines)
        if rest:
            yield rest.splitlines()[0]


def column_name(raw: str) -> str:
    """A header cell as a column name: unquoted, without a table prefix, upper case."""
    return raw.strip().strip('"').strip().rsplit(".", 1)[-1].upper()


def _opening_lines(path: str, encoding: str) -> tuple[int, list[str]]:
    """(index of the first non-blank line, it and the lines after it up to the lookahead); (-1, []) if all blank."""
    with closing(text_lines(path, encoding)) as lines:
        for index, line in enumerate(lines):
            if line.strip():
                return index, [line, *islice(lines, _LOOKAHEAD_LINES - 1)]
    return -1, []


def read_raw(path: str, known_columns: frozenset) -> RawTable:
    """Recognise the shape of the file at ``path`` from its first lines; its rows are read later.

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
    encoding = file_encoding(path)
    try:
        first, lines = _opening_lines(path, encoding)
    except OSError as e:
        raise MonitorImportError(f"{path}: cannot read the file: {e}") from None
    if first < 0:
        raise MonitorImportError(f"{path}:1: empty file (expected rows of a monitor table)")
    dashes = next((i for i, line in enumerate(lines) if _DASHES.match(line)), None)
    if dashes is not None and first + dashes > 0:
        table = _clp_table(path, encoding, lines, first, dashes)
    elif not any(d in lines[0] for d in DELIMITERS + '"') and len(lines[0].split()) >= 2:
        table = RawTable(path, "clp-x", None, encoding)
    else:
        table = _delimited(path, encoding, lines[0], known_columns)
    with closing(table.rows()) as rows:
        return replace(table, first=next(rows, None))


def _cut(line: str, spans: tuple) -> list[str]:
    return [line[a:b].strip() for a, b in spans]


def _clp_table(path: str, encoding: str, lines: list[str], first: int, dashes: int) -> RawTable:
    """The CLP's table: columns cut at the positions of the dash groups under the header."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[dashes])]
    spans[-1] = (spans[-1][0], None)  # the last column runs to the end of its line
    header_line = lines[dashes - 1] if dashes > 0 else ""  # a blank line before the dashes: no names
    header = tuple(column_name(h) for h in _cut(header_line, tuple(spans)))
    return RawTable(path, "clp", header, encoding, spans=tuple(spans), body_line=first + dashes + 1)


def _blank_separated(lines: Iterator[str]) -> Iterator[tuple[int, list[str]]]:
    for number, line in enumerate(lines, start=1):
        if line.strip() and not _FOOTER.match(line):
            yield number, line.split()


def _delimited_rows(
    path: str, encoding: str, delimiter: str, skip_header: bool = False
) -> Iterator[tuple[int, list[str]]]:
    """(line number, stripped fields) of the non-blank rows of a delimited file (after its header line)."""
    with open(path, encoding=encoding, newline="\n") as f:
        reader = csv.reader(f, delimiter=delimiter)
        try:
            for fields in reader:
                stripped = list(map(str.strip, fields))
                if not any(stripped):
                    continue
                if skip_header:
                    skip_header = False
                    continue
                yield reader.line_num, stripped
        except csv.Error as e:
            raise MonitorImportError(f"{path}:{reader.line_num}: not a valid delimited row ({e})") from None


def _delimited(path: str, encoding: str, first_line: str, known_columns: frozenset) -> RawTable:
    """A delimited file; its first row is a header when it names a known column."""
    delimiter = max(DELIMITERS, key=first_line.count)
    with closing(_delimited_rows(path, encoding, delimiter)) as rows:
        first = next(rows, None)
    if first is not None and _is_header(first[1], known_columns):
        return RawTable(path, "csv", tuple(column_name(f) for f in first[1]), encoding, delimiter=delimiter)
    return RawTable(path, "del", None, encoding, delimiter=delimiter)


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
