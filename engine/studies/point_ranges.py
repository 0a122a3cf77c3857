"""The points a sweep still has to run, as ranges of consecutive point indexes.

A fresh sweep of a million points has one range to run, a resumed one a range per gap
left by the interruption: the list of points to do costs memory per gap, never per point
(an array of every index would be 8 MB a million points, kept for the whole sweep).
"""

from __future__ import annotations

import numpy as np


class PointRanges:
    """Point indexes ``starts[k] <= i < stops[k]``, ranges in increasing order, read as one sequence.

    Parameters
    ----------
    starts, stops : array_like of int
        First and one-past-last point index of each range; ranges do not overlap and are in
        increasing order; empty ranges are dropped.
    """

    def __init__(self, starts, stops):
        starts = np.asarray(starts, dtype=np.int64)
        stops = np.asarray(stops, dtype=np.int64)
        keep = stops > starts
        self.starts, self.stops = starts[keep], stops[keep]
        #: Position in the sequence of each range's first index (one more entry: the length).
        self.offsets = np.concatenate(([0], np.cumsum(self.stops - self.starts))).astype(np.int64)

    @classmethod
    def not_done(cls, done: np.ndarray) -> PointRanges:
        """The indexes where ``done`` (one boolean a point) is False."""
        edges = np.diff(np.concatenate(([True], np.asarray(done, dtype=bool), [True])).astype(np.int8))
        return cls(np.flatnonzero(edges == -1), np.flatnonzero(edges == 1))

    def __len__(self) -> int:
        return int(self.offsets[-1])

    @property
    def nbytes(self) -> int:
        """Memory held by the ranges, bytes (it grows with the number of ranges only)."""
        return self.starts.nbytes + self.stops.nbytes + self.offsets.nbytes

    def first(self) -> int | None:
        """The first index, or None when there is none."""
        return int(self.starts[0]) if len(self.starts) else None

    def __getitem__(self, where: slice) -> np.ndarray:
        """The indexes at positions ``where`` of the sequence (a slice with step 1), as int64.

        Raises
        ------
        TypeError
            ``where`` is not a slice with step 1 (a single position is not supported).
        """
        if not isinstance(where, slice) or where.step not in (None, 1):
            raise TypeError("PointRanges takes a slice with step 1")
        low, high, _ = where.indices(len(self))
        if high <= low:
            return np.zeros(0, dtype=np.int64)
        # ranges overlapping positions [low, high): their part inside, shifted to point indexes
        k0 = int(np.searchsorted(self.offsets, low, side="right")) - 1
        k1 = int(np.searchsorted(self.offsets, high, side="left"))
        pieces = []
        for k in range(k0, k1):
            a = max(low, int(self.offsets[k])) - int(self.offsets[k]) + int(self.starts[k])
            b = min(high, int(self.offsets[k + 1])) - int(self.offsets[k]) + int(self.starts[k])
            pieces.append(np.arange(a, b, dtype=np.int64))
        return np.concatenate(pieces)

    def without_first(self) -> PointRanges:
        """These indexes but the first."""
        if not len(self.starts):
            return self
        starts = self.starts.copy()
        starts[0] += 1
        return PointRanges(starts, self.stops)


__all__ = ["PointRanges"]
