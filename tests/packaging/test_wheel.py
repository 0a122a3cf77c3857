"""The wheel carries everything ``qrtune`` needs, under the one top-level package ``qrtune``.

Built from a copy of the checkout (a build in the checkout would leave ``build/`` behind, whose
stale files a later wheel would pick up), installed with ``pip --target`` and run from another
folder, so neither the checkout nor the editable install can stand in for what the wheel lacks.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from cli_run import python

ROOT = Path(__file__).resolve().parents[2]

SOURCES = (
    "engine",
    "app",
    "assets",
    "docs",
    "sample_runs",
    "packaging/qrtune",
    "setup.py",
    "pyproject.toml",
    "README.md",
    "LICENSE",
)
VERSION = "0.1.dev7+gabc1234"
"""The version the copied tree (no git metadata) is built as (setuptools-scm's pretend version)."""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        env={**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION": VERSION},
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("qrtune-*.whl"))


def test_wheel_has_one_top_level_package_and_the_package_data(wheel, root):
    names = set(zipfile.ZipFile(wheel).namelist())
    top_level = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top_level == {"qrtune"}
    for data in sorted((root / "assets").rglob("*.json")):
        assert f"qrtune/{data.relative_to(root).as_posix()}" in names
    assert "qrtune/engine/cli/__init__.py" in names and "qrtune/app/main.py" in names
    # the user guide the window's Help > User Guide shows, with every screenshot it names
    assert "qrtune/docs/user-guide.md" in names
    for shot in sorted((root / "docs" / "user-guide").glob("*.png")):
        assert f"qrtune/docs/user-guide/{shot.name}" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "qrtune = qrtune.cli:run" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_wheel_carries_the_license_classifiers_samples_and_the_git_version(wheel, root):
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert wheel.name.startswith(f"qrtune-{VERSION}-")
    license_file = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert archive.read(license_file).decode() == (root / "LICENSE").read_text()
    metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {VERSION}" in metadata
    assert "Classifier: License :: OSI Approved :: MIT License" in metadata
    assert "Classifier: Operating System :: Microsoft :: Windows" in metadata
    for sample in [
        *(root / "sample_runs").glob("*.json"),
        *(root / "sample_runs").glob("monitor-baseline/*.csv"),
    ]:
        assert f"qrtune/{sample.relative_to(root).as_posix()}" in names


def test_installed_wheel_predicts_from_another_folder(wheel, root, tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site))
    probe = "import qrtune, engine.io.packagedata as p; print(qrtune.__file__); print(p.asset_path('coefficients'))"
    where = subprocess.run(
        [sys.executable, "-c", probe], cwd=elsewhere, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert all(Path(w).is_relative_to(site) for w in where), where
    probe = "import qrtune, app.main_window as m; print(*sorted((m.SAMPLE_RUNS / 'monitor-baseline').glob('*.csv')))"
    monitor = subprocess.run(
        [sys.executable, "-c", probe], cwd=elsewhere, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert [Path(m).name for m in monitor] == [
        "IBMQREP_APPLYMON.csv",
        "IBMQREP_CAPMON.csv",
        "IBMQREP_CAPQMON.csv",
    ]
    assert all(Path(m).is_relative_to(site) for m in monitor)  # File > Open Sample Monitor Exports finds them
    version = python("-m", "qrtune", "--version", cwd=elsewhere, env=env)
    assert version.stdout.strip() == f"qrtune {VERSION}"
    out = python(
        "-m",
        "qrtune",
        "predict",
        root / "sample_runs" / "redpaper-baseline.json",
        "--json",
        cwd=elsewhere,
        env=env,
        timeout_s=300,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["metrics"]["apply_rows_per_s"] > 0
