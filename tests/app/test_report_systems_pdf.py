"""PDF reports of bidirectional and peer-to-peer projects print each system's figures (checked with pdftotext)."""

import shutil
import subprocess
from pathlib import Path

import pytest

from qrtune.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def _text(path) -> str:
    assert shutil.which("pdftotext"), "pdftotext is missing: apt-get install poppler-utils"
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_report_of_two_way_projects_prints_the_systems_and_their_deltas(tmp_path, capsys):
    from engine import projectfile
    from engine.predict import predict_project
    from engine.report import format_value

    out = tmp_path / "j6.pdf"
    bidir, p2p = SAMPLES / "redpaper-bidirectional.json", SAMPLES / "redpaper-peer-to-peer.json"
    assert main(["report", str(bidir), str(p2p), "--out", str(out), "--no-validation"]) == 0
    text = _text(out)
    assert "Systems (deltas against" in text and "Systems (each runs its own workload" in text
    trigger = predict_project(projectfile.load(p2p)).metrics["system2_trigger_cpu_us_per_row"]
    line = next(ln for ln in text.splitlines() if ln.startswith("Db2 B") and "peer-to-peer triggers" in ln)
    assert f"+{format_value(trigger)} (-)" in line  # 0 -> the trigger cost; no percent from 0
    uni = tmp_path / "uni.pdf"
    assert (
        main(["report", str(SAMPLES / "redpaper-baseline.json"), "--out", str(uni), "--no-validation"]) == 0
    )
    assert "Systems" not in _text(uni)
    capsys.readouterr()


@pytest.mark.parametrize("name", ["dw2005-zos-peer-to-peer"])
def test_single_two_way_report_lists_both_systems(tmp_path, name):
    out = tmp_path / "one.pdf"
    assert main(["report", str(SAMPLES / f"{name}.json"), "--out", str(out), "--no-validation"]) == 0
    text = _text(out)
    header = next(ln for ln in text.splitlines() if ln.startswith("Figure"))
    assert "Db2 A" in header and "Db2 B" in header
    assert "set up alike" in text
