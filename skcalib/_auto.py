"""A calibrator chosen among a few by cross-validated log loss.

:class:`AutoCalibrator` is the default calibrator of
:class:`~skcalib.CalibratedClassifier`. No single method is best on every
classifier and calibration set: PAV wins with plenty of data and non-sigmoid
distortions, Platt's sigmoid where the classifier's probabilities are
saturated, temperature scaling with many classes and few samples. The
candidates fit in milliseconds, so each is cross-validated on the
calibration scores themselves (fixed folds, so the result is
deterministic); by default their out-of-fold posteriors are stacked (the
mixture weights of least out-of-fold log loss) and every candidate of
non-zero weight is refitted on all of them.
"""

from __future__ import annotations

import copy
import warnings
from functools import update_wrapper
from numbers import Integral, Real
from types import MethodType

import numpy as np
from scipy.special import expit, logsumexp
from scipy.special import logit as _logit
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ._base import (
    SCORES_DOCS,
    BaseCalibrator,
    SingleColumnError,
    single_column,
    training_data,
)
from ._calibrations import MixtureCalibration as CalibratorMixture
from ._calibrations import (
    OneVsRestCalibration,
    normalize_one_vs_rest,
    takes_all_classes,
)
from ._dask import any_dask_collection
from ._data._training import ArrayTrainingData, TrainingData
from ._kernel._pav import pav_finish, pav_points_presorted
from ._kernel._solver import ArrayData
from ._kernel._special import rule_cost
from ._multiclass_affine import (
    MulticlassAffineCalibrator,
    one_step_refits,
    scale_variances,
)
from ._pav_calibrators import PAVLLRCalibrator
from ._platt import PlattCalibrator
from ._quadratic import QuadraticCalibrator
from ._venn_abers import VennAbersCalibrator
from .utils._docstrings import doc_blocks, fill_doc
from .utils._response import one_vs_rest_log_odds
from .utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    _VisualBlock,
    validate_data,
)
from .utils._stats import class_totals, significantly_positive
from .utils._validation import check_class_y

__all__ = [
    "AutoCalibrator",
    "CalibratorMixture",
    "OneVsRestCalibration",
    "normalize_one_vs_rest",
    "outscored_somewhere",
    "stacking_weights",
    "takes_all_classes",
]

_TINY = float(np.finfo(np.float64).tiny)


_BINARY_CLASSES = np.array([0, 1])


def _fits_quickly(template) -> bool:
    """Whether :func:`_quick_fit` and :func:`_quick_llr` apply: a skcalib
    calibrator with the base class's ``fit`` and ``decision_function`` (or
    Platt's)."""
    cls = type(template)
    return (
        isinstance(template, BaseCalibrator)
        and cls.fit is BaseCalibrator.fit
        and cls._training_data is BaseCalibrator._training_data
        and cls.decision_function
        in (BaseCalibrator.decision_function, PlattCalibrator.decision_function)
    )


def _quick_fit(template, X, is_target, sample_weight):
    """``clone(template).fit(X, is_target, sample_weight)`` on arrays that are
    already valid: ``X`` float64 ``(n, 1)``, finite; ``sample_weight`` None
    or non-negative with a total that cannot overflow (validated and
    rescaled once for the whole calibration set, of which these are rows).
    The cross-validation fits many candidates on subsets of the same data;
    checking them again each time cost a third of ``AutoCalibrator.fit``.
    ``template`` is an unfitted calibrator whose parameters were validated:
    its shallow copy is fitted (``clone`` inspects signatures each time).
    """
    data = object.__new__(ArrayTrainingData)
    TrainingData.__init__(
        data, n_columns=X.shape[1], weight_exponent=0, owner=type(template).__name__
    )
    data.classes = _BINARY_CLASSES
    data._is_target, data._sample_weight = is_target, sample_weight
    data.n_tar, data.n_non = class_totals(is_target, sample_weight)
    if data.n_tar == 0 or data.n_non == 0:
        raise ValueError("a training fold holds one class only")
    data._X, data._kept = X, None
    fitted = copy.copy(template)
    fitted._weight_exponent = 0
    fitted.n_features_in_ = X.shape[1]
    fitted._fit(data)
    fitted._set_classes(_BINARY_CLASSES, data.n_tar, data.n_non)
    return fitted


def _quick_llr(fitted, X):
    """``fitted.decision_function(X)`` without checking ``X`` again."""
    if isinstance(fitted, PlattCalibrator):  # its LLRs: not through expit
        return fitted._affine(X)[:, 0] - _logit(fitted.calibration_prior_)
    out = fitted._transform(X)[:, 0]
    if fitted._output == "proba":
        with np.errstate(divide="ignore"):
            return _logit(out) - _logit(fitted.calibration_prior_)
    return out


class _QuickCalibrator:
    """A binary candidate fitted by :func:`_quick_fit`, with the one method
    the folds need: ``predict_proba`` of one column of valid scores."""

    def __init__(self, fitted):
        self.fitted = fitted

    def predict_proba(self, s):
        log_odds = _quick_llr(self.fitted, s[:, None]) + _logit(self.fitted.prior_)
        return np.column_stack([expit(-log_odds), expit(log_odds)])


def _quick_one_vs_rest(template, scores, y_index, n_classes, sample_weight=None):
    """``OneVsRestCalibration.fit`` by :func:`_quick_fit`, on valid scores
    (the folds)."""
    return OneVsRestCalibration(
        _QuickCalibrator(
            _quick_fit(template, scores[:, k : k + 1], y_index == k, sample_weight)
        )
        for k in range(n_classes)
    )


def _is_default_platt(cal) -> bool:
    """Whether ``cal`` is ``PlattCalibrator()`` (the default parameters)."""
    return type(cal) is PlattCalibrator and _has_params(cal, _PLATT_DEFAULTS)


def _has_params(cal, params) -> bool:
    """``cal.get_params() == params`` for the parameters of ``cal``'s class
    (read directly: ``get_params`` inspects the constructor's signature)."""
    return all(getattr(cal, name) == value for name, value in params.items())


_PLATT_DEFAULTS = PlattCalibrator().get_params()


