"""Reliability curves: per-bin frequencies with Clopper-Pearson intervals.

The numbers behind :class:`~skcalib.metrics.ReliabilityDisplay`, without
matplotlib. The bins are those of the package's ECEs
(:func:`~skcalib.metrics.expected_calibration_error` and its multiclass
versions), which are those of :func:`sklearn.calibration.calibration_curve`.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.stats import beta
from sklearn.utils import Bunch

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._validation import check_metric_inputs
from ._ece import _bin_ids, _checked_class_probabilities, _few_bins

__all__ = ["reliability_curve"]


class _Curves(NamedTuple):
    """Validated probabilities of one or more reliability curves.

    ``kind`` is ``'binary'`` (``outcome``: is-positive, ``prob``: its
    probability), ``'top-label'`` (``outcome``: class indices, ``prob``:
    the posteriors; one curve of the confidences) or ``'classwise'`` (one
    curve per column of ``prob``).
    """

    kind: str
    outcome: np.ndarray
    prob: np.ndarray
    sample_weight: np.ndarray | None

    @property
    def n_curves(self):
        return self.prob.shape[1] if self.kind == "classwise" else 1

    def each(self):
        """``(outcome, p)`` of each curve: a boolean array and probabilities."""
        if self.kind == "binary":
            yield self.outcome, self.prob
        elif self.kind == "top-label":
            top = np.argmax(self.prob, axis=1)
            confidence = self.prob[np.arange(self.prob.shape[0]), top]
            yield top == self.outcome, confidence
        else:
            for k in range(self.prob.shape[1]):
                yield self.outcome == k, self.prob[:, k]


def _binary_curves(y_true, y_prob, sample_weight, pos_label):
    """The curve of positive-class probabilities, validated."""
    is_target, p, w = check_metric_inputs(
        y_true, y_prob, sample_weight, pos_label=pos_label, score_name="y_prob"
    )
    if p.min() < 0 or p.max() > 1:
        raise ValueError("`y_prob` has values outside [0, 1].")
    return _Curves("binary", is_target, p, w)


def _checked_curves(y_true, y_prob, multi_class, labels, sample_weight, pos_label):
    """Validated curves of 1-D (binary) or 2-D (multiclass) ``y_prob``."""
    if np.ndim(y_prob) == 2:
        if pos_label is not None:
            raise ValueError(
                "`pos_label` is for 1-D (binary) `y_prob`; with 2-D `y_prob` "
                "pass the column labels as `labels`."
            )
        t, q, w = _checked_class_probabilities(y_true, y_prob, labels, sample_weight)
        return _Curves(multi_class, t, q, w)
    if labels is not None:
        raise ValueError(
            "`labels` is for 2-D (multiclass) `y_prob`; with 1-D `y_prob` "
            "name the positive class with `pos_label`."
        )
    return _binary_curves(y_true, y_prob, sample_weight, pos_label)


def _clopper_pearson(k, n, confidence_level):
    """Two-sided Clopper-Pearson interval of a proportion, ``k`` of ``n``.

    ``(beta.ppf(a/2, k, n-k+1), beta.ppf(1-a/2, k+1, n-k))`` with
    ``a = 1 - confidence_level``; the lower end is 0 at ``k = 0`` and the
    upper end 1 at ``k = n``. ``k`` and ``n`` may be non-integer (effective
    counts).
    """
    alpha = 1.0 - confidence_level
    lower = np.zeros(k.shape)
    upper = np.ones(k.shape)
    # Beta(k, m)'s a/2-quantile is about (a/2) ** (1 / k): below e**-1000,
    # 0 in floats, where k < -log(a/2) / 1000 (older SciPy raises there)
    tiny = -np.log(alpha / 2) / 1000
    some = k > tiny
    lower[some] = beta.ppf(alpha / 2, k[some], n[some] - k[some] + 1)
    short = n - k > tiny
    upper[short] = beta.ppf(1 - alpha / 2, k[short] + 1, n[short] - k[short])
    return lower, upper


def _kish(ids, w, n_ids, count, total, w_min):
    """Kish's effective count ``(sum w)^2 / sum w^2`` of each bin.

    The weights are scaled so that squares cannot underflow to 0: all by
    one power of two (exact) when that keeps every bin's largest weight
    above ``2^-400`` (its square a normal number), else each bin's by its
    largest weight. ``total`` holds the bins' weights, ``w_min`` the
    smallest positive weight: when every weight is within ``2^400`` of the
    largest, no bin's largest weight need be found, and when the scaled
    weights stay normal numbers their sums are ``total`` scaled, exactly.
    """
    peak = float(w.max())
    if math.log2(peak) - math.log2(w_min) < 400:
        exponent = -int(np.frexp(peak)[1])
    else:  # each bin's largest weight decides
        top = np.zeros(n_ids)
        np.maximum.at(top, ids, w)
        low = float(top[count > 0].min())
        exponent = None
        if low > 0 and math.log2(peak) - math.log2(low) < 400:
            exponent = -int(np.frexp(peak)[1])
    if exponent is None:
        u = w / np.where(top > 0, top, 1.0)[ids]
        u_sum = np.bincount(ids, weights=u, minlength=n_ids)
    else:
        scale = math.ldexp(1.0, min(exponent, 1023))
        # a float: the product is ldexp's, faster
        u = w * scale if exponent <= 1023 else np.ldexp(w, exponent)
        if exponent <= 1023 and w_min * scale >= 2.0**-1022:
            u_sum = total * scale  # the same sums, scaled: no rounding
        else:
            u_sum = np.bincount(ids, weights=u, minlength=n_ids)
    np.multiply(u, u, out=u)
    u_sq = np.bincount(ids, weights=u, minlength=n_ids)
    return np.divide(u_sum**2, u_sq, out=np.zeros(n_ids), where=count > 0)


def _curve_bins(outcome, p, w, n_bins, strategy, confidence_level):
    """The non-empty bins of one curve: a dict of arrays, one row per bin."""
    ids = _bin_ids(p, w, n_bins, strategy)
    if _few_bins(n_bins, p.shape[0]):
        bins, n_ids = None, n_bins
    else:  # only the at most n_samples non-empty bins are counted
        bins, ids = np.unique(ids, return_inverse=True)
        n_ids = bins.shape[0]
    # np.bincount converts narrower indices (the int8 of few bins) on
    # every call: once here
    ids = ids.astype(np.intp, copy=False)
    if w is None:
        count = np.bincount(ids, minlength=n_ids)
        total = count.astype(np.float64)
        positives = np.bincount(
            ids, weights=outcome.astype(np.float64), minlength=n_ids
        )
        prob = np.bincount(ids, weights=p, minlength=n_ids)
        n_eff = total
    else:
        positive = w > 0
        if positive.all():
            count = np.bincount(ids, minlength=n_ids)
            w_min = float(w.min())
        else:
            count = np.bincount(ids[positive], minlength=n_ids)
            w_min = float(np.min(w, where=positive, initial=np.inf))
        total = np.bincount(ids, weights=w, minlength=n_ids)
        wo = np.multiply(w, outcome)
        positives = np.bincount(ids, weights=wo, minlength=n_ids)
        np.multiply(w, p, out=wo)
        prob = np.bincount(ids, weights=wo, minlength=n_ids)
        n_eff = _kish(ids, w, n_ids, count, total, w_min)
    keep = np.flatnonzero(count > 0)
    total, positives, prob = total[keep], positives[keep], prob[keep]
    n_eff = n_eff[keep]
    frequency = positives / total
    # frequency * n_eff is the count of positives itself without weights
    # (then n_eff is the count) and n_eff exactly when every sample is positive
    successes = positives if w is None else frequency * n_eff
    lower, upper = _clopper_pearson(successes, n_eff, confidence_level)
    return {
        "bin": keep if bins is None else bins[keep],
        "count": count[keep],
        "n_effective": n_eff,
        "mean_predicted": prob / total,
        "frequency": frequency,
        "lower": lower,
        "upper": upper,
    }


_FIELDS = (
    "bin",
    "count",
    "n_effective",
    "mean_predicted",
    "frequency",
    "lower",
    "upper",
)


def _reliability_bins(curves: _Curves, n_bins, strategy, confidence_level):
    """The Bunch of :func:`reliability_curve` from validated curves."""
    w = curves.sample_weight
    parts = [
        _curve_bins(outcome, p, w, n_bins, strategy, confidence_level)
        for outcome, p in curves.each()
    ]
    out = Bunch(
        curve=np.concatenate(
            [np.full(part["bin"].shape[0], k, np.intp) for k, part in enumerate(parts)]
        )
    )
    for field in _FIELDS:
        out[field] = np.concatenate([part[field] for part in parts])
    return out


_PARAMS = {
    "y_true": ["array-like"],
    "y_prob": ["array-like"],
    "n_bins": [Interval(Integral, 1, None, closed="left")],
    "strategy": [StrOptions({"uniform", "quantile"})],
    "multi_class": [StrOptions({"top-label", "classwise"})],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "labels": ["array-like", None],
    "sample_weight": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
}


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def reliability_curve(
    y_true,
    y_prob,
    *,
    n_bins=10,
    strategy="uniform",
    multi_class="top-label",
    confidence_level=0.95,
    labels=None,
    sample_weight=None,
    pos_label=None,
):
    """Per-bin observed frequencies of predicted probabilities, with intervals.

    The numbers of a reliability diagram: the probabilities are grouped into
    bins, and each non-empty bin gives its number of samples, the mean
    predicted probability, the observed frequency of the outcome and a
    Clopper-Pearson ("exact") confidence interval of that frequency. A
    calibrated system has frequencies close to the mean predictions; the
    interval says how close is close for the number of samples in the bin,
    and (unlike a bootstrap interval) does not collapse to a point on a bin
    holding one class only.

    With 1-D ``y_prob`` the outcome is the positive class; with 2-D
    ``y_prob`` (``predict_proba``), ``multi_class='top-label'`` bins each
    sample's largest probability (the confidence) against whether that class
    is the true one (the accuracy), and ``'classwise'`` gives one curve per
    class, its column of ``y_prob`` against the indicator of the class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels: binary for 1-D ``y_prob``; for 2-D ``y_prob``, column
        indices ``0..n_classes-1`` or labels listed in ``labels``.
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probabilities of the positive class (1-D), or posterior probabilities
        with rows summing to 1 (2-D), in [0, 1].
    n_bins : int >= 1, default=10
        Number of bins (of each curve).
    strategy : {'uniform', 'quantile'}, default='uniform'
        ``'uniform'``: bins of equal width on [0, 1]; ``'quantile'``: edges at
        the quantiles of the binned probabilities (with ``sample_weight``,
        the weighted inverted-CDF quantiles), so that bins hold about equally
        many samples (tied probabilities may leave bins empty). The bins of
        :func:`expected_calibration_error` and of
        :func:`sklearn.calibration.calibration_curve`.
    multi_class : {'top-label', 'classwise'}, default='top-label'
        The curves of 2-D ``y_prob``; ignored for 1-D ``y_prob``.
    confidence_level : float in (0, 1), default=0.95
        Confidence level of the two-sided intervals.
    labels : array-like of shape (n_classes,), default=None
        The class labels in the order of the columns of 2-D ``y_prob`` (e.g.
        a classifier's ``classes_``). If None, ``y_true`` must hold column
        indices. Not for 1-D ``y_prob``.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights. Frequencies and mean probabilities are weighted; the
        interval of a bin is that of its effective number of samples (see
        Notes).
    pos_label : int, float, bool or str, default=None
        The positive label of 1-D ``y_prob``. May be omitted for labels in
        {0, 1}, {-1, 1} or booleans. Not for 2-D ``y_prob``.

    Returns
    -------
    curve : sklearn.utils.Bunch
        One entry per non-empty bin of every curve, each an ndarray of shape
        (n_rows,), the bins of a curve in increasing order:

        - ``curve``: the curve of the bin: 0, or the class (column index) for
          ``multi_class='classwise'``;
        - ``bin``: the index of the bin, ``0..n_bins-1``;
        - ``count``: the number of samples (of non-zero weight) in the bin;
        - ``n_effective``: the effective number of samples, ``count``
          without weights;
        - ``mean_predicted``: the (weighted) mean predicted probability;
        - ``frequency``: the (weighted) observed frequency of the outcome;
        - ``lower``, ``upper``: the Clopper-Pearson interval of the
          frequency.

        ``pandas.DataFrame(curve)`` gives a table.

    See Also
    --------
    ReliabilityDisplay : The reliability diagram of these numbers.
    expected_calibration_error : The weighted mean gap of the same bins.
    sklearn.calibration.calibration_curve : The frequencies and means alone.

    Notes
    -----
    In a bin of :math:`n` samples of which :math:`k` have the outcome, the
    interval at level :math:`1 - \\alpha` is

    .. math::

        \\Big[B^{-1}\\big(\\tfrac{\\alpha}{2}; k, n - k + 1\\big),\\;
        B^{-1}\\big(1 - \\tfrac{\\alpha}{2}; k + 1, n - k\\big)\\Big],

    :math:`B^{-1}(\\cdot; a, b)` the quantile function of the Beta
    distribution, with the lower end 0 at :math:`k = 0` and the upper end 1
    at :math:`k = n` (Clopper and Pearson, 1934). It covers the bin's true
    frequency with probability at least :math:`1 - \\alpha` when the outcomes
    are independent; it is conservative (the coverage is above the level,
    most at small :math:`n`).

    With sample weights :math:`w_i`, :math:`n` is Kish's effective number of
    samples :math:`(\\sum w_i)^2 / \\sum w_i^2` and :math:`k` the weighted
    frequency times :math:`n` (the interval of Korn and Graubard for
    weighted data, without a design-effect correction): it does not change
    when every weight is multiplied by a constant, and it is the unweighted
    interval for equal weights. Integer weights that stand for repeated
    samples are thus not counts: repeat the samples (``np.repeat``) for the
    interval of the repeated data.

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26, 1934.
    .. [2] E. L. Korn and B. I. Graubard, "Confidence intervals for
       proportions with small expected number of positive counts estimated
       from survey data", Survey Methodology 24, 1998.
    .. [3] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", Proc. ICML, 2017 (reliability diagrams).

    Examples
    --------
    >>> from skcalib.metrics import reliability_curve
    >>> y = [0, 0, 1, 0, 1, 1, 1, 1]
    >>> p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> curve = reliability_curve(y, p, n_bins=2)
    >>> curve.count.tolist(), curve.frequency.tolist()
    ([4, 4], [0.25, 1.0])
    >>> [round(float(v), 4) for v in curve.lower]
    [0.0063, 0.3976]
    >>> [round(float(v), 4) for v in curve.upper]  # 1 for a bin of positives
    [0.8059, 1.0]
    """
    curves = _checked_curves(
        y_true, y_prob, multi_class, labels, sample_weight, pos_label
    )
    return _reliability_bins(curves, n_bins, strategy, confidence_level)
