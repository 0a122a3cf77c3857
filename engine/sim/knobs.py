"""Knob values of a scenario for the simulation, read through :mod:`engine.settings`.

The simulation keeps no default of its own: a knob a scenario leaves out takes the product
default the registry declares for its scenario path (``qcapture.sleep_interval_ms`` ->
Q Capture SLEEP_INTERVAL, 500 ms), exactly as the steady-state engine and the validation do.
``tests/engine/sim/test_knob_defaults.py`` fails if a module of :mod:`engine.sim` reads a
knob with a default written in the module.
"""

from __future__ import annotations

from engine.registry.params import ParamSpec
from engine.settings import SettingsReader, spec_of

#: Scenario kind whose paths the simulation reads.
SCENARIO_KIND = "qrep"


def spec(path: str) -> ParamSpec:
    """The registry's description of the knob at scenario ``path`` (its IBM name, unit, range, default).

    Raises
    ------
    KeyError
        No registry knob has that scenario path (a programming error in the simulation).
    """
    return spec_of(SCENARIO_KIND, path)


def knob(settings: dict, path: str):
    """The value at dotted scenario ``path`` of ``settings``, checked, else the registry's product default.

    Parameters
    ----------
    settings : dict
        Scenario settings (``kind: qrep``).
    path : str
        A scenario path the registry declares (``"qapply.num_apply_agents"``).

    Raises
    ------
    KeyError
        No registry knob has that scenario path.
    ValueRangeError
        The value is outside the registry's range.
    """
    return SettingsReader(settings, SCENARIO_KIND).setting(path)
