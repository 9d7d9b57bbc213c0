"""Multiclass affine calibration: temperature, vector and matrix scaling,
ts-mix and the structured scalings SVS and SMS.

The objective (:class:`MulticlassObjective`) is the prior-weighted multiclass
log loss of ``softmax(W s + b)`` plus a quadratic penalty
(:class:`MulticlassRidge`); the solver is the package's one Newton solver,
which knows neither this objective nor where the data live.

Parametrization
---------------
``softmax`` is unchanged when the same vector is added to every row of
``[W, b]``, so the free parameters fix the last class's row to zero (for
``'vector'`` only the intercept needs it: a diagonal ``W`` has no such
freedom). The Hessian is then positive definite on non-separable data and
Newton's method needs no pseudo-inverse. A penalty is measured at the least
value over the equivalent parameters (for the ``'matrix'`` kind's
``l2 |W|^2``: ``l2 |W - mean_k W_k|^2``, the columns centred over the
classes), so the parametrization does not change the optimum. The fitted
``coef_`` and ``intercept_`` are reported in the centred gauge.

Units
-----
The scores are scaled by powers of two (exact) into ``[-1, 1]``: one for all
columns where ``W`` ties them (temperature scaling, and the ts-mix step),
one per column otherwise, so that columns of any magnitudes meet. The
parameters ``theta`` hold ``W`` times those powers of two. The ``l2``
penalty is on ``W`` per standard deviation of the scores (per column for
``'vector'`` and ``'matrix'``, pooled over the centred rows for
``'temperature'``), so the fit does not depend on their units; the
structured ridge of ``'svs'`` and ``'sms'`` is in nats, on log-probabilities.
"""

from __future__ import annotations

import copy
from functools import lru_cache, partial
from numbers import Real

import numpy as np
from scipy.linalg.blas import dsyrk
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from ._affine import ProperScoringAffineCalibrator
from ._base import calibrator_tags, training_data
from ._dask import blockwise
from ._data._training import ArrayClassTrainingData, ClassTrainingData
from ._kernel._rows import log_normalize_rows, log_softmax_rows, row_max, row_sum
from ._kernel._solver import (
    DEFAULT_L2,
    MAX_LLR_RANGE,
    ArrayData,
    minimize,
    warn_convergence,
)
from ._kernel._special import scaled_affine
from .utils._arguments import store_arguments
from .utils._docstrings import doc_blocks, fill_doc
from .utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)

__all__ = ["MulticlassAffineCalibrator", "one_step_refits"]

#: The kinds of :class:`MulticlassAffineCalibrator`.
KINDS = ("temperature", "vector", "matrix", "ts-mix", "svs", "sms")
#: The kinds of :class:`MulticlassObjective` (the maps the solver fits).
MAPS = ("temperature", "vector", "matrix")
#: The map each kind fits (last stage) and whether a ts-mix step precedes it.
_MAP_OF = {"ts-mix": "temperature", "svs": "vector", "sms": "matrix"}

_MAX = float(np.finfo(np.float64).max)


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


def _scale_coef(kind, theta, n_features, n_classes, factors):
    """``theta`` with column ``j`` of ``W`` multiplied by ``factors[j]``
    (a scalar for all of them)."""
    out = np.array(theta, dtype=np.float64)
    factors = np.broadcast_to(np.asarray(factors, dtype=np.float64), (n_features,))
    if kind == "temperature":
        out[0] *= factors[0]
    elif kind == "vector":
        out[:n_classes] *= factors
    else:
        Wb = out.reshape(n_classes - 1, n_features + 1)
        Wb[:, :n_features] *= factors
    return out


#: Largest spread (nats) of the starting map's logits over the training
#: scores: a tenth of the spread where the fit counts as unbounded.
START_SPAN = MAX_LLR_RANGE / 10


def _max_abs_columns(chunk):
    S = chunk[0]
    return np.abs(S).max(axis=0, initial=0.0)


def _scale_exponents(source, n_features, joint):
    """Per-column binary exponents of the largest ``|score|`` (one for all
    columns if ``joint``): dividing by ``2**e`` brings them into ``[-1, 1]``."""
    largest = source.reduce(_max_abs_columns, np.maximum)
    exponent = np.frexp(np.asarray(largest, dtype=np.float64))[1].astype(np.int64)
    if joint:
        exponent = np.full(n_features, exponent.max())
    return exponent


def _scaled(S, exponent):
    """``S / 2**exponent`` per column (exact); past the float range clipped
    (scores far beyond the training range in extreme units)."""
    with np.errstate(over="ignore"):
        U = np.ldexp(S, -exponent[None, :])
    return np.clip(U, -_MAX, _MAX, out=U)


def _chunk_moments(exponent, class_factors, chunk):
    """``[sum v, sum v u_j, sum v u_j^2, sum v rowvar(u)]`` of one chunk
    (``u`` the scaled scores, ``v`` the objective's weights)."""
    S, y, w = chunk[:3]
    U = _scaled(S, exponent)
    v = class_factors[y]
    if w is not None:
        v = v * w
    centred = U - U.mean(axis=1, keepdims=True)
    row_var = np.einsum("ik,ik->i", centred, centred) / U.shape[1]
    return np.concatenate([[v.sum()], v @ U, v @ (U * U), [v @ row_var]])


