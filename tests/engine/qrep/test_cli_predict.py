"""``qrtune predict`` and ``qrtune evaluate`` on Q Replication inputs."""

import json
import re
import subprocess
import sys

import pytest
from qrep_test_helpers import CALIBRATION, ROOT


def qrtune(*args):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True)


def test_predict_prints_a_readable_breakdown():
    out = qrtune("predict", "sample_runs/redpaper-baseline.json")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for needle in (
        "Throughput",
        "CAPTURE_LATENCY",
        "QLATENCY",
        "APPLY_LATENCY",
        "END2END_LATENCY",
        "CPU",
        "Q Apply agents",
        "bottleneck",
        "rows/s",
    ):
        assert needle in text, needle


def test_predict_json_has_stages_with_message_capacities():
    out = qrtune("predict", "--json", "sample_runs/dw2005-zos-peer-to-peer.json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["kind"] == "qrep" and doc["bottleneck"] is None  # the closed workload's rate is held
    assert all("capacity_msgs_per_s" in s and "servers" in s for s in doc["stages"])


def test_evaluate_reports_every_qrep_scenario(tmp_path):
    cal = json.loads(CALIBRATION.read_text())
    scen = [
        {k: v for k, v in s.items() if not k.startswith("measured")}
        for s in cal["scenarios"]
        if s["kind"] == "qrep"
    ]
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": scen}))
    out = qrtune("evaluate", str(f))
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert len(results) == len(scen)
    assert all(r["predicted"].get("apply_rows_per_s", 0) > 0 and "error" not in r for r in results)


@pytest.mark.slow
def test_predict_set_is_a_what_if_without_editing_the_file():
    base = json.loads(qrtune("predict", "--json", "sample_runs/redpaper-baseline.json").stdout)
    fewer = qrtune(
        "predict", "--json", "sample_runs/redpaper-baseline.json", "--set", "qapply.num_apply_agents=2"
    )
    assert fewer.returncode == 0, fewer.stderr
    fewer = json.loads(fewer.stdout)
    # the baseline's 6 apply agents run near their limit: a third of them carry fewer rows
    assert fewer["bottleneck"] == "qapply_agents"
    assert fewer["metrics"]["apply_rows_per_s"] < base["metrics"]["apply_rows_per_s"] * 0.9
    bad = qrtune("predict", "sample_runs/redpaper-baseline.json", "--set", "qapply.num_apply_agents=0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "qapply.num_apply_agents" in bad.stderr and "1 to 128" in bad.stderr
    several = qrtune("predict", "sample_runs/redpaper-baseline.json", "--set", "qapply.num_apply_agents=2,3")
    assert several.returncode == 2 and "one value per knob" in several.stderr


def test_predict_prints_numbers_without_exponents_and_labels_every_kind():
    """Rates read 43,353 rows/s, not 4.335e+04; a Db2 Mirror prediction is labelled, not keyed;
    a stage without a limit reads "unbounded", never "inf"; a CPU band stops at 100 %."""
    qrep = qrtune("predict", "sample_runs/redpaper-baseline.json")
    mirror = qrtune("predict", "sample_runs/mirror-active-active.json", "--set", "mirror-target.cores=8")
    assert qrep.returncode == 0 and mirror.returncode == 0, qrep.stderr + mirror.stderr
    for text in (qrep.stdout, mirror.stdout):
        assert "e+0" not in text and " inf " not in text and "nan" not in text.lower()
    assert re.search(r"Q Apply\s+\d{2},\d{3} rows/s\s+\(80% band \d{2},\d{3} \.\. \d{2},\d{3}\)", qrep.stdout)
    assert re.search(r"Response time\s+[\d.]+ ms", mirror.stdout)
    assert re.search(r"Db2 Mirror RoCE link\s+unbounded txn/s", mirror.stdout)
    band_high = re.search(
        r"Secondary node CPU busy\s+([\d.]+) %\s+\(80% band [\d.]+ \.\. ([\d.]+)\)", mirror.stdout
    )
    assert band_high and float(band_high.group(2)) <= 100.0 < float(band_high.group(1)) * 1.09
