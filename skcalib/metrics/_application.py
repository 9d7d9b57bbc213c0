"""The application of a detection cost: target prior and the costs of errors."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy.special import expit, logit

from ..utils._docstrings import REFERENCES, fill_doc
from ..utils._sklearn_compat import Interval, validate_parameter_constraints

__all__ = [
    "Application",
    "APPLICATION_CONSTRAINTS",
    "APPLICATIONS_CONSTRAINTS",
    "as_applications",
    "normalized_dcf",
]

#: The constraints of an application's three numbers: the one definition that
#: :class:`Application` applies and that the metric functions declare in
#: their ``validate_params`` (so that their messages name the function).
APPLICATION_CONSTRAINTS = {
    "p_target": [Interval(Real, 0, 1, closed="neither")],
    "c_miss": [Interval(Real, 0, None, closed="neither")],
    "c_fa": [Interval(Real, 0, None, closed="neither")],
}


@fill_doc(REFERENCES)
class Application:
    """A detection application: the target prior and the costs of the errors.

    The cost model of the detection cost function (DCF): decisions are
    evaluated at target prior ``p_target`` with cost ``c_miss`` for a missed
    target and ``c_fa`` for a false alarm. All normalized costs depend on
    the application only through its effective prior, and the Bayes decision
    on a natural-log likelihood ratio ``l`` accepts (decides target) iff
    ``l >= threshold``.

    Parameters
    ----------
    p_target : float in (0, 1)
        Prior probability of the target class.
    c_miss : float > 0, default=1.0
        Cost of a miss (rejecting a target).
    c_fa : float > 0, default=1.0
        Cost of a false alarm (accepting a non-target).

    Attributes
    ----------
    p_target, c_miss, c_fa : float
        The validated parameters.

    See Also
    --------
    ScoredTrials.min_dcf : Minimum DCF at one or many applications.
    actual_dcf, min_dcf : The DCF of LLRs and of scores.

    Notes
    -----
    The effective prior and the Bayes threshold are

    .. math::

        \\tilde\\pi = \\frac{\\pi C_{miss}}{\\pi C_{miss} + (1-\\pi) C_{fa}},
        \\qquad \\eta = -\\operatorname{logit} \\tilde\\pi
                = -\\operatorname{logit} \\pi - \\log C_{miss} + \\log C_{fa},

    and the DCF of an operating point with error rates
    :math:`P_{miss}, P_{fa}` is
    :math:`\\pi C_{miss} P_{miss} + (1-\\pi) C_{fa} P_{fa}`, normalized by
    :math:`\\min(\\pi C_{miss}, (1-\\pi) C_{fa})`, the cost of the best
    system that decides without looking at the trial.

    {brummer_du_preez_references}

    Examples
    --------
    >>> from skcalib.metrics import Application
    >>> app = Application(0.01, c_miss=10.0)
    >>> round(app.effective_prior, 4), round(app.threshold, 4)
    (0.0917, 2.2925)
    >>> round(app.dcf(p_miss=0.1, p_fa=0.05), 4)   # normalized DCF
    0.595

    Invalid values are refused, naming the parameter:

    >>> try:
    ...     Application(1.5)
    ... except ValueError as exc:
    ...     print(exc)
    The 'p_target' parameter of Application must be a float in the range \
