"""Binned expected calibration error of probabilities."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
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
    if strategy == "quantile":
        q = np.linspace(0.0, 1.0, n_bins + 1)
        # Unweighted: calibration_curve's (linear) quantiles exactly.
        edges = np.quantile(p, q) if w is None else _weighted_quantiles(p, w, q)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    # calibration_curve's binning: bin m holds edges[m] < p <= edges[m+1] for
    # interior edges (values at an interior edge fall in the lower bin).
    bin_ids = np.searchsorted(edges[1:-1], p)
    if w is None:
        w = np.ones_like(p)
    total = np.bincount(bin_ids, weights=w, minlength=n_bins)
    pos = np.bincount(bin_ids, weights=np.where(is_target, w, 0.0), minlength=n_bins)
    prob = np.bincount(bin_ids, weights=w * p, minlength=n_bins)
    nonzero = total > 0
    total, pos, prob = total[nonzero], pos[nonzero], prob[nonzero]
    gap = np.abs(pos / total - prob / total)
    frac = total / total.sum()
    if norm == "l1":
        return float(np.dot(frac, gap))
    if norm == "l2":
        return float(np.sqrt(np.dot(frac, gap**2)))
    return float(gap.max())


def _weighted_quantiles(x, w, q):
    """Inverted-CDF quantiles of ``x`` weighted by ``w`` (``np.percentile``'s
    ``'inverted_cdf'`` method for unit weights)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cum = np.cumsum(w[order])
    idx = np.searchsorted(cum, q * cum[-1], side="left")
    return xs[np.clip(idx, 0, xs.shape[0] - 1)]
