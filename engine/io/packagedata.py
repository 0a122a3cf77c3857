"""Where the package data is: the fitted coefficients and published measurements under ``assets/``.

``assets`` is a package next to ``engine`` (in the checkout: the top-level folder; in an installed
wheel: ``qrtune.assets``), read with :mod:`importlib.resources` so the same code finds it in the
checkout, in ``site-packages`` and in the desktop bundle.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

ASSETS_PACKAGE = __name__.removesuffix("engine.io.packagedata") + "assets"
"""``assets`` in the checkout, ``qrtune.assets`` when ``engine`` is installed as ``qrtune.engine``."""


def asset_path(*parts: str) -> Path:
    """The file ``assets/<parts...>`` of the package data (it may not exist).

    Parameters
    ----------
    *parts : str
        Path components below ``assets/``, e.g. ``("coefficients", "qrep.json")``.

    Returns
    -------
    pathlib.Path
        The file on disk (the package data is always installed unzipped).
    """
    return Path(str(files(ASSETS_PACKAGE).joinpath(*parts)))
