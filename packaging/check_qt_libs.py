"""Report the Debian libraries Qt needs that this machine lacks.

Run by ``make test`` before the suite. Exits 1 with the ``apt-get`` line to run
when a library is missing, so the failure names its cause instead of a crash.
"""

from __future__ import annotations

import ctypes.util
import shutil
import subprocess
import sys

# shared library stem -> Debian package (from ECOSYSTEM.md's measured list)
QT_LIBRARIES = {
    "EGL": "libegl1",
    "GL": "libgl1",
    "X11": "libx11-6",
    "dbus-1": "libdbus-1-3",
    "fontconfig": "libfontconfig1",
    "freetype": "libfreetype6",
    "glib-2.0": "libglib2.0-0",
    "xkbcommon": "libxkbcommon0",
}
FONT_PACKAGES = ("fontconfig-config", "fonts-dejavu-core")


def missing_packages() -> list[str]:
    """Return the Debian packages whose libraries or fonts are absent."""
    missing = [pkg for lib, pkg in QT_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if shutil.which("dpkg-query"):
        for pkg in FONT_PACKAGES:
            ok = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
            if "install ok installed" not in ok.stdout:
                missing.append(pkg)
    if not shutil.which("pdftotext") or not shutil.which("pdftoppm"):
        missing.append("poppler-utils")  # the PDF report tests read and render the reports with them
    return missing


def main() -> int:
    missing = missing_packages()
    if missing:
        print("Qt needs Debian packages this machine lacks: " + " ".join(missing))
        print("install them with:  apt-get install -y --no-install-recommends " + " ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
