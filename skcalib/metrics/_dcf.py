"""Detection cost functions: actual and minimum DCF, Bayes error-rate curves."""

from __future__ import annotations

from numbers import Real

from ..utils._docstrings import REFERENCES, doc_blocks, fill_doc
from ..utils._sklearn_compat import validate_params
from ._application import APPLICATIONS_CONSTRAINTS, as_applications
from ._params import TRIALS_DOCS, trials_constraints
from ._trials import BAYES_ERROR_DOCS, ScoredTrials

__all__ = ["actual_dcf", "min_dcf", "bayes_error_curve"]

_DOCS = doc_blocks(
    dcf_p_target="""
        p_target : float in (0, 1), Application or a sequence of them
            Prior probability of the target class in the application, or the
            application itself (an :class:`Application`, which carries its
            costs); a sequence gives one DCF per application.
        """
)


@validate_params(
    trials_constraints("llr", **APPLICATIONS_CONSTRAINTS, normalize=["boolean"]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, _DOCS)
def actual_dcf(
    y_true,
    llr,
    *,
    p_target,
    c_miss=1.0,
    c_fa=1.0,
    normalize=True,
    sample_weight=None,
    pos_label=None,
):
    """Actual detection cost of the Bayes decisions made on LLRs.

    Each trial is accepted (decided target) iff its LLR is at least the Bayes
    threshold ``-logit(pe)`` of the application, where
    ``pe = p_target*c_miss / (p_target*c_miss + (1-p_target)*c_fa)`` is the
    effective prior; a tie at the threshold is accepted.

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios in favour of the target class; +/-inf
        allowed, NaN not.
    {dcf_p_target}
    c_miss : float > 0, default=1.0
        Cost of a miss (rejecting a target), for a float ``p_target``.
    c_fa : float > 0, default=1.0
        Cost of a false alarm (accepting a non-target), for a float
        ``p_target``.
    normalize : bool, default=True
        Whether to divide by the cost of the best trivial system (accept all
        or reject all), so that 1.0 means "no better than the prior".
    {weight_label}

    Returns
    -------
    dcf : float or ndarray of shape (n_applications,)
        The (normalized) actual DCF; an array for a sequence.

    See Also
    --------
    min_dcf : The same cost with the threshold chosen optimally on the data.
    bayes_error_curve : Actual and minimum DCF over a range of priors.

    Notes
    -----
    With :math:`P_{miss}` the weighted fraction of targets whose LLR is below
    the threshold and :math:`P_{fa}` the weighted fraction of non-targets at or
    above it,

    .. math::

        DCF = \\frac{\\pi C_{miss} P_{miss} + (1-\\pi) C_{fa} P_{fa}}
                   {\\min(\\pi C_{miss}, (1-\\pi) C_{fa})}

    (without the denominator if ``normalize=False``).

    References
    ----------
    .. [1] S. Cumani, "Bayes decisions and model evaluation" (lecture notes).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import actual_dcf
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> llr = [-3.0, -1.0, 0.5, -0.2, 2.0, np.inf]
    >>> round(actual_dcf(y, llr, p_target=0.5), 4)
    0.6667
    >>> round(actual_dcf(y, llr, p_target=0.5, normalize=False), 4)
    0.3333

    An LLR exactly at the threshold (here 0) is accepted:

    >>> float(actual_dcf([0, 1], [0.0, 0.0], p_target=0.5))
    1.0

    An :class:`Application`, or several at once:

    >>> from skcalib.metrics import Application
    >>> round(actual_dcf(y, llr, p_target=Application(0.1, c_miss=10.0)), 4)
    0.7037
    >>> actual_dcf(y, llr, p_target=[0.1, Application(0.5)]).round(4).tolist()
    [0.6667, 0.6667]
    """
    apps, scalar = as_applications(
        p_target, c_miss, c_fa, caller="actual_dcf", checked=True
    )
    trials = ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr"
    )
    return trials.actual_dcf(apps[0] if scalar else apps, normalize=normalize)


