"""The Venn-Abers tables: the exact ``(p0, p1)`` of every test score.

For a test score ``s`` the Venn-Abers pair is ``p0(s)`` (``p1(s)``): the
isotonic (PAV) fit of the calibration set plus the test point ``(s, 0)``
(``(s, 1)``), read at ``s``. :func:`venn_abers_tables` computes it for every
possible position of a test score at once, in O(n log n) after one sort.

How the tables are computed
---------------------------
Sort the calibration scores into ``K`` distinct groups and let
``C_k = (W_k, T_k)`` be the cumulative weight and target weight of the first
``k`` groups (the cumulative sum diagram, ``C_0 = (0, 0)``). A test point of
weight ``w`` and label ``y`` placed in the gap after group ``g`` turns the
diagram into ``C_0 .. C_g, C_g + d, .. C_K + d`` with ``d = (w, w y)``; the
isotonic fit at the test point is the slope of the greatest convex minorant
over that step, i.e. the slope of the common lower tangent (bridge) of the
left points ``C_0 .. C_g`` and the shifted right points:

    p_y(g) = max_{a <= g} min_{b >= g} slope(C_a, C_b + d).

A test score equal to a calibration score joins that group, which gives the
value of the gap just below it for ``y = 1`` and just above it for ``y = 0``
(the test point pooled alone with its neighbour on that side is already a
solution of the tied problem).

Two facts make every gap cheap. Let ``G`` be the vertices of the convex
minorant of the whole diagram (the boundaries of the plain PAV blocks), and
``u <= g <= v`` the vertices around gap ``g``, in a block of value ``mu``.

1. ``p_1(g) >= mu >= p_0(g)``: with test label ``mu`` the old blocks stay a
   solution, and isotonic regression is monotone in the labels. So for
   ``y = 1`` the bridge touches the right points at a vertex of ``G`` (their
   own hull edges in ``[g, v]`` are no steeper than ``mu``) and the left
   points at some ``C_a`` with ``u <= a <= g``; for ``y = 0`` the mirror image.
2. ``p_1`` is non-decreasing in ``g`` (the max runs over more ``a``, the min
   over fewer ``b``), so a running maximum needs no block boundaries.

Hence ``p_1(g) = max_{a <= g} psi_1(a)`` with ``psi_1(a)`` the tangent slope
from ``C_a`` to the convex chain ``{C_b + d : b in G, b >= a}``, and
``p_0(g) = min_{b >= g} psi_0(b)`` with ``psi_0(b)`` the tangent slope from
``C_b + d`` to ``{C_a : a in G, a <= b}``. A point of the diagram lies
close to the hull, so its tangent touches the nearest vertex of the chain
nearly always: one vectorized test finds those, and a binary search on the
chain (vectorized, ``ceil(log2 |G|)`` passes) the few others. The two
running extremes are ``np.maximum.accumulate`` and ``np.minimum.accumulate``;
the chain ``G`` comes from the PAV kernel.

Without ties and weights, ``psi_1`` rises only along non-target steps and
``psi_0`` falls only along them, so most slopes cannot move the running
extremes: they are computed only at the ends of the label runs and inside
the runs whose end sets a new extreme (:func:`_record_steps`), and the
tables kept as step functions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._pav import pav_merge
from ._sort import (
    BlockSummary,
    group_ties,
    labelled_sort,
    run_starts,
    sorted_labelled,
)

__all__ = [
    "VennAbersTables",
    "cut_tables",
    "expand_table",
    "lookup_interval",
    "merge_p0p1",
    "venn_abers_lookup",
    "venn_abers_pairs",
    "venn_abers_tables",
]

#: Points handled per vectorized pass of the tangent
#: searches and the lookups: a few work arrays of this length (128 KiB of float64) are
#: recycled by malloc from chunk to chunk, instead of temporaries as long as
#: the data, which cost memory and, handed back to the operating system,
#: page faults on the next allocation (several microseconds per 4 KiB page
#: in a virtual machine: more than the arithmetic).
_CHUNK = 1 << 14


class VennAbersTables(NamedTuple):
    """``(p0, p1)`` of a test score at every position among calibration scores.

    Attributes
    ----------
    scores : ndarray of shape (K,)
        Distinct calibration scores, increasing.
    p0 : ndarray of shape (K + 1,)
        ``p0[g]``: the value for a test score above ``g`` calibration scores
        and below the rest, or equal to ``scores[g - 1]``.
    p1 : ndarray of shape (K + 1,)
        ``p1[g]``: the value for a test score above ``g`` calibration scores
        and below the rest, or equal to ``scores[g]``.
    """

    scores: np.ndarray
    p0: np.ndarray
    p1: np.ndarray


def _groups(scores, is_target, sample_weight):
    """Distinct scores ``c``, the cumulative sum diagram of length K+1 as
    ``(N, T)``, and the diagram indices where the points for PAV end (None:
    read them off the diagram, :func:`_diagram_run_ends`).

    ``T[k]`` and ``N[k]`` are the target and non-target weights of the first
    ``k`` groups: the diagram's points are ``C_k = (N[k] + T[k], T[k])``. A
    chord's weight is always summed from its target and non-target parts,
    never taken as a difference of cumulative totals: those round apart from
    the cumulative target weights, and a chord over targets only would come
    out steeper than 1 (weights of 0.1). ``N`` is None when every group is
    one unweighted score: then ``N[k] + T[k] = k``, never stored, and ``T``
    holds integers (:func:`_running_count`).
    """
    if sample_weight is None:
        n = scores.shape[0]
        s, target = sorted_labelled(scores, is_target)
        new_score = s[1:] != s[:-1]
        if np.count_nonzero(new_score) == n - 1:
            del new_score
            # a run of targets and the run of non-targets after it are one
            # point: the diagram is concave where they meet, never a vertex
            # of its convex minorant. The points end where a target follows
            # a non-target, and at n.
            ends = np.flatnonzero(target[1:] > target[:-1])
            ends += 1
            return s, None, _running_count(target), np.append(ends, n)
        # ties: one group per distinct score, integer counts (exact)
        groups = group_ties(s, target, new_score)
    else:
        # zero weights dropped, one argsort
        groups = labelled_sort(scores, is_target, sample_weight)
    N = np.zeros(groups.lo.shape[0] + 1)
    T = np.zeros(N.shape[0])
    np.cumsum(groups.non, out=N[1:])
    np.cumsum(groups.tar, out=T[1:])
    return groups.lo, N, T, None


def _running_count(target):
    """``T[k]``: the targets among the first ``k`` labels, as int32 (int64
    past ``2**31`` labels): half the memory of floats, and counted several
    times faster."""
    n = target.shape[0]
    T = np.empty(n + 1, dtype=np.int32 if n < 2**31 else np.int64)
    T[0] = 0
    np.cumsum(target, out=T[1:])
    return T


def _diagram_run_ends(N, T):
    """Diagram indices where the points handed to PAV end.

    A run of groups of targets only, a run of groups of non-targets only,
    and every group that holds both (a tie) is one point; the last point
    ends at ``k``. A group is pure non-target (T flat), pure target (N
    flat) or mixed.
    """
    kind = (np.diff(T) > 0).view(np.int8)  # 0: non-target only
    mixed = kind.astype(bool)
    mixed &= np.diff(N) > 0
    kind += mixed  # 1: target only, 2: mixed
    del mixed
    ends = np.flatnonzero((kind[1:] != kind[:-1]) | (kind[:-1] == 2))
    return np.append(ends + 1, N.shape[0] - 1)


def _hull_vertices(N, T, ends):
    """Indices into the diagram of the vertices of its greatest convex minorant.

    These are the boundaries of the PAV blocks of the groups, from the PAV
    kernel, the groups pooled first into points ending at ``ends`` (no block
    boundary falls inside one).
    """
    tar = np.diff(T[ends], prepend=0.0)
    idx = ends.astype(np.float64)
    if N is None:
        non = np.diff(idx, prepend=0.0)
        non -= tar
    else:
        non = np.diff(N[ends], prepend=0.0)
    points = BlockSummary(idx, idx, tar, non)
    total = tar + non
    del tar, non, idx, ends
    if not (total > 0).all():
        # a weight below the rounding of the running total (1e-300 after
        # 1e300) leaves no trace in the diagram: nothing to pool
        points = BlockSummary(*(a[total > 0] for a in points))
    del total
    blocks = pav_merge(points)
    gv = np.empty(blocks.hi.shape[0] + 2, dtype=np.intp)
    gv[0] = 0
    gv[1:-1] = blocks.hi.astype(np.intp)
    gv[-1] = T.shape[0] - 1  # the last point, even if its weight left no trace
    return gv[: -1 if gv[-2] == gv[-1] else None]


class _Chain(NamedTuple):
    """The hull chain as :func:`_tangents` searches it."""

    GT: np.ndarray  # the vertices
    GW: np.ndarray  # their cumulative weight, or non-target weight if by_non
    eT: np.ndarray  # the edge onward from (upward) or inward into each vertex
    eW: np.ndarray
    last: np.ndarray  # the points nearest to vertex i run up to last[i]
    by_non: bool  # chords' weights summed from their two parts (N given)


def _chain(N, T, gv, upward):
    """The :class:`_Chain` of the vertices ``gv`` of the diagram ``(N, T)``."""
    GT = T[gv].astype(np.float64)
    GW = gv.astype(np.float64) if N is None else N[gv]
    m = gv.shape[0]
    # the end vertex gets an edge that always passes the test
    eW = np.full(m, 0.0 if upward else 1.0)
    eT = np.full(m, 1.0 if upward else 0.0)
    edges = slice(None, -1) if upward else slice(1, None)
    eW[edges] = np.diff(GW)
    eT[edges] = np.diff(GT)
    if N is not None:
        eW[edges] += eT[edges]
    # nearest vertex of every point: onward (the first vertex >= a) or
    # inward (the last vertex <= b)
    last = gv if upward else np.append(gv[1:] - 1, gv[-1])
    return _Chain(GT, GW, eT, eW, last, N is not None)


def _chord(chain, Wx, Tx, j, d_w, d_t, upward):
    """``(dT, dW)`` from the points to vertices ``j``, test point included
    (``Wx``: the points' non-target weights if ``chain.by_non``)."""
    # differences first: the test weight may be tiny next to the totals
    if upward:
        dT, dW = (chain.GT[j] - Tx) + d_t, chain.GW[j] - Wx
    else:
        dT, dW = (Tx - chain.GT[j]) + d_t, Wx - chain.GW[j]
    if chain.by_non:
        # the test point's non-target weight, then the targets': dW >= dT
        dW += d_w - d_t
        dW += dT
    else:
        dW += d_w
    return dT, dW


def _point_to_vertex(dT, dW, Tx, Wx, upward):
    """In place: the vertex values ``(dT, dW)`` become the chords from the
    points ``(Tx, Wx)`` to them, oriented as in :func:`_chord` (test point
    not yet included)."""
    if upward:
        dT -= Tx
        dW -= Wx
    else:
        np.subtract(Tx, dT, out=dT)
        np.subtract(Wx, dW, out=dW)


def _passes(chain, dT, dW, j, upward):
    """Whether vertex ``j`` is at or past the tangent point of the chords."""
    # cross-multiplied, exact for integer counts below 2**26
    if upward:
        return chain.eT[j] * dW >= dT * chain.eW[j]
    return chain.eT[j] * dW <= dT * chain.eW[j]


def _search(chain, Wt, Tt, j, d_w, d_t, upward, window=0):
    """Tangent slopes of the points whose nearest vertex ``j`` failed the
    test: a binary search on the rest of the chain.

    With ``window``, the slopes to the next ``window`` vertices come first,
    all at once, and their extreme is the tangent slope where the test
    passes at the last of them (nearly always); the others are searched
    past them. The same slopes as by the binary search alone where the
    test is exact (the slopes of the vertices fall, then rise (upward), and
    rounding keeps their order), not necessarily elsewhere.
    """
    step = 1 if upward else -1
    if window:
        # one row per vertex of the window (a reduction across rows is
        # elementwise); past the end of the chain, the end vertex, which passes
        near = j + step * np.arange(1, window + 1)[:, None]
        np.clip(near, 0, chain.GT.shape[0] - 1, out=near)
        dT, dW = _chord(chain, Wt, Tt, near, d_w, d_t, upward)
        slopes = dT / dW
        found = slopes.min(axis=0) if upward else slopes.max(axis=0)
        rest = np.flatnonzero(~_passes(chain, dT[-1], dW[-1], near[-1], upward))
        if rest.shape[0]:
            found[rest] = _search(
                chain, Wt[rest], Tt[rest], near[-1, rest], d_w, d_t, upward
            )
        return found
    m = chain.GT.shape[0]
    if upward:
        lo, hi = j + 1, np.full(j.shape[0], m - 1)
    else:
        lo, hi = np.zeros(j.shape[0], dtype=j.dtype), j - 1
    while (lo < hi).any():
        mid = (lo + hi + (0 if upward else 1)) >> 1
        ok = _passes(chain, *_chord(chain, Wt, Tt, mid, d_w, d_t, upward), mid, upward)
        if upward:
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid + 1)
        else:
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid - 1)
    dTt, dWt = _chord(chain, Wt, Tt, lo, d_w, d_t, upward)
    return dTt / dWt


