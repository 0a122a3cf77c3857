"""The typed error hierarchy users see.

Every message names what is wrong, where (a field path such as
``nodes[2].params.trans_batch_sz``), the value found and what is allowed, so a
user can act on it without reading code.
"""

from __future__ import annotations

import json
import math
from typing import Any


class QrtuneError(Exception):
    """Base of every error qrtune reports to a user."""


class PartialWorkError(QrtuneError):
    """The work stopped part-way; what was finished is kept (the command exits 4, ``EXIT_PARTIAL``)."""


class InputFileError(QrtuneError):
    """An input file is missing, unreadable or not valid (the command exits 3, ``EXIT_INPUT``)."""


class OutputFileError(QrtuneError, OSError):
    """A file cannot be written; the previous file is unchanged (the command exits 3, ``EXIT_INPUT``).

    An :class:`OSError` too, so code that handles a failed write handles this one.

    Parameters
    ----------
    message : str
        The whole message: the file, why, and that the previous file is unchanged.
    reason : str
        Why alone (``No space left on device``), for a shorter message.
    """

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.reason = reason or message


class ProjectFileError(InputFileError):
    """A project file cannot be read: malformed JSON, wrong version or shape."""


class MalformedJsonError(ProjectFileError):
    """The file is not JSON; the message gives line and column."""


class FormatVersionError(ProjectFileError):
    """The ``format_version`` is missing, unknown or newer than this qrtune."""


class FieldError(QrtuneError):
    """A field holds a value that is not allowed.

    Parameters
    ----------
    path : str
        Dotted field path, e.g. ``nodes[1].params.batchsz``.
    value : Any
        The offending value.
    allowed : str
        What would be accepted, in words.
    """

    def __init__(self, path: str, value: Any, allowed: str):
        self.path = path
        self.value = value
        self.allowed = allowed
        super().__init__(f"{_cut(path)}: {_show(value)} is not allowed; expected {_cut(allowed, 600)}")


def require_nonnegative(path: str, value: Any, allowed: str) -> None:
    """Raise :class:`FieldError` (``path``, ``value``, ``allowed``) unless ``value`` is a finite number >= 0.

    A bool is not a number here.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise FieldError(path, value, allowed)


class ValueRangeError(FieldError, ValueError):
    """A parameter value is of the wrong type or out of its range."""


class UnknownKindError(FieldError):
    """A node names a kind the registry does not know."""


class UnknownParameterError(FieldError):
    """A node carries a parameter its kind does not have."""


class TopologyError(QrtuneError):
    """The topology breaks a connection rule or is incomplete."""


class IncompatibleLinkError(TopologyError):
    """A link joins two kinds that cannot be connected in that direction."""


class DuplicateLinkError(TopologyError):
    """The same two nodes are already linked."""


class DanglingLinkError(TopologyError, FieldError):
    """A link names a node id that does not exist."""

    def __init__(self, path: str, value: Any, allowed: str):
        FieldError.__init__(self, path, value, allowed)


class SendQueueReaderError(TopologyError, FieldError):
    """A Q Apply is linked straight from Q Capture's queue manager (no channel) but does not read the send queue."""

    def __init__(self, path: str, value: Any, allowed: str):
        FieldError.__init__(self, path, value, allowed)


class DuplicateIdError(TopologyError, FieldError):
    """Two nodes (or two links) share one id."""

    def __init__(self, path: str, value: Any, allowed: str):
        FieldError.__init__(self, path, value, allowed)


class ScenarioError(InputFileError):
    """A scenario file for ``qrtune evaluate`` cannot be read."""


class UnsupportedKindError(QrtuneError):
    """The engine cannot yet predict this scenario or project kind."""


def _show(value: Any) -> str:
    """``value`` as JSON (or repr), cut to 80 characters; a 1 MB value never makes a 1 MB message."""
    if isinstance(value, str) and len(value) > 80:
        value = value[:80]  # cut before encoding: the ellipsis below still marks the cut
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        try:
            text = repr(value)
        except ValueError:  # an integer over Python's 4,300-digit limit
            text = f"<{type(value).__name__} too large to show>"
    return _cut(text, 80)


def _cut(text: str, limit: int = 160) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Longest one-line error message shown (characters); a 1 MB node id must not give a 1 MB line.
MAX_MESSAGE_CHARS = 400


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` on one line, printable on any terminal, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    flat = flat.encode("utf-8", "backslashreplace").decode("utf-8")
    return _cut(flat, limit)
