"""Layering: the engine never imports Qt or the workbench, the core never imports the CLI, the engine's own
layers (files and registry, model and settings, engines, records and store, tools and views) import
only downwards, no import circles (package ``__init__`` modules counted).

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


#: Prints the import circles of the three packages. Importing ``a.b.c`` runs ``a/__init__`` and
#: ``a/b/__init__`` first, so a module that imports it also depends on those packages (unless it
#: lies inside them): ``engine.scenario`` importing ``engine.perf.qrep.inputs`` closes a circle with
#: ``engine.perf.qrep`` when that package imports ``engine.scenario``.
CIRCLES = """
import grimp, networkx as nx
graph = grimp.build_graph("engine", "app", "qrtune")
edges = nx.DiGraph()
for m in graph.modules:
    for i in graph.find_modules_directly_imported_by(m):
        parts = i.split(".")
        for parent in (".".join(parts[:n]) for n in range(1, len(parts) + 1)):
            if parent in graph.modules and parent != m and not m.startswith(parent + "."):
                edges.add_edge(m, parent)
print(sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1))
"""


def test_no_import_circles_counting_package_inits():
    out = _python(CIRCLES)
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
