"""The project model: nodes with parameters, links between them, a topology type.

Objects here are immutable and always valid: :func:`build_project` is the one
boundary where plain data (a parsed project file, a scenario, a GUI edit)
becomes a :class:`Project`, and it raises a typed error naming the field path,
the value and what is allowed. Edits return new projects
(:meth:`Project.with_param`, :meth:`Project.with_node`, ...), so an undo stack
or a sweep can keep every version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.errors import (
    DanglingLinkError,
    DuplicateIdError,
    DuplicateLinkError,
    FieldError,
    IncompatibleLinkError,
    TopologyError,
    UnknownKindError,
    UnknownParameterError,
)
from engine.registry import KINDS
from engine.simulation_setup import SimulationSetup, build_setup

if TYPE_CHECKING:  # networkx is imported by graph() only: most commands never need it (0.1 s)
    import networkx as nx

TOPOLOGIES = (
    "unidirectional",
    "bidirectional",
    "peer-to-peer",
    "db2-mirror-pair",
    "mq-mover",
    "db2-v8-migration",
)
#: Most nodes and links a project holds (the largest sample has 14 nodes); checked before any node is built.
MAX_NODES = 1000
MAX_LINKS = 5000
#: Longest node or link id, label and project name (characters), and longest description.
MAX_ID_CHARS = 200
MAX_DESCRIPTION_CHARS = 10_000
#: Largest canvas coordinate (either sign) a node may sit at.
MAX_POSITION = 1e7


@dataclass(frozen=True)
class Node:
    """One node: a stable id, its kind, a label, a canvas position and its parameters."""

    id: str
    kind: str
    label: str
    x: float = 0.0
    y: float = 0.0
    params: Mapping[str, Any] = field(default_factory=dict)

    def param(self, name: str) -> Any:
        """Return the value of parameter ``name`` (always present after validation)."""
        return self.params[name]


@dataclass(frozen=True)
class Link:
    """A directed link from ``source`` to ``target`` node ids."""

    id: str
    source: str
    target: str


@dataclass(frozen=True)
class Project:
    """A validated project: name, topology type, nodes and links (tuples, in file order), and what
    it simulates over time (its load profile and outage events)."""

    name: str
    topology: str
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    description: str = ""
    simulation: SimulationSetup = field(default_factory=SimulationSetup)

    # -- lookup -----------------------------------------------------------------
    def node(self, node_id: str) -> Node:
        """Return the node with id ``node_id``; raises KeyError if absent."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def nodes_of(self, kind_id: str) -> list[Node]:
        """Nodes of one kind, in file order."""
        return [n for n in self.nodes if n.kind == kind_id]

    def graph(self) -> nx.DiGraph:
        """The topology as a networkx DiGraph; node attributes ``kind``, ``label``, ``params``."""
        import networkx as nx

        g = nx.DiGraph(name=self.name, topology=self.topology)
        for n in self.nodes:
            g.add_node(n.id, kind=n.kind, label=n.label, params=dict(n.params))
        for link in self.links:
            g.add_edge(link.source, link.target, id=link.id)
        return g

    # -- edits (each returns a new, validated project) ----------------------------
    def with_param(self, node_id: str, name: str, value: Any) -> Project:
        """Return a copy with one parameter changed; raises FieldError if not allowed."""
        idx = self._index(node_id)
        node = self.nodes[idx]
        spec = _spec(node.kind, name, f"nodes[{idx}].params.{name}")
        checked = spec.check(value, f"nodes[{idx}].params.{name}")
        params = dict(node.params)
        params[name] = checked
        nodes = list(self.nodes)
        nodes[idx] = replace(node, params=params)
        return replace(self, nodes=tuple(nodes))

    def with_node(self, node: Node) -> Project:
        """Return a copy with ``node`` added (or replaced when its id exists), validated."""
        nodes = [n for n in self.nodes if n.id != node.id] + [node]
        return build_project(to_dict(replace(self, nodes=tuple(nodes))))

    def without_node(self, node_id: str) -> Project:
        """Return a copy without the node and without the links touching it."""
        nodes = tuple(n for n in self.nodes if n.id != node_id)
        links = tuple(link for link in self.links if node_id not in (link.source, link.target))
        return replace(self, nodes=nodes, links=links)

    def with_link(self, source: str, target: str, link_id: str | None = None) -> Project:
        """Return a copy with a link added; raises a TopologyError the canvas shows as is."""
        link = Link(link_id or self.next_link_id(), source, target)
        check_link(self, link, f"links[{len(self.links)}]")
        return replace(self, links=self.links + (link,))

    def without_link(self, link_id: str) -> Project:
        """Return a copy without the link ``link_id``."""
        return replace(self, links=tuple(link for link in self.links if link.id != link_id))

    def next_node_id(self, kind_id: str) -> str:
        """A fresh stable id for a new node of ``kind_id`` (``qapply-2``)."""
        used = {n.id for n in self.nodes}
        i = 1
        while f"{kind_id}-{i}" in used:
            i += 1
        return f"{kind_id}-{i}"

    def next_link_id(self) -> str:
        """A fresh stable link id (``link-7``)."""
        used = {link.id for link in self.links}
        i = 1
        while f"link-{i}" in used:
            i += 1
        return f"link-{i}"

    def _index(self, node_id: str) -> int:
        for i, n in enumerate(self.nodes):
            if n.id == node_id:
                return i
        raise KeyError(node_id)


