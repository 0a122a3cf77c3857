"""The inspector lists only the knobs that can apply to the node's platform and its role in the flow."""

from pathlib import Path

from app.document import Document
from app.panels.inspector import Inspector
from engine import projectfile
from engine.registry import KINDS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def inspector(qtbot, sample: str):
    document = Document(projectfile.load(SAMPLES / sample))
    insp = Inspector(document)
    qtbot.addWidget(insp)
    return document, insp


def by_label(document, label: str) -> str:
    return next(n.id for n in document.project.nodes if n.label == label)


def test_a_linux_queue_manager_lists_its_qm_ini_knobs_not_buffer_pools(qtbot):
    document, insp = inspector(qtbot, "zos-to-linux-bindings.json")
    linux = next(n for n in document.project.nodes_of("queue_manager") if n.params["os_platform"] != "z/OS")
    insp.show_node(linux.id)
    assert {"logbufferpages", "logtype", "defaultpqbuffersize", "maxmsgl"} <= set(insp.fields)
    assert not {"buffpool_pages", "pageclas", "logload", "read_ahead", "shared_queue", "cf_cps"} & set(
        insp.fields
    )
    assert insp.show_all.isVisible() or not insp.isVisible()
    assert "cannot apply here" in insp.show_all.text()
    insp.show_all.setChecked(True)
    assert list(insp.fields) == [p.name for p in KINDS["queue_manager"].params]
    insp.show_all.setChecked(False)
    assert "buffpool_pages" not in insp.fields


def test_the_run_mode_is_the_receiving_queue_managers(qtbot):
    document, insp = inspector(qtbot, "redpaper-baseline.json")
    insp.show_node(by_label(document, "QMGR A (xmitq)"))
    assert "run_mode" not in insp.fields and "buffpool_pages" in insp.fields and "logtype" not in insp.fields
    insp.show_node(by_label(document, "QMGR B (recvq)"))
    assert {"run_mode", "initial_depth_msgs", "buffpool_pages"} <= set(insp.fields)


def test_moving_a_node_to_linux_rebuilds_its_form_and_undo_brings_it_back(qtbot):
    document, insp = inspector(qtbot, "redpaper-baseline.json")
    qm = by_label(document, "QMGR B (recvq)")
    insp.show_node(qm)
    assert insp.commit("os_platform", "Linux x86-64")
    qtbot.waitUntil(lambda: "logbufferpages" in insp.fields)  # rebuilt once the edit has returned
    assert "buffpool_pages" not in insp.fields
    document.undo_stack.undo()
    qtbot.waitUntil(lambda: "buffpool_pages" in insp.fields)
    assert "logbufferpages" not in insp.fields
    assert insp.fields["os_platform"].shown_value == "z/OS"