def _tangents(W, T, gv, d_w, d_t, upward, out):
    """Tangent slopes from every point of the diagram to the hull chain.

    ``upward=True`` gives ``psi_1``: for every ``a``, the min over vertices
    ``b >= a`` of ``slope(C_a, C_b + d)``. ``upward=False`` gives ``psi_0``:
    for every ``b``, the max over vertices ``a <= b`` of
    ``slope(C_a, C_b + d)``. Along a convex chain such slopes fall and then
    rise (or rise and then fall), and the extreme is at the first vertex
    whose edge onward is at least as steep as the chord (the last whose
    edge inward is no steeper): a monotone test, so a binary search.

    Written into ``out``, which may be ``T`` itself: each chunk of ``T`` is
    read before its slopes are written. ``W`` is the diagram's ``N`` (see
    :func:`_groups`); None stands for ``N[k] + T[k] = k``.
    """
    chain = _chain(W, T, gv, upward)
    GT, GW, eT, eW, last, _ = chain
    # the nearest vertex is constant between vertices: cut at the chunk
    # ends too, into runs of one vertex within one chunk
    n = T.shape[0]
    run_last = np.union1d(last, np.arange(_CHUNK - 1, n, _CHUNK))
    vertex = np.searchsorted(last, run_last)
    length = np.diff(run_last, prepend=-1)
    run_GT, run_GW = GT[vertex], GW[vertex]
    run_eT, run_eW = eT[vertex], eW[vertex]
    bounds = np.arange(0, n + _CHUNK, _CHUNK)
    bounds[-1] = n
    # the runs of chunk i: run_first[i] .. run_first[i + 1] - 1
    run_first = np.searchsorted(run_last, bounds - 1, side="right")
    # Unweighted, with a whole test weight, every term is an integer below
    # 2**53: the chord's sums are exact in any order, so the test weight and
    # the start of the chunk are added to the vertex values once, and the
    # point's W is its index in the chunk.
    folded = W is None and float(d_w).is_integer() and float(d_t).is_integer()
    folded &= n + abs(d_w) + abs(d_t) < 2.0**52
    if folded:
        sign = 1.0 if upward else -1.0
        run_GT = run_GT + sign * d_t
        run_GW = run_GW + sign * d_w - (run_last - run_last % _CHUNK)
        index = np.arange(min(_CHUNK, n), dtype=np.float64)
    del run_last, vertex
    todo, todo_W, todo_T = [], [], []
    for i, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        runs = slice(run_first[i], run_first[i + 1])
        counts = length[runs]
        Tx = T[start:stop]
        # the chord to the nearest vertex and its test, as _chord() and
        # _passes() compute them, vertex values repeated over their points
        dT = np.repeat(run_GT[runs], counts)
        dW = np.repeat(run_GW[runs], counts)
        if folded:
            Wx = index[: stop - start]
        elif W is None:
            Wx = np.arange(start, stop, dtype=np.float64)
        else:
            Wx = W[start:stop]
        _point_to_vertex(dT, dW, Tx, Wx, upward)
        if not folded:
            dT += d_t
            if W is None:
                dW += d_w
            else:  # W holds N: the weight summed from its parts
                dW += d_w - d_t
                dW += dT
        lhs = np.repeat(run_eT[runs], counts)
        lhs *= dW
        rhs = np.repeat(run_eW[runs], counts)
        rhs *= dT
        # the nearest vertex is nearly always the tangent point (a point of
        # the diagram lies close to its hull): search only the others
        fail = np.flatnonzero(lhs < rhs if upward else lhs > rhs)
        del lhs, rhs
        if fail.shape[0]:
            todo.append(fail + start)
            todo_W.append(Wx[fail] + start if folded else Wx[fail])
            todo_T.append(Tx[fail])  # read before out, which may be T
        np.divide(dT, dW, out=out[start:stop])
    if not todo:
        return out
    todo = np.concatenate(todo)
    Wt, Tt = np.concatenate(todo_W), np.concatenate(todo_T)
    j = np.searchsorted(last, todo)
    out[todo] = _search(chain, Wt, Tt, j, d_w, d_t, upward)
    return out