def _spec(kind_id: str, name: str, path: str):
    try:
        return KINDS[kind_id].param(name)
    except KeyError:
        allowed = ", ".join(p.name for p in KINDS[kind_id].params)
        raise UnknownParameterError(path, name, f"a parameter of {kind_id}: {allowed}") from None


def _require(data: Mapping, key: str, path: str, types: tuple, allowed: str) -> Any:
    if key not in data:
        raise FieldError(f"{path}{key}", None, f"{allowed} (the field is missing)")
    value = data[key]
    if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
        raise FieldError(f"{path}{key}", value, allowed)
    return value


def _text(
    data: Mapping,
    key: str,
    path: str,
    default: str | None = None,
    limit: int = MAX_ID_CHARS,
    empty: bool = True,
) -> str:
    """A text field of at most ``limit`` characters (``default`` when absent, else required)."""
    what = f"{'non-empty ' if not empty else ''}text of at most {limit} characters"
    value = _require(data, key, path, (str,), what) if default is None or key in data else default
    if not isinstance(value, str) or len(value) > limit or (not empty and not value):
        raise FieldError(f"{path}{key}", value, what)
    return value


def _position(raw: Mapping, path: str) -> tuple[float, float]:
    pos = raw.get("position", [0.0, 0.0])
    allowed = f"a pair of numbers [x, y] from -{MAX_POSITION:g} to {MAX_POSITION:g}"
    if (
        not isinstance(pos, (list, tuple))
        or len(pos) != 2
        or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and -MAX_POSITION <= v <= MAX_POSITION
            for v in pos
        )
    ):
        raise FieldError(f"{path}.position", pos, allowed)
    return float(pos[0]), float(pos[1])


def _build_node(raw: Any, i: int) -> Node:
    path = f"nodes[{i}]"
    if not isinstance(raw, dict):
        raise FieldError(path, raw, "an object with id, kind, label, position and params")
    node_id = _text(raw, "id", f"{path}.", empty=False)
    kind_id = _require(raw, "kind", f"{path}.", (str,), "a node kind id")
    if kind_id not in KINDS:
        raise UnknownKindError(f"{path}.kind", kind_id, "one of " + ", ".join(KINDS))
    label = _text(raw, "label", f"{path}.", default=KINDS[kind_id].name)
    x, y = _position(raw, path)
    raw_params = raw.get("params", {})
    if not isinstance(raw_params, dict):
        raise FieldError(f"{path}.params", raw_params, "an object of parameter values")
    params = KINDS[kind_id].defaults()
    for name, value in raw_params.items():
        spec = _spec(kind_id, name, f"{path}.params.{name}")
        params[name] = spec.check(value, f"{path}.params.{name}")
    return Node(node_id, kind_id, label, x, y, params)


def check_link(project: Project, link: Link, path: str) -> None:
    """Apply the connection rules to one link about to join ``project``.

    Raises
    ------
    DanglingLinkError
        An end names no node.
    IncompatibleLinkError
        The kinds cannot be linked in that direction, or a node links to itself.
    DuplicateLinkError
        The two nodes are already linked in that direction.
    """
    others = {(o.source, o.target): o.id for o in project.links if o.id != link.id}
    _check_link({n.id: n for n in project.nodes}, others, link, path)


