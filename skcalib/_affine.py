"""Affine LLR calibration on a prior-weighted Beta-family proper scoring rule.

The solver shared by :class:`ProperScoringAffineCalibrator` and
:class:`~skcalib.PlattCalibrator` lives here too: Newton's method on the two
parameters ``(A, B)`` of ``l = A s + B``, with the objective, gradient and
Hessian of each iterate computed in one fused pass over the data
(:class:`skcalib._special.AffineObjective`).

Why it is fast at large n
-------------------------
Every pass over the data costs the same, so the solver minimizes passes:

* warm start: on more than ``4 * 2**16`` samples the problem is first solved
  on a systematic subsample of about ``2**16`` samples; its optimum is
  within sampling error (~1e-2) of the full optimum, where Newton converges
  quadratically, so the full data typically take 3 passes (the last Newton
  step, below ``tol``, is applied without another pass);
* fused passes: each pass returns ``f``, the gradient and the Hessian, and
  runs in cache-sized chunks with float64 accumulation.

The answer is the exact optimum of the full-data objective (to ``tol``); the
subsample only chooses the starting point.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._base import BaseCalibrator
from ._special import AffineObjective, logit
from .utils._sklearn_compat import Interval

__all__ = ["ProperScoringAffineCalibrator"]

#: Bound on the span of the calibrated LLRs over the training scores,
#: ``|A| (max(s) - min(s))``, in nats. Beyond it the calibrated map is a step
#: function for every practical purpose: the objective has no finite
#: minimizer (separable classes, or a bounded rule on nearly separable data)
#: and the solver stops there.
MAX_LLR_RANGE = 1e4

#: Number of samples of the warm-start subsample.
WARM_START_SIZE = 1 << 16


class _Result:
    __slots__ = ("theta", "n_iter", "n_evals", "n_sub_evals", "status")

    def __init__(self, theta, n_iter, n_evals, status):
        self.theta = theta
        self.n_iter = n_iter
        self.n_evals = n_evals
        self.n_sub_evals = 0
        self.status = status  # "converged", "max_iter", "unbounded", "stalled"


def _newton(obj, theta, *, center, scale, width, tol, max_iter):
    """Minimize ``obj`` over ``theta = (A, B)`` by damped (saddle-free) Newton.

    The step is computed in standardized coordinates (``A scale`` and
    ``B + A center``, i.e. LLR units at typical scores), where ``tol`` is
    measured. Indefinite Hessians (non-convex rules) use the absolute values
    of the eigenvalues, which keeps the direction a descent direction; an
    Armijo backtracking line search guarantees decrease.
    """
    theta = np.asarray(theta, dtype=np.float64).copy()
    to_raw = np.array([[1.0 / scale, 0.0], [-center / scale, 1.0]])
    evals0 = obj.n_evals
    f, g, hess = obj(theta)
    if not np.isfinite(f):
        return _Result(theta, 0, obj.n_evals - evals0, "stalled")
    for it in range(1, max_iter + 1):
        gs = to_raw.T @ g
        hs = to_raw.T @ hess @ to_raw
        lam, vec = np.linalg.eigh(hs)
        lam_max = float(np.abs(lam).max())
        if not lam_max > 0:
            return _Result(theta, it, obj.n_evals - evals0, "converged")
        # pseudo-inverse of |H|: flat directions (constant scores) get no step
        keep = np.abs(lam) > 1e-12 * lam_max
        coef = np.where(keep, (vec.T @ gs) / np.where(keep, np.abs(lam), 1.0), 0.0)
        ds = -vec @ coef
        theta_std = np.array([theta[0] * scale, theta[1] + theta[0] * center])
        cap = max(10.0, float(np.abs(theta_std).max()))
        size = float(np.abs(ds).max())
        if size > cap:
            ds *= cap / size
            size = cap
        step = to_raw @ ds
        convex = lam.min() > -1e-12 * lam_max
        if convex and size <= tol:
            # the remaining quadratic error is ~size**2: apply without a pass
            theta += step
            return _Result(theta, it, obj.n_evals - evals0, "converged")
        slope = float(g @ step)
        if not slope < 0:
            return _Result(theta, it, obj.n_evals - evals0, "stalled")
        slack = 8.0 * np.finfo(float).eps * abs(f)
        t = 1.0
        new = theta + step
        fn, gn, hn = obj(new)
        while not (fn <= f + 1e-4 * t * slope + slack):
            t *= 0.5
            if t < 1e-12:
                return _Result(theta, it, obj.n_evals - evals0, "stalled")
            new = theta + t * step
            fn = obj(new, derivatives=False)
            gn = None
        if gn is None:
            fn, gn, hn = obj(new)
        theta, f, g, hess = new, fn, gn, hn
        if abs(theta[0]) * width > MAX_LLR_RANGE:
            return _Result(theta, it, obj.n_evals - evals0, "unbounded")
    return _Result(theta, max_iter, obj.n_evals - evals0, "max_iter")


def _separation(s, is_target):
    """``(max non-target, min target)`` if the classes are separated, else None.

    Also ``(min non-target, max target)`` reversed when targets lie below.
    """
    s_tar, s_non = s[is_target], s[~is_target]
    if s_non.max() < s_tar.min():
        return float(s_non.max()), float(s_tar.min())
    if s_tar.max() < s_non.min():
        return float(s_non.min()), float(s_tar.max())
    return None


def _solve_column(
    s, is_target, w, *, make_objective, rules, theta0, tol, max_iter, separable=True
):
    """Fit ``(A, B)`` on one column: subsample warm start, then full data.

    ``rules`` are solved in turn, each started from the previous solution
    (the logistic rule first for the others); ``make_objective(s, y, w)``
    builds the :class:`AffineObjective` of a (sub)sample. ``separable``
    says whether perfectly separated classes leave the objective without a
    finite minimizer (false with an L2 penalty or Platt's smoothed targets).
    Zero-weight samples must have been removed.
    """
    n = s.shape[0]
    step = max(1, n // WARM_START_SIZE)
    probe = s[step // 2 :: step] if step > 1 else s
    center = float(probe.mean())
    scale = float(probe.std())
    if not scale > 0 or not np.isfinite(scale):
        scale = max(abs(center), 1.0)
    width = float(s.max() - s.min())
    if not width > 0:
        width = 1.0
    if separable:
        gap = _separation(s, is_target)
        if gap is not None:
            # Every rule's infimum is the step at the gap, reached only in the
            # limit A -> inf: return the documented bound, centred in the gap.
            lo, hi = gap
            slope = MAX_LLR_RANGE / width
            if lo > hi:  # targets below non-targets
                slope = -slope
            theta = np.array([slope, -slope * 0.5 * (lo + hi)])
            return _Result(theta, 1, 0, "unbounded")
    theta = np.asarray(theta0, dtype=np.float64)
    todo = list(rules)
    sub_evals = 0
    if n >= 4 * WARM_START_SIZE:
        sub = slice(step // 2, None, step)
        ys = is_target[sub]
        ws = None if w is None else w[sub]
        both = ys.any() and not ys.all()
        if both and ws is not None:
            both = ws[ys].sum() > 0 and ws[~ys].sum() > 0
        if both:
            obj = make_objective(s[sub], ys, ws)
            t_sub = theta
            ok = True
            for rule in todo:
                obj.set_rule(*rule)
                res = _newton(
                    obj,
                    t_sub,
                    center=center,
                    scale=scale,
                    width=width,
                    tol=1e-6,
                    max_iter=max_iter,
                )
                if res.status != "converged":
                    ok = False
                    break
                t_sub = res.theta
            sub_evals = obj.n_evals
            if ok:
                theta = t_sub
                todo = todo[-1:]
    obj = make_objective(s, is_target, w)
    res = _solve_rules(
        obj,
        theta,
        todo,
        center=center,
        scale=scale,
        width=width,
        tol=tol,
        max_iter=max_iter,
    )
    res.n_sub_evals = sub_evals
    return res


def _solve_rules(obj, theta, rules, *, center, scale, width, tol, max_iter):
    """Newton on each rule in turn, each started from the previous optimum.

    ``obj`` is any objective with ``set_rule`` and ``n_evals`` (in memory or
    summed over Dask partitions). Returns the last rule's result with the
    iterations and evaluations of the whole sequence.
    """
    n_iter = 0
    res = None
    for rule in rules:
        obj.set_rule(*rule)
        res = _newton(
            obj,
            theta,
            center=center,
            scale=scale,
            width=width,
            tol=tol,
            max_iter=max_iter,
        )
        theta = res.theta
        n_iter += res.n_iter
    res.n_iter = n_iter
    res.n_evals = obj.n_evals
    return res


def _warn_convergence(estimator, j, res, max_iter):
    name = type(estimator).__name__
    if res.status == "max_iter":
        msg = (
            f"{name}: Newton's method did not converge in max_iter={max_iter} "
            f"iterations on column {j}. Increase max_iter or tol."
        )
    elif res.status == "unbounded":
        msg = (
            f"{name}: the objective has no finite minimizer on column {j} (the "
            "classes are (nearly) separable): the fit stopped where the "
            f"calibrated LLRs span {MAX_LLR_RANGE:g} nats over the training "
            "scores. Set l2 > 0 for a well-posed problem."
        )
    else:
        msg = (
            f"{name}: the line search could not decrease the objective on column "
            f"{j}; the result may not be optimal."
        )
    warnings.warn(msg, ConvergenceWarning, stacklevel=3)


class ProperScoringAffineCalibrator(BaseCalibrator):
    """Affine LLR calibration trained on a prior-weighted proper scoring rule.

    Maps a score ``s`` to the log-likelihood-ratio ``l = A s + B``, with
    ``A, B`` minimizing the prior-weighted expected cost of a Beta-family
    proper scoring rule (Brümmer & Doddington, 003):

    .. math::

        \\bar C = \\frac{\\pi}{N_{tar}} \\sum_{i \\in tar} w_i C(q_i, tar)
        + \\frac{1-\\pi}{N_{non}} \\sum_{i \\in non} w_i C(q_i, non)
        + \\frac{\\lambda}{2} A^2,
        \\qquad q_i = \\sigma(A s_i + B + \\operatorname{logit}\\pi),

    with ``C`` the rule with parameters ``(alpha, beta)`` of SPEC §4 and
    ``pi = prior``. ``alpha = beta = 1`` is prior-weighted logistic
    regression; ``alpha = beta = 2`` the Brier rule; rules with ``alpha > 1``
    weight the high LLR thresholds (low false-alarm applications) more.

    Parameters
    ----------
    alpha : float, default=1.0
        Left-tail parameter of the rule (> 0).
    beta : float, default=1.0
        Right-tail parameter of the rule (> 0).
    prior : float in (0, 1), default=0.5
        Synthetic target prior of the training objective, also the prior of
        ``predict_proba`` and ``predict``. ``logit(prior)`` is the ``tau`` of
        003.
    l2 : float, default=0.0
        L2 penalty ``lambda`` on the slope ``A`` (the intercept is not
        penalized). A positive value makes (nearly) separable data well-posed.
    tol : float, default=1e-8
        Convergence tolerance on the Newton step, in LLR units at scores one
        standard deviation from their mean.
    max_iter : int, default=100
        Maximum number of Newton iterations per column.

    Attributes
    ----------
    coef_ : ndarray of shape (n_columns,)
        Slope ``A`` of each column.
    intercept_ : ndarray of shape (n_columns,)
        Offset ``B`` of each column.
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
        Equal to ``prior``.

    See Also
    --------
    PlattCalibrator : Platt's sigmoid fit, returning probabilities.
    PAVLLRCalibrator : The non-parametric (monotone) LLR calibrator.

    Notes
    -----
    The solver is Newton's method on ``(A, B)`` with a line search, using the
    absolute eigenvalues of the Hessian where it is indefinite (non-convex
    rules such as Brier). Rules other than the logarithmic one start from the
    logistic solution. On large data a subsample provides the starting
    point; the result is the full-data optimum. When the objective has no
    finite minimizer (bounded rules or hard targets on (nearly) separable
    data) the fit stops once the calibrated LLRs span more than
    ``MAX_LLR_RANGE = 1e4`` nats over the training scores (``|A|`` times
    their range; with perfectly separated classes directly there, the
    threshold ``-B/A`` in the middle of the gap) and emits a
    :class:`~sklearn.exceptions.ConvergenceWarning`, as it does after
    ``max_iter`` iterations.

    References
    ----------
    .. [1] N. Brümmer and G. Doddington, "Likelihood-ratio calibration using
       prior-weighted proper scoring rules", Interspeech 2013 (seed 003).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._affine import ProperScoringAffineCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(500), np.zeros(500)]
    >>> scores = rng.normal(2 * y, 1.0)  # true LLR is 2 s - 2
    >>> cal = ProperScoringAffineCalibrator().fit(scores, y)
    >>> round(float(cal.coef_[0]), 1), round(float(cal.intercept_[0]), 1)
    (2.1, -2.0)
    >>> brier = ProperScoringAffineCalibrator(alpha=2, beta=2, prior=0.1)
    >>> llr = brier.fit(scores, y).transform([0.0, 1.0, 2.0])
    >>> [round(float(v), 1) for v in llr]
    [-1.8, 0.2, 2.2]
    >>> round(float(brier.predict_proba([1.0])[0, 1]), 3)  # at prior 0.1
    0.122
    """

    _output = "llr"

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "prior": [Interval(Real, 0, 1, closed="neither")],
        "l2": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self, alpha=1.0, beta=1.0, *, prior=0.5, l2=0.0, tol=1e-8, max_iter=100
    ):
        self.alpha = alpha
        self.beta = beta
        self.prior = prior
        self.l2 = l2
        self.tol = tol
        self.max_iter = max_iter

    def _make_objective(self, s, y, w):
        if w is None:
            n_tar = float(np.count_nonzero(y))
            n_non = float(y.shape[0]) - n_tar
        else:
            n_tar = float(w[y].sum())
            n_non = float(w[~y].sum())
        prior = float(self.prior)
        return AffineObjective(
            s,
            y,
            w,
            class_factors=(prior / n_tar, (1.0 - prior) / n_non),
            alpha=1.0,
            beta=1.0,
            tau=logit(prior),
            l2=float(self.l2),
        )

    def _fit(self, X, is_target, sample_weight):
        if sample_weight is not None and not (sample_weight > 0).all():
            keep = sample_weight > 0
            X, is_target, sample_weight = X[keep], is_target[keep], sample_weight[keep]
        rule = (float(self.alpha), float(self.beta))
        rules = [rule] if rule == (1.0, 1.0) else [(1.0, 1.0), rule]
        k = X.shape[1]
        self.coef_ = np.empty(k)
        self.intercept_ = np.empty(k)
        n_iter = np.empty(k, dtype=np.int64)
        # objective evaluations (passes) on the full data and on the subsample
        self._n_evals = np.empty(k, dtype=np.int64)
        self._n_sub_evals = np.empty(k, dtype=np.int64)
        for j in range(k):
            res = _solve_column(
                np.ascontiguousarray(X[:, j]),
                is_target,
                sample_weight,
                make_objective=self._make_objective,
                rules=rules,
                theta0=(0.0, 0.0),
                tol=self.tol,
                max_iter=self.max_iter,
                separable=self.l2 == 0,
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
        return X * self.coef_ + self.intercept_
