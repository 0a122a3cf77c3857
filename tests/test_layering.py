"""Layering: the engine never imports Qt or the workbench, the core never imports the CLI, no import circles.

The contracts of ``.importlinter`` are checked statically: every import statement counts, also
one inside a function that no test happens to run. One quick import of every engine module in a
Python where Qt cannot be found backs them at run time (an import the static check cannot see,
such as ``importlib.import_module`` of a computed name).
"""

import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]

BLOCK_QT = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6', 'app', 'qrtune'):
            raise ModuleNotFoundError(f'No module named {name!r} (blocked)', name=name)
sys.meta_path.insert(0, Block())
"""


def test_import_contracts_are_kept(capsys):
    status = lint_imports(config_filename=str(ROOT / ".importlinter"), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out[-4000:]


def test_no_import_circles():
    graph = grimp.build_graph("engine", "app", "qrtune")
    edges = nx.DiGraph((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1)
    assert circles == []


def test_every_engine_module_imports_without_qt():
    code = BLOCK_QT + """
import pkgutil, importlib, engine
for m in pkgutil.walk_packages(engine.__path__, 'engine.'):
    if m.name == 'engine.__main__':
        continue
    importlib.import_module(m.name)
assert not any(k.split('.')[0] in ('PySide6', 'pyqtgraph', 'app') for k in sys.modules)
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")