def _tangents_at(T, gv, d_w, d_t, upward, pos):
    """:func:`_tangents` of the points ``pos`` only (increasing), unweighted
    (``W[k] = k``), computed as there."""
    chain = _chain(None, T, gv, upward)
    out = np.empty(pos.shape[0])
    for start in range(0, pos.shape[0], _CHUNK):
        a = pos[start : start + _CHUNK]
        # the points nearest to each vertex, and its values repeated over them
        counts = np.diff(np.searchsorted(a, chain.last, side="right"), prepend=0)
        Wx, Tx = a.astype(np.float64), T[a]
        dT = np.repeat(chain.GT, counts)
        dW = np.repeat(chain.GW, counts)
        _point_to_vertex(dT, dW, Tx, Wx, upward)
        dT += d_t
        dW += d_w
        np.divide(dT, dW, out=out[start : start + a.shape[0]])
        lhs = np.repeat(chain.eT, counts)
        lhs *= dW
        rhs = np.repeat(chain.eW, counts)
        rhs *= dT
        fail = np.flatnonzero(lhs < rhs if upward else lhs > rhs)
        if fail.shape[0]:
            j = np.searchsorted(chain.last, a[fail])
            out[start + fail] = _search(
                chain, Wx[fail], Tx[fail], j, d_w, d_t, upward, window=4
            )
    return out


