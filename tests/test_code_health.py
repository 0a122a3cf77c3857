"""Code health gates that run with the suite: small functions (cyclomatic complexity <= 25) in the product
(engine/, app/ and packaging/, where the qrtune command lives), and colours named once, in app/style.py."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MAX_COMPLEXITY = 25
#: A colour written as a literal (``#c0202a``) in Python source.
COLOUR_LITERAL = re.compile(r"#[0-9a-fA-F]{6}\b")


def test_no_function_of_the_product_is_above_complexity_25():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--select",
            "C901",
            "--output-format",
            "concise",
            "--config",
            f"lint.mccabe.max-complexity={MAX_COMPLEXITY}",
            "engine",
            "app",
            "packaging",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_colours_are_named_in_app_style_only():
    style = ROOT / "app" / "style.py"
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for folder in ("app", "engine")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != style
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if COLOUR_LITERAL.search(line)
    ]
    assert not found, "colour literals outside app/style.py:\n" + "\n".join(found)
    assert COLOUR_LITERAL.search(style.read_text())  # the style module does hold them
