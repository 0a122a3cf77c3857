"""Where a run's numbers come from: the qrtune version, the project's content hash, canonical JSON, the time.

No DuckDB here: the report and the command line import these without opening a store.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any


def utc_now() -> datetime:
    """Now, in UTC, without tzinfo (DuckDB TIMESTAMP)."""
    return datetime.now(UTC).replace(tzinfo=None)


@lru_cache(maxsize=1)
def engine_version() -> str:
    """The installed qrtune version ("0+unknown" when not installed); read once per process
    (the package metadata lookup costs ~2 ms, once per recorded run otherwise)."""
    try:
        from importlib.metadata import version

        return version("qrtune")
    except Exception:  # noqa: BLE001 - pragma: no cover - running from a bare checkout
        return "0+unknown"


def canonical_json(data: Any) -> str:
    """JSON with sorted keys and no spaces: equal data gives equal text (and hash)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def project_model_dict(project) -> dict:
    """What a project's results depend on: topology, nodes (id, kind, params) and links.

    Names, labels, descriptions and canvas positions are left out, so moving a node
    or renaming the project keeps its hash.
    """
    return {
        "topology": project.topology,
        "nodes": [{"id": n.id, "kind": n.kind, "params": dict(n.params)} for n in project.nodes],
        "links": [[link.source, link.target] for link in project.links],
    }


def project_hash(project) -> str:
    """sha256 (hex) of :func:`project_model_dict` as canonical JSON."""
    return hashlib.sha256(canonical_json(project_model_dict(project)).encode()).hexdigest()


def error_text(exc: BaseException) -> str:
    """``TypeName: message`` on one line, for the ``error`` of a failed run."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
