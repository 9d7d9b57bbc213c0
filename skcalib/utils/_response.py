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

from ._sklearn_compat import _safe_indexing
from ._stats import significantly_positive
from ._validation import plain_value

__all__ = [
    "batch_invariant_call",
    "binary_response",
    "choose_proba_input",
    "class_response",
    "decision_function_is_llr",
    "estimator_scores",
    "fitting_scores",
    "one_vs_rest_log_odds",
    "pos_label_is_first",
    "proba_floor",
    "proba_inputs",
    "resolve_response_method",
    "response_scores",
]

RESPONSE_METHODS = ("decision_function", "predict_proba")

#: Probabilities are floored at the smallest normal double before taking logs,
#: so log-odds computed from ``predict_proba`` stay finite:
#: ``|score| <= log(1 / tiny) ~= 708.4``. Only probabilities that are exactly
#: 0 (or below 2.2e-308) are affected; anything representable keeps its value.
PROBA_FLOOR = float(np.finfo(np.float64).tiny)

#: The least floor of :func:`proba_floor`: log-probabilities stay above
#: ``log(1e-12) ~= -27.6`` (scikit-learn's temperature scaling adds the same
#: 1e-12 before its logarithm), so that a classifier whose probabilities
#: underflow (naive Bayes) cannot give a calibrator scores of -700.
MIN_PROBA_FLOOR = 1e-12

#: Probabilities a calibrator is fitted on as probabilities are tied within
#: the multiples of this (:func:`fitting_scores`), as in scikit-learn's
#: isotonic regression (``np.finfo(float).resolution``).
PROBA_RESOLUTION = 1e-15

#: Standard errors by which the log-odds must fit the calibration data
#: better than the probability (scikit-learn's input) for a calibrator that
#: may take either (:func:`choose_proba_input`). On the arena panel's tuning
#: half, a lead of one nat in total (or of one standard error) left Platt's
#: sigmoid 1.029 times scikit-learn's on ``modeldata_attrition`` x naive
#: Bayes (a few calibration samples fitted much better); with two, every
#: cell is within 1.002 times it, binary and multiclass, at a geometric mean
#: of 0.995 and 0.981 of it (0.994 and 0.979 with the nat).
PROBA_INPUT_Z = 2.0

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


def _class_positions(estimator, classes, n_columns: int, name: str, method: str):
    """Positions in ``classes`` of the estimator's own ``classes_`` columns.

    ``None`` when the output has one column per class of ``classes``; a
    classifier fitted on a cross-validation fold without some of the classes
    knows fewer, and its columns go to the positions of those it knows.
    """
    n_classes = classes.shape[0]
    known = getattr(estimator, "classes_", None)
    if known is None or n_columns == n_classes:
        if n_columns != n_classes:
            raise ValueError(
                f"{name}.{method} returned {n_columns} columns; expected "
                f"{n_classes}, one column per class of `y`."
            )
        return None
    known = np.asarray(known)
    if known.shape[0] != n_columns or not np.isin(known, classes).all():
        raise ValueError(
            f"{name}.{method} returned {n_columns} columns for its classes "
            f"{known.tolist()}; expected one column per class of `y` "
            f"{classes.tolist()}."
        )
    return np.searchsorted(classes, known)


