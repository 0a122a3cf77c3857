"""JSON that strict parsers read: no ``NaN`` or ``Infinity`` token, ever; ``null`` with a reason instead.

Python's :mod:`json` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats, which
RFC 8259 does not allow (``jq``, JavaScript's ``JSON.parse``, Go and most other parsers refuse the
whole document). Everything qrtune prints as JSON goes through :func:`dumps` or :func:`dump`:
a non-finite number becomes ``null``, and a document that is an object gains ``null_reasons``,
mapping the path of each such value (``stages[3].capacity``) to why it has no number
(``unbounded``: the stage has no limit; ``not a number``: undefined). Documents without
non-finite numbers are written by the C encoder unchanged.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable
from typing import IO, Any

NULL_REASONS = "null_reasons"
"""Key of the path -> reason object added to a document that had non-finite numbers."""


def _reason(value: float) -> str:
    if math.isnan(value):
        return "not a number (undefined for these settings)"
    return "unbounded (+infinity)" if value > 0 else "unbounded (-infinity)"


def _clean(data: Any, path: str, reasons: dict[str, str]) -> Any:
    """``data`` with every non-finite float replaced by None; ``reasons`` gets path -> reason."""
    if isinstance(data, numbers.Real) and not isinstance(data, int):  # float, numpy floats
        value = float(data)
        if math.isfinite(value):
            return data
        reasons[path or "$"] = _reason(value)
        return None
    if isinstance(data, dict):
        return {k: _clean(v, f"{path}.{k}" if path else str(k), reasons) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_clean(v, f"{path}[{i}]", reasons) for i, v in enumerate(data)]
    return data


def strict(data: Any) -> Any:
    """``data`` with no non-finite float left (see the module's description).

    Parameters
    ----------
    data : object
        JSON-able data (dicts, lists, tuples, str, int, float, bool, None; numpy floats are floats).

    Returns
    -------
    object
        A copy with ``null`` for each non-finite number; an object document also gets
        ``null_reasons`` (path -> reason) when any was replaced; a list document has each of its
        object items cleaned on its own (their paths start inside the item).
    """
    if isinstance(data, list | tuple):
        return [strict(item) if isinstance(item, dict) else _clean(item, "", {}) for item in data]
    reasons: dict[str, str] = {}
    clean = _clean(data, "", reasons)
    if reasons and isinstance(clean, dict):
        clean[NULL_REASONS] = {**clean.get(NULL_REASONS, {}), **reasons}
    return clean


def dumps(data: Any, **kwargs) -> str:
    """:func:`json.dumps` of :func:`strict` ``data`` (``kwargs`` as for :func:`json.dumps`)."""
    try:
        return json.dumps(data, allow_nan=False, **kwargs)  # the common case, in C
    except ValueError:
        return json.dumps(strict(data), allow_nan=False, **kwargs)


def dump(data: Any, stream: IO[str], **kwargs) -> None:
    """Write :func:`dumps` of ``data`` to ``stream``."""
    stream.write(dumps(data, **kwargs))


def dump_array(items: Iterable[Any], stream: IO[str], indent: int = 1) -> int:
    """Write the items one by one as a JSON array, as :func:`dump` of their list would (memory bounded).

    Each item goes through :func:`dumps` on its own, so a long listing is never held whole.
    Returns the number of items written.
    """
    pad = " " * indent
    count = 0
    for item in items:
        stream.write(",\n" if count else "[\n")
        stream.write(pad + dumps(item, indent=indent).replace("\n", "\n" + pad))
        count += 1
    stream.write("\n]" if count else "[]")
    return count


__all__ = ["NULL_REASONS", "dump", "dump_array", "dumps", "strict"]
