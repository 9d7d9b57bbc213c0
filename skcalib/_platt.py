"""Platt's sigmoid calibration: ``p = sigmoid(a s + b)`` by maximum likelihood."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from ._affine import AffineCalibrator, affine_docs
from ._base import needs_single_column
from ._dask import blockwise
from ._kernel._linear_rule import AffineRuleObjective
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import fill_doc

__all__ = ["PlattCalibrator"]


@fill_doc(CALIBRATOR_DOCS, affine_docs("a", "b"))
class PlattCalibrator(AffineCalibrator):
    """Platt scaling: a sigmoid of an affine map of the score.

    Fits ``p = sigmoid(a s + b)`` by maximum likelihood (Platt [1]_, Rakotomalala [2]_),
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

    {affine_attributes}

    See Also
    --------
    ProperScoringAffineCalibrator : Affine LLR calibration on a chosen
        proper scoring rule and prior.
    sklearn.calibration.CalibratedClassifierCV : ``method='sigmoid'`` fits
        the same model, parametrized as ``1 / (1 + exp(A s + B))``, i.e.
        ``A = -a``, ``B = -b``.

    Notes
    -----
    In :class:`CalibratedClassifier`, a classifier with only
    ``predict_proba`` gives this calibrator its probability (scikit-learn's
    sigmoid input) or the log-odds (floored at the classifier's
    resolution): the log-odds only where they fit the calibration data
    better by two standard errors of the per-sample gain (user guide:
    :ref:`The score a calibrator sees <proba_inputs>`).

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

    As for :class:`ProperScoringAffineCalibrator`, the fit does not depend on
    the units of the scores, and all-equal training scores give a flat map
    at the (smoothed) target proportion of the data, with a ``UserWarning``.

    References
    ----------
    .. [1] J. Platt, "Probabilistic outputs for support vector machines and
       comparisons to regularized likelihood methods", 1999.
    .. [2] R. Rakotomalala, "Normalisation des scores", course notes
       (Platt scaling and isotonic calibration).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import PlattCalibrator
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
    # from predict_proba: the probability (scikit-learn's sigmoid input) or
    # the log-odds, whichever fits the calibration data better (by a nat)
    _proba_inputs = ("probability", "log_odds")

    _parameter_constraints: dict = {
        **AffineCalibrator._parameter_constraints,
        "smooth_targets": ["boolean"],
    }

    def __init__(self, *, smooth_targets=True, prior=None, tol=1e-8, max_iter=100):
        self._store(locals())

    def _objective(self, data, summary, standardizer):
        n_pos, n_neg = summary.w_tar, summary.w_non
        targets = None
        if self.smooth_targets:
            targets = ((n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        factor = 1.0 / (n_pos + n_neg)
        objective = AffineRuleObjective(
            standardizer=standardizer,
            class_factors=(factor, factor),
            targets=targets,
            separable=not self.smooth_targets,
        )
        # Platt's starting point: a = 0 and b the smoothed prior log-odds
        theta0 = (0.0, float(np.log((n_pos + 1.0) / (n_neg + 1.0))))
        return objective, [], theta0

    def _transform(self, X):
        logit_p = self._affine(X)
        return expit(logit_p, out=logit_p)

    @needs_single_column
    @blockwise
    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (natural log).

        Parameters
        ----------
        {scores}

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            ``a s + b - logit(calibration_prior_)``: the log-odds of the
            fitted probability minus the calibration prior log-odds.
        """
        X, _ = self._validate_X(X)
        return self._affine(X)[:, 0] - logit(self.calibration_prior_)