def _platt_columns(U, T, sample_weight, start=None, max_iter=100):
    """:class:`PlattCalibrator` fitted on every column of ``U`` at once.

    Column ``j`` of the scores ``U`` (n, m) against the targets ``T[:, j]``
    (boolean): the minimizer of Platt's cross-entropy with smoothed targets
    (:class:`PlattCalibrator`'s objective), by Newton's method on the ``m``
    two-parameter problems together (each step a closed-form 2 x 2 solve
    per column, backtracked per column where the loss does not decrease).
    The objective is strictly convex, so this is the fit of
    ``PlattCalibrator().fit(U[:, j], T[:, j], sample_weight)`` (to its
    tolerance); iterated until every column's next step is below
    ``1e-12`` (in units of half the column's range), or predicted so from
    the quadratic rate of the last two. Costs a few array passes per
    iteration whatever ``m``, where ``m`` separate fits cost ``m`` solver
    set-ups (the one-vs-rest folds of :class:`AutoCalibrator`).

    ``start``: the maps ``(a, b)`` to start from (default: Platt's start,
    ``a = 0`` and ``b`` the smoothed prior log-odds); another fit on most
    of the same rows (the next fold) starts within its sampling error.

    Returns the maps ``(a, b)`` (``sigmoid(a s + b)``) of the columns, or
    None where a column is not a plain problem (a class absent, equal
    scores, a singular Hessian, no convergence): the caller fits it the
    ordinary way.
    """
    w = np.ones(U.shape[0]) if sample_weight is None else sample_weight
    total = float(w.sum())
    n_pos = w @ T
    n_neg = total - n_pos
    lo, hi = U.min(axis=0), U.max(axis=0)
    if not (
        np.isfinite(lo).all()
        and np.isfinite(hi).all()
        and (hi > lo).all()
        and (n_pos > 0).all()
        and (n_neg > 0).all()
    ):
        return None
    centre, half_range = 0.5 * (lo + hi), 0.5 * (hi - lo)
    u = (U - centre) / half_range
    target = np.where(T, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    v = w / total
    if start is None:
        a, b = np.zeros(U.shape[1]), np.log((n_pos + 1.0) / (n_neg + 1.0))
    else:  # in the units of u
        a, b = start[0] * half_range, start[0] * centre + start[1]

    def loss(a, b):
        z = u * a + b
        return v @ (np.logaddexp(0.0, z) - target * z)

    f = None  # the loss at (a, b), where a line search needs it
    last = None  # the previous step's size, if full
    for _ in range(max_iter):
        p = expit(u * a + b)
        r = p - target
        q = p * (1.0 - p)
        qu = q * u
        g_a, g_b = v @ (r * u), v @ r
        h_aa, h_ab, h_bb = v @ (qu * u), v @ qu, v @ q
        det = h_aa * h_bb - h_ab * h_ab
        if not (np.isfinite(det).all() and (det > 0).all()):
            return None
        d_a = (h_ab * g_b - h_bb * g_a) / det
        d_b = (h_ab * g_a - h_aa * g_b) / det
        size = np.maximum(np.abs(d_a), np.abs(d_b))
        if not np.isfinite(size).all():
            return None
        t = np.ones_like(a)
        # near the optimum the loss changes below its rounding: full steps,
        # and no loss computed. Nor where the full step passes Armijo's test
        # for sure: along it the loss's curvature grows at most as exp(R t),
        # R = |d_a| + |d_b| (the weight p (1 - p) changes by at most a factor
        # e^|dz|, and |u| <= 1), so the step's decrease is at least
        # (1 - kappa) |slope|, kappa = (e^R - 1 - R) / R^2 = 0.72 at R = 1,
        # where the test asks 1e-4 |slope|
        search = (size > 1e-4) & (np.abs(d_a) + np.abs(d_b) > 1.0)
        if search.any():
            slope = g_a * d_a + g_b * d_b
            f = loss(a, b) if f is None else f
            new = loss(a + d_a, b + d_b)
            for _ in range(60):
                bad = search & ~(new <= f + 1e-4 * t * slope)
                if not bad.any():
                    break
                t[bad] *= 0.5
                new = np.where(bad, loss(a + t * d_a, b + t * d_b), new)
            else:
                return None
            f = new
        else:
            f = None
        a, b = a + t * d_a, b + t * d_b
        largest = float(size.max())
        # done when the next step is below 1e-12: this one is, or it is
        # predicted so from the quadratic rate of two full steps
        if largest <= 1e-12 or (
            last is not None and largest**3 <= 1e-12 * last**2 and largest < 1e-6
        ):
            return a / half_range, b - a * (centre / half_range)
        last = largest if (t == 1.0).all() else None
    return None


def _platt_fold_losses(ovr, y_index, n_classes, folds, sample_weight):
    """Out-of-fold log loss of ``PlattCalibrator()`` one-vs-rest, by
    :func:`_platt_columns` (the K classes of a fold at once, each fold
    started from the previous one's fit), and the last fold's maps ``(a,
    b)`` (a start for the fit on all the rows); None where a fold's fit is
    not a plain problem."""
    classes = np.arange(n_classes)
    losses = []
    fit = (np.ones(n_classes), np.zeros(n_classes))
    for train, test in folds:
        w = None if sample_weight is None else sample_weight[train]
        fit = _platt_columns(ovr[train], y_index[train, None] == classes, w, fit)
        if fit is None:
            return None
        proba = expit(ovr[test] * fit[0] + fit[1])
        losses.append(_multiclass_log_loss(normalize_one_vs_rest(proba), y_index[test]))
    return losses, fit


def _platt_one_vs_rest(template, ovr, y_index, n_classes, sample_weight, start):
    """``OneVsRestCalibration`` of ``PlattCalibrator()`` on valid scores by
    :func:`_platt_columns` (the K classes at once, from ``start``), each
    class's calibrator as :func:`_quick_fit` leaves it; None where the fit
    is not a plain problem (the caller fits the ordinary way)."""
    targets = y_index[:, None] == np.arange(n_classes)
    fit = _platt_columns(ovr, targets, sample_weight, start)
    if fit is None:
        return None
    fitted = []
    for k in range(n_classes):
        cal = copy.copy(template)
        cal._weight_exponent = 0
        cal.n_features_in_ = 1
        cal.coef_, cal.intercept_ = fit[0][k : k + 1], fit[1][k : k + 1]
        cal.n_iter_ = 0  # not the solver's count: fitted with the others
        cal._n_evals = cal._n_sub_evals = np.zeros(1, dtype=np.int64)
        cal._set_classes(_BINARY_CLASSES, *class_totals(targets[:, k], sample_weight))
        fitted.append(cal)
    return OneVsRestCalibration(fitted)


def _is_default_pav_llr(cal) -> bool:
    """Whether ``cal`` is ``PAVLLRCalibrator()`` (the default parameters)."""
    return type(cal) is PAVLLRCalibrator and _has_params(cal, _PAV_LLR_DEFAULTS)


_PAV_LLR_DEFAULTS = PAVLLRCalibrator().get_params()


def _pav_fold_losses(template, ovr, y_index, n_classes, folds, orders=None):
    """Out-of-fold log loss of ``PAVLLRCalibrator()`` one-vs-rest, unweighted.

    Each class's column of ``ovr`` is sorted once for all the folds: a
    fold's training points are those rows of the sorted whole
    (:func:`~skcalib._kernel._pav.pav_points_presorted`), then the
    calibrator's own steps (PAV with its virtual trials, the column's map,
    its interpolation) give each test row's LLR, as
    :func:`_quick_one_vs_rest` does with one fit per class and fold.
    Raises ``ValueError`` where a training fold holds one class only (as
    :func:`_quick_fit`). ``orders``, a list where given, gets each class's
    sort order (for :func:`_pav_one_vs_rest`).
    """
    fitted = copy.copy(template)
    fitted._weight_exponent = 0  # unweighted: virtual trials of weight 1
    pseudo_count = fitted._pseudo_count
    in_train = np.zeros((len(folds), y_index.shape[0]), dtype=bool)
    for j, (train, _) in enumerate(folds):
        in_train[j, train] = True
    # each fold's test rows, columns in memory order (one slice per class)
    tests = [np.asfortranarray(ovr[test]) for _, test in folds]
    probas = [np.empty((test.shape[0], n_classes)) for _, test in folds]
    for k in range(n_classes):
        order = np.argsort(ovr[:, k])
        if orders is not None:
            orders.append(order)
        s_all, t_all = ovr[order, k], y_index[order] == k
        in_order = in_train[:, order]
        for j in range(len(folds)):
            rows = in_order[j]
            s, t = s_all[rows], t_all[rows]
            n_tar = float(np.count_nonzero(t))
            n_non = s.shape[0] - n_tar
            if n_tar == 0 or n_non == 0:
                raise ValueError("a training fold holds one class only")
            blocks = pav_finish(pav_points_presorted(s, t), pseudo_count)
            blocks, knot_x, knot_v, _ = fitted._column_map(blocks, n_tar, n_non)
            fitted.X_thresholds_, fitted.y_thresholds_ = [knot_x], [knot_v]
            fitted.X_min_, fitted.X_max_ = blocks.lo[:1], blocks.hi[-1:]
            llr = fitted._transform_column(0, tests[j][:, k])
            probas[j][:, k] = llr + _logit(n_tar / (n_tar + n_non))
    for proba in probas:
        expit(proba, out=proba)
    return [
        _multiclass_log_loss(normalize_one_vs_rest(proba), y_index[test])
        for proba, (_, test) in zip(probas, folds, strict=True)
    ]


def _pav_one_vs_rest(template, ovr, y_index, n_classes, orders):
    """``OneVsRestCalibration`` of ``PAVLLRCalibrator()`` on valid unweighted
    scores, from each class's column sorted by ``orders`` (those of
    :func:`_pav_fold_losses`): the steps of its fit, each class's calibrator
    as :func:`_quick_fit` leaves it."""
    fitted = []
    for k, order in enumerate(orders):
        s, t = ovr[order, k], y_index[order] == k
        cal = copy.copy(template)
        cal._weight_exponent = 0
        n_tar, n_non = class_totals(t, None)
        blocks = pav_finish(pav_points_presorted(s, t), cal._pseudo_count)
        blocks, knot_x, knot_v, tilt = cal._column_map(blocks, n_tar, n_non)
        cal.n_features_in_ = 1
        cal.blocks_, cal._tilt = [blocks], [tilt]
        cal.X_thresholds_, cal.y_thresholds_ = [knot_x], [knot_v]
        cal.X_min_, cal.X_max_ = blocks.lo[:1].copy(), blocks.hi[-1:].copy()
        cal._set_classes(_BINARY_CLASSES, n_tar, n_non)
        fitted.append(cal)
    return OneVsRestCalibration(fitted)


def _is_log_proba(X) -> bool:
    """Whether the K columns are log-probabilities (rows' logsumexp is 0)."""
    return bool(
        X.shape[0] and (X <= 0).all() and np.allclose(logsumexp(X, axis=1), 0.0)
    )


def _total_weight(y_index, sample_weight) -> float:
    """Number of samples, or their total weight."""
    if sample_weight is None:
        return float(y_index.shape[0])
    return float(sample_weight.sum())


def _binary_log_loss(llr, is_target, prior):
    """Per-sample log loss of the posteriors ``sigmoid(llr + logit(prior))``."""
    x = llr + (np.log(prior) - np.log1p(-prior))
    # the logarithmic rule's target cost G(z; 1, 1) at z = x, a non-target's at -x
    return rule_cost(np.where(is_target, x, -x), 1.0, 1.0)


def _multiclass_log_loss(proba, y_index):
    """Per-sample log loss of the probabilities of the true classes."""
    p = proba[np.arange(y_index.shape[0]), y_index]
    return -np.log(np.maximum(p, _TINY))


#: Mixture weights below this are dropped (and the others maximized again
#: without them): the candidate is not refitted, and the weights read as a
#: short list.
MIN_STACKING_WEIGHT = 1e-3


def _mixture_log_likelihood(w, P, s):
    """``sum_i s_i log(P_i . w)``."""
    return float(s @ np.log(w @ P))


def _face_newton_step(w, P, s, free):
    """Newton step of the log-likelihood on the face ``{w_j = 0 off free, sum
    w = 1}``, and the gradient; ``None`` where the Hessian is not finite."""
    mixed = w @ P
    with np.errstate(over="ignore", invalid="ignore"):
        grad = P @ (s / mixed)
        F = np.flatnonzero(free)
        A = P[F] * (np.sqrt(s) / mixed)
        Q = A @ A.T  # minus the Hessian on the free coordinates
    if not (np.isfinite(Q).all() and np.isfinite(grad[F]).all()):
        return None, grad
    m = F.shape[0]
    kkt = np.zeros((m + 1, m + 1))
    kkt[:m, :m] = Q
    kkt[:m, m] = kkt[m, :m] = 1.0
    # least squares: a singular Hessian (tied or dependent candidates) gives
    # the least-norm step, still an ascent direction
    d = np.linalg.lstsq(kkt, np.append(grad[F], 0.0), rcond=None)[0][:m]
    step = np.zeros_like(w)
    step[F] = d - d.mean()  # exactly on sum w = 1
    return (step if np.isfinite(step).all() else None), grad


def simplex_mixture_weights(P, s, *, start=None, tol=1e-13, max_iter=500):
    """``argmax_w sum_i s_i log(P_i . w)`` over the simplex (``s`` sums to 1).

    An active-set Newton method on the concave objective. On the free
    coordinates: the Newton step of the objective restricted to ``sum w =
    1``, cut at the first bound it crosses (that coordinate is then fixed at
    0) and backtracked until the objective increases enough (the full step
    once the Newton decrement is below rounding of the objective, after
    which the face counts as solved: the error left is of the order of the
    step's square). When the step is negligible the free coordinates are
    optimal on their face, and the fixed coordinate whose gradient exceeds 1
    the most (the optimality condition off the support is ``g_j <= 1``:
    ``w . g = 1``) is freed, by a step toward its vertex, until none is.
    Each iteration costs a few ``O(n K)`` passes and one ``O(n K^2)``
    product.

    Parameters
    ----------
    P : ndarray of shape (K, n)
        Positive probabilities of the true class, one row per candidate.
    s : ndarray of shape (n,)
        Non-negative sample weights summing to 1.
    start : ndarray of shape (K,), default=None
        Positive starting weights summing to 1 (default: uniform).

    Returns
    -------
    w : ndarray of shape (K,)
        The weights, on the simplex (zeros exact).
    """
    K = P.shape[0]
    w = np.full(K, 1.0 / K) if start is None else np.asarray(start, dtype=float)
    free = np.ones(K, dtype=bool)
    value = _mixture_log_likelihood(w, P, s)
    entering = None
    for _ in range(max_iter):
        step, grad = _face_newton_step(w, P, s, free)
        if entering is not None and (step is None or step[entering] <= 0):
            step = -w.copy()  # toward the vertex of the freed coordinate
            step[entering] += 1.0
        entering = None
        if step is None:  # not finite: the best free vertex
            step = -w.copy()
            step[int(np.argmax(np.where(free, grad, -np.inf)))] += 1.0
        slope = float(grad @ step)
        if np.abs(step).max() > tol and slope > 0:
            shrink = step < 0
            ratios = np.where(shrink, w / np.where(shrink, -step, 1.0), np.inf)
            hit = int(np.argmin(ratios))
            t_max = ratios[hit]
            t = min(1.0, t_max)
            exact = slope < 1e-12  # Newton decrement below the objective's rounding
            while t > 1e-30:
                trial = w + t * step
                if t == t_max:
                    trial[hit] = 0.0
                trial = np.maximum(trial, 0.0)
                trial /= trial.sum()
                new = _mixture_log_likelihood(trial, P, s)
                if new >= value + 1e-4 * t * slope or (exact and new >= value - 1e-15):
                    break
                t *= 0.5
            else:
                trial = None
            if trial is not None:
                free &= trial > 0
                w, value = trial, new
                if not (exact and t == 1.0):
                    continue
                # a full step of a Newton decrement below rounding: the
                # error left is of its square, so the face is solved
        # optimal on the face: free the fixed coordinate that gains the most
        mixed = w @ P
        with np.errstate(over="ignore"):
            grad = P @ (s / mixed)
        gap = np.where(free, -np.inf, grad - 1.0)
        j = int(np.argmax(gap))
        if not gap[j] > tol:
            break
        free[j] = True
        entering = j
    return w


def stacking_weights(proba_true, sample_weight=None, *, min_weight=MIN_STACKING_WEIGHT):
    """Mixture weights of least log loss: ``argmax_w sum_i s_i log(P_i . w)``.

    ``proba_true`` (n_candidates, n_samples) holds each candidate's
    out-of-fold probability of the true class; the weights ``w`` lie on the
    simplex. The objective is concave in ``w``; its maximizer is found
    exactly (to rounding) by :func:`simplex_mixture_weights`. Candidates
    whose probabilities are not all finite get weight 0; so does a
    candidate whose probabilities equal an earlier one's everywhere (a tie
    goes to the earlier one). Weights below ``min_weight`` are dropped and
    the others maximized again without them, so that the weights are the
    maximizer over the candidates they use.
    """
    K = proba_true.shape[0]
    ok = np.isfinite(proba_true).all(axis=1)
    weights = np.zeros(K)
    if not ok.any():
        weights[0] = 1.0
        return weights
    for c in range(K - 1):  # identical candidates: the earlier one only
        if ok[c]:
            ok[c + 1 :] &= ~(proba_true[c + 1 :] == proba_true[c]).all(axis=1)
    s = np.ones(proba_true.shape[1]) if sample_weight is None else sample_weight
    s = s / s.sum()
    start = None
    while True:
        used = np.flatnonzero(ok)
        P = np.maximum(proba_true[used], _TINY)
        if used.shape[0] > 1:
            w = simplex_mixture_weights(P, s, start=start)
        else:
            w = np.ones(1)
        small = (w > 0) & (w < min_weight)
        if not small.any():
            break
        ok[used[small]] = False
        # the rest, renormalized, is close to the new maximizer; weights of 0
        # start small but positive (they may enter the support)
        start = np.maximum(w[~small], 1e-3 / w.shape[0])
        start /= start.sum()
    weights[used] = w
    return weights


#: Largest ``|a| max|s|`` of the two-class temperature (``a = 1 / T``):
#: posterior log-odds beyond it are saturated in float64, so a fit that
#: would sharpen further (unpenalized, separable scores) stops there.
_TEMPERATURE_SPAN = 4096.0


def _temperature_newton(v, omega, c, max_iter=100):
    """``argmin_b sum_i omega_i log(1 + exp(-b v_i)) + c b^2`` (convex, 1-D).

    Newton's method safeguarded by bisection on the bracket of the root of
    the (increasing) derivative; ``|v| <= 1``, ``omega`` sums to 1. Stops
    after a step below ``1e-10 |b|`` (Newton's next one would be below
    rounding), or at ``|b| = _TEMPERATURE_SPAN``.
    """
    lo, hi = -_TEMPERATURE_SPAN, _TEMPERATURE_SPAN
    b = 0.0
    for _ in range(max_iter):
        q = expit(-b * v)  # 1 - sigmoid(b v)
        grad = 2.0 * c * b - omega @ (v * q)
        if grad == 0:
            break
        if grad < 0:
            lo = b
        else:
            hi = b
        hess = 2.0 * c + omega @ (v * v * q * (1.0 - q))
        new = b - grad / hess if hess > 0 else np.nan
        if not lo <= new <= hi:  # outside the bracket: bisect
            new = 0.5 * (lo + hi)
        step, b = abs(new - b), new
        if step <= 1e-10 * abs(b):  # quadratic convergence: b is exact
            break
    return b


class _TwoClassTemperature(BaseCalibrator):
    """Temperature scaling of a binary score: posterior log-odds ``s / T``.

    The one-parameter map of :class:`MulticlassAffineCalibrator`'s
    ``kind='temperature'`` on the two columns ``(-s/2, s/2)`` (whose softmax
    is ``sigmoid(s)``), as a binary calibrator: LLR ``s / T -
    logit(calibration_prior_)``. ``coef_`` holds ``a = 1 / T`` per column,
    the minimizer of the weighted mean log loss plus ``l2 m a^2``, ``m``
    the weighted mean of ``s^2 / 4`` (that calibrator's penalty per
    standard deviation, ``l2`` times the mean square of the centred logits,
    on those columns), so that no fit depends on the units of the scores;
    by a safeguarded Newton iteration on the scalar ``a`` (in units of the
    scores' power of two, so that nothing overflows), to rounding.
    """

    _output = "llr"

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "l2": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, l2=1e-5, prior=None):
        self._store(locals())

    def _fit(self, data):
        X, is_target, sample_weight = data.arrays()
        omega = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        omega = omega / omega.sum()
        scaled = np.zeros(X.shape[1])
        exponent = np.zeros(X.shape[1], dtype=np.int64)
        for j in range(X.shape[1]):
            s = X[:, j]
            top = max(float(s.max()), -float(s.min()))
            if top == 0:
                continue
            e = int(np.frexp(top)[1])
            v = np.ldexp(s, -e)  # exact, |v| < 1
            c = self._penalty(v, omega)
            v = np.where(is_target, v, -v)
            scaled[j], exponent[j] = _temperature_newton(v, omega, c), e
        # ``a`` may overflow (denormal scores): predictions use ``b = a 2**e``
        self._scaled_coef, self._exponent = scaled, exponent
        with np.errstate(over="ignore"):
            self.coef_ = np.ldexp(scaled, -exponent)
        return self

    def _penalty(self, v, omega):
        """``l2`` times the pooled variance of the two columns ``(-v/2,
        v/2)`` about their row means, as the K-class temperature's."""
        l2 = float(self.l2)
        if l2 == 0:
            return 0.0
        half = 0.5 * v
        index = np.zeros(v.shape[0], dtype=np.intp)
        source = ArrayData(np.column_stack([-half, half]), index, omega)
        _, pooled = scale_variances(source, np.zeros(2, np.int64), np.ones(1))
        return l2 * pooled

    def _transform(self, X):
        prior = self.calibration_prior_
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.ldexp(X, -self._exponent) * self._scaled_coef
        out[np.isnan(out)] = 0.0  # 0 * inf: a flat map
        return out - (np.log(prior) - np.log1p(-prior))


