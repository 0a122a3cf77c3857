"""Layering: the engine never imports Qt or the workbench, the core never imports the CLI, no import circles.

The contracts of ``.importlinter`` are checked statically: every import statement counts, also
one inside a function that no test happens to run. One quick import of every engine module in a
Python where Qt cannot be found backs them at run time (an import the static check cannot see,
such as ``importlib.import_module`` of a computed name).
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BLOCK_QT = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6', 'app', 'qrtune'):
            raise ModuleNotFoundError(f'No module named {name!r} (blocked)', name=name)
sys.meta_path.insert(0, Block())
"""


def _python(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter at the repository's root (the static checks find the packages
    there; a process that imported ``qrtune`` answers ``engine`` through its short-name finder instead)."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_import_contracts_are_kept():
    out = _python(
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='.importlinter', no_cache=True, no_logo=True))"
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]


def test_no_import_circles():
    out = _python("""
import grimp, networkx as nx
graph = grimp.build_graph("engine", "app", "qrtune")
edges = nx.DiGraph((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))
print(sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1))
""")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_every_engine_module_imports_without_qt():
    code = (
        BLOCK_QT
        + """
import pkgutil, importlib, engine
for m in pkgutil.walk_packages(engine.__path__, 'engine.'):
    if m.name == 'engine.__main__':
        continue
    importlib.import_module(m.name)
assert not any(k.split('.')[0] in ('PySide6', 'pyqtgraph', 'app') for k in sys.modules)
print('ok')
"""
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")
