"""A calibrator whose LLRs are bounded by ELUB or invariance bounds.

Forensic validation guidelines ask that an LR system report no LR beyond
what its validation data can support: the empirical lower and upper bounds
(ELUB, Vergeer et al., 2016) or the invariance-verification bounds
(Alberink et al., 2025). :class:`BoundedCalibrator` fits any skcalib
calibrator, computes the bounds on the LLRs it gives its own calibration
trials, and clips every LLR it outputs to them.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import logit as _logit
from sklearn.base import clone

from ._base import BaseCalibrator, as_2d
from ._platt import PlattCalibrator
from .metrics._trials import ScoredTrials
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import fill_doc
from .utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)

__all__ = ["BoundedCalibrator"]


@fill_doc(CALIBRATOR_DOCS)
class BoundedCalibrator(BaseCalibrator):
    """A calibrator's LLRs clipped to the LR bounds of its calibration data.

    Fits ``calibrator`` on the scores, computes the empirical lower and
    upper bounds (``bounds='elub'``, Vergeer et al. [1]_) or the
    invariance-verification bounds (``bounds='invariance'``, Alberink et
    al. [2]_) of the LLRs it gives those same trials, and clips every LLR
    it outputs to them: the LR a forensic report may state. A step of a
    ``Pipeline`` like any calibrator.

    Parameters
    ----------
    calibrator : skcalib calibrator, default=None
        The calibrator to bound (cloned at ``fit``); None for a
        :class:`~skcalib.PlattCalibrator` (logistic regression on the
        scores, as in the usual forensic pipeline).
    bounds : {'elub', 'invariance'}, default='elub'
        Which bounds: :func:`~skcalib.metrics.elub_bounds` or
        :func:`~skcalib.metrics.invariance_bounds` (exact, natural-log).
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data.

    Attributes
    ----------
    calibrator_ : calibrator
        The fitted clone of ``calibrator``.
    lower_bound_, upper_bound_ : ndarray of shape (`n_features_in_`,)
        Per score column, the natural-log LLR bounds (``lower <= 0 <=
        upper``).
    {binary_attributes}

    See Also
    --------
    PAVLLRCalibrator : Its ``extremes='elub'`` bounds the PAV-LLRs the same
        way.
    skcalib.metrics.elub_bounds, skcalib.metrics.invariance_bounds : The
        bounds.

    Notes
    -----
    The bounds are those of the calibrated LLRs of the calibration trials,
    as lir's ``ELUBBounder`` and ``IVBounder`` compute them after a
    calibrator, but exact rather than on a grid of thresholds.

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink and R. Stoel,
       "Numerical likelihood ratios outputted by LR systems are often based
       on extrapolation: when to stop extrapolating?", Science & Justice 56,
       2016.
    .. [2] I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard, M. Sjerps
       and L. van der Ham, "A transparent method to determine limit values
       for likelihood ratio systems", 2025.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import BoundedCalibrator
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.zeros(200), np.ones(200)]
    >>> s = rng.normal(size=400) + 2 * y
    >>> cal = BoundedCalibrator(bounds="elub").fit(s, y)
    >>> cal.lower_bound_.round(3).tolist(), cal.upper_bound_.round(3).tolist()
    ([-2.833], [3.669])
    >>> cal.decision_function([-10.0, 0.0, 10.0]).round(3).tolist()
    [-2.833, -1.97, 3.669]
    """

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "calibrator": [HasMethods(["fit", "transform"]), None],
        "bounds": [StrOptions({"elub", "invariance"})],
        "prior": [Interval(Real, 0, 1, closed="neither"), None],
    }

    def __init__(self, calibrator=None, *, bounds="elub", prior=None):
        self._store(locals())

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the calibrator and the bounds of its LLRs.

        {fit_scores}
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, passed to the calibrator and used in the
            bounds.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        X2, _ = as_2d(X)
        X2, y = validate_data(
            self, X2, y, dtype=np.float64, ensure_all_finite=True, y_numeric=False
        )
        inner = PlattCalibrator() if self.calibrator is None else self.calibrator
        inner = clone(inner)
        if sample_weight is None:
            inner.fit(X2, y)
        else:
            inner.fit(X2, y, sample_weight=sample_weight)
        self.calibrator_ = inner
        self.classes_ = inner.classes_
        self.calibration_prior_ = inner.calibration_prior_
        self.prior_ = self.calibration_prior_ if self.prior is None else self.prior
        llr = self._inner_llr(X2)
        lower = np.empty(llr.shape[1])
        upper = np.empty(llr.shape[1])
        for j in range(llr.shape[1]):
            trials = ScoredTrials(
                y, llr[:, j], sample_weight=sample_weight, pos_label=self.classes_[1]
            )
            if self.bounds == "elub":
                lower[j], upper[j] = trials.elub_bounds()
            else:
                lower[j], upper[j] = trials.invariance_bounds()
        self.lower_bound_ = lower
        self.upper_bound_ = upper
        return self

    def _inner_llr(self, X):
        """The calibrator's natural-log LLRs of each column of ``X``."""
        out = np.asarray(self.calibrator_.transform(X), dtype=np.float64)
        out = out.reshape(X.shape[0], -1)
        if getattr(self.calibrator_, "_output", "llr") == "proba":
            with np.errstate(divide="ignore"):
                out = _logit(out) - _logit(self.calibrator_.calibration_prior_)
        return out

    def _transform(self, X):
        return np.clip(self._inner_llr(X), self.lower_bound_, self.upper_bound_)
