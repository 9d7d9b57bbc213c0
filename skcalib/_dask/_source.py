"""The Newton solver's data source on partitions persisted on the workers.

:class:`DaskData` implements the data-source protocol of
:mod:`skcalib._solver` (``n_samples``, ``reduce``, ``map``, ``subsample``):
each pass of the solver evaluates the objective's chunk sums on the workers,
where the prepared partitions stay, and adds them on the client.
"""

from __future__ import annotations

import operator
from functools import reduce as _fold

import numpy as np

from .._solver import ArrayData
from ._partitions import _as_1d, _as_float, _first_pass, _partitions

__all__ = ["DaskData", "column_source", "stack_sources"]


def _prepare_partition(y, s, w, pos_label):
    """Clean (scores, is_target, weights) of one partition, zero weights dropped."""
    s = _as_float(s, "X")
    t = np.asarray(_as_1d(y) == pos_label, dtype=bool)
    if w is not None:
        w = _as_float(w, "sample_weight")
        keep = w > 0
        if not keep.all():
            s, t, w = s[keep], t[keep], w[keep]
    return s, t, w


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


def column_source(y, col, sample_weight, pos_label):
    """Validate one score column and persist its cleaned partitions.

    Returns the :class:`DaskData` of ``(scores, is_target, weights)``
    partitions (zero weights dropped) and the :class:`DaskInputSummary`.
    """
    import dask

    parts = _partitions({"X": col, "y": y, "sample_weight": sample_weight})
    parts = [(yp, sp, wp) for sp, yp, wp in parts]
    summary, _ = _first_pass(
        parts,
        pos_label=pos_label,
        score_name="X",
        y_name="y",
        require_both=True,
        n_ranges=1,
        weighted=sample_weight is not None,
        allow_inf=False,
    )
    prepared = dask.persist(
        *[
            dask.delayed(_prepare_partition, pure=True)(yp, sp, wp, summary.pos_label)
            for yp, sp, wp in parts
        ]
    )
    return DaskData(prepared), summary


def _stack_partitions(*parts):
    """``(X (n, k), is_target, weights)`` from the cleaned partitions of k columns."""
    X = np.column_stack([p[0] for p in parts])
    return X, parts[0][1], parts[0][2]


def stack_sources(sources):
    """One :class:`DaskData` of all columns side by side.

    The column sources come from :func:`column_source` on the same ``y`` and
    ``sample_weight``, so their partitions hold the same rows (the same zero
    weights are dropped from each) and stack row by row.
    """
    import dask

    parts = dask.persist(
        *[
            dask.delayed(_stack_partitions, pure=True)(*column_parts)
            for column_parts in zip(*(s.parts for s in sources), strict=True)
        ]
    )
    return DaskData(parts, sources[0]._n)
