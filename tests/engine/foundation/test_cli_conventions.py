"""Scripting conventions: --version, '-' for standard input, --json output, exit codes by kind of failure."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_run import qrtune

from engine.cli.exitcodes import EXIT_INPUT, EXIT_OK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "sample_runs" / "redpaper-baseline.json"


def test_version():
    out = qrtune("--version")
    assert out.returncode == EXIT_OK and out.stdout.startswith("qrtune ")


def test_version_names_a_commit_of_this_repository():
    # from git (setuptools-scm): 0.1.devN+gHASH between tags, X.Y.Z on a tag vX.Y.Z; an editable
    # install names the commit it was installed at (pip install -e . again to move it on)
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    version = qrtune("--version").stdout.split()[-1]
    commit = re.search(r"\+g([0-9a-f]{7,})", version)
    ref = f"{commit.group(1)}^{{commit}}" if commit else f"refs/tags/v{version}"
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", ref], capture_output=True)
    assert known.returncode == 0, f"qrtune --version says {version}: no such commit or tag here"


def test_a_project_from_standard_input_predicts_like_the_file():
    from_file = json.loads(qrtune("predict", str(SAMPLE), "--json").stdout)
    from_stdin = qrtune("predict", "-", "--json", stdin=SAMPLE.read_text())
    assert from_stdin.returncode == EXIT_OK, from_stdin.stderr
    assert json.loads(from_stdin.stdout)["metrics"] == from_file["metrics"]


def test_validate_json_and_exit_codes_tell_a_missing_file_from_a_bad_value(tmp_path):
    ok = qrtune("validate", str(SAMPLE), "--json")
    assert ok.returncode == EXIT_OK and json.loads(ok.stdout)[0]["ok"] is True
    bad = qrtune(
        "validate", str(ROOT / "tests" / "data" / "projects" / "bad" / "out-of-range.json"), "--json"
    )
    assert bad.returncode == EXIT_USAGE and "is not allowed" in json.loads(bad.stdout)[0]["error"]
    missing = qrtune("predict", str(tmp_path / "none.json"))
    assert (
        missing.returncode == EXIT_INPUT
        and "cannot read" in missing.stderr
        and "Traceback" not in missing.stderr
    )
    broken = qrtune("predict", "-", stdin="{")
    assert broken.returncode == EXIT_INPUT and "not valid JSON" in broken.stderr
