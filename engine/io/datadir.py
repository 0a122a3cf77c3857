"""The one folder where qrtune keeps the user's data: the results store and the workbench's autosaves."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_dir

APP_NAME = "qrtune"
"""Name of the data folder (no vendor folder above it)."""


def user_data_root() -> Path:
    """The user data folder: ``~/.local/share/qrtune`` on Linux, ``%LOCALAPPDATA%\\qrtune`` on Windows,
    ``~/Library/Application Support/qrtune`` on macOS (platformdirs). It is not created here."""
    return Path(user_data_dir(APP_NAME, appauthor=False))