def outscored_somewhere(X, y_index, sample_weight=None) -> bool:
    """Whether some sample of positive weight has a class scoring above its own.

    Temperature scaling's log loss ``L(a)`` of the posteriors
    ``softmax(a X)`` then grows without bound as ``a`` grows, so its
    minimizer is finite; otherwise ``L`` does not increase in ``a`` and the
    unpenalized fit sharpens without limit.
    """
    own = X[np.arange(y_index.shape[0]), y_index]
    beaten = (X > own[:, None]).any(axis=1)  # the own column is never above
    if sample_weight is not None:
        beaten &= sample_weight > 0
    return bool(beaten.any())


class _SeparationTemperature(MulticlassAffineCalibrator):
    """Temperature scaling, unpenalized unless its fit would not exist.

    On scores where some sample is outscored on its own class it is
    scikit-learn's ``method='temperature'``: the maximum likelihood
    temperature, no penalty. Where none is (every sample's own class scores
    highest: a few dozen samples without one error), that fit sharpens
    without limit, and the temperature is fitted instead to targets smoothed
    as by Platt's rule of succession: ``1 - e`` on each sample's class and
    ``e / (K - 1)`` on the others, ``e = SEPARABLE_SMOOTHING / (n + 2)``
    for ``n`` samples (their total weight), by giving each sample once per
    class with those shares of its weight. Fitted by :class:`AutoCalibrator`
    on validated arrays with integer labels.
    """

    def __init__(self):
        super().__init__(kind="temperature", l2=0.0)

    def fit(self, X, y, sample_weight=None):
        X = np.asarray(X, dtype=np.float64)
        classes, y_index = np.unique(y, return_inverse=True)
        if X.shape[1] != classes.shape[0] or outscored_somewhere(
            X, y_index, sample_weight
        ):
            return super().fit(X, y, sample_weight)
        return super().fit(*self._smoothed(X, y_index, classes, sample_weight))

    def _fit_validated(self, X, y_index, sample_weight, n_classes):
        if (
            X.shape[1] != n_classes
            or not np.bincount(y_index, minlength=n_classes).all()
        ):
            return self.fit(X, y_index, sample_weight)  # which refuses it
        if outscored_somewhere(X, y_index, sample_weight):
            return super()._fit_validated(X, y_index, sample_weight, n_classes)
        classes = np.arange(n_classes)
        return super()._fit_validated(
            *self._smoothed(X, y_index, classes, sample_weight), n_classes
        )

    @staticmethod
    def _smoothed(X, y_index, classes, sample_weight):
        """Each sample once per class, with its share of the smoothed
        targets as weight: ``(X, y, sample_weight)``."""
        n, K = y_index.shape[0], classes.shape[0]
        weight = np.ones(n) if sample_weight is None else sample_weight
        e = SEPARABLE_SMOOTHING / (float(weight.sum()) + 2.0)
        share = np.full((n, K), e / (K - 1))
        share[np.arange(n), y_index] = 1.0 - e
        return (
            np.repeat(X, K, axis=0),
            np.tile(classes, n),
            (share * weight[:, None]).reshape(-1),
        )


