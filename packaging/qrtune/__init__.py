"""The installed distribution's only top-level package: ``qrtune.engine``, ``qrtune.app``, ``qrtune.assets``.

The repository keeps its three top-level folders (``engine/``, ``app/``, ``assets/``); an installed
wheel carries them as ``qrtune/engine``, ``qrtune/app`` and ``qrtune/assets`` (``setup.py`` maps
them), so nothing but ``qrtune`` lands in ``site-packages``. The code itself imports its siblings
by their short names (``from engine.model import Project``); importing this package installs
:class:`ShortNameFinder`, which answers ``engine``, ``app`` and ``assets`` (and their submodules)
with the very module objects of ``qrtune.engine``, ``qrtune.app`` and ``qrtune.assets``. Each
module therefore exists once, named ``qrtune.<...>`` (what pickles and Dask workers see), and a
worker that unpickles ``qrtune.engine.studies.sweep`` imports this package first, so the short names work
there too.

The short names are answered only in a process that imported ``qrtune``; they shadow any other
distribution's ``engine``/``app``/``assets`` package in that process (and only there).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

SHORT_NAMES = ("engine", "app", "assets")
"""Top-level folders of the repository, installed under this package."""


class _ExistingModuleLoader(importlib.abc.Loader):
    """Hand the import system a module that is already imported under its ``qrtune.`` name."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        """Nothing to run: the module was executed under its ``qrtune.`` name."""


class ShortNameFinder(importlib.abc.MetaPathFinder):
    """Resolve ``engine.x`` (``app.x``, ``assets.x``) to the module ``qrtune.engine.x``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in SHORT_NAMES:
            return None
        module = importlib.import_module(f"{__name__}.{fullname}")
        is_package = hasattr(module, "__path__")
        return importlib.util.spec_from_loader(fullname, _ExistingModuleLoader(module), is_package=is_package)


def _install() -> None:
    """Answer the short names, unless ``engine`` is not under this package (the desktop bundle and
    ``packaging/entry.py`` in a checkout without an install import it as the top-level ``engine``)."""
    if importlib.util.find_spec(f"{__name__}.engine") is None:
        return
    if not any(isinstance(f, ShortNameFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ShortNameFinder())


_install()
