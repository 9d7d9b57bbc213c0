"""The Newton solver's data source on partitions persisted on the workers.

:class:`DaskData` implements the data-source protocol of
:mod:`skcalib._kernel._solver` (``n_samples``, ``reduce``, ``map``, ``subsample``):
each pass of the solver evaluates the objective's chunk sums on the workers,
where the prepared partitions stay, and adds them on the client.
"""

from __future__ import annotations

import operator
from functools import reduce as _fold

import numpy as np

from .._kernel._solver import ArrayData

__all__ = ["DaskData"]


def _length(part):
    return part[0].shape[0]


def _take(part, rows):
    return tuple(None if a is None else a[rows] for a in part)


class DaskData:
    """The solver's data source on partitions persisted on the Dask workers.

    Each partition is one chunk (a tuple of arrays, e.g. ``(scores,
    is_target, weights)``). ``reduce`` evaluates a function on every
    partition on the workers and combines the results on the client (one
    pass); ``map`` persists a function of every partition where it lives;
    ``subsample`` gathers the rows of the in-memory systematic subsample
    ``rows[step // 2 :: step]`` (or random rows) to the client.

    Parameters
    ----------
    parts : list of Delayed
        Persisted partitions.
    n_samples : int or None, default=None
        Total number of rows (computed on first use if None).
    """

    def __init__(self, parts, n_samples=None):
        self.parts = list(parts)
        self._n = n_samples
        self._lengths = None
        self._subsamples = {}

    def lengths(self):
        if self._lengths is None:
            import dask

            self._lengths = np.array(
                dask.compute(*[dask.delayed(_length)(p) for p in self.parts]),
                dtype=np.int64,
            )
        return self._lengths

    @property
    def n_samples(self):
        if self._n is None:
            self._n = int(self.lengths().sum())
        return self._n

    def reduce(self, fn, combine=operator.add):
        import dask

        (results,) = dask.compute([dask.delayed(fn, pure=False)(p) for p in self.parts])
        return _fold(combine, results)

    def map(self, fn):
        import dask

        parts = dask.persist(*[dask.delayed(fn, pure=False)(p) for p in self.parts])
        return DaskData(parts, self._n)

    def subsample(self, n, random_state=None):
        key = (int(n), random_state)
        if key not in self._subsamples:
            import dask

            total = self.n_samples
            step = max(1, total // int(n))
            if random_state is None:
                rows = np.arange(step // 2, total, step)
            else:
                rng = np.random.default_rng(random_state)
                rows = np.sort(rng.choice(total, total // step, replace=False))
            edges = np.concatenate([[0], np.cumsum(self.lengths())])
            cuts = np.searchsorted(rows, edges)
            pieces = dask.compute(
                *[
                    dask.delayed(_take)(p, rows[a:b] - lo)
                    for p, a, b, lo in zip(
                        self.parts, cuts[:-1], cuts[1:], edges[:-1], strict=True
                    )
                ]
            )
            arrays = [
                None if col[0] is None else np.concatenate(col)
                for col in zip(*pieces, strict=True)
            ]
            self._subsamples[key] = ArrayData(*arrays)
        return self._subsamples[key]
