"""The open project as a Qt document: the only thing that changes the model.

:class:`Document` holds the immutable engine :class:`~engine.model.Project`
and one :class:`QUndoStack`. Every user edit computes the next project with the
model's own edit methods (which validate and raise typed errors), then pushes a
:class:`ProjectCommand` holding the project before and after. Undo and redo swap
whole immutable snapshots, so they can never drift from what the model allows.
"modified" is ``not undo_stack.isClean()``.

Views listen to :attr:`Document.project_changed` ``(old, new)`` and diff the two
snapshots; nothing is copied from a view back into the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from engine import projectfile
from engine.errors import FieldError
from engine.model import Node, Project
from engine.registry import KINDS
from engine.simulation_setup import SimulationSetup, build_setup

#: Command id of node moves, so successive drags of the same nodes merge into one undo step.
MOVE_COMMAND_ID = 1001


class ProjectCommand(QUndoCommand):
    """One undoable edit: the project before and after.

    Parameters
    ----------
    document : Document
        The document whose project the command swaps.
    before, after : Project
        Validated snapshots.
    text : str
        What the Edit menu shows ("Set TRANS_BATCH_SZ = 3").
    merge_key : tuple, optional
        Successive commands with the same non-empty key merge (node moves).
    """

    def __init__(self, document: Document, before: Project, after: Project, text: str, merge_key: tuple = ()):
        super().__init__(text)
        self.document = document
        self.before = before
        self.after = after
        self.merge_key = merge_key

    def redo(self) -> None:
        self.document._set_project(self.after)

    def undo(self) -> None:
        self.document._set_project(self.before)

    def id(self) -> int:
        return MOVE_COMMAND_ID if self.merge_key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, ProjectCommand) or not self.merge_key or other.merge_key != self.merge_key:
            return False
        self.after = other.after
        return True


class Document(QObject):
    """The open project, its file path and its undo stack.

    Signals
    -------
    project_changed(object, object)
        ``(old, new)`` projects after any edit, undo, redo, open or new.
    path_changed(str)
        The file path changed (save as, open); empty for an unsaved project.
    modified_changed(bool)
        The project differs from the last saved (or opened) state.
    """

    project_changed = Signal(object, object)
    path_changed = Signal(str)
    modified_changed = Signal(bool)

    def __init__(self, project: Project, path: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._project = project
        self._path = path or ""
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)

    def _clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(not clean)

    # -- state ------------------------------------------------------------------------
    @property
    def project(self) -> Project:
        """The current, validated project snapshot."""
        return self._project

    @property
    def path(self) -> str:
        """The project file path, or "" when never saved."""
        return self._path

    def is_modified(self) -> bool:
        """True when there are edits since the last save or open."""
        return not self.undo_stack.isClean()

    def _set_project(self, project: Project) -> None:
        old = self._project
        if project is old:
            return
        self._project = project
        self.project_changed.emit(old, project)

    def reset(self, project: Project, path: str | None = None) -> None:
        """Replace the project without undo history (new, open, recovery)."""
        self.undo_stack.clear()
        old = self._project
        self._project = project
        self._path = path or ""
        self.path_changed.emit(self._path)
        self.project_changed.emit(old, project)
        self.undo_stack.setClean()
        self.modified_changed.emit(False)

    def saved_project(self) -> Project | None:
        """The project as last saved or opened (None when that state is no longer on the undo stack)."""
        clean = self.undo_stack.cleanIndex()
        if clean < 0:
            return None
        if clean >= self.undo_stack.count():
            return self._project
        return self.undo_stack.command(clean).before

    def changes_label(self, limit: int = 3) -> str:
        """The engine settings changed since the last save or open by IBM's names, e.g. ``TRANS_BATCH_SZ=3``
        ("unchanged" when none): what tells recorded runs of one project apart."""
        from app.comparison import setting_name
        from engine.compare import flatten
        from engine.errors import QrtuneError
        from engine.scenario import project_to_scenario

        base = self.saved_project()
        if base is None:
            return "unsaved project"
        try:
            before, after = flatten(project_to_scenario(base)), flatten(project_to_scenario(self._project))
        except QrtuneError:
            return "edited topology"
        kind = str(after.get("kind", ""))
        changed = sorted(
            f"{setting_name(k, kind)}={_short(after.get(k))}"
            for k in set(before) | set(after)
            if before.get(k) != after.get(k)
        )
        if not changed:
            return "unchanged"
        more = f" +{len(changed) - limit} more" if len(changed) > limit else ""
        return " ".join(changed[:limit]) + more

    # -- files --------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, parent: QObject | None = None) -> Document:
        """Load a project file into a new document.

        Raises
        ------
        QrtuneError
            As :func:`engine.projectfile.load`.
        """
        return cls(projectfile.load(path), str(path), parent)

    def save(self, path: str | Path | None = None) -> str:
        """Save atomically to ``path`` (or the current path) and mark the document clean.

        Raises
        ------
        ValueError
            No path given and the document was never saved.
        OSError
            The file cannot be written (the document stays modified).
        """
        target = str(path) if path else self._path
        if not target:
            raise ValueError("no file name: use save as")
        projectfile.save(self._project, target)
        if target != self._path:
            self._path = target
            self.path_changed.emit(target)
        self.undo_stack.setClean()
        return target

    # -- edits (each validates first, then pushes one undoable command) -------------------
    def push(self, after: Project, text: str, merge_key: tuple = ()) -> None:
        """Push an edit whose result ``after`` is already validated."""
        if after == self._project:
            return
        self.undo_stack.push(ProjectCommand(self, self._project, after, text, merge_key))

    def set_param(self, node_id: str, name: str, value: Any) -> None:
        """Set one knob; raises FieldError (nothing changes) when the value is not allowed, its message
        naming the node's label and the knob's IBM name (``Q Apply B NUM_APPLY_AGENTS: 200 is not
        allowed; expected ...``)."""
        from app.workload_mix import sync_mix
        from engine.metrics import knob_label
        from engine.metrics.catalog import format_setting

        try:
            after = self._project.with_param(node_id, name, value)
        except FieldError as e:  # named as the user reads it: the node's label and the knob's IBM name
            raise type(e)(
                f"{self._project.node(node_id).label} {knob_label(name)}", e.value, e.allowed
            ) from None
        after, note = sync_mix(after, node_id, name)  # ROWS_PER_TXN and the mix never disagree
        node = after.node(node_id)
        self.push(after, f"Set {knob_label(name)} = {_short(format_setting(value))} on {node.label}{note}")

    def add_node(self, kind_id: str, x: float = 0.0, y: float = 0.0, label: str | None = None) -> str:
        """Add a node of ``kind_id`` with product defaults at ``(x, y)``; return its new id."""
        kind = KINDS[kind_id]
        node_id = self._project.next_node_id(kind_id)
        taken = {n.label for n in self._project.nodes}
        if label is None:
            label, i = kind.name, 2
            while label in taken:
                label, i = f"{kind.name} {i}", i + 1
        node = Node(node_id, kind_id, label, float(x), float(y), kind.defaults())
        self.push(self._project.with_node(node), f"Add {label}")
        return node_id

    def remove_items(self, node_ids: Iterable[str] = (), link_ids: Iterable[str] = ()) -> None:
        """Delete nodes (with their links) and links as one undo step."""
        node_ids, link_ids = list(node_ids), list(link_ids)
        after = self._project
        for link_id in link_ids:
            after = after.without_link(link_id)
        for node_id in node_ids:
            after = after.without_node(node_id)
        n = len(node_ids) + len(link_ids)
        if n:
            self.push(after, f"Delete {n} item{'s' if n > 1 else ''}")

    def add_link(self, source: str, target: str) -> str:
        """Link two nodes; raises the model's TopologyError (unchanged) when refused."""
        link_id = self._project.next_link_id()
        after = self._project.with_link(source, target, link_id)
        self.push(after, f"Link {after.node(source).label} to {after.node(target).label}")
        return link_id

    def move_nodes(self, positions: dict[str, tuple[float, float]], merge: bool = False) -> None:
        """Move nodes to ``positions`` (node id -> (x, y)) as one undo step.

        With ``merge`` (keyboard nudges) consecutive moves of the same nodes merge into one step.
        """
        after = _with_positions(self._project, positions)
        key = ("move", tuple(sorted(positions))) if merge else ()
        n = len(positions)
        self.push(after, f"Move {n} node{'s' if n > 1 else ''}", merge_key=key)

    def rename_node(self, node_id: str, label: str) -> None:
        """Change a node's label (any non-empty text)."""
        label = label.strip()
        if not label:
            raise ValueError("a node label cannot be empty")
        nodes = tuple(replace(n, label=label) if n.id == node_id else n for n in self._project.nodes)
        self.push(replace(self._project, nodes=nodes), f"Rename to {label}")

    def set_simulation(self, setup: SimulationSetup, text: str) -> None:
        """Set the load profile and outage events the project is simulated with, as one undo step.

        Raises
        ------
        FieldError
            The simulator refuses the profile or an event (nothing changes).
        """
        after = replace(self._project, simulation=build_setup(setup.to_dict()))
        self.push(after, text)

    def set_project_text(self, name: str | None = None, description: str | None = None) -> None:
        """Change the project's name or description."""
        after = replace(
            self._project,
            name=self._project.name if name is None else name,
            description=self._project.description if description is None else description,
        )
        key = ("description",) if name is None else ()
        self.push(after, "Edit project properties", merge_key=key)


def _with_positions(project: Project, positions: dict[str, tuple[float, float]]) -> Project:
    """Positions never affect validity, so nodes are replaced in place (file order kept)."""
    nodes = tuple(
        replace(n, x=float(positions[n.id][0]), y=float(positions[n.id][1])) if n.id in positions else n
        for n in project.nodes
    )
    return replace(project, nodes=nodes)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:21] + "..."