@validate_params(
    trials_constraints("y_score", **APPLICATIONS_CONSTRAINTS, normalize=["boolean"]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, _DOCS, REFERENCES)
def min_dcf(
    y_true,
    y_score,
    *,
    p_target,
    c_miss=1.0,
    c_fa=1.0,
    normalize=True,
    sample_weight=None,
    pos_label=None,
):
    """Minimum detection cost over all thresholds on the scores.

    The lowest DCF that any threshold on ``y_score`` achieves on these data,
    accept-all and reject-all included (so the normalized value is at most
    1). It depends only on the order of the scores, which may be any real
    numbers or +/-inf. It is evaluated on the vertices of the ROC convex hull
    (where the optimum of a linear cost always lies) from the PAV block
    summary: one sort and linear passes, never a sweep over thresholds.

    Parameters
    ----------
    {y_true}
    {y_score}
    {dcf_p_target}
    c_miss : float > 0, default=1.0
        Cost of a miss, for a float ``p_target``.
    c_fa : float > 0, default=1.0
        Cost of a false alarm, for a float ``p_target``.
    normalize : bool, default=True
        Whether to divide by the cost of the best trivial system.
    {weight_label}

    Returns
    -------
    dcf : float or ndarray of shape (n_applications,)
        The (normalized) minimum DCF; an array for a sequence.

    See Also
    --------
    actual_dcf : The cost of the decisions the LLRs themselves make.
    rocch : The ROC convex hull this minimum is taken on.

    Notes
    -----
    Tied scores are one operating point (a threshold cannot split them).
    ``min_dcf`` equals the actual DCF of the PAV-LLRs of the scores.

    {fawcett_references}

    Examples
    --------
    >>> from skcalib.metrics import min_dcf
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.3, 0.9]
    >>> round(min_dcf(y, s, p_target=0.5), 4)
    0.3333

    All scores tied: only accept-all and reject-all remain, so the
    normalized minimum is 1.

    >>> float(min_dcf(y, [7.0] * 6, p_target=0.01))
    1.0
    """
    apps, scalar = as_applications(
        p_target, c_miss, c_fa, caller="min_dcf", checked=True
    )
    trials = ScoredTrials._from_metric_inputs(y_true, y_score, sample_weight, pos_label)
    return trials.min_dcf(apps[0] if scalar else apps, normalize=normalize)


@validate_params(
    trials_constraints("llr", prior_log_odds=["array-like", Real]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, BAYES_ERROR_DOCS, REFERENCES)
def bayes_error_curve(
    y_true, llr, prior_log_odds, *, sample_weight=None, pos_label=None
):
    """Actual and minimum normalized DCF over a grid of prior log-odds.

    The data of a Bayes error-rate plot: for every effective prior
    ``pe = sigmoid(prior_log_odds)`` the normalized DCF of the decisions
    ``llr >= -prior_log_odds`` (actual) and the normalized minimum DCF of the
    same trials (which only uses the order of ``llr``). One sort of the LLRs
    and one PAV block summary serve the whole grid.

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios; +/-inf allowed.
    prior_log_odds : float or array-like of shape (n_points,)
        Finite prior log-odds ``logit(pe)`` at which to evaluate.
    {weight_label}

    Returns
    -------
    {bayes_actual}
    {bayes_minimum}

    See Also
    --------
    actual_dcf, min_dcf : The same values at a single application.

    Notes
    -----
    With :math:`\\tilde\\pi = \\sigma(\\eta)` for prior log-odds :math:`\\eta`,

    .. math::

        DCF(\\eta) = \\frac{\\tilde\\pi P_{miss}(-\\eta)
                    + (1-\\tilde\\pi) P_{fa}(-\\eta)}
                   {\\min(\\tilde\\pi, 1-\\tilde\\pi)}.

    The minimum at :math:`\\eta` is attained at the ROC convex hull vertex
    where the PAV-LLRs cross :math:`-\\eta`, so each grid point costs a binary
    search.

    {pav_references}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import bayes_error_curve
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> llr = [-3.0, -1.0, 0.5, -0.2, 2.0, np.inf]
    >>> act, mini = bayes_error_curve(y, llr, [-1.0, 0.0, 1.0])
    >>> act.round(4).tolist(), mini.round(4).tolist()
    ([0.3333, 0.6667, 0.6667], [0.3333, 0.3333, 0.3333])
    """
    trials = ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr"
    )
    return trials.bayes_error_curve(prior_log_odds)
