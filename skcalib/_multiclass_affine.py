"""Multiclass affine calibration: temperature, vector and matrix scaling.

The objective (:class:`MulticlassObjective`) is the prior-weighted multiclass
log loss of ``softmax(W s + b)``; the solver is the package's one Newton
solver, which knows neither this objective nor where the data live.

Parametrization
---------------
``softmax`` is unchanged when the same vector is added to every row of
``[W, b]``, so the free parameters fix the last class's row to zero (for
``'vector'`` only the intercept needs it: a diagonal ``W`` has no such
freedom). The Hessian is then positive definite on non-separable data and
Newton's method needs no pseudo-inverse. The fitted ``coef_`` and
``intercept_`` are reported in the centred gauge (columns summing to zero
over the classes for ``'matrix'``; ``intercept_`` summing to zero), which is
also the gauge in which the L2 penalty is measured: the penalty of the
``'matrix'`` kind, ``l2 |W - mean_k W_k|^2``, is the least ``l2 |W|^2`` over
equivalent parameters.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dsyrk
from scipy.special import log_softmax, softmax
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from ._affine import ProperScoringAffineCalibrator, _warn_convergence
from ._base import set_dask_features
from ._dask import any_dask_collection, is_dask_collection
from ._solver import DEFAULT_L2, MAX_LLR_RANGE, minimize
from ._special import scaled_affine
from ._training import ArrayClassTrainingData
from .utils._sklearn_compat import (
    ClassifierTags,
    StrOptions,
    _fit_context,
    validate_data,
)

__all__ = ["MulticlassAffineCalibrator"]

KINDS = ("temperature", "vector", "matrix")


def n_multiclass_params(kind, n_features, n_classes):
    """Number of free parameters of ``kind`` (see the module docstring)."""
    if kind == "temperature":
        return 1
    if kind == "vector":
        return 2 * n_classes - 1
    return (n_classes - 1) * (n_features + 1)


def unpack(kind, theta, n_features, n_classes):
    """``(W, b)`` of shapes ``(K, d)`` and ``(K,)`` from the free parameters."""
    K, d = n_classes, n_features
    if kind == "temperature":
        return theta[0] * np.eye(K), np.zeros(K)
    if kind == "vector":
        return np.diag(theta[:K]), np.r_[theta[K:], 0.0]
    Wb = np.zeros((K, d + 1))
    Wb[:-1] = theta.reshape(K - 1, d + 1)
    return Wb[:, :d], Wb[:, d]


def _scale_coef(kind, theta, n_features, n_classes, exponent):
    """``theta`` with the entries of ``W`` multiplied by ``2**exponent``."""
    out = np.array(theta, dtype=np.float64)
    if kind == "temperature":
        out[0] = np.ldexp(out[0], exponent)
    elif kind == "vector":
        out[:n_classes] = np.ldexp(out[:n_classes], exponent)
    else:
        Wb = out.reshape(n_classes - 1, n_features + 1)
        Wb[:, :n_features] = np.ldexp(Wb[:, :n_features], exponent)
    return out


#: Largest spread (nats) of the starting map's logits over the training
#: scores: a tenth of the spread where the fit counts as unbounded.
START_SPAN = MAX_LLR_RANGE / 10


def _shrink_coef(kind, theta, n_features, n_classes, factor):
    """``theta`` with the entries of ``W`` multiplied by ``factor``."""
    out = np.array(theta, dtype=np.float64)
    if kind == "temperature":
        out[0] *= factor
    elif kind == "vector":
        out[:n_classes] *= factor
    else:
        Wb = out.reshape(n_classes - 1, n_features + 1)
        Wb[:, :n_features] *= factor
    return out


def _max_abs(chunk):
    return float(np.abs(chunk[0]).max(initial=0.0))


class MulticlassObjective:
    """Prior-weighted multiclass log loss of ``softmax(W s + b)``.

    .. math::

        f(\\theta) = \\sum_i v_i \\left[\\log \\sum_k e^{z_{ik}} - z_{i y_i}
            \\right] + \\lambda \\lVert W \\rVert^2, \\qquad
        z_i = W s_i + b,

    with ``v_i = w_i p_{y_i} / N_{y_i}`` (``N_k`` the summed weight of class
    ``k``, ``p_k`` its prior). With ``P`` the softmax, the gradient with
    respect to ``z_i`` is ``v_i (P_i - e_{y_i})`` and the Hessian
    ``v_i (diag P_i - P_i P_i^T)``; the chain rule through the linear map
    ``theta -> z_i`` (``J_i``) gives
    ``sum_i J_i^T v_i (diag P_i - P_i P_i^T) J_i``.

    A raw chunk is ``(S, y, sample_weight)``: float64 of shape ``(n, d)``,
    the class indices (int, ``0..K-1``) of shape ``(n,)``, float64 of shape
    ``(n,)`` or None. :meth:`prepare` scales the scores by the power of two
    ``2**-exponent`` (exact), so ``theta`` holds ``W 2**exponent`` and ``b``.
    """

    chunk_size = 1 << 12

    def __init__(
        self, kind, n_features, n_classes, *, class_factors, exponent=0, l2=0.0
    ):
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}; got {kind!r}.")
        self.kind = kind
        self.n_features = int(n_features)
        self.n_classes = int(n_classes)
        self.n_params = n_multiclass_params(kind, self.n_features, self.n_classes)
        self.class_factors = np.asarray(class_factors, dtype=np.float64)
        self.exponent = int(exponent)
        self.l2 = float(l2)

    def prepare(self, chunk):
        """Scores scaled by ``2**-exponent`` (exact), weights times factors."""
        S, y, w = chunk[:3]
        v = self.class_factors[y]
        if w is not None:
            v = v * w
        return np.ldexp(S, -self.exponent), y, v

    # ------------------------------------------------------------ linear map
    def logits(self, theta, S):
        K = self.n_classes
        if self.kind == "temperature":
            return S * theta[0]
        if self.kind == "vector":
            Z = S * theta[:K]
            Z[:, :-1] += theta[K:]
            return Z
        d = self.n_features
        Wb = theta.reshape(K - 1, d + 1)
        Z = np.zeros((S.shape[0], K))
        Z[:, :-1] = S @ Wb[:, :d].T
        Z[:, :-1] += Wb[:, d]
        return Z

    def _pull(self, M, S):
        """``J_i^T M_i`` for each row: a logit-space array to parameter space."""
        K = self.n_classes
        if self.kind == "temperature":
            return np.einsum("ik,ik->i", M, S)[:, None]
        if self.kind == "vector":
            return np.hstack([M * S, M[:, :-1]])
        n, d = S.shape
        out = np.empty((n, K - 1, d + 1))
        np.multiply(M[:, :-1, None], S[:, None, :], out=out[:, :, :d])
        out[:, :, d] = M[:, :-1]
        return out.reshape(n, -1)

    def _pull_sum(self, M, S):
        """``sum_i J_i^T M_i`` (the gradient from the logit-space gradients)."""
        if self.kind == "temperature":
            return np.array([float(np.einsum("ik,ik->", M, S))])
        if self.kind == "vector":
            return np.r_[np.einsum("ik,ik->k", M, S), M[:, :-1].sum(axis=0)]
        d = self.n_features
        out = np.empty((self.n_classes - 1, d + 1))
        out[:, :d] = M[:, :-1].T @ S
        out[:, d] = M[:, :-1].sum(axis=0)
        return out.ravel()

    # ------------------------------------------------------------ objective
    def terms(self, theta, chunk, order):
        """Sums over one prepared chunk: value and, up to ``order``, derivatives."""
        S, y, v = chunk
        theta = np.asarray(theta, dtype=np.float64)
        k = self.n_params
        value = 0.0
        grad = np.zeros(k)
        diag = np.zeros((k, k))
        # upper triangle of sum_i a_i a_i^T (a_i = J_i^T sqrt(v_i) P_i)
        gram = np.zeros((k, k), order="F")
        # Blocks of rows keep every temporary in cache.
        for start in range(0, S.shape[0], self.chunk_size):
            rows = slice(start, start + self.chunk_size)
            Sb, yb, vb = S[rows], y[rows], v[rows]
            Z = self.logits(theta, Sb)
            Z -= Z.max(axis=1, keepdims=True)
            P = np.exp(Z)
            total = P.sum(axis=1)
            picked = np.take_along_axis(Z, yb[:, None], axis=1)[:, 0]
            value += float(vb @ (np.log(total) - picked))
            if order == 0:
                continue
            P /= total[:, None]
            G = P * vb[:, None]
            G[np.arange(yb.shape[0]), yb] -= vb
            grad += self._pull_sum(G, Sb)
            if order == 1:
                continue
            A = self._pull(P * np.sqrt(vb)[:, None], Sb)
            # A.T is Fortran-ordered: syrk reads it without a copy
            gram = dsyrk(1.0, A.T, beta=1.0, c=gram, overwrite_c=True)
            diag += self._diag_part(P * vb[:, None], Sb)
        if order == 0:
            return value
        if order == 1:
            return value, grad
        upper = np.triu(gram)
        return value, grad, diag - upper - np.triu(upper, 1).T

    def _diag_part(self, vP, S):
        """``sum_i J_i^T diag(v_i P_i) J_i``."""
        K = self.n_classes
        if self.kind == "temperature":
            return np.array([[np.einsum("ik,ik,ik->", vP, S, S)]])
        if self.kind == "vector":
            H = np.zeros((2 * K - 1, 2 * K - 1))
            idx = np.arange(K)
            H[idx, idx] = np.einsum("ik,ik,ik->k", vP, S, S)
            cross = np.einsum("ik,ik->k", vP, S)[:-1]
            j = np.arange(K - 1)
            H[j, K + j] = H[K + j, j] = cross
            H[K + j, K + j] = vP[:, :-1].sum(axis=0)
            return H
        n, d = S.shape
        St = np.empty((n, d + 1))
        St[:, :d] = S
        St[:, d] = 1.0
        m = d + 1
        # the K - 1 diagonal blocks St^T diag(v P_k) St side by side, one product
        blocks = St.T @ (vP[:, :-1, None] * St[:, None, :]).reshape(n, -1)
        H = np.zeros(((K - 1) * m, (K - 1) * m))
        for k in range(K - 1):
            cols = slice(k * m, (k + 1) * m)
            H[cols, cols] = blocks[:, cols]
        return H

    def penalty(self, theta, order):
        """``l2 |W|^2`` (raw units, centred gauge for ``'matrix'``)."""
        K, n_params = self.n_classes, self.n_params
        hess = np.zeros((n_params, n_params))
        lam = 2.0 * float(np.ldexp(self.l2, -2 * self.exponent))
        if self.kind == "temperature":
            hess[0, 0] = lam * K
        elif self.kind == "vector":
            idx = np.arange(K)
            hess[idx, idx] = lam
        else:
            # |C W_full|^2 with C = I - 1 1^T / K and W_full's last row 0:
            # the quadratic form 2 (I - 1 1^T / K) on the rows, per feature.
            d = self.n_features
            m = d + 1
            center = np.eye(K - 1) - 1.0 / K
            for a in range(d):
                idx = np.arange(K - 1) * m + a
                hess[np.ix_(idx, idx)] = lam * center
        grad = hess @ theta
        value = 0.5 * float(theta @ grad)
        if order == 0:
            return value
        if order == 1:
            return value, grad
        return value, grad, hess

    def span(self, theta):
        """A bound on the spread of the logits over the (scaled) scores.

        The scaled scores lie in ``[-1, 1]``, so each logit moves by at most
        twice the absolute row sum of ``W``.
        """
        W, _ = unpack(self.kind, theta, self.n_features, self.n_classes)
        return 2.0 * float(np.abs(W).sum(axis=1).max())


class MulticlassAffineCalibrator(
    ClassifierMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Multiclass calibration by an affine map of log-scores and a softmax.

    Maps the ``K`` log-scores ``s`` of a sample (a classifier's
    ``decision_function`` columns, or the logarithms of its ``predict_proba``)
    to calibrated posteriors

    .. math::

        P(k \\mid s) = \\operatorname{softmax}(W s + b)_k,

    with ``W`` and ``b`` minimizing the prior-weighted multiclass log loss

    .. math::

        \\sum_k \\frac{p_k}{N_k} \\sum_{i: y_i = k} w_i
            \\left[-\\log P(k \\mid s_i)\\right] + \\lambda \\lVert W \\rVert^2,

    where ``N_k`` is the summed weight of class ``k`` and ``p_k`` its prior
    (``p_classes``), as the binary ``p_target`` weighs targets and
    non-targets. With the default ``p_classes`` (the training proportions) it
    is the mean log loss.

    Parameters
    ----------
    kind : {'temperature', 'vector', 'matrix'}, default='matrix'
        ``'temperature'``: ``W = I / T``, one scale and no offset (temperature
        scaling); ``'vector'``: a diagonal ``W`` and an offset ``b`` (a scale
        and an offset per class); ``'matrix'``: a full ``W`` and ``b``
        (multinomial logistic regression on the scores; it accepts any number
        of score columns, the other kinds need exactly one per class).
    p_classes : array-like of shape (n_classes,), default=None
        Prior of each class in the order of ``classes_`` (positive, summing
        to 1) weighting each class's mean loss; ``None`` means the weighted
        training proportions.
    l2 : float, default=1e-5
        Penalty ``lambda`` on ``|W|^2`` (for ``'matrix'`` with ``W``'s columns
        centred over the classes, which leaves the posteriors unchanged).
        The default 1e-5 keeps every fit on a finite sample finite
        (separable data included) at a negligible cost elsewhere; ``l2=0``
        gives the exact unpenalized fit.
    tol : float, default=1e-8
        Convergence tolerance of Newton's method.
    max_iter : int, default=100
        Maximum number of Newton iterations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        ``W``; ``coef_[k]`` sums to zero over ``k`` for ``'matrix'``.
    intercept_ : ndarray of shape (n_classes,)
        ``b``, summing to zero.
    p_classes_ : ndarray of shape (n_classes,)
        The class priors of the objective.
    n_iter_ : int
        Number of Newton iterations.
    classes_ : ndarray of shape (n_classes,)
        The class labels; score column ``k`` belongs to ``classes_[k]``.
    n_features_in_ : int
        Number of score columns seen in ``fit``.

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : ``method='temperature'``
        fits the ``'temperature'`` kind on the mean log loss.
    ProperScoringFusion : The binary counterpart for several systems.

    Notes
    -----
    From a classifier's ``predict_proba``, :class:`CalibratedClassifier`
    (and :class:`ScoreTransformer`) give it the log-probabilities, floored
    at the classifier's resolution (half its smallest non-zero probability
    on the calibration data, at least 1e-12; scikit-learn's temperature
    scaling uses ``log(p + 1e-12)``); for two classes the two columns.

    Temperature scaling gives the same posteriors from log-probabilities as
    from any log-scores that differ from them by a per-sample constant
    (``softmax`` ignores it); the other kinds scale each class differently,
    so for them the choice of scores matters. The solver is Newton's method
    on the free parameters (the last class's row of ``[W, b]`` fixed to zero
    for ``'matrix'`` and its offset for ``'vector'``); the reported
    ``coef_`` and ``intercept_`` are centred.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", ICML 2017.
    .. [2] N. Brümmer and D. A. van Leeuwen, "On calibration of language
       recognition scores", IEEE Odyssey 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import MulticlassAffineCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, size=3000)
    >>> scores = 3.0 * (np.eye(3)[y] + rng.normal(0, 0.7, (3000, 3)))
    >>> cal = MulticlassAffineCalibrator(kind="temperature").fit(scores, y)
    >>> round(float(cal.coef_[0, 0]), 2)  # 1 / temperature: scores too sharp
    0.68
    >>> proba = cal.predict_proba(scores[:2])
    >>> proba.sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    >>> cal.predict(scores[:5]).tolist() == scores[:5].argmax(axis=1).tolist()
    True
    """

    _parameter_constraints: dict = {
        "kind": [StrOptions(set(KINDS))],
        "p_classes": ["array-like", None],
        # the penalty and the solver's controls, as for the binary models
        **{
            key: ProperScoringAffineCalibrator._parameter_constraints[key]
            for key in ("l2", "tol", "max_iter")
        },
    }

    def __init__(
        self, *, kind="matrix", p_classes=None, l2=DEFAULT_L2, tol=1e-8, max_iter=100
    ):
        self.kind = kind
        self.p_classes = p_classes
        self.l2 = l2
        self.tol = tol
        self.max_iter = max_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the calibration map.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_classes)
            Log-scores (or log-probabilities), column ``k`` for
            ``classes_[k]`` (any number of columns for ``kind='matrix'``).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; integer weights equal repeated rows.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        data = self._training_data(X, y, sample_weight)
        classes, totals = data.classes, data.totals
        K, d = classes.shape[0], data.n_columns
        if self.kind != "matrix" and d != K:
            raise ValueError(
                f"kind={self.kind!r} needs one score column per class: `y` has "
                f"{K} classes but `X` has {d} columns. Use kind='matrix' for "
                "other numbers of columns."
            )
        p_classes = self._check_p_classes(K, totals)
        source = data.source()
        # one power of two for all columns keeps W's structure (W = I / T)
        exponent = int(np.frexp(source.reduce(_max_abs, max))[1])
        obj = MulticlassObjective(
            self.kind,
            d,
            K,
            class_factors=p_classes / totals,
            exponent=exponent,
            l2=float(self.l2),
        )
        start = _scale_coef(self.kind, self._start(d, K), d, K, exponent)
        span = obj.span(start)
        if span > START_SPAN:
            # the identity map on scores of large magnitude (log-scores times
            # 1e3, ...) already spans more than the bound where the fit counts
            # as unbounded, with saturated posteriors: shrink it
            start = _shrink_coef(self.kind, start, d, K, START_SPAN / span)
        res = minimize(obj, source, start, tol=self.tol, max_iter=self.max_iter)
        if res.status != "converged":
            _warn_convergence(self, None, res, self.max_iter)
        theta = _scale_coef(self.kind, res.theta, d, K, -exponent)
        W, b = unpack(self.kind, theta, d, K)
        if self.kind == "matrix":
            W = W - W.mean(axis=0)
        self.coef_ = W
        self.intercept_ = b - b.mean()
        self.p_classes_ = p_classes
        self.classes_ = classes
        self.n_iter_ = int(res.n_iter)
        self._n_evals, self._n_sub_evals = res.n_evals, res.n_sub_evals
        self._n_features_out = K
        return self

    def _training_data(self, X, y, sample_weight):
        """The validated :class:`~skcalib._training.ClassTrainingData` of
        ``fit``: in memory, or on Dask (validated in one distributed pass
        when ``fit`` first asks for the classes)."""
        owner = type(self).__name__
        if any_dask_collection(X, y, sample_weight):
            from ._dask._training import DaskClassTrainingData

            data = DaskClassTrainingData(X, y, sample_weight, owner=owner)
            set_dask_features(self, data)
            return data
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=True)
        return ArrayClassTrainingData(X, y, sample_weight, owner=owner)

    def _check_p_classes(self, K, totals):
        if self.p_classes is None:
            return totals / totals.sum()
        try:
            p = np.asarray(self.p_classes, dtype=np.float64)
        except (TypeError, ValueError):
            p = None
        if (
            p is None
            or p.shape != (K,)
            or not np.isfinite(p).all()
            or not (p > 0).all()
            or abs(p.sum() - 1.0) > 1e-8
        ):
            raise ValueError(
                f"`p_classes` must hold {K} positive priors (one per class, in "
                f"the order of classes_) summing to 1; got {self.p_classes!r}."
            )
        return p / p.sum()

    def _start(self, d, K):
        """Identity map: the uncalibrated log-scores."""
        if self.kind == "temperature":
            return np.ones(1)
        if self.kind == "vector":
            return np.r_[np.ones(K), np.zeros(K - 1)]
        Wb = np.zeros((K - 1, d + 1))
        if d == K:
            Wb[:, :d] = np.eye(K)[:-1] - np.eye(K)[-1]
        return Wb.ravel()

    def _logits(self, X):
        """``W s + b`` as ``(Z, e)``: the logits are ``ldexp(Z, e)`` per row."""
        check_is_fitted(self)
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=True
        )
        return scaled_affine(X, self.coef_, self.intercept_)

    def _shifted_logits(self, X):
        """The logits minus their row maximum: 0 or below, ``-inf`` past the range."""
        Z, e = self._logits(X)
        with np.errstate(over="ignore"):  # differences past -1.8e308 are -inf
            return np.ldexp(Z - Z.max(axis=1, keepdims=True), e[:, None])

    def transform(self, X):
        """Calibrated log-posteriors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Log-scores.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            ``log softmax(W s + b)``, columns in the order of ``classes_``;
            a lazy Dask array for a Dask ``X``.
        """
        if is_dask_collection(X):
            return self._dask_apply("transform", X)
        return log_softmax(self._shifted_logits(X), axis=1)

    def predict_proba(self, X):
        """Calibrated posterior probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Log-scores.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``softmax(W s + b)``, columns in the order of ``classes_``; rows
            sum to 1. A lazy Dask array for a Dask ``X``.
        """
        if is_dask_collection(X):
            return self._dask_apply("predict_proba", X)
        return softmax(self._shifted_logits(X), axis=1)

    def predict(self, X):
        """The most probable class of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Log-scores.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``; a lazy Dask array for a Dask ``X``.
        """
        if is_dask_collection(X):
            return self._dask_apply("predict", X)
        Z, _ = self._logits(X)  # checks that the estimator is fitted
        return self.classes_[np.argmax(Z, axis=1)]

    def _dask_apply(self, method, X):
        """Lazy ``map_blocks`` of ``method`` over a Dask collection."""
        from ._dask._fit import dask_apply

        check_is_fitted(self)
        return dask_apply(self, method, X, n_out=self.classes_.shape[0])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=True)
        tags.input_tags.allow_nan = False
        return tags
