"""Steady-state prediction of a project: the path every front end uses."""

from __future__ import annotations

from engine.model import Project
from engine.perf import Prediction, predict_settings
from engine.scenario import project_to_scenario


def predict_project(project: Project) -> Prediction:
    """Predict ``project`` at steady state.

    Raises
    ------
    TopologyError
        The topology is incomplete.
    UnsupportedKindError
        No engine exists for the project's topology.
    """
    from engine.bands import for_project

    return for_project(project, predict_settings(project_to_scenario(project)))