class _ProbabilitySigmoid(PlattCalibrator):
    """Platt's sigmoid of the probability ``sigmoid(s)`` rather than of ``s``.

    What scikit-learn's ``method='sigmoid'`` fits on a ``predict_proba``
    classifier: bounded inputs, so probabilities of exactly 0 or 1 (log-odds
    of +/-708) cannot flatten the fit.
    """

    def _fit(self, data):
        X = data.arrays(all_rows=True)[0]
        P = expit(X)
        # max > min, not np.ptp: the range of scores of +/-1.7e308 overflows
        saturated = (P.max(axis=0) == P.min(axis=0)) & (X.max(axis=0) > X.min(axis=0))
        if not saturated.any():
            return super()._fit(data.with_scores(P))
        # scores so far out that every probability rounds to 0 or 1: the flat
        # map is this candidate's honest answer, not a problem of the data
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "_ProbabilitySigmoid: all training")
            return super()._fit(data.with_scores(P))

    def _affine(self, X):
        return super()._affine(expit(X))


def _log_probability_columns(s):
    """``(log sigmoid(-s), log sigmoid(s))``: the two log-probabilities whose
    log-odds are ``s``, without overflow."""
    return np.column_stack([-np.logaddexp(0.0, s), -np.logaddexp(0.0, -s)])


class _BinarySMS(BaseCalibrator):
    """Structured matrix scaling of a binary score (Berta et al., 2025).

    :class:`MulticlassAffineCalibrator`'s ``kind='sms'`` on the two
    log-probabilities ``(log sigmoid(-s), log sigmoid(s))`` of the log-odds
    ``s``: temperature scaling mixed with the uniform distribution, then an
    affine map of both log-probabilities, ridge-penalized towards the
    identity. In log-odds it is Beta calibration (Kull et al., 2017) of the
    mixed probability, with the structured ridge; the leading binary method
    of the CalArena panels with quadratic scaling. LLR: the calibrated
    log-odds minus ``logit(calibration_prior_)``.
    """

    _output = "llr"

    def __init__(self, *, prior=None):
        self._store(locals())

    def _fit(self, data):
        X, is_target, sample_weight = data.arrays()
        with warnings.catch_warnings():
            # separable scores: the temperature step sharpens to its bound,
            # and the uniform share of the mixture bounds the posteriors
            warnings.filterwarnings(
                "ignore", "MulticlassAffineCalibrator: the objective"
            )
            self.sms_ = MulticlassAffineCalibrator(kind="sms").fit(
                _log_probability_columns(X[:, 0]),
                is_target.astype(np.intp),
                sample_weight,
            )
        return self

    def _transform(self, X):
        log_proba = self.sms_.transform(_log_probability_columns(X[:, 0]))
        prior = self.calibration_prior_
        llr = log_proba[:, 1] - log_proba[:, 0] - (np.log(prior) - np.log1p(-prior))
        return llr[:, None]


#: Weight of the two-class temperature candidate's penalty on the *summed*
#: log loss: ``l2 = TEMPERATURE_PRIOR / n`` on the mean loss of ``n``
#: calibration samples (total weight), a prior on ``1 / T`` whose strength
#: does not grow with the data. On a few dozen samples without errors it
#: keeps temperature scaling from sharpening without limit (l2 ~ 1e-3 at
#: n = 40); on hundreds it is negligible.
TEMPERATURE_PRIOR = 0.04


#: The K-class temperature candidate's pseudo-count where its maximum
#: likelihood fit does not exist (no sample outscored on its own class):
#: each sample's target is ``1 - e`` on its class and ``e / (K - 1)`` on each
#: other, ``e = SEPARABLE_SMOOTHING / (n + 2)`` for ``n`` samples (total
#: weight), Platt's rule of succession with a quarter of a pseudo-sample.
#: Values from 0.15 to 0.4 gave the same panel results within 1.5 %.
SEPARABLE_SMOOTHING = 0.25


#: Distinct ``(class, score row)`` pairs above which the folds of the
#: selection hold a stratified subsample of the calibration data (about this
#: many pairs): the few mixture weights need no more, and the candidates of
#: non-zero weight are refitted on all the data. Calibration sets of up to
#: this size are cross-validated whole.
MAX_CV_PAIRS = 65536


#: ``uninformative_weight='auto'``: the uninformative system's share of the
#: posteriors is ``UNINFORMATIVE_PRIOR / n`` for ``n`` calibration samples
#: (their total weight). Out-of-fold losses on ``n`` samples cannot see
#: error rates much below ``1 / n``: on a few dozen samples without one
#: error the stacking weights can go to a candidate that is certain, and
#: one test error then costs tens of nats. The share bounds that cost by
#: ``log(n / (UNINFORMATIVE_PRIOR * prior_k))`` at a price of at most
#: ``UNINFORMATIVE_PRIOR / n`` nats per sample.
UNINFORMATIVE_PRIOR = 0.05


#: ``n_folds='auto'``: the number of folds below ``LARGE_CV_SAMPLES``
#: calibration samples (their total weight), and from there on. On the
#: arena panel's tuning half (calibration parts of 142 to 12,000 samples)
#: 2 folds gave the same geometric mean log loss as 5 within 0.5 % in each
#: range of sizes, binary and multiclass (0.9982 to 1.0045 of it; 88 cells
#: of 142 to 500 samples among them), at less than half the cost; on a few
#: dozen samples (the small panel's 37 to 142) 5 folds keep the training
#: folds large enough for every candidate.
#: With K > 2 classes, 2 folds from ``MULTICLASS_LARGE_CV_SAMPLES`` only:
#: on the held-out half, 2 folds (with SMS cross-validated by one Newton
#: step) below 1,000 samples cost 0.3 % of log loss (56 cells of 223 to
#: 1,000 samples), which the rule that the default's held-out quality
#: must not drop does not allow.
SMALL_N_FOLDS = 5
LARGE_N_FOLDS = 2
LARGE_CV_SAMPLES = 200
MULTICLASS_LARGE_CV_SAMPLES = 1000


#: Least calibration weight from which the affine candidates with more
#: than one parameter (SMS, binary and K-class) are cross-validated by one
#: Newton step per fold from their fit on all the rows
#: (:func:`one_step_refits`) instead of a fit per fold: the fit on all the
#: rows is the one kept, and the folds cost one pass over the data. K-class
#: temperature scaling (one parameter, where the step is exact to ~1e-4 in
#: probability on hundreds of samples) is cross-validated so at any size
#: where every training fold has a sample outscored on its own class (its
#: unpenalized fit).
ONE_STEP_MIN_SAMPLES = 200


def _temperature_l2(n_samples: float) -> float:
    return TEMPERATURE_PRIOR / max(float(n_samples), 1.0)


#: Least calibration weight at which structured matrix scaling (SMS)
#: replaces the one-vs-rest probability sigmoid among the K-class
#: candidates. On the arena panel (calibration parts of 223 to 12,000
#: samples) SMS took the default from 0.987 to 0.977 of the sk3 oracle on
#: the held-out half; on 44 wine samples its over-fitting, unseen by the
#: out-of-fold losses, cost up to 1.9x the previous default's log loss
#: (still below scikit-learn's best). Sizes between 44 and 223 are not
#: measured.
SMS_MIN_SAMPLES = 200


#: Least calibration weight at which matrix scaling (of the log-scores, with
#: its default ``l2``) is a K-class default candidate, cross-validated by one
#: Newton step from its fit on all the rows (:func:`one_step_refits`). On
#: the arena panel's tuning half it took the default's mean rank from 3.95
#: to 3.33 and its geometric mean from 0.9791 to 0.9739 of the sk3 oracle
#: (most of it on 16 classes of 7,637 samples). From 200 or 500 samples it
#: ranked 3.38 and 3.20 at the same log loss within 0.05 %, but from 200 the
#: default's median fit was 3.39 times temperature scaling's (2.83 from
#: 1,000, 3.09 without it, in runs one after the other): the threshold is
#: the cost's, where the folds are two.
MATRIX_MIN_SAMPLES = 1000


#: Most classes for which the K-class defaults hold a candidate with a full
#: K x K matrix. Its Newton steps cost ``O(n K^4)`` time and ``O(K^4)``
#: memory. At 5,000 samples, SMS alone fit in 0.13 s with 16 classes,
#: 0.93 s with 32 and 15 s with 60; with 1,000 classes its Hessian alone
#: would need 8 TB. With more classes, structured vector scaling (SVS,
#: ``2 K`` parameters, O(n K^2)) takes SMS's place.
MAX_MATRIX_CLASSES = 32