def class_response(estimator, X, method: str, classes) -> np.ndarray:
    """Raw output of a fitted classifier, float64, columns aligned with ``classes``.

    ``predict_proba``: the probabilities, shape (n_samples, n_classes).
    ``decision_function``: shape (n_samples,) for a binary decision function
    (one score favouring ``classes[1]``), else (n_samples, n_classes).
    :func:`response_scores` turns either into the scores a calibrator sees.

    A classifier fitted on a cross-validation fold without some of the
    classes (its ``classes_`` a subset of ``classes``) gets, for each class it
    does not know, the probability 0 (as ``cross_val_predict``) or, for a
    decision function with a column per known class, the lowest score it
    gives to these samples. One binary column for 2 of K > 2 classes is
    refused, as in ``cross_val_predict``: it cannot say which class it
    scores against which.
    """
    classes = np.asarray(classes)
    n_classes = classes.shape[0]
    name = type(estimator).__name__
    out = np.asarray(
        batch_invariant_call(getattr(estimator, method), X), dtype=np.float64
    )
    if method == "decision_function" and (
        out.ndim == 1 or (out.ndim == 2 and out.shape[1] == 1)
    ):
        if n_classes != 2:
            raise ValueError(
                f"{name}.{method} returned one column for a problem of "
                f"{n_classes} classes; expected one column per class of `y`. "
                "Was it fitted on a cross-validation fold with only two of the "
                "classes? A stratified splitter keeps every class in every fold."
            )
        return out.reshape(-1)
    if out.ndim != 2:
        raise ValueError(
            f"{name}.{method} returned shape {out.shape}; expected "
            f"(n_samples, {n_classes}), one column per class of `y`."
        )
    if n_classes == 2 and method == "predict_proba" and out.shape[1] != 2:
        raise ValueError(
            f"{name}.predict_proba returned shape {out.shape}; expected "
            "(n_samples, 2) for a binary problem. Was it fitted on a single "
            "class (a cross-validation fold without one of the classes)?"
        )
    positions = _class_positions(estimator, classes, out.shape[1], name, method)
    if positions is not None:
        fill = 0.0 if method == "predict_proba" or out.size == 0 else out.min()
        full = np.full((out.shape[0], n_classes), fill)
        full[:, positions] = out
        out = full
    return out


def response_scores(
    raw, method: str, layout: str, floor=PROBA_FLOOR, proba_input="log_odds"
) -> np.ndarray:
    """The scores a calibrator sees, from :func:`class_response`'s output.

    Parameters
    ----------
    raw : ndarray
        Output of :func:`class_response`.
    method : {'decision_function', 'predict_proba'}
        The method that gave ``raw``.
    layout : {'binary', 'classes', 'one_vs_rest'}
        ``'binary'``: one score per sample favouring ``classes[1]``: the
        decision function, or from ``predict_proba`` (``proba_input``) the
        log-odds ``log p_1 - log p_0`` or the probability ``p_1``.
        ``'classes'`` (a natively multiclass calibrator): one column per
        class, log-probabilities up to a per-sample constant: the decision
        function's columns (a binary ``x`` as ``(-x/2, x/2)``, whose softmax
        is ``sigmoid(x)``), or ``log p_k``. ``'one_vs_rest'`` (one binary
        calibrator per class): the decision function's columns, or from
        ``predict_proba`` the log-odds of each class against the rest or the
        probabilities ``p_k``.
    floor : float, default=PROBA_FLOOR
        Probabilities are raised to ``floor`` before their logarithm (see
        :func:`proba_floor`).
    proba_input : {'log_odds', 'probability'}, default='log_odds'
        For ``predict_proba`` and a binary or one-vs-rest layout: log-odds, or
        the probabilities themselves (a calibrator is fitted on them through
        :func:`fitting_scores`).

    Returns
    -------
    scores : ndarray of shape (n_samples,) for ``'binary'``, else
        (n_samples, n_classes)
    """
    if method == "decision_function":
        if layout == "classes" and raw.ndim == 1:
            half = 0.5 * raw
            return np.column_stack([-half, half])
        return raw
    if proba_input == "probability" and layout != "classes":
        return raw[:, 1] if layout == "binary" else raw
    log_proba = np.log(np.maximum(raw, floor))
    if layout == "binary":
        return log_proba[:, 1] - log_proba[:, 0]
    if layout == "one_vs_rest":
        return one_vs_rest_log_odds(log_proba)
    return log_proba


def proba_floor(proba) -> float:
    """The floor of a classifier's probabilities before logs, from calibration data.

    Half the smallest non-zero tail probability ``min(p, 1 - p)`` in
    ``proba`` (the probabilities a calibrator is trained on; NaN rows are
    ignored), but at least :data:`MIN_PROBA_FLOOR`. A probability of exactly
    0 thus becomes a log-probability just beyond the most extreme one the
    classifier resolves on the calibration data, instead of ``log(tiny) =
    -708``: a random forest of 100 trees, whose smallest non-zero vote
    fraction is about 0.01, gets a floor of about 0.005 (log-odds within
    +/-5.3); a naive Bayes model, whose probabilities reach 1e-300, gets
    ``MIN_PROBA_FLOOR``.
    """
    proba = np.asarray(proba, dtype=np.float64)
    tail = np.minimum(proba, 1.0 - proba)
    positive = tail[tail > 0]  # NaN compares False
    if positive.shape[0] == 0:
        return 0.5
    return float(max(0.5 * positive.min(), MIN_PROBA_FLOOR))


