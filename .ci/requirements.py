"""Print requirement lines from pyproject.toml for the CI venvs (one per line).

    python .ci/requirements.py --without PySide6-Essentials pyqtgraph   # dependencies + test extras, minus some
    python .ci/requirements.py --lowest                                 # constraints: each lower bound pinned

``--lowest`` pins the run-time dependencies and the ``dask`` extra to their ``>=`` bounds (the test
tools stay free: they are not what a user installs).
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without", nargs="*", default=[], metavar="NAME")
    parser.add_argument("--lowest", action="store_true")
    args = parser.parse_args()
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras = project["optional-dependencies"]
    if args.lowest:
        for requirement in [*project["dependencies"], *extras["dask"]]:
            bound = re.search(r">=\s*([\w.]+)", requirement)
            if bound:
                print(f"{_name(requirement)}=={bound.group(1)}")
        return
    dropped = {n.lower() for n in args.without}
    for requirement in [*project["dependencies"], *extras["test"]]:
        if _name(requirement).lower() not in dropped:
            print(requirement.split("#")[0].strip())


if __name__ == "__main__":
    main()
