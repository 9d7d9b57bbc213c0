"""Scores of a fitted estimator: binary (higher favouring the target) or per class.

The one road from an estimator to a score vector, shared by the displays'
``from_estimator``, the scorers, :class:`~skcalib.ScoreTransformer` and
:class:`~skcalib.CalibratedClassifier`: which response method to call, one
column per sample, and the sign flip (or other probability column) when the
target is ``classes_[0]``. Design note: docs/design/shared_helpers.rst.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from ._sklearn_compat import _safe_indexing
from ._validation import plain_value

__all__ = [
    "batch_invariant_call",
    "binary_response",
    "class_response",
    "decision_function_is_llr",
    "estimator_scores",
    "one_vs_rest_log_odds",
    "pos_label_is_first",
    "resolve_response_method",
]

RESPONSE_METHODS = ("decision_function", "predict_proba")

#: Probabilities are floored at the smallest normal double before taking logs,
#: so log-odds computed from ``predict_proba`` stay finite:
#: ``|score| <= log(1 / tiny) ~= 708.4``. Only probabilities that are exactly
#: 0 (or below 2.2e-308) are affected; anything representable keeps its value.
PROBA_FLOOR = float(np.finfo(np.float64).tiny)

#: Rows per tile of :func:`batch_invariant_call`: a multiple of every BLAS
#: kernel's row unrolling (4, 8 or 16 doubles on current processors).
ROW_TILE = 64


def batch_invariant_call(func, X):
    """``func(X)`` with each row's result independent of the other rows.

    A BLAS matrix product (a linear classifier's ``decision_function``)
    computes the last ``n % unroll`` rows of an ``n``-row matrix with another
    kernel than the others on some processors (OpenBLAS' Prescott and
    Nehalem kernels, for example), so one sample's score moves by a few ulps
    with the number of rows scored along with it. A calibrator fitted on the
    scores of one batch and applied to another then sees a training score
    just beyond its own knot: next to a PAV block of probability 0 it gives
    1e-17 instead of 0 (an infinite log-probability becomes -38), and fitting
    with integer weights stops matching fitting on repeated rows.

    Here every row is computed inside a whole tile of :data:`ROW_TILE` rows:
    ``func`` runs once on the largest multiple of ``ROW_TILE`` rows and, if
    rows remain, once more on them padded to a tile by repeating the last
    row (at most ``ROW_TILE - 1`` extra rows). Inputs other than NumPy
    arrays, pandas objects and CSR/CSC matrices (the sparse formats that take
    row indices) are passed as they are.
    """
    tiled = (
        isinstance(X, np.ndarray)
        or hasattr(X, "iloc")
        or (sp.issparse(X) and X.format in ("csr", "csc"))
    )
    if not tiled or X.ndim != 2 or X.shape[0] % ROW_TILE == 0:
        return func(X)
    n = X.shape[0]
    head = n - n % ROW_TILE
    tail = np.concatenate([np.arange(head, n), np.full(head + ROW_TILE - n, n - 1)])
    parts = [np.asarray(func(_safe_indexing(X, tail)))[: n - head]]
    if head:
        parts.insert(0, np.asarray(func(_safe_indexing(X, np.arange(head)))))
    return np.concatenate(parts)


def resolve_response_method(estimator, response_method: str) -> str:
    """The scoring method to call on a fitted ``estimator``.

    ``'auto'`` is the first of ``decision_function`` and ``predict_proba``
    that the estimator has.
    """
    name = type(estimator).__name__
    if response_method == "auto":
        for method in RESPONSE_METHODS:
            if hasattr(estimator, method):
                return method
        raise ValueError(
            f"{name} has neither `decision_function` nor `predict_proba`; a "
            "fitted binary classifier or calibrator is needed."
        )
    if response_method not in RESPONSE_METHODS:
        raise ValueError(
            "`response_method` must be 'auto', 'decision_function' or "
            f"'predict_proba'; got {response_method!r}."
        )
    if not hasattr(estimator, response_method):
        raise ValueError(
            f"`response_method`={response_method!r} is not available on {name}."
        )
    return response_method


def pos_label_is_first(classes, pos_label) -> bool:
    """Whether the target ``pos_label`` is ``classes[0]`` (scores then flip).

    ``pos_label=None`` or unknown ``classes`` mean ``classes[1]``.
    """
    if pos_label is None or classes is None or len(classes) != 2:
        return False
    if pos_label not in list(classes):
        raise ValueError(
            f"`pos_label`={plain_value(pos_label)!r} is not a valid label: it "
            f"must be one of {plain_value(list(classes))}."
        )
    return bool(pos_label == classes[0])


def decision_function_is_llr(estimator) -> bool:
    """Whether ``estimator.decision_function`` returns natural-log LLRs.

    True of skcalib's calibrators and of ``CalibratedClassifier``, which say
    so with the class attribute ``_decision_function_is_llr``, also as the
    last step of a ``Pipeline``; False of anything else (a classifier's
    decision function is a score on its own scale).
    """
    while hasattr(estimator, "steps"):  # a Pipeline: its last step decides
        estimator = estimator.steps[-1][1]
    return getattr(estimator, "_decision_function_is_llr", False) is True


def binary_response(estimator, X, method: str, *, flip=False, proba="column"):
    """One float64 score per sample from ``estimator.<method>(X)``.

    Parameters
    ----------
    estimator : fitted binary estimator
    X : array-like
        Input of the estimator.
    method : {'decision_function', 'predict_proba'}
        A resolved response method (:func:`resolve_response_method`).
    flip : bool, default=False
        Whether the target is ``classes_[0]``: the decision function is
        negated and the other probability column is used.
    proba : {'column', 'log_odds'}, default='column'
        With ``predict_proba``: the target's probability, or the log-odds
        ``log p_target - log p_other`` (both columns, which is more accurate
        near 0 and 1 than ``logit(p)``), each probability floored at
        :data:`PROBA_FLOOR`.

    Returns
    -------
    scores : ndarray of shape (n_samples,)
        Higher favours the target class.
    """
    name = type(estimator).__name__
    out = np.asarray(
        batch_invariant_call(getattr(estimator, method), X), dtype=np.float64
    )
    if method == "predict_proba":
        if out.ndim != 2 or out.shape[1] != 2:
            raise ValueError(
                f"{name}.predict_proba returned shape {out.shape}; expected "
                "(n_samples, 2) for a binary problem. Was it fitted on a single "
                "class (a cross-validation fold without one of the classes)?"
            )
        target, other = (0, 1) if flip else (1, 0)
        if proba == "column":
            return out[:, target]
        return np.log(np.maximum(out[:, target], PROBA_FLOOR)) - np.log(
            np.maximum(out[:, other], PROBA_FLOOR)
        )
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1:
        raise ValueError(
            f"{name}.{method} returned shape {out.shape}; a binary estimator "
            "must return one score per sample."
        )
    return -out if flip else out


def class_response(estimator, X, method: str, n_classes: int) -> np.ndarray:
    """Scores of a fitted multiclass classifier, float64 (n_samples, n_classes).

    The ``decision_function`` columns, or the log-probabilities ``log p_k`` of
    ``predict_proba`` (each probability floored at :data:`PROBA_FLOOR`): the
    natural multiclass score, whose softmax gives back the probabilities.
    Column ``k`` scores ``estimator.classes_[k]``.
    """
    out = np.asarray(
        batch_invariant_call(getattr(estimator, method), X), dtype=np.float64
    )
    if out.ndim != 2 or out.shape[1] != n_classes:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {out.shape}; "
            f"expected (n_samples, {n_classes}), one column per class of `y`. Was "
            "it fitted on a cross-validation fold without one of the classes?"
        )
    if method == "decision_function":
        return out
    return np.log(np.maximum(out, PROBA_FLOOR))


def one_vs_rest_log_odds(log_proba: np.ndarray) -> np.ndarray:
    """Columns ``log p_k - log(sum_{j != k} p_j)`` of log-probability columns.

    The log-odds of each class against the rest: the score a one-vs-rest
    binary calibrator gets from a classifier that only has ``predict_proba``
    (with two classes it is the binary log-odds score). The rest is summed
    from the other columns, not as ``log1p(-p_k)``, to stay accurate when
    ``p_k`` is close to 1.
    """
    out = np.empty_like(log_proba)
    for k in range(log_proba.shape[1]):  # K passes: no (n, K, K) temporary
        rest = logsumexp(np.delete(log_proba, k, axis=1), axis=1)
        out[:, k] = log_proba[:, k] - rest
    return out


def estimator_scores(
    estimator, X, *, response_method="auto", pos_label=None, proba="column"
):
    """Scores of a fitted binary ``estimator`` on ``X``, higher favouring the target.

    The target is ``pos_label`` if given, else ``classes_[1]``; a
    ``pos_label`` equal to ``classes_[0]`` flips the decision function's sign
    (or picks the other probability column). ``response_method`` and
    ``proba`` are as in :func:`resolve_response_method` and
    :func:`binary_response`.
    """
    method = resolve_response_method(estimator, response_method)
    flip = pos_label_is_first(getattr(estimator, "classes_", None), pos_label)
    return binary_response(estimator, X, method, flip=flip, proba=proba)
