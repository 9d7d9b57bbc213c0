"""The labelled sort shared by PAV and Venn-Abers, and the runs of sorted values.

:func:`labelled_sort` gives the distinct values of labelled, optionally
weighted scores in increasing order with the weight of each class at each
value: the tie groups that both the PAV kernel (:mod:`skcalib._kernel._pav`)
and the Venn-Abers tables (:mod:`skcalib._kernel._venn_abers`) start from.
Unweighted, it sorts by values only (:func:`sorted_labelled`: ``np.sort`` is
several times faster than ``np.argsort``); weighted, one ``np.argsort``
carries the weights along. The run helpers (:func:`run_edges`,
:func:`run_starts`, :func:`run_ends`) cut a sorted array into its runs of
equal values.

:func:`order_statistics` and :func:`quantiles` (``np.quantile``'s default
exactly, or the weighted inverted CDF) select a few order statistics without
a sort: the values are counted in buckets of their bits, and only the
buckets that hold an answer are searched further.

The unweighted PAV kernel takes the labelled sort below a few thousand
scores only; above, it sorts the two classes apart and locates the minority
among the majority, which hands PAV pooled runs without ever forming the
labelled sequence (see :mod:`skcalib._kernel._pav`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..utils._stats import drop_zero_weights

__all__ = [
    "BlockSummary",
    "group_ties",
    "labelled_sort",
    "order_statistics",
    "quantiles",
    "run_edges",
    "run_ends",
    "run_starts",
    "sorted_labelled",
]


class BlockSummary(NamedTuple):
    """Ordered blocks of an isotonic (PAV) fit, or points before PAV.

    Attributes
    ----------
    lo : ndarray of shape (n_blocks,) or None
        Lowest score in each block; None from ``pav_blocks(ranges=False)``.
    hi : ndarray of shape (n_blocks,) or None
        Highest score in each block; None from ``pav_blocks(ranges=False)``.
    tar : ndarray of shape (n_blocks,)
        Total target weight in each block.
    non : ndarray of shape (n_blocks,)
        Total non-target weight in each block.
    """

    lo: np.ndarray | None
    hi: np.ndarray | None
    tar: np.ndarray
    non: np.ndarray

    @property
    def n_blocks(self) -> int:
        return int(self.tar.shape[0])


def run_edges(changed: np.ndarray) -> np.ndarray:
    """Start index of every run, then the number of values: run ``i`` is
    ``edges[i]:edges[i + 1]``, given ``changed[j] = (x[j+1] != x[j])``."""
    n = changed.shape[0] + 1
    edge = np.empty(n + 1, dtype=bool)
    edge[0] = edge[n] = True
    edge[1:n] = changed
    return edge.nonzero()[0]


def run_starts(changed: np.ndarray) -> np.ndarray:
    """Start indices of runs, given ``changed[i] = (x[i+1] != x[i])``."""
    return run_edges(changed)[:-1]


def run_ends(starts: np.ndarray, n: int) -> np.ndarray:
    """Last index of each run, given the runs' ``starts`` in ``range(n)``."""
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1] = n - 1
    return ends


#: Values handled per vectorized pass of :func:`sorted_labelled`: work
#: arrays of this length (128 KiB of int64) are recycled by malloc from
#: chunk to chunk, instead of temporaries as long as the data, which cost
#: memory and, handed back to the operating system, page faults on the next
#: allocation.
_CHUNK = 1 << 14

#: Scores up to this many are sorted by :func:`sorted_labelled` with one
#: ``argsort``.
SMALL_SORT = 2000

#: ``2**63 - 1``: xor-ed into the bits of a negative float, it reverses their
#: order (:func:`_order_keys`).
_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)

#: The bits of ``inf``.
_INF_BITS = 0x7FF0_0000_0000_0000


def _order_keys(bits, out, mask=None):
    """int64 keys in the order of the floats with these int64 ``bits``
    (``-0.0`` just below ``0.0``); its own inverse, and the identity on the
    bits of non-negative floats. ``out`` may be ``bits`` if a work buffer
    ``mask`` is given."""
    mask = out if mask is None else mask
    np.right_shift(bits, 63, out=mask)
    mask &= _MAGNITUDE
    return np.bitwise_xor(bits, mask, out=out)


