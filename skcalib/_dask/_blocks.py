"""Exact distributed PAV block summary on Dask collections.

How the block summary is distributed
------------------------------------
PAV of contiguous score ranges solved separately, followed by PAV over the
concatenated blocks in score order, equals PAV of the whole: the
global isotonic solution is constant on every block of every range, so the
range blocks are just coarser points. :func:`dask_pav_blocks` therefore makes
two passes over the data:

1. per partition, a validation summary and a strided sample of the scores;
   on the client, approximate quantiles of the pooled samples become the
   range boundaries ``b_1 < ... < b_{R-1}`` (distinct score *values*);
2. per partition, the samples are split by range, ``b_{r-1} <= s < b_r``
   (``np.searchsorted(..., side="right")``), so tied scores can never straddle
   two ranges; per range, on the workers, the kernel's
   :func:`~skcalib._kernel._pav.pav_points`
   and :func:`~skcalib._kernel._pav.pav_merge` (never a re-implementation); on the
   client, one more :func:`~skcalib._kernel._pav.pav_merge` over the range blocks in
   score order.

The result equals :func:`~skcalib._kernel._pav.pav_blocks` on the same data: the same
blocks (``lo``/``hi`` bit for bit) and block weights up to summation order
(exact for integer weights).

The range boundaries only balance the work; a badly chosen boundary costs
memory on one worker, never correctness. A single tied score value is never
split, so a range holds at least all samples tied at one score.

Computed once per data set
--------------------------
Nothing is kept between calls here: the range blocks of one data set are
kept by the object that owns the data, the Dask trials handle
:class:`~skcalib._dask._trials.DaskTrials` (its ``ranges``), which a fit
and the metrics on the same columns share explicitly.
"""

from __future__ import annotations

import numpy as np

from .._kernel._pav import BlockSummary, pav_finish, pav_merge, pav_points
from ..utils._docstrings import doc_blocks, fill_doc
from ._partitions import (
    DaskInputSummary,
    _first_pass,
    _partitions,
    clean_partition,
)

__all__ = [
    "dask_block_summary",
    "range_blocks",
    "validated_ranges",
    "dask_pav_blocks",
]


def _split_partition(y, s, w, pos_label, boundaries):
    """Split one partition into its score ranges: a tuple of (s, t, w)."""
    s, t, w = clean_partition(y, s, w, pos_label)
    n_ranges = boundaries.shape[0] + 1
    # Boundaries are values: range r holds b[r-1] <= s < b[r], so ties stay
    # together. Range ids fit in 16 bits, where the stable sort is a radix sort.
    rid = np.searchsorted(boundaries, s, side="right")
    rid = rid.astype(np.uint16 if n_ranges < 2**16 else np.intp)
    order = np.argsort(rid, kind="stable")
    edges = np.zeros(n_ranges + 1, dtype=np.intp)
    np.cumsum(np.bincount(rid, minlength=n_ranges), out=edges[1:])
    s, t = s[order], t[order]
    if w is not None:
        w = w[order]
    return tuple(
        (
            s[a:b],
            t[a:b],
            None if w is None else w[a:b],
        )
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    )


def _empty_summary() -> BlockSummary:
    e = np.empty(0)
    return BlockSummary(e, e.copy(), e.copy(), e.copy())


def _solve_range(*pieces) -> tuple:
    """PAV blocks of one score range (the kernel, on a worker).

    Returned as a plain tuple of the four arrays (cheap to serialize).
    """
    s = np.concatenate([p[0] for p in pieces])
    if s.shape[0] == 0:
        return tuple(_empty_summary())
    t = np.concatenate([p[1] for p in pieces])
    if pieces[0][2] is None:
        points = pav_points(s, t)
    else:
        points = pav_points(s, t, np.concatenate([p[2] for p in pieces]))
    return tuple(pav_merge(points))


def _concat(summaries: list[BlockSummary]) -> BlockSummary:
    summaries = [b for b in summaries if b.lo.shape[0]]
    if not summaries:
        return _empty_summary()
    return BlockSummary(*(np.concatenate(f) for f in zip(*summaries, strict=True)))


def _range_blocks(parts, summary: DaskInputSummary) -> list[BlockSummary]:
    """Pass 2: the PAV blocks of every score range, in score order."""
    import dask

    n_ranges = summary.boundaries.shape[0] + 1
    split = [
        dask.delayed(_split_partition, pure=True)(
            y, s, w, summary.pos_label, summary.boundaries
        )
        for y, s, w in parts
    ]
    pieces = [[p[r] for p in split] for r in range(n_ranges)]
    tasks = [dask.delayed(_solve_range, pure=True)(*row) for row in pieces]
    (blocks,) = dask.compute(tasks)
    return [BlockSummary(*b) for b in blocks]


