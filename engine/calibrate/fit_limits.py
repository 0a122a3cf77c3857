"""How much work one monitor fit (``qrtune fit``, the Monitor tab) may do.

Kept apart from :mod:`engine.calibrate.fit` so the command line can show these limits in its help
without importing the fit itself.
"""

from __future__ import annotations

#: At most this many intervals are fitted (and as many held out): a week of 10-second intervals is
#: 60,480, and each fit iteration predicts every fitted interval once per coefficient.
MAX_INTERVALS = 300
#: Engine predictions one fit may make in its least-squares loop (every evaluation of the residuals,
#: Jacobian columns included, predicts each fitted interval once): at about 0.5 ms a prediction,
#: about 15 s of CPU.
MAX_PREDICTIONS = 30_000
#: Wall-clock seconds the least-squares loop may take (``qrtune fit --budget-s``); after it the best
#: coefficients seen so far are returned and :attr:`FitResult.stopped_at` says so.
FIT_BUDGET_S = 15.0
