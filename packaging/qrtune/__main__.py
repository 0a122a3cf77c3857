"""``python -m qrtune``: the ``qrtune`` command line."""

import sys

from qrtune.cli import main

sys.exit(main())
