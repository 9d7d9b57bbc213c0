"""Kernels of the forensic validation metrics, on validated trial arrays.

The exact ELUB and invariance bounds from the distinct scores with each
class's weight (one sort), lir's grid versions of both, devPAV from the PAV
blocks, the rates of misleading evidence and the expected LRs. Natural-log
LLRs throughout. :class:`~skcalib.metrics.ScoredTrials` calls them; the
public functions and their documentation are in
:mod:`skcalib.metrics._forensic`.
"""

from __future__ import annotations

import math

import numpy as np

from ..utils._numpy_compat import count_nonzero

__all__ = [
    "devpav_from_blocks",
    "elub_from_values",
    "elub_on_grid",
    "expected_lrs",
    "invariance_from_values",
    "invariance_on_grid",
    "misleading_rates",
    "sorted_values",
]

_LN10 = math.log(10.0)

#: lir's substitutes for infinite LLRs: base-10 LLRs outside (-9, 9) in its
#: ELUB, and LRs outside (e^-20, e^20) in its invariance bounds.
_ELUB_EXTREME10 = 9.0
_INVARIANCE_EXTREME = 20.0


# ------------------------------------------------------------- the one sort
def sorted_values(is_target, x, w):
    """The distinct scores, increasing, with each class's weight at each.

    One sort of each class (the two together cost one sort of all the
    trials) and a linear merge of the two sorted runs.

    Returns
    -------
    u : ndarray of shape (m,)
        The distinct scores, increasing (+/-inf allowed).
    tar, non : ndarray of shape (m,)
        The target and non-target weight at each distinct score.
    """
    if w is None:
        s_tar = np.sort(x[is_target])
        both = np.concatenate([s_tar, np.sort(x[~is_target])])
        # two sorted runs: the stable sort merges them in one linear pass
        order = np.argsort(both, kind="stable")
        xs = both[order]
        tar_s = order < s_tar.shape[0]
        non_s = None
    else:
        order = np.argsort(x, kind="stable")
        xs = x[order]
        ws = w[order]
        tar_s = np.where(is_target[order], ws, 0.0)
        non_s = ws - tar_s
    new = np.empty(xs.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    if w is None:
        tar_s = tar_s.astype(np.float64)
        non_s = 1.0 - tar_s
    if new.all():  # no ties: nothing to pool
        return xs, tar_s, non_s
    starts = np.flatnonzero(new)
    return xs[starts], _group_sums(tar_s, starts), _group_sums(non_s, starts)


def _group_sums(values, starts):
    """Sums of ``values`` over the runs beginning at ``starts``."""
    cum = np.cumsum(values)
    ends = np.empty(starts.shape[0], dtype=np.intp)
    ends[:-1] = starts[1:] - 1
    ends[-1] = values.shape[0] - 1
    out = cum[ends]
    out[1:] -= cum[ends[:-1]]
    return out


def _prefix(weights):
    """``out[k] = weights[:k].sum()`` for k in 0..m (``out[0] = 0``)."""
    out = np.zeros(weights.shape[0] + 1)
    np.cumsum(weights, out=out[1:])
    return out


def _suffix(weights):
    """``out[k] = weights[k:].sum()`` for k in 0..m (``out[m] = 0``)."""
    out = np.zeros(weights.shape[0] + 1)
    out[:-1] = np.cumsum(weights[::-1])[::-1]
    return out


# ---------------------------------------------------------------- ELUB
def elub_from_values(u, tar, non):
    """Exact ELUB bounds (natural-log LLRs) from :func:`sorted_values`.

    The expected utility of deciding "accept H1" when the LR exceeds a
    threshold ``theta``, with one misleading trial added to each class, is
    compared with that of the neutral LR 1; the bounds are the thresholds
    nearest ``theta = 1`` (LLR 0) where the system stops being worse.
    Between consecutive distinct LLRs the counts are constant and the
    condition is linear in ``theta``: the bound is either where it turns or
    an LLR of the data.
    """
    w1, w2 = float(tar.sum()), float(non.sum())
    a1, a2 = _suffix(tar), _suffix(non)  # weight of llr >= u_k, i.e. > u_{k-1}
    # interval k = [u_{k-1}, u_k) (u_{-1} = -inf, u_m = inf), where the weight
    # above the threshold is a[k]; the bound is in the interval nearest 0
    # where the condition holds (its root or end beats those of the others)
    z = int(np.searchsorted(u, 0.0, side="left"))  # intervals 0..z reach below 0
    p = int(np.searchsorted(u, 0.0, side="right"))  # p..m reach above 0
    # the threshold LLR 0 itself (interval p): worse than neutral gives (0, 0)
    if (a2[p] + 1.0) * (w1 + 1.0) > a1[p] * (w2 + 1.0):
        return 0.0, 0.0
    with np.errstate(over="ignore"):
        theta = np.exp(u)
    # below 0: worse iff theta * (w2 - a2)/(w2 + 1) < 1 - a1/(w1 + 1), for a
    # theta in the interval: check at its lower end
    # w - a[k], the weight below u_k, as a prefix sum: no cancellation
    c1 = (1.0 + _prefix(tar)[: z + 1]) / (w1 + 1.0)
    c2 = _prefix(non)[: z + 1] / (w2 + 1.0)
    theta_lo = np.concatenate([[0.0], theta[:z]])
    k = np.flatnonzero(theta_lo * c2 < c1)[-1]  # interval 0 always qualifies
    root = math.inf if c2[k] <= 0 else math.log(c1[k]) - math.log(c2[k])
    hi = u[k] if k < u.shape[0] else math.inf
    lower = min(hi, root, 0.0)
    # above 0: worse iff theta * (a2 + 1)/(w2 + 1) > a1/(w1 + 1): check at
    # the interval's upper end
    b1 = a1[p:] / (w1 + 1.0)
    b2 = (a2[p:] + 1.0) / (w2 + 1.0)
    theta_hi = np.concatenate([theta[p:], [np.inf]])
    with np.errstate(invalid="ignore"):  # inf * b2 is inf: b2 > 0
        k = p + np.flatnonzero(theta_hi * b2 > b1)[0]
    root = -math.inf if a1[k] <= 0 else math.log(b1[k - p]) - math.log(b2[k - p])
    lo = u[k - 1] if k > 0 else -math.inf
    upper = max(lo, root, 0.0)
    return min(lower, 0.0), max(upper, 0.0)


def elub_on_grid(u, tar, non, step):
    """lir's ELUB (``lir.algorithms.bayeserror.elub``) on its grid of
    base-10 thresholds of spacing ``step``, in natural-log LLRs.

    The same condition as :func:`elub_from_values`, evaluated at lir's
    thresholds only (from the larger of the lowest LLR and
    ``-log10(n_tar + 1)`` to the smaller of the highest LLR and
    ``log10(n_non + 1)``); a bound is the grid point next to the last
    threshold (towards LLR 0) where the system is worse than neutral.
    """
    w1, w2 = float(tar.sum()), float(non.sum())
    u10 = np.clip(u / _LN10, -_ELUB_EXTREME10, _ELUB_EXTREME10)
    llr_min = max(float(u10[0]), -math.log10(w1 + 1.0))
    llr_max = min(float(u10[-1]), math.log10(w2 + 1.0))
    k_min = min(0, int(np.floor_divide(llr_min, step)))
    k_max = max(0, int(np.floor_divide(llr_max, step)) + 1)
    grid = np.linspace(k_min * step, k_max * step, k_max - k_min + 1)
    lr = 10.0**u10
    thr = 10.0**grid
    # weight of LR > threshold, per class: the LRs are increasing
    k = np.searchsorted(lr, thr, side="right")
    a1, a2 = _suffix(tar)[k], _suffix(non)[k]
    eu_system = 1.0 - a1 / (w1 + 1.0) + thr * ((a2 + 1.0) / (w2 + 1.0))
    eu_neutral = np.where(thr < 1.0, thr, 1.0)
    worse = eu_neutral / eu_system < 1.0
    lower = np.max(grid[(grid <= 0) & worse] + step, initial=grid[0])
    upper = np.min(grid[(grid >= 0) & worse] - step, initial=grid[-1])
    return min(float(lower), 0.0) * _LN10, max(float(upper), 0.0) * _LN10


# --------------------------------------------------------- invariance bounds
def _clipped_values(u, tar, non, extreme):
    """The distinct values after clipping to ``[-extreme, extreme]``: the
    values beyond each end pooled into one at the end."""
    lo = int(np.searchsorted(u, -extreme, side="right"))  # u[:lo] <= -extreme
    hi = int(np.searchsorted(u, extreme, side="left"))  # u[hi:] >= extreme
    if lo <= 1 and hi >= u.shape[0] - 1:  # at most one value at each end
        return np.clip(u, -extreme, extreme), tar, non
    parts = [(u[lo:hi], tar[lo:hi], non[lo:hi])]
    if lo:
        parts.insert(
            0, ([-extreme], tar[:lo].sum(keepdims=True), non[:lo].sum(keepdims=True))
        )
    if hi < u.shape[0]:
        parts.append(
            ([extreme], tar[hi:].sum(keepdims=True), non[hi:].sum(keepdims=True))
        )
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def invariance_from_values(u, tar, non):
    """Exact invariance-verification bounds (natural-log LLRs).

    With the Jeffreys-smoothed exceedance probabilities
    ``p_i(t) = (#{llr_i >= t} + 1/2) / (n_i + 1)`` of each hypothesis,
    ``delta_high(t) = log p_1(t) - log p_2(t) - t`` and
    ``delta_low(t) = t - log(1 - p_1(t)) + log(1 - p_2(t))``; the upper
    bound is the lowest threshold where ``delta_high`` turns negative, the
    lower bound the highest where ``delta_low`` is negative, over thresholds
    from ``min(0, lowest LLR)`` to ``max(0, highest LLR)``. LLRs beyond +/-20
    count as +/-20, as in lir. Between consecutive LLRs the counts are
    constant and both functions linear in ``t`` with slope -1 and 1.
    """
    u, tar, non = _clipped_values(u, tar, non, _INVARIANCE_EXTREME)
    w1, w2 = float(tar.sum()), float(non.sum())
    s1, s2 = _suffix(tar), _suffix(non)  # weight of llr >= t on (u_{k-1}, u_k]
    pre1, pre2 = _prefix(tar), _prefix(non)  # weight of llr < t there
    t_start, t_end = min(0.0, float(u[0])), max(0.0, float(u[-1]))
    lo = np.concatenate([[t_start], u])
    hi = np.concatenate([u, [t_end]])
    # [t_start, u_0] (closed; maybe one point), then (u_{k-1}, u_k], then
    # (u_{m-1}, t_end]; the empty ones dropped
    keep = lo < hi
    keep[0] = True
    lo, hi, s1, s2 = lo[keep], hi[keep], s1[keep], s2[keep]
    pre1, pre2 = pre1[keep], pre2[keep]
    e = np.exp(u)  # one exp of the LLRs for both ends of every interval
    exp_lo = np.concatenate([[math.exp(t_start)], e])[keep]
    exp_hi = np.concatenate([e, [math.exp(t_end)]])[keep]
    p1 = (s1 + 0.5) / (w1 + 1.0)
    p2 = (s2 + 0.5) / (w2 + 1.0)
    # delta_high < 0 iff t > log(p1 / p2): on an interval iff at its upper
    # end; the first such interval holds the bound (LLRs are within +/-20)
    k = np.flatnonzero(p1 < exp_hi * p2)
    if k.size:
        k = k[0]
        upper = max(float(lo[k]), math.log(p1[k]) - math.log(p2[k]))
    else:  # lir: the highest H1 LLR
        upper = float(u[tar > 0][-1])
    # w - s, the weight below the interval, as a prefix sum: no cancellation
    q1 = (pre1 + 0.5) / (w1 + 1.0)
    q2 = (pre2 + 0.5) / (w2 + 1.0)
    # delta_low < 0 iff t < log(q1 / q2): iff at the lower end; the last
    k = np.flatnonzero(exp_lo * q2 < q1)
    if k.size:
        k = k[-1]
        lower = min(float(hi[k]), math.log(q1[k]) - math.log(q2[k]))
    else:  # lir: the lowest H2 LLR
        lower = float(u[non > 0][0])
    return min(lower, 0.0), max(upper, 0.0)


def invariance_on_grid(u, tar, non, grid):
    """lir's invariance bounds (``calculate_invariance_bounds``) on its grid
    of base-10 thresholds, in natural-log LLRs.

    ``grid`` is lir's ``step_size`` (thresholds from ``min(0, lowest)`` to
    ``max(0, highest) + step``, base 10) or lir's ``llr_threshold`` array.
    As in lir, a bound falls back to the extreme LLR of the other hypothesis
    when no threshold after the first is negative.
    """
    u, tar, non = _clipped_values(u, tar, non, _INVARIANCE_EXTREME)
    w1, w2 = float(tar.sum()), float(non.sum())
    u10 = np.log10(np.exp(u))  # lir's log10 of its substituted LRs
    if np.ndim(grid) == 0:
        step = float(grid)
        grid = np.arange(min(0.0, u10[0]), max(0.0, u10[-1]) + step, step)
    else:
        grid = np.asarray(grid, dtype=np.float64)
    k = np.searchsorted(u10, grid, side="left")  # weight of llr >= t
    p1 = (_suffix(tar)[k] + 0.5) / (w1 + 1.0)
    p2 = (_suffix(non)[k] + 0.5) / (w2 + 1.0)
    delta_high = np.log10(p1) - np.log10(p2) - grid
    delta_low = grid - np.log10(1.0 - p1) + np.log10(1.0 - p2)
    neg = np.flatnonzero(delta_high < 0)
    if neg.size == 0 or (neg.size == 1 and neg[0] == 0):
        upper = float(u[tar > 0][-1])
    else:
        upper = float(grid[neg[0] - 1]) * _LN10
    neg = np.flatnonzero(delta_low < 0)
    if neg.size == 0 or (neg.size == 1 and neg[0] == 0):
        lower = float(u[non > 0][0])
    else:
        lower = float(grid[min(neg[-1] + 1, grid.shape[0] - 1)]) * _LN10
    return min(lower, 0.0), max(upper, 0.0)


# ---------------------------------------------------------------- devPAV
def devpav_from_blocks(llr, lo, hi):
    """devPAV from the PAV blocks: the PAV-LLR of each block and its range.

    The PAV-transformed LLRs, joined by straight lines, form a curve of
    points ``(llr, pav_llr)``: each block is a horizontal segment from its
    lowest to its highest LLR. devPAV is the area between the curve and the
    identity over the LLR range of the blocks of finite PAV-LLR, divided
    by that range, integrated exactly segment by segment.
    """
    finite = np.isfinite(llr)
    if not finite.any():  # classes separated: the PAV curve is a step
        return math.inf
    y, x0, x1 = llr[finite], lo[finite], hi[finite]
    if not (np.isfinite(x0[0]) and np.isfinite(x1[-1])):
        # a finite PAV-LLR held out to an infinite LLR: infinite deviation
        return math.inf
    # the curve's vertices: each block's two ends, in increasing LLR
    xs = np.column_stack([x0, x1]).ravel()
    ys = np.repeat(y, 2)
    if xs[-1] == xs[0]:
        return float(abs(xs[0] - ys[0]))
    # devPAV is homogeneous of degree one in (llr, pav_llr): LLRs near the
    # largest float are scaled by a power of two (exact) so that no square,
    # sum or range overflows, and the result scaled back
    top = max(abs(float(xs[0])), abs(float(xs[-1])), float(np.abs(ys).max()))
    scale = math.ldexp(1.0, math.frexp(top)[1]) if top > 2.0**500 else 1.0
    if scale != 1.0:
        xs, ys = xs / scale, ys / scale
    d = ys - xs  # the deviation, linear along each segment
    d0, d1, dx = d[:-1], d[1:], np.diff(xs)
    a0, a1 = np.abs(d0), np.abs(d1)
    same = (d0 >= 0) == (d1 >= 0)
    total = a0 + a1
    # |d| integrates to the trapezoid on one side of the identity, and to
    # two triangles (d0^2 + d1^2) / (2 (|d0| + |d1|)) where it crosses it
    with np.errstate(invalid="ignore", divide="ignore"):
        cross = np.where(total > 0, (d0 * d0 + d1 * d1) / (2.0 * total), 0.0)
    area = np.where(same, 0.5 * total, cross) * dx
    return float(area.sum() / (xs[-1] - xs[0])) * scale


# ------------------------------------------------------- rates, expected LRs
def misleading_rates(is_target, x, w):
    """``(P(llr < 0 | H1), P(llr > 0 | H2))``, weighted."""
    if w is None:
        n1 = np.count_nonzero(is_target)
        tar_low = np.count_nonzero(is_target & (x < 0))
        non_high = np.count_nonzero(~is_target & (x > 0))
        return float(tar_low / n1), float(non_high / (x.shape[0] - n1))
    w1 = float(w[is_target].sum())
    w2 = float(w[~is_target].sum())
    tar_low = float(w[is_target & (x < 0)].sum())
    non_high = float(w[~is_target & (x > 0)].sum())
    return tar_low / w1, non_high / w2


def _log_mean_exp(v, w):
    """``log(weighted mean of exp(v))``, stable for +/-inf and large ``v``."""
    top = float(v.max())
    if not math.isfinite(top):  # +inf: the mean is inf; -inf: all are 0
        return top
    e = np.exp(v - top)
    if w is None:
        return top + math.log(float(e.mean()))
    return top + math.log(float(np.dot(e, w) / w.sum()))


def expected_lrs(is_target, x, w):
    """``(E[1/LR | H1], E[LR | H2])``: 1 and 1 for a calibrated system."""
    w1 = None if w is None else w[is_target]
    w2 = None if w is None else w[~is_target]
    log_inv = _log_mean_exp(-x[is_target], w1)
    log_lr = _log_mean_exp(x[~is_target], w2)
    with np.errstate(over="ignore"):
        return float(np.exp(log_inv)), float(np.exp(log_lr))


# ------------------------------------------- the bounds without a full sort
#: Trials per bucket of :func:`_Buckets` (about), and the fewest trials for
#: which the bounds take the buckets rather than one sort of all trials.
_BUCKET_SIZE = 256
_BUCKETS_MIN_N = 4096
#: Buckets refined before the bounds fall back to one sort of all trials.
_MAX_REFINED = 16
#: Relative slack of the bucket screens: a bucket is passed over only when
#: its bound misses the condition by more than rounding could explain.
_SLACK = 1e-6


class _Buckets:
    """The trials in buckets of equal width over their finite range, with
    each class's weight per bucket: one linear pass, no sort.

    The bucket of a score, ``floor((x - lo) * scale)`` clipped to the
    buckets (``-inf`` to the first, ``+inf`` to the last), is nondecreasing
    in the score, so every score of a lower bucket is below every score of
    a higher one. ``G1[j]``, ``G2[j]``: the target and non-target weight in
    buckets ``j, j+1, ...`` (``G[0]`` the totals, ``G[B]`` 0), ``P1[j]``,
    ``P2[j]`` that in the buckets below ``j``: weights of the upper tail are
    summed from the top and those of the lower tail from the bottom, so
    that neither is a difference of nearly equal sums. A bucket's
    scores lie within ``vmin[j]`` and ``vmax[j]`` (its edges widened by two
    buckets against rounding; the end buckets unbounded).
    """

    def __init__(self, is_target, x, w, n_buckets):
        self.is_target, self.x, self.w = is_target, x, w
        finite = np.isfinite(x)
        if not finite.all():
            finite = x[finite]
            lo = float(finite.min()) if finite.size else 0.0
            hi = float(finite.max()) if finite.size else 0.0
        else:
            lo, hi = float(x.min()), float(x.max())
        with np.errstate(over="ignore"):
            width = hi - lo
        if not (math.isfinite(width) and width > 0.0):
            n_buckets = 1
        self.n_buckets = n_buckets
        scale = n_buckets / width if n_buckets > 1 else 0.0
        # the code of a trial: twice its bucket, plus 1 for a target (int32:
        # half the memory traffic of intp)
        if n_buckets == 1:
            code = is_target.astype(np.int32)
        else:
            q = np.subtract(x, lo)
            q *= scale
            np.minimum(q, n_buckets - 1, out=q)  # +inf to the last bucket
            np.maximum(q, 0.0, out=q)  # -inf to the first
            code = q.astype(np.int32)
            del q
            code <<= 1
            code |= is_target
        self.code = code
        sums = np.bincount(code, weights=w, minlength=2 * n_buckets)
        tar, non = sums[1::2].astype(np.float64), sums[0::2].astype(np.float64)
        if w is None:
            self.count = tar + non
        else:  # a bucket holds trials even if their weights sum to 0.0
            self.count = np.bincount(code >> 1, minlength=n_buckets)
        self.G1, self.G2 = _suffix(tar), _suffix(non)
        self.P1, self.P2 = _prefix(tar), _prefix(non)
        self.w1, self.w2 = float(self.G1[0]), float(self.G2[0])
        if n_buckets == 1:
            self.vmin, self.vmax = np.array([-np.inf]), np.array([np.inf])
        else:
            j = np.arange(n_buckets, dtype=np.float64)
            self.vmin = np.where(j >= 2, lo + (j - 2.0) / scale, -np.inf)
            self.vmax = np.where(j < n_buckets - 3, lo + (j + 3.0) / scale, np.inf)

    def values(self, j):
        """The distinct scores of bucket ``j``, increasing, and, of each
        class, the weight at or below each score and at or above it:
        ``(u, (le1, ge1), (le2, ge2))``."""
        sel = self._in(j)
        u, tar, non = sorted_values(
            self.is_target[sel], self.x[sel], None if self.w is None else self.w[sel]
        )
        le1, le2 = _prefix(tar)[1:], _prefix(non)[1:]
        le1 += self.P1[j]
        le2 += self.P2[j]
        ge1, ge2 = _suffix(tar)[:-1], _suffix(non)[:-1]
        ge1 += self.G1[j + 1]
        ge2 += self.G2[j + 1]
        return u, (le1, ge1), (le2, ge2)

    def _in(self, j):
        """The trials of bucket ``j``: their positions (or all)."""
        if self.n_buckets == 1:
            return slice(None)
        return np.flatnonzero((self.code | 1) == 2 * j + 1)

    def _nonempty(self, j, step):
        """The nearest bucket beyond ``j`` (in direction ``step``) that holds
        trials, or None."""
        if step > 0:
            k = np.flatnonzero(self.count[j + 1 :])
            return j + 1 + int(k[0]) if k.size else None
        k = np.flatnonzero(self.count[:j])
        return int(k[-1]) if k.size else None

    def next_value(self, j):
        """The lowest score above bucket ``j`` (``inf`` if none)."""
        k = self._nonempty(j, 1)
        return math.inf if k is None else float(self.x[self._in(k)].min())

    def prev_value(self, j):
        """The highest score below bucket ``j`` (``-inf`` if none)."""
        k = self._nonempty(j, -1)
        return -math.inf if k is None else float(self.x[self._in(k)].max())

    def scan(self, possible, refine, step):
        """``refine(j)`` of the buckets where ``possible`` holds, nearest
        first (increasing ``j`` for ``step > 0``), up to the first answer
        that is not None; ``(False, None)`` if every candidate was refined
        without one, ``(True, None)`` if there were too many to refine."""
        cand = np.flatnonzero(possible & (self.count > 0))
        if step < 0:
            cand = cand[::-1]
        for i, j in enumerate(cand.tolist()):
            if i == _MAX_REFINED:
                return True, None
            out = refine(j)
            if out is not None:
                return False, out
        return False, None


def _n_buckets(n, n_buckets):
    if n_buckets is not None:
        return int(n_buckets)
    return max(1, min(n // _BUCKET_SIZE, 1 << 16))


def _not_below(lhs, rhs):
    """Where ``lhs < rhs`` surely fails, NaN (``0 * inf``) not excluded."""
    with np.errstate(invalid="ignore"):
        return lhs * (1.0 - _SLACK) >= rhs * (1.0 + _SLACK)


def elub_bounds_unsorted(is_target, x, w, n_buckets=None):
    """:func:`elub_from_values` of the trials, without sorting them all.

    The trials go into buckets of equal width (one linear pass); a bound is
    the interval nearest LLR 0 where the system is worse than neutral, and
    a bucket can hold it only if the condition holds at its most favourable
    ends and class weights, so the buckets are screened from LLR 0 outward
    and only those that pass are sorted and evaluated exactly, with the
    formulas of :func:`elub_from_values`. The result is the same.
    """
    n = x.shape[0]
    if n < _BUCKETS_MIN_N and n_buckets is None:
        return elub_from_values(*sorted_values(is_target, x, w))
    b = _Buckets(is_target, x, w, _n_buckets(n, n_buckets))
    w1, w2 = b.w1, b.w2
    # the threshold LLR 0 itself: the weight above 0 of each class
    above = x > 0
    if w is None:
        a1p = float(count_nonzero(above & is_target))
        a2p = float(count_nonzero(above)) - a1p
    else:
        a1p = float(w[above & is_target].sum())
        a2p = float(w[above & ~is_target].sum())
    if (a2p + 1.0) * (w1 + 1.0) > a1p * (w2 + 1.0):
        return 0.0, 0.0
    with np.errstate(over="ignore"):
        e_min, e_max = np.exp(b.vmin), np.exp(b.vmax)

    # below 0, by the lower end v of an interval (an LLR < 0; a_gt the
    # weight above v): worse iff exp(v) * c2 < c1; the highest such v
    def refine_lower(j):
        u, (le1, _), (le2, _) = b.values(j)
        neg = int(np.searchsorted(u, 0.0, side="left"))
        if neg == 0:
            return None
        c1 = (1.0 + le1[:neg]) / (w1 + 1.0)
        c2 = le2[:neg] / (w2 + 1.0)
        with np.errstate(invalid="ignore"):  # exp(-inf) * 0
            k = np.flatnonzero(np.exp(u[:neg]) * c2 < c1)
        if not k.size:
            return None
        k = int(k[-1])
        root = math.inf if c2[k] <= 0 else math.log(c1[k]) - math.log(c2[k])
        hi = float(u[k + 1]) if k + 1 < u.shape[0] else b.next_value(j)
        return min(hi, root, 0.0)

    possible = ~_not_below(
        e_min * (b.P2[:-1] / (w2 + 1.0)), (1.0 + b.P1[1:]) / (w1 + 1.0)
    )
    possible &= b.vmin < 0.0
    give_up, lower = b.scan(possible, refine_lower, -1)
    if give_up:
        return elub_from_values(*sorted_values(is_target, x, w))
    if lower is None:  # the interval below every LLR (theta 0) qualifies
        lower = min(float(x.min()), 0.0)

    # above 0, by the upper end v of an interval (an LLR > 0; a_ge the
    # weight at or above v): worse iff exp(v) * b2 > b1; the lowest such v
    def refine_upper(j):
        u, (_, a1), (_, a2) = b.values(j)
        pos = int(np.searchsorted(u, 0.0, side="right"))
        if pos == u.shape[0]:
            return None
        b1 = a1[pos:] / (w1 + 1.0)
        b2 = (a2[pos:] + 1.0) / (w2 + 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            k = np.flatnonzero(np.exp(u[pos:]) * b2 > b1)
        if not k.size:
            return None
        k = int(k[0])
        root = -math.inf if b1[k] <= 0 else math.log(b1[k]) - math.log(b2[k])
        lo = float(u[pos + k - 1]) if pos + k > 0 else b.prev_value(j)
        return max(lo, root, 0.0)

    with np.errstate(over="ignore", invalid="ignore"):
        possible = ~_not_below(
            b.G1[1:] / (w1 + 1.0), e_max * ((b.G2[:-1] + 1.0) / (w2 + 1.0))
        )
    possible &= b.vmax > 0.0
    give_up, upper = b.scan(possible, refine_upper, 1)
    if give_up:
        return elub_from_values(*sorted_values(is_target, x, w))
    if upper is None:  # the interval above every LLR (theta inf)
        upper = max(float(x.max()), 0.0)
    return min(lower, 0.0), max(upper, 0.0)


def invariance_bounds_unsorted(is_target, x, w, n_buckets=None):
    """:func:`invariance_from_values` of the trials, without sorting them all.

    As :func:`elub_bounds_unsorted`: the LLRs, clipped to +/-20 as in lir,
    go into buckets; a bucket is sorted and evaluated exactly (the formulas
    of :func:`invariance_from_values`) only if a bound can lie in it, the
    upper bound's candidates from the lowest LLR up, the lower bound's from
    the highest down. The result is the same.
    """
    n = x.shape[0]
    if n < _BUCKETS_MIN_N and n_buckets is None:
        return invariance_from_values(*sorted_values(is_target, x, w))
    xc = np.clip(x, -_INVARIANCE_EXTREME, _INVARIANCE_EXTREME)
    b = _Buckets(is_target, xc, w, _n_buckets(n, n_buckets))
    w1, w2 = b.w1, b.w2
    u_min, u_max = float(xc.min()), float(xc.max())
    t_start, t_end = min(0.0, u_min), max(0.0, u_max)
    e_min, e_max = np.exp(b.vmin), np.exp(b.vmax)  # within +/-20 (and 2 buckets)

    # delta_high < 0 on the interval (previous LLR, v] iff
    # p1 < exp(v) * p2 (a_ge the weight at or above v); the lowest such v
    def refine_upper(j):
        u, (_, s1), (_, s2) = b.values(j)
        p1 = (s1 + 0.5) / (w1 + 1.0)
        p2 = (s2 + 0.5) / (w2 + 1.0)
        k = np.flatnonzero(p1 < np.exp(u) * p2)
        if not k.size:
            return None
        k = int(k[0])
        if k > 0:
            lo = float(u[k - 1])
        else:
            lo = b.prev_value(j)
            if lo == -math.inf:  # the first interval: [t_start, lowest LLR]
                lo = t_start
        return max(lo, math.log(p1[k]) - math.log(p2[k]))

    possible = ~_not_below(
        (b.G1[1:] + 0.5) / (w1 + 1.0), e_max * ((b.G2[:-1] + 0.5) / (w2 + 1.0))
    )
    give_up, upper = b.scan(possible, refine_upper, 1)
    if give_up:
        return invariance_from_values(*sorted_values(is_target, x, w))
    if upper is None:
        p1, p2 = 0.5 / (w1 + 1.0), 0.5 / (w2 + 1.0)
        if u_max < t_end and p1 < math.exp(t_end) * p2:
            # the interval (highest LLR, t_end]: no weight at or above it
            upper = max(u_max, math.log(p1) - math.log(p2))
        else:  # lir: the highest H1 LLR
            upper = float(xc[is_target].max())

    # delta_low < 0 on the interval (v, next LLR] iff exp(v) * q2 < q1
    # (a_gt the weight above v); the highest such v, but not the highest
    # LLR if it is at or above t_end (an empty interval)
    def refine_lower(j):
        u, (le1, _), (le2, _) = b.values(j)
        q1 = (le1 + 0.5) / (w1 + 1.0)
        q2 = (le2 + 0.5) / (w2 + 1.0)
        holds = np.exp(u) * q2 < q1
        if u[-1] >= t_end:
            holds[-1] = False
        k = np.flatnonzero(holds)
        if not k.size:
            return None
        k = int(k[-1])
        if k + 1 < u.shape[0]:
            hi = float(u[k + 1])
        else:
            hi = b.next_value(j)
            if hi == math.inf:  # the last interval: (highest LLR, t_end]
                hi = t_end
        return min(hi, math.log(q1[k]) - math.log(q2[k]))

    possible = ~_not_below(
        e_min * ((b.P2[:-1] + 0.5) / (w2 + 1.0)), (b.P1[1:] + 0.5) / (w1 + 1.0)
    )
    give_up, lower = b.scan(possible, refine_lower, -1)
    if give_up:
        return invariance_from_values(*sorted_values(is_target, x, w))
    if lower is None:
        q1, q2 = 0.5 / (w1 + 1.0), 0.5 / (w2 + 1.0)
        if math.exp(t_start) * q2 < q1:  # the first interval [t_start, lowest]
            lower = min(u_min, math.log(q1) - math.log(q2))
        else:  # lir: the lowest H2 LLR
            lower = float(xc[~is_target].min())
    return min(lower, 0.0), max(upper, 0.0)
