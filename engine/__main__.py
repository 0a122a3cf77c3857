"""``python -m engine`` runs the engine's subcommands of qrtune (``python -m qrtune`` adds ``gui`` and ``report``)."""

import sys

from engine.cli import main

sys.exit(main())
