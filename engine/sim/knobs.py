"""Knob values of a scenario for the simulation, defaults and ranges from :mod:`engine.registry`.

The simulation keeps no default of its own: a knob a scenario leaves out takes the product
default the registry declares for its scenario path (``qcapture.sleep_interval_ms`` ->
Q Capture SLEEP_INTERVAL, 500 ms), exactly as the steady-state engine and the validation do.
``tests/engine/sim/test_knob_defaults.py`` fails if a module of :mod:`engine.sim` reads a
knob with a default written in the module.
"""

from __future__ import annotations

from functools import lru_cache

from engine.registry import scenario_specs
from engine.registry.params import ParamSpec

#: Scenario kind whose paths the simulation reads.
SCENARIO_KIND = "qrep"


@lru_cache(maxsize=1)
def _specs_by_path() -> dict[str, ParamSpec]:
    """Every registry knob with a Q Replication scenario path, by that path."""
    return scenario_specs(SCENARIO_KIND)


def spec(path: str) -> ParamSpec:
    """The registry's description of the knob at scenario ``path`` (its IBM name, unit, range, default).

    Raises
    ------
    KeyError
        No registry knob has that scenario path (a programming error in the simulation).
    """
    return _specs_by_path()[path]


def setting(settings: dict, path: str):
    """The value at dotted ``path`` of ``settings``, or None (also for entries that are not knobs, e.g. ``run.mode``)."""
    cur = settings
    for part in path.split("."):
        if not isinstance(cur, dict) or cur.get(part) is None:
            return None
        cur = cur[part]
    return cur


def knob(settings: dict, path: str):
    """The value at dotted scenario ``path`` of ``settings``, else the registry's product default.

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
    """
    default = spec(path).default
    value = setting(settings, path)
    return default if value is None else value
