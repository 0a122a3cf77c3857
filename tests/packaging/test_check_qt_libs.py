"""The Qt library check names the desktop (xcb) plugin's Debian packages only when a window is wanted."""

from __future__ import annotations

import ctypes.util
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "check_qt_libs.py"


@pytest.fixture
def check(monkeypatch):
    spec = importlib.util.spec_from_file_location("check_qt_libs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    real = ctypes.util.find_library
    # this machine "lacks" the two libraries the issue found missing on a fresh Debian desktop
    monkeypatch.setattr(
        ctypes.util,
        "find_library",
        lambda name: None if name in ("xcb-icccm", "xcb-keysyms") else real(name) or "lib.so",
    )
    return module


def test_offscreen_check_ignores_the_xcb_plugin(check):
    assert "libxcb-icccm4" not in check.missing_packages(desktop=False)


def test_desktop_check_names_the_missing_xcb_packages(check):
    missing = check.missing_packages(desktop=True)
    assert "libxcb-icccm4" in missing and "libxcb-keysyms1" in missing
    assert "libxcb-cursor0" not in missing


def test_display_set_turns_on_the_desktop_check(check, monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    assert check.main([]) == 1
    out = capsys.readouterr().out
    assert "desktop (xcb)" in out and "apt-get install" in out and "libxcb-keysyms1" in out
    monkeypatch.delenv("DISPLAY")
    check.missing_packages = lambda desktop, for_tests: ["libxcb-icccm4"] if desktop else []
    assert check.main([]) == 0


def test_poppler_is_asked_for_by_the_tests_only(check, monkeypatch):
    """``make run`` needs what the window needs; poppler-utils only serves the PDF report tests."""
    import shutil

    monkeypatch.setattr(
        shutil, "which", lambda name: None if name.startswith("pdfto") else f"/usr/bin/{name}"
    )
    assert "poppler-utils" not in check.missing_packages(desktop=True)
    assert "poppler-utils" in check.missing_packages(desktop=False, for_tests=True)


def test_nothing_is_checked_outside_linux(check, monkeypatch):
    monkeypatch.setattr(check.sys, "platform", "win32")
    assert check.missing_packages(desktop=True, for_tests=True) == []
