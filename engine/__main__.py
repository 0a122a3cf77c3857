"""``python -m engine`` runs the qrtune command line."""

import sys

from engine.cli import main

sys.exit(main())
