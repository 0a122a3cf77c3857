"""JSON merge patches (RFC 7396): a sweep point's settings stored as its difference from the sweep's base.

DuckDB's ``json_merge_patch`` applies the same patches, so the store's views expand them in SQL.
"""

from __future__ import annotations

from typing import Any

PATCH_KEY = "$patch"
"""Key of a stored settings document that is a patch against its sweep's base settings."""


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with ``patch`` applied (RFC 7396: objects merge, null deletes, anything else replaces)."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def make_patch(base: Any, target: Any) -> dict | None:
    """The merge patch that turns ``base`` into ``target``; None when no patch can (RFC 7396 cannot set a null).

    Parameters
    ----------
    base, target : dict
        Settings documents (JSON data).
    """
    if not isinstance(base, dict) or not isinstance(target, dict):
        return None
    patch: dict = {key: None for key in base if key not in target}
    for key, value in target.items():
        old = base.get(key, _MISSING)
        if old == value and (value is not None or key in base):
            continue
        if value is None:
            return None
        sub = make_patch(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        if sub is None:
            return None
        patch[key] = sub
    return patch


_MISSING = object()
