"""The PySide6 workbench (engine/ never imports this package)."""

from app.qtcompat import guard_singleton_refcounts

guard_singleton_refcounts()
