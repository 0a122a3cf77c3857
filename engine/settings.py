"""Scenario settings: the one dotted-path get/set and the one reader every engine reads through.

Scenario settings are nested groups (``{"qcapture": {"commit_interval_ms": 500}}``) addressed by
dotted paths (``qcapture.commit_interval_ms``). :class:`SettingsReader` reads them for one scenario
kind with the registry's specs (:func:`engine.registry.scenario_specs`): a missing or null value is
the registry's product default, a value outside the registry's range or choices is refused with a
:class:`~engine.errors.ValueRangeError` naming the path, the value and what the registry allows.
The reader records every path it read; :func:`unused_settings` turns that into an engine's
``ignored``. No engine keeps a default or a range of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from engine.errors import ValueRangeError
from engine.registry import scenario_specs
from engine.registry.params import ParamSpec

#: Top-level scenario entries that are not settings (identity, notes and published measurements).
_NOT_SETTINGS = {"id", "source", "kind", "notes", "note", "measured", "measured_bottleneck", "topology"}
#: Registry types whose value is free text describing the set-up (a release, a note): no engine reads them.
_DESCRIPTIVE_TYPES = ("str",)


def get_path(doc: dict, path: str) -> Any:
    """Return ``doc``'s value at dotted ``path``.

    Raises
    ------
    KeyError
        A group or the entry on the path is absent.
    """
    cur: Any = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise KeyError(path)
        cur = cur[part]
    return cur


def lookup(doc: dict, path: str) -> Any:
    """``doc``'s value at dotted ``path``, or None when it is absent or null."""
    try:
        return get_path(doc, path)
    except KeyError:
        return None


def set_path(doc: dict, path: str, value: Any) -> None:
    """Set ``doc``'s value at dotted ``path``, creating groups on the way."""
    *groups, last = path.split(".")
    cur = doc
    for part in groups:
        cur = cur.setdefault(part, {})
    cur[last] = value


