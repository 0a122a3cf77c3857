"""``qrtune gui PROJECT --smoke-test DIR``: opens offscreen, screenshots each main view, exits 0."""

import os

import pytest
from cli_run import SAMPLE, python
from PySide6.QtGui import QImage

VIEWS = (
    "main_window",
    "canvas",
    "inspector",
    "results",
    "runs",
    "simulation",
    "sweep",
    "compare",
    "validation",
    "monitor",
)


@pytest.mark.slow
def test_smoke_test_writes_a_real_screenshot_of_each_view(root, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QRTUNE_DB=str(tmp_path / "never-used.duckdb"))
    out = python("-m", "qrtune", "gui", SAMPLE, "--smoke-test", tmp_path / "shots", env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    for name in VIEWS:
        image = QImage(str(tmp_path / "shots" / f"{name}.png"))
        assert not image.isNull() and image.width() > 200 and image.height() > 100, name
        # not a blank image: more than a handful of distinct colours
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)
        }
        assert len(colours) > 5, name
    # the smoke test keeps its runs in a throw-away store, not the user's
    assert not (tmp_path / "never-used.duckdb").exists()


def test_bad_project_exits_2(root, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    bad = root / "tests" / "data" / "projects" / "bad" / "unknown-kind.json"
    out = python("-m", "qrtune", "gui", bad, "--smoke-test", tmp_path, env=env)
    assert out.returncode == 2 and "kind" in out.stderr


def test_smoke_test_fails_when_no_prediction_can_be_made(root, tmp_path):
    """Without its coefficient files the window opens with "No prediction": the smoke test must say so and fail."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    script = (
        "import sys; from pathlib import Path\n"
        "import engine.perf.coeffload as load, engine.perf.qrep.coefficients as qrep\n"
        "load.COEFF_DIR = Path(sys.argv[2]); qrep.COEFF_PATH = Path(sys.argv[2]) / 'qrep.json'\n"
        "from app.main import run_gui\n"
        "sys.exit(run_gui(sys.argv[1], smoke_test_dir=sys.argv[3]))\n"
    )
    out = python(
        "-c", script, SAMPLE, tmp_path / "no-coefficients", tmp_path / "shots", env=env, timeout_s=180
    )
    assert out.returncode == 1, out.stderr
    assert "no prediction" in out.stderr and "qrep.json" in out.stderr
