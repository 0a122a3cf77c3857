"""What a project simulates over time: its load profile and its outage events.

The project file keeps them under ``simulation`` (``{"profile": {...}, "events": [...]}``), so the
window's forms, ``qrtune simulate`` and ``qrtune sweep --simulate`` run the same load and outages.
The profile is a document of :mod:`engine.load_profiles` (``constant``, ``steps``, ``bursts``,
``batch_window``; a CSV is imported as ``steps``); absent, the run offers the project's own
workload (the source's OFFERED_ROWS_PER_S, or the predicted capacity). Each event is an
:class:`engine.outage_events.Event` as plain data.

This module imports nothing heavy: the profile and event modules are imported only to check a
profile or an event (numpy), so reading a project without ``simulation`` stays light.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import FieldError

#: Most outage events a project's simulation holds.
MAX_EVENTS = 100
#: Most pieces a ``steps`` profile holds (a week of one-minute steps is 10,080).
MAX_STEPS = 20_000


@dataclass(frozen=True)
class SimulationSetup:
    """A project's load profile and outage events.

    Attributes
    ----------
    profile : Mapping or None
        A profile document (:func:`engine.load_profiles.from_dict`); None offers the project's
        own workload.
    events : tuple of Mapping
        Events as ``{"kind", "start_s", "duration_s", "factor"}`` (s; factor a speed fraction).
    """

    profile: Mapping | None = None
    events: tuple = ()

    def is_empty(self) -> bool:
        """True when the project sets neither a profile nor an event (the file has no ``simulation``)."""
        return self.profile is None and not self.events

    def to_dict(self) -> dict:
        """The project file's ``simulation`` object."""
        out: dict[str, Any] = {}
        if self.profile is not None:
            out["profile"] = dict(self.profile)
        if self.events:
            out["events"] = [dict(e) for e in self.events]
        return out

    def profile_model(self):
        """The :class:`engine.load_profiles.Profile` to simulate, or None (the project's workload)."""
        if self.profile is None:
            return None
        from engine import load_profiles as profiles

        return profiles.from_dict(dict(self.profile), "simulation.profile")

    def event_models(self) -> list:
        """The events as :class:`engine.outage_events.Event`, in start order."""
        from engine.outage_events import event_from_dict

        return [event_from_dict(dict(e), f"simulation.events[{i}]") for i, e in enumerate(self.events)]

    def event_texts(self) -> list[str]:
        """The events in the command line's form (``channel-stop@2m+20m``), in start order."""
        from engine.outage_events import event_text

        return [event_text(e) for e in self.event_models()]


def build_setup(raw: Any, path: str = "simulation") -> SimulationSetup:
    """Validate a project file's ``simulation`` object.

    Raises
    ------
    FieldError
        Not an object, an unknown key, a profile or event the simulator refuses (the message
        names the field), more than :data:`MAX_EVENTS` events or :data:`MAX_STEPS` steps.
    """
    if raw is None:
        return SimulationSetup()
    if not isinstance(raw, Mapping):
        raise FieldError(path, raw, "an object with a profile and events")
    unknown = set(raw) - {"profile", "events"}
    if unknown:
        raise FieldError(f"{path}.{sorted(unknown)[0]}", "...", "profile or events")
    profile = raw.get("profile")
    if profile is not None:
        profile = _checked_profile(profile, f"{path}.profile")
    events = raw.get("events", [])
    if not isinstance(events, list) or len(events) > MAX_EVENTS:
        raise FieldError(f"{path}.events", events, f"a list of at most {MAX_EVENTS} events")
    return SimulationSetup(
        profile, tuple(_checked_event(e, f"{path}.events[{i}]") for i, e in enumerate(events))
    )


def _checked_profile(doc: Any, path: str) -> dict:
    """``doc`` as stored once the simulator accepts it."""
    from engine import load_profiles as profiles

    if isinstance(doc, Mapping) and isinstance(doc.get("steps"), list) and len(doc["steps"]) > MAX_STEPS:
        raise FieldError(f"{path}.steps", f"{len(doc['steps'])} steps", f"at most {MAX_STEPS}")
    try:
        profiles.from_dict(dict(doc) if isinstance(doc, Mapping) else doc, path)
    except (TypeError, ValueError, OverflowError):
        raise FieldError(path, doc, "a load profile (constant, steps, bursts or batch_window)") from None
    return dict(doc)


def _checked_event(doc: Any, path: str) -> dict:
    """``doc`` as an event's plain data (every field, numbers as floats) once the simulator accepts it."""
    from engine.outage_events import event_from_dict

    try:
        event = event_from_dict(doc, path)
    except (TypeError, ValueError):
        raise FieldError(path, doc, "an event with kind, start_s, duration_s and factor") from None
    return event.to_json()
