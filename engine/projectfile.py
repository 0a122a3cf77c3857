"""Project files: JSON with an integer ``format_version``.

Load is parse -> migrate -> build. Migrations are pure functions on plain
dicts registered with :func:`migrates`; an unknown or newer version is a clear
error. Save is atomic (:mod:`engine.io.atomicfile`): a temporary file in the same folder, fsync, rename,
with the user's umask or the existing file's permissions.

Format history
--------------
1. ``nodes[].type``, ``nodes[].x``/``y``, ``nodes[].settings``; ``links[].from``/``to``
   without ids.
2. ``nodes[].kind``, ``nodes[].position``, ``nodes[].params``; links with stable
   ``id``, ``source``, ``target``; a ``description``.
3. A queue manager's ``run_mode`` (steady, drain, catch-up) says what a run measures; in version 2
   any ``initial_depth_msgs`` above 0 made the run a drain, so such files become ``run_mode`` drain.
4. An optional ``simulation`` object holds the load profile and outage events the project is
   simulated with (:mod:`engine.simulation_setup`); a file without it offers its own workload.
   Version-3 files written by the qrtune that introduced the Simulation tab's forms, before this
   version existed, may already carry one: it is kept as it is (the shape did not change).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from engine.errors import FieldError, FormatVersionError, MalformedJsonError, ProjectFileError
from engine.io import jsonfile
from engine.io.atomicfile import atomic_write_text
from engine.model import Project, build_project, to_dict

FORMAT_VERSION = 4
_MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


def migrates(from_version: int, to_version: int):
    """Register a pure migration from ``from_version`` to ``to_version`` (= from + 1)."""
    if to_version != from_version + 1:
        raise ValueError("a migration moves exactly one version")

    def register(fn: Callable[[dict], dict]) -> Callable[[dict], dict]:
        _MIGRATIONS[from_version] = fn
        return fn

    return register


@migrates(1, 2)
def _v1_to_v2(data: dict) -> dict:
    out = {k: v for k, v in data.items() if k not in ("nodes", "links")}
    out["description"] = data.get("description", "")
    nodes = []
    for i, n in enumerate(_list(data, "nodes")):
        if not isinstance(n, dict):
            raise FieldError(f"nodes[{i}]", n, "an object with id, type, x, y and settings")
        nodes.append(
            {
                "id": n.get("id"),
                "kind": n.get("type"),
                "label": n.get("label", n.get("id")),
                "position": [n.get("x", 0.0), n.get("y", 0.0)],
                "params": n.get("settings", {}),
            }
        )
    links = []
    for i, link in enumerate(_list(data, "links")):
        if not isinstance(link, dict):
            raise FieldError(f"links[{i}]", link, "an object with from and to")
        links.append({"id": f"link-{i + 1}", "source": link.get("from"), "target": link.get("to")})
    out["nodes"], out["links"] = nodes, links
    return out


@migrates(2, 3)
def _v2_to_v3(data: dict) -> dict:
    queue_managers = [
        n for n in _list(data, "nodes") if isinstance(n, dict) and n.get("kind") == "queue_manager"
    ]
    depths = [_depth_msgs(n) for n in queue_managers]
    if not depths or max(depths) <= 0 or any("run_mode" in (n.get("params") or {}) for n in queue_managers):
        return data
    out = dict(data)
    out["nodes"] = [_as_drain(n, max(depths)) if n in queue_managers else n for n in _list(data, "nodes")]
    return out


@migrates(3, 4)
def _v3_to_v4(data: dict) -> dict:
    """Version 4 names the optional ``simulation`` object; a version-3 file keeps its own, if any."""
    return dict(data)


def _depth_msgs(node: dict) -> float:
    """A version-2 queue manager's ``initial_depth_msgs`` (0 when absent or not a number)."""
    value = (node.get("params") or {}).get("initial_depth_msgs", 0)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _as_drain(node: dict, depth_msgs: float) -> dict:
    """``node`` with ``run_mode`` drain and the flow's pre-loaded depth (version 2 took the largest)."""
    params = node.get("params") if isinstance(node.get("params"), dict) else {}
    return {**node, "params": {**params, "run_mode": "drain", "initial_depth_msgs": depth_msgs}}


