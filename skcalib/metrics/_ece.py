"""Binned expected calibration error of probabilities."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._stats import (
    cumulative_quantiles,
    sorted_cumulative,
    weighted_quantiles,
)
from ..utils._validation import check_metric_inputs

__all__ = ["expected_calibration_error"]


@validate_params(
    {
        "y_true": ["array-like"],
        "y_prob": ["array-like"],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "strategy": [StrOptions({"uniform", "quantile"})],
        "norm": [StrOptions({"l1", "l2", "max"})],
        "sample_weight": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
    },
    prefer_skip_nested_validation=True,
)
def expected_calibration_error(
    y_true,
    y_prob,
    *,
    n_bins=15,
    strategy="uniform",
    norm="l1",
    sample_weight=None,
    pos_label=None,
):
    """Binned expected calibration error (ECE) of positive-class probabilities.

    The probabilities are grouped into bins; in each non-empty bin the mean
    predicted probability is compared with the observed fraction of
    positives, and the absolute gaps are averaged with the bins' weights
    (``'l1'``, the usual ECE), root-mean-squared (``'l2'``) or maximized
    (``'max'``, the maximum calibration error). The bins are those of
    :func:`sklearn.metrics.calibration_curve` (and of the reliability diagram
    drawn by :class:`sklearn.calibration.CalibrationDisplay`).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    n_bins : int >= 1, default=15
        Number of bins.
    strategy : {'uniform', 'quantile'}, default='uniform'
        ``'uniform'``: bins of equal width on [0, 1]; ``'quantile'``: edges at
        the quantiles of ``y_prob`` (as ``calibration_curve``; with
        ``sample_weight``, the weighted inverted-CDF quantiles), so bins hold
        about equally many samples (tied probabilities may leave bins empty).
    norm : {'l1', 'l2', 'max'}, default='l1'
        How the per-bin gaps are combined.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (bin weights, fractions and means are weighted).
    pos_label : int, float, bool or str, default=None
        The positive label. May be omitted for labels in {0, 1}, {-1, 1} or
        booleans.

    Returns
    -------
    ece : float
        The expected calibration error, in [0, 1].

    See Also
    --------
    sklearn.calibration.calibration_curve : The per-bin points.
    brier_loss, cllr : Proper scoring rules, which (unlike the ECE) cannot be
        gamed by a constant prediction and do not depend on a binning.

    Notes
    -----
    With bins :math:`B_m`, weights :math:`|B_m|`, observed fractions
    :math:`o_m` and mean probabilities :math:`p_m`,

    .. math::

        ECE_{l1} = \\sum_m \\frac{|B_m|}{n} |o_m - p_m|, \\quad
        ECE_{l2} = \\sqrt{\\sum_m \\frac{|B_m|}{n} (o_m - p_m)^2}, \\quad
        ECE_{max} = \\max_m |o_m - p_m|.

    This is the binary (positive-class) ECE, as in scikit-learn's
    reliability diagrams, not the top-label ECE of multiclass papers.

    Examples
    --------
    >>> from skcalib.metrics import expected_calibration_error
    >>> y = [0, 0, 1, 1]
    >>> p = [0.1, 0.3, 0.6, 0.9]
    >>> round(expected_calibration_error(y, p, n_bins=2), 4)
    0.225
    >>> float(expected_calibration_error(y, [0.5] * 4))  # calibrated, useless
    0.0
    """
    is_target, p, w = check_metric_inputs(
        y_true, y_prob, sample_weight, pos_label=pos_label, score_name="y_prob"
    )
    if p.min() < 0 or p.max() > 1:
        raise ValueError("`y_prob` has values outside [0, 1].")
    if n_bins <= 2 * p.shape[0] + 1024:
        bin_ids = _bin_ids_from_edges(p, w, n_bins, strategy)
        n_ids = n_bins
    else:
        # More bins than samples: neither the edges nor per-bin totals are
        # materialized (n_bins=10**9 would take gigabytes); each sample's bin
        # is found by bisection over the bin index, and only the at most
        # n_samples non-empty bins are kept.
        bin_ids = _bin_ids_by_bisection(p, w, n_bins, strategy)
        _, bin_ids = np.unique(bin_ids, return_inverse=True)
        n_ids = int(bin_ids.max()) + 1
    if w is None:
        w = np.ones_like(p)
    total = np.bincount(bin_ids, weights=w, minlength=n_ids)
    pos = np.bincount(bin_ids, weights=np.where(is_target, w, 0.0), minlength=n_ids)
    prob = np.bincount(bin_ids, weights=w * p, minlength=n_ids)
    nonzero = total > 0
    total, pos, prob = total[nonzero], pos[nonzero], prob[nonzero]
    gap = np.abs(pos / total - prob / total)
    frac = total / total.sum()
    if norm == "l1":
        return float(np.dot(frac, gap))
    if norm == "l2":
        return float(np.sqrt(np.dot(frac, gap**2)))
    return float(gap.max())


def _bin_ids_from_edges(p, w, n_bins, strategy):
    """Bin of each probability, from the materialized bin edges.

    ``calibration_curve``'s binning: bin m holds edges[m] < p <= edges[m+1]
    for interior edges (values at an interior edge fall in the lower bin).
    """
    q = np.linspace(0.0, 1.0, n_bins + 1)
    if strategy == "uniform":
        edges = q
    elif w is None:  # calibration_curve's (linear) quantiles exactly
        edges = np.quantile(p, q)
    else:
        edges = weighted_quantiles(p, w, q)
    return np.searchsorted(edges[1:-1], p)


def _bin_ids_by_bisection(p, w, n_bins, strategy):
    """:func:`_bin_ids_from_edges` in O(n_samples) memory for any ``n_bins``.

    The bin of ``p`` is the number of interior edges ``edge(m)``,
    ``m = 1..n_bins-1``, below ``p``; edges increase with ``m``, so a
    vectorized bisection over ``m`` finds it with ``log2(n_bins)`` evaluations
    of the edges at one index per sample. ``edge(m)`` is computed exactly as
    ``np.linspace(0, 1, n_bins + 1)[m]`` (``m * (1 / n_bins)``) and the
    quantile of that level, so the bins equal those of the materialized edges.
    """
    step = 1.0 / n_bins
    if strategy == "uniform":

        def edge(m):
            return m * step

        # m * step is within a few ulps of m / n_bins: bracket p * n_bins.
        guess = np.floor(p * n_bins)
        lo = np.clip(guess - 2, 0, n_bins - 1).astype(np.int64)
        hi = np.clip(guess + 2, 0, n_bins - 1).astype(np.int64)
    else:
        xs, cum = (np.sort(p), None) if w is None else sorted_cumulative(p, w)

        def edge(m):
            if cum is None:
                return np.quantile(xs, m * step)
            return cumulative_quantiles(xs, cum, m * step)

        lo = np.zeros(p.shape[0], dtype=np.int64)
        hi = np.full(p.shape[0], n_bins - 1, dtype=np.int64)
    # invariant: lo <= (number of interior edges below p) <= hi
    active = np.flatnonzero(lo < hi)
    while active.shape[0]:
        mid = (lo[active] + hi[active] + 1) // 2
        below = edge(mid.astype(np.float64)) < p[active]
        lo[active] = np.where(below, mid, lo[active])
        hi[active] = np.where(below, hi[active], mid - 1)
        active = active[lo[active] < hi[active]]
    return lo