def sorted_labelled(scores: np.ndarray, is_target: np.ndarray):
    """The scores sorted, and the label of each: from value sorts only.

    ``np.sort`` (vectorized on x86) is several times faster than
    ``np.argsort``, which the labels would otherwise take. Each score and
    its label are packed into one uint64, ``2 * (key - offset) + label``
    with ``key`` the score's order key: that needs keys spanning less than
    ``2**63``, as those of all the scores of one sign do (the key of a
    score without its sign bit set is its bits), and those of both signs
    within about ``[-1.9, 1.9]``; wider, the negative scores (sign bit set)
    and the others are sorted apart. Ties between the classes come out
    non-targets first; ``-0.0`` just before ``0.0``.

    Up to :data:`SMALL_SORT` scores, one ``argsort`` costs less than the
    dozens of array operations of the packing (the two took the same time
    near 10,000 Gaussian scores); tied scores, ``-0.0`` and ``0.0`` among
    them, then come out in no particular order.

    Parameters
    ----------
    scores, is_target : ndarray of shape (n_samples,)
        The float64 scores (+/-inf allowed, NaN not) and their boolean labels.

    Returns
    -------
    sorted_scores, labels : ndarray of shape (n_samples,)
        The scores in increasing order, and the label of each.
    """
    n = scores.shape[0]
    if n <= SMALL_SORT:
        order = scores.argsort()  # the method: a third of np.argsort's overhead
        return scores[order], is_target[order]
    bits = scores.view(np.int64)
    # the lowest and highest keys: those of the bits if no sign bit is set
    key_lo, key_hi = (int(bits.min()), int(bits.max())) if n else (0, 0)
    if key_lo < 0:
        # the lowest score, -0.0 if it is zero (a sign bit is set)
        lo = scores.min()
        bounds = np.array([-0.0 if lo == 0 else lo, scores.max()])
        keys = _order_keys(bounds.view(np.int64), np.empty(2, dtype=np.int64))
        key_lo = int(keys[0])
        key_hi = key_hi if key_hi >= 0 else int(keys[1])
    # parts of the keys sorted apart: (first, stop, offset); an offset,
    # the lowest key (negative), also marks keys of negative scores
    if key_lo >= 0:
        parts = [(0, n, 0)]
    elif key_hi - key_lo < 2**63:
        parts = [(0, n, key_lo)]
    else:
        n_neg = int(np.count_nonzero(np.signbit(scores)))
        parts = [(0, n_neg, key_lo), (n_neg, n, 0)]
    keys = np.empty(n, dtype=np.uint64)
    _pack_keys(bits, is_target, keys.view(np.int64), parts)
    target = np.empty(n, dtype=bool)
    mask = np.empty(min(_CHUNK, n), dtype=np.int64)
    # keys below those of inf as floats (scores in [0, 1.5)) sort as such,
    # faster than as integers
    floats = len(parts) == 1 and 0 <= key_lo and 2 * key_hi + 1 < _INF_BITS
    for first, stop, offset in parts:
        part = keys[first:stop]
        (part.view(np.float64) if floats else part).sort()
        # chunk by chunk, each read once
        for start in range(first, stop, _CHUNK):
            k = keys[start : min(start + _CHUNK, stop)]
            np.bitwise_and(
                k, 1, out=target[start : start + k.shape[0]], casting="unsafe"
            )
            k >>= np.uint64(1)
            if offset:
                k = k.view(np.int64)
                k += offset
                _order_keys(k, k, mask[: k.shape[0]])
    return keys.view(np.float64), target


def _pack_keys(bits, is_target, keys, parts):
    """``2 * (key - offset) + label`` of every score into its part of the
    int64 ``keys``, for :func:`sorted_labelled`; chunk by chunk."""
    buffer = np.empty(min(_CHUNK, bits.shape[0]), dtype=np.int64)
    negative = np.empty(buffer.shape[0], dtype=bool)
    at = [first for first, _, _ in parts]
    offset = parts[0][2]
    for start in range(0, bits.shape[0], _CHUNK):
        x = bits[start : start + _CHUNK]
        size = x.shape[0]
        # one part: written in place
        k = keys[start : start + size] if len(parts) == 1 else buffer[:size]
        if offset:
            _order_keys(x, k)
            k -= offset
            k <<= 1
        else:  # the order keys are the bits
            np.left_shift(x, 1, out=k)
        k |= is_target[start : start + size]
        if len(parts) == 1:
            continue
        # the negative keys, then the others with their bits doubled
        neg = np.less(x, 0, out=negative[:size])
        m = int(np.count_nonzero(neg))
        np.compress(neg, k, out=keys[at[0] : at[0] + m])
        np.left_shift(x, 1, out=k)
        k |= is_target[start : start + size]
        np.compress(np.logical_not(neg), k, out=keys[at[1] : at[1] + size - m])
        at[0] += m
        at[1] += size - m