def _check_link(nodes: Mapping[str, Node], linked: Mapping[tuple, str], link: Link, path: str) -> None:
    """:func:`check_link` against a node index and the ``(source, target) -> link id`` pairs linked so far."""
    for end in ("source", "target"):
        node_id = getattr(link, end)
        if node_id not in nodes:
            ids = ", ".join(list(nodes)[:20]) + (", ..." if len(nodes) > 20 else "")
            raise DanglingLinkError(f"{path}.{end}", node_id, "the id of a node: " + ids)
    a, b = nodes[link.source], nodes[link.target]
    if a.id == b.id:
        raise IncompatibleLinkError(f"{a.label} cannot be linked to itself.")
    allowed = KINDS[a.kind].links_to
    if b.kind not in allowed:
        targets = ", ".join(KINDS[k].name for k in allowed) or "nothing (it is the end of a flow)"
        raise IncompatibleLinkError(
            f"{KINDS[a.kind].name} '{a.label}' cannot feed {KINDS[b.kind].name} '{b.label}'; "
            f"it can feed: {targets}."
        )
    other = linked.get((link.source, link.target))
    if other is not None:
        raise DuplicateLinkError(f"'{a.label}' is already linked to '{b.label}' ({other}).")


def build_project(data: Mapping) -> Project:
    """Validate plain data of the current format and build a :class:`Project`.

    Parameters
    ----------
    data : Mapping
        The current format's fields: ``name``, ``topology``, ``nodes``, ``links``
        and optionally ``description`` and ``simulation``
        (:func:`engine.simulation_setup.build_setup`; ``format_version`` is ignored here; see
        :mod:`engine.projectfile` for migration).

    Raises
    ------
    FieldError
        Wrong type, unknown kind or parameter, out-of-range value (NaN never is in
        range), duplicate id, a dangling link, more than :data:`MAX_NODES` nodes or
        :data:`MAX_LINKS` links, or text longer than :data:`MAX_ID_CHARS`
        (:data:`MAX_DESCRIPTION_CHARS` for the description); the message names the field path.
    TopologyError
        A link breaks a connection rule.

    Notes
    -----
    Linear in nodes plus links: every node and link is checked once against indexes.
    """
    if not isinstance(data, Mapping):
        raise FieldError("(top level)", data, "an object")
    name = _text(data, "name", "")
    topology = _require(data, "topology", "", (str,), "one of " + ", ".join(TOPOLOGIES))
    if topology not in TOPOLOGIES:
        raise FieldError("topology", topology, "one of " + ", ".join(TOPOLOGIES))
    description = _text(data, "description", "", default="", limit=MAX_DESCRIPTION_CHARS)
    raw_nodes = _require(data, "nodes", "", (list,), "a list of nodes")
    raw_links = _require(data, "links", "", (list,), "a list of links")
    if len(raw_nodes) > MAX_NODES or len(raw_links) > MAX_LINKS:
        raise FieldError(
            "nodes" if len(raw_nodes) > MAX_NODES else "links",
            f"{len(raw_nodes)} nodes, {len(raw_links)} links",
            f"at most {MAX_NODES} nodes and {MAX_LINKS} links",
        )
    nodes: dict[str, Node] = {}
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_nodes):
        node = _build_node(raw, i)
        if node.id in seen:
            raise DuplicateIdError(
                f"nodes[{i}].id", node.id, f"an id not used before (nodes[{seen[node.id]}])"
            )
        seen[node.id] = i
        nodes[node.id] = node
    links: list[Link] = []
    link_ids: set[str] = set()
    linked: dict[tuple, str] = {}
    for i, raw in enumerate(raw_links):
        path = f"links[{i}]"
        if not isinstance(raw, dict):
            raise FieldError(path, raw, "an object with id, source and target")
        link = Link(*(_text(raw, key, f"{path}.") for key in ("id", "source", "target")))
        if link.id in link_ids:
            raise DuplicateIdError(f"{path}.id", link.id, "a link id not used before")
        _check_link(nodes, linked, link, path)
        link_ids.add(link.id)
        linked[(link.source, link.target)] = link.id
        links.append(link)
    simulation = build_setup(data.get("simulation"))
    return Project(name, topology, tuple(nodes.values()), tuple(links), description, simulation)


def to_dict(project: Project) -> dict:
    """The current format's plain data for ``project`` (without ``format_version``; ``simulation``
    only when the project sets a load profile or events, so other files read as before)."""
    simulation = {} if project.simulation.is_empty() else {"simulation": project.simulation.to_dict()}
    return {
        "name": project.name,
        "topology": project.topology,
        "description": project.description,
        "nodes": [
            {"id": n.id, "kind": n.kind, "label": n.label, "position": [n.x, n.y], "params": dict(n.params)}
            for n in project.nodes
        ],
        "links": [{"id": link.id, "source": link.source, "target": link.target} for link in project.links],
        **simulation,
    }


__all__ = ["Node", "Link", "Project", "TOPOLOGIES", "TopologyError", "build_project", "check_link", "to_dict"]