#: Most classes for which matrix scaling is a default candidate (from
#: ``MATRIX_MIN_SAMPLES``): 16, the most of any task it was measured on.
MATRIX_CANDIDATE_CLASSES = 16


#: Least calibration weight at which the binary SMS is a default candidate
#: (and the anchor of the stack, :data:`ANCHOR_Z`). On the small panel's
#: 142 breast-cancer samples it took the default's log loss down by 1 to
#: 5 % in each of the five cells, and the arena's tuning half starts at 142
#: samples; on 37 samples (the held-out iris versicolor cells) SMS alone
#: cost up to 1.10x the previous default. Any value from 38 to 142 gives the
#: same results on both panels; sizes between are not measured.
BINARY_SMS_MIN_SAMPLES = 100


#: The standard errors by which the default binary candidates' stack must
#: beat SMS: the stack is used only where its out-of-fold log loss is below
#: SMS's by ``ANCHOR_Z`` standard errors of the paired per-sample
#: differences; else SMS alone. Stacking weights fitted to out-of-fold
#: losses follow their noise too: on the arena panel's tuning half the
#: binary stack was within 0.5 % of SMS in most cells, worse as often as
#: better, and SMS alone ranked above it (7.47 against 8.85 among 29
#: methods). With the rule the default ranked first there, 7.42 (SMS 7.65),
#: at 0.9954 of the sk3 oracle (the stack 0.9960); with 3 standard errors it
#: ranked 7.03 at 0.9960, with 1, 8.63. With K > 2 classes the stack ranked
#: first without the rule (3.95; SMS 4.96) at a lower log loss than with it
#: (0.9791 against 0.9802 of the sk3 oracle, 3.62), and is kept.
ANCHOR_Z = 2.0


def _default_binary_candidates(n_samples):
    """Simplest first (the earlier one wins a tie)."""
    return [
        ("temperature", _TwoClassTemperature(l2=_temperature_l2(n_samples))),
        ("sigmoid", PlattCalibrator()),
        ("sigmoid-p", _ProbabilitySigmoid()),
        ("venn-abers", VennAbersCalibrator()),
        ("quadratic", QuadraticCalibrator()),
    ] + ([("sms", _BinarySMS())] if n_samples >= BINARY_SMS_MIN_SAMPLES else [])


def _default_multiclass_candidates(n_samples, n_classes):
    """Simplest first (the earlier one wins a tie)."""
    if n_samples < SMS_MIN_SAMPLES:
        third = ("ovr-sigmoid-p", _ProbabilitySigmoid())
    elif n_classes > MAX_MATRIX_CLASSES:
        third = ("svs", MulticlassAffineCalibrator(kind="svs"))
    else:
        third = ("sms", MulticlassAffineCalibrator(kind="sms"))
    candidates = [
        ("temperature", _SeparationTemperature()),
        ("ovr-sigmoid", PlattCalibrator()),
        third,
        ("ovr-pav", PAVLLRCalibrator()),
    ]
    if n_samples >= MATRIX_MIN_SAMPLES and n_classes <= MATRIX_CANDIDATE_CLASSES:
        candidates.append(("matrix", MulticlassAffineCalibrator(kind="matrix")))
    return candidates


def _llr_view(cal):
    """``decision_function``: a binary fit on one column."""
    check_is_fitted(cal)
    if cal._multiclass:
        raise SingleColumnError(
            f"decision_function gives the LLRs of a binary problem; this "
            f"{type(cal).__name__} was fitted on {len(cal.classes_)} classes: "
            "use predict_proba or transform."
        )
    return single_column(cal)


def _proba_view(cal):
    """``predict_proba`` and ``predict``: K classes, or one binary column."""
    check_is_fitted(cal)
    return True if cal._multiclass else single_column(cal)


class _available:
    """Method descriptor: ``check(obj)`` raises (an ``AttributeError``, so
    ``hasattr`` answers ``False``) where the method does not apply."""

    def __init__(self, check):
        self.check = check

    def __call__(self, fn):
        self.fn = fn
        update_wrapper(self, fn)
        return self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        self.check(obj)
        return MethodType(self.fn, obj)


_DOCS = doc_blocks(
    columns_parameters="""
        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
            Scores, as at ``fit``.
        """
)