def _record_steps(T, gv, ends, w):
    """``(p0, p1)`` as :class:`_Steps`, of unweighted distinct scores
    (``W[k] = k``), from the tangent slopes of a few points: exact for a
    whole test weight ``w`` and fewer than ``2**26`` scores, where the
    tangent tests are exact.

    With the test point labelled 1, ``psi_1`` (:func:`_tangents`) cannot
    fall along a non-target step (``C`` moves right: every chord steepens,
    and the chain shrinks) nor rise along a target step (a unit step is no
    less steep than any chord, at most 1); labelled 0, ``psi_0`` rises along
    target steps and falls along non-target ones. Between two consecutive
    points ``P`` where a target follows a non-target (and 0, and ``n``),
    the scores are a run of targets, then a run of non-targets. So the
    running maximum ``p1`` can only rise inside a run of non-targets, and
    only where it rises at the run's end, in ``P``; the running minimum
    ``p0`` (from the right) can only fall inside a run of targets, and only
    where it falls at the run's start, in ``P``. The slopes at ``P`` tell
    which runs to compute.
    """
    P = np.empty(ends.shape[0] + 1, dtype=np.intp)
    P[0] = 0
    P[1:] = ends
    v1 = _tangents_at(T, gv, w, w, True, P)
    v0 = _tangents_at(T, gv, w, 0.0, False, P)
    # the targets from P[k] run up to f[k], the non-targets to P[k + 1]
    f = P[:-1] + np.diff(T[P]).astype(np.intp)
    rises = v1[1:] > _running_extreme(v1.copy(), upward=True)[:-1]
    inside1 = _ranges(f[rises] + 1, P[1:][rises])
    falls = v0[:-1] < _running_extreme(v0.copy(), upward=False)[1:]
    inside0 = _ranges(P[:-1][falls] + 1, f[falls])
    w1 = _tangents_at(T, gv, w, w, True, inside1)
    w0 = _tangents_at(T, gv, w, 0.0, False, inside0)
    # p1 holds from each of its points on, p0 up to each
    p1 = _Steps(*_merged_steps(P, v1, inside1, w1, upward=True))
    at0, v0 = _merged_steps(P, v0, inside0, w0, upward=False)
    first0 = np.empty_like(at0)
    first0[0] = 0
    np.add(at0[:-1], 1, out=first0[1:])
    return _Steps(first0, v0), p1


