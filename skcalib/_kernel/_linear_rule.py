"""The objectives of linear rules: Beta-family proper-scoring-rule losses of
an affine map of standardized scores, and the one-pass summaries they need.

:class:`AffineRuleObjective` (one score column) and the fusion objective of
:mod:`skcalib._fusion` (a linear fusion of columns) share
:class:`RuleObjective`; each is handed to the Newton solver of
:mod:`skcalib._kernel._solver`, on in-memory arrays or on Dask partitions
alike. The per-sample math is the rule kernel of
:mod:`skcalib._kernel._special`; :func:`binary_summary`, :func:`class_gap`
and :func:`penalty_variance` are one pass over ``(scores, is_target,
weights)`` chunks each.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ._solver import MAX_LLR_RANGE, WARM_START_SIZE
from ._special import rule_terms

__all__ = [
    "AffineRuleObjective",
    "BinarySummary",
    "RuleObjective",
    "binary_summary",
    "chunk_class_extremes",
    "class_gap",
    "penalty_variance",
]


# --------------------------------------------------------------------------
# Binary problems: chunks of (scores, is_target, weights)


class BinarySummary:
    """One pass over ``(scores, is_target, weights)`` chunks: ``n`` samples,
    class weights ``w_tar``, ``w_non`` (counts if unweighted) and the score
    range ``lo``, ``hi``."""

    __slots__ = ("n", "w_tar", "w_non", "lo", "hi")

    def __init__(self, values):
        self.n = int(values[0])
        self.w_tar, self.w_non = float(values[1]), float(values[2])
        self.lo, self.hi = float(-values[3]), float(values[4])


def _binary_chunk_summary(chunk):
    s, t, w = chunk[:3]
    out = np.full(5, -np.inf)
    out[0] = s.shape[0]
    if w is None:
        out[1] = np.count_nonzero(t)
        out[2] = s.shape[0] - out[1]
    else:
        out[1] = w[t].sum()
        out[2] = w[~t].sum()
    if s.shape[0]:
        out[3] = -s.min()
        out[4] = s.max()
    return out


def _combine_summaries(a, b):
    out = a + b
    np.maximum(a[3:], b[3:], out=out[3:])
    return out


def binary_summary(data):
    """:class:`BinarySummary` of a data source of ``(s, is_target, w)`` chunks."""
    return BinarySummary(data.reduce(_binary_chunk_summary, _combine_summaries))


def chunk_class_extremes(chunk):
    s, t = chunk[:2]
    out = np.full(4, -np.inf)
    for i, x in enumerate((s[t], s[~t])):
        if x.shape[0]:
            out[2 * i] = -x.min()
            out[2 * i + 1] = x.max()
    return out


def _overlap(extremes):
    """Whether both classes' score ranges (``chunk_class_extremes``) meet."""
    neg_lo_tar, hi_tar, neg_lo_non, hi_non = extremes
    return not (hi_non < -neg_lo_tar or hi_tar < -neg_lo_non)


def class_gap(data):
    """``(lo, hi)`` of the gap between perfectly separated classes, else None.

    ``lo`` is the non-target score next to the gap, ``hi`` the target one
    (``lo > hi`` when the targets lie below the non-targets).
    """
    sample = data.subsample(WARM_START_SIZE)
    if sample is not data and _overlap(sample.reduce(chunk_class_extremes, np.maximum)):
        # classes overlapping in a subset overlap in all the data
        return None
    neg_lo_tar, hi_tar, neg_lo_non, hi_non = data.reduce(
        chunk_class_extremes, np.maximum
    )
    if hi_non < -neg_lo_tar:
        return float(hi_non), float(-neg_lo_tar)
    if hi_tar < -neg_lo_non:
        return float(-neg_lo_non), float(hi_tar)
    return None


def _chunk_moments(standardizer, class_factors, chunk):
    X, t, w = chunk[:3]
    # column-major as the sums over contiguous columns of the calibrators'
    # own copies, whatever the layout of X
    u = standardizer.transform(X, out=np.empty(X.shape, order="F"))
    u = u.reshape(-1, standardizer.scale.shape[0])
    v = np.where(t, class_factors[0], class_factors[1])
    if w is not None:
        v = v * w
    return np.stack([np.full(u.shape[1], v.sum()), v @ u, v @ (u * u)])


