"""Checking a batch of monitor rows and turning its stored fields into numbers, cell by cell.

A file is read in batches (:meth:`engine.monitor.formats.RawTable.batches`); each batch is
checked here: MONITOR_TIME must be a timestamp and the queue column filled, and each column an
import stores (:data:`engine.monitor.catalogue.STORED`, all numeric) must hold numbers. NULL is
an empty field, ``NULL``, ``-`` or ``?``; a NULL cell is not stored. The other columns are not
read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.io.csvcell import plain_text
from engine.monitor.catalogue import stored_columns
from engine.monitor.layouts import TableSpec
from engine.monitor.values import NULLS, parse_timestamp, to_float


def _floats(values: Sequence[str]) -> np.ndarray | None:
    """``values`` as finite floats in one numpy conversion; None when any is not a finite number."""
    try:
        out = np.asarray(values, dtype=np.float64)
    except ValueError:
        return None
    return out if np.isfinite(out).all() else None


_DIGIT_POSITIONS = {
    19: [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18],
    26: [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, *range(20, 26)],
}
"""Where a fixed-width timestamp has digits (``YYYY-MM-DD-HH.MM.SS[.ffffff]`` or the ISO form)."""


def _fixed_width_times(texts: Sequence) -> np.ndarray | None:
    """The usual timestamp forms parsed by numpy in one go; None when any text is not one of them."""
    widths = set(map(len, texts))
    width = widths.pop() if len(widths) == 1 else 0
    if width not in _DIGIT_POSITIONS:
        return None
    codes = np.array(texts, dtype=f"U{width}").view(np.uint32).reshape(-1, width).copy()
    digits = codes[:, _DIGIT_POSITIONS[width]]
    if not ((digits >= 48) & (digits <= 57)).all():
        return None
    at = {k: codes[:, k] for k in (4, 7, 10, 13, 16)}
    shape_ok = (at[4] == 45) & (at[7] == 45) & np.isin(at[10], (45, 84, 32))  # "-", "-", then "-", "T" or " "
    shape_ok &= ((at[13] == 46) & (at[16] == 46)) | ((at[13] == 58) & (at[16] == 58))  # "." or ":"
    if width == 26:
        shape_ok &= np.isin(codes[:, 19], (46, 44))  # "." or ","
    value = (digits - 48).astype(np.int64)
    hh, mm, ss = (
        value[:, 8] * 10 + value[:, 9],
        value[:, 10] * 10 + value[:, 11],
        value[:, 12] * 10 + value[:, 13],
    )
    if not (shape_ok & (hh < 24) & (mm < 60) & (ss < 60)).all():
        return None
    codes[:, 10], codes[:, 13], codes[:, 16] = 84, 58, 58
    if width == 26:
        codes[:, 19] = 46
    try:
        return codes.view(f"U{width}").ravel().astype("datetime64[us]")
    except ValueError:  # a day or month out of range: found value by value
        return None


def parse_timestamps(texts: list) -> np.ndarray:
    """:func:`parse_timestamp` of each text as ``datetime64[us]``; NaT where a text is not a timestamp."""
    fast = _fixed_width_times(texts)
    if fast is not None:
        return fast
    return np.array([parse_timestamp(t) for t in texts], dtype="datetime64[us]")


@dataclass(frozen=True)
class CheckedRows:
    """A batch's rows with a valid MONITOR_TIME and queue, column-wise.

    Attributes
    ----------
    line : numpy.ndarray
        Line in the file per row (int64).
    monitor_time : numpy.ndarray
        MONITOR_TIME per row (datetime64[us]).
    queue : list of str
        The queue column per row ("" for IBMQREP_CAPMON).
    fields : list of list of str
        The row's text fields.
    """

    line: np.ndarray
    monitor_time: np.ndarray
    queue: list
    fields: list

    def __len__(self) -> int:
        return len(self.fields)


def check_rows(path: str, raw_rows: list, names: tuple, table: TableSpec, max_errors: int):
    """The rows of a batch with a valid MONITOR_TIME and queue, and ``file:line: what`` per bad one.

    Returns
    -------
    (CheckedRows, list of str)
        At most ``max_errors`` errors.
    """
    errors: list[str] = []
    whole = [row for row in raw_rows if len(row[1]) == len(names)]
    if len(whole) < len(raw_rows):
        short = [(line, fields) for line, fields in raw_rows if len(fields) != len(names)]
        errors += [
            f"{path}:{line}: {len(fields)} fields but the header has {len(names)}"
            for line, fields in short[:max_errors]
        ]
    i_time = names.index("MONITOR_TIME")
    i_queue = names.index(table.queue_column) if table.queue_column else None
    times = parse_timestamps([fields[i_time] for _, fields in whole])
    queues = [fields[i_queue] for _, fields in whole] if i_queue is not None else [""] * len(whole)
    escaped = {q: plain_text(q) for q in set(queues) if q.startswith("'")}
    if escaped:  # a queue name qrtune's own CSV export escaped for spreadsheets
        queues = [escaped.get(q, q) for q in queues]
    bad = np.isnat(times)
    if i_queue is not None:
        bad |= np.fromiter((not q for q in queues), dtype=bool, count=len(queues))
    for k in np.flatnonzero(bad)[: max(0, max_errors - len(errors))]:
        line, fields = whole[k]
        if np.isnat(times[k]):
            errors.append(
                f"{path}:{line}: MONITOR_TIME {fields[i_time][:80]!r} is not a timestamp "
                "(expected YYYY-MM-DD-HH.MM.SS.ffffff or YYYY-MM-DD HH:MM:SS)"
            )
        else:
            errors.append(f"{path}:{line}: {table.queue_column} is empty")
    if bad.any():
        keep = np.flatnonzero(~bad)
        whole, times, queues = [whole[k] for k in keep], times[keep], [queues[k] for k in keep]
    lines = np.fromiter((line for line, _ in whole), dtype=np.int64, count=len(whole))
    return CheckedRows(lines, times, queues, [fields for _, fields in whole]), errors


def _numbers(
    path: str, name: str, raw: list, present: np.ndarray, lines: np.ndarray, errors: list, max_errors: int
):
    """A numeric column's present values; each value that is not a number is an error."""
    values = [v for v, p in zip(raw, present) if p]
    numbers = _floats(values)
    if numbers is not None:
        return numbers
    for k in np.flatnonzero(present):
        if to_float(raw[k]) is None and len(errors) < max_errors:
            errors.append(
                f"{path}:{lines[k]}: {name} {raw[k][:80]!r} is not a number (expected a finite number or NULL)"
            )
    return np.zeros(len(values))


def batch_cells(path: str, names: tuple, table: TableSpec, rows: CheckedRows, errors: list, max_errors: int):
    """A batch's stored cells column by column, as ``(column, row mask, values)``.

    Only the columns :func:`engine.monitor.catalogue.stored_columns` names are read; a value in
    one that is not a number is an error (one per bad value, up to ``max_errors``).
    """
    cells: list[tuple[str, np.ndarray, np.ndarray]] = []
    if not len(rows):
        return cells
    for name in stored_columns(table.name, names):
        if len(errors) >= max_errors:
            break
        i = names.index(name)
        raw = [fields[i] for fields in rows.fields]
        numbers = _floats(raw)
        if numbers is not None:
            cells.append((name, np.ones(len(raw), dtype=bool), numbers))
            continue
        present = np.fromiter((v.upper() not in NULLS for v in raw), dtype=bool, count=len(raw))
        cells.append((name, present, _numbers(path, name, raw, present, rows.line, errors, max_errors)))
    return cells
