"""Proper scoring rules for multiclass posteriors: Cllr and Brier.

Both are prior-weighted: each class's mean loss is weighted by its prior in
``p_classes`` (default: the class proportions of the data), and normalized by
the loss of the uninformative system that outputs ``p_classes`` for every
sample. The normalized empirical Bayes risk with a cost matrix is
:func:`~skcalib.metrics.empirical_bayes_risk`; all three share its class
weighting (``_prior_weighted``).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_consistent_length

from ..utils._docstrings import fill_doc
from ..utils._sklearn_compat import validate_params
from ..utils._validation import check_weights, distinct_labels
from ._bayes import _class_indices, _prior_weighted
from ._params import TRIALS_DOCS, classes_constraints

__all__ = ["multiclass_brier_loss", "multiclass_cllr"]

# Rows of ``y_prob`` must sum to 1 within this tolerance (float32 posteriors
# and one-vs-rest normalization stay well inside it).
_SUM_TOL = 1e-6


def _validated(y_true, y_prob, p_classes, labels, sample_weight):
    """``(t, q, v, pi)``: class indices, posteriors, per-sample weights, priors."""
    q = np.asarray(y_prob, dtype=np.float64)
    if q.ndim != 2 or q.shape[1] < 2:
        raise ValueError(
            "`y_prob` must be 2-D of shape (n_samples, n_classes) with "
            f"n_classes >= 2; got shape {q.shape}."
        )
    if not np.isfinite(q).all():
        raise ValueError("`y_prob` must be finite (no NaN or infinity).")
    if (q < 0).any() or (q > 1).any():
        raise ValueError("`y_prob` must hold probabilities in [0, 1].")
    # the shape first: a posterior of missing columns does not sum to 1,
    # and that is not what is wrong with it
    k = q.shape[1]
    if labels is not None:
        n_labels = distinct_labels(np.asarray(labels), "labels").shape[0]
        if n_labels != k:
            raise ValueError(
                f"`y_prob` has {k} columns for the {n_labels} classes of "
                f"`labels`: it must have shape (n_samples, {n_labels}), one "
                "column per class."
            )
        t = _class_indices(y_true, labels, k, "y_true")
    else:
        try:
            t = _class_indices(y_true, None, k, "y_true")
        except ValueError:
            top = _top_index(y_true)
            if top is None or top < k:
                raise
            raise ValueError(
                f"`y_prob` has {k} columns, but `y_true` holds class index "
                f"{top}: `y_prob` must have shape (n_samples, n_classes), one "
                "column per class (or pass `labels`)."
            ) from None
    check_consistent_length(t, q)
    if t.shape[0] == 0:
        raise ValueError("`y_true` is empty; at least one sample is required.")
    sums = q.sum(axis=1)
    if np.abs(sums - 1.0).max() > _SUM_TOL:
        raise ValueError(
            "The rows of `y_prob` must sum to 1 (posterior probabilities); "
            f"got a row summing to {float(sums[np.argmax(np.abs(sums - 1.0))])!r}."
        )
    w = check_weights(sample_weight, t.shape[0])
    v, pi = _prior_weighted(t, w, p_classes, k, "p_classes")
    return t, q, v, pi


def _top_index(y_true):
    """The largest class index in ``y_true`` if it holds only class indices
    (integers >= 0), else None."""
    y = np.asarray(y_true)
    if y.size == 0 or y.dtype.kind not in "iuf":
        return None
    if y.dtype.kind == "f" and not (np.isfinite(y).all() and (y == np.round(y)).all()):
        return None
    if y.min() < 0:
        return None
    return int(y.max())


def _uninformative(value: float, name: str) -> float:
    if value <= 0:
        raise ValueError(
            f"Cannot normalize the {name}: the uninformative system has zero loss "
            "(all of `p_classes` on one class)."
        )
    return value


_PARAMS = classes_constraints(p_classes=["array-like", None], normalize=["boolean"])


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def multiclass_cllr(
    y_true, y_prob, *, p_classes=None, normalize=True, labels=None, sample_weight=None
):
    """Multiclass Cllr: prior-weighted cross-entropy of posteriors, in bits.

    The mean of ``-log2`` of the probability given to the true class, with
    each class's mean weighted by its prior in ``p_classes``, divided by the
    same cost of the uninformative system that outputs ``p_classes`` for
    every sample (the entropy of ``p_classes``): 0 for a perfect system, 1
    for a system no better than the priors, above 1 for a harmful
    (miscalibrated) one. With two classes it equals the binary
    :func:`cllr` at ``p_target``.

    Parameters
    ----------
    {y_classes}
    y_prob : array-like of shape (n_samples, n_classes)
        Posterior probabilities (rows summing to 1), e.g. ``predict_proba``;
        a probability of 0 for the true class gives ``inf``.
    p_classes : array-like of shape (n_classes,), default=None
        Class priors weighting each class's mean cost (non-negative, summing
        to 1). None means the (weighted) class proportions of ``y_true``, for
        which the unnormalized value is the plain log loss in bits.
    normalize : bool, default=True
        Whether to divide by the cost of the uninformative system (the
        entropy of ``p_classes`` in bits).
    {labels}
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; zero-weight samples are ignored.

    Returns
    -------
    cllr : float
        The normalized (or, with ``normalize=False``, the raw) prior-weighted
        cross-entropy in bits.

    See Also
    --------
    cllr : The binary version, on log-likelihood-ratios.
    multiclass_brier_loss : The same weighting with the Brier rule.
    empirical_bayes_risk : The cost of the Bayes decisions under a cost matrix.

    Notes
    -----
    With :math:`N_c` the (weighted) number of samples of class :math:`c`,
    :math:`q_{i,c}` the probability given to class :math:`c` and
    :math:`\\pi` the class priors ``p_classes``,

    .. math::

        C_{xe} = -\\sum_c \\frac{\\pi_c}{N_c} \\sum_{i: c_i = c}
                 \\log_2 q_{i, c},
        \\qquad
        C_{llr} = \\frac{C_{xe}}{-\\sum_c \\pi_c \\log_2 \\pi_c}.

    The denominator is :math:`C_{xe}` of the system that outputs
    :math:`q_i = \\pi` for every sample.

    References
    ----------
    .. [1] N. Brümmer and D. A. van Leeuwen, "On calibration of language
       recognition scores", Proc. IEEE Odyssey: The Speaker and Language
       Recognition Workshop, 2006.
    .. [2] N. Brümmer, "Measuring, refining and calibrating speaker and
       language information extracted from speech", PhD thesis,
       Stellenbosch University, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import multiclass_cllr
    >>> y = [0, 1, 2, 2]
    >>> prior = [0.25, 0.25, 0.5]  # the class proportions of y
    >>> float(multiclass_cllr(y, np.tile(prior, (4, 1))))  # uninformative
    1.0
    >>> p = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.0, 0.3, 0.7]]
    >>> round(multiclass_cllr(y, p), 4)  # 0.4183 bits / 1.5 bits
    0.2788
    >>> float(multiclass_cllr(y, [[0, 1, 0]] * 4))  # certain and wrong
    inf
    """
    t, q, v, pi = _validated(y_true, y_prob, p_classes, labels, sample_weight)
    used = v > 0  # zero-weight samples never give 0 * inf
    with np.errstate(divide="ignore"):
        # 0.0 - x: perfect posteriors give 0.0, not -0.0
        xe = 0.0 - float(np.dot(v[used], np.log2(q[used, t[used]])))
    if not normalize:
        return xe
    positive = pi[pi > 0]
    return xe / _uninformative(-float(np.dot(positive, np.log2(positive))), "Cllr")


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def multiclass_brier_loss(
    y_true, y_prob, *, p_classes=None, normalize=True, labels=None, sample_weight=None
):
    """Prior-weighted multiclass Brier loss of posteriors.

    The squared distance between the posterior vector and the one-hot vector
    of the true class, with each class's mean weighted by its prior in
    ``p_classes``, and by default divided by the same loss of the
    uninformative system that outputs ``p_classes`` for every sample. With two
    classes the normalized value equals the binary :func:`brier_loss` at
    ``p_target``; with ``p_classes=None`` and ``normalize=False`` it is
    scikit-learn's multiclass ``brier_score_loss``.

    Parameters
    ----------
    {y_classes}
    y_prob : array-like of shape (n_samples, n_classes)
        Posterior probabilities (rows summing to 1), e.g. ``predict_proba``.
    p_classes : array-like of shape (n_classes,), default=None
        Class priors weighting each class's mean loss (non-negative, summing
        to 1). None means the (weighted) class proportions of ``y_true``.
    normalize : bool, default=True
        Whether to divide by the loss of the uninformative system,
        ``1 - sum(p_classes ** 2)``.
    labels : array-like of shape (n_classes,), default=None
        The class labels in the order of the columns of ``y_prob``. If None,
        ``y_true`` must hold column indices.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float
        The (normalized) prior-weighted Brier loss; at most 2 unnormalized.

    See Also
    --------
    brier_loss : The binary version, on log-likelihood-ratios.
    multiclass_cllr : The same weighting with the logarithmic rule.

    Notes
    -----
    With :math:`e_c` the one-hot vector of class :math:`c`,

    .. math::

        B = \\sum_c \\frac{\\pi_c}{N_c} \\sum_{i: c_i = c}
            \\lVert q_i - e_c \\rVert^2,
        \\qquad
        B_{norm} = \\frac{B}{1 - \\sum_c \\pi_c^2}.

    References
    ----------
    .. [1] G. W. Brier, "Verification of forecasts expressed in terms of
       probability", Monthly Weather Review 78(1), 1950.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import multiclass_brier_loss
    >>> y = [0, 1, 2, 2]
    >>> p = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.0, 0.3, 0.7]]
    >>> round(multiclass_brier_loss(y, p, normalize=False), 4)
    0.11
    >>> round(multiclass_brier_loss(y, p), 4)  # / (1 - (1/16 + 1/16 + 1/4))
    0.176
    """
    t, q, v, pi = _validated(y_true, y_prob, p_classes, labels, sample_weight)
    # ||q - e_c||^2 = ||q||^2 - 2 q_c + 1
    sq = np.einsum("ij,ij->i", q, q) - 2.0 * q[np.arange(t.shape[0]), t] + 1.0
    loss = float(np.dot(v, sq))
    if not normalize:
        return loss
    return loss / _uninformative(1.0 - float(np.dot(pi, pi)), "Brier loss")
