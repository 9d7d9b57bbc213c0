"""Quadratic scaling: an LLR quadratic in the log-odds score.

The model is a two-feature linear fusion of ``u`` and ``u**2``, ``u`` the
score scaled by a power of two (exact) into ``[-1, 1]``, solved by the
package's one Newton solver (:func:`skcalib._fusion.fit_linear_rule`), as
:class:`~skcalib.BetaCalibrator` fits ``ln p`` and ``-ln(1 - p)``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ._base import BaseCalibrator
from ._fusion import fit_linear_rule
from ._kernel._solver import DEFAULT_L2, ArrayData, warn_convergence
from .utils._calibrator_docs import CALIBRATOR_DOCS, newton_docs
from .utils._docstrings import fill_doc
from .utils._sklearn_compat import Interval

__all__ = ["QuadraticCalibrator"]

_MAX = float(np.finfo(np.float64).max)


def _scaled(X, exponent):
    """``X * 2**-exponent`` per column; values past the float range clipped
    (scores far beyond the training range in extreme units)."""
    with np.errstate(over="ignore"):
        U = np.ldexp(X, -np.asarray(exponent)[None, :])
    return np.clip(U, -_MAX, _MAX, out=U)


@fill_doc(CALIBRATOR_DOCS, newton_docs(" per column"))
class QuadraticCalibrator(BaseCalibrator):
    """Quadratic scaling: logistic regression on ``(1, s, s**2)``.

    Maps a score ``s`` (the log-odds of a classifier's probability, or any
    decision function) to the log-likelihood-ratio

    .. math::

        \\ell = a s + c s^2 + b,

    with ``a, c, b`` minimizing the (weighted) mean log loss of the
    posterior ``q = sigmoid(ell + logit(pi))`` plus a small L2 penalty,
    ``pi`` the calibration set's target proportion: the logistic regression
    on the features ``(1, s, s**2)`` of quadratic scaling, one of the two
    best binary calibrators of the CalArena benchmark [1]_ and the binary
    member of the logistic calibrators of Berta et al. [2]_. Unlike a
    sigmoid of ``s`` (:class:`PlattCalibrator`, ``c = 0``) the map can bend,
    steeper or flatter in the tails than near the threshold; unlike
    :class:`BetaCalibrator` it is not constrained to be monotone.

    Parameters
    ----------
    p_target : float in (0, 1), default=None
        Target prior weighting the two classes' mean losses
        (``p_target / N_tar`` and ``(1 - p_target) / N_non`` times the
        sample weights, as for :class:`ProperScoringAffineCalibrator`);
        ``None`` means the weighted target proportion of the calibration
        data: the plain (weighted) mean log loss of logistic regression.
    l2 : float, default=1e-5
        Penalty ``lambda`` on the squared weights of ``s`` and ``s**2``, each
        per standard deviation of its feature over the calibration data and
        relative to the normalized objective, as for
        :class:`ProperScoringFusion`: ``lambda Cbar_0 ((a sd(s))^2 +
        (c sd(s^2))^2)``, ``Cbar_0`` the objective of ``ell = 0`` (the
        intercept is not penalized). The fit does not depend on the units of
        the scores; the small default keeps it finite on separable data;
        ``l2=0`` gives the exact unpenalized fit.
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data. It does not
        change the LLRs.
    {newton_parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (n_columns, 2)
        ``(a, c)`` of each column, in the units of the scores (for scores of
        extreme magnitude, beyond 1e150 or so, ``c`` may under- or overflow;
        the predictions are computed on scaled scores and stay exact).
    intercept_ : ndarray of shape (n_columns,)
        ``b`` of each column.
    n_iter_ : int
        Largest number of Newton iterations over the columns.
    {binary_attributes_given}

    See Also
    --------
    PlattCalibrator : The sigmoid of an affine map of the score.
    BetaCalibrator : A monotone map affine in ``ln p`` and ``ln(1 - p)``.
    MulticlassAffineCalibrator : Its ``kind='sms'`` is the multiclass
        leader of the same benchmark.

    Notes
    -----
    In :class:`CalibratedClassifier` (and :class:`ScoreTransformer`) a
    classifier's ``predict_proba`` reaches it as the log-odds
    ``log p_1 - log p_0``, floored at the classifier's resolution.

    The fit is a linear fusion of the two features ``u`` and ``u**2``, ``u``
    the score divided by the power of two that brings it into ``[-1, 1]``
    (exact, so that no square overflows or underflows), by Newton's method on
    the same objective as :class:`ProperScoringFusion`; the coefficients are
    then mapped back to the units of the score. With ``l2=0`` and a quadratic
    that separates the classes the objective has no finite minimizer: the
    fit stops where the LLRs span ``1e4`` nats with a
    :class:`~sklearn.exceptions.ConvergenceWarning`.
    ``transform`` and ``decision_function`` return the LLR ``ell``;
    ``predict_proba`` gives ``sigmoid(ell + logit(prior_))``.

    References
    ----------
    .. [1] E. Berta, D. Holzmüller, F. Bach and M. I. Jordan, "CalArena: a
       benchmark of post-hoc calibration", arXiv:2605.30188, 2026.
    .. [2] E. Berta, D. Holzmüller, M. I. Jordan and F. Bach, "Structured
       matrix scaling for multi-class calibration", arXiv:2511.03685, 2025.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import QuadraticCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(20000), np.zeros(20000)]
    >>> s = rng.normal(0.0, np.where(y == 1, 2.0, 1.0))  # unequal variances
    >>> cal = QuadraticCalibrator(l2=0).fit(s, y)
    >>> round(float(cal.coef_[0, 1]), 2)  # truth: LLR = 3/8 s**2 - ln 2
    0.37
    >>> round(float(cal.intercept_[0]), 2)
    -0.69
    >>> cal.decision_function([0.0, 2.0]).round(1).tolist()
    [-0.7, 0.8]
    """

    _output = "llr"

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "p_target": [Interval(Real, 0, 1, closed="neither"), None],
        "l2": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self, *, p_target=None, l2=DEFAULT_L2, prior=None, tol=1e-8, max_iter=100
    ):
        self._store(locals())

    def _fit(self, data):
        X, is_target, sample_weight = data.arrays()
        if self.p_target is None:
            p = data.n_tar / (data.n_tar + data.n_non)
        else:
            p = float(self.p_target)
        k = X.shape[1]
        exponent = np.frexp(np.abs(X).max(axis=0, initial=0.0))[1]
        U = _scaled(X, exponent)
        scaled = np.zeros((k, 2))
        intercept = np.empty(k)
        n_iter = 0
        for j in range(k):
            u = U[:, j]
            features = np.empty((u.shape[0], 2), order="F")
            features[:, 0] = u
            np.multiply(u, u, out=features[:, 1])
            scaled[j], intercept[j], res = fit_linear_rule(
                ArrayData(features, is_target, sample_weight),
                alpha=1.0,
                beta=1.0,
                p_target=p,
                l2=float(self.l2),
                tol=self.tol,
                max_iter=self.max_iter,
                l2_units="std",
            )
            if res.status != "converged":
                warn_convergence(self, j if k > 1 else None, res, self.max_iter)
            n_iter = max(n_iter, int(res.n_iter))
        # the map is on the scaled score, ldexp(s, -e); the intercept is the
        # LLR's (the objective adds logit(p) inside)
        self._exponent = exponent
        self._scaled_coef = scaled
        with np.errstate(over="ignore", under="ignore"):
            self.coef_ = np.column_stack(
                [
                    np.ldexp(scaled[:, 0], -exponent),
                    np.ldexp(scaled[:, 1], -2 * exponent),
                ]
            )
        self.intercept_ = intercept
        self.n_iter_ = n_iter
        return self

    def _transform(self, X):
        U = _scaled(X, self._exponent)
        a, c = self._scaled_coef[:, 0], self._scaled_coef[:, 1]
        # u (a + c u): no inf - inf where a u and c u**2 both overflow
        with np.errstate(over="ignore"):
            inner = U * c
            inner += a
            llr = U * inner
        llr += self.intercept_
        return llr
