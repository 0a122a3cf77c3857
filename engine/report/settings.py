"""The settings table of a report: every knob with IBM's name, its value and a changed-from-default mark.

Rows come from the registry (:mod:`engine.registry`) only: from a project's nodes
when the project is known, otherwise from the scenario settings through each
knob's ``scenario_paths``, so a run read back from the store gets the same table.
"""

from __future__ import annotations

from typing import Any

from engine.metrics.catalog import format_setting
from engine.registry import KINDS
from engine.report.model import SettingRow
from engine.settings import get_path


def _same(value: Any, default: Any) -> bool:
    if isinstance(value, bool) != isinstance(default, bool):
        return False
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return list(value) == list(default)
    return value == default


def _row(node_label: str, spec, value: Any) -> SettingRow:
    return SettingRow(
        node_label,
        spec.label,
        format_setting(value),
        format_setting(spec.default),
        spec.unit,
        not _same(value, spec.default),
    )


def rows_from_project(project) -> tuple[SettingRow, ...]:
    """One row per knob of every node of ``project``, in node then registry order."""
    rows = []
    for node in project.nodes:
        for spec in KINDS[node.kind].params:
            rows.append(_row(node.label, spec, node.params.get(spec.name, spec.default)))
    return tuple(rows)


def rows_from_settings(settings: dict, scenario_kind: str) -> tuple[SettingRow, ...]:
    """Rows for the knobs whose ``scenario_paths`` the settings hold (no project at hand).

    A path shared by several nodes (both queue managers) gives one row; a ``{role}``
    path gives one row per role present.
    """
    rows, seen = [], set()
    for kind in KINDS.values():
        for spec in kind.params:
            template = spec.scenario_paths.get(scenario_kind)
            if not template:
                continue
            for role in ("source", "target") if "{role}" in template else ("",):
                path = template.replace("{role}", role)
                if path in seen:
                    continue
                try:
                    value = get_path(settings, path)
                except KeyError:
                    continue
                seen.add(path)
                node = f"{kind.name} ({role})" if role else kind.name
                rows.append(_row(node, spec, value))
    return tuple(rows)