def scale_variances(source, exponent, class_factors):
    """Variance of each scaled score column and the pooled variance of the
    rows about their means, weighted as the objective (one exact pass).

    A column (or all rows) without spread gets its mean square instead, or
    1 if that is 0 too: the penalty then holds its weight near 0 rather
    than leaving a direction the data do not determine.
    """
    d = exponent.shape[0]
    sums = source.reduce(partial(_chunk_moments, exponent, class_factors))
    s0, s1, s2, rows = sums[0], sums[1 : 1 + d], sums[1 + d : 1 + 2 * d], sums[-1]
    mean = s1 / s0
    column = np.maximum(s2 / s0 - mean * mean, 0.0)
    fallback = np.where(s2 > 0, s2 / s0, 1.0)
    column = np.where(column > 1e-300, column, fallback)
    pooled = rows / s0
    if not pooled > 1e-300:
        pooled = float(np.mean(fallback))
    return column, float(pooled)


@lru_cache(maxsize=16)
def _strict_lower(k):
    """Read-only mask of the entries below the diagonal of a k x k matrix."""
    mask = np.tri(k, k, -1, dtype=bool)
    mask.flags.writeable = False
    return mask


class MulticlassRidge:
    """The quadratic penalty of a multiclass map, in the solver's parameters.

    .. math::

        \\sum_{k,j} a_{kj} (c_j W_{kj} - R_{kj})^2
            + \\lambda_b \\lVert b \\rVert^2,

    ``W`` in the parameters' units (``theta``), ``c_j`` the factor that
    takes column ``j`` to the penalty's units, ``R`` the reference map (0 or
    the identity), each evaluated at its least value over the equivalent
    parameters (adding a vector to every row of ``[W, b]``): for column
    ``j`` the quadratic form ``diag(a_j) - a_j a_j^T / sum(a_j)``.
    ``'temperature'`` and ``'vector'`` read only the diagonal of ``a``
    (``'temperature'`` one ``W = theta I``; ``'vector'`` has no such
    freedom on ``W``). Being quadratic, it is stored as ``0.5 theta^T A
    theta + g^T theta + c``.

    Parameters
    ----------
    kind : {'temperature', 'vector', 'matrix'}
    n_features, n_classes : int
    entry_weights : ndarray of shape (n_classes, n_features)
        ``a``.
    intercept_weight : float, default=0.0
        ``lambda_b`` (not for ``'temperature'``).
    column_scale : ndarray of shape (n_features,), default=None
        ``c`` (ones by default).
    identity : bool, default=False
        Whether ``R`` is the identity (``n_features == n_classes``) or 0.
    """

    def __init__(
        self,
        kind,
        n_features,
        n_classes,
        *,
        entry_weights,
        intercept_weight=0.0,
        column_scale=None,
        identity=False,
    ):
        K, d = int(n_classes), int(n_features)
        a = np.asarray(entry_weights, dtype=np.float64)
        c = np.ones(d) if column_scale is None else np.asarray(column_scale, float)
        k = n_multiclass_params(kind, d, K)
        self.kind, self.shape = kind, (K - 1, d + 1)
        g, const = np.zeros(k), 0.0
        r = 1.0 if identity else 0.0
        if kind == "matrix":
            # column j of [W, b] (its last row the gauge's 0) has the form
            # 2 c_j^2 (diag(a_j) - a_j a_j^T / sum(a_j)): kept as the weights
            # a_j and factors 2 c_j^2, applied in O(K d) (a dense Hessian has
            # K^2 (d + 1)^2 entries: 0.8 GB at 100 classes); A only on request
            weights = np.empty((d + 1, K))
            weights[:d] = a.T
            weights[d] = float(intercept_weight)
            totals = weights.sum(axis=1)
            positive = totals > 0
            weights[~positive] = 0.0
            self._weights = weights
            self._totals = np.where(positive, totals, 1.0)
            self._factors = 2.0 * np.r_[c**2, 1.0]
            if identity:
                # Q_j e_j = a_j (e_j - a_jj / sum(a_j)), times -2 c_j
                G = np.zeros(self.shape)
                for j in range(d):
                    q = weights[j] * (-weights[j, j] / self._totals[j])
                    q[j] += weights[j, j]
                    G[:, j] = -2.0 * c[j] * q[:-1]
                    const += float(q[j])
                g = G.ravel()
            self._hess = None
            self.linear, self.const = g, const
            self.is_zero = not (np.any(weights) or np.any(g))
            return
        A = np.zeros((k, k))
        if kind == "temperature":
            weight = float(np.trace(a))
            A[0, 0] = 2.0 * weight * c[0] ** 2
            g[0] = -2.0 * weight * c[0] * r
            const = weight * r * r
        else:
            diag = np.diagonal(a)
            idx = np.arange(K)
            A[idx, idx] = 2.0 * diag * c**2
            g[:K] = -2.0 * diag * c * r
            const = float(diag.sum()) * r * r
            A[K:, K:] = 2.0 * _gauge_form(np.full(K, float(intercept_weight)))[:-1, :-1]
        self._hess, self.linear, self.const = A, g, const
        self.is_zero = not (np.any(A) or np.any(g))

    @property
    def hess(self):
        """``A``, the penalty's Hessian (dense)."""
        if self._hess is None:
            K1, m = self.shape
            A = np.zeros((K1 * m, K1 * m))
            rows = np.arange(K1) * m
            for j in range(m):
                idx = rows + j
                Q = _gauge_form(self._weights[j])
                A[np.ix_(idx, idx)] = self._factors[j] * Q[:-1, :-1]
            self._hess = A
        return self._hess

    def _product(self, theta):
        """``A theta``."""
        if self.kind != "matrix":
            return self.hess @ theta
        X = theta.reshape(self.shape)
        a = self._weights[:, :-1].T
        ax = a * X
        out = ax - a * (ax.sum(axis=0) / self._totals)
        out *= self._factors
        return out.ravel()

    def __call__(self, theta, order):
        theta = np.asarray(theta, dtype=np.float64)
        grad = self._product(theta)
        value = 0.5 * float(theta @ grad) + float(self.linear @ theta) + self.const
        if order == 0:
            return value
        grad += self.linear
        if order == 1:
            return value, grad
        return value, grad, self.hess


