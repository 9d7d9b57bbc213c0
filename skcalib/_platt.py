"""Platt's sigmoid calibration: ``p = sigmoid(a s + b)`` by maximum likelihood."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ._affine import _solve_column, _warn_convergence
from ._base import BaseCalibrator, _needs_single_column
from ._dask import is_dask_collection
from ._special import AffineObjective, expit, logit
from .utils._sklearn_compat import Interval

__all__ = ["PlattCalibrator"]


class PlattCalibrator(BaseCalibrator):
    """Platt scaling: a sigmoid of an affine map of the score.

    Fits ``p = sigmoid(a s + b)`` by maximum likelihood (Platt 1999; 002),
    against Platt's smoothed targets by default. ``transform`` returns
    probabilities (at the calibration set's class proportions).

    Parameters
    ----------
    smooth_targets : bool, default=True
        Use Platt's targets ``(N+ + 1) / (N+ + 2)`` for positives and
        ``1 / (N- + 2)`` for negatives, where ``N+``, ``N-`` are the summed
        sample weights of each class; with ``False`` the hard targets 1 and
        0 (plain logistic regression on one feature).
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data (then
        ``predict_proba`` equals ``transform``).
    tol : float, default=1e-8
        Convergence tolerance on the Newton step, in log-odds units at scores
        one standard deviation from their mean.
    max_iter : int, default=100
        Maximum number of Newton iterations per column.

    Attributes
    ----------
    coef_ : ndarray of shape (n_columns,)
        Slope ``a`` of each column.
    intercept_ : ndarray of shape (n_columns,)
        Offset ``b`` of each column.
    n_iter_ : int
        Largest number of Newton iterations on the full data over the
        columns (a column with perfectly separated classes counts 1).
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the target.
    n_features_in_ : int
        Number of score columns seen in ``fit``.
    calibration_prior_ : float
        Weighted target proportion of the calibration data.
    prior_ : float
        ``prior`` if given, else ``calibration_prior_``.

    See Also
    --------
    ProperScoringAffineCalibrator : Affine LLR calibration on a chosen
        proper scoring rule and prior.
    sklearn.calibration.CalibratedClassifierCV : ``method='sigmoid'`` fits
        the same model, parametrized as ``1 / (1 + exp(A s + B))``, i.e.
        ``A = -a``, ``B = -b``.

    Notes
    -----
    The objective is the weighted cross-entropy with targets ``t_i``,

    .. math::

        -\\sum_i w_i \\left[ t_i \\log p_i + (1 - t_i) \\log(1 - p_i) \\right],
        \\qquad p_i = \\sigma(a s_i + b),

    minimized by Newton's method with a line search (see
    :class:`ProperScoringAffineCalibrator`). It agrees with scikit-learn's
    sigmoid calibration to optimizer tolerance. ``decision_function``
    returns the LLR ``a s + b - logit(calibration_prior_)`` computed
    directly (not through the saturated probability).

    With ``smooth_targets=False`` and separable classes the likelihood has
    no finite maximizer; the fit stops with a
    :class:`~sklearn.exceptions.ConvergenceWarning`.

    References
    ----------
    .. [1] J. Platt, "Probabilistic outputs for support vector machines and
       comparisons to regularized likelihood methods", 1999.
    .. [2] R. Rakotomalala, "Normalisation des scores" (seed 002).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._platt import PlattCalibrator
    >>> scores = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> cal = PlattCalibrator().fit(scores, y)
    >>> round(float(cal.coef_[0]), 4), round(float(cal.intercept_[0]), 4)
    (0.5793, -0.1707)
    >>> [round(float(p), 3) for p in cal.transform([-2.0, 0.0, 3.0])]
    [0.209, 0.457, 0.827]
    >>> round(float(cal.decision_function([0.0])[0]), 4)  # b - logit(1/2)
    -0.1707
    """

    _output = "proba"

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "smooth_targets": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, smooth_targets=True, prior=None, tol=1e-8, max_iter=100):
        self.smooth_targets = smooth_targets
        self.prior = prior
        self.tol = tol
        self.max_iter = max_iter

    def _targets(self, is_target, sample_weight):
        if not self.smooth_targets:
            return 1.0, 0.0
        if sample_weight is None:
            n_pos = float(np.count_nonzero(is_target))
            n_neg = float(is_target.shape[0]) - n_pos
        else:
            n_pos = float(sample_weight[is_target].sum())
            n_neg = float(sample_weight[~is_target].sum())
        return (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)

    def _make_objective(self, t_pos, t_neg):
        def make(s, y, w):
            # Each sample's loss w [sp(z) - t z] (sp the softplus) splits into
            # the hard-label logistic loss plus a term linear in (a, b):
            # targets: w [sp(-z) + (1 - t+) z], non-targets: w [sp(z) - t- z].
            if w is None:
                w_pos = float(np.count_nonzero(y))
                w_all = float(y.shape[0])
                sw_pos = float(s[y].sum())
                sw_all = float(s.sum())
            else:
                w_pos = float(w[y].sum())
                w_all = float(w.sum())
                sw_pos = float(w[y] @ s[y])
                sw_all = float(w @ s)
            w_neg, sw_neg = w_all - w_pos, sw_all - sw_pos
            linear = (
                np.array(
                    [
                        (1.0 - t_pos) * sw_pos - t_neg * sw_neg,
                        (1.0 - t_pos) * w_pos - t_neg * w_neg,
                    ]
                )
                / w_all
            )
            return AffineObjective(
                s,
                y,
                w,
                class_factors=(1.0 / w_all, 1.0 / w_all),
                alpha=1.0,
                beta=1.0,
                tau=0.0,
                linear=linear,
            )

        return make

    def _fit(self, X, is_target, sample_weight):
        t_pos, t_neg = self._targets(is_target, sample_weight)
        if sample_weight is not None and not (sample_weight > 0).all():
            keep = sample_weight > 0
            X, is_target, sample_weight = X[keep], is_target[keep], sample_weight[keep]
        if sample_weight is None:
            n_pos = float(np.count_nonzero(is_target))
            n_neg = float(is_target.shape[0]) - n_pos
        else:
            n_pos = float(sample_weight[is_target].sum())
            n_neg = float(sample_weight[~is_target].sum())
        # Platt's starting point: a = 0 and b the smoothed prior log-odds
        theta0 = (0.0, float(np.log((n_pos + 1.0) / (n_neg + 1.0))))
        make = self._make_objective(t_pos, t_neg)
        k = X.shape[1]
        self.coef_ = np.empty(k)
        self.intercept_ = np.empty(k)
        n_iter = np.empty(k, dtype=np.int64)
        self._n_evals = np.empty(k, dtype=np.int64)
        self._n_sub_evals = np.empty(k, dtype=np.int64)
        for j in range(k):
            res = _solve_column(
                np.ascontiguousarray(X[:, j]),
                is_target,
                sample_weight,
                make_objective=make,
                rules=[(1.0, 1.0)],
                theta0=theta0,
                tol=self.tol,
                max_iter=self.max_iter,
                separable=not self.smooth_targets,
            )
            if res.status != "converged":
                _warn_convergence(self, j, res, self.max_iter)
            self.coef_[j], self.intercept_[j] = res.theta
            n_iter[j] = res.n_iter
            self._n_evals[j] = res.n_evals
            self._n_sub_evals[j] = res.n_sub_evals
        self.n_iter_ = int(n_iter.max())
        return self

    def _transform(self, X):
        return expit(X * self.coef_ + self.intercept_)

    @_needs_single_column
    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (natural log).

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            Scores.

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            ``a s + b - logit(calibration_prior_)``: the log-odds of the
            fitted probability minus the calibration prior log-odds.
        """
        if is_dask_collection(X):
            return self._dask_apply("decision_function", X)
        X, _ = self._validate_X(X)
        return (
            X[:, 0] * self.coef_[0]
            + self.intercept_[0]
            - logit(self.calibration_prior_)
        )