class _Steps(NamedTuple):
    """A table as a step function: ``values[k]`` from row ``first[k]`` up
    to the next (``first[0] = 0``)."""

    first: np.ndarray
    values: np.ndarray

    def whole(self, size):
        """The table of ``size`` rows."""
        return np.repeat(self.values, np.diff(self.first, append=size))

    def at(self, rows):
        """The values of the increasing ``rows``."""
        return self.values[np.searchsorted(self.first, rows, side="right") - 1]

    def changes(self):
        """The rows ``i`` whose next row differs, bit for bit."""
        bits = self.values.view(np.int64)
        return self.first[1:][bits[1:] != bits[:-1]] - 1


def _merged_steps(at, values, more_at, more_values, upward):
    """The running extreme of the slopes ``values`` at the points ``at``
    and ``more_values`` at ``more_at`` (each increasing), in point order."""
    points = np.concatenate([at, more_at])
    order = np.argsort(points, kind="stable")  # a merge of two sorted runs
    merged = np.concatenate([values, more_values])[order]
    return points[order], _running_extreme(merged, upward)


def _ranges(starts, stops):
    """The integers of the ranges ``starts[i] .. stops[i] - 1``, in order."""
    lengths = stops - starts
    steps = np.ones(int(lengths.sum()), dtype=np.intp)
    if not steps.shape[0]:
        return steps
    nonempty = lengths > 0
    first = np.cumsum(lengths[nonempty]) - lengths[nonempty]
    # a jump from the end of one range to the start of the next
    steps[first[1:]] = starts[nonempty][1:] - (stops[nonempty][:-1] - 1)
    steps[0] = starts[nonempty][0]
    return np.cumsum(steps, out=steps)


def _running_extreme(values, upward):
    """Running maximum (minimum from the right) of non-negative slopes, in
    place: compared as their int64 bit patterns, which order such floats
    alike and accumulate several times faster."""
    bits = values.view(np.int64)
    if upward:
        np.maximum.accumulate(bits, out=bits)
    else:
        np.minimum.accumulate(bits[::-1], out=bits[::-1])
    return values