def _gauge_form(a):
    """``diag(a) - a a^T / sum(a)``: ``x -> min_t sum_k a_k (x_k + t)^2``."""
    total = float(a.sum())
    if not total > 0:
        return np.zeros((a.shape[0], a.shape[0]))
    return np.diag(a) - np.outer(a, a) / total


def _chunk_separation(exponent, chunk):
    """``[outscored, largest row range]`` of one chunk of ``(S, y, w)``:
    whether some sample's own class is beaten by another and the largest
    spread of a row's scaled scores."""
    S, y = chunk[:2]
    if S.shape[0] == 0:
        return np.array([0.0, 0.0])
    U = _scaled(S, exponent)
    own = U[np.arange(y.shape[0]), y]
    beaten = bool((U > own[:, None]).any())
    spread = float((U.max(axis=1) - U.min(axis=1)).max())
    return np.array([float(beaten), spread])


class MulticlassObjective:
    """Prior-weighted multiclass log loss of ``softmax(W s + b)``.

    .. math::

        f(\\theta) = \\sum_i v_i \\left[\\log \\sum_k e^{z_{ik}} - z_{i y_i}
            \\right] + \\operatorname{pen}(\\theta), \\qquad
        z_i = W s_i + b,

    with ``v_i = w_i p_{y_i} / N_{y_i}`` (``N_k`` the summed weight of class
    ``k``, ``p_k`` its prior) and ``pen`` a :class:`MulticlassRidge` (or
    none). With ``P`` the softmax, the gradient with respect to ``z_i`` is
    ``v_i (P_i - e_{y_i})`` and the Hessian ``v_i (diag P_i - P_i P_i^T)``;
    the chain rule through the linear map ``theta -> z_i`` (``J_i``) gives
    ``sum_i J_i^T v_i (diag P_i - P_i P_i^T) J_i``.

    A raw chunk is ``(S, y, sample_weight)``: float64 of shape ``(n, d)``,
    the class indices (int, ``0..K-1``) of shape ``(n,)``, float64 of shape
    ``(n,)`` or None. :meth:`prepare` divides column ``j`` of the scores by
    ``2**exponent[j]`` (exact), so ``theta`` holds ``W`` times those powers
    of two, and ``b``; it also computes the ``v_i`` and the ``(n, K)`` array
    of ``v_i`` at ``(i, y_i)`` (zero elsewhere), with which the true-class
    terms are dense products instead of a gather per evaluation.
    """

    chunk_size = 1 << 12

    def __init__(
        self, kind, n_features, n_classes, *, class_factors, exponent=0, penalty=None
    ):
        if kind not in MAPS:
            raise ValueError(f"`kind` must be one of {MAPS}; got {kind!r}.")
        self.kind = kind
        self.n_features = int(n_features)
        self.n_classes = int(n_classes)
        self.n_params = n_multiclass_params(kind, self.n_features, self.n_classes)
        self.class_factors = np.asarray(class_factors, dtype=np.float64)
        self.exponent = np.broadcast_to(
            np.asarray(exponent, dtype=np.int64), (self.n_features,)
        ).copy()
        self._penalty = None if penalty is None or penalty.is_zero else penalty
        # with many classes, fewer rows per block: temporaries of about 1 MB
        # are reused from the heap, larger ones mapped and zeroed afresh
        # (1.3-1.9x the pass at 60-100 classes)
        self.chunk_size = min(self.chunk_size, max(256, (1 << 17) // self.n_classes))

    def prepare(self, chunk):
        """Scores scaled per column (exact), weights times factors, and
        those weights on each row's class (zero elsewhere)."""
        S, y, w = chunk[:3]
        v = self.class_factors[y]
        if w is not None:
            v = v * w
        target = np.zeros((y.shape[0], self.n_classes))
        target[np.arange(y.shape[0]), y] = v
        return _scaled(S, self.exponent), v, target

    def penalty(self, theta, order):
        """The penalty's value and, up to ``order``, derivatives; None without one."""
        if self._penalty is None:
            return None
        return self._penalty(theta, order)

    def limit(self, data):
        """Unpenalized temperature scaling where no sample is outscored.

        If no sample of positive weight has a class scoring above its own,
        the log loss decreases in the inverse temperature without end (its
        infimum is only approached); the fit is then the temperature at
        which the logits of some training sample spread over
        ``MAX_LLR_RANGE`` nats, the documented bound, computed from the
        data (the same for weights as for repeated rows). None otherwise.
        """
        if self.kind != "temperature" or self._penalty is not None:
            return None
        beaten, spread = data.reduce(
            partial(_chunk_separation, self.exponent), np.maximum
        )
        if beaten > 0 or not spread > 0:
            return None
        return np.array([MAX_LLR_RANGE / spread])

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
        if K == 2:
            Z = np.zeros((S.shape[0], K))
            Z[:, 0] = S @ Wb[0, :d]
            Z[:, 0] += Wb[0, d]
            return Z
        # the last class's zero row included: one product into a contiguous
        # array (writing it into the strided Z[:, :-1] cost 4x the product)
        W = np.zeros((d, K))
        W[:, :-1] = Wb[:, :d].T
        Z = S @ W
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
        S, v, target = chunk
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
            Sb, vb, Tb = S[rows], v[rows], target[rows]
            Z = self.logits(theta, Sb)
            Z -= row_max(Z)[:, None]
            P = np.exp(Z)
            total = row_sum(P)
            value += float(vb @ np.log(total)) - float(np.vdot(Z, Tb))
            if order == 0:
                continue
            P /= total[:, None]
            G = P * vb[:, None]
            G -= Tb
            grad += self._pull_sum(G, Sb)
            if order == 1:
                continue
            if self.kind == "matrix":
                gram = self._matrix_hessian(P, Sb, vb, gram, diag)
                continue
            A = self._pull(P * np.sqrt(vb)[:, None], Sb)
            # A.T is Fortran-ordered: syrk reads it without a copy
            gram = dsyrk(1.0, A.T, beta=1.0, c=gram, overwrite_c=True)
            diag += self._diag_part(P * vb[:, None], Sb)
        if order == 0:
            return value
        if order == 1:
            return value, grad
        # the symmetric matrix of gram's upper triangle (its lower one is
        # unset), one np.where on a cached mask (np.triu twice cost more)
        return value, grad, diag - np.where(_strict_lower(k), gram.T, gram)

    def _matrix_hessian(self, P, S, v, gram, diag):
        """The ``'matrix'`` kind's Hessian terms of a block of rows, added
        to ``gram`` (upper triangle, returned) and ``diag``.

        The Hessian is ``sum_i v_i (diag P_i - P_i P_i^T) kron t_i t_i^T``
        (``t_i = (s_i, 1)``, classes ``0..K-2``): the Gram matrix of the rows
        ``a_i = sqrt(v_i) P_i kron t_i`` minus it, plus the block diagonal
        ``sum_i v_i P_ik t_i t_i^T``, which is ``a_(k) . (sqrt(v) t)``: the
        same ``a`` read once more. ``a`` is built with the samples along its
        rows (``(K - 1) (d + 1)`` rows of ``n``, every product a long vector)
        and the Gram matrix taken by ``syrk`` of its transpose, which is
        Fortran-ordered (twice as fast as the samples-first layout; a
        Kronecker GEMM of the class pairs against ``t_i t_i^T`` is slower
        still, for the gathers it needs).
        """
        K = self.n_classes
        n, d = S.shape
        m = d + 1
        sv = np.sqrt(v)
        T = np.empty((m, n))
        T[:d] = S.T
        T[d] = 1.0
        # C order: a transposed q would make the product below transposed
        # too, and the reshape a copy (25 times the product's cost)
        q = np.multiply(P[:, :-1].T, sv, order="C")
        A = (q[:, None, :] * T[None, :, :]).reshape((K - 1) * m, n)
        gram = dsyrk(1.0, A.T, trans=1, beta=1.0, c=gram, overwrite_c=True)
        T *= sv
        blocks = A @ T.T
        for k in range(K - 1):
            cols = slice(k * m, (k + 1) * m)
            diag[cols, cols] += blocks[cols]
        return gram

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

    def span(self, theta):
        """A bound on the spread of the logits over the (scaled) scores.

        The scaled scores lie in ``[-1, 1]``, so each logit moves by at most
        twice the absolute row sum of ``W``.
        """
        W, _ = unpack(self.kind, theta, self.n_features, self.n_classes)
        return 2.0 * float(np.abs(W).sum(axis=1).max())


def _map_source(source, fn):
    """A data source of ``fn`` of every chunk (in memory: a new ArrayData,
    which the solver can subsample)."""
    if isinstance(source, ArrayData):
        return ArrayData(*fn(source.arrays))
    return source.map(fn)


def _mix_uniform(log_p, weight):
    """``log((1 - weight) p + weight / K)`` from ``log p`` (rows of K)."""
    K = log_p.shape[1]
    out = np.logaddexp(log_p + np.log1p(-weight), np.log(weight / K))
    return out


def _ts_mix_chunk(inverse_temperature, exponent, weight, chunk):
    """A chunk ``(S, y, w)`` as ``(log q, y, w)``: ``q`` the ts-mix posteriors."""
    S, y, w = chunk[:3]
    L = log_softmax_rows(_scaled(S, exponent) * inverse_temperature)
    return _mix_uniform(L, weight), y, w


def _affine_log_softmax(X, W, b, exponent):
    """``log softmax(W u + b)`` for ``u = X / 2**exponent`` per column."""
    Z, e = scaled_affine(_scaled(X, exponent), W, b)
    with np.errstate(over="ignore"):  # differences past -1.8e308 are -inf
        shifted = np.ldexp(Z - row_max(Z)[:, None], e[:, None])
    return log_normalize_rows(shifted)


def _identity_start(kind, d, K):
    """Identity map (the uncalibrated log-scores) in free parameters."""
    if kind == "temperature":
        return np.ones(1)
    if kind == "vector":
        return np.r_[np.ones(K), np.zeros(K - 1)]
    Wb = np.zeros((K - 1, d + 1))
    if d == K:
        Wb[:, :d] = np.eye(K)[:-1] - np.eye(K)[-1]
    return Wb.ravel()


_DOCS = doc_blocks(
    log_scores_parameters="""
        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Log-scores.
        """
)


def _n_classes(estimator):
    """Columns of ``transform`` and ``predict_proba``: one per class."""
    return estimator.classes_.shape[0]


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
            \\left[-\\log P(k \\mid s_i)\\right] + \\operatorname{pen}(W, b),

    where ``N_k`` is the summed weight of class ``k`` and ``p_k`` its prior
    (``p_classes``), as the binary ``p_target`` weighs targets and
    non-targets. With the default ``p_classes`` (the training proportions) it
    is the mean log loss.

    Besides temperature, vector and matrix scaling, it fits the methods that
    lead the CalArena benchmark [3]_: ``'ts-mix'``, temperature scaling whose
    posteriors are mixed with the uniform distribution,
    ``q = (1 - omega) softmax(s / T) + omega / K`` with
    ``omega = 1 / (n + 1)``, and the structured vector and matrix scalings
    ``'svs'`` and ``'sms'`` of Berta et al. [4]_: vector or matrix scaling of
    ``log q`` (the ts-mix posteriors), ridge-penalized towards the identity
    with strengths growing with the number of classes and shrinking with the
    number of samples.

    Parameters
    ----------
    kind : {'temperature', 'vector', 'matrix', 'ts-mix', 'svs', 'sms'}, \
default='matrix'
        ``'temperature'``: ``W = I / T``, one scale and no offset (temperature
        scaling); ``'vector'``: a diagonal ``W`` and an offset ``b`` (a scale
        and an offset per class); ``'matrix'``: a full ``W`` and ``b``
        (multinomial logistic regression on the scores; it accepts any number
        of score columns, the other kinds need exactly one per class).
        ``'ts-mix'``: temperature scaling, then the mixture ``(1 - omega) p +
        omega / K`` with ``omega = 1 / (n + 1)``, ``n`` the total sample
        weight (the number of samples without weights). ``'svs'``,
        ``'sms'``: the ``'vector'`` and ``'matrix'`` maps of the ts-mix
        log-posteriors ``log q`` (``softmax(W log q + b)``), with the
        structured ridge of ``ridge``.
    p_classes : array-like of shape (n_classes,), default=None
        Prior of each class in the order of ``classes_`` (positive, summing
        to 1) weighting each class's mean loss; ``None`` means the weighted
        training proportions.
    l2 : float, default=1e-5
        Penalty ``lambda`` on ``W`` per standard deviation of the scores, so
        that the fit does not depend on their units: ``lambda sum_kj
        (W_kj sigma_j)^2`` for ``'vector'`` and ``'matrix'`` (``sigma_j``
        the standard deviation of score column ``j``; for ``'matrix'`` with
        ``W``'s columns centred over the classes, which leaves the posteriors
        unchanged), ``lambda (sigma / T)^2`` for temperature scaling, the
        mean square of the logits about each sample's mean (``sigma^2`` the
        mean square of the scores about each sample's mean, which softmax
        ignores), also in the temperature step of ``'ts-mix'``, ``'svs'`` and
        ``'sms'``. The means are weighted as the objective. The default
        1e-5 keeps every fit on a finite sample finite (separable data
        included) at a negligible cost elsewhere; ``l2=0`` gives the exact
        unpenalized fit.
    ridge : float, default=1.0
        ``lambda`` of the structured ridge of ``'svs'`` and ``'sms'`` (the
        other kinds ignore it), on the map's departure from the identity, in
        nats, added to the mean loss as in [4]_: ``lambda K / n`` on the
        squared intercepts and diagonal departures ``W_kk - 1``, ``lambda K
        (K - 1) / n`` on the squared off-diagonal entries (``'sms'``), ``n``
        the total sample weight. The default is the reference
        implementation's.
    tol : float, default=1e-8
        Convergence tolerance of Newton's method.
    max_iter : int, default=100
        Maximum number of Newton iterations.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        ``W``; ``coef_[k]`` sums to zero over ``k`` for ``'matrix'`` and
        ``'sms'``. For ``'svs'`` and ``'sms'`` the map of ``log q``; for
        ``'ts-mix'`` the temperature's ``I / T``. For scores of extreme
        magnitude (denormal, or columns 1e300 apart) an entry may under- or
        overflow; the predictions are computed on scaled scores and stay
        exact.
    intercept_ : ndarray of shape (n_classes,)
        ``b``, summing to zero.
    inverse_temperature_ : float
        ``1 / T`` of the ts-mix step (``'ts-mix'``, ``'svs'``, ``'sms'``).
    mix_weight_ : float
        ``omega = 1 / (n + 1)`` of the ts-mix step (``'ts-mix'``, ``'svs'``,
        ``'sms'``).
    p_classes_ : ndarray of shape (n_classes,)
        The class priors of the objective.
    n_iter_ : int
        Number of Newton iterations (of both steps for the kinds with a
        ts-mix step).
    classes_ : ndarray of shape (n_classes,)
        The class labels; score column ``k`` belongs to ``classes_[k]``.
    n_features_in_ : int
        Number of score columns seen in ``fit``.

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : ``method='temperature'``
        fits the ``'temperature'`` kind on the mean log loss.
    ProperScoringFusion : The binary counterpart for several systems.
    QuadraticCalibrator : The binary leader of the same benchmark.

    Notes
    -----
    From a classifier's ``predict_proba``, :class:`CalibratedClassifier`
    (and :class:`ScoreTransformer`) give it the log-probabilities, floored
    at the classifier's resolution (half its smallest non-zero probability
    on the calibration data, at least 1e-12; scikit-learn's temperature
    scaling uses ``log(p + 1e-12)``); for two classes the two columns.

    Temperature scaling gives the same posteriors from log-probabilities as
    from any log-scores that differ from them by a per-sample constant
    (``softmax`` ignores it, and so does its penalty); the other kinds scale
    each class differently, so for them the choice of scores matters. The
    solver is Newton's method on the free parameters (the last class's row
    of ``[W, b]`` fixed to zero for ``'matrix'`` and its offset for
    ``'vector'``, each penalty taken at its least value over the equivalent
    parameters); the reported ``coef_`` and ``intercept_`` are centred.
    ``'matrix'`` and ``'sms'`` have about ``K**2`` parameters, so each
    Newton step costs ``O(n K**4)`` time and ``O(K**4)`` memory; from 2,400
    parameters (49 classes) the solver is limited-memory BFGS instead
    (Liu and Nocedal, 1989), each iteration one pass of value and gradient,
    ``O(n K**2)``, with ``O(K**2)`` memory. At 5,000 samples ``'sms'`` fits
    16 classes in about 0.1 s, 32 in 1 s, 60 in 3.6 s and 100 in 3.2 s.
    With many classes ``'svs'`` and ``'vector'`` (``2 K`` parameters) cost
    far less, and :class:`AutoCalibrator` uses SVS above 32 classes.

    No fit depends on the units of the scores: the scores are scaled by
    powers of two (one per column for ``'vector'`` and ``'matrix'``, one for
    all columns where a single temperature ties them) and the ``l2`` penalty
    is per standard deviation, so scores times 1e-300 or 1e300 (per column
    for ``'vector'`` and ``'matrix'``) give the same posteriors. Unpenalized
    temperature scaling (``l2=0``) on scores where no sample is outscored on
    its own class has no finite minimizer: the temperature is then the one
    at which some training sample's logits spread over 1e4 nats, with a
    :class:`~sklearn.exceptions.ConvergenceWarning` (scikit-learn bounds the
    log inverse temperature at 10 instead).

    ``'svs'`` and ``'sms'`` are the structured scalings of [4]_ with its
    reference implementation's defaults (``ridge=1``, ts-mix first, the
    logarithm of its posteriors as input), fitted exactly; their ts-mix step
    has this estimator's ``l2`` penalty (the reference's is unpenalized, a
    difference of order 1e-5 on non-separable data).

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of
       modern neural networks", ICML 2017.
    .. [2] N. Brümmer and D. A. van Leeuwen, "On calibration of language
       recognition scores", IEEE Odyssey 2006.
    .. [3] E. Berta, D. Holzmüller, F. Bach and M. I. Jordan, "CalArena: a
       benchmark of post-hoc calibration", arXiv:2605.30188, 2026.
    .. [4] E. Berta, D. Holzmüller, M. I. Jordan and F. Bach, "Structured
       matrix scaling for multi-class calibration", arXiv:2511.03685, 2025.

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

    Structured matrix scaling of log-probabilities, after ts-mix:

    >>> from scipy.special import log_softmax
    >>> sms = MulticlassAffineCalibrator(kind="sms").fit(log_softmax(scores, 1), y)
    >>> round(sms.mix_weight_ * 3001, 12)  # omega = 1 / (n + 1)
    1.0
    >>> bool(sms.predict_proba(log_softmax(scores[:3], 1)).min() > sms.mix_weight_ / 3)
    True
    """

    _parameter_constraints: dict = {
        "kind": [StrOptions(set(KINDS))],
        "p_classes": ["array-like", None],
        "ridge": [Interval(Real, 0, None, closed="left")],
        # the penalty and the solver's controls, as for the binary models
        **{
            key: ProperScoringAffineCalibrator._parameter_constraints[key]
            for key in ("l2", "tol", "max_iter")
        },
    }

    def __init__(
        self,
        *,
        kind="matrix",
        p_classes=None,
        l2=DEFAULT_L2,
        ridge=1.0,
        tol=1e-8,
        max_iter=100,
    ):
        store_arguments(self, locals())

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
        return self._fit_data(self._training_data(X, y, sample_weight))

    def _fit_validated(self, X, y_index, sample_weight, n_classes, ts_start=None):
        """:meth:`fit` on arrays already validated: ``X`` float64 and finite,
        ``y_index`` the class indices ``0 .. n_classes - 1``,
        ``sample_weight`` None or checked (:func:`check_weights`). Where a
        class has no positive weight, :meth:`fit` itself (which refuses it).
        :class:`~skcalib.AutoCalibrator` fits its candidates on rows of its
        validated calibration set this way (validating again cost a tenth of
        its fit). ``ts_start``: an inverse temperature to start the ts-mix
        step of ``'ts-mix'``, ``'svs'`` and ``'sms'`` from (a temperature
        fitted on the same rows: the same optimum, in fewer iterations),
        instead of 1.
        """
        totals = np.bincount(
            y_index, weights=sample_weight, minlength=n_classes
        ).astype(np.float64, copy=False)
        if not (totals > 0).all():
            return self.fit(X, y_index, sample_weight)
        self._validate_params()
        data = object.__new__(ArrayClassTrainingData)
        ClassTrainingData.__init__(
            data, n_columns=X.shape[1], owner=type(self).__name__
        )
        data.classes = np.arange(n_classes)
        data.totals = totals
        data._arrays = X, y_index, sample_weight
        self.n_features_in_ = X.shape[1]
        self.__dict__.pop("feature_names_in_", None)
        return self._fit_data(data, ts_start)

    def _fit_data(self, data, ts_start=None):
        """The fit of the validated training data ``data``."""
        classes, totals = data.classes, data.totals
        K, d = classes.shape[0], data.n_columns
        if self.kind != "matrix" and d != K:
            raise ValueError(
                f"kind={self.kind!r} needs one score column per class: `y` has "
                f"{K} classes but `X` has {d} columns. Use kind='matrix' for "
                "other numbers of columns."
            )
        p_classes = self._check_p_classes(K, totals)
        factors = p_classes / totals
        source = data.source()
        n_iter = 0
        kind = self.kind
        if kind in _MAP_OF:
            # the ts-mix step: temperature scaling, then the uniform mixture
            exponent = _scale_exponents(source, d, joint=True)
            res = self._fit_map(
                "temperature", source, d, K, factors, exponent, start=ts_start
            )
            n_iter += int(res.n_iter)
            self._ts_coef = res.theta[0] * np.eye(K)
            self._ts_exponent = exponent
            with np.errstate(over="ignore", under="ignore"):
                self.inverse_temperature_ = float(np.ldexp(res.theta[0], -exponent[0]))
            self.mix_weight_ = 1.0 / (float(totals.sum()) + 1.0)
            theta, map_kind = res.theta, "temperature"
            if kind != "ts-mix":
                source = _map_source(
                    source,
                    partial(_ts_mix_chunk, res.theta[0], exponent, self.mix_weight_),
                )
                map_kind = _MAP_OF[kind]
                exponent = _scale_exponents(source, d, joint=True)
                res = self._fit_map(
                    map_kind,
                    source,
                    d,
                    K,
                    factors,
                    exponent,
                    structured=float(totals.sum()),
                )
                n_iter += int(res.n_iter)
                theta = res.theta
        else:
            map_kind = kind
            exponent = _scale_exponents(source, d, joint=kind == "temperature")
            res = self._fit_map(kind, source, d, K, factors, exponent)
            n_iter += int(res.n_iter)
            theta = res.theta
        self._theta, self._map_kind = theta, map_kind
        self._set_map(theta, d, K, exponent)
        self.p_classes_ = p_classes
        self.classes_ = classes
        self.n_iter_ = n_iter
        self._n_evals, self._n_sub_evals = res.n_evals, res.n_sub_evals
        self._n_features_out = K
        return self

    def _set_map(self, theta, d, K, exponent):
        """``coef_`` and ``intercept_`` (centred) from the free parameters."""
        W, b = unpack(self._map_kind, theta, d, K)
        if self._map_kind == "matrix":
            W = W - W.mean(axis=0)
        self._scaled_coef = W
        self._exponent = exponent
        with np.errstate(over="ignore", under="ignore"):
            self.coef_ = np.ldexp(W, -exponent[None, :])
        self.intercept_ = b - b.mean()

    def _fit_map(
        self, kind, source, d, K, factors, exponent, structured=None, start=None
    ):
        """Solve one map; ``structured``: the total weight ``n`` of the
        structured ridge (else the ``l2`` penalty per standard deviation)."""
        if structured is None:
            penalty = self._scale_penalty(kind, source, d, K, factors, exponent)
        else:
            penalty = self._structured_penalty(kind, d, K, exponent, structured)
        self._ridge = penalty  # the map's (fitted last), for one_step_refits
        obj = MulticlassObjective(
            kind, d, K, class_factors=factors, exponent=exponent, penalty=penalty
        )
        # the identity map (or the given inverse temperature) in the scaled
        # units (a scaling beyond 2**60 is shrunk below anyway)
        units = np.ldexp(1.0, np.minimum(exponent, 60))
        if start is None or not (np.isfinite(start) and start > 0):
            start = _identity_start(kind, d, K)
        else:  # an inverse temperature
            start = np.array([float(start)])
        start = _scale_coef(kind, start, d, K, units)
        span = obj.span(start)
        if span > START_SPAN:
            # the identity map on scores of large magnitude (log-scores times
            # 1e3, ...) already spans more than the bound where the fit counts
            # as unbounded, with saturated posteriors: shrink it
            start = _scale_coef(kind, start, d, K, START_SPAN / span)
        res = minimize(obj, source, start, tol=self.tol, max_iter=self.max_iter)
        if res.status != "converged":
            warn_convergence(self, None, res, self.max_iter)
        return res

    def _scale_penalty(self, kind, source, d, K, factors, exponent):
        """``l2`` on ``W`` per standard deviation of the scaled scores."""
        l2 = float(self.l2)
        if l2 == 0:
            return None
        column, pooled = scale_variances(source, exponent, factors)
        if kind == "temperature":
            # l2 times the mean square of the centred logits a (s - mean s)
            weights = np.eye(K) * (l2 * pooled / K)
        elif kind == "vector":
            weights = np.diag(l2 * column)
        else:
            weights = np.broadcast_to(l2 * column, (K, d))
        return MulticlassRidge(kind, d, K, entry_weights=weights)

    def _structured_penalty(self, kind, d, K, exponent, n):
        """The ridge of SVS / SMS: ``ridge K / n`` on the intercept and the
        diagonal, ``ridge K (K - 1) / n`` off it, towards the identity."""
        diagonal = float(self.ridge) * K / n
        weights = np.full((K, d), float(self.ridge) * K * (K - 1) / n)
        np.fill_diagonal(weights, diagonal)
        return MulticlassRidge(
            kind,
            d,
            K,
            entry_weights=weights,
            intercept_weight=diagonal,
            column_scale=np.ldexp(1.0, -exponent),
            identity=True,
        )

    def _training_data(self, X, y, sample_weight):
        """The validated :class:`~skcalib._data._training.ClassTrainingData` of
        ``fit``: in memory, or on Dask (validated in one distributed pass
        when ``fit`` first asks for the classes)."""
        return training_data(self, X, y, sample_weight, classes=True)

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

    def _log_posteriors(self, X):
        """The calibrated log-posteriors of validated scores."""
        check_is_fitted(self)
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=True
        )
        K = self.classes_.shape[0]
        if self.kind not in _MAP_OF:
            return _affine_log_softmax(
                X, self._scaled_coef, self.intercept_, self._exponent
            )
        L = _affine_log_softmax(X, self._ts_coef, np.zeros(K), self._ts_exponent)
        L = _mix_uniform(L, self.mix_weight_)
        if self.kind == "ts-mix":
            return L
        return _affine_log_softmax(
            L, self._scaled_coef, self.intercept_, self._exponent
        )

    @blockwise(n_out=_n_classes)
    @fill_doc(_DOCS)
    def transform(self, X):
        """Calibrated log-posteriors.

        {log_scores_parameters}

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            The logarithms of :meth:`predict_proba`, columns in the order of
            ``classes_``; a lazy Dask array for a Dask ``X``.
        """
        return self._log_posteriors(X)

    @blockwise(n_out=_n_classes)
    @fill_doc(_DOCS)
    def predict_proba(self, X):
        """Calibrated posterior probabilities.

        {log_scores_parameters}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``softmax(W s + b)`` (for ``'ts-mix'`` the mixture, for ``'svs'``
            and ``'sms'`` of ``log q``), columns in the order of
            ``classes_``; rows sum to 1. A lazy Dask array for a Dask ``X``.
        """
        return np.exp(self._log_posteriors(X))

    @blockwise
    @fill_doc(_DOCS)
    def predict(self, X):
        """The most probable class of each sample.

        {log_scores_parameters}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``; a lazy Dask array for a Dask ``X``.
        """
        log_proba = self._log_posteriors(X)  # checks that it is fitted
        return self.classes_[np.argmax(log_proba, axis=1)]

    def __sklearn_tags__(self):
        return calibrator_tags(super().__sklearn_tags__(), multi_class=True)


def one_step_refits(fitted, X, y_index, folds, sample_weight=None, *, losses=False):
    """Approximate refits of a fitted calibrator on the training rows of folds.

    For each ``(train, test)`` split, one Newton step of the map's objective
    on the ``train`` rows from the map fitted on all of them (``fitted``):
    the approximate leave-fold-out fit of Beirami et al. (2017) and Rad and
    Maleki (2020), whose distance to the exact refit is of the order of the
    square of the step, far below the sampling error of the fit from the
    calibration sets where it is used (thousands of samples). The gradients
    and Hessians are summed once per fold and class over the test rows, so
    that all the folds together cost one pass over the data and a solve per
    fold. The ts-mix step of ``'sms'`` and ``'svs'`` keeps the temperature
    and the mixture weight of the fit on all the rows; their ridge is that of
    the training rows' total weight. The ``l2`` penalty of the other kinds is
    that of the fit on all the rows (per standard deviation of all their
    scores).

    ``X`` are validated scores, ``y_index`` the class indices (in
    ``fitted.classes_``), ``folds`` a list of ``(train, test)`` index arrays
    whose test sets partition the rows of positive weight that are
    trained on (rows of zero weight may be trained on only). Returns one
    fitted copy of ``fitted`` per fold, or None where the approximation does
    not apply (``kind='ts-mix'``; a fit that did not converge; a Hessian
    that cannot be solved). With ``losses=True``, also the per-sample log
    loss of each refit on its fold's test rows
    (``-log predict_proba`` of the true class, floored as probabilities at
    the smallest normal float), from the input of the map computed once
    for all the folds.
    """
    kind, map_kind = fitted.kind, getattr(fitted, "_map_kind", None)
    structured = kind in ("sms", "svs")
    if map_kind is None or not (structured or kind == map_kind):
        return None
    K, d = fitted.classes_.shape[0], X.shape[1]
    w = np.ones(y_index.shape[0]) if sample_weight is None else sample_weight
    S = X
    if structured:
        S = _ts_mix_chunk(
            fitted._ts_coef[0, 0],
            fitted._ts_exponent,
            fitted.mix_weight_,
            (X, None, None),
        )[0]
    obj = MulticlassObjective(
        map_kind, d, K, class_factors=np.ones(K), exponent=fitted._exponent
    )
    theta = fitted._theta
    k = theta.shape[0]
    # per test fold and class (the default priors, the training proportions,
    # weigh every sample alike: per fold only): weight, gradient and Hessian
    n_folds = len(folds)
    by_class = fitted.p_classes is not None
    groups = K if by_class else 1
    mass = np.zeros((n_folds, K))
    grads = np.zeros((n_folds, groups, k))
    hessians = np.zeros((n_folds, groups, k, k))
    for j, (_, test) in enumerate(folds):
        mass[j] = np.bincount(y_index[test], weights=w[test], minlength=K)
        for c in range(groups):
            rows = test[y_index[test] == c] if by_class else test
            if rows.shape[0] == 0:
                continue
            chunk = obj.prepare((S[rows], y_index[rows], w[rows]))
            _, grads[j, c], hessians[j, c] = obj.terms(theta, chunk, 2)
    if structured:
        # the structured ridge is proportional to 1 / n: built once, at n = 1
        _, unit_grad, unit_hess = fitted._structured_penalty(
            map_kind, d, K, fitted._exponent, 1.0
        )(theta, 2)
    elif fitted._ridge is not None:
        _, ridge_grad, ridge_hess = fitted._ridge(theta, 2)
    refits = []
    for j in range(n_folds):
        others = np.arange(n_folds) != j
        totals = mass[others].sum(axis=0)
        if not (totals > 0).all():
            return None
        if by_class:
            factors = fitted.p_classes_ / totals
        else:
            factors = np.full(1, 1.0 / totals.sum())
        grad = np.einsum("c,ck->k", factors, grads[others].sum(axis=0))
        hess = np.einsum("c,ckl->kl", factors, hessians[others].sum(axis=0))
        if structured:
            n = float(totals.sum())
            grad, hess = grad + unit_grad / n, hess + unit_hess / n
        elif fitted._ridge is not None:
            grad, hess = grad + ridge_grad, hess + ridge_hess
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return None
        if not np.isfinite(step).all():
            return None
        refit = copy.copy(fitted)
        refit._theta = theta - step
        refit._set_map(refit._theta, d, K, fitted._exponent)
        refits.append(refit)
    if not losses:
        return refits
    out = []
    floor = -np.log(np.finfo(np.float64).tiny)
    for refit, (_, test) in zip(refits, folds, strict=True):
        L = _affine_log_softmax(
            S[test], refit._scaled_coef, refit.intercept_, refit._exponent
        )
        out.append(np.minimum(-L[np.arange(test.shape[0]), y_index[test]], floor))
    return refits, out
