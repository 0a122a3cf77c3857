"""Package layout of the wheel (everything else is in ``pyproject.toml``).

The repository's top-level folders ``engine/``, ``app/`` and ``assets/`` are installed as
``qrtune.engine``, ``qrtune.app`` and ``qrtune.assets``; ``packaging/qrtune/`` is the ``qrtune``
package itself (it lets the code keep importing ``engine``/``app``/``assets`` by their short
names). Sub-packages are found at build time, so a new one needs no edit here.
"""

from setuptools import find_packages, setup

FOLDERS = ("engine", "app", "assets")
"""Repository folders installed under the ``qrtune`` package."""

packages = ["qrtune"] + [
    f"qrtune.{name}" for folder in FOLDERS for name in find_packages(include=[folder, f"{folder}.*"])
]
package_dir = {"qrtune": "packaging/qrtune", **{f"qrtune.{folder}": folder for folder in FOLDERS}}
# the user guide and its screenshots, shown by the window's Help > User Guide (qrtune/docs)
packages.append("qrtune.docs")
package_dir["qrtune.docs"] = "docs"

# The sample projects and the sample monitor exports (File > Open Sample Monitor Exports), installed as
# qrtune/sample_runs/ next to qrtune/assets/ as in the checkout and the desktop bundle (with the build.py
# scripts that regenerate them).
packages.append("qrtune.sample_runs")
package_dir["qrtune.sample_runs"] = "sample_runs"
SAMPLE_DATA = ["*.json", "monitor-baseline/*.csv", "monitor-baseline/README.md"]

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={
        "qrtune.assets": ["coefficients/*.json", "validation/*.json", "validation/*.md", "layouts/*.json"],
        "qrtune.docs": ["user-guide.md", "user-guide/*.png"],
        "qrtune.sample_runs": SAMPLE_DATA,
    },
)
