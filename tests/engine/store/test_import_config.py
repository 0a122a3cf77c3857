"""``qrtune import-config``: a project from exports of the control tables, one flow per queue map, knobs as exported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.io.controltables import import_config, read_control_table
from engine.monitor.layouts import columns_at
from engine.store import MonitorImportError
from engine.topology import flows

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_runs" / "control-tables"
FILES = sorted(str(p) for p in SAMPLES.glob("*.del"))


def _by_map(project, kind):
    return {n.label.split("[")[-1].rstrip("]"): n for n in project.nodes if n.kind == kind}


def test_sample_exports_give_one_flow_per_queue_map_with_the_knobs_as_exported():
    done = import_config(FILES)
    project = done.project
    assert len(flows(project)) == 2
    capture, apply_ = _by_map(project, "qcapture"), _by_map(project, "qapply")
    assert set(capture) == {"QMA_TO_QMB_ORDERS", "QMA_TO_QMB_STOCK"}
    assert capture["QMA_TO_QMB_ORDERS"].params["commit_interval_ms"] == 250
    assert capture["QMA_TO_QMB_ORDERS"].params["memory_limit_mb"] == 800
    assert capture["QMA_TO_QMB_STOCK"].params["max_message_size_kb"] == 4096
    assert capture["QMA_TO_QMB_STOCK"].params["num_parallel_sendqs"] == 2
    assert apply_["QMA_TO_QMB_ORDERS"].params["num_apply_agents"] == 12
    assert apply_["QMA_TO_QMB_STOCK"].params["memory_limit_mb"] == 64
    assert [m.subscriptions for m in done.queue_maps] == [3, 2]
    assert "workload" in project.description and "machines" in project.description


def test_the_written_project_validates_and_predicts(tmp_path):
    out = tmp_path / "mine.json"
    engine = [sys.executable, "-m", "engine"]
    made = subprocess.run(
        [*engine, "import-config", *FILES, "--out", str(out)], capture_output=True, text=True, cwd=ROOT
    )
    assert made.returncode == 0, made.stderr
    assert "2 queue map(s)" in made.stdout and "not in the control tables" in made.stdout
    for command in ("validate", "predict"):
        run = subprocess.run([*engine, command, str(out)], capture_output=True, text=True, cwd=ROOT)
        assert run.returncode == 0, (command, run.stdout[-500:], run.stderr[-500:])


def test_a_header_csv_of_an_older_release_reads_by_its_header(tmp_path):
    names = [c.name for c in columns_at("IBMQREP_RECVQUEUES", "9.7")]
    row = {"REPQMAPNAME": "M1", "RECVQ": "Q1", "ADMINQ": "A", "NUM_APPLY_AGENTS": "6", "MEMORY_LIMIT": "32"}
    f = tmp_path / "recvqueues.csv"
    f.write_text(",".join(names) + "\n" + ",".join(row.get(n, "") for n in names) + "\n")
    table = read_control_table(f)
    assert table.name == "IBMQREP_RECVQUEUES" and table.rows[0]["NUM_APPLY_AGENTS"] == "6"


def test_missing_tables_and_bad_values_are_named(tmp_path):
    with pytest.raises(MonitorImportError, match="lack IBMQREP_RECVQUEUES"):
        import_config([f for f in FILES if "RECVQUEUES" not in f])
    bad = tmp_path / "CAPPARMS.del"
    text = (SAMPLES / "CAPPARMS.del").read_text()
    bad.write_text(text.replace(",250,", ",fast,"))
    with pytest.raises(MonitorImportError, match="COMMIT_INTERVAL 'fast' is not a number"):
        import_config([str(bad), *(f for f in FILES if "CAPPARMS" not in f)])


def test_the_export_guide_lists_each_releases_columns_as_the_data_file_has_them():
    sys.path.insert(0, str(ROOT / "docs"))
    import make_monitor_columns

    assert make_monitor_columns.section() in (ROOT / "docs" / "monitor-export.md").read_text(encoding="utf-8")
