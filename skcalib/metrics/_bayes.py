"""Multiclass Bayes decisions and their empirical Bayes risk (after Cumani)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_consistent_length

from ..utils._sklearn_compat import validate_params
from ..utils._validation import (
    check_weights,
    column_or_1d,
    distinct_labels,
    plain_value,
)
from ._params import classes_constraints

__all__ = ["bayes_decisions", "empirical_bayes_risk"]


def _check_cost_matrix(cost_matrix, n_classes=None) -> np.ndarray:
    c = np.asarray(cost_matrix, dtype=np.float64)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] < 2:
        raise ValueError(
            "`cost_matrix` must be a square matrix of shape (n_classes, n_classes) "
            f"with n_classes >= 2; got shape {c.shape}."
        )
    if not np.isfinite(c).all():
        raise ValueError("`cost_matrix` must be finite (no NaN or infinity).")
    if n_classes is not None and c.shape[0] != n_classes:
        raise ValueError(
            f"`cost_matrix` has shape {c.shape} but there are {n_classes} "
            "classes (columns of `posteriors` / entries of `priors`)."
        )
    return c


@validate_params(
    {
        "posteriors": ["array-like"],
        "cost_matrix": ["array-like"],
        "return_costs": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def bayes_decisions(posteriors, cost_matrix, *, return_costs=False):
    """Bayes decisions: the action with the lowest expected cost.

    Parameters
    ----------
    posteriors : array-like of shape (n_samples, n_classes) or (n_classes,)
        Class posterior probabilities of each sample (non-negative; rows are
        normally normalized, and scaling a row does not change its decision).
    cost_matrix : array-like of shape (n_classes, n_classes)
        ``cost_matrix[a, c]`` is the cost of deciding class ``a`` when the
        true class is ``c``.
    return_costs : bool, default=False
        Whether to also return the expected cost of every action.

    Returns
    -------
    decisions : ndarray of shape (n_samples,) of int, or int
        Index of the chosen class (0-based) for each sample; an int for 1-D
        ``posteriors``. Ties go to the lowest index.
    costs : ndarray of shape (n_samples, n_classes) or (n_classes,)
        Expected cost ``sum_c cost_matrix[a, c] * posteriors[c]`` of each
        action ``a``; only if ``return_costs=True``.

    See Also
    --------
    empirical_bayes_risk : The cost of decisions on labelled data.

    References
    ----------
    .. [1] S. Cumani, "Bayes decisions and model evaluation" (lecture notes).

    Examples
    --------
    Cumani's worked example: the second class (index 1) is chosen.

    >>> from skcalib.metrics import bayes_decisions
    >>> cost = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    >>> d, c = bayes_decisions([0.40, 0.25, 0.35], cost, return_costs=True)
    >>> int(d), [round(float(v), 2) for v in c]
    (1, [0.95, 0.75, 1.05])
    """
    p = np.asarray(posteriors, dtype=np.float64)
    if p.ndim not in (1, 2):
        raise ValueError(f"`posteriors` must be 1-D or 2-D; got {p.ndim} dimensions.")
    one = p.ndim == 1
    p2 = p[None, :] if one else p
    if not np.isfinite(p2).all():
        raise ValueError("`posteriors` must be finite (no NaN or infinity).")
    if (p2 < 0).any():
        raise ValueError(
            "`posteriors` must be non-negative probabilities (not log-probabilities)."
        )
    c = _check_cost_matrix(cost_matrix, p2.shape[1])
    costs = p2 @ c.T
    decisions = np.argmin(costs, axis=1)
    if one:
        decisions, costs = int(decisions[0]), costs[0]
    return (decisions, costs) if return_costs else decisions


def _check_class_priors(priors, name: str, n_classes=None) -> np.ndarray:
    """Validate class priors: 1-D, non-negative, finite, summing to 1."""
    pi = np.asarray(priors, dtype=np.float64)
    if pi.ndim != 1 or pi.shape[0] < 2:
        raise ValueError(
            f"`{name}` must be 1-D with at least 2 entries; got shape {pi.shape}."
        )
    if not np.isfinite(pi).all() or (pi < 0).any():
        raise ValueError(f"`{name}` must be non-negative and finite.")
    if not np.isclose(pi.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"`{name}` must sum to 1; got {float(pi.sum())!r}.")
    if n_classes is not None and pi.shape[0] != n_classes:
        raise ValueError(
            f"`{name}` has {pi.shape[0]} entries but there are {n_classes} classes."
        )
    return pi


def _prior_weighted(t, w, priors, n_classes, name):
    """Per-sample weights of a prior-weighted average over classes, and the priors.

    Sample ``i`` of class ``c`` weighs ``w_i * priors[c] / N_c`` (``N_c`` the
    weighted count of class ``c``), so that a sum over samples is
    ``sum_c priors[c] * (weighted mean over class c)``. ``priors=None`` means
    the weighted class proportions of the data (the weights are then
    ``w_i / sum(w)``). A class with prior 0 may be absent.
    """
    w = np.ones(t.shape[0]) if w is None else w
    counts = np.bincount(t, weights=w, minlength=n_classes)
    if priors is None:
        pi = counts / counts.sum()
    else:
        pi = _check_class_priors(priors, name, n_classes)
    missing = (counts == 0) & (pi > 0)
    if missing.any():
        raise ValueError(
            f"`y_true` has no samples (with non-zero weight) of class "
            f"{int(np.flatnonzero(missing)[0])}, whose prior in `{name}` is positive."
        )
    per_class = np.divide(pi, counts, out=np.zeros(n_classes), where=counts > 0)
    return w * per_class[t], pi


def _class_indices(y, labels, n_classes, name):
    y = column_or_1d(y, warn=False)
    if labels is None:
        if y.dtype.kind not in "iub" and not (
            y.dtype.kind == "f" and np.isfinite(y).all() and (y == np.round(y)).all()
        ):
            raise ValueError(
                f"`{name}` must hold class indices 0..{n_classes - 1} when `labels` "
                f"is None; got dtype {y.dtype}. Pass `labels` to map other labels."
            )
        idx = y.astype(np.intp)
        if idx.shape[0] and (idx.min() < 0 or idx.max() >= n_classes):
            raise ValueError(
                f"`{name}` must hold class indices in 0..{n_classes - 1}; got "
                f"values in {idx.min()}..{idx.max()}."
            )
        return idx
    labels = np.asarray(labels)
    try:
        order = np.argsort(labels, kind="stable")
    except TypeError as exc:
        raise ValueError(
            f"`labels` mixes label types that cannot be compared: {exc}"
        ) from exc
    sorted_labels = labels[order]
    try:
        pos = np.clip(np.searchsorted(sorted_labels, y), 0, n_classes - 1)
    except TypeError as exc:
        raise ValueError(
            f"`{name}` holds labels that cannot be compared with `labels`: {exc}"
        ) from exc
    found = sorted_labels[pos] == y
    if not np.all(found):
        bad = y[~found][0]
        raise ValueError(
            f"`{name}` contains {plain_value(bad)!r}, which is not in `labels`."
        )
    return order[pos]


@validate_params(
    classes_constraints(
        "y_pred",
        cost_matrix=["array-like"],
        priors=["array-like", None],
        normalize=["boolean"],
    ),
    prefer_skip_nested_validation=True,
)
def empirical_bayes_risk(
    y_true,
    y_pred,
    cost_matrix,
    priors=None,
    *,
    normalize=False,
    labels=None,
    sample_weight=None,
):
    """Empirical Bayes risk of (multiclass) decisions on labelled data.

    The prior-weighted average cost of the decisions ``y_pred``: the class
    conditional average costs are weighted by the application's ``priors``
    rather than by the class proportions of the data. ``y_pred`` may also be
    posterior probabilities, from which the Bayes decisions under
    ``cost_matrix`` are taken (:func:`bayes_decisions`); this is how a scorer
    evaluates a classifier's ``predict_proba``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True classes.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Decided classes (e.g. from :func:`bayes_decisions`), or posterior
        probabilities (columns in the order of ``labels``), in which case the
        decisions are their Bayes decisions under ``cost_matrix``. The
        posteriors should be those of the application's ``priors``.
    cost_matrix : array-like of shape (n_classes, n_classes)
        ``cost_matrix[a, c]`` is the cost of deciding ``a`` when the true
        class is ``c``.
    priors : array-like of shape (n_classes,), default=None
        Class priors of the application (non-negative, summing to 1). None
        means the (weighted) class proportions of ``y_true``, so that the
        risk is the plain average cost.
    normalize : bool, default=False
        Whether to divide by the risk of the best dummy system, the one that
        always decides the same class, :math:`\\min_a \\sum_c \\pi_c C(a
        \\mid c)`; 1.0 then means "no better than the priors alone".
    labels : array-like of shape (n_classes,), default=None
        The class labels in the order of the rows/columns of ``cost_matrix``.
        If None, ``y_true`` and ``y_pred`` must be class indices
        ``0..n_classes-1`` (as for a classifier's ``predict_proba`` columns
        when its ``classes_`` are ``0..n_classes-1``).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    risk : float
        The (normalized) empirical Bayes risk.

    See Also
    --------
    bayes_decisions : Bayes decisions from posteriors.
    actual_dcf : The binary case, from LLRs.

    Notes
    -----
    With :math:`N_c` the (weighted) number of samples of class :math:`c`,

    .. math::

        \\mathcal{B} = \\sum_c \\frac{\\pi_c}{N_c}
                       \\sum_{i: c_i = c} C(a_i \\mid c),
        \\qquad \\mathcal{B}_{norm} = \\frac{\\mathcal{B}}
                       {\\min_a \\sum_c \\pi_c C(a \\mid c)}.

    A class with prior 0 may be absent from the data.

    References
    ----------
    .. [1] S. Cumani, "Bayes decisions and model evaluation" (lecture notes).

    Examples
    --------
    Cumani's worked example, from its confusion matrix (rows = decided
    class, columns = true class):

    >>> import numpy as np
    >>> from skcalib.metrics import empirical_bayes_risk
    >>> M = np.array([[205, 111, 56], [145, 199, 121], [50, 92, 225]])
    >>> a, c = np.indices(M.shape)
    >>> y_pred = np.repeat(a.ravel(), M.ravel())
    >>> y_true = np.repeat(c.ravel(), M.ravel())
    >>> cost = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    >>> round(empirical_bayes_risk(y_true, y_pred, cost, [0.3, 0.4, 0.3]), 5)
    0.55962

    From posteriors (Bayes decisions 0, 2, 1, 0; the last one is wrong),
    normalized by the best dummy system (which decides the middle class here,
    at risk 0.6):

    >>> post = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]
    >>> prior = [0.3, 0.4, 0.3]
    >>> round(empirical_bayes_risk([0, 2, 1, 1], post, cost, prior), 4)
    0.2
    >>> round(empirical_bayes_risk([0, 2, 1, 1], post, cost, prior, normalize=True), 4)
    0.3333
    """
    posteriors = np.ndim(y_pred) == 2
    if posteriors:
        k = np.shape(y_pred)[1]
    elif priors is not None:
        k = np.shape(priors)[0]
    else:
        k = np.shape(cost_matrix)[0]
    cost = _check_cost_matrix(cost_matrix, k)
    if (
        labels is not None
        and distinct_labels(np.asarray(labels), "labels").shape[0] != k
    ):
        raise ValueError(
            f"`labels` must hold {k} distinct labels, one per class of `cost_matrix`."
        )
    t = _class_indices(y_true, labels, k, "y_true")
    if posteriors:
        a = bayes_decisions(y_pred, cost)
    else:
        a = _class_indices(y_pred, labels, k, "y_pred")
    check_consistent_length(t, a)
    if t.shape[0] == 0:
        raise ValueError("`y_true` is empty; at least one sample is required.")
    w = check_weights(sample_weight, t.shape[0])
    v, pi = _prior_weighted(t, w, priors, k, "priors")
    risk = float(np.dot(v, cost[a, t]))
    if normalize:
        dummy = float(np.min(cost @ pi))
        if dummy <= 0:
            raise ValueError(
                "Cannot normalize: the best dummy system has zero risk under "
                "`cost_matrix` and `priors`."
            )
        risk /= dummy
    return risk
