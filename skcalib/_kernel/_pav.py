"""The PAV kernel: one sort, tie pooling, pool-adjacent-violators.

Everything in skcalib that needs isotonic regression, PAV-LLRs or the ROC
convex hull calls :func:`pav_blocks` and derives its result from the returned
:class:`BlockSummary`. Functions here take clean arrays (float64
scores, boolean labels, optional positive float64 weights) and do math only;
validation lives in the public wrappers.

How the O(n log n) part is kept to value sorts
----------------------------------------------
For unweighted data the two classes are value-sorted separately (``np.sort``
is several times faster than ``np.argsort``), and only the distinct values of
the minority class are located in the majority class with ``np.searchsorted``,
chunk by chunk of the sorted values so that each search stays in a slice of
the majority that fits in cache. The majority-class samples between two
consecutive minority values form a *pure run*, which can be pooled into one
point without changing the isotonic solution (adjacent points with equal
labels always end up in the same block); so can consecutive minority values
with no majority sample between or tied with them. The sequence handed to
PAV therefore has at most ``2 * min(n_tar, n_non) + 1`` points. Weighted
data take one ``np.argsort``.

PAV proper runs in the compiled routine of scipy's ``isotonic_regression``
on that short sequence. Block totals are then re-summed exactly from the
points, and any adjacent blocks whose exact ratios are not strictly
increasing (equal ratios, or a rounding slip in the solver's running means)
are pooled again; pooling adjacent violators in any order converges to the
same unique solution, so this yields the canonical block partition: maximal
runs of equal fitted value.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import isotonic_regression

from ..utils._numpy_compat import count_nonzero
from ..utils._scipy_compat import pava as _pava
from ._sort import (
    BlockSummary,
    group_ties,
    labelled_sort,
    run_edges,
    run_ends,
    run_starts,
    sorted_labelled,
)

__all__ = [
    "BlockSummary",
    "pav_points",
    "pav_points_and_classes",
    "pav_points_presorted",
    "pav_merge",
    "pav_finish",
    "pav_blocks",
    "block_proba",
    "block_llr",
    "rocch_from_blocks",
    "pav_point_index",
    "pool_blocks",
]


def pool_blocks(
    points: BlockSummary, starts: np.ndarray, ends: np.ndarray | None = None
) -> BlockSummary:
    """Pool the contiguous groups of points that begin at ``starts`` (and
    end at ``ends``, if known)."""
    n = points.lo.shape[0]
    if starts.shape[0] == n:
        return points
    if ends is None:
        ends = run_ends(starts, n)
    return BlockSummary(
        points.lo[starts],
        points.hi[ends],
        np.add.reduceat(points.tar, starts),
        np.add.reduceat(points.non, starts),
    )


def _compress_pure_runs(points: BlockSummary) -> BlockSummary:
    """Pool adjacent points that hold only targets, or only non-targets."""
    if points.lo.shape[0] <= 1:
        return points
    kind = np.where(points.non == 0, 1, np.where(points.tar == 0, 0, 2))
    changed = (kind[1:] != kind[:-1]) | (kind[1:] == 2)
    return pool_blocks(points, run_starts(changed))


def _points_unweighted(
    scores: np.ndarray, is_target: np.ndarray, keep_sorted: list | None = None
) -> BlockSummary:
    """The points of many unweighted scores (see the module's notes); the
    scores of each class, sorted, are appended to ``keep_sorted`` (targets,
    then non-targets) if it is a list."""
    n = scores.shape[0]
    n_tar = np.count_nonzero(is_target)
    q_is_tar = 2 * n_tar <= n
    # q: the minority class, located in b: the majority class.
    nq = n_tar if q_is_tar else n - n_tar
    # One allocation for both classes and the work arrays of at most nq
    # entries (left, run_left, flags): first touches of separate arrays of a
    # few MiB cost a page fault per 4 KiB, which one large array mostly
    # takes on huge pages (1e7 scores: 1,400 faults instead of 3,100).
    scratch = 2 * nq + nq // 8 + 1
    if keep_sorted is None:
        work = np.empty(n + scratch)
        both, extra = work[:n], work[n:]
    else:  # the sorted classes outlive the work arrays
        both, extra = np.empty(n), np.empty(scratch)
    both = _split_classes(scores, is_target, q_is_tar, nq, both)
    q, b = both[:nq], both[nq:]
    q.sort()
    b.sort()
    nb = n - nq
    if keep_sorted is not None:
        keep_sorted.extend((q, b) if q_is_tar else (b, q))
    if nq == 0:
        one = np.array([float(nb)])
        zero = np.zeros(1)
        counts = (zero, one) if q_is_tar else (one, zero)
        return BlockSummary(b[:1].copy(), b[-1:].copy(), *counts)

    # Distinct minority values uq; q_first[i]: where uq[i] starts in q.
    flags = extra[2 * nq :].view(np.bool_)
    new_value = np.not_equal(q[1:], q[:-1], out=flags[: nq - 1])
    if count_nonzero(new_value) == nq - 1:
        uq, q_first = q, None
    else:
        q_first = run_starts(new_value)
        uq = q[q_first]
    # left[i]: majority samples below uq[i]. A run of consecutive minority
    # values with equal `left` has no majority sample between its values;
    # only its last value can be tied with majority samples (at b[left]).
    m = uq.shape[0]
    left = _searchsorted_sorted(b, uq, extra[:m].view(np.int64))
    edges = run_edges(np.not_equal(left[1:], left[:-1], out=flags[: m - 1]))
    run_left = extra[nq : nq + edges.shape[0] - 1].view(np.int64)
    left.take(edges[:-1], out=run_left, mode="clip")
    # the first majority sample at or above each run (clip: a run above
    # them all), tied with its last value?
    ends = edges[1:] - 1
    tied_end = b.take(run_left, mode="clip") == uq[ends]
    run_right = None
    if count_nonzero(tied_end):
        # such a value becomes a run of its own, holding its tied majority
        # samples
        tied = ends[tied_end]
        start = np.zeros(m + 1, dtype=bool)
        start[edges] = True
        start[tied] = True
        edges = np.flatnonzero(start)
        run_left = left.take(edges[:-1])
        run_right = run_left.copy()
        run_right[np.searchsorted(edges, tied)] = np.searchsorted(
            b, uq[tied], side="right"
        )
    points = _interleave_runs(both, nq, q_first, edges, run_left, run_right)
    lo, hi, q_cnt, b_cnt = points
    if q_is_tar:
        return BlockSummary(lo, hi, q_cnt, b_cnt)
    return BlockSummary(lo, hi, b_cnt, q_cnt)


#: Scores per step of :func:`_split_classes`.
_SPLIT_CHUNK = 1 << 16


def _split_classes(
    scores: np.ndarray,
    is_target: np.ndarray,
    q_is_tar: bool,
    nq: int,
    both: np.ndarray,
) -> np.ndarray:
    """Fill ``both`` (float64, as long as ``scores``) with the scores of the
    minority class ``q`` (targets if ``q_is_tar``), of size ``nq``, in input
    order, then those of the majority class ``b`` in no particular order
    (they are sorted next): one array, so that :func:`_interleave_runs`
    reads both classes with one ``take``.

    ``b`` is the first ``nb`` scores with their ``q`` samples replaced by the
    ``b`` samples among the remaining scores (there are as many), chunk by
    chunk so that the copy, the ``q`` samples read and the gaps filled stay
    in cache: one streaming pass over the scores instead of a mask pass per
    class. The ``b`` samples of the remaining scores wait in the space of
    ``q``, where each chunk swaps them for its ``q`` samples. The majority's
    order is not the input order, so where it holds both ``0.0`` and
    ``-0.0`` their order after the sort may differ from that of a sort of
    ``scores[b_mask]``.
    """
    n = scores.shape[0]
    nb = n - nq
    q, b = both[:nq], both[nq:]
    flags = np.empty(_SPLIT_CHUNK * 9 // 8 + 2, dtype=bool)
    # `take` into `out` with mode="clip" (the indices are in range): with
    # the default mode numpy fills a temporary copy of `out` first.
    n_tail_q = np.count_nonzero(is_target[nb:])
    if not q_is_tar:
        n_tail_q = nq - n_tail_q
    parked, placed = 0, nq - n_tail_q
    for start in range(nb, n, _SPLIT_CHUNK):
        stop = min(start + _SPLIT_CHUNK, n)
        src = scores[start:stop]
        in_q, in_b = is_target[start:stop], ~is_target[start:stop]
        if not q_is_tar:
            in_q, in_b = in_b, in_q
        idx = _true_positions(in_q, flags)
        end = placed + idx.shape[0]
        src.take(idx, out=q[placed:end], mode="clip")
        placed = end
        idx = np.flatnonzero(in_b)
        end = parked + idx.shape[0]
        src.take(idx, out=q[parked:end], mode="clip")
        parked = end
    done = 0
    for start in range(0, nb, _SPLIT_CHUNK):
        stop = min(start + _SPLIT_CHUNK, nb)
        dst = b[start:stop]
        np.copyto(dst, scores[start:stop])
        mask = is_target[start:stop]
        idx = _true_positions(mask if q_is_tar else ~mask, flags)
        end = done + idx.shape[0]
        found = dst.take(idx)
        dst[idx] = q[done:end]
        q[done:end] = found
        done = end
    return both


def _true_positions(mask: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``np.flatnonzero(mask)``, through the scratch array ``flags`` (bool,
    ``len(mask) * 9 // 8 + 2`` long suffices) where that is faster.

    numpy finds the True values of a bool array at most 10% True one at a
    time with ``memchr``, and the others with a branch-free loop: on a
    random mask 5-10% True the first is 3x slower (9e6 values: 14 ms at
    9.8%, 5 ms at 10.2%). Such a mask is copied to ``flags`` and followed by
    enough True values to go over 10%; the positions past it are cut off.
    """
    size = mask.shape[0]
    if size < 8192:  # the copy costs more than it saves
        return np.flatnonzero(mask)
    count = count_nonzero(mask)
    pad = (size - 10 * count) // 9 + 2  # (count + pad) / (size + pad) > 0.1
    if pad <= 2 or 20 * count < size or size + pad > flags.shape[0]:
        return np.flatnonzero(mask)
    flags[:size] = mask
    flags[size : size + pad] = True
    return np.flatnonzero(flags[: size + pad])[:count]


def _interleave_runs(
    both: np.ndarray,
    nq: int,
    q_first: np.ndarray | None,
    edges: np.ndarray,
    run_left: np.ndarray,
    run_right: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Points of :func:`_points_unweighted`: runs of minority values and the
    gaps of majority samples between them.

    Parameters
    ----------
    both : ndarray of shape (n,)
        Sorted minority scores ``q = both[:nq]``, then sorted majority scores
        ``b = both[nq:]``.
    nq : int
        Number of minority samples.
    q_first : ndarray of shape (m,) or None
        Index in ``q`` of the first sample of each distinct minority value
        (None: they are all distinct).
    edges : ndarray of shape (n_runs + 1,)
        Run ``g`` holds distinct minority values ``edges[g]`` to
        ``edges[g + 1] - 1``.
    run_left, run_right : ndarray of shape (n_runs,)
        Majority samples below the run, and at or below it (they differ
        only for a tied value alone in its run; None: no run ends in a
        tied value).

    Returns
    -------
    lo, hi, q_cnt, b_cnt : ndarray of shape (n_points,)
        The points ``[gap], run, gap, run, ..., run, [gap]`` where a gap
        holds the majority samples between two runs; empty gaps left out.
        The four are rows of one array.
    """
    n = both.shape[0]
    nb = n - nq
    k = edges.shape[0] - 1
    rr = run_left if run_right is None else run_right
    # Point 2g is gap g, majority samples rr[g - 1] to run_left[g] - 1 (gap k:
    # those above the last run); point 2g + 1 is run g. Their lowest and
    # highest scores are taken from `both` in one pass, with indices built in
    # the memory of the counts, which are written after.
    out = np.empty((4, k + 1, 2))
    at = out[2:].view(np.int64)
    lo_at, hi_at = at
    lo_at[0, 0] = nq
    np.add(rr, nq, out=lo_at[1:, 0])
    np.add(run_left, nq - 1, out=hi_at[:k, 0])
    hi_at[k, 0] = n - 1
    # q_start[g]: minority samples below run g
    q_start = edges if q_first is None else np.append(q_first[edges[:-1]], nq)
    lo_at[:k, 1] = q_start[:-1]
    if q_first is None:
        np.subtract(edges[1:], 1, out=hi_at[:k, 1])
    else:
        hi_at[:k, 1] = q_first[edges[1:] - 1]
    lo_at[k, 1] = hi_at[k, 1] = 0  # no run k
    # mode="clip": index n for an empty last gap (empty gaps are left out),
    # and the values go straight to `out` (mode="raise" fills a copy first)
    both.take(at.reshape(-1), out=out[:2].reshape(-1), mode="clip")
    q_cnt, b_cnt = out[2:]
    q_cnt[:, 0] = 0.0
    np.subtract(q_start[1:], q_start[:-1], out=q_cnt[:k, 1], casting="unsafe")
    q_cnt[k, 1] = 0.0
    b_cnt[0, 0] = run_left[0]
    np.subtract(run_left[1:], rr[:-1], out=b_cnt[1:k, 0], casting="unsafe")
    b_cnt[k, 0] = nb - rr[-1]
    if run_right is None:
        b_cnt[:, 1] = 0.0
    else:
        np.subtract(run_right, run_left, out=b_cnt[:k, 1], casting="unsafe")
        b_cnt[k, 1] = 0.0
    first = 0 if run_left[0] else 1
    stop = 2 * k + 1 if rr[-1] < nb else 2 * k
    points = out.reshape(4, 2 * k + 2)[:, first:stop]
    if run_right is not None and not np.all(b_cnt[1:k, 0]):
        keep = points[3] > 0
        keep[1 - first :: 2] = True  # the runs
        return tuple(a[keep] for a in points)
    return tuple(points)


#: Values per ``np.searchsorted`` call in :func:`_searchsorted_sorted`.
_SEARCH_CHUNK = 2048


def _searchsorted_sorted(
    a: np.ndarray, v: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """``np.searchsorted(a, v)`` for sorted ``v``, in chunks of ``v``
    (written to ``out``, an integer array like ``v``, if given).

    The answers for a chunk of sorted values lie between those for its first
    value and for the next chunk's first value, so each chunk is searched in
    that slice of ``a`` only: binary searches in a slice that stays in cache
    instead of in all of ``a`` (1e6 values in 9e6: about 1.25x faster than
    one ``np.searchsorted``).
    """
    m = v.shape[0]
    if out is None:
        out = np.empty(m, dtype=np.intp)
    if m <= 2 * _SEARCH_CHUNK:
        out[:] = np.searchsorted(a, v)
        return out
    step = _SEARCH_CHUNK
    bounds = np.searchsorted(a, v[::step]).tolist()
    bounds.append(a.shape[0])
    for k in range(len(bounds) - 1):
        lo = bounds[k]
        chunk = slice(k * step, (k + 1) * step)
        np.add(np.searchsorted(a[lo : bounds[k + 1]], v[chunk]), lo, out=out[chunk])
    return out


def _points_small(scores: np.ndarray, is_target: np.ndarray) -> BlockSummary:
    """:func:`_points_unweighted` for a few scores: the same points (counts
    are exact in float64), from one argsort and a handful of array
    operations instead of that function's dozens, which cost more than the
    sorts below about ``_SMALL_N`` scores (the two took the same time at
    3000 Gaussian scores, 10% targets; 10000 with ties)."""
    return pav_points_presorted(*sorted_labelled(scores, is_target))


def pav_points_presorted(s: np.ndarray, t: np.ndarray) -> BlockSummary:
    """:func:`pav_points` of unweighted scores already sorted: ``s``
    increasing, ``t`` the label of each (tied scores' labels in any order).

    The points of a subset of scores are those of its rows of the sorted
    whole, so the training folds of one score column share its sort
    (:class:`~skcalib.AutoCalibrator`'s one-vs-rest PAV candidate).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._pav import pav_points, pav_points_presorted
    >>> s = np.array([0.1, 0.2, 0.2, 0.3, 0.4])
    >>> t = np.array([False, True, False, True, True])
    >>> p = pav_points_presorted(s, t)
    >>> p.lo.tolist(), p.tar.tolist(), p.non.tolist()
    ([0.1, 0.2, 0.3], [0.0, 1.0, 2.0], [1.0, 1.0, 0.0])
    >>> q = pav_points(s[::-1], t[::-1])  # sorting first: the same points
    >>> all(np.array_equal(a, b) for a, b in zip(p, q))
    True
    """
    new_score = s[1:] != s[:-1]
    if count_nonzero(new_score) < new_score.shape[0]:
        return _compress_pure_runs(group_ties(s, t, new_score))
    bounds = _label_runs(t)
    starts = bounds[:-1]
    count = np.subtract(bounds[1:], starts, dtype=np.float64)
    tar = count * t[starts]
    return BlockSummary(s[starts], s[bounds[1:] - 1], tar, count - tar)


def _sorted_small(scores, is_target):
    """``(s, t, new_score)``: the sorted scores and their labels, and where
    the score changes (``s[1:] != s[:-1]``) if some scores tie, else None."""
    s, t = sorted_labelled(scores, is_target)
    new_score = s[1:] != s[:-1]
    if count_nonzero(new_score) < new_score.shape[0]:
        return s, t, new_score
    return s, t, None


def _label_runs(t: np.ndarray) -> np.ndarray:
    """Start of every run of equal labels in ``t``, then ``len(t)``."""
    # no labels: [0] alone (one empty run would be [0, 1])
    return run_edges(t[1:] != t[:-1])[: t.shape[0] + 1]


def _blocks_small(
    scores: np.ndarray, is_target: np.ndarray, ranges: bool = True
) -> BlockSummary:
    """:func:`pav_blocks` of a few unweighted scores: the same blocks.

    PAV runs on the sorted labels themselves (weight 1 each), or with ties
    on the target fraction of each group of tied scores (weighted by its
    size): its blocks are sums of integer counts, exact in float64, and the
    canonical partition is unique, so they are the blocks of the pooled
    points; the points' score ranges, their class counts and the pooling
    of those are not formed, which on a hundred scores is most of the cost
    of the kernel. ``ranges=False``: see :func:`pav_blocks`.
    """
    s, t, new_score = _sorted_small(scores, is_target)
    n = t.shape[0]
    if n == 0:
        return BlockSummary(s, s, np.zeros(0), np.zeros(0))
    if new_score is None:
        counts = t.astype(np.float64)
        y = counts.copy()
        weight = np.empty(n)
        weight.fill(1.0)  # np.ones, without its Python wrapper
        edges = None
    else:
        # the groups of tied scores: edges[g] to edges[g + 1]
        edges = run_edges(new_score)
        counts = np.add.reduceat(t, edges[:-1], dtype=np.float64)
        weight = np.subtract(edges[1:], edges[:-1], dtype=np.float64)
        y = counts / weight
    r, b, total = _isotonic_blocks(y, weight)
    starts = r[:b]
    tar = np.add.reduceat(counts, starts)
    total = total[:b]
    # exact ratios (tar + non is total: sums of counts), pooled again only
    # where they do not increase strictly (see _pool_violators)
    ratio = tar / total
    pooled = count_nonzero(ratio[1:] <= ratio[:-1])
    if not (ranges or pooled):  # the score ranges, four array operations, left out
        return BlockSummary(None, None, tar, total - tar)
    ends = r[1 : b + 1]
    if edges is None:
        blocks = BlockSummary(s[starts], s[ends - 1], tar, total - tar)
    else:
        blocks = BlockSummary(s[edges[starts]], s[edges[ends] - 1], tar, total - tar)
    if pooled:
        blocks = _pool_violators(blocks)
    return blocks if ranges else _without_ranges(blocks)


def _without_ranges(blocks: BlockSummary) -> BlockSummary:
    return BlockSummary(None, None, blocks.tar, blocks.non)


#: Unweighted inputs up to this many scores take :func:`_points_small`.
_SMALL_N = 2000


def pav_points(
    scores: np.ndarray,
    is_target: np.ndarray,
    sample_weight: np.ndarray | None = None,
) -> BlockSummary:
    """Sort, pool ties and pure runs: the ordered points that PAV works on.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64
        Scores; +/-inf allowed, NaN not.
    is_target : ndarray of shape (n_samples,), bool
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights; zero-weight samples are dropped.

    Returns
    -------
    points : BlockSummary
        Points in increasing score order. Tied scores are always in one point.
    """
    if sample_weight is None:
        if scores.shape[0] <= _SMALL_N:
            return _points_small(scores, is_target)
        # built run-compressed
        return _points_unweighted(scores, is_target)
    return _compress_pure_runs(labelled_sort(scores, is_target, sample_weight))


def pav_points_and_classes(scores: np.ndarray, is_target: np.ndarray):
    """:func:`pav_points` of unweighted scores, and each class's scores sorted.

    The sorted classes are what the points are built from (no extra sort),
    kept for the metrics that sum per-trial terms by class.

    Returns
    -------
    points : BlockSummary
        As :func:`pav_points`.
    tar, non : ndarray or None
        The target and the non-target scores, each increasing (read only:
        views of one array of ``n_samples``); None for few scores, whose
        points come from one labelled sort.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._pav import pav_points_and_classes
    >>> rng = np.random.default_rng(0)
    >>> s, y = rng.normal(size=5000), rng.random(5000) < 0.3
    >>> points, tar, non = pav_points_and_classes(s, y)
    >>> bool(np.array_equal(tar, np.sort(s[y])))
    True
    """
    if scores.shape[0] <= _SMALL_N:
        return _points_small(scores, is_target), None, None
    kept = []
    points = _points_unweighted(scores, is_target, kept)
    return points, kept[0], kept[1]


def pav_merge(points: BlockSummary) -> BlockSummary:
    """PAV over an ordered sequence of points (or of blocks).

    The input may be any sequence in increasing score order whose entries have
    positive total weight, for instance the concatenated block summaries of
    contiguous score ranges solved separately: PAV of those blocks equals PAV
    of all the underlying samples.

    Returns
    -------
    blocks : BlockSummary
        The canonical blocks: block ratios ``tar / (tar + non)`` strictly
        increase.
    """
    n = points.lo.shape[0]
    if n <= 1:
        return points
    total = points.tar + points.non
    r, b, _ = _isotonic_blocks(points.tar / total, total)
    return _pool_violators(pool_blocks(points, r[:b], r[1 : b + 1] - 1))


def _pool_violators(blocks: BlockSummary) -> BlockSummary:
    """Pool adjacent blocks whose exact ratios ``tar / (tar + non)`` do not
    strictly increase (equal ratios, or a rounding slip in the solver's
    running means): the canonical partition."""
    while blocks.lo.shape[0] > 1:
        ratio = blocks.tar / (blocks.tar + blocks.non)
        not_increasing = ratio[1:] <= ratio[:-1]
        if not np.count_nonzero(not_increasing):
            break
        blocks = pool_blocks(blocks, run_starts(~not_increasing))
    return blocks


def _isotonic_blocks(y: np.ndarray, weights: np.ndarray):
    """Increasing isotonic regression of ``y`` (``n >= 1``) with positive
    ``weights``, both overwritten: ``(r, b, total)``, the ``b`` blocks being
    ``r[i]:r[i + 1]`` and ``total[:b]`` their summed weights.

    scipy's ``isotonic_regression`` runs the same compiled routine after
    copying both arrays, checking the weights and building its result
    object: on a few dozen points that costs three times the PAV itself.
    """
    if _pava is None:
        result = isotonic_regression(y, weights=weights)
        return result.blocks, result.blocks.shape[0] - 1, result.weights
    # the routine writes r[:b + 1], all that is read: no fill needed
    r = np.empty(y.shape[0] + 1, dtype=np.intp)
    _, total, r, b = _pava(y, weights, r)
    return r, b, total


def pav_blocks(
    scores: np.ndarray,
    is_target: np.ndarray,
    sample_weight: np.ndarray | None = None,
    *,
    pseudo_count: float = 0.0,
    ranges: bool = True,
) -> BlockSummary:
    """Block summary of the PAV (isotonic) fit of target fraction on score.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64
        Scores; +/-inf allowed, NaN not. Higher favours the target class.
    is_target : ndarray of shape (n_samples,), bool
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights; zero-weight samples are dropped before PAV.
    pseudo_count : float, default=0.0
        If positive, one virtual target and one virtual non-target, each of
        this weight, are placed below every score and again above every score
        before PAV (the rule of succession with ``pseudo_count=1``). A block
        that holds only the virtual points has ``lo = hi = -inf`` (or
        ``+inf``); a block that absorbed them keeps its real score range.
    ranges : bool, default=True
        Whether the blocks' score ranges are wanted: False gives ``lo`` and
        ``hi`` as None (all that the metrics read are the class weights).

    Returns
    -------
    blocks : BlockSummary
        Blocks in increasing score order with strictly increasing target
        fraction ``tar / (tar + non)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._pav import pav_blocks
    >>> s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    >>> y = np.array([False, True, False, True, True])
    >>> b = pav_blocks(s, y)
    >>> (b.tar / (b.tar + b.non)).round(3).tolist()   # 0.2 pooled with the tie
    [0.0, 0.667, 1.0]
    >>> b.lo.tolist(), b.hi.tolist()
    ([0.1, 0.2, 0.4], [0.1, 0.3, 0.4])
    """
    if sample_weight is None and pseudo_count <= 0 and scores.shape[0] <= _SMALL_N:
        return _blocks_small(scores, is_target, ranges)
    blocks = pav_finish(pav_points(scores, is_target, sample_weight), pseudo_count)
    return blocks if ranges else _without_ranges(blocks)


def pav_finish(points: BlockSummary, pseudo_count: float = 0.0) -> BlockSummary:
    """Final PAV over ordered points, with the optional virtual end points.

    The last step of :func:`pav_blocks`, shared with the distributed path,
    which feeds it the concatenated blocks of its score ranges.
    """
    if pseudo_count <= 0:
        return pav_merge(points)
    # the real points between a virtual one at each end (-inf and +inf)
    c = float(pseudo_count)
    padded = []
    for a, first, last in zip(
        points, (-np.inf, -np.inf, c, c), (np.inf, np.inf, c, c), strict=True
    ):
        out = np.empty(a.shape[0] + 2)
        out[0], out[1:-1], out[-1] = first, a, last
        padded.append(out)
    points = BlockSummary(*padded)
    blocks = pav_merge(points)
    # A block that absorbed a virtual point keeps its real score range.
    lo, hi = blocks.lo.copy(), blocks.hi.copy()
    if lo[0] == -np.inf and hi[0] > -np.inf:
        lo[0] = points.lo[1]
    if hi[-1] == np.inf and lo[-1] < np.inf:
        hi[-1] = points.hi[-2]
    return BlockSummary(lo, hi, blocks.tar, blocks.non)


def block_proba(blocks: BlockSummary) -> np.ndarray:
    """PAV probability of each block, ``tar / (tar + non)``."""
    return blocks.tar / (blocks.tar + blocks.non)


def block_llr(blocks: BlockSummary, n_tar: float, n_non: float) -> np.ndarray:
    """PAV-LLR of each block: ``log(tar/non) - log(n_tar/n_non)``.

    Blocks without non-targets give ``+inf``, blocks without targets ``-inf``.
    ``n_tar`` and ``n_non`` are the class totals of the *real* data (they set
    the prior odds that the LLR removes).
    """
    with np.errstate(divide="ignore"):
        return (np.log(blocks.tar) - np.log(blocks.non)) - (
            np.log(n_tar) - np.log(n_non)
        )


def rocch_from_blocks(blocks: BlockSummary) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the ROC convex hull as ``(pmiss, pfa)``.

    Vertex ``k`` is the operating point that rejects the ``k`` lowest blocks
    and accepts the rest, from ``(0, 1)`` (accept all) to ``(1, 0)`` (reject
    all). Segment ``b`` has slope ``(tar_b/n_tar) / (non_b/n_non)``.
    """
    n_blocks = blocks.tar.shape[0]
    cum_tar = np.zeros(n_blocks + 1)
    cum_non = np.zeros(n_blocks + 1)
    np.add.accumulate(blocks.tar, out=cum_tar[1:])  # np.cumsum, less overhead
    np.add.accumulate(blocks.non, out=cum_non[1:])
    n_tar, n_non = cum_tar[-1], cum_non[-1]
    pmiss = cum_tar / n_tar
    pfa = (n_non - cum_non) / n_non
    pmiss[-1] = 1.0
    pfa[-1] = 0.0
    return pmiss, pfa


def pav_point_index(scores: np.ndarray, is_target: np.ndarray) -> np.ndarray:
    """The ordered point of every sample: tied scores and pure runs pooled.

    Points are numbered in increasing score order; a point is a run of tied
    scores, and consecutive tie-runs that hold only targets (or only
    non-targets) share one point, as in :func:`pav_points`. Summing any
    non-negative sample weights per point and class, for instance
    ``np.bincount(2 * index + is_target, weights=w)``, and dropping the points
    of zero total weight, gives a valid input of :func:`pav_merge` for those
    weights without sorting again: pooling a pure run never changes the PAV
    solution, whatever the weights of its samples.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64
        Scores; +/-inf allowed, NaN not.
    is_target : ndarray of shape (n_samples,), bool

    Returns
    -------
    index : ndarray of shape (n_samples,), intp
        Point number of each sample, from 0 to ``index.max()``.
    """
    n = scores.shape[0]
    order = np.argsort(scores)
    s = scores[order]
    tie_id = np.zeros(n, dtype=np.intp)
    np.cumsum(s[1:] != s[:-1], out=tie_id[1:])
    del s
    t = is_target[order]
    n_ties = int(tie_id[-1]) + 1 if n else 0
    size = np.bincount(tie_id, minlength=n_ties)
    n_tar = np.bincount(tie_id[t], minlength=n_ties)
    del t
    kind = np.where(n_tar == 0, 0, np.where(n_tar == size, 1, 2))
    point_of_tie = np.zeros(n_ties, dtype=np.intp)
    np.cumsum((kind[1:] != kind[:-1]) | (kind[1:] == 2), out=point_of_tie[1:])
    index = np.empty(n, dtype=np.intp)
    index[order] = point_of_tie[tie_id]
    return index
