"""Building a topology through document commands; undo and redo restore exact snapshots."""

import itertools

import pytest

from app.document import Document
from engine import templates
from engine.errors import FieldError, IncompatibleLinkError, TopologyError
from engine.model import build_project
from engine.topology import check_complete

FLOW = ("source_db2", "qcapture", "queue_manager", "channel", "queue_manager", "qapply", "target_db2")


def empty(topology="unidirectional"):
    return build_project({"name": "Built", "topology": topology, "nodes": [], "links": []})


def test_build_a_complete_flow_with_commands_then_undo_everything(qtbot):
    doc = Document(empty())
    snapshots = [doc.project]
    ids = []
    for i, kind in enumerate(FLOW):
        ids.append(doc.add_node(kind, 200 * i, 0))
        snapshots.append(doc.project)
    for a, b in itertools.pairwise(ids):
        doc.add_link(a, b)
        snapshots.append(doc.project)
    check_complete(doc.project)  # the commands built a predictable topology
    assert len(doc.project.nodes) == 7 and len(doc.project.links) == 6
    assert doc.is_modified()
    assert doc.undo_stack.count() == 13
    for expected in reversed(snapshots[:-1]):
        doc.undo_stack.undo()
        assert doc.project == expected
    assert not doc.is_modified()  # back at the clean state
    for expected in snapshots[1:]:
        doc.undo_stack.redo()
        assert doc.project == expected


def test_new_nodes_get_fresh_ids_labels_and_defaults(qtbot):
    doc = Document(empty())
    a = doc.add_node("qapply")
    b = doc.add_node("qapply")
    assert (a, b) == ("qapply-1", "qapply-2")
    assert doc.project.node(a).label == "Q Apply" and doc.project.node(b).label == "Q Apply 2"
    assert doc.project.node(a).params["num_apply_agents"] == 16  # product default


def test_refused_link_raises_the_model_message_and_changes_nothing(qtbot):
    doc = Document(empty())
    src = doc.add_node("source_db2")
    app = doc.add_node("qapply")
    before, count = doc.project, doc.undo_stack.count()
    with pytest.raises(IncompatibleLinkError) as err:
        doc.add_link(src, app)
    assert "cannot feed Q Apply" in str(err.value)
    with pytest.raises(TopologyError):
        doc.add_link(src, src)
    assert doc.project is before and doc.undo_stack.count() == count


def test_set_param_validates_and_is_one_undo_step(qtbot):
    doc = Document(templates.unidirectional())
    node = doc.project.nodes_of("qapply")[0].id
    doc.set_param(node, "num_apply_agents", 6)
    assert doc.project.node(node).params["num_apply_agents"] == 6
    assert "NUM_APPLY_AGENTS = 6" in doc.undo_stack.undoText()
    with pytest.raises(FieldError) as err:
        doc.set_param(node, "num_apply_agents", 0)
    assert "NUM_APPLY_AGENTS" in str(err.value) and "from 1 to 128" in str(err.value)
    assert str(err.value).startswith(doc.project.node(node).label)  # the node by its label, not its index
    assert doc.project.node(node).params["num_apply_agents"] == 6
    doc.undo_stack.undo()
    assert doc.project.node(node).params["num_apply_agents"] == 16


def test_delete_node_removes_its_links_and_undo_restores_them(qtbot):
    doc = Document(templates.unidirectional())
    before = doc.project
    channel = doc.project.nodes_of("channel")[0].id
    doc.remove_items([channel])
    assert channel not in {n.id for n in doc.project.nodes}
    assert not [link for link in doc.project.links if channel in (link.source, link.target)]
    assert len(doc.project.links) == 4
    doc.undo_stack.undo()
    assert doc.project == before


def test_moves_keep_file_order_and_only_nudges_merge(qtbot):
    doc = Document(templates.unidirectional())
    order = [n.id for n in doc.project.nodes]
    first = order[0]
    doc.move_nodes({first: (10, 20)})
    doc.move_nodes({first: (30, 40)})
    assert doc.undo_stack.count() == 2  # two drags are two steps
    doc.move_nodes({first: (31, 40)}, merge=True)
    doc.move_nodes({first: (32, 40)}, merge=True)
    assert doc.undo_stack.count() == 3
    assert [n.id for n in doc.project.nodes] == order
    assert (doc.project.node(first).x, doc.project.node(first).y) == (32, 40)
    doc.undo_stack.undo()
    assert (doc.project.node(first).x, doc.project.node(first).y) == (30, 40)


def test_modified_signal_and_save_marks_clean(qtbot, tmp_path):
    doc = Document(templates.unidirectional())
    seen = []
    doc.modified_changed.connect(seen.append)
    doc.rename_node(doc.project.nodes[0].id, "Prod Db2")
    assert seen == [True] and doc.is_modified()
    path = doc.save(tmp_path / "p.json")
    assert seen == [True, False] and not doc.is_modified() and doc.path == path
    reopened = Document.open(path)
    assert reopened.project == doc.project
    with pytest.raises(ValueError):
        doc.rename_node(doc.project.nodes[0].id, "  ")


def test_qt_binding_keeps_references_to_none_and_true():
    """Void calls and emit() take their references to None and True (PySide6 6.12.0 on Python 3.11 did not,
    and aborted the interpreter once a count reached zero: pyproject.toml excludes that release)."""
    import sys

    from PySide6.QtCore import QObject, Signal

    class Probe(QObject):
        ping = Signal()

    probe = Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(1000):
        probe.ping.emit()
        probe.setObjectName("probe")
    assert sys.getrefcount(None) >= none_before and sys.getrefcount(True) >= true_before