@fill_doc(SCORES_DOCS, _DOCS)
class AutoCalibrator(BaseCalibrator):
    """A few calibrators stacked (or one selected) by cross-validated log loss.

    Each candidate is fitted on ``n_folds`` folds of the calibration
    scores (5, or 2 from 200 samples, 1,000 with K > 2 classes; fixed
    folds: the result is
    deterministic) and its posteriors on
    the held-out folds are scored by the log loss. By default
    (``combine='stack'``) the candidates' posteriors are then mixed with the
    weights of least out-of-fold log loss (stacking, Wolpert, 1992;
    Breiman, 1996: a convex combination, the exact maximizer of the
    concave mixture likelihood by an active-set Newton method on the
    simplex); ``combine='select'`` keeps the one candidate of
    lowest out-of-fold log loss instead. With two classes the default
    candidates include structured matrix scaling (SMS, Berta et al., 2025)
    from 100 calibration samples, and their stack is kept only where its
    out-of-fold log loss is below SMS's by two standard errors of the
    paired per-sample differences; elsewhere SMS alone is used (stacking
    weights fitted to out-of-fold losses also fit their noise: on the arena
    panel the binary stack was worse than SMS as often as better). The
    candidates of non-zero weight are refitted on all the scores. They fit
    in milliseconds, so the whole costs about ``n_folds + 1`` fits of
    each; K-class temperature scaling, SMS from 200 samples and matrix
    scaling from 1,000 are fitted once on all the scores and
    cross-validated by one Newton step per fold from that fit (approximate
    leave-fold-out refits, Beirami et al., 2017; Rad and Maleki, 2020),
    which costs one more pass over them.

    Binary ``y`` (scores of shape ``(n_samples,)``, or several columns each
    calibrated on its own as by every skcalib calibrator): by default
    temperature scaling (posterior log-odds ``s / T``, one parameter),
    Platt's sigmoid (:class:`PlattCalibrator`) of ``s`` and of the
    probability ``sigmoid(s)`` (scikit-learn's ``method='sigmoid'`` on a
    ``predict_proba`` classifier), inductive Venn-Abers calibration
    (:class:`VennAbersCalibrator`, the merged probability of two PAV fits)
    and quadratic scaling (:class:`QuadraticCalibrator`, a leader of the
    CalArena benchmark), and from 100 samples SMS of the two
    log-probabilities ``(log sigmoid(-s), log sigmoid(s))`` (Beta
    calibration of the ts-mix probability, ridge-penalized towards the
    identity). ``transform`` and
    ``decision_function`` give the LLRs of the mixed posteriors (at the
    calibration prior, mixed on the log scale: nothing overflows).

    A small share of the uninformative system (posteriors equal to the
    calibration data's class proportions), ``0.05 / n`` for ``n``
    calibration samples, is mixed in: a few dozen out-of-fold samples
    without one error cannot tell a certain candidate from a merely
    confident one, and the share keeps every posterior probability above
    ``0.05 prior_k / n``, so that one confident mistake costs at most
    ``log(n / (0.05 prior_k))`` nats (on iris with gradient boosting it
    removed losses of 12-16 nats per mistake). The binary LLRs are thereby
    bounded, by about ``log(n / 0.05)`` in magnitude: more than ``n``
    samples cannot support.

    Temperature scaling is kept from sharpening without limit on a few
    dozen samples without a single error. With two classes it is penalized
    as by a prior whose weight does not grow with the data: ``l2 =
    TEMPERATURE_PRIOR / n`` (0.04 / n) on the mean log loss of ``n``
    calibration samples (their total weight), as ``l2`` times the mean of
    ``(s / 2T)**2`` (in any units of the scores). With K > 2 classes it is
    scikit-learn's unpenalized fit wherever that exists (some sample is
    outscored on its own class), and where it does not, the fit to targets
    smoothed as by Platt's rule of succession: ``1 - e`` on each sample's
    class, ``e = 0.25 / (n + 2)`` shared by the others (a penalty pulls
    every fit, and cost up to 1.5x in log loss on a random forest's
    probabilities of 44 wine samples). Candidates with more parameters (beta
    calibration, vector scaling, one-vs-rest beta) are not among the
    defaults: on calibration sets of a few dozen samples the selection
    cannot see their over-fitting and they lost up to 3.5x in log loss
    (user guide, *Which calibrator?*); give them in ``candidates`` to
    consider them.

    ``y`` with K > 2 classes (scores of shape ``(n_samples, K)``, column
    ``k`` for ``classes_[k]``: decision-function columns or
    log-probabilities): by default temperature scaling and structured
    matrix scaling (:class:`MulticlassAffineCalibrator`, ``kind='sms'``,
    the leader of the CalArena benchmark), and one-vs-rest sigmoid and PAV
    (probabilities normalized to sum to 1); below ``SMS_MIN_SAMPLES`` (200)
    calibration samples the one-vs-rest sigmoid of the probability in
    place of SMS; from ``MATRIX_MIN_SAMPLES`` (1,000) matrix scaling of the
    log-scores too (``kind='matrix'``), with up to 16 classes. With more
    than ``MAX_MATRIX_CLASSES`` (32) classes, whose full K x K matrices
    cost ``O(n K^4)`` per Newton step, structured vector scaling
    (``kind='svs'``) takes the place of SMS. A binary candidate is fitted
    one-vs-rest on the log-odds of each class against the rest when the
    columns are log-probabilities (each row's ``logsumexp`` is 0: what
    :class:`CalibratedClassifier` passes for a ``predict_proba``
    classifier), on the columns as they are otherwise. ``predict_proba``
    gives the mixed (or chosen) probabilities and ``transform`` their
    logarithms.

    Parameters
    ----------
    candidates : list of (str, calibrator) tuples, default=None
        The named calibrators to choose from, each cloned, simplest first
        (a tie goes to the earlier one). Binary
        calibrators serve both problems (one-vs-rest with K > 2 classes);
        natively multiclass ones (classifier tag ``multi_class=True``, e.g.
        :class:`MulticlassAffineCalibrator`) only K > 2 classes. ``None``
        means the defaults above.
    n_folds : int or 'auto', default='auto'
        Number of folds of the selection. ``'auto'``: 5 below 200
        calibration samples (their total weight; 1,000 with K > 2
        classes), 2 from there on (on the
        arena panel's tuning half, 2 folds gave the same
        log loss as 5 within 0.5 % in every size range, at less than half
        the cost). The folds are stratified: each holds about
        ``1 / n_folds`` of each class's weight (the distinct score rows of
        each class in a fixed pseudo-random order, dealt round-robin: from
        200 samples row by row, so that tied scores are in every fold;
        below, each score row whole, the same folds for integer weights as
        for repeated rows). Lowered to the number of rows (distinct score
        rows below 200 samples) of the rarest class when that is smaller.
        With fewer than 2 distinct scores in a class there is nothing to
        cross-validate, and the fallback is used: Platt's sigmoid for the
        defaults (one-vs-rest with K classes; it gives the class
        proportions on uninformative scores), the first candidate for given
        ones; so too when every candidate fails on the folds. Above 65,536
        distinct scores the folds hold a stratified subsample of about that
        many (the weights need no more); the candidates used are refitted
        on all.
    combine : {'stack', 'select'}, default='stack'
        ``'stack'``: mix the candidates' posteriors with the weights that
        minimize the out-of-fold log loss (weights below 0.001 are dropped).
        ``'select'``: the single candidate of lowest out-of-fold log loss
        (the earlier one on a tie).
    uninformative_weight : 'auto' or float in [0, 1), default='auto'
        Share ``e`` of the uninformative system in the result: the
        posteriors are ``(1 - e)`` times the stacked (or selected)
        candidates' plus ``e`` times the calibration data's class
        proportions (binary: the LLR 0). ``'auto'``: ``0.05 / n`` for ``n``
        calibration samples (their total weight). Out-of-fold losses on a
        few dozen samples cannot see error rates below about ``1 / n``; this
        share bounds the log loss of a confident mistake by ``log(n / (0.05
        prior_k))`` nats, at a cost of at most ``0.05 / n`` nats per sample.
        ``0`` gives the candidates' posteriors unchanged.
    prior : float in (0, 1), default=None
        Binary problems: target prior of ``predict_proba`` and ``predict``
        (``None``: the calibration data's target proportion). It does not
        change the LLRs nor the selection.

    Attributes
    ----------
    calibrators_ : list of fitted calibrators
        The calibration refitted on all the scores: one per column for
        binary ``y``, a single one with K > 2 classes. Each is a
        :class:`CalibratorMixture` of the candidates of non-zero weight and
        the uninformative system (a binary candidate with K > 2 classes is
        a :class:`OneVsRestCalibration`), or the one candidate of non-zero
        weight when ``uninformative_weight_`` is 0.
    weights_ : ndarray of shape (n_calibrations, n_candidates)
        Mixture weight of each candidate (rows sum to 1; one-hot with
        ``combine='select'``), columns in the order of ``candidate_names_``.
    uninformative_weight_ : float
        Share of the uninformative system actually used (``0.05 / n`` for
        ``uninformative_weight='auto'``).
    selected_ : list of str
        Name of the candidate of largest weight, aligned with
        ``calibrators_``.
    cv_log_loss_ : ndarray of shape (n_calibrations, n_candidates)
        Mean out-of-fold log loss of each candidate (``inf`` for one that
        failed to fit), columns in the order of ``candidate_names_``.
    candidate_names_ : list of str
        Names of the candidates considered.
    classes_ : ndarray of shape (n_classes,)
        The labels; for binary ``y`` ``classes_[1]`` is the target.
    n_features_in_ : int
        Number of score columns seen in ``fit``.
    calibration_prior_ : float
        Binary ``y``: weighted target proportion of the calibration data.
    prior_ : float
        Binary ``y``: ``prior`` if given, else ``calibration_prior_``.

    See Also
    --------
    CalibratedClassifier : Uses an ``AutoCalibrator()`` by default.
    sklearn.calibration.CalibratedClassifierCV : One fixed method (sigmoid,
        isotonic or temperature).

    Notes
    -----
    The weights and the choice use the plain (unweighted by class) log
    loss, the metric that ``predict_proba`` is judged by; candidates keep
    their own objectives. A mixture of calibrated posteriors has a log loss
    no larger than the same mixture of the candidates' log losses
    (convexity), and the stacking weights are fitted on out-of-fold
    posteriors only, so a flexible candidate (PAV) gets weight where it
    generalizes, not where it fits its own training folds. Warnings raised
    while fitting a candidate on the folds are not shown (a fold is a
    small data set; a candidate that does not fit there scores ``inf``);
    those of the final fit are. The user guide's
    *Which calibrator?* page gives the evidence behind the defaults: on a
    panel of real data sets and classifiers no single method is within 5 %
    of the best of scikit-learn's three in every case; stacking comes
    closest and is better than selection on the geometric mean.

    References
    ----------
    .. [1] D. H. Wolpert, "Stacked generalization", Neural Networks 5(2),
       241-259, 1992.
    .. [2] L. Breiman, "Stacked regressions", Machine Learning 24, 49-64,
       1996.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import logit
    >>> from skcalib import AutoCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(500), np.zeros(500)]
    >>> p = np.where(y == 1, rng.beta(4, 1, 1000), rng.beta(1, 2, 1000))
    >>> cal = AutoCalibrator().fit(logit(p), y)  # Beta-distributed scores
    >>> cal.candidate_names_
    ['temperature', 'sigmoid', 'sigmoid-p', 'venn-abers', 'quadratic', 'sms']
    >>> cal.cv_log_loss_.round(3).tolist()
    [[0.306, 0.281, 0.282, 0.287, 0.28, 0.28]]
    >>> cal  # no stack beats SMS by two standard errors here: SMS alone
    AutoCalibrator()  # sms
    >>> cal.weights_.tolist()
    [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]

    One candidate only, the best by cross-validation, here among your own:

    >>> from skcalib import BetaCalibrator, PlattCalibrator
    >>> mine = [("sigmoid", PlattCalibrator()), ("beta", BetaCalibrator())]
    >>> AutoCalibrator(candidates=mine, combine="select").fit(logit(p), y)
    AutoCalibrator(candidates=[('sigmoid', PlattCalibrator()),
                               ('beta', BetaCalibrator())],
                   combine='select')  # beta

    Ten classes, few samples, an overconfident classifier's log-probabilities:

    >>> from scipy.special import log_softmax
    >>> y10 = rng.integers(0, 10, 300)
    >>> logits = 4 * (np.eye(10)[y10] + rng.normal(size=(300, 10)))
    >>> cal10 = AutoCalibrator().fit(log_softmax(logits, axis=1), y10)
    >>> cal10.selected_  # structured matrix scaling
    ['sms']
    >>> cal10.predict_proba(log_softmax(logits[:2], axis=1)).sum(axis=1).round(6)
    array([1., 1.])
    """

    _output = "llr"
    _multiclass_native = True

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "candidates": [list, None],
        "n_folds": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})],
        "combine": [StrOptions({"stack", "select"})],
        "uninformative_weight": [
            StrOptions({"auto"}),
            Interval(Real, 0, 1, closed="left"),
        ],
    }

    def __init__(
        self,
        *,
        candidates=None,
        n_folds="auto",
        combine="stack",
        uninformative_weight="auto",
        prior=None,
    ):
        self._store(locals())

    # ------------------------------------------------------------------ fit
    def _candidates(self, multiclass, n_samples, n_classes=2):
        if self.candidates is None:
            return (
                _default_multiclass_candidates(n_samples, n_classes)
                if multiclass
                else _default_binary_candidates(n_samples)
            )
        out = []
        for item in self.candidates:
            if (
                not isinstance(item, tuple)
                or len(item) != 2
                or not isinstance(item[0], str)
                or not hasattr(item[1], "fit")
            ):
                raise ValueError(
                    "`candidates` must be a list of (name, calibrator) tuples; "
                    f"got {item!r}."
                )
            if multiclass or not takes_all_classes(item[1]):
                out.append(item)
        if not out:
            kind = "a K-class" if multiclass else "a binary"
            raise ValueError(
                f"`candidates` holds no calibrator for {kind} problem; got "
                f"{[name for name, _ in self.candidates]}."
            )
        names = [name for name, _ in out]
        if len(set(names)) != len(names):
            raise ValueError(f"`candidates` names must be unique; got {names}.")
        return out

    def _folds(self, X, y_index, n_classes, sample_weight):
        """The selection's ``(train, test)`` splits, or None if there are none.

        Stratified: the distinct ``(class, score row)`` pairs of positive
        weight of each class are put in a fixed pseudo-random order
        (``RandomState(0)``: deterministic), each pair's rows after one
        another, and the rows are dealt round-robin into the folds, heaviest
        first (a stable sort: the pseudo-random order for equal weights), so
        that each fold's weight of each class is within the largest weight
        of a row of ``1 / n_folds`` of the class's. The rows of a tied score
        (a k-nearest-neighbours or tree classifier's few distinct
        probabilities) are so spread over the folds, as in any stratified
        k-fold: dealt whole, a pair would leave each training fold without
        the test fold's scores of its class, and every candidate with an
        intercept or a shape would be judged on class proportions it was
        not given. The order within a class is not the score order: folds
        dealt in score order within each class would give every test fold
        the local class proportions of its training folds, which flatters
        flexible candidates (PAV). Below :data:`LARGE_CV_SAMPLES`
        calibration samples (their total weight) each pair is dealt whole
        instead, as one item of its summed weight (the same folds for
        integer weights as for repeated rows): on a few dozen samples no
        fold can show the rare confident mistake at a tied extreme score,
        and a pair missing from its training folds keeps the candidates that
        are certain there from looking perfect (on the 37 samples of the
        small panel's iris versicolor, a random forest's ties dealt row by
        row took the default from 0.97 to 1.2 of the best of scikit-learn's
        three). The number of folds is lowered to the number of rows (pairs,
        below ``LARGE_CV_SAMPLES``) of the rarest class; below 2, or where a
        class has one distinct score row, there are no folds.
        Above :data:`MAX_CV_PAIRS` distinct pairs, only the rows of the
        first ``1 / G`` of each class's pairs (at least one pair per fold)
        are dealt, ``G = ceil(pairs / MAX_CV_PAIRS)``: a stratified
        subsample for the weights, which need no more. Rows of zero weight
        are only ever trained on; rows left out of the subsample are not
        used.
        """
        n = y_index.shape[0]
        positive = None if sample_weight is None else sample_weight > 0
        classes = []  # per class: its rows by score row, and their pair ids
        for c in range(n_classes):
            mask = y_index == c
            if positive is not None:
                mask &= positive
            rows = np.flatnonzero(mask)
            if rows.shape[0] == 0:
                return None
            Xc = X[rows]
            if X.shape[1] == 1:
                order = np.argsort(Xc[:, 0], kind="stable")
                Xc = Xc[order, 0]
                new_pair = Xc[1:] != Xc[:-1]
            else:
                order = np.lexsort(Xc.T[::-1])
                Xc = Xc[order]
                new_pair = (Xc[1:] != Xc[:-1]).any(axis=1)
            rows = rows[order]
            pair = np.empty(rows.shape[0], dtype=np.intp)
            pair[0] = 0
            np.cumsum(new_pair, out=pair[1:])
            classes.append((rows, pair))
        n_samples = _total_weight(y_index, sample_weight)
        whole = n_samples < LARGE_CV_SAMPLES  # ties dealt whole
        n_splits = min(
            self._n_folds(n_samples, n_classes > 2),
            min(
                int(pair[-1]) + 1 if whole else rows.shape[0] for rows, pair in classes
            ),
        )
        if n_splits < 2 or min(int(pair[-1]) for _, pair in classes) == 0:
            return None  # fewer than 2 rows, or one score, in a class
        groups = -(-sum(int(pair[-1]) + 1 for _, pair in classes) // MAX_CV_PAIRS)
        rng = np.random.RandomState(0)
        fold = np.full(n, -1)  # zero weight: in every training set
        offset = 0
        for rows, pair in classes:
            m = int(pair[-1]) + 1
            members = rng.permutation(m)[: max(n_splits, -(-m // groups))]
            if whole:
                # each pair whole, heaviest first (the pairs' weights)
                w = None if sample_weight is None else sample_weight[rows]
                weights = np.bincount(pair, weights=w)
                members = members[np.argsort(-weights[members], kind="stable")]
                fold_of_pair = np.full(m, -2)  # -2: left out of the subsample
                fold_of_pair[members] = (
                    np.arange(members.shape[0]) + offset
                ) % n_splits
                fold[rows] = fold_of_pair[pair]
                offset += members.shape[0]
                continue
            # the members' rows, pair after pair in the members' order
            rank = np.full(m, m)
            rank[members] = np.arange(members.shape[0])
            dealt = np.argsort(rank[pair], kind="stable")
            dealt = dealt[: np.count_nonzero(rank[pair] < m)]
            if sample_weight is not None:
                # round-robin, heaviest first: each fold's weight of the class
                # is within the largest weight of 1 / n_splits of the whole
                dealt = dealt[np.argsort(-sample_weight[rows[dealt]], kind="stable")]
            fold[rows] = -2  # -2: left out of the subsample
            fold[rows[dealt]] = (np.arange(dealt.shape[0]) + offset) % n_splits
            offset += dealt.shape[0]
        used = np.flatnonzero(fold != -2) if groups > 1 else np.arange(n)
        fold = fold[used]
        return [(used[fold != k], used[fold == k]) for k in range(n_splits)]

    def _n_folds(self, n_samples, multiclass=False):
        """The number of folds asked for (``'auto'``: by the calibration
        weight)."""
        if self.n_folds != "auto":
            return int(self.n_folds)
        large = MULTICLASS_LARGE_CV_SAMPLES if multiclass else LARGE_CV_SAMPLES
        return SMALL_N_FOLDS if n_samples < large else LARGE_N_FOLDS

    def _select(self, fit_score, candidates, folds, sample_weight, cross_fit=None):
        """Out-of-fold log loss of each candidate, and their weights.

        ``fit_score(cal, train, test)`` returns the per-sample log loss of
        the test rows. ``cross_fit(cal, folds)``, where given, returns the
        candidate fitted on all the rows (or None) and the out-of-fold
        losses of each fold (of approximate refits, :func:`one_step_refits`,
        or of fits of all the classes at once, :func:`_platt_fold_losses`),
        or None where it does not apply; the fits on all the rows are kept
        in ``self._full_fits`` (by candidate index) for the refit. A
        candidate's loss is the weighted mean over all the rows.
        ``combine='select'``: weight 1 on the lowest (the earlier one on a
        tie); ``'stack'``: :func:`stacking_weights` of the out-of-fold
        probabilities of the true classes. Without folds, or if every
        candidate failed: weight 1 on the fallback candidate.
        """
        losses = np.full(len(candidates), np.inf)
        weights = np.zeros(len(candidates))
        if folds is None:
            weights[self._fallback()] = 1.0
            return losses, weights
        tested = np.concatenate([test for _, test in folds])
        oof = np.full((len(candidates), tested.shape[0]), np.inf)
        position = np.empty(tested.max() + 1, dtype=np.intp)
        position[tested] = np.arange(tested.shape[0])
        self._full_fits = {}
        for c, (_, cal) in enumerate(candidates):
            try:
                with warnings.catch_warnings():
                    # a fold is a small data set: its fits' warnings are noise
                    warnings.simplefilter("ignore")
                    crossed = None if cross_fit is None else cross_fit(cal, folds)
                    if crossed is not None:
                        full, losses_of_folds = crossed
                        if full is not None:
                            self._full_fits[c] = full
                        for (_, test), loss in zip(folds, losses_of_folds, strict=True):
                            oof[c, position[test]] = loss
                        continue
                    if _fits_quickly(cal):  # checked once, not at every fold
                        cal = copy.copy(cal)  # clone inspects signatures
                        cal._validate_params()
                    for train, test in folds:
                        oof[c, position[test]] = fit_score(cal, train, test)
            except (ValueError, FloatingPointError, np.linalg.LinAlgError):
                oof[c] = np.inf
        w = np.ones(tested.shape[0]) if sample_weight is None else sample_weight[tested]
        with np.errstate(invalid="ignore"):
            losses = (oof @ w) / w.sum()
        failed = ~np.isfinite(losses)
        if failed.all():
            weights[self._fallback()] = 1.0
            return losses, weights
        if self.combine == "select":
            weights[int(np.argmin(losses))] = 1.0
            return losses, weights
        proba_true = np.exp(-oof)
        proba_true[failed] = np.nan  # weight 0
        weights = stacking_weights(proba_true, w)
        anchor = self._anchor(candidates)
        if anchor is not None and not failed[anchor] and weights[anchor] < 1:
            mixture = weights @ np.nan_to_num(proba_true)
            gain = oof[anchor] + np.log(np.maximum(mixture, _TINY))
            if not significantly_positive(gain, w, ANCHOR_Z):
                weights = np.zeros(len(candidates))
                weights[anchor] = 1.0
        return losses, weights

    def _anchor(self, candidates):
        """Index of the default binary candidates' anchor (SMS), or None."""
        if self.candidates is not None:
            return None
        kinds = [isinstance(cal, _BinarySMS) for _, cal in candidates]
        return kinds.index(True) if any(kinds) else None

    def _fallback(self):
        """Index of the candidate used when nothing can be cross-validated.

        The defaults: Platt's sigmoid (one-vs-rest with K classes), which
        has an intercept, so that uninformative scores give the class
        proportions (temperature scaling would give 1 / K), and only two
        parameters, fitted to smoothed targets. Given candidates: the first.
        """
        return 1 if self.candidates is None else 0

    def _uninformative_share(self, n_samples):
        """The uninformative system's share of the posteriors."""
        if self.uninformative_weight == "auto":
            return UNINFORMATIVE_PRIOR / max(n_samples, 1.0)
        return float(self.uninformative_weight)

    def _combined(self, candidates, weights, fit_one, share, class_prior=None):
        """The fitted calibration (one candidate or a mixture) and its name."""
        used = np.flatnonzero(weights > 0)
        full = getattr(self, "_full_fits", {})
        fitted = [full[c] if c in full else fit_one(candidates[c][1]) for c in used]
        self.__dict__.pop("_full_fits", None)
        name = candidates[used[np.argmax(weights[used])]][0]
        if used.shape[0] == 1 and share == 0:
            return fitted[0], name
        return CalibratorMixture(fitted, weights[used], share, class_prior), name

    def _fit(self, data):
        """Binary ``y``: one selection per column."""
        # the rows of zero weight too: the folds train on them
        X, is_target, sample_weight = data.arrays(all_rows=True)
        y_index = is_target.astype(np.intp)
        n_samples = _total_weight(y_index, sample_weight)
        candidates = self._candidates(False, n_samples)
        share = self._uninformative_share(n_samples)
        self.candidate_names_ = [name for name, _ in candidates]
        chosen, names, losses, all_weights = [], [], [], []
        for j in range(X.shape[1]):
            s = X[:, j]
            folds = self._folds(X[:, j : j + 1], y_index, 2, sample_weight)

            def fit_score(cal, train, test, s=s):
                w_tr = None if sample_weight is None else sample_weight[train]
                if _fits_quickly(cal):
                    fitted = _quick_fit(cal, s[train][:, None], is_target[train], w_tr)
                    llr = _quick_llr(fitted, s[test][:, None])
                else:
                    fitted = clone(cal).fit(s[train], y_index[train], w_tr)
                    llr = fitted.decision_function(s[test])
                return _binary_log_loss(llr, is_target[test], fitted.calibration_prior_)

            def cross_fit(cal, folds, s=s):
                # SMS from ONE_STEP_MIN_SAMPLES on: the fit on all the rows,
                # kept, and one Newton step per fold from it
                if not isinstance(cal, _BinarySMS) or n_samples < ONE_STEP_MIN_SAMPLES:
                    return None
                full = clone(cal).fit(s, y_index, sample_weight)
                refits = one_step_refits(
                    full.sms_,
                    _log_probability_columns(s),
                    y_index,
                    folds,
                    sample_weight,
                    losses=True,
                )
                return None if refits is None else (full, refits[1])

            loss, weights = self._select(
                fit_score, candidates, folds, sample_weight, cross_fit
            )
            cal, name = self._combined(
                candidates,
                weights,
                lambda c, s=s: clone(c).fit(s, y_index, sample_weight),
                share,
            )
            chosen.append(cal)
            names.append(name)
            losses.append(loss)
            all_weights.append(weights)
        self.calibrators_ = chosen
        self.selected_ = names
        self.cv_log_loss_ = np.array(losses)
        self.weights_ = np.array(all_weights)
        self.uninformative_weight_ = share
        self._multiclass = False
        return self

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Choose and fit the calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
            Binary ``y``: scores, each column calibrated independently.
            K > 2 classes: ``(n_samples, K)`` log-scores, column ``k`` for
            ``classes_[k]``.
        y : array-like of shape (n_samples,)
            Labels of 2 or more classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, used by the candidates and the log loss.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        binary_fit = BaseCalibrator.fit.__wrapped__
        if any_dask_collection(X, y, sample_weight):
            return binary_fit(self, X, y, sample_weight)
        _, classes, _ = check_class_y(y, owner=type(self).__name__)
        if classes.shape[0] <= 2:
            return binary_fit(self, X, y, sample_weight)
        return self._fit_multiclass(X, y, sample_weight)

    def _fit_multiclass(self, X, y, sample_weight):
        # the class training data, as MulticlassAffineCalibrator's fit
        data = training_data(self, X, y, sample_weight, classes=True)
        X, y_index, sample_weight = data.arrays()
        classes = data.classes
        K = classes.shape[0]
        if X.shape[1] != K:
            raise ValueError(
                f"{type(self).__name__} needs one score column per class: `y` "
                f"has {K} classes but `X` has {X.shape[1]} columns. Only binary "
                "classification is supported on other score layouts."
            )
        n_samples = _total_weight(y_index, sample_weight)
        candidates = self._candidates(True, n_samples, K)
        share = self._uninformative_share(n_samples)
        class_totals = data.totals
        self._log_proba_input = _is_log_proba(X)
        ovr = self._ovr_scores(X)
        folds = self._folds(X, y_index, K, sample_weight)

        def fit_one(cal, rows, ts_start=None):
            w = None if sample_weight is None else sample_weight[rows]
            if isinstance(cal, MulticlassAffineCalibrator):
                start = {} if ts_start is None else {"ts_start": ts_start}
                return clone(cal)._fit_validated(X[rows], y_index[rows], w, K, **start)
            if takes_all_classes(cal):
                return clone(cal).fit(X[rows], y_index[rows], w)
            return OneVsRestCalibration.fit(cal, ovr[rows], y_index[rows], K, w)

        def fit_score(cal, train, test):
            if not takes_all_classes(cal) and _fits_quickly(cal):
                w = None if sample_weight is None else sample_weight[train]
                fitted = _quick_one_vs_rest(cal, ovr[train], y_index[train], K, w)
            else:
                fitted = fit_one(cal, train)
            proba = self._proba(fitted, X[test], ovr[test])
            return _multiclass_log_loss(proba, y_index[test])

        beaten = None  # rows outscored on their own class
        platt_start = {}  # the default Platt's last fold fit, by candidate
        pav_orders = {}  # the default PAV's sorted columns, by candidate

        def cross_fit(cal, folds):
            # one Newton step per fold from the fit on all the rows, for the
            # affine candidates on large calibration sets
            nonlocal beaten
            if _is_default_platt(cal):
                # the K classes of a fold in one Newton iteration
                crossed = _platt_fold_losses(ovr, y_index, K, folds, sample_weight)
                if crossed is None:
                    return None
                platt_start[id(cal)] = crossed[1]
                return None, crossed[0]
            if sample_weight is None and _is_default_pav_llr(cal):
                # each class's scores sorted once for all the folds
                orders = pav_orders[id(cal)] = []
                return None, _pav_fold_losses(cal, ovr, y_index, K, folds, orders)
            if not isinstance(cal, MulticlassAffineCalibrator):
                return None
            if isinstance(cal, _SeparationTemperature):
                # unpenalized on every fold's training rows only if some row
                # there is outscored on its own class (else smoothed targets)
                if beaten is None:
                    own = X[np.arange(X.shape[0]), y_index]
                    beaten = (X > own[:, None]).any(axis=1)
                    if sample_weight is not None:
                        beaten &= sample_weight > 0
                if not all(beaten[train].any() for train, _ in folds):
                    return None
            elif n_samples < ONE_STEP_MIN_SAMPLES:
                return None
            # the ts-mix step of SMS started from the temperature candidate's
            # fit on all the rows, where there is one
            ts_start = next(
                (
                    f.coef_[0, 0]
                    for f in self._full_fits.values()
                    if isinstance(f, _SeparationTemperature)
                ),
                None,
            )
            full = fit_one(cal, slice(None), ts_start)
            refits = one_step_refits(
                full, X, y_index, folds, sample_weight, losses=True
            )
            return None if refits is None else (full, refits[1])

        self.candidate_names_ = [name for name, _ in candidates]
        loss, weights = self._select(
            fit_score, candidates, folds, sample_weight, cross_fit
        )

        def refit(cal):
            # on all the rows; a skcalib binary candidate one-vs-rest on the
            # scores validated once (as in the folds), not once per class
            if takes_all_classes(cal) or not _fits_quickly(cal):
                return fit_one(cal, slice(None))
            template = copy.copy(cal)
            template._validate_params()
            if id(cal) in platt_start:
                # the K classes at once, from the last fold's fit
                fitted = _platt_one_vs_rest(
                    template, ovr, y_index, K, sample_weight, platt_start[id(cal)]
                )
                if fitted is not None:
                    return fitted
            if len(pav_orders.get(id(cal), ())) == K:  # every class's folds ran
                return _pav_one_vs_rest(template, ovr, y_index, K, pav_orders[id(cal)])
            return OneVsRestCalibration(
                _quick_fit(template, ovr[:, k : k + 1], y_index == k, sample_weight)
                for k in range(K)
            )

        cal, name = self._combined(
            candidates,
            weights,
            refit,
            share,
            class_totals / class_totals.sum(),
        )
        self.calibrators_ = [cal]
        self.selected_ = [name]
        self.cv_log_loss_ = loss[None, :]
        self.weights_ = weights[None, :]
        self.uninformative_weight_ = share
        self.classes_ = classes
        self._multiclass = True
        for attr in ("calibration_prior_", "prior_"):
            self.__dict__.pop(attr, None)
        return self

    def _ovr_scores(self, X):
        """What a binary candidate of class ``k`` against the rest sees."""
        return one_vs_rest_log_odds(X) if self._log_proba_input else X

    @staticmethod
    def _proba(fitted, X, ovr):
        if isinstance(fitted, CalibratorMixture):
            return fitted.predict_proba(lambda cal: AutoCalibrator._proba(cal, X, ovr))
        if isinstance(fitted, OneVsRestCalibration):
            return fitted.predict_proba(ovr)
        return fitted.predict_proba(X)

    # --------------------------------------------------------------- outputs
    def _transform(self, X):
        return np.column_stack(
            [cal.decision_function(X[:, j]) for j, cal in enumerate(self.calibrators_)]
        )

    def _multiclass_proba(self, X):
        check_is_fitted(self)
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=True
        )
        return self._proba(self.calibrators_[0], X, self._ovr_scores(X))

    def transform(self, X):
        """Calibrated LLRs (binary) or log-probabilities (K > 2 classes).

        {columns_parameters}

        Returns
        -------
        X_calibrated : ndarray
            Binary: the chosen calibrators' LLRs, the shape of ``X``.
            K > 2 classes: ``log predict_proba``, shape ``(n_samples, K)``.
        """
        if getattr(self, "_multiclass", False):
            with np.errstate(divide="ignore"):
                return np.log(self._multiclass_proba(X))
        return super().transform(X)

    @_available(_llr_view)
    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (natural log), binary ``y`` only.

        {scores_parameters}

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            The chosen calibrator's LLRs.
        """
        return BaseCalibrator.decision_function(self, X)

    @_available(_proba_view)
    def predict_proba(self, X):
        """Calibrated posterior probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_columns)
            Scores, as at ``fit`` (one column for binary ``y``).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; binary: at ``prior_``.
        """
        if self._multiclass:
            return self._multiclass_proba(X)
        return BaseCalibrator.predict_proba(self, X)

    @_available(_proba_view)
    def predict(self, X):
        """Bayes decisions at ``prior_`` (binary) or the most probable class.

        {columns_parameters}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        if self._multiclass:
            return self.classes_[np.argmax(self._multiclass_proba(X), axis=1)]
        return BaseCalibrator.predict(self, X)

    # ---------------------------------------------------------------- display
    def _choice_text(self):
        """``'sigmoid'``, or ``'sigmoid 0.71 + pav 0.29'`` for a mixture."""
        weights = getattr(self, "weights_", None)
        if weights is None:
            return None
        parts = []
        for row in weights:
            used = np.flatnonzero(row > 0)
            used = used[np.argsort(-row[used], kind="stable")]
            if used.shape[0] == 1:
                parts.append(self.candidate_names_[used[0]])
            else:
                parts.append(
                    " + ".join(f"{self.candidate_names_[c]} {row[c]:.2f}" for c in used)
                )
        return ", ".join(parts)

    def __repr__(self, N_CHAR_MAX=700):
        text = super().__repr__(N_CHAR_MAX)
        choice = self._choice_text()
        if choice is None:
            return text
        return f"{text}  # {choice}"

    def _sk_visual_block_(self):
        """The HTML display: the choice as a caption under the name."""
        choice = self._choice_text()
        return _VisualBlock(
            "single",
            self,
            names=type(self).__name__,
            name_details=repr(self),
            name_caption=choice,
        )