def _list(data: dict, key: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise FieldError(key, value, "a list")
    return value


#: The JSON type of each field a project file may hold, by format version; checked where the file
#: is read, before any migration touches it (versions 2 to 4 share node and link fields).
_NUMBER = (int, float)
_TOP_FIELDS: dict[str, Any] = {
    "name": str,
    "description": str,
    "nodes": list,
    "links": list,
    "simulation": dict,
}
_NODE_FIELDS: dict[int, dict[str, Any]] = {
    1: {"id": str, "type": str, "label": str, "x": _NUMBER, "y": _NUMBER, "settings": dict},
    2: {"id": str, "kind": str, "label": str, "position": list, "params": dict},
}
_LINK_FIELDS: dict[int, dict[str, Any]] = {
    1: {"from": str, "to": str},
    2: {"id": str, "source": str, "target": str},
}
_TYPE_WORDS: dict[Any, str] = {str: "a text string", list: "a list", dict: "an object", _NUMBER: "a number"}


def _check_fields(path: str, value: Any, fields: dict) -> None:
    """Raise :class:`FieldError` unless ``value`` is an object whose present ``fields`` have their types."""
    if not isinstance(value, dict):
        raise FieldError(path, value, "an object")
    for name, kind in fields.items():
        if name in value:
            item = value[name]
            if isinstance(item, bool) or not isinstance(item, kind):
                raise FieldError(f"{path}.{name}" if path else name, item, _TYPE_WORDS[kind])


def check_shape(data: dict, version: int) -> None:
    """Check that every field of a version-``version`` project file has the JSON type it must have.

    Objects, lists, numbers and strings are told apart here, for every format version, so no
    migration or builder meets a number where it expects an object (a format-2 project whose
    ``queue_manager.params`` was ``5`` once crashed every command).

    Raises
    ------
    FieldError
        Naming the field path (``nodes[2].params``), the value and the type expected.
    """
    _check_fields("", data, _TOP_FIELDS)
    shape = 1 if version == 1 else 2
    for i, node in enumerate(data.get("nodes", [])):
        _check_fields(f"nodes[{i}]", node, _NODE_FIELDS[shape])
    for i, link in enumerate(data.get("links", [])):
        _check_fields(f"links[{i}]", link, _LINK_FIELDS[shape])


def migrate(data: Any) -> dict:
    """Bring plain project data to :data:`FORMAT_VERSION`.

    Raises
    ------
    FormatVersionError
        ``format_version`` missing, not an integer, unknown or newer than this qrtune.
    FieldError
        A field of the wrong JSON type (:func:`check_shape`).
    """
    if not isinstance(data, dict):
        raise FieldError("(top level)", data, "a JSON object")
    version = data.get("format_version")
    if version is None:
        raise FormatVersionError(f"format_version: missing; expected an integer from 1 to {FORMAT_VERSION}")
    if not isinstance(version, int) or isinstance(version, bool):
        raise FormatVersionError(
            f"format_version: {json.dumps(version)} is not an integer; expected 1 to {FORMAT_VERSION}"
        )
    if version > FORMAT_VERSION:
        raise FormatVersionError(
            f"format_version: {version} is newer than this qrtune understands (1 to {FORMAT_VERSION}); "
            "update qrtune to open it"
        )
    if version < 1:
        raise FormatVersionError(f"format_version: {version} is unknown; expected 1 to {FORMAT_VERSION}")
    check_shape(data, version)
    while version < FORMAT_VERSION:
        data = _MIGRATIONS[version](data)
        version += 1
        data["format_version"] = version
    return data


def loads(text: str, source: str = "<text>") -> Project:
    """Parse, migrate and build a project from JSON text.

    Raises
    ------
    MalformedJsonError
        The text is not JSON (message gives line and column), nests deeper than
        :data:`engine.io.jsonfile.MAX_DEPTH`, holds NaN, infinities, over-long integers or
        text that is not valid Unicode.
    FormatVersionError, FieldError, TopologyError
        See :func:`migrate` and :func:`engine.model.build_project`.
    """
    return build_project(migrate(jsonfile.parse_json(text, source, MalformedJsonError)))


def load(path: str | os.PathLike) -> Project:
    """Read a project file; errors as :func:`loads`, plus ProjectFileError when unreadable or too large."""
    data = jsonfile.read_bytes(path, ProjectFileError)
    return loads(jsonfile.decode_utf8(data, str(path), MalformedJsonError), str(path))


def dumps(project: Project) -> str:
    """The project as JSON text of the current format.

    Raises
    ------
    ProjectFileError
        A value is NaN or infinite (validation refuses them; this keeps one from ever
        reaching a file, where no JSON reader could take it back).
    """
    data = {"format_version": FORMAT_VERSION, **to_dict(project)}
    try:
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    except ValueError as e:
        raise ProjectFileError(
            f"{project.name[:80]!r} cannot be written: {e} (NaN and infinities are not values)"
        ) from None


def save(project: Project, path: str | os.PathLike) -> None:
    """Save ``project`` atomically to ``path`` in the current format."""
    atomic_write_text(path, dumps(project))
