"""The command line: validate, evaluate and help, as a user runs them."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def qrtune(*args):
    return subprocess.run([sys.executable, "-m", "qrtune", *args], cwd=ROOT, capture_output=True, text=True)


def test_help_lists_commands():
    out = qrtune("--help")
    assert out.returncode == 0
    for cmd in ("validate", "evaluate", "predict", "gui", "report"):
        assert cmd in out.stdout


def test_validate_accepts_samples_and_rejects_bad():
    samples = sorted(str(p) for p in (ROOT / "sample_runs").glob("*.json"))
    ok = qrtune("validate", *samples)
    assert ok.returncode == 0 and ok.stdout.count(": ok") == len(samples)
    bad = qrtune("validate", "tests/data/projects/bad/out-of-range.json")
    assert bad.returncode == 2
    assert "nodes[1].params.trans_batch_sz: 0 is not allowed" in bad.stderr and "Traceback" not in bad.stderr


def test_evaluate_reports_each_scenario(tmp_path):
    doc = {"format": "qrtune-scenarios/1", "scenarios": [{"id": "x", "kind": "no-such-kind"}]}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    out = qrtune("evaluate", str(f))
    assert out.returncode == 0
    result = json.loads(out.stdout)["results"][0]
    assert result["id"] == "x" and result["predicted"] == {} and "no-such-kind" in result["error"]


def test_evaluate_rejects_wrong_format(tmp_path):
    f = tmp_path / "s.json"
    f.write_text('{"format": "other"}')
    out = qrtune("evaluate", str(f))
    assert out.returncode == 3 and "qrtune-scenarios/1" in out.stderr  # EXIT_INPUT: a bad input file