def penalty_variance(data, standardizer, class_factors, normalizer=1.0):
    """Variance of each standardized input column, weighted as the objective.

    The unit of a penalty on the slopes that keeps a fit independent of the
    units of the scores: with ``sigma`` the standard deviation of a raw
    column under the weights ``v`` (the sample weight times the class
    factor, ``class_factors = (k_tar, k_non)``), a raw slope ``A`` costs
    ``lambda * normalizer * (A sigma)^2``, which is
    ``lambda * normalizer * variance * a^2`` for the slope ``a`` in
    standardized units. ``normalizer``, the objective of the uninformative
    system (:func:`skcalib._kernel._special.uninformative_objective`), makes
    ``lambda`` a weight on the *normalized* objective, the same at every
    target prior and for every rule (the mean loss of an extreme
    ``p_target`` is a thousand times smaller than at 0.5, its penalty
    should be too). Exact for weights as repeated rows (one pass over all
    the data; the standardizer's own scale comes from a subsample).
    Returns ``normalizer * variance``, an ndarray of shape ``(n_columns,)``,
    0 for a constant column.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._linear_rule import penalty_variance
    >>> from skcalib._kernel._solver import ArrayData, fit_standardizer
    >>> x = np.array([0.0, 1.0, 2.0, 10.0]) * 1e200
    >>> t = np.array([False, False, True, True])
    >>> data = ArrayData(x, t, None)
    >>> std = fit_standardizer(data)
    >>> var = penalty_variance(data, std, (0.5 / 2, 0.5 / 2))  # balanced
    >>> round(float(var[0] * (std.scale[0] * 2.0 ** std.exponent[0] / 1e200) ** 2), 9)
    15.6875
    """
    factors = (float(class_factors[0]), float(class_factors[1]))
    s0, s1, s2 = data.reduce(partial(_chunk_moments, standardizer, factors))
    mean = s1 / s0
    variance = np.maximum(s2 / s0 - mean * mean, 0.0)
    return np.where(standardizer.constant, 0.0, float(normalizer) * variance)


def _l2_standardized(l2, standardizer, variance=None):
    """Per-column ``lambda`` on the standardized slopes ``a``.

    ``variance=None``: the penalty ``l2 A^2`` on the raw slopes ``A``, i.e.
    ``l2 / (raw scale)^2`` per ``a^2``; else ``l2 (A sigma)^2``, i.e.
    ``l2 * variance`` (:func:`penalty_variance`).
    """
    if variance is not None:
        return l2 * np.asarray(variance, dtype=np.float64)
    d = standardizer
    with np.errstate(over="ignore"):
        return np.ldexp(l2 / d.scale**2, -2 * d.exponent)


# --------------------------------------------------------------------------
# The objective