def group_ties(s: np.ndarray, t: np.ndarray, new_score: np.ndarray) -> BlockSummary:
    """One group per run of tied scores ``s`` (sorted) with labels ``t``,
    given ``new_score = s[1:] != s[:-1]``: its lowest and highest score and
    its class counts (integers, exact in float64)."""
    n = s.shape[0]
    starts = run_starts(new_score)
    ends = run_ends(starts, n)
    # bytes summed into int32: faster than bools into float64
    counts = np.add.reduceat(
        t.view(np.uint8), starts, dtype=np.int32 if n < 2**31 else np.int64
    )
    tar = counts.astype(np.float64)
    return BlockSummary(s[starts], s[ends], tar, (ends - starts + 1) - tar)


def labelled_sort(scores, is_target, sample_weight=None) -> BlockSummary:
    """The distinct scores, increasing, with the weight of each class at each.

    Parameters
    ----------
    scores, is_target, sample_weight : ndarray of shape (n_samples,)
        The float64 scores (+/-inf allowed, NaN not), their boolean labels,
        and non-negative weights (zero-weight samples dropped) or None, for
        which every sample counts 1 and the scores are sorted by value only.

    Returns
    -------
    groups : BlockSummary
        One group per distinct score: ``lo`` and ``hi`` its lowest and
        highest score (equal values; ``-0.0`` and ``0.0`` tie), ``tar`` and
        ``non`` its summed target and non-target weights.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._sort import labelled_sort
    >>> s = np.array([0.3, 0.1, 0.3, 0.2])
    >>> y = np.array([True, False, False, True])
    >>> g = labelled_sort(s, y)
    >>> g.lo.tolist(), g.tar.tolist(), g.non.tolist()
    ([0.1, 0.2, 0.3], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0])
    >>> labelled_sort(s, y, np.array([2.0, 1.0, 0.5, 0.0])).non.tolist()
    [1.0, 0.5]
    """
    if sample_weight is None:
        s, t = sorted_labelled(scores, is_target)
        return group_ties(s, t, s[1:] != s[:-1])
    scores, is_target, sample_weight = drop_zero_weights(
        sample_weight, scores, is_target
    )
    order = np.argsort(scores)
    s = scores[order]
    t = is_target[order]
    w = sample_weight[order]
    starts = run_starts(s[1:] != s[:-1])
    ends = run_ends(starts, s.shape[0])
    return BlockSummary(
        s[starts],
        s[ends],
        np.add.reduceat(np.where(t, w, 0.0), starts),
        np.add.reduceat(np.where(t, 0.0, w), starts),
    )


# ------------------------------------------------- quantiles without a sort
#: Buckets per level of :func:`_select`: a bincount over a table that stays
#: in cache.
_SELECT_BITS = 14

#: Values that :func:`_select` sorts instead of bucketing them again.
_SELECT_SMALL = 4096


def _ordered_keys(x):
    """``(keys, signed)``: uint64 keys in the order of the float64 ``x``
    (``-0.0`` just below ``0.0``), the bits themselves (no copy, ``signed``
    False) if no sign bit is set."""
    bits = x.view(np.int64)
    if x.shape[0] == 0 or int(bits.min()) >= 0:
        return bits.view(np.uint64), False
    keys = _order_keys(bits, np.empty_like(bits))
    # int64 keys to uint64 in the same order: flip the sign bit
    keys ^= np.int64(-(2**63))
    return keys.view(np.uint64), True


def _float_of_keys(keys, signed):
    """The floats of keys made by :func:`_ordered_keys`."""
    if not signed:
        return keys.view(np.float64)
    bits = keys.view(np.int64) ^ np.int64(-(2**63))
    return _order_keys(bits, np.empty_like(bits)).view(np.float64)


#: Keys per step of the bucket passes (:func:`_bucket_totals`,
#: :func:`_gather_buckets`): work arrays that stay in cache.
_SELECT_CHUNK = 1 << 16


