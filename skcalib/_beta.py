"""Beta calibration: ``llr = a ln p - b ln(1 - p) + c`` with ``a, b >= 0``.

The model is a two-feature linear fusion of ``ln p`` and ``-ln(1 - p)``
(:func:`skcalib._fusion.fit_linear_rule`, the package's one Newton solver)
with both weights constrained to be non-negative; the constraint is
handled by solving on the faces of the feasible set, as in Kull, Silva
Filho and Flach's reference implementation but keeping the best face.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit

from ._affine import ProperScoringAffineCalibrator
from ._base import BaseCalibrator
from ._fusion import fit_linear_rule
from ._kernel._solver import DEFAULT_L2, ArrayData, warn_convergence
from ._kernel._special import prior_weighted_objective
from .utils._calibrator_docs import CALIBRATOR_DOCS, newton_docs
from .utils._docstrings import fill_doc
from .utils._sklearn_compat import StrOptions
from .utils._validation import warn_if_probabilities

__all__ = ["BetaCalibrator"]

#: Smallest probability distinguishable from 0 by its complement: ``1 - p``
#: is a multiple of ``eps / 2`` near 1, so a probability score cannot resolve
#: log-odds beyond ``logit(1 - eps) ~= 36.04``. Scores are clipped there
#: (probabilities to ``[eps, 1 - eps]``, as the reference implementation
#: does), which keeps ``ln p`` of a probability of exactly 0 finite.
_EPS = float(np.finfo(np.float64).eps)
MAX_LOG_ODDS = float(np.log1p(-_EPS) - np.log(_EPS))

# The faces of {a >= 0, b >= 0} tried when the free optimum is infeasible:
# the features kept (ln p, -ln(1 - p)); () is the intercept alone.
_FACES = ((0, 1), (1,), (0,), ())


def beta_features(X, input_scale="log_odds"):
    """``(n, k)`` scores -> ``(k, n, 2)`` features ``[ln p, -ln(1 - p)]``.

    ``p = sigmoid(s)`` for log-odds scores (computed as ``log_expit(+/-s)``,
    exact for any finite ``s``), or the probability itself; either is first
    clipped to ``[-MAX_LOG_ODDS, MAX_LOG_ODDS]`` in log-odds, i.e. to
    ``[eps, 1 - eps]`` in probability.
    """
    X = np.asarray(X, dtype=np.float64)
    out = np.empty((X.shape[1], X.shape[0], 2))
    if input_scale == "log_odds":
        s = np.clip(X.T, -MAX_LOG_ODDS, MAX_LOG_ODDS)
        out[..., 0] = log_expit(s)
        out[..., 1] = log_expit(-s)
    else:
        p = np.clip(X.T, _EPS, 1.0 - _EPS)
        out[..., 0] = np.log(p)
        out[..., 1] = np.log1p(-p)
    np.negative(out[..., 1], out=out[..., 1])
    return out


@fill_doc(CALIBRATOR_DOCS, newton_docs(" per fit"))
class BetaCalibrator(BaseCalibrator):
    """Beta calibration: an LLR affine in ``ln p`` and ``ln(1 - p)``.

    Maps a probability score ``p`` to the log-likelihood-ratio

    .. math::

        \\ell = a \\ln p - b \\ln(1 - p) + c, \\qquad a, b \\ge 0,

    the three-parameter Beta calibration map of Kull, Silva Filho and Flach
    [1]_ [2]_: it is exact when the scores of each class follow a Beta
    distribution, and it contains sigmoid (Platt) calibration of the
    log-odds (``a = b``) and the identity (``a = b = 1``, ``c`` the
    log-odds of the prior). Unlike a sigmoid of the log-odds it can bend
    differently near 0 and near 1 (the inverse-sigmoid shapes of naive Bayes
    and boosting, the S shapes of random forests). The parameters minimize
    the prior-weighted expected cost of a Beta-family proper scoring rule
    plus an L2 penalty, as in :class:`ProperScoringAffineCalibrator`:

    .. math::

        \\bar C = \\frac{\\pi}{N_{tar}} \\sum_{i \\in tar} w_i C(q_i, tar)
        + \\frac{1-\\pi}{N_{non}} \\sum_{i \\in non} w_i C(q_i, non) \\\\
        + \\lambda (a^2 + b^2),
        \\qquad q_i = \\sigma(\\ell_i + \\operatorname{logit}\\pi).

    What ``X`` holds is set by ``input_scale``: by default a score on the
    log-odds scale, ``p = sigmoid(s)`` (what :class:`CalibratedClassifier`
    and :class:`ScoreTransformer` make of ``predict_proba``, the log-odds of
    the target's probability, and of a ``decision_function``); with
    ``input_scale='probability'`` the probability itself. Scores are clipped
    to the resolution of a float64 probability, ``p`` in ``[eps, 1 - eps]``
    (log-odds within +/-36.04), so probabilities of exactly 0 or 1 give
    finite LLRs.

    Parameters
    ----------
    alpha : float, default=1.0
        Left-tail parameter of the rule (> 0); ``alpha = beta = 1`` is the
        (prior-weighted) logarithmic loss, ``alpha = beta = 2`` Brier.
    beta : float, default=1.0
        Right-tail parameter of the rule (> 0).
    p_target : float in (0, 1), default=0.5
        Target prior of the application the objective is tuned for; with
        ``p_target`` equal to the calibration set's target proportion and
        ``l2=0`` the objective is the plain (mean) log loss of [1]_.
    l2 : float, default=1e-5
        Penalty ``lambda`` on ``a^2 + b^2`` (the intercept is not
        penalized). The small default keeps a fit on separable data finite;
        ``l2=0`` is the unpenalized fit of [1]_.
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data. It does not
        change the LLRs.
    input_scale : {'log_odds', 'probability'}, default='log_odds'
        ``'log_odds'``: ``X`` holds scores ``s`` with ``p = sigmoid(s)``
        (log-odds of a probability, or a decision function); every finite
        score is valid (``fit`` warns when ten or more scores of a column
        all lie in ``[0, 1]``, the look of probabilities). ``'probability'``:
        ``X`` holds probabilities in ``[0, 1]``.
    {newton_parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (n_columns, 2)
        ``(a, b)`` of each column, both non-negative.
    intercept_ : ndarray of shape (n_columns,)
        ``c`` of each column.
    n_iter_ : int
        Largest number of Newton iterations of the retained fits.
    {binary_attributes_given}

    See Also
    --------
    ProperScoringAffineCalibrator : ``llr = A s + B`` on the same objective.
    ProperScoringFusion : The same objective for a linear fusion of scores.
    PlattCalibrator : Platt's sigmoid fit, returning probabilities.

    Notes
    -----
    The fit is a linear fusion of the two features ``ln p`` and
    ``-ln(1 - p)`` (:class:`ProperScoringFusion`'s objective and solver).
    The constraint ``a, b >= 0``, which makes the map non-decreasing, is
    handled as in [1]_: when the free optimum has a negative weight, the
    model is refitted without that feature. Here both one-feature fits
    (and, if their weight is negative too, the intercept alone) are
    computed and the feasible one of lowest objective is kept, which for
    the convex (logarithmic) rule is the constrained optimum.
    ``transform`` and ``decision_function`` return the LLR ``ell``;
    ``predict_proba`` gives ``sigmoid(ell + logit(prior_))``.

    References
    ----------
    .. [1] M. Kull, T. M. Silva Filho and P. Flach, "Beta calibration: a
       well-founded and easily implemented improvement on logistic
       calibration for binary classifiers", AISTATS 2017.
    .. [2] M. Kull, T. M. Silva Filho and P. Flach, "Beyond sigmoids: How to
       obtain well-calibrated probabilities from binary classifiers with
       beta calibration", Electronic Journal of Statistics 11(2), 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import BetaCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(20000), np.zeros(20000)]
    >>> p = np.where(y == 1, rng.beta(4, 2, 40000), rng.beta(2, 4, 40000))
    >>> cal = BetaCalibrator(input_scale="probability", l2=0).fit(p, y)
    >>> cal.coef_.round(1).tolist()  # truth: a = b = 2
    [[2.0, 2.0]]
    >>> cal.decision_function([0.6, 0.9]).round(1).tolist()  # 2 ln(p / (1 - p))
    [0.8, 4.4]

    Probabilities of exactly 0 and 1 give finite LLRs:

    >>> bool(np.isfinite(cal.decision_function([0.0, 1.0])).all())
    True
    """

    _output = "llr"

    _parameter_constraints: dict = {
        **ProperScoringAffineCalibrator._parameter_constraints,
        "input_scale": [StrOptions({"log_odds", "probability"})],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        beta=1.0,
        p_target=0.5,
        l2=DEFAULT_L2,
        prior=None,
        input_scale="log_odds",
        tol=1e-8,
        max_iter=100,
    ):
        self._store(locals())

    def _check_scores(self, X):
        if self.input_scale == "probability" and (
            X.size and (X.min() < 0.0 or X.max() > 1.0)
        ):
            raise ValueError(
                "With input_scale='probability' the scores `X` must be "
                f"probabilities in [0, 1]; got values in [{X.min():g}, "
                f"{X.max():g}]. Use input_scale='log_odds' for other scores."
            )

    def _fit(self, data):
        self._check_scores(data.arrays(all_rows=True)[0])
        X, is_target, sample_weight = data.arrays()
        if self.input_scale == "log_odds":
            for j in range(X.shape[1]):
                # user -> fit's wrappers -> fit -> here
                warn_if_probabilities(
                    X[:, j],
                    name="X",
                    expected="log-odds",
                    instead="input_scale='probability' for probabilities (or "
                    "their log-odds, scipy.special.logit(p))",
                    stacklevel=5,
                )
        k = X.shape[1]
        coef = np.zeros((k, 2))
        intercept = np.empty(k)
        n_iter = 0
        for j, features in enumerate(beta_features(X, self.input_scale)):
            coef[j], intercept[j], res = self._fit_column(
                features, is_target, sample_weight
            )
            if res.status != "converged":
                warn_convergence(self, j if k > 1 else None, res, self.max_iter)
            n_iter = max(n_iter, int(res.n_iter))
        self.coef_ = coef
        self.intercept_ = intercept
        self.n_iter_ = n_iter
        return self

    def _fit_column(self, features, is_target, sample_weight):
        """``(a, b)``, ``c`` and the solver result of one column's fit."""
        best = None
        for face in _FACES:
            F = features[:, face] if face else np.zeros((features.shape[0], 1))
            c, b0, res = fit_linear_rule(
                ArrayData(np.asfortranarray(F), is_target, sample_weight),
                alpha=self.alpha,
                beta=self.beta,
                p_target=self.p_target,
                l2=self.l2,
                tol=self.tol,
                max_iter=self.max_iter,
            )
            if (c < 0).any():
                continue  # infeasible: a smaller face holds the optimum
            coef = np.zeros(2)
            coef[list(face)] = c if face else []
            if face == (0, 1):
                return coef, b0, res  # the free optimum is feasible
            value = prior_weighted_objective(
                features @ coef + b0,
                is_target,
                sample_weight,
                alpha=self.alpha,
                beta=self.beta,
                prior=self.p_target,
            ) + float(self.l2) * float(coef @ coef)
            if best is None or value < best[0]:
                best = (value, coef, b0, res)
        return best[1:]

    def _transform(self, X):
        self._check_scores(X)
        F = beta_features(X, self.input_scale)
        # (k, n, 2) @ (k, 2, 1) -> (k, n): each column with its own (a, b)
        llr = (F @ self.coef_[:, :, None])[..., 0] + self.intercept_[:, None]
        return np.ascontiguousarray(llr.T)