class RuleObjective:
    """What the Beta-rule objectives of an affine map of standardized scores
    share: :class:`AffineRuleObjective` (one column) and
    :class:`skcalib._fusion.FusionObjective` (a fusion of columns), whose
    docstrings give the parameters.

    Chunks of ``chunk_size`` samples keep every temporary in cache (numpy
    temporaries below malloc's mmap threshold are recycled from the heap
    instead of being mapped and zeroed afresh); sums accumulate in float64.
    """

    chunk_size = 1 << 13

    def __init__(
        self,
        *,
        standardizer,
        class_factors,
        alpha=1.0,
        beta=1.0,
        tau=0.0,
        l2=0.0,
        l2_variance=None,
    ):
        self.standardizer = standardizer
        self.class_factors = (float(class_factors[0]), float(class_factors[1]))
        self.alpha, self.beta = float(alpha), float(beta)
        self.tau = float(tau)
        self.l2 = float(l2)
        self.l2_variance = l2_variance

    def with_rule(self, alpha, beta):
        """The same objective with another rule (same prepared chunks)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.alpha, other.beta = float(alpha), float(beta)
        return other

    def presolve(self):
        """The objectives to minimize first (``presolve`` of the solver).

        Rules other than the logarithmic one start from the logistic
        solution.
        """
        if (self.alpha, self.beta) == (1.0, 1.0):
            return []
        return [self.with_rule(1.0, 1.0)]

    def _l2_std(self):
        """``lambda`` per standardized slope, one per column."""
        return _l2_standardized(self.l2, self.standardizer, self.l2_variance)


class AffineRuleObjective(RuleObjective):
    """Beta-rule objective of the affine LLR map of one score column.

    With ``u`` the standardized score and ``theta = (a, b)`` it computes

    .. math::

        f(a, b) = \\sum_{g} \\sum_{i \\in g} v_i\\,
                  G(\\epsilon_g (a u_i + b + \\tau); p_g, r_g)
                  + \\ell_a a + \\ell_b b + \\lambda (A \\sigma)^2

    with its gradient and Hessian in one chunked pass over the data (the
    groups are the targets, ``epsilon = +1, (p, r) = (alpha, beta)``, and the
    non-targets, ``epsilon = -1, (p, r) = (beta, alpha)``; ``G`` the target
    cost of the rule, see :mod:`skcalib._kernel._special`). ``v_i`` is the sample
    weight times the class factor. The linear term serves Platt's smoothed
    targets ``(t_tar, t_non)``: each sample's loss ``w [softplus(z) - t z]``
    is the hard-label logistic loss plus a term linear in ``(a, b)``. The L2
    penalty is on the slope ``A`` in the units of the raw scores
    (``sigma = 1``) or, with ``l2_variance``, per standard deviation
    ``sigma`` of the scores (:func:`penalty_variance`).

    Parameters
    ----------
    standardizer : Standardizer
        Units of the score column.
    class_factors : tuple of float
        ``(k_tar, k_non)``: the sample weight of a target is multiplied by
        ``k_tar``, of a non-target by ``k_non``.
    alpha, beta : float, default=1.0
        Rule parameters.
    tau : float, default=0.0
        Offset added to the LLR (``logit(p_target)``).
    targets : tuple of float or None, default=None
        Platt's soft targets ``(t_tar, t_non)``; None for hard labels.
    l2 : float, default=0.0
        ``lambda`` of the penalty ``lambda * (A sigma)^2`` on the raw slope
        ``A``.
    l2_variance : ndarray of shape (1,), default=None
        ``None``: ``sigma = 1`` (the penalty is in the units of the scores).
        Else the variance of the standardized scores from
        :func:`penalty_variance`: ``sigma`` is the standard deviation of the
        scores and the fit does not depend on their units.
    separable : bool, default=False
        Whether perfectly separated classes leave the objective without a
        finite minimizer (false with an L2 penalty or soft targets).
    """

    n_params = 2

    def __init__(self, *, targets=None, separable=False, **params):
        super().__init__(**params)
        self.targets = targets
        self.separable = separable

    def prepare(self, chunk):
        """Standardized scores by class, targets first (non-targets negated),
        weights times the class factors and the chunk's linear term.

        A chunk of at most ``chunk_size`` samples also gets the weighted
        basis of its sums (:meth:`_small_terms`).
        """
        s, t, w = chunk[:3]
        n, n_tar = s.shape[0], int(np.count_nonzero(t))
        non = ~t
        u = np.empty(n)
        np.compress(t, s, out=u[:n_tar])
        np.compress(non, s, out=u[n_tar:])
        self.standardizer.transform(u, copy=False)
        groups = []
        linear = np.zeros(2)
        for sign, rows, mask, k in (
            (1.0, slice(None, n_tar), t, self.class_factors[0]),
            (-1.0, slice(n_tar, None), non, self.class_factors[1]),
        ):
            ug = u[rows]
            wg = None if w is None else w[mask]
            if self.targets is not None:
                # targets: w [sp(-z) + (1 - t_tar) z]; non-targets: w [sp(z) - t_non z]
                c = 1.0 - self.targets[0] if sign > 0 else -self.targets[1]
                if wg is None:
                    sums = (float(ug.sum()), float(ug.shape[0]))
                else:
                    sums = (float(wg @ ug), float(wg.sum()))
                linear += c * k * np.array(sums)
            if sign < 0:
                np.negative(ug, out=ug)
            groups.append((sign, ug, None if wg is None else wg * k, k))
        small = None
        if n <= self.chunk_size:
            small = (u, n_tar, self._basis(u, n_tar, groups))
        return groups, linear, small

    @staticmethod
    def _basis(u, n_tar, groups):
        """Rows ``v u, s v, v u^2, s v u, v`` (``s`` the class sign) of the
        sums of one small chunk."""
        basis = np.empty((5, u.shape[0]))
        v = basis[4]
        for (_, _, w, k), rows in zip(
            groups, (slice(None, n_tar), slice(n_tar, None)), strict=True
        ):
            v[rows] = k if w is None else w
        np.multiply(v, u, out=basis[0])
        np.multiply(basis[0], u, out=basis[2])
        basis[1] = v
        basis[3] = basis[0]
        np.negative(basis[1::2, n_tar:], out=basis[1::2, n_tar:])
        return basis

    def terms(self, theta, chunk, order):
        groups, linear, small = chunk
        theta = np.asarray(theta, dtype=np.float64)
        a, b = theta.tolist()
        derivatives = order > 0
        f = float(linear @ theta)
        if small is not None:
            return self._small_terms(a, b, f, linear, small, order)
        grad = linear.copy()
        hess = np.zeros((2, 2))
        for sign, u, w, k in groups:
            p, r = (self.alpha, self.beta) if sign > 0 else (self.beta, self.alpha)
            c = sign * (b + self.tau)
            acc = np.zeros(6)
            with np.errstate(over="ignore"):
                for start in range(0, u.shape[0], self.chunk_size):
                    stop = start + self.chunk_size
                    uc = u[start:stop]
                    wc = None if w is None else w[start:stop]
                    _chunk(acc, uc, wc, a, c, p, r, derivatives)
            if w is None:
                acc *= k
            f += acc[0]
            if derivatives:
                # d/da = sum v G' u', d/db = sign sum v G'
                grad += (acc[2], sign * acc[1])
                hess += np.array([[acc[5], sign * acc[4]], [sign * acc[4], acc[3]]])
        if order == 0:
            return f
        return (f, grad, hess)[: order + 1]

    def _small_terms(self, a, b, f, linear, small, order):
        """:meth:`terms` of a chunk held as one array: a few array operations
        and three matrix-vector products with the basis, whatever the size
        (on a hundred samples the cost is per numpy call)."""
        u, n_tar, basis = small
        c = b + self.tau
        z = u * a
        z[:n_tar] += c
        z[n_tar:] -= c
        if self.alpha == self.beta:
            parts = [(slice(None), self.alpha, self.beta)]
        else:
            parts = [
                (slice(None, n_tar), self.alpha, self.beta),
                (slice(n_tar, None), self.beta, self.alpha),
            ]
        # f = sum v G; grad = (sum v G' u, sum s v G');
        # hess = (sum v G'' u^2, sum s v G'' u, sum v G'') (no overflow
        # warning: rule_terms silences its own, and matmul raises none)
        second = 2 if order > 0 else 0
        sums = []
        for rows, p, r in parts:
            g, d1, d2 = rule_terms(z[rows], p, r, second)
            f += float(basis[4, rows] @ g)
            if order > 0:
                sums.append((basis[:2, rows] @ d1, basis[2:, rows] @ d2))
        if order == 0:
            return f
        gs, hs = sums[0] if len(sums) == 1 else map(sum, zip(*sums, strict=True))
        h_aa, h_ab, h_bb = hs.tolist()
        hess = np.array([[h_aa, h_ab], [h_ab, h_bb]])
        return (f, linear + gs, hess)[: order + 1]

    def penalty(self, theta, order):
        """``lambda (A sigma)^2`` up to ``order``; None without a penalty."""
        if self.l2 == 0.0:
            return None
        lam = float(self._l2_std()[0])
        a = float(theta[0])
        f = lam * a * a
        if order == 0:
            return f
        return (
            f,
            np.array([2.0 * lam * a, 0.0]),
            np.array([[2.0 * lam, 0.0], [0.0, 0.0]]),
        )[: order + 1]

    def span(self, theta):
        """Spread of the LLRs over the training scores, ``|a| width``."""
        return abs(float(theta[0])) * float(self.standardizer.width[0])

    def limit(self, data):
        """With separated classes: the documented bound, centred in the gap."""
        if not self.separable:
            return None
        gap = class_gap(data)
        if gap is None:
            return None
        # Every rule's infimum is the step at the gap, reached only in the
        # limit a -> inf: stop where the LLRs span MAX_LLR_RANGE nats.
        d = self.standardizer
        e = -int(d.exponent[0])
        lo, hi = float(np.ldexp(gap[0], e)), float(np.ldexp(gap[1], e))
        slope = MAX_LLR_RANGE / float(d.width[0] * d.scale[0])
        if lo > hi:
            slope = -slope
        mid = 0.5 * (lo + hi)
        return np.array([slope * d.scale[0], -slope * (mid - d.center[0])])


def _sum(x, w):
    return float(x.sum()) if w is None else float(x @ w)


def _chunk(acc, s, w, a, c, p, r, derivatives):
    """Accumulate sum v G, sum v G', sum v G' s, sum v G'', ... for one chunk."""
    z = s * a
    z += c
    g, d1, d2 = rule_terms(z, p, r, 2 if derivatives else 0)
    acc[0] += _sum(g, w)
    if not derivatives:
        return
    if w is not None:
        d1 = d1 * w
        d2 = d2 * w
    acc[1] += d1.sum()
    acc[2] += d1 @ s
    acc[3] += d2.sum()
    ds = d2 * s
    acc[4] += ds.sum()
    acc[5] += ds @ s
