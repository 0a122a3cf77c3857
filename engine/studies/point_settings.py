"""Scenario settings of a sweep's points from its base project's settings, without rebuilding each project.

A sweep point differs from the base project only in knob values. Which node supplies each
scenario path depends on the nodes and links, not on the values
(:func:`engine.scenario.scenario_and_knob_paths`), so a point's settings are the base settings
with each changed value written at the path its knob reaches: the same settings
:func:`engine.scenario.project_to_scenario` builds from the changed project (a test compares
the two for every knob of every sample), at a fraction of the cost. A change to a knob that is
part of a path (``role``) or of a flow's shape (``reads_send_queue``) rebuilds the project.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.model import Project
from engine.scenario import project_to_scenario, scenario_and_knob_paths, set_path
from engine.settings import copy_settings

#: Knobs whose value is part of other knobs' settings paths (``hardware.{role}_cores``), or of the flows'
#: shape (a Q Apply reading the send queue completes a flow without a channel).
PATH_KNOBS = frozenset({"role", "reads_send_queue"})


class PointSettings:
    """Settings of points of ``project`` changed by ``(node id, knob, value)`` edits.

    Parameters
    ----------
    project : Project
        The sweep's base project (complete).

    Raises
    ------
    TopologyError
        The project is not complete enough to predict.
    """

    def __init__(self, project: Project):
        self.project = project
        self.base, self.paths = scenario_and_knob_paths(project)

    def settings(self, changes: Sequence[tuple[str, str, Any]]) -> dict:
        """The scenario settings of the base project with ``changes`` applied.

        Each value is checked as :meth:`engine.model.Project.with_param` checks it.

        Raises
        ------
        FieldError
            A value the knob does not allow (the message names the node's knob and the range).
        """
        project = self.project
        for node_id, name, value in changes:
            project = project.with_param(node_id, name, value)
        if any(name in PATH_KNOBS for _, name, _ in changes):
            return project_to_scenario(project)
        out = copy_settings(self.base)
        for node_id, name, _ in changes:
            path = self.paths.get((node_id, name))
            if path is not None:
                set_path(out, path, project.node(node_id).params[name])
        return out
