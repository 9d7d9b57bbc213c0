"""Empirical cross-entropy (ECE) plot: the forensic calibration plot."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy.special import expit

from ..._kernel._special import log1pexp
from ...utils._docstrings import doc_blocks
from ...utils._numpy_compat import count_nonzero, einsum
from ...utils._sklearn_compat import validate_params
from .._trials import ScoredTrials, check_prior_log_odds
from ._base import _DisplayMixin

__all__ = ["ECEDisplay", "empirical_cross_entropy"]

_LOG2 = math.log(2.0)
_REFERENCE_GID = "skcalib-ece-reference"
#: Trials whose softplus terms are summed per prior in one pass of this size
#: (the memory of the system's curve stays O(n), whatever the grid).
_CHUNK = 1 << 16


def _default_grid(prior_log_odds):
    """The prior log-odds to evaluate at: 141 points from -7 to 7 (about
    +/-3 in base 10, lir's default range) unless given."""
    if prior_log_odds is None:
        return np.linspace(-7.0, 7.0, 141)
    return check_prior_log_odds(prior_log_odds)


def _mean_softplus(x, w, shifts):
    """``sum_i w_i log(1 + exp(x_i + s)) / sum_i w_i`` for each shift ``s``.

    ``x`` may hold +/-inf (a term is 0 at -inf and inf at +inf). ``w`` None
    means unit weights. Many trials over a moderate LLR range take the
    binned Taylor expansion (:func:`_softplus_sums_binned`), O(n) plus a
    small (bins x shifts) table; otherwise one pass over the trials per
    shift, in chunks so that no (trials x shifts) matrix is formed.
    """
    if x.shape[0] == 0:
        return np.zeros(shifts.shape[0])
    norm = float(x.shape[0]) if w is None else float(w.sum())
    if x.max() == np.inf:  # a positive weight at +inf: infinite at every shift
        return np.full(shifts.shape[0], np.inf)
    if x.min() == -np.inf:  # -inf costs 0 at every shift
        finite = x > -np.inf
        x, w = x[finite], None if w is None else w[finite]
    if x.shape[0] == 0:
        return np.zeros(shifts.shape[0])
    total = _softplus_sums_binned(x, w, shifts)
    if total is None:
        total = _softplus_sums_direct(x, w, shifts)
    return total / norm


def _softplus_sums_direct(x, w, shifts):
    """``sum_i w_i softplus(x_i + s)`` for each shift (``w`` None: unit
    weights): a table of trials by shifts at a time, of at most
    ``_TABLE`` entries (the memory stays bounded, whatever the grid)."""
    if w is None:
        w = np.ones(x.shape[0])
    total = np.zeros(shifts.shape[0])
    chunk = min(x.shape[0], _CHUNK)
    group = max(1, _TABLE // max(chunk, 1))
    for start in range(0, x.shape[0], chunk):
        xc, wc = x[start : start + chunk], w[start : start + chunk]
        for first in range(0, shifts.shape[0], group):
            table = np.add.outer(shifts[first : first + group], xc)
            cost = log1pexp(table, overwrite_x=True)
            total[first : first + group] += einsum("gi,i->g", cost, wc)
    return total


#: Entries of the table of trials by shifts of :func:`_softplus_sums_direct`.
_TABLE = 1 << 18


#: Bin width and Taylor order of the binned sums. Every finite LLR is within
#: half a width, 1/64, of its bin's centre; softplus is analytic in the strip
#: |Im| < pi (sigmoid's poles at +/-i pi), so the Taylor remainder after
#: order K is about 2 (1/64 / pi)^(K+1) / pi: 1e-14 at K = 5, and relative
#: to e^-|y| in the tails, where every derivative is that small too. (Width
#: 1/16 needs K = 7 for 6e-17: two more weighted passes over the trials,
#: while the narrower bins cost only more bins x shifts, a small table.)
_BIN_WIDTH = 0.03125
_ORDER = 5


def _sigmoid_derivative_polys(order):
    """Coefficients (increasing powers of ``s = sigmoid(y)``) of the m-th
    derivative of the sigmoid, m = 1..order: ``P_1 = s - s^2`` and
    ``P_{m+1} = (s - s^2) P_m'``."""
    polys = [np.array([0.0, 1.0, -1.0])]
    for _ in range(order - 1):
        p = polys[-1]
        dp = p[1:] * np.arange(1, p.shape[0])  # P_m'
        nxt = np.zeros(p.shape[0] + 1)
        nxt[1:-1] += dp  # s * P_m'
        nxt[2:] -= dp  # - s^2 * P_m'
        polys.append(nxt)
    return polys


_SIGMOID_POLYS = _sigmoid_derivative_polys(_ORDER - 1)  # f^(2) .. f^(K)
_FACTORIALS = np.array([math.factorial(k) for k in range(_ORDER + 1)], dtype=float)


def _softplus_sums_binned(x, w, shifts):
    """``sum_i w_i softplus(x_i + s)`` by a Taylor expansion per LLR bin.

    With ``c_b`` the centre of bin ``b`` and ``d_i = x_i - c_b``,
    ``softplus(x_i + s) = sum_k f^(k)(c_b + s) d_i^k / k!``: the weighted
    moments ``sum_i w_i d_i^k / k!`` of each bin (k <= 5) are computed once
    in O(n), then each shift costs O(bins). None when the LLRs span too many
    bins for that to be cheaper than the direct sums.
    """
    n = x.shape[0]
    lo, hi = float(x.min()), float(x.max())
    n_bins = (hi - lo) / _BIN_WIDTH + 2.0
    if n_bins * (_ORDER + 1) > n / 4:
        return None
    idx, d, centres = _bin_offsets(x, lo, hi)
    n_bins = centres.shape[0]
    moments = np.empty((_ORDER + 1, n_bins))
    moments[0] = np.bincount(idx, weights=w, minlength=n_bins)
    term = d.copy() if w is None else d * w
    for k in range(1, _ORDER + 1):
        if k > 1:
            term *= d
        moments[k] = np.bincount(idx, weights=term, minlength=n_bins)
    moments /= _FACTORIALS[:, None]
    moments *= (_BIN_WIDTH ** np.arange(_ORDER + 1))[:, None]
    return _taylor_sums(moments, centres[:, None] + shifts[None, :])


def _bin_offsets(x, lo, hi):
    """``(idx, d, centres)``: the bin of each LLR, its offset from the bin's
    centre in units of the width, and the centres."""
    # bin b holds [origin + (b - 1/2) width, origin + (b + 1/2) width): the
    # nonnegative values are truncated to their index (np.rint is slower).
    # The offsets d from the centres are taken in units of the width (a
    # power of 2: the moments are scaled back exactly), from the scaled
    # values themselves: no gather of the centres.
    origin = math.floor(lo / _BIN_WIDTH) * _BIN_WIDTH
    d = np.empty(x.shape[0])
    idx = np.empty(x.shape[0], dtype=np.intp)
    _offsets(x, origin, d, idx)  # d in [-1/2, 1/2] up to rounding
    n_bins = int(math.floor((hi - origin) / _BIN_WIDTH + 0.5)) + 2
    return idx, d, origin + np.arange(n_bins) * _BIN_WIDTH


def _taylor_sums(moments, y):
    """``sum_b sum_k moments[k, b] f^(k)(y[b, g])`` for each column ``g``,
    ``f = softplus``."""
    # derivatives of softplus at every (bin, shift): f = softplus, f' =
    # sigmoid, f^(k) = sigmoid^(k-1), the latter from the polynomials in
    # s = sigmoid(-|y|) <= 1/2 (no cancellation in 1 - s), with the parity
    # sigmoid^(m)(y) = (-1)^(m+1) sigmoid^(m)(-y)
    total = einsum("b,bg->g", moments[0], log1pexp(y))
    total += einsum("b,bg->g", moments[1], expit(y))
    s = expit(-np.abs(y))
    flip = y > 0
    for m, poly in enumerate(_SIGMOID_POLYS, start=1):
        value = np.polynomial.polynomial.polyval(s, poly)
        if m % 2 == 0:
            value[flip] *= -1.0
        total += einsum("b,bg->g", moments[m + 1], value)
    return total


def _taylor_sums_both(moments, y):
    """:func:`_taylor_sums` of the targets' ``softplus(-y - d)`` and the
    non-targets' ``softplus(y + d)``, from one table of derivatives at ``y``.

    ``moments[k, b, c]``: the k-th moment of class ``c`` (1: targets) in bin
    ``b``. For ``k >= 2``, ``(-1)^k f^(k)(-y) = f^(k)(y)`` (``f''`` is even
    and the derivatives alternate in parity), so the targets' higher terms
    use the same table with their moments unchanged. Every entry comes from
    one exponential ``e = e^-|y|`` and one ``log1p(e)``: ``softplus(+/-y) =
    max(+/-y, 0) + log1p(e)``, ``sigmoid(|y|) = 1 / (1 + e)`` and
    ``sigmoid(-|y|) = e / (1 + e)``.
    """
    flip = y > 0
    e = np.abs(y)
    np.negative(e, out=e)
    np.exp(e, out=e)
    big = 1.0 / (1.0 + e)  # sigmoid(|y|)
    s = e * big  # sigmoid(-|y|) <= 1/2: no cancellation in 1 - s
    np.log1p(e, out=e)
    rows = moments.transpose(1, 2, 0)  # (bins, classes, k)
    both = einsum("bc,bg->cg", rows[:, :, 0], e)
    tar, non = both[1], both[0]
    tar += einsum("b,bg->g", rows[:, 1, 0], np.maximum(-y, 0.0))
    non += einsum("b,bg->g", rows[:, 0, 0], np.maximum(y, 0.0))
    tar -= einsum("b,bg->g", rows[:, 1, 1], np.where(flip, s, big))  # sigmoid(-y)
    non += einsum("b,bg->g", rows[:, 0, 1], np.where(flip, big, s))  # sigmoid(y)
    # the higher derivatives: polynomials in s, the even ones negated where
    # y > 0 (sigmoid^(m)(y) = (-1)^(m+1) sigmoid^(m)(-y))
    for m, poly in enumerate(_SIGMOID_POLYS, start=1):
        value = np.full_like(s, poly[-1])
        for c in poly[-2::-1]:  # Horner
            value *= s
            if c:
                value += c
        if m % 2 == 0:
            np.negative(value, out=value, where=flip)
        both = einsum("bc,bg->cg", rows[:, :, m + 1], value)
        non += both[0]
        tar += both[1]
    return [tar, non]


def _class_softplus_means(is_target, x, w, plo):
    """The class means of the system's terms at each prior log-odds:
    ``softplus(-(x + plo))`` over the targets, ``softplus(x + plo)`` over the
    non-targets (weighted; inf for a target at -inf or a non-target at
    +inf).

    Both classes share one binning of the LLRs, with a code per trial (its
    bin and class) and one weighted count per moment: no split of the
    classes. A target's term about its bin's centre ``c`` is ``softplus(-c
    - plo - d)``, the odd moments negated. Few trials or a very wide range
    take the direct sums, per class.
    """
    if w is None:
        n_tar = float(count_nonzero(is_target))
        norms = (n_tar, float(x.shape[0]) - n_tar)
    else:
        norms = (float(w[is_target].sum()), float(w[~is_target].sum()))
    lo, hi = float(x.min()), float(x.max())
    infinite = [False, False]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        neg, pos = x == -np.inf, x == np.inf
        infinite = [bool((neg & is_target).any()), bool((pos & ~is_target).any())]
        keep = ~(neg | pos)
        x, is_target = x[keep], is_target[keep]
        w = None if w is None else w[keep]
        lo, hi = (float(x.min()), float(x.max())) if x.shape[0] else (0.0, 0.0)
    n = x.shape[0]
    if n == 0 or ((hi - lo) / _BIN_WIDTH + 2.0) * (_ORDER + 1) > n / 4:
        wt = None if w is None else w[is_target]
        wn = None if w is None else w[~is_target]
        tar, non = x[is_target], x[~is_target]
        sums = [
            _softplus_sums_direct(-tar, wt, -plo) if tar.size else 0.0 * plo,
            _softplus_sums_direct(non, wn, plo) if non.size else 0.0 * plo,
        ]
    else:
        sums = _taylor_class_sums(*_class_moments(is_target, x, w, lo, hi), plo)
    return _class_means(sums, norms, infinite, plo)


def _class_means(sums, norms, infinite, plo):
    return tuple(
        np.full(plo.shape[0], np.inf) if inf else total / norm
        for total, norm, inf in zip(sums, norms, infinite, strict=True)
    )


def _taylor_class_sums(moments, centres, plo):
    """The class sums of the terms from the bins' raw moments."""
    order = np.arange(_ORDER + 1)
    moments /= _FACTORIALS[:, None, None]
    moments *= (_BIN_WIDTH**order)[:, None, None]
    used = np.flatnonzero(moments[0].any(axis=1))  # empty bins add 0
    return _taylor_sums_both(moments[:, used], centres[used, None] + plo[None, :])


def _sorted_class_softplus_means(tar, non, plo):
    """:func:`_class_softplus_means` of unweighted trials from each class's
    scores sorted (the PAV kernel's sort): a bin's trials are then a run,
    and its moments sums over the run (``np.add.reduceat``), several times
    faster than a weighted count per moment."""
    norms = (float(tar.shape[0]), float(non.shape[0]))
    # a target at -inf or a non-target at +inf costs inf; the other
    # infinite LLRs cost 0
    infinite = [
        bool(tar.shape[0] and tar[0] == -np.inf),
        bool(non.shape[0] and non[-1] == np.inf),
    ]
    tar = tar[np.searchsorted(tar, -np.inf, side="right") :]
    tar = tar[: np.searchsorted(tar, np.inf, side="left")]
    non = non[np.searchsorted(non, -np.inf, side="right") :]
    non = non[: np.searchsorted(non, np.inf, side="left")]
    ends = [a[[0, -1]] for a in (tar, non) if a.shape[0]]
    lo = min((float(e[0]) for e in ends), default=0.0)
    hi = max((float(e[1]) for e in ends), default=0.0)
    n = tar.shape[0] + non.shape[0]
    if n == 0 or ((hi - lo) / _BIN_WIDTH + 2.0) * (_ORDER + 1) > n / 4:
        sums = [
            _softplus_sums_direct(-tar, None, -plo) if tar.size else 0.0 * plo,
            _softplus_sums_direct(non, None, plo) if non.size else 0.0 * plo,
        ]
    else:
        origin = math.floor(lo / _BIN_WIDTH) * _BIN_WIDTH
        n_bins = int(math.floor((hi - origin) / _BIN_WIDTH + 0.5)) + 2
        moments = np.zeros((_ORDER + 1, n_bins, 2))
        for c, x in ((1, tar), (0, non)):
            _run_moments(x, origin, moments[:, :, c])
        sums = _taylor_class_sums(moments, origin + np.arange(n_bins) * _BIN_WIDTH, plo)
    return _class_means(sums, norms, infinite, plo)


def _run_moments(x, origin, out):
    """Add ``sum d^k`` per bin of the sorted finite ``x`` to ``out[k, bin]``,
    chunk by chunk: the bins of sorted values are runs."""
    size = min(x.shape[0], _CHUNK)
    d_buf, term_buf = np.empty(size), np.empty(size)
    idx_buf = np.empty(size, dtype=np.intp)
    flags = np.empty(size, dtype=bool)
    for start in range(0, x.shape[0], _CHUNK):
        xc = x[start : start + _CHUNK]
        m = xc.shape[0]
        d, term, idx = d_buf[:m], term_buf[:m], idx_buf[:m]
        _offsets(xc, origin, d, idx)
        # the bin of a sorted value never decreases: a run per bin
        changed = np.not_equal(idx[1:], idx[:-1], out=flags[1:m])
        starts = np.flatnonzero(changed)
        starts += 1
        starts = np.concatenate([[0], starts])
        bins = idx[starts]
        out[0, bins] += np.diff(np.append(starts, m))
        np.copyto(term, d)
        for k in range(1, _ORDER + 1):
            if k > 1:
                term *= d
            out[k, bins] += np.add.reduceat(term, starts)


def _class_moments(is_target, x, w, lo, hi):
    """``(moments, centres)``: ``moments[k, b, c]`` the weighted sum of
    ``d^k`` (``d`` the offset from the centre of bin ``b`` in units of the
    width) over the trials of class ``c`` (1: targets) in bin ``b``.

    One code per trial (twice its bin, plus 1 for a target) and one
    weighted count per moment, chunk by chunk so that the codes, offsets
    and powers stay in cache.
    """
    origin = math.floor(lo / _BIN_WIDTH) * _BIN_WIDTH
    n_bins = int(math.floor((hi - origin) / _BIN_WIDTH + 0.5)) + 2
    moments = np.zeros((_ORDER + 1, n_bins, 2))
    flat = moments.reshape(_ORDER + 1, -1)
    size = min(x.shape[0], _CHUNK)
    d_buf, term_buf = np.empty(size), np.empty(size)
    idx_buf = np.empty(size, dtype=np.intp)
    for start in range(0, x.shape[0], _CHUNK):
        xc = x[start : start + _CHUNK]
        m = xc.shape[0]
        d, term, idx = d_buf[:m], term_buf[:m], idx_buf[:m]
        _offsets(xc, origin, d, idx)
        idx *= 2
        idx += is_target[start : start + m]
        wc = None if w is None else w[start : start + m]
        flat[0] += np.bincount(idx, weights=wc, minlength=2 * n_bins)
        if wc is None:
            np.copyto(term, d)
        else:
            np.multiply(d, wc, out=term)
        for k in range(1, _ORDER + 1):
            if k > 1:
                term *= d
            flat[k] += np.bincount(idx, weights=term, minlength=2 * n_bins)
    return moments, origin + np.arange(n_bins) * _BIN_WIDTH


def _offsets(x, origin, d, idx):
    """The bin ``idx`` of each LLR and its offset ``d`` from the bin's
    centre in units of the width, written to ``d`` and ``idx`` (see
    :func:`_bin_offsets`)."""
    np.subtract(x, origin, out=d)
    d *= 1.0 / _BIN_WIDTH
    d += 0.5
    np.copyto(idx, d, casting="unsafe")  # truncation: d >= 0
    d -= idx
    d -= 0.5


def _weighted_ece(mean_tar, mean_non, plo):
    """``p mean_tar + (1 - p) mean_non`` in bits, ``p = sigmoid(plo)``.

    An infinite class loss stays infinite even where ``p`` rounds to 0 (the
    prior is positive for every finite log-odds), instead of ``0 * inf``.
    """
    p, q = expit(plo), expit(-plo)
    with np.errstate(invalid="ignore"):
        out = p * mean_tar + q * mean_non
    out[np.isinf(mean_tar) | np.isinf(mean_non)] = np.inf
    return out / _LOG2


def _ece_curves(trials, plo):
    """The ECE of the system, of its PAV-LLRs and of LLR = 0 at ``plo``."""
    # a target costs -log2 P(H1 | llr, pi) = log1pexp(-(llr + plo)) / ln 2,
    # a non-target -log2 P(H2 | llr, pi) = log1pexp(llr + plo) / ln 2
    # PAV: one LLR per block, the block's share of each class as its weight
    # (the hull's steps), so the curve costs O(blocks x grid)
    llr_b = trials.pav_llr()[0]
    pmiss, pfa = trials.rocch()
    # the system: from each class's sorted LLRs if the PAV sort formed them
    classes = trials._sorted_classes()
    if classes is None:
        means = _class_softplus_means(*trials.as_arrays(), plo)
    else:
        means = _sorted_class_softplus_means(*classes, plo)
    system = _weighted_ece(*means, plo)
    t, u = np.diff(pmiss), -np.diff(pfa)
    has_t, has_u = t > 0, u > 0
    pav = _weighted_ece(
        _mean_softplus(-llr_b[has_t], t[has_t], -plo),
        _mean_softplus(llr_b[has_u], u[has_u], plo),
        plo,
    )
    reference = _weighted_ece(log1pexp(-plo), log1pexp(plo), plo)
    return system, pav, reference


@validate_params(
    {
        "y_true": ["array-like"],
        "llr": ["array-like"],
        "prior_log_odds": ["array-like", Real, None],
        "sample_weight": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
    },
    prefer_skip_nested_validation=True,
)
def empirical_cross_entropy(
    y_true, llr, *, prior_log_odds=None, sample_weight=None, pos_label=None
):
    """Empirical cross-entropy of LLRs against the prior log-odds, in bits.

    The data of the ECE plot (Ramos et al., 2013): at each prior log-odds
    :math:`\\eta = \\operatorname{logit}(\\pi)`, the average information
    loss, in bits, of the posteriors that the LLRs give at that prior, for
    the system, for its PAV-optimal LLRs (the same trials after the best
    monotone recalibration, the discrimination loss alone) and for the
    neutral reference LLR = 0 (the prior entropy). The gap between the
    system and its PAV curve is the loss due to miscalibration; a system
    above the reference is worse than reporting no evidence at that prior.

    This is the empirical cross-entropy of Brümmer and Ramos, not the
    expected calibration error of binned probabilities
    (:func:`expected_calibration_error`), which is also abbreviated ECE.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios; +/-inf allowed.
    prior_log_odds : float or array-like of shape (n_points,), default=None
        Finite prior log-odds (natural log); default 141 points from -7 to 7
        (about -3 to 3 in base 10).
    sample_weight : array-like of shape (n_samples,), default=None
        Trial weights; zero-weight trials are ignored.
    pos_label : int, float, bool or str, default=None
        The target label. May be omitted for labels in {0, 1}, {-1, 1} or
        booleans.

    Returns
    -------
    prior_log_odds : ndarray of shape (n_points,)
        The prior log-odds evaluated at (natural log).
    ece : ndarray of shape (n_points,)
        ECE of the LLRs, in bits; ``inf`` at every prior if a target has
        LLR ``-inf`` or a non-target ``+inf``.
    pav_ece : ndarray of shape (n_points,)
        ECE of the PAV-LLRs of the trials, in bits.
    reference_ece : ndarray of shape (n_points,)
        ECE of LLR = 0: the prior's entropy in bits.

    See Also
    --------
    ECEDisplay : The plot of these curves.
    cllr, min_cllr : The curves' values at prior log-odds 0.

    Notes
    -----
    With :math:`\\pi = \\sigma(\\eta)`,

    .. math::

        \\mathrm{ECE}(\\eta) = \\frac{\\pi}{N_{tar}} \\sum_{tar} w_i
        \\log_2(1 + e^{-(\\ell_i + \\eta)}) + \\frac{1 - \\pi}{N_{non}}
        \\sum_{non} w_i \\log_2(1 + e^{\\ell_i + \\eta}),

    the terms :math:`-\\log_2 P(H_1 | \\ell_i, \\pi)` and :math:`-\\log_2
    P(H_2 | \\ell_i, \\pi)` written as softplus functions, so that no
    posterior is rounded to 0 or 1 before its logarithm (lir computes
    ``log2(1 - p)`` from ``p = odds / (1 + odds)``, which is infinite once
    ``p`` rounds to 1). At :math:`\\eta = 0` the curves equal Cllr, minimum
    Cllr and 1. The PAV curve is evaluated on the PAV blocks, weighted by
    their share of each class. The system's curve comes from a Taylor
    expansion of the softplus terms about the centres of LLR bins of width
    1/32 (order 5, exact to rounding): the bins' weighted moments cost a few
    passes over the trials, then each prior costs one pass over the bins
    (few trials, or LLRs over a very wide range, take the direct sums).
    lir plots against base-10 prior log-odds; divide
    ``prior_log_odds`` by ``ln 10`` to compare.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, G. Zadora and C. Aitken,
       "Information-theoretical assessment of the performance of likelihood
       ratio computation methods", Journal of Forensic Sciences 58(6), 2013.
    .. [2] N. Brümmer and J. du Preez, "Application-independent evaluation of
       speaker detection", Computer Speech and Language 20, 2006.

    Examples
    --------
    >>> from skcalib.metrics import cllr, empirical_cross_entropy
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> llr = [-2.0, -0.5, 1.0, -1.0, 2.0, 3.0]
    >>> plo, ece, pav_ece, ref = empirical_cross_entropy(y, llr, prior_log_odds=0)
    >>> round(float(ece[0]), 6) == round(cllr(y, llr), 6), float(ref[0])
    (True, 1.0)
    """
    trials = ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr"
    )
    plo = _default_grid(prior_log_odds)
    return (plo.copy(), *_ece_curves(trials, plo))


class ECEDisplay(_DisplayMixin):
    """Empirical cross-entropy (ECE) plot of LLRs against the prior log-odds.

    The calibration plot of the forensic validation guidelines (Ramos et
    al., 2013; Meuwly, Ramos and Haraksim, 2017): the information loss, in
    bits, of the posteriors that the LLRs give at each prior, for the system
    (solid), for its PAV-optimal LLRs (dashed: the discrimination loss) and
    for the neutral reference LLR = 0 (dotted: no evidence). At prior
    log-odds 0 the curves are Cllr, minimum Cllr and 1 bit. See
    :func:`empirical_cross_entropy` for the formula.

    This ECE is Brümmer's and Ramos's empirical cross-entropy, not the
    binned expected calibration error of
    :func:`~skcalib.metrics.expected_calibration_error`.

    Several systems share one axes: pass ``ax=display.ax_`` to the next call
    (the reference is drawn once per axes).

    It is recommended to create a display with :meth:`from_predictions`,
    :meth:`from_trials` or :meth:`from_estimator`; the constructor only
    stores computed arrays.

    Parameters
    ----------
    prior_log_odds : ndarray of shape (n_points,)
        Prior log-odds (natural log).
    ece : ndarray of shape (n_points,)
        ECE of the LLRs, in bits.
    pav_ece : ndarray of shape (n_points,)
        ECE of the PAV-LLRs, in bits.
    reference_ece : ndarray of shape (n_points,)
        ECE of LLR = 0 (the prior entropy), in bits.
    log10 : bool, default=False
        Whether the plot's axis is the base-10 prior log-odds (the stored
        values stay natural logs).
    name : str, default=None
        Name of the system, used in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The system's curve.
    pav_line_ : matplotlib Line2D
        The PAV curve.
    reference_line_ : matplotlib Line2D or None
        The reference curve, if drawn by this display.
    {axes_attributes}

    See Also
    --------
    empirical_cross_entropy : The data of this plot.
    BayesErrorDisplay : Decision costs over the same prior log-odds.
    TippettDisplay : Proportions of LLRs above each value.

    References
    ----------
    .. [1] D. Ramos, J. Gonzalez-Rodriguez, G. Zadora and C. Aitken,
       "Information-theoretical assessment of the performance of likelihood
       ratio computation methods", Journal of Forensic Sciences 58(6), 2013.
    .. [2] D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the
       validation of likelihood ratio methods used for forensic evidence
       evaluation", Forensic Science International 276, 2017.

    {examples_agg}
    >>> from skcalib.metrics import ECEDisplay
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> llr = [-2.0, -0.5, 1.0, -1.0, 2.0, 3.0]
    >>> disp = ECEDisplay.from_predictions(y, llr, name="system A")
    >>> float(disp.reference_ece.max())   # the prior entropy at even odds
    1.0
    """

    _doc_blocks = doc_blocks(
        grid="""
            prior_log_odds : array-like of shape (n_points,), default=None
                Finite prior log-odds (natural log); default 141 points from -7
                to 7.
            """
    )

    def __init__(
        self,
        *,
        prior_log_odds,
        ece,
        pav_ece,
        reference_ece,
        log10=False,
        name=None,
    ):
        self._store(locals())

    def plot(self, *, ax=None, name=None, pav_kwargs=None, **kwargs):
        """Plot the system's, the PAV and the reference curves.

        Parameters
        ----------
        {plot_ax_name}
        pav_kwargs : dict, default=None
            Keyword arguments for the PAV line (dashed, same colour).
        **kwargs : dict
            Keyword arguments for the system's line (``matplotlib.pyplot.plot``).

        {plot_returns}
        """
        ax, fig = self._plot_axes(ax, figsize=(9.0, 4.8), layout="constrained")
        prefix = self._legend_prefix(name)
        scale = 1.0 / math.log(10.0) if self.log10 else 1.0
        x = np.asarray(self.prior_log_odds, dtype=float) * scale
        ece = np.asarray(self.ece, dtype=float)
        pav = np.asarray(self.pav_ece, dtype=float)
        ref = np.asarray(self.reference_ece, dtype=float)
        at_zero = _value_at_zero(x, ece), _value_at_zero(x, pav)
        sys_label = f"{prefix}LLRs"
        pav_label = f"{prefix}PAV-LLRs"
        if at_zero[0] is not None:
            sys_label += f" (Cllr {at_zero[0]:.3f})"
            pav_label += f" (min Cllr {at_zero[1]:.3f})"
        line_kwargs = self._line_kwargs({"label": sys_label}, kwargs)
        (self.line_,) = ax.plot(
            x, np.where(np.isfinite(ece), ece, np.nan), **line_kwargs
        )
        pav_kw = self._line_kwargs(
            {"label": pav_label, "linestyle": "--", "color": self.line_.get_color()},
            pav_kwargs,
        )
        (self.pav_line_,) = ax.plot(x, pav, **pav_kw)
        self.reference_line_ = None
        if ax.get_gid() != _REFERENCE_GID:
            (self.reference_line_,) = ax.plot(
                x,
                ref,
                linestyle=":",
                color="black",
                label="reference (LR = 1)",
            )
            ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_gid(_REFERENCE_GID)
        # the whole of every curve, but a system far worse than the reference
        # does not squash the others: above 3x the prior entropy it leaves
        # the axes (its Cllr in the legend still says how far)
        finite = np.concatenate([ece[np.isfinite(ece)], pav, ref])
        top = min(1.05 * float(finite.max()), 3.0 * float(ref.max()))
        ax.set_ylim(0.0, max(top, ax.get_ylim()[1]))
        ax.set_xlim(float(x.min()), float(x.max()))
        unit = "base-10" if self.log10 else "natural"
        ax.set_xlabel(f"Prior log-odds, logit(P(H1)) ({unit} log)")
        ax.set_ylabel("Empirical cross-entropy (bits)")
        if not ax.get_title():
            ax.set_title("ECE plot")
        ax.grid(True, linestyle=":", linewidth=0.5)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        return self._plotted(ax, fig)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        llr,
        *,
        prior_log_odds=None,
        log10=False,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the ECE curves of given LLRs.

        Parameters
        ----------
        {y_true}
        llr : array-like of shape (n_samples,)
            Natural-log likelihood ratios; +/-inf allowed.
        {grid}
        log10 : bool, default=False
            Draw against the base-10 prior log-odds (the forensic convention).
        {weight_label}
        {name_ax_kwargs}

        {returns}
        """
        return cls._plot_predictions(locals(), "llr")

    @classmethod
    def from_trials(
        cls, trials, *, prior_log_odds=None, log10=False, name=None, ax=None, **kwargs
    ):
        """Plot the ECE curves of scored trials evaluated once.

        Parameters
        ----------
        trials : ScoredTrials
            The scored trials; their scores are read as natural-log LLRs,
            and their PAV blocks give the PAV curve.
        {grid}
        log10 : bool, default=False
            Draw against the base-10 prior log-odds.
        {name_ax_kwargs}

        {returns}
        """
        plo = _default_grid(prior_log_odds)
        ece, pav, ref = _ece_curves(trials, plo)
        disp = cls(
            prior_log_odds=plo,
            ece=ece,
            pav_ece=pav,
            reference_ece=ref,
            log10=log10,
            name=name,
        )
        return disp.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        prior_log_odds=None,
        log10=False,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the ECE curves of a fitted calibrator's LLRs.

        {estimator_llr}
        prior_log_odds, log10, sample_weight, pos_label
            As in :meth:`from_predictions`.
        {estimator_tail}

        {returns}
        """
        return cls._plot_estimator(locals())


def _value_at_zero(x, values):
    """The curve's value at prior log-odds 0 if the grid holds 0, else None."""
    hit = np.flatnonzero(x == 0.0)
    return float(values[hit[0]]) if hit.size else None
