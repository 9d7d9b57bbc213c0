"""Binned expected calibration errors of probabilities.

Binary (positive-class), top-label and classwise ECE share one binning,
:func:`_binned_calibration_error`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._kernel._sort import quantiles
from ..utils._docstrings import fill_doc
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._validation import check_metric_inputs, check_weights
from ._multiclass import _validated
from ._params import TRIALS_DOCS, classes_constraints, trials_constraints

__all__ = [
    "classwise_calibration_error",
    "expected_calibration_error",
    "top_label_calibration_error",
]


#: The constraints of the binning parameters of every ECE.
_BINNING = {
    "n_bins": [Interval(Integral, 1, None, closed="left")],
    "strategy": [StrOptions({"uniform", "quantile"})],
    "norm": [StrOptions({"l1", "l2", "max"})],
}


@validate_params(
    trials_constraints("y_prob", **_BINNING), prefer_skip_nested_validation=True
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
    top_label_calibration_error, classwise_calibration_error : Multiclass.
    brier_loss, cllr : Proper scoring rules, which (unlike the ECE) cannot be
        gamed by a constant prediction and do not depend on a binning.

    Notes
    -----
    With bins :math:`B_m`, weights :math:`|B_m|`, observed fractions
    :math:`o_m` and mean probabilities :math:`p_m`,

    .. math::

        ECE_{l1} = \\sum_m \\frac{|B_m|}{n} |o_m - p_m|, \\\\
        ECE_{l2} = \\sqrt{\\sum_m \\frac{|B_m|}{n} (o_m - p_m)^2}, \\\\
        ECE_{max} = \\max_m |o_m - p_m|.

    This is the binary (positive-class) ECE, as in scikit-learn's
    reliability diagrams; the multiclass ECEs, on the same bins, are
    :func:`top_label_calibration_error` (Guo et al.) and
    :func:`classwise_calibration_error` (Kumar et al.).

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
    return _binned_calibration_error(is_target, p, w, n_bins, strategy, norm)


def _binned_calibration_error(outcome, p, w, n_bins, strategy, norm):
    """The binned calibration error of probabilities ``p`` of ``outcome``.

    The one binning of the package's ECEs: ``outcome`` is a boolean array
    (the positive class, a correct top-label prediction, class ``k``), ``p``
    the predicted probabilities of it, ``w`` the sample weights or None.
    """
    bin_ids = _bin_ids(p, w, n_bins, strategy)
    if _few_bins(n_bins, p.shape[0]):
        n_ids = n_bins
    else:  # only the at most n_samples non-empty bins are kept
        _, bin_ids = np.unique(bin_ids, return_inverse=True)
        n_ids = int(bin_ids.max()) + 1
    if w is None:
        w = np.ones_like(p)
    total = np.bincount(bin_ids, weights=w, minlength=n_ids)
    pos = np.bincount(bin_ids, weights=np.where(outcome, w, 0.0), minlength=n_ids)
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


#: Up to this many bins, a sample's bin is counted edge by edge (int8 counts).
_FEW_BINS = 16


def _few_bins(n_bins, n_samples):
    """Whether ``n_bins`` edges and per-bin totals may be materialized."""
    return n_bins <= 2 * n_samples + 1024


def _bin_ids(p, w, n_bins, strategy):
    """Bin index in ``0..n_bins-1`` of each probability (the ECE's bins).

    With more bins than samples, neither the edges nor per-bin totals are
    materialized (``n_bins=10**9`` would take gigabytes): each sample's bin
    is found by bisection over the bin index.
    """
    if _few_bins(n_bins, p.shape[0]):
        return _bin_ids_from_edges(p, w, n_bins, strategy)
    return _bin_ids_by_bisection(p, w, n_bins, strategy)


def _bin_ids_from_edges(p, w, n_bins, strategy):
    """Bin of each probability, from the materialized bin edges.

    ``calibration_curve``'s binning: bin m holds edges[m] < p <= edges[m+1]
    for interior edges (values at an interior edge fall in the lower bin).
    """
    q = np.linspace(0.0, 1.0, n_bins + 1)
    if strategy == "uniform":
        edges = q
    else:  # unweighted, calibration_curve's np.quantile, without its sort
        edges = quantiles(p, q, w)
    interior = edges[1:-1]
    if n_bins > _FEW_BINS:
        return np.searchsorted(interior, p)
    # For a few edges, one comparison per edge (a linear pass each) beats the
    # binary search of unsorted values several times over (1e6 values, 10
    # bins: 15 instead of 100 ms); the count of edges below p is the same.
    # Chunk by chunk, so that the comparisons stay in cache.
    ids = np.zeros(p.shape[0], dtype=np.int8)
    above = np.empty(min(p.shape[0], _ID_CHUNK), dtype=bool)
    for start in range(0, p.shape[0], _ID_CHUNK):
        pc, idc = p[start : start + _ID_CHUNK], ids[start : start + _ID_CHUNK]
        flag = above[: pc.shape[0]]
        for edge in interior.tolist():
            np.greater(pc, edge, out=flag)
            np.add(idc, flag, out=idc, casting="unsafe")
    return ids


#: Probabilities per step of the edge comparisons of :func:`_bin_ids_from_edges`.
_ID_CHUNK = 1 << 15


def _bin_ids_by_bisection(p, w, n_bins, strategy):
    """:func:`_bin_ids_from_edges` in O(n_samples) memory for any ``n_bins``.

    The bin of ``p`` is the number of interior edges ``edge(m)``,
    ``m = 1..n_bins-1``, below ``p``; edges increase with ``m``, so a
    vectorized bisection over ``m`` finds it with ``log2(n_bins)`` evaluations
    of the edges at one index per sample. ``edge(m)`` is computed exactly as
    ``np.linspace(0, 1, n_bins + 1)[m]`` (``m * (1 / n_bins)``) and the
    quantile of that level by the same :func:`quantiles`, so the bins equal
    those of the materialized edges.
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

        def edge(m):
            return quantiles(p, m * step, w)

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


_MULTICLASS_PARAMS = classes_constraints(**_BINNING)


@validate_params(_MULTICLASS_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def top_label_calibration_error(
    y_true,
    y_prob,
    *,
    n_bins=15,
    strategy="uniform",
    norm="l1",
    labels=None,
    sample_weight=None,
):
    """Top-label expected calibration error of multiclass probabilities.

    The ECE of Guo et al. (2017): each sample's *confidence*, the largest of
    its class probabilities, is binned, and in each non-empty bin the mean
    confidence is compared with the accuracy, the fraction of samples whose
    most probable class (the first one on a tie, as ``np.argmax``) is the
    true class. The gaps are combined as in
    :func:`expected_calibration_error`, with the same bins.

    Parameters
    ----------
    {y_classes}
    y_prob : array-like of shape (n_samples, n_classes)
        Posterior probabilities (rows summing to 1), e.g. ``predict_proba``;
        two columns are allowed (then the confidence is ``max(p, 1 - p)``).
    n_bins : int >= 1, default=15
        Number of bins.
    strategy : {'uniform', 'quantile'}, default='uniform'
        ``'uniform'``: bins of equal width on [0, 1]; ``'quantile'``: edges at
        the (weighted) quantiles of the confidences.
    norm : {'l1', 'l2', 'max'}, default='l1'
        How the per-bin gaps are combined: weighted mean (the ECE), weighted
        root mean square, or maximum (the maximum calibration error).
    {labels}
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (bin weights, accuracies and mean confidences are
        weighted).

    Returns
    -------
    ece : float
        The top-label calibration error, in [0, 1].

    See Also
    --------
    classwise_calibration_error : The calibration of every class's
        probability, not only of the most probable one.
    expected_calibration_error : The binary (positive-class) ECE.
    multiclass_cllr, multiclass_brier_loss : Proper scoring rules.

    Notes
    -----
    With :math:`\\hat y_i = \\arg\\max_k q_{ik}` and the confidence
    :math:`c_i = \\max_k q_{ik}` falling in bins :math:`B_m`,

    .. math::

        ECE_{l1} = \\sum_m \\frac{|B_m|}{n} \\left| \\frac{1}{|B_m|}
        \\sum_{i \\in B_m} [\\hat y_i = y_i] - \\frac{1}{|B_m|}
        \\sum_{i \\in B_m} c_i \\right|.

    It is the binary :func:`expected_calibration_error` of the confidences
    against the correctness of the top-label predictions. It says nothing of
    the other classes' probabilities, and like every binned ECE it can be
    zero for a useless classifier (one that predicts the class proportions).

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", Proc. ICML, 2017.
    .. [2] M. P. Naeini, G. F. Cooper and M. Hauskrecht, "Obtaining well
       calibrated probabilities using Bayesian binning", Proc. AAAI, 2015.

    Examples
    --------
    >>> from skcalib.metrics import top_label_calibration_error
    >>> y = [0, 1, 2, 2]
    >>> p = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.5, 0.1, 0.4]]
    >>> # confidences 0.8, 0.7, 0.6 (right) and 0.5 (wrong), in 2 bins
    >>> round(top_label_calibration_error(y, p, n_bins=2), 4)
    0.35
    >>> top_label_calibration_error(["a", "b"], [[0.5, 0.5], [0.5, 0.5]],
    ...                             labels=["a", "b"])  # ties: the first class
    0.0
    """
    t, q, w = _checked_class_probabilities(y_true, y_prob, labels, sample_weight)
    top = np.argmax(q, axis=1)
    confidence = q[np.arange(q.shape[0]), top]
    return _binned_calibration_error(top == t, confidence, w, n_bins, strategy, norm)


@validate_params(_MULTICLASS_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def classwise_calibration_error(
    y_true,
    y_prob,
    *,
    n_bins=15,
    strategy="uniform",
    norm="l1",
    labels=None,
    sample_weight=None,
):
    """Classwise expected calibration error of multiclass probabilities.

    The marginal calibration error of Kumar, Liang and Ma (2019) (the static
    calibration error of Nixon et al., 2019): for each class ``k``, the
    binary :func:`expected_calibration_error` of the probabilities of class
    ``k`` (column ``k`` of ``y_prob``) against the indicator of class ``k``,
    with its own bins, and the mean over the classes.

    Parameters
    ----------
    {y_classes}
    y_prob : array-like of shape (n_samples, n_classes)
        Posterior probabilities (rows summing to 1), e.g. ``predict_proba``.
    n_bins : int >= 1, default=15
        Number of bins of each class.
    strategy : {'uniform', 'quantile'}, default='uniform'
        ``'uniform'``: bins of equal width on [0, 1]; ``'quantile'``: edges at
        the (weighted) quantiles of each class's probabilities.
    norm : {'l1', 'l2', 'max'}, default='l1'
        ``'l1'``: the mean over classes of their ECEs; ``'l2'``: the root of
        the mean over classes of their squared ``'l2'`` errors (Kumar et
        al.'s :math:`\\ell_2` marginal calibration error); ``'max'``: the
        largest gap of any bin of any class.
    {labels}
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (bin weights, class frequencies and mean probabilities
        are weighted).

    Returns
    -------
    ece : float
        The classwise calibration error, in [0, 1].

    See Also
    --------
    top_label_calibration_error : Only the most probable class.
    expected_calibration_error : The binary ECE, one class.

    Notes
    -----
    With :math:`ECE_k` the binned calibration error of the column
    :math:`q_{\\cdot k}` against :math:`[y_i = k]`,

    .. math::

        \\text{cw-ECE}_{l1} = \\frac{1}{K} \\sum_{k=1}^{K} ECE_{l1, k},
        \\qquad
        \\text{cw-ECE}_{l2} = \\Big(\\frac{1}{K} \\sum_{k=1}^{K}
        ECE_{l2, k}^2\\Big)^{1/2}.

    A class absent from ``y_true`` still counts: its probabilities should
    then be near 0. With two classes both columns give the same
    calibration error, the binary ECE of either one.

    References
    ----------
    .. [1] A. Kumar, P. Liang and T. Ma, "Verified uncertainty calibration",
       Proc. NeurIPS, 2019.
    .. [2] J. Nixon, M. W. Dusenberry, L. Zhang, G. Jerfel and D. Tran,
       "Measuring calibration in deep learning", CVPR Workshops, 2019.

    Examples
    --------
    >>> from skcalib.metrics import classwise_calibration_error
    >>> y = [0, 1, 2, 2]
    >>> p = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.5, 0.1, 0.4]]
    >>> # class 0: 0.25, class 1: 0.2, class 2: 0.2
    >>> round(classwise_calibration_error(y, p, n_bins=2), 4)
    0.2167
    >>> round(classwise_calibration_error(y, p, n_bins=2, norm="max"), 4)
    0.4
    """
    t, q, w = _checked_class_probabilities(y_true, y_prob, labels, sample_weight)
    errors = np.array(
        [
            _binned_calibration_error(t == k, q[:, k], w, n_bins, strategy, norm)
            for k in range(q.shape[1])
        ]
    )
    if norm == "l1":
        return float(errors.mean())
    if norm == "l2":
        return float(np.sqrt(np.mean(errors**2)))
    return float(errors.max())


def _checked_class_probabilities(y_true, y_prob, labels, sample_weight):
    """``(t, q, w)``: class indices, posteriors and weights (None if absent)."""
    t, q, _, _ = _validated(y_true, y_prob, None, labels, sample_weight)
    return t, q, check_weights(sample_weight, t.shape[0])