def proba_inputs(calibrator) -> tuple:
    """The inputs a binary calibrator may take from ``predict_proba``.

    A calibrator class declares them in ``_proba_inputs`` (default
    ``('log_odds',)``); with several, :class:`~skcalib.CalibratedClassifier`
    keeps the one whose fit explains the calibration data best (see
    :func:`choose_proba_input`).
    """
    return tuple(getattr(calibrator, "_proba_inputs", ("log_odds",)))


def fitting_scores(scores, proba_input):
    """The scores of :func:`response_scores` a calibrator is fitted on.

    Probabilities (``proba_input='probability'``) in the same multiple of
    :data:`PROBA_RESOLUTION` are ties at the smallest of them, per column, as
    scikit-learn's isotonic regression ties probabilities closer than that
    at the first of them: a naive Bayes model's probabilities of 1e-200 and
    1e-20 carry no information apart. New probabilities are not rounded, so
    PAV interpolates them between the tie and the next knot, as
    scikit-learn does. Other inputs are returned as they are.
    """
    if proba_input != "probability":
        return scores
    if scores.ndim == 2:
        return np.column_stack([fitting_scores(col, proba_input) for col in scores.T])
    order = np.argsort(scores, kind="stable")
    ranked = scores[order]
    bucket = np.floor(ranked / PROBA_RESOLUTION)
    first = np.ones(ranked.shape[0], dtype=bool)
    np.not_equal(bucket[1:], bucket[:-1], out=first[1:])
    tied = np.empty_like(ranked)
    tied[order] = ranked[first][np.cumsum(first) - 1]
    return tied


def choose_proba_input(losses: dict, sample_weight=None) -> str:
    """The input of least training log-loss, if it beats the probability.

    ``losses`` maps each input to the per-sample training log-losses of the
    calibrator fitted on it (weighted by ``sample_weight``). An input other
    than ``'probability'`` (scikit-learn's) is kept only if its paired
    per-sample gain over the probability is above :data:`PROBA_INPUT_Z`
    standard errors: the candidates have the same number of parameters, and
    the rule keeps noise, and a few samples fitted much better, from
    switching away from the probability.
    """

    def total(name):
        loss = losses[name]
        return float(loss.sum() if sample_weight is None else loss @ sample_weight)

    best = min(losses, key=total)
    if best == "probability" or "probability" not in losses:
        return best
    gain = losses["probability"] - losses[best]
    if significantly_positive(gain, sample_weight, PROBA_INPUT_Z):
        return best
    return "probability"


def one_vs_rest_log_odds(log_proba: np.ndarray) -> np.ndarray:
    """Columns ``log p_k - log(sum_{j != k} p_j)`` of log-probability columns.

    The log-odds of each class against the rest: the score a one-vs-rest
    binary calibrator gets from a classifier that only has ``predict_proba``
    (with two classes it is the binary log-odds score). In ``O(n K)``: with
    ``m`` a row's largest entry and ``S`` the sum of ``exp(L_j - m)`` (at
    least 1), the rest of a column other than the largest is ``m + log(S -
    exp(L_k - m))``, a difference of at least 1 that loses no digits; the
    rest of the largest column is the others' own ``logsumexp``, not
    ``log1p(-p_k)``, to stay accurate when ``p_k`` is close to 1. Equal to
    scipy's ``logsumexp`` of the other columns within ``K**2`` units in the
    last place, and the same on every installed scipy.
    """
    L = np.asarray(log_proba, dtype=np.float64)
    n = L.shape[0]
    rows = np.arange(n)
    top = np.argmax(L, axis=1)
    m = L[rows, top][:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        E = np.exp(L - m)
        rest = np.log(E.sum(axis=1, keepdims=True) - E) + m
        others = L.copy()
        others[rows, top] = -np.inf
        m2 = others.max(axis=1, keepdims=True)
        rest_top = np.log(np.exp(others - m2).sum(axis=1, keepdims=True)) + m2
    # no other column with a positive probability: the rest is empty
    rest[rows, top] = np.where(np.isneginf(m2[:, 0]), -np.inf, rest_top[:, 0])
    with np.errstate(invalid="ignore"):
        return L - rest


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
