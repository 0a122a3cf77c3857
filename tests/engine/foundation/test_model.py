"""Model edits, connection rules, the networkx export and scenario mapping."""

import networkx as nx
import pytest

from engine import templates
from engine.errors import DuplicateLinkError, IncompatibleLinkError, UnknownParameterError, ValueRangeError
from engine.model import Node
from engine.scenario import apply_scenario, project_to_scenario
from engine.topology import flows


@pytest.mark.parametrize("name", list(templates.TEMPLATES))
def test_templates_are_complete(name):
    from engine.topology import check_complete

    check_complete(templates.TEMPLATES[name]())


def test_flows_per_topology():
    assert len(flows(templates.unidirectional())) == 1
    bi = flows(templates.bidirectional())
    assert len(bi) == 2 and bi[0][0].id != bi[1][0].id and bi[0][-1].label.startswith("Db2 B")


def test_graph_export():
    g = templates.bidirectional().graph()
    assert isinstance(g, nx.DiGraph) and g.number_of_nodes() == 14 and g.number_of_edges() == 12
    assert g.nodes["ab-5-qapply"]["params"]["num_apply_agents"] == 16
    assert nx.is_directed_acyclic_graph(g)


def test_with_param_validates_and_keeps_original():
    p = templates.unidirectional()
    q = p.with_param("ab-5-qapply", "num_apply_agents", 8)
    assert q.node("ab-5-qapply").param("num_apply_agents") == 8
    assert p.node("ab-5-qapply").param("num_apply_agents") == 16
    with pytest.raises(ValueRangeError, match="num_apply_agents"):
        p.with_param("ab-5-qapply", "num_apply_agents", 0)
    with pytest.raises(UnknownParameterError):
        p.with_param("ab-5-qapply", "agents", 4)


def test_link_rules():
    p = templates.unidirectional()
    with pytest.raises(DuplicateLinkError):
        p.with_link("ab-0-source-db2", "ab-1-qcapture")
    with pytest.raises(IncompatibleLinkError, match="can feed: Q Capture"):
        p.with_link("ab-0-source-db2", "ab-5-qapply")
    with pytest.raises(IncompatibleLinkError, match="itself"):
        p.with_link("ab-3-channel", "ab-3-channel")
    p2 = p.with_node(Node("qapply-9", "qapply", "Q Apply 2"))
    p3 = p2.with_link("ab-4-queue-manager", "qapply-9")
    assert p3.links[-1].target == "qapply-9" and p3.next_link_id() == "link-8"
    assert p3.without_node("qapply-9").links == p.links


def test_scenario_round_trip(calibration):
    scenario = next(s for s in calibration["scenarios"] if s["id"] == "rp-t2-4-baseline")
    project = apply_scenario(templates.unidirectional(), scenario)
    back = project_to_scenario(project)
    for group in ("hardware", "table", "workload", "qcapture", "qapply", "mq", "target_db2", "run"):
        for key, value in scenario[group].items():
            if key in ("note", "network_note"):
                continue
            assert back[group][key] == value, f"{group}.{key}"


def test_mirror_scenario_uses_roles(calibration):
    scenario = next(s for s in calibration["scenarios"] if s["id"] == "mir-cs2-mirror-82js")
    project = apply_scenario(templates.db2_mirror_pair(), scenario)
    back = project_to_scenario(project)
    assert back["mode"] == "active-passive"
    assert back["hardware"]["source_cores"] == 22 and back["hardware"]["target_cores"] == 11
    assert back["workload"]["job_sets"] == 82
