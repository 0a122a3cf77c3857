"""``python -m qrtune``: the ``qrtune`` command line."""

import sys

from qrtune.engine.cli import main

sys.exit(main())
