"""The node-kind and parameter registry: the one declarative description of every knob."""

from engine.registry.kinds import KINDS, NodeKind
from engine.registry.params import ParamSpec

__all__ = ["KINDS", "NodeKind", "ParamSpec", "kind"]


def kind(kind_id: str) -> NodeKind:
    """Return the node kind ``kind_id``.

    Raises
    ------
    KeyError
        If no kind has that id.
    """
    return KINDS[kind_id]