def venn_abers_tables(
    scores: np.ndarray,
    is_target: np.ndarray,
    sample_weight: np.ndarray | None = None,
    test_weight: float = 1.0,
) -> VennAbersTables:
    """Venn-Abers ``(p0, p1)`` for every position of a test score.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64
        Calibration scores; +/-inf allowed, NaN not.
    is_target : ndarray of shape (n_samples,), bool
        Calibration labels.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative weights (a weight counts as repeated rows); zero-weight
        samples are dropped. At least one positive weight is needed.
    test_weight : float, default=1.0
        Weight of the test point in the units of ``sample_weight``.

    Returns
    -------
    tables : VennAbersTables
        Look up test scores with :func:`venn_abers_lookup`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._venn_abers import venn_abers_tables, venn_abers_lookup
    >>> s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    >>> y = np.array([False, True, False, True, True])
    >>> p0, p1 = venn_abers_lookup(venn_abers_tables(s, y), np.array([0.3, 0.5]))
    >>> p0.round(3).tolist(), p1.round(3).tolist()
    ([0.5, 0.6], [0.75, 1.0])
    """
    c, p0, p1 = venn_abers_pairs(scores, is_target, sample_weight, test_weight)
    if isinstance(p0, _Steps):
        p0, p1 = p0.whole(c.shape[0] + 1), p1.whole(c.shape[0] + 1)
    return VennAbersTables(c, p0, p1)


def venn_abers_pairs(scores, is_target, sample_weight, test_weight):
    """``(c, p0, p1)`` of :func:`venn_abers_tables`, the tables whole or as
    :class:`_Steps`."""
    c, W, T, ends = _groups(scores, is_target, sample_weight)
    w = float(test_weight)
    total = T.shape[0] if W is None else W[-1] + T[-1]
    exponent = int(np.frexp(max(total, w))[1])
    if not -200 <= exponent <= 500:
        # the tangent tests multiply two weights: keep the products finite
        # and normal (a power of two scales exactly)
        W, T, w = np.ldexp(W, -exponent), np.ldexp(T, -exponent), w * 2.0**-exponent
    if ends is None:
        ends = _diagram_run_ends(W, T)
    gv = _hull_vertices(W, T, ends)
    if W is None and w.is_integer() and 0 < w and T.shape[0] + w < 2**26:
        return (c, *_record_steps(T, gv, ends, w))
    del ends
    T = T.astype(np.float64, copy=False)
    p1 = _tangents(W, T, gv, w, w, upward=True, out=np.empty_like(T))
    _running_extreme(p1, upward=True)
    # T itself becomes p0
    p0 = _running_extreme(_tangents(W, T, gv, w, 0.0, upward=False, out=T), False)
    del W, T
    return c, p0, p1


#: A bucket of the lookup index holds fewer than ``2**_MAX_DEPTH`` edges;
#: tables crowded into fewer buckets are searched with ``np.searchsorted``.
_MAX_DEPTH = 8

#: Buckets of the lookup index per edge.
_BUCKETS_PER_EDGE = 8


class _BucketIndex(NamedTuple):
    """Equal-width buckets over the finite range of sorted distinct scores."""

    c: np.ndarray  # the scores
    lo: float
    hi: float
    scale: float  # buckets per unit of score
    # the number of scores in the buckets below each bucket, bitwise
    # inverted (negative) for a bucket that holds scores if ``marked``
    first: np.ndarray
    depth: int  # every bucket holds fewer than 2**depth scores
    marked: bool  # at most half the buckets hold scores, and are marked


class _Lookup(NamedTuple):
    """:class:`VennAbersTables` cut down to the scores where the pair changes.

    ``edges`` are distinct calibration scores, among them every one after
    which ``p0`` or ``p1`` changes (compared bit for bit); ``p0[j]`` and
    ``p1[j]`` are the pair above ``j`` edges and below the others: a test
    score above ``j`` edges reads ``p1[j]``, and ``p0[j]`` too unless it
    equals ``edges[j]``, then ``p0[j + 1]``. Typically a few thousand edges
    for 1e5 calibration scores, so the lookups stay in cache; when the pair
    changes after more than half of the scores, the edges are all of them
    and the tables are kept whole.
    """

    edges: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    index: _BucketIndex | None  # None: searched with np.searchsorted


def _bucket_of(index, x, out):
    """The bucket of every value, as a float to round down into ``out``:
    non-decreasing in the value, rounding included."""
    np.clip(x, index.lo, index.hi, out=out)
    out -= index.lo
    out *= index.scale
    return out