class _Buckets(NamedTuple):
    """``2**14`` buckets of equal key width from the lowest key (fewer if
    the keys span fewer; ``shift == 0``: one key per bucket)."""

    lo: int
    shift: int
    n_buckets: int

    @classmethod
    def of(cls, keys):
        lo, hi = int(keys.min()), int(keys.max())
        shift = max(0, (hi - lo).bit_length() - _SELECT_BITS)
        return cls(lo, shift, ((hi - lo) >> shift) + 1)

    def chunks(self, keys):
        """``(start, bucket)`` of each chunk of the keys (``bucket`` is
        overwritten by the next chunk)."""
        work = np.empty(min(_SELECT_CHUNK, keys.shape[0]), dtype=np.uint64)
        lo, shift = np.uint64(self.lo), np.uint64(self.shift)
        for start in range(0, keys.shape[0], _SELECT_CHUNK):
            chunk = keys[start : start + _SELECT_CHUNK]
            b = work[: chunk.shape[0]]
            np.subtract(chunk, lo, out=b)
            b >>= shift
            yield start, b.view(np.intp)

    def totals(self, keys, w):
        """The count (``w`` None) or weight of each bucket."""
        out = np.zeros(self.n_buckets, dtype=np.intp if w is None else np.float64)
        for start, b in self.chunks(keys):
            ws = None if w is None else w[start : start + b.shape[0]]
            out += np.bincount(b, weights=ws, minlength=self.n_buckets)
        return out

    def gather(self, keys, w, needed):
        """The keys (and weights, and buckets) in the buckets ``needed``."""
        parts = []
        for start, b in self.chunks(keys):
            take = needed.take(b)
            stop = start + b.shape[0]
            parts.append(
                (
                    keys[start:stop][take],
                    None if w is None else w[start:stop][take],
                    b[take],
                )
            )
        sub = np.concatenate([p[0] for p in parts])
        sub_w = None if w is None else np.concatenate([p[1] for p in parts])
        return sub, sub_w, np.concatenate([p[2] for p in parts])


def _select_ranks(keys, ranks):
    """``np.sort(keys)[ranks]`` (uint64 keys), without a sort of all keys.

    The keys are counted in buckets of equal key width (one bincount); only
    the buckets that hold a wanted rank are gathered, and searched the same
    way, or sorted when few or when that would not shrink them (clustered
    keys).
    """
    n = keys.shape[0]
    if n <= _SELECT_SMALL:
        return np.sort(keys)[ranks]
    buckets = _Buckets.of(keys)
    count = buckets.totals(keys, None)
    cum = np.cumsum(count)
    at = np.searchsorted(cum, ranks, side="right")  # the bucket of each rank
    if buckets.shift == 0:  # one key per bucket
        return (at + buckets.lo).astype(np.uint64)
    needed = np.zeros(buckets.n_buckets, dtype=bool)
    needed[at] = True
    sub = buckets.gather(keys, None, needed)[0]
    # the ranks among the gathered keys: less the keys of the buckets below
    # that are not gathered
    kept = np.where(needed, count, 0)
    skipped = (cum - count) - (np.cumsum(kept) - kept)
    sub_ranks = ranks - skipped[at]
    if 2 * sub.shape[0] > n:
        return np.sort(sub)[sub_ranks]
    return _select_ranks(sub, sub_ranks)


def _select_weighted(keys, w, q):
    """Per level ``q``, the smallest key whose cumulative weight, the keys
    in increasing order, reaches ``q`` times the total (the last key if
    none does); unit weights: ``np.quantile(..., method='inverted_cdf')``.

    Few keys: a stable sort and the running sum. Otherwise the weights are
    summed per bucket of keys (one bincount), and the keys of the buckets
    that hold an answer are gathered and sorted; within each, the running
    sums are taken from the bucket's end, so that they end at its
    cumulative total and the bucket found by the totals holds its answer.
    """
    n = keys.shape[0]
    if n <= _SELECT_SMALL:
        order = np.argsort(keys, kind="stable")
        cum = np.cumsum(w[order])
        k = np.searchsorted(cum, q * cum[-1], side="left")
        return keys[order[np.minimum(k, n - 1)]]
    buckets = _Buckets.of(keys)
    cum = np.cumsum(buckets.totals(keys, w))
    targets = q * cum[-1]
    at = np.searchsorted(cum, targets, side="left")
    np.minimum(at, buckets.n_buckets - 1, out=at)
    if buckets.shift == 0:  # one key per bucket
        return (at + buckets.lo).astype(np.uint64)
    needed = np.zeros(buckets.n_buckets, dtype=bool)
    needed[at] = True
    sub, sub_w, sub_b = buckets.gather(keys, w, needed)
    order = np.argsort(sub, kind="stable")
    sk, sw, sb = sub[order], sub_w[order], sub_b[order]
    # the weight after each key within its bucket: the suffix sums, less
    # that of the bucket's last key
    after = np.cumsum(sw[::-1])[::-1]
    after -= sw
    last = np.flatnonzero(np.r_[sb[1:] != sb[:-1], True])
    first = np.r_[0, last[:-1] + 1]
    after -= np.repeat(after[last], last - first + 1)
    running = cum[sb] - after
    k = np.searchsorted(np.maximum.accumulate(running), targets, side="left")
    return sk[np.minimum(k, sk.shape[0] - 1)]


