"""The PySide6 workbench (engine/ never imports this package)."""