def _bucket_index(c, buckets):
    """The index of :func:`_ranks` for the scores ``c``, or None if crowded.

    The range of the finite scores is cut into ``buckets`` equal buckets;
    the bucket of a value is a non-decreasing function of it, rounding
    included, so a score in a lower (higher) bucket than a value is below
    (above) it.
    """
    k = c.shape[0]
    if not k:
        return None
    # the finite range: +/-inf can only be the ends
    lo = c[0] if c[0] > -np.inf else c[min(1, k - 1)]
    hi = c[-1] if c[-1] < np.inf else c[max(k - 2, 0)]
    with np.errstate(over="ignore"):
        scale = buckets / (hi - lo) if hi > lo else 0.0
    if not 0.0 < scale < np.inf:
        return None
    index = _BucketIndex(c, float(lo), float(hi), float(scale), None, 0, False)
    # the buckets of the sorted scores are sorted: count them chunk by chunk
    # (each chunk covers a contiguous range of buckets)
    buffer = np.empty(min(_CHUNK, k))
    count = None
    for start in range(0, k, buffer.shape[0]):
        stop = min(start + buffer.shape[0], k)
        b = _bucket_of(index, c[start:stop], buffer[: stop - start]).astype(np.intp)
        if count is None:
            count = np.zeros(int(_bucket_of(index, c[-1:], buffer[:1])[0]) + 2, np.intp)
        part = np.bincount(b - b[0])
        count[b[0] + 1 : b[0] + 1 + part.shape[0]] += part
    depth = int(count.max()).bit_length()
    if depth > _MAX_DEPTH:  # outliers, heavy tails
        return None
    held = count[1:] > 0
    marked = 2 * np.count_nonzero(held) <= held.shape[0]
    np.cumsum(count, out=count)
    if marked:
        np.invert(count[:-1], out=count[:-1], where=held)
    return index._replace(first=count, depth=depth, marked=marked)


def _ranks(index, x, pos, value=None, below=None):
    """``np.searchsorted(c, x)``, in place of ``pos``, the number of scores
    in the buckets below those of ``x``; or more than ``len(c)`` for a value
    above the last score.

    A branch-free binary search in the value's bucket: no bucket ends
    needed, since the scores past them belong to higher buckets (and past
    the last score, the search reads the last score again: a value above it
    counts too many). ``value`` and ``below``: work buffers, optional.
    """
    if value is None:
        value, below = np.empty(x.shape[0]), np.empty(x.shape[0], dtype=bool)
    for level in range(index.depth - 1, -1, -1):
        # pos += 2**level where the score at pos + 2**level - 1 is below x
        step = 1 << level
        np.take(index.c[step - 1 :], pos, out=value, mode="clip")
        np.less(value, x, out=below)
        np.add(pos, step, out=pos, where=below)
    return pos


def cut_tables(c, p0, p1) -> _Lookup:
    """The :class:`_Lookup` of the tables ``p0``, ``p1`` (whole, or
    :class:`_Steps`) of the distinct scores ``c``."""
    if isinstance(p0, _Steps):
        after = np.concatenate([p0.changes(), p1.changes()])
        after.sort()
        if after.shape[0] > 1:
            after = after[run_starts(after[1:] != after[:-1])]
        if 2 * after.shape[0] > c.shape[0]:
            return cut_tables(c, p0.whole(c.shape[0] + 1), p1.whole(c.shape[0] + 1))
        rows = np.append(0, after + 1)
        return _indexed(c, c[after], p0.at(rows), p1.at(rows))
    bits0, bits1 = p0.view(np.int64), p1.view(np.int64)
    change = bits0[1:] != bits0[:-1]
    change |= bits1[1:] != bits1[:-1]
    edges = c
    if 2 * np.count_nonzero(change) <= c.shape[0]:
        after = np.flatnonzero(change)
        edges = c[after]
        rows = np.empty(after.shape[0] + 1, dtype=np.intp)
        rows[0] = 0
        np.add(after, 1, out=rows[1:])
        p0, p1 = p0[rows], p1[rows]
    del change
    return _indexed(c, edges, p0, p1)