def copy_settings(doc: Any) -> Any:
    """A copy of settings ``doc`` whose groups (dicts) and lists are new and whose values are shared:
    what ``copy.deepcopy`` gives for settings (their values are immutable), several times faster."""
    if isinstance(doc, dict):
        return {k: copy_settings(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [copy_settings(v) for v in doc]
    return doc


def setting_paths(scenario: dict) -> list[str]:
    """Dotted paths of every setting leaf in a scenario (``measured``, ids and notes excluded)."""
    out: list[str] = []

    def walk(obj: Any, prefix: str) -> None:
        if isinstance(obj, dict) and not prefix.endswith("columns"):
            for k, v in obj.items():
                if not prefix and (k in _NOT_SETTINGS or k.startswith("measured")):
                    continue
                if k in ("note", "notes"):
                    continue
                walk(v, f"{prefix}.{k}" if prefix else k)
        else:
            out.append(prefix)

    walk(scenario, "")
    return out


def unused_settings(scenario: dict, used: Iterable[str], paths: Iterable[str] | None = None) -> list[str]:
    """Setting paths of ``scenario`` not in ``used``: what an engine reports as ``ignored``.

    ``paths``: :func:`setting_paths` of ``scenario`` when the caller has them already (one walk).
    """
    used = set(used)
    return sorted(p for p in (setting_paths(scenario) if paths is None else paths) if p not in used)


@lru_cache(maxsize=8)
def _specs(scenario_kind: str) -> dict[str, ParamSpec]:
    return scenario_specs(scenario_kind)


def spec_of(scenario_kind: str, path: str) -> ParamSpec:
    """The registry's spec of ``path`` in scenarios of ``scenario_kind``.

    Raises
    ------
    KeyError
        No registry knob has that path (a programming error in the engine).
    """
    return _specs(scenario_kind)[path]


def read_paths(scenario_kind: str) -> frozenset[str]:
    """The settings paths of ``scenario_kind`` that its engine reads: every registry path but free text
    describing the set-up (software releases, a network note)."""
    return frozenset(p for p, s in _specs(scenario_kind).items() if s.type not in _DESCRIPTIVE_TYPES)


def scaled_spec(spec: ParamSpec, per_unit: float, unit: str) -> ParamSpec:
    """``spec`` in another unit: one ``unit`` is ``per_unit`` of the spec's (ms of a µs spec: 1000)."""
    return dataclasses.replace(
        spec,
        default=None if spec.default is None else spec.default / per_unit,
        minimum=None if spec.minimum is None else spec.minimum / per_unit,
        maximum=None if spec.maximum is None else spec.maximum / per_unit,
        unit=unit,
        type="float",
    )


class SettingsReader:
    """Reads one scenario's settings with the registry's defaults and ranges, recording every path read.

    Parameters
    ----------
    settings : dict
        The scenario settings (nested groups).
    scenario_kind : str
        ``"qrep"``, ``"db2mirror"``, ``"mq-mover"`` or ``"db2-v8-storage"``: whose registry paths apply.

    Attributes
    ----------
    used : set of str
        Every dotted path read so far.
    """

    def __init__(self, settings: dict, scenario_kind: str):
        self.settings = settings
        self.kind = scenario_kind
        self.used: set[str] = set()
        self._specs = _specs(scenario_kind)

    def spec(self, path: str) -> ParamSpec:
        """The registry spec of ``path`` (KeyError: no such knob, a programming error)."""
        return self._specs[path]

    def knows(self, path: str) -> bool:
        """Whether the registry has a knob at ``path`` for this scenario kind."""
        return path in self._specs

    def raw(self, path: str) -> Any:
        """The value at ``path`` as written, or None when absent or null; no default, no check."""
        self.used.add(path)
        return lookup(self.settings, path)

    def value(self, path: str, spec: ParamSpec | None = None) -> Any:
        """The value at ``path`` checked against its registry ``spec``.

        A missing value is the registry default; an explicit null is None for a nullable knob
        (what the registry's ``null_meaning`` says) and the default for others. ``spec`` replaces
        the registry's for a setting spelled in another unit (:func:`scaled_spec`).

        Raises
        ------
        ValueRangeError
            The value's type, range or choice is not what the registry allows.
        """
        spec = spec or self.spec(path)
        self.used.add(path)
        try:
            value = get_path(self.settings, path)
        except KeyError:
            value = spec.default
        if value is None:
            if spec.nullable:
                return None
            value = spec.default
        if spec.type == "bool" and value in ("Y", "N", "y", "n"):
            return value in ("Y", "y")  # IBM's own spelling of a flag
        return spec.check(value, path)

    def setting(self, path: str) -> Any:
        """:meth:`value`, a null taking the registry default when the knob has one (None otherwise)."""
        value = self.value(path)
        return self.spec(path).default if value is None else value

    def number(self, path: str, spec: ParamSpec | None = None) -> float:
        """A numeric setting as a float (an ``int`` knob must still be whole); null is the default."""
        return float(self._present(path, self.value(path, spec), spec))

    def integer(self, path: str) -> int:
        """An ``int`` setting; null is the default."""
        return int(self._present(path, self.value(path)))

    def optional(self, path: str) -> float | None:
        """A nullable numeric setting as a float, or None when it is null (its registry null meaning)."""
        value = self.value(path)
        return None if value is None else float(value)

    def optional_integer(self, path: str) -> int | None:
        """A nullable ``int`` setting, or None when it is null."""
        value = self.value(path)
        return None if value is None else int(value)

    def flag(self, path: str) -> bool:
        """A ``bool`` setting (``true``/``false``, or IBM's ``Y``/``N``)."""
        return bool(self.value(path))

    def choice(self, path: str) -> Any:
        """An ``enum`` setting: one of the registry's choices."""
        return self.value(path)

    def _present(self, path: str, value: Any, spec: ParamSpec | None = None) -> Any:
        """``value``, or for a null the knob's default; refused when the knob has none."""
        spec = spec or self.spec(path)
        value = spec.default if value is None else value
        if value is None:  # a nullable knob without a default read as a number: the engine needs one
            raise ValueRangeError(path, value, spec.allowed())
        return value


def registry_defaults(scenario_kind: str) -> SettingsReader:
    """A reader over no settings: every value it gives is the registry's default."""
    return SettingsReader({}, scenario_kind)


__all__ = [
    "SettingsReader",
    "get_path",
    "lookup",
    "read_paths",
    "registry_defaults",
    "scaled_spec",
    "set_path",
    "setting_paths",
    "spec_of",
    "unused_settings",
]
