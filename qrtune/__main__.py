"""``python -m qrtune`` runs the qrtune command line."""

import sys

from qrtune.cli import main

sys.exit(main())
