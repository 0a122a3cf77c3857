"""Steady-state prediction: the path every front end (CLI, workbench, sweeps, simulator) uses.

A project becomes a scenario (:func:`engine.scenario.project_to_scenario`), the engine of its
kind predicts it (:func:`engine.perf.predictor`), the prediction bands are attached
(:func:`engine.bands.attach_bands`) and widened where the project models a V8 migration
(:func:`engine.bands.for_project`).
"""

from __future__ import annotations

from engine.bands import attach_bands, for_project
from engine.model import Project
from engine.perf import Prediction, predictor
from engine.scenario import project_to_scenario, scenario_and_unread_params

__all__ = ["for_project", "predict_project", "predict_settings", "project_to_scenario"]


def predict_settings(settings: dict) -> Prediction:
    """Predict one scenario's settings with the engine of its kind, with prediction bands.

    Raises
    ------
    UnsupportedKindError
        No engine exists for ``settings["kind"]``.
    FieldError
        A setting is out of the engine's range.
    """
    return attach_bands(predictor(settings.get("kind", ""))(settings))


def predict_project(project: Project) -> Prediction:
    """Predict ``project`` at steady state, with its bands.

    Knobs of nodes the scenario does not read (:func:`engine.scenario.unread_params`, found in the same
    pass that builds the scenario) are added
    to the prediction's ``ignored`` as ``"<node id>.<param>"`` with the reason.

    Raises
    ------
    TopologyError
        The topology is incomplete.
    UnsupportedKindError
        No engine exists for the project's topology.
    """
    settings, unread = scenario_and_unread_params(project)
    p = predict_settings(settings)
    if unread:
        # knobs of nodes the scenario does not read from (the second flow of a two-way project)
        p = p.also_ignoring(unread)
    return for_project(project, p)
