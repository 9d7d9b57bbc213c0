"""Affine LLR calibration on a prior-weighted Beta-family proper scoring rule.

:class:`ProperScoringAffineCalibrator` and :class:`~skcalib.PlattCalibrator`
share :class:`AffineCalibrator`: each is an objective
(:class:`~skcalib._kernel._linear_rule.AffineRuleObjective` with its own
class factors, offset, targets and penalty) handed to the one Newton solver
of :mod:`skcalib._kernel._solver`, on in-memory arrays or on Dask partitions
alike.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import logit

from ._base import BaseCalibrator
from ._kernel._linear_rule import (
    AffineRuleObjective,
    binary_summary,
    penalty_variance,
)
from ._kernel._solver import (
    DEFAULT_L2,
    fit_standardizer,
    minimize,
    warn_convergence,
)
from ._kernel._special import uninformative_objective
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import REFERENCES, doc_blocks, fill_doc
from .utils._sklearn_compat import Interval

__all__ = [
    "AffineCalibrator",
    "ProperScoringAffineCalibrator",
    "RULE_CONSTRAINTS",
    "SOLVER_CONSTRAINTS",
    "affine_docs",
]

#: The Newton solver's controls, for every calibrator it fits.
SOLVER_CONSTRAINTS: dict = {
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
}

#: A Beta-family rule at a target prior, and the L2 penalty of the slopes.
RULE_CONSTRAINTS: dict = {
    "alpha": [Interval(Real, 0, None, closed="neither")],
    "beta": [Interval(Real, 0, None, closed="neither")],
    "p_target": [Interval(Real, 0, 1, closed="neither")],
    "l2": [Interval(Real, 0, None, closed="left")],
}


def affine_docs(slope: str, offset: str) -> dict[str, str]:
    """The Attributes section of a fit of ``l = slope s + offset`` per column,
    as the block ``{affine_attributes}`` of
    :func:`~skcalib.utils._docstrings.fill_doc`."""
    own = doc_blocks(
        attributes=f"""
            Attributes
            ----------
            coef_ : ndarray of shape (n_columns,)
                Slope ``{slope}`` of each column.
            intercept_ : ndarray of shape (n_columns,)
                Offset ``{offset}`` of each column.
            n_iter_ : int
                Largest number of Newton iterations on the full data over the
                columns (a column with perfectly separated classes counts 1).
            """
    )["attributes"]
    return {
        "affine_attributes": own + "\n" + CALIBRATOR_DOCS["binary_attributes_given"]
    }


class AffineCalibrator(BaseCalibrator):
    """Fit ``l = coef_ s + intercept_`` per column with the Newton solver.

    Subclasses give ``_objective(data, summary, standardizer)`` returning
    ``(objective, presolve, theta0)`` in standardized units. The solver gets
    one data source of ``(scores, is_target, weights)`` chunks per column
    (:meth:`~skcalib._data._training.TrainingData.column`, in memory or on Dask).
    """

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        **SOLVER_CONSTRAINTS,
    }

    def _fit(self, data):
        sources = [data.column(j) for j in range(data.n_columns)]
        k = len(sources)
        coef = np.empty(k)
        intercept = np.empty(k)
        n_iter = np.empty(k, dtype=np.int64)
        # objective evaluations (passes) on the full data and on the subsample
        n_evals = np.empty(k, dtype=np.int64)
        n_sub_evals = np.empty(k, dtype=np.int64)
        for j, data in enumerate(sources):
            summary = binary_summary(data)
            std = fit_standardizer(data, summary.lo, summary.hi)
            if std.constant[0]:
                warnings.warn(
                    f"{type(self).__name__}: all training scores of column {j} "
                    "are equal, so they carry no information: the fitted map is "
                    "flat (slope 0).",
                    UserWarning,
                    stacklevel=3,
                )
            objective, presolve, theta0 = self._objective(data, summary, std)
            res = minimize(
                objective,
                data,
                theta0,
                tol=self.tol,
                max_iter=self.max_iter,
                presolve=presolve,
            )
            if res.status != "converged":
                warn_convergence(self, j, res, self.max_iter)
            a, b = std.to_raw(res.theta[:1], res.theta[1])
            coef[j], intercept[j] = a[0], b
            n_iter[j] = res.n_iter
            n_evals[j] = res.n_evals
            n_sub_evals[j] = res.n_sub_evals
        self.coef_ = coef
        self.intercept_ = intercept
        self.n_iter_ = int(n_iter.max())
        self._n_evals = n_evals
        self._n_sub_evals = n_sub_evals
        return self

    def _affine(self, X):
        # scores near the float maximum give infinite LLRs: the right limit
        with np.errstate(over="ignore"):
            llr = X * self.coef_
            llr += self.intercept_  # in place: one array of the size of X
        return llr


@fill_doc(affine_docs("A", "B"), REFERENCES)
class ProperScoringAffineCalibrator(AffineCalibrator):
    """Affine LLR calibration trained on a prior-weighted proper scoring rule.

    Maps a score ``s`` to the log-likelihood-ratio ``l = A s + B``, with
    ``A, B`` minimizing the prior-weighted expected cost of a Beta-family
    proper scoring rule (Brümmer & Doddington [1]_):

    .. math::

        \\bar C = \\frac{\\pi}{N_{tar}} \\sum_{i \\in tar} w_i C(q_i, tar)
        + \\frac{1-\\pi}{N_{non}} \\sum_{i \\in non} w_i C(q_i, non) \\\\
        + \\lambda \\bar C_0 (A s_{sd})^2,
        \\qquad q_i = \\sigma(A s_i + B + \\operatorname{logit}\\pi),

    with ``C`` the Beta-family rule with parameters ``(alpha, beta)``,
    ``pi = p_target``, ``s_sd`` the standard deviation of the training
    scores, each class weighted as in the objective (``pi / N_tar`` and
    ``(1 - pi) / N_non`` times the sample weights), and ``Cbar_0`` the
    objective of the uninformative system ``l = 0`` (``log 2`` for the
    logarithmic rule at ``pi = 1/2``): the penalty is on the normalized
    objective. ``alpha = beta = 1`` is
    prior-weighted logistic regression; ``alpha = beta = 2`` the Brier rule;
    rules with ``alpha > 1`` weight the high LLR thresholds (low false-alarm
    applications) more.

    Parameters
    ----------
    alpha : float, default=1.0
        Left-tail parameter of the rule (> 0).
    beta : float, default=1.0
        Right-tail parameter of the rule (> 0).
    p_target : float in (0, 1), default=0.5
        Target prior of the application the objective is tuned for (the
        synthetic prior of the training objective); ``logit(p_target)`` is the
        ``tau`` of [1]_.
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data. It does not change
        the LLRs.
    l2 : float, default=1e-5
        L2 penalty ``lambda`` on the slope per standard deviation of the
        scores, relative to the normalized objective: ``lambda Cbar_0
        (A s_sd)^2`` is added to the objective (the intercept is not
        penalized), as for each weight of
        :class:`~skcalib.ProperScoringFusion`. In these units the fit does not
        depend on the units of the scores, and ``lambda`` weighs the same at
        every ``p_target`` and rule. The small default keeps the fit finite on
        (nearly) separable data, where the unpenalized fit gives posteriors of
        0 and 1, at a negligible cost elsewhere; ``l2=0`` gives the exact
        unpenalized fit.
    tol : float, default=1e-8
        Convergence tolerance on the Newton step, in LLR units at scores one
        standard deviation from their mean.
    max_iter : int, default=100
        Maximum number of Newton iterations per column.

    {affine_attributes}

    See Also
    --------
    PlattCalibrator : Platt's sigmoid fit, returning probabilities.
    PAVLLRCalibrator : The non-parametric (monotone) LLR calibrator.

    Notes
    -----
    Scores from a classifier's ``predict_proba`` should be log-odds: in
    :class:`CalibratedClassifier` (and :class:`ScoreTransformer`) they are
    ``log p_1 - log p_0`` with the probabilities floored at the classifier's
    resolution (user guide: :ref:`The score a calibrator sees <proba_inputs>`).

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
    ``max_iter`` iterations. That needs ``l2=0``: any positive ``l2`` gives
    every rule a finite minimizer.

    The fit does not depend on the units of the scores: they are
    standardized inside the solver (an exact power-of-two scaling, then
    centring and scaling by their standard deviation) and the parameters
    mapped back, and the penalty is measured in standard deviations of the
    scores, so scores times ``1e-300`` or ``1e300`` give the same
    calibrated LLRs. If all training scores are equal they carry no
    information: the map is flat (``coef_ = 0``, the LLR minimizing the
    objective, 0 for every rule) and a ``UserWarning`` says so.

    {brummer_doddington_references}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import ProperScoringAffineCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(500), np.zeros(500)]
    >>> scores = rng.normal(2 * y, 1.0)  # true LLR is 2 s - 2
    >>> cal = ProperScoringAffineCalibrator().fit(scores, y)
    >>> round(float(cal.coef_[0]), 1), round(float(cal.intercept_[0]), 1)
    (2.1, -2.0)
    >>> brier = ProperScoringAffineCalibrator(alpha=2, beta=2, p_target=0.1)
    >>> llr = brier.fit(scores, y).transform([0.0, 1.0, 2.0])
    >>> [round(float(v), 1) for v in llr]
    [-1.8, 0.2, 2.2]
    >>> round(float(brier.predict_proba([1.0])[0, 1]), 3)  # at prior_ = 0.5
    0.556
    """

    _output = "llr"

    _parameter_constraints: dict = {
        **AffineCalibrator._parameter_constraints,
        **RULE_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        beta=1.0,
        p_target=0.5,
        prior=None,
        l2=DEFAULT_L2,
        tol=1e-8,
        max_iter=100,
    ):
        self._store(locals())

    def _objective(self, data, summary, standardizer):
        p_target = float(self.p_target)
        class_factors = (p_target / summary.w_tar, (1.0 - p_target) / summary.w_non)
        l2 = float(self.l2)
        objective = AffineRuleObjective(
            standardizer=standardizer,
            class_factors=class_factors,
            alpha=float(self.alpha),
            beta=float(self.beta),
            tau=logit(p_target),
            l2=l2,
            # the slope per standard deviation of the scores (units-free), on
            # the normalized objective (the same at every p_target)
            l2_variance=(
                penalty_variance(
                    data,
                    standardizer,
                    class_factors,
                    uninformative_objective(self.alpha, self.beta, p_target),
                )
                if l2 > 0
                else None
            ),
            separable=l2 == 0,
        )
        return objective, objective.presolve(), (0.0, 0.0)

    def _transform(self, X):
        return self._affine(X)
