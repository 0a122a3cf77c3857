"""Flows are found without enumerating paths, with the results path enumeration gave."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from benchmarks.bench_topology import mesh_project
from engine import templates
from engine.model import build_project
from engine.topology import FLOW_KINDS, check_complete, flows, nodes_on_flows


def _reference_flows(project):
    """What ``flows`` returned before: every simple path of the flow's kinds, source x target."""
    g = project.graph()
    found = []
    for src in project.nodes_of("source_db2"):
        for tgt in project.nodes_of("target_db2"):
            for path in nx.all_simple_paths(g, src.id, tgt.id, cutoff=len(FLOW_KINDS)):
                if tuple(g.nodes[n]["kind"] for n in path) == FLOW_KINDS:
                    found.append(path)
    return found


def _random_project(rng: random.Random) -> dict:
    """A small random project: 1-3 nodes per flow kind, random allowed links (loops back included)."""
    kinds = ["source_db2", "qcapture", "queue_manager", "channel", "qapply", "target_db2"]
    nodes = [{"id": f"{k}-{i}", "kind": k, "params": {}} for k in kinds for i in range(rng.randint(1, 3))]
    rng.shuffle(nodes)
    allowed = {
        "source_db2": "qcapture",
        "qcapture": "queue_manager",
        "queue_manager": "channel",
        "channel": "queue_manager",
        "qapply": "target_db2",
    }
    pairs = [
        (a["id"], b["id"])
        for a in nodes
        for b in nodes
        if a is not b
        and (allowed.get(a["kind"]) == b["kind"] or (a["kind"], b["kind"]) == ("queue_manager", "qapply"))
    ]
    chosen = [p for p in pairs if rng.random() < 0.5]
    rng.shuffle(chosen)
    links = [{"id": f"l{i}", "source": a, "target": b} for i, (a, b) in enumerate(chosen)]
    return {"name": "random", "topology": "unidirectional", "nodes": nodes, "links": links}


@pytest.mark.parametrize("seed", range(300))
def test_flows_match_path_enumeration_in_content_and_order(seed):
    project = build_project(_random_project(random.Random(seed)))
    expected = _reference_flows(project)
    assert [[n.id for n in f] for f in flows(project)] == expected
    assert [[n.id for n in f] for f in flows(project, limit=2)] == expected[:2]
    for pos in range(len(FLOW_KINDS)):
        on_some_flow = {path[pos] for path in expected}
        assert [n.id for n in nodes_on_flows(project, pos)] == [
            n.id for n in project.nodes if n.id in on_some_flow
        ]


def test_a_queue_manager_looping_back_through_a_channel_is_not_a_flow():
    project = build_project(
        {
            "name": "loop",
            "topology": "unidirectional",
            "nodes": [
                {"id": k, "kind": k, "params": {}}
                for k in ("source_db2", "qcapture", "queue_manager", "channel", "qapply", "target_db2")
            ],
            "links": [
                {"id": f"l{i}", "source": a, "target": b}
                for i, (a, b) in enumerate(
                    [
                        ("source_db2", "qcapture"),
                        ("qcapture", "queue_manager"),
                        ("queue_manager", "channel"),
                        ("channel", "queue_manager"),
                        ("queue_manager", "qapply"),
                        ("qapply", "target_db2"),
                    ]
                )
            ],
        }
    )
    assert flows(project) == [] == _reference_flows(project)
    assert nodes_on_flows(project, 3) == []


def test_templates_keep_their_flows():
    for name, make in templates.TEMPLATES.items():
        project = make()
        assert [[n.id for n in f] for f in flows(project)] == _reference_flows(project), name


def test_a_mesh_with_millions_of_flows_is_checked_without_listing_them():
    # 56 nodes, 384 links, 8**7 = 2,097,152 flows: path enumeration ran for minutes here
    # (benchmarks/bench_topology.py times it)
    project = build_project(mesh_project(8))
    check_complete(project)
    first_two = flows(project, limit=2)
    assert [f[-1].id for f in first_two] == ["p6-target_db2-0"] * 2
    assert [f[-2].id for f in first_two] == ["p5-qapply-0", "p5-qapply-1"]
    assert [n.id for n in nodes_on_flows(project, 4)] == [f"p4-queue_manager-{i}" for i in range(8)]