def _indexed(c, edges, p0, p1):
    """The :class:`_Lookup` of the pairs ``p0``, ``p1`` cut at ``edges``
    (among the distinct scores ``c``)."""
    # more buckets than edges (a shallower search), but an index no larger
    # than two scores a bucket would make of all the scores
    buckets = min(_BUCKETS_PER_EDGE * edges.shape[0], (c.shape[0] + 1) // 2)
    return _Lookup(edges, p0, p1, _bucket_index(edges, buckets))


def expand_table(lookup: _Lookup, scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The table of length K + 1 for the distinct calibration ``scores`` that
    ``values`` (``lookup.p0`` or ``lookup.p1``) was cut from."""
    rows = np.searchsorted(scores, lookup.edges, side="right")
    return np.repeat(values, np.diff(rows, prepend=0, append=scores.shape[0] + 1))


def lookup_interval(lookup: _Lookup, x: np.ndarray) -> np.ndarray:
    """``(p0, p1)`` of test scores ``x`` (float64, no NaN), shape ``(m, 2)``
    (a transposed view).

    ``np.searchsorted`` of unsorted values is a binary search per value whose
    branches the processor cannot predict. Many values are located with a
    bucket index instead, chunk by chunk in reused buffers: most fall in a
    bucket without edges (the pair changes where scores are sparse), whose
    rank the index holds; only the others are searched (:func:`_ranks`).
    """
    edges, p0, p1, index = lookup
    k, m = edges.shape[0], x.shape[0]
    # filled by rows, each written contiguously, and returned transposed
    out = np.empty((2, m))
    if index is None or m <= 1024:
        if m > 1024 and k > 1024:
            # sorted values: np.searchsorted then walks the table in cache
            order = np.argsort(x)
            left = np.empty(m, dtype=np.intp)
            left[order] = np.searchsorted(edges, x[order])
            del order
        else:
            left = np.searchsorted(edges, x)
        _read_pairs(lookup, x, left, out)
        return out.T
    size = min(_CHUNK, m)
    pos, probe = np.empty(size, dtype=np.intp), np.empty(size, dtype=np.intp)
    value, below = np.empty(size), np.empty(size, dtype=bool)
    held, held_first = [], []
    for start in range(0, m, size):
        stop = min(start + size, m)
        n = stop - start
        xx = x[start:stop]
        np.copyto(probe[:n], _bucket_of(index, xx, value[:n]), "unsafe")
        np.take(index.first, probe[:n], out=pos[:n], mode="clip")
        if index.marked:
            inside = np.flatnonzero(np.less(pos[:n], 0, out=below[:n]))
        if not index.marked or 4 * inside.shape[0] > n:
            # mostly in buckets with edges (few scores, ties): all searched
            if index.marked:
                np.invert(pos[:n], out=pos[:n], where=below[:n])
            left = _ranks(index, xx, pos[:n], value[:n], below[:n])
            _read_pairs(lookup, xx, left, out[:, start:stop], value[:n], below[:n])
            continue
        # in a bucket without edges, pos is the rank, and no edge is tied
        np.take(p1, pos[:n], out=out[1, start:stop], mode="clip")
        np.take(p0, pos[:n], out=out[0, start:stop], mode="clip")
        held.append(inside + start)
        held_first.append(np.invert(pos[inside]))
    if not held or not sum(h.shape[0] for h in held):
        return out.T
    # the others, searched all at once
    held = np.concatenate(held)
    xx = x[held]
    left = _ranks(index, xx, np.concatenate(held_first))
    pair = np.empty((2, held.shape[0]))
    _read_pairs(lookup, xx, left, pair)
    out[:, held] = pair
    return out.T


def _read_pairs(lookup, x, left, out, value=None, tied=None):
    """``(p0, p1)`` into ``out`` (2 rows) of the values ``x`` above ``left``
    edges and below the others (``left`` modified); work buffers optional."""
    # left >= k only above the last edge, which is then not tied
    np.take(lookup.p1, left, out=out[1], mode="clip")
    # a score tied with edges[left] reads p0 one position up
    value = np.take(lookup.edges, left, out=value, mode="clip")
    left += np.equal(value, x, out=tied)
    np.take(lookup.p0, left, out=out[0], mode="clip")


def venn_abers_lookup(tables: VennAbersTables, x: np.ndarray):
    """``(p0, p1)`` of test scores ``x`` (float64, no NaN) from the tables."""
    interval = lookup_interval(cut_tables(*tables), x)
    return interval[:, 0], interval[:, 1]


def merge_p0p1(p0, p1, axis=None):
    """The log-loss merge ``p1 / (1 - p0 + p1)`` of one pair or of several.

    With ``axis`` given, the pairs along that axis (cross Venn-Abers: one per
    fold) are merged by geometric means, ``GM(p1) / (GM(1 - p0) + GM(p1))``
    (Vovk, Petej and Fedorova, 2015); the merged interval is then
    ``(1 - GM(1 - p0), GM(p1))``. Returns ``(p, p0, p1)``.
    """
    p0 = np.asarray(p0, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    if axis is not None and p0.shape[axis] == 1:
        p0, p1 = p0.squeeze(axis), p1.squeeze(axis)
    elif axis is not None:
        # p1 > 0 and p0 < 1 for a Venn-Abers pair (the test point itself has
        # weight > 0); p1 = 0 only from the constant stand-in of a class a
        # fold's classifier never saw, and then GM(p1) = 0
        with np.errstate(divide="ignore"):
            p1 = np.exp(np.mean(np.log(p1), axis=axis))
        p0 = 0.0 - np.expm1(np.mean(np.log1p(-p0), axis=axis))  # not -0.0
    return p1 / (1.0 - p0 + p1), p0, p1