(0.0, 1.0). Got 1.5 instead.
    """

    __slots__ = ("p_target", "c_miss", "c_fa")

    def __init__(self, p_target, c_miss=1.0, c_fa=1.0):
        self._set(*_checked(p_target, c_miss, c_fa, caller="Application"))

    def _set(self, p_target, c_miss, c_fa):
        object.__setattr__(self, "p_target", p_target)
        object.__setattr__(self, "c_miss", c_miss)
        object.__setattr__(self, "c_fa", c_fa)

    @classmethod
    def _from_params(cls, p_target, c_miss=1.0, c_fa=1.0, *, caller=None):
        """An application from a function's parameters.

        ``caller=None``: already checked against
        :data:`APPLICATION_CONSTRAINTS` (by the function's ``validate_params``);
        else checked here, errors naming ``caller``.
        """
        if caller is not None:
            p_target, c_miss, c_fa = _checked(p_target, c_miss, c_fa, caller=caller)
        app = object.__new__(cls)
        app._set(float(p_target), float(c_miss), float(c_fa))
        return app

    def __setattr__(self, name, value):
        raise AttributeError(f"Application is immutable; cannot set {name!r}.")

    def __repr__(self):
        return (
            f"Application(p_target={self.p_target!r}, c_miss={self.c_miss!r}, "
            f"c_fa={self.c_fa!r})"
        )

    def __eq__(self, other):
        if not isinstance(other, Application):
            return NotImplemented
        return (self.p_target, self.c_miss, self.c_fa) == (
            other.p_target,
            other.c_miss,
            other.c_fa,
        )

    def __hash__(self):
        return hash((Application, self.p_target, self.c_miss, self.c_fa))

    def __reduce__(self):
        return (Application, (self.p_target, self.c_miss, self.c_fa))

    def as_dict(self) -> dict:
        """The keyword arguments ``p_target``, ``c_miss``, ``c_fa`` of the
        metrics, e.g. ``min_dcf(y, s, **app.as_dict())``."""
        return {"p_target": self.p_target, "c_miss": self.c_miss, "c_fa": self.c_fa}

    @property
    def miss_weight(self) -> float:
        """``p_target * c_miss``, the weight of the miss rate in the DCF."""
        return self.p_target * self.c_miss

    @property
    def fa_weight(self) -> float:
        """``(1 - p_target) * c_fa``, the weight of the false-alarm rate."""
        return (1.0 - self.p_target) * self.c_fa

    @property
    def threshold(self) -> float:
        """The Bayes threshold ``-logit(effective_prior)`` on natural-log LLRs.

        The decision accepts iff ``llr >= threshold``; with ``c_miss == c_fa``
        it is exactly ``-logit(p_target)``.
        """
        threshold = -float(logit(self.p_target))
        if self.c_miss != self.c_fa:
            threshold -= float(np.log(self.c_miss) - np.log(self.c_fa))
        return threshold

    @property
    def prior_log_odds(self) -> float:
        """``logit(effective_prior)``, i.e. ``-threshold``: the application's
        position on the axis of a Bayes error-rate plot."""
        return -self.threshold

    @property
    def effective_prior(self) -> float:
        """The prior at which equal costs give the same Bayes decisions.

        ``p_target*c_miss / (p_target*c_miss + (1-p_target)*c_fa)``; from the
        log-odds, ``expit(-threshold)``, when the cost weights underflow or
        overflow (``p_target = 1e-320``, ``c_miss = 1e308``).
        """
        num = self.miss_weight
        den = num + self.fa_weight
        if num > 0 and math.isfinite(den):
            return num / den
        return float(expit(self.prior_log_odds))

    def dcf(self, p_miss, p_fa, *, normalize=True):
        """Detection cost of operating points with the given error rates.

        Parameters
        ----------
        p_miss, p_fa : float or array-like
            Miss and false-alarm rates (broadcast together).
        normalize : bool, default=True
            Whether to divide by ``min(p_target*c_miss, (1-p_target)*c_fa)``,
            the cost of the best trivial system.

        Returns
        -------
        dcf : float or ndarray
            A float for scalar rates.
        """
        if type(p_miss) is not float or type(p_fa) is not float:
            p_miss, p_fa = np.asarray(p_miss, float), np.asarray(p_fa, float)
        if normalize:
            out = normalized_dcf(self.miss_weight, self.fa_weight, p_miss, p_fa)
        else:
            out = self.miss_weight * p_miss + self.fa_weight * p_fa
        return float(out) if np.ndim(out) == 0 else out


#: :data:`APPLICATION_CONSTRAINTS` of a function whose ``p_target`` may also
#: be an :class:`Application` or a sequence of floats and applications
#: (parsed by :func:`as_applications`).
APPLICATIONS_CONSTRAINTS = {
    **APPLICATION_CONSTRAINTS,
    "p_target": [*APPLICATION_CONSTRAINTS["p_target"], Application, "array-like"],
}


def as_applications(p_target, c_miss=1.0, c_fa=1.0, *, caller, checked=False):
    """The applications of a ``p_target`` argument, and whether it was one.

    The one reading of the ``p_target`` that the DCF metrics, ``ScoredTrials``
    and the displays accept: a float (with ``c_miss`` and ``c_fa``), an
    :class:`Application` (already validated: taken as it is), or a 1-D
    sequence of floats and applications.

    Parameters
    ----------
    p_target : float, Application or sequence of them
        The target prior(s) or the applications themselves.
    c_miss, c_fa : float
        The costs of the floats; must be left at 1.0 with applications,
        which carry their own.
    caller : str
        Named in the errors.
    checked : bool, default=False
        Whether a float ``p_target`` and the costs were already checked
        against :data:`APPLICATION_CONSTRAINTS` (by ``caller``'s
        ``validate_params``); the items of a sequence are always checked.

    Returns
    -------
    applications : list of Application
    scalar : bool
        Whether ``p_target`` was one float or one application.
    """
    if isinstance(p_target, Application):
        _costs_unset(c_miss, c_fa, caller)
        return [p_target], True
    if np.ndim(p_target) == 0:
        check = None if checked else caller
        return [Application._from_params(p_target, c_miss, c_fa, caller=check)], True
    if np.ndim(p_target) > 1:
        raise ValueError(
            "`p_target` must be a float, an Application or a 1-D array-like of "
            f"them; got shape {np.shape(p_target)}."
        )
    # a list keeps its items' types (True is refused, not read as 1.0)
    if isinstance(p_target, list | tuple):
        values = list(p_target)
    else:
        values = [v.item() if isinstance(v, np.generic) else v for v in p_target]
    if any(isinstance(v, Application) for v in values):
        _costs_unset(c_miss, c_fa, caller)
    apps = [
        v
        if isinstance(v, Application)
        else Application._from_params(v, c_miss, c_fa, caller=caller)
        for v in values
    ]
    return apps, False


def _costs_unset(c_miss, c_fa, caller):
    if c_miss != 1.0 or c_fa != 1.0:
        raise ValueError(
            f"{caller}: an Application carries its own costs; give `c_miss` "
            "and `c_fa` to the Application, not to the call."
        )


def _checked(p_target, c_miss, c_fa, *, caller):
    """The three numbers as floats, checked against the constraints."""
    validate_parameter_constraints(
        APPLICATION_CONSTRAINTS,
        {"p_target": p_target, "c_miss": c_miss, "c_fa": c_fa},
        caller_name=caller,
    )
    return float(p_target), float(c_miss), float(c_fa)


def normalized_dcf(w_miss, w_fa, p_miss, p_fa, *, nonnegative=False):
    """Normalized DCF ``(w_miss P_miss + w_fa P_fa) / min(w_miss, w_fa)``.

    Written as the smaller cost weight becoming 1 and the larger one the
    ratio of the two: the normalizer itself underflows to 0 for extreme
    applications (``expit(-746) == 0``, ``p_target * c_miss < 1e-323``), where
    the division gave NaN (0 / 0); the ratio then overflows to ``inf``
    instead, and an error rate of zero contributes nothing.
    ``nonnegative=True`` tells that the rates are float arrays of one shape
    (or floats) already known to be ``>= 0`` (the vertices of a hull).
    """
    if (
        type(w_miss) is float
        and type(w_fa) is float
        and (nonnegative or _nonnegative(p_miss, p_fa))
    ):
        # One application (the common case) with a finite ratio: the same
        # sums without the masks, in two operations (``1.0 * p`` is ``p``,
        # and ``ratio * p`` is 0 where a mask would put 0).
        if 0.0 < w_miss <= w_fa:
            ratio = w_fa / w_miss
            if ratio < math.inf:
                return p_miss + ratio * p_fa
        elif 0.0 < w_fa < w_miss:
            ratio = w_miss / w_fa
            if ratio < math.inf:
                return ratio * p_miss + p_fa
    w_miss, w_fa = np.asarray(w_miss, float), np.asarray(w_fa, float)
    miss_smaller = w_miss <= w_fa
    # every where() masks the 0 * inf and x / 0 it would otherwise form
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = np.where(miss_smaller, w_fa / w_miss, w_miss / w_fa)
        c_miss = np.where(miss_smaller, 1.0, ratio)
        c_fa = np.where(miss_smaller, ratio, 1.0)
        return np.where(p_miss > 0, c_miss * p_miss, 0.0) + np.where(
            p_fa > 0, c_fa * p_fa, 0.0
        )


def _nonnegative(p_miss, p_fa) -> bool:
    """Whether two float or float-array error rates are all ``>= 0`` (not NaN)."""
    if type(p_miss) is float:
        return type(p_fa) is float and p_miss >= 0.0 and p_fa >= 0.0
    return (
        type(p_miss) is np.ndarray
        and type(p_fa) is np.ndarray
        and p_miss.shape == p_fa.shape
        and p_miss.shape != (0,)
        and np.minimum.reduce(p_miss, axis=None) >= 0.0  # the ufunc: no
        and np.minimum.reduce(p_fa, axis=None) >= 0.0  # method's wrappers
    )