def order_statistics(x, ranks):
    """``np.sort(x)[ranks]`` without sorting ``x``.

    Parameters
    ----------
    x : ndarray of shape (n_samples,), float64
        Values; +/-inf allowed, NaN not. Not modified.
    ranks : ndarray of shape (n_ranks,), int
        Positions in ``0..n_samples-1``.

    Returns
    -------
    values : ndarray of shape (n_ranks,)
        The order statistics (``-0.0`` sorts just below ``0.0``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._sort import order_statistics
    >>> order_statistics(np.array([3.0, -1.0, 2.0, 2.0]), np.array([0, 2, 3]))
    array([-1.,  2.,  3.])
    """
    keys, signed = _ordered_keys(x)
    ranks = np.asarray(ranks, dtype=np.intp)
    return _float_of_keys(_select_ranks(keys, ranks), signed)


def quantiles(x, q, sample_weight=None):
    """Quantiles of ``x`` at the probabilities ``q``, without a sort.

    Unweighted, ``np.quantile(x, q)`` (its default ``'linear'`` method)
    exactly: the order statistics next to each quantile from
    :func:`order_statistics`, then numpy's own interpolation, the virtual
    index ``(n - 1) q`` and ``a + (b - a) g`` or, for ``g >= 1/2``,
    ``b - (b - a) (1 - g)``. Weighted, the inverted CDF: for each ``q``, the
    smallest value whose cumulative weight (the values in increasing order)
    reaches ``q`` times the total weight (``np.quantile``'s
    ``'inverted_cdf'`` method for unit weights); the cumulative weights are
    summed per bucket of values (see :func:`_select`), so a level that meets
    a cumulative weight to within rounding may take the neighbouring value
    of the sum in sorted order.

    Parameters
    ----------
    x : ndarray of shape (n_samples,), float64
        ``n_samples >= 1`` values; +/-inf allowed, NaN not. Not modified.
    q : ndarray of shape (n_quantiles,)
        Probabilities in [0, 1].
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Non-negative weights with a positive sum.

    Returns
    -------
    quantiles : ndarray of shape (n_quantiles,)

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._sort import quantiles
    >>> quantiles(np.array([4.0, 1.0, 3.0, 2.0]), np.array([0.0, 0.5, 0.9]))
    array([1. , 2.5, 3.7])
    >>> x, w = np.array([3.0, 1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0, 0.0])
    >>> quantiles(x, np.array([0.25, 0.5, 1.0]), w)
    array([1., 2., 3.])
    """
    if sample_weight is not None:
        keys, signed = _ordered_keys(x)
        w = np.asarray(sample_weight, dtype=np.float64)
        return _float_of_keys(_select_weighted(keys, w, np.asarray(q, float)), signed)
    n = x.shape[0]
    q = np.asarray(q, dtype=np.float64)
    virtual = (n - 1) * q
    previous = np.floor(virtual)
    above = virtual >= n - 1
    previous[above] = -1.0  # as numpy: the gamma below is then virtual + 1
    previous[virtual < 0] = 0.0
    gamma = virtual - previous
    first = previous.astype(np.intp)
    second = first + 1
    first[above] = n - 1
    second[above] = n - 1
    values = order_statistics(x, np.concatenate([first, second]))
    a, b = values[: q.shape[0]], values[q.shape[0] :]
    diff = b - a
    out = np.add(a, diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out
