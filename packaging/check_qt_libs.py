"""Report the Debian libraries Qt needs that this machine lacks.

Run by ``make test`` (offscreen, ``--for-tests``) and ``make run`` (on a desktop) before Qt starts.
Exits 1 with the ``apt-get`` line to run when a library is missing, so the failure
names its cause instead of Qt's ``Could not load the Qt platform plugin "xcb"``.

With a display (``DISPLAY`` set) or ``--desktop``, the libraries of Qt's desktop
platform plugin (xcb, ``libqxcb.so``) are checked too; offscreen needs only the first list.
With ``--for-tests`` the tools the report tests use (poppler-utils) are checked too: the
window itself never needs them. On Windows and macOS nothing is checked (PySide6's wheels
carry what Qt needs there).
"""

from __future__ import annotations

import ctypes.util
import os
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
# what PySide6's xcb platform plugin (libqxcb.so) loads on a desktop, beyond QT_LIBRARIES
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-image": "libxcb-image0",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-render": "libxcb-render0",
    "xcb-shape": "libxcb-shape0",
    "xcb-util": "libxcb-util1",
    "xcb-xkb": "libxcb-xkb1",
    "xkbcommon-x11": "libxkbcommon-x11-0",
}
FONT_PACKAGES = ("fontconfig-config", "fonts-dejavu-core")


def _absent(libraries: dict[str, str]) -> list[str]:
    """The Debian packages of ``libraries`` (stem -> package) whose library the loader cannot find."""
    return [pkg for lib, pkg in libraries.items() if ctypes.util.find_library(lib) is None]


def missing_packages(desktop: bool = False, for_tests: bool = False) -> list[str]:
    """Return the Debian packages whose libraries or fonts are absent (none outside Linux).

    Parameters
    ----------
    desktop : bool
        Also check the xcb platform plugin's libraries (a window on an X display).
    for_tests : bool
        Also check the tools the test suite needs (poppler-utils' pdftotext and pdftoppm).
    """
    if not sys.platform.startswith("linux"):
        return []
    missing = _absent(QT_LIBRARIES)
    if desktop:
        missing += _absent(XCB_LIBRARIES)
    if shutil.which("dpkg-query"):
        for pkg in FONT_PACKAGES:
            ok = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
            if "install ok installed" not in ok.stdout:
                missing.append(pkg)
    if for_tests and (not shutil.which("pdftotext") or not shutil.which("pdftoppm")):
        missing.append("poppler-utils")  # the PDF report tests read and render the reports with them
    return missing


def main(argv: list[str] | None = None) -> int:
    """Print the missing packages and the install line; 1 when any is missing, else 0."""
    argv = sys.argv[1:] if argv is None else argv
    desktop = "--desktop" in argv or bool(os.environ.get("DISPLAY"))
    missing = missing_packages(desktop, for_tests="--for-tests" in argv)
    if missing:
        where = "the desktop (xcb)" if desktop else "offscreen"
        print(f"Qt ({where}) needs Debian packages this machine lacks: " + " ".join(missing))
        print("install them with:  apt-get install -y --no-install-recommends " + " ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
