"""Runtime hook of the bundle: numba's cache in a writable place (the bundle folder may be read-only)."""

import os
import tempfile

# the bundle folder may be read-only; numba caches compiled kernels next to the sources by default
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "qrtune-numba-cache"))
