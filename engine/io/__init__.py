"""Files qrtune reads and writes: project files, JSON, CSV cells, atomic writes, data folders, package data."""