def dask_block_summary(
    y_true, y_score, sample_weight=None, *, pseudo_count: float = 0.0, **checks
) -> tuple[BlockSummary, DaskInputSummary]:
    """Validate Dask inputs and compute their PAV block summary, distributed.

    The Dask counterpart of ``check_metric_inputs`` followed by
    :func:`~skcalib._kernel._pav.pav_blocks`: the same checks and messages, and the
    same blocks: :func:`range_blocks` (``checks`` are its keyword
    arguments), finished with ``pseudo_count`` (as in
    :func:`~skcalib._kernel._pav.pav_blocks`).

    Returns
    -------
    blocks : BlockSummary
        Equal to ``pav_blocks`` of the same data (weights to rounding).
    summary : DaskInputSummary
        Labels, class totals and the range boundaries used.
    """
    ranges, summary = range_blocks(y_true, y_score, sample_weight, **checks)
    return pav_finish(ranges, pseudo_count), summary


def _n_ranges_doc(scores):
    """The block ``{n_ranges}`` of a function chunking ``scores``."""
    return doc_blocks(
        n_ranges=f"""
            n_ranges : int or None, default=None
                Number of score ranges solved in parallel; ``None`` means the number
                of partitions of ``{scores}``, at most 64.
            """
    )


@fill_doc(_n_ranges_doc("y_score"))
@fill_doc(_n_ranges_doc("scores"))
def range_blocks(
    y_true,
    y_score,
    sample_weight=None,
    *,
    pos_label=None,
    score_name: str = "y_score",
    y_name: str = "y_true",
    require_both: bool = True,
    allow_inf: bool = True,
    n_ranges: int | None = None,
) -> tuple[BlockSummary, DaskInputSummary]:
    """The two passes over Dask inputs: validate and sample, then the blocks
    of every score range.

    Parameters
    ----------
    y_true : Dask array or Dask Series of shape (n_samples,)
        Labels (two distinct values).
    y_score : Dask array or Dask Series of shape (n_samples,)
        Scores; +/-inf allowed, NaN not.
    sample_weight : Dask array, Dask Series, array-like or None, default=None
        Non-negative weights; zero-weight samples are dropped.
    pos_label : int, float, bool or str, default=None
        The target label; may be omitted for labels in {0, 1}, {-1, 1} or
        booleans. ``ESTIMATOR_LABELS`` applies the estimators' rule instead:
        exactly two labels, the larger one the target.
    score_name, y_name : str
        Argument names used in error messages.
    require_both : bool, default=True
        Whether both classes must be present with non-zero weight.
    allow_inf : bool, default=True
        Whether +/-inf scores are allowed (the estimators reject them).
    {n_ranges}

    Returns
    -------
    ranges : BlockSummary
        The blocks of every score range in score order; ``pav_finish`` of
        them is the block summary.
    summary : DaskInputSummary
        What the first pass found.
    """
    # the scores are the reference for chunking
    parts = _partitions(
        {score_name: y_score, y_name: y_true, "sample_weight": sample_weight}
    )
    parts = [(y, s, w) for s, y, w in parts]
    summary, _ = _first_pass(
        parts,
        pos_label=pos_label,
        score_name=score_name,
        y_name=y_name,
        require_both=require_both,
        n_ranges=n_ranges,
        weighted=sample_weight is not None,
        allow_inf=allow_inf,
    )
    return validated_ranges(parts, summary), summary


def validated_ranges(parts, summary) -> BlockSummary:
    """The range blocks of validated ``(y, scores, weights)`` partitions.

    ``summary`` comes from the first pass over them (its ``boundaries`` are
    those of these scores); ``pav_finish`` of the result is the block
    summary.
    """
    return _concat(_range_blocks(parts, summary))


def dask_pav_blocks(
    scores,
    is_target,
    sample_weight=None,
    *,
    pseudo_count: float = 0.0,
    n_ranges: int | None = None,
) -> BlockSummary:
    """Distributed :func:`~skcalib._kernel._pav.pav_blocks` over Dask collections.

    Parameters
    ----------
    scores : Dask array or Dask Series of shape (n_samples,)
        Scores; +/-inf allowed, NaN not.
    is_target : Dask array or Dask Series of shape (n_samples,), bool
    sample_weight : Dask array, Dask Series or None, default=None
        Non-negative weights; zero-weight samples are dropped before PAV.
    pseudo_count : float, default=0.0
        As in :func:`~skcalib._kernel._pav.pav_blocks`.
    {n_ranges}

    Returns
    -------
    blocks : BlockSummary
        The same blocks as ``pav_blocks`` on the computed arrays; block
        weights equal up to summation order.

    Examples
    --------
    >>> import numpy as np
    >>> import dask
    >>> import dask.array as da
    >>> from skcalib._dask._blocks import dask_pav_blocks
    >>> s = da.from_array(np.array([0.1, 0.2, 0.3, 0.3, 0.4]), chunks=2)
    >>> y = da.from_array(np.array([False, True, False, True, True]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     b = dask_pav_blocks(s, y)
    >>> (b.tar / (b.tar + b.non)).round(3).tolist()   # ties 0.3 pooled
    [0.0, 0.667, 1.0]
    >>> b.lo.tolist(), b.hi.tolist()
    ([0.1, 0.2, 0.4], [0.1, 0.3, 0.4])
    """
    blocks, _ = dask_block_summary(
        is_target,
        scores,
        sample_weight,
        pos_label=True,
        score_name="scores",
        y_name="is_target",
        require_both=False,
        pseudo_count=pseudo_count,
        n_ranges=n_ranges,
    )
    return blocks
