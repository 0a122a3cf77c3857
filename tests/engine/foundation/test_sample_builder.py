"""``sample_runs/build.py`` regenerates every sample project exactly as shipped.

The samples are the seeds' published configurations; a change to a template, a registry
default or a sample file that the builder does not make would leave a sample nobody can
reproduce. Run ``python sample_runs/build.py`` after changing either.
"""

import importlib.util
import json
from pathlib import Path

from engine import projectfile

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"


def _builder():
    spec = importlib.util.spec_from_file_location("qrtune_sample_builder", SAMPLES / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_builder_reproduces_every_shipped_sample(tmp_path):
    built = _builder().samples()
    shipped = {p.name for p in SAMPLES.glob("*.json")}
    assert set(built) == shipped
    for name, project in built.items():
        projectfile.save(project, tmp_path / name)
        assert json.loads((tmp_path / name).read_text()) == json.loads((SAMPLES / name).read_text()), name
