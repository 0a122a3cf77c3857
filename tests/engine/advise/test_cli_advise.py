"""`qrtune advise`: recommendations and goals from the command line, recorded as runs."""

import json

import pytest

from engine.cli import main


@pytest.fixture
def baseline(root):
    return str(root / "sample_runs" / "redpaper-baseline.json")


def test_advise_json_records_runs(baseline, tmp_path, capsys):
    db = str(tmp_path / "runs.duckdb")
    assert main(["advise", baseline, "--json", "--db", db]) == 0
    doc = json.loads(capsys.readouterr().out)
    recs = doc["recommendations"]
    assert recs and all(r["cost_risk"] and r["seed"] and r["changes"] for r in recs)
    assert len(doc["run_ids"]) == len(recs) + 1
    from engine.store import Store

    with Store.open(db, read_only=True) as store:
        runs = store.list_runs(kind="advise")
        assert len(runs) == len(recs) + 1
        labels = {r.label for r in runs}
    assert "advise: as is" in labels
    assert any(label.startswith("advice: ") for label in labels)


def test_advise_text_and_goal(baseline, tmp_path, capsys):
    db = str(tmp_path / "runs.duckdb")
    assert main(["advise", baseline, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "cost/risk:" in out and "rules checked:" in out and "80% band" in out
    # IBM's names, as the results view writes them, not the engine's keys
    assert "     ROWS_APPLIED " in out and "     END2END_LATENCY " in out
    assert "apply_rows_per_s" not in out and "end2end_latency_ms" not in out
    assert main(["advise", baseline, "--db", db, "--json", "--goal", "fewest-agents:40000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["feasible"] and doc["method"] == "exhaustive" and doc["evaluations"] == doc["grid_points"] == 64
    )
    assert doc["values"]["qapply.num_apply_agents"] >= 1
    assert doc["metrics"]["apply_lpar_busy_pct"] < 90
    assert isinstance(doc["run_id"], int)
    assert main(["advise", baseline, "--no-store", "--goal", "fewest-agents:40000"]) == 0
    text = capsys.readouterr().out
    agents = doc["values"]["qapply.num_apply_agents"]
    assert f"  qapply.num_apply_agents = {agents}\n" in text  # a knob's value as set: 6, not 6.00


def test_bad_goal_is_one_line_exit_2(baseline, capsys):
    assert main(["advise", baseline, "--no-store", "--goal", "cheapest"]) == 2
    err = capsys.readouterr().err
    assert "fewest-agents" in err and "Traceback" not in err


def test_runs_lists_and_filters_advise_and_goalseek_runs(root, tmp_path, capsys):
    from engine.store import RUN_KINDS

    assert {"advise", "goalseek"} <= set(RUN_KINDS)
    db = str(tmp_path / "runs.duckdb")
    mirror = str(root / "sample_runs" / "mirror-active-active.json")
    assert main(["advise", mirror, "--db", db, "--json"]) == 0
    n_advise = len(json.loads(capsys.readouterr().out)["run_ids"])
    assert main(["advise", mirror, "--db", db, "--json", "--goal", "mirror-baseline"]) == 0
    goal_id = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["runs", "--db", db, "--json", "--kind", "advise"]) == 0
    advise_runs = json.loads(capsys.readouterr().out)
    assert len(advise_runs) == n_advise and {r["kind"] for r in advise_runs} == {"advise"}
    assert main(["runs", "--db", db, "--json", "--kind", "goalseek"]) == 0
    assert [(r["id"], r["kind"]) for r in json.loads(capsys.readouterr().out)] == [(goal_id, "goalseek")]
    assert main(["runs", "--db", db]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split()[3:5] == ["goalseek", "ok"] and table[2].split()[3:5] == ["advise", "ok"]
    with pytest.raises(SystemExit):
        main(["runs", "--help"])
    assert "advise, goalseek)" in " ".join(capsys.readouterr().out.split())
    assert main(["runs", "--db", db, "--kind", "advice"]) == 0
    assert "no runs of kind 'advice' (qrtune records predict, simulate" in capsys.readouterr().out


def test_a_change_names_the_knob_as_ibm_documents_it():
    from engine.advise.base import Change

    assert (
        str(Change("qm-a", "QMGR A", "buffpool_pages", 240000, 1685000))
        == "QMGR A BUFFPOOL 240000 -> 1685000"
    )
    assert str(Change("qa", "Q Apply", "num_apply_agents", 6, 8)) == "Q Apply NUM_APPLY_AGENTS 6 -> 8"
