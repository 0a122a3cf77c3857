"""engine/ never imports Qt: it imports and runs in a Python where PySide6 cannot be found."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

BLOCK_QT = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6', 'app'):
            raise ModuleNotFoundError(f'No module named {name!r} (blocked)', name=name)
sys.meta_path.insert(0, Block())
"""


def test_engine_imports_without_qt():
    code = BLOCK_QT + """
import pkgutil, importlib, engine
for m in pkgutil.walk_packages(engine.__path__, 'engine.'):
    if m.name == 'engine.__main__':
        continue
    importlib.import_module(m.name)
assert not any(k.startswith('PySide6') for k in sys.modules)
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_engine_tests_pass_without_qt():
    code = BLOCK_QT + """
import pytest
sys.exit(pytest.main(['-q', '-x', '-p', 'no:cacheprovider', '-W', 'ignore::pytest.PytestConfigWarning',
                      'tests/engine', '-k', 'not without_qt']))
"""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
