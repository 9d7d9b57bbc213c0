"""Proper scoring rules on LLRs: Cllr, minimum Cllr, Brier and the Beta family."""

from __future__ import annotations

from .._kernel._special import cllr_sums as _cllr_sums  # noqa: F401 (tests read it here)
from ..utils._docstrings import REFERENCES, fill_doc
from ..utils._sklearn_compat import validate_params
from ._params import TRIALS_DOCS, trials_constraints
from ._trials import _POSITIVE, _PROB, ScoredTrials

__all__ = ["cllr", "min_cllr", "beta_rule_loss", "brier_loss"]

#: What to pass instead of probabilities, in the warning of
#: :func:`~skcalib.utils._validation.warn_if_probabilities`.
_LLR_INSTEAD = (
    "LLRs, e.g. scipy.special.logit(p) - scipy.special.logit(pi) for "
    "posteriors p computed at the target prior pi"
)


#: ... and in :func:`brier_loss`, the mistake of taking it for the mean
#: squared error of probabilities.
_BRIER_INSTEAD = (
    "LLRs (scipy.special.logit(p) - scipy.special.logit(pi) for posteriors p "
    "computed at the target prior pi); for the mean squared error of "
    "probabilities, use sklearn.metrics.brier_score_loss"
)


@validate_params(
    trials_constraints("llr", p_target=[_PROB, None]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, REFERENCES)
def cllr(y_true, llr, *, p_target=None, sample_weight=None, pos_label=None):
    """Log-likelihood-ratio cost Cllr, in bits.

    The average logarithmic cost of the LLRs, with the two classes weighted
    equally: 0 for a perfect system, exactly 1 for the uninformative system
    ``llr = 0``, above 1 for a system that is worse than the prior (badly
    calibrated). It penalizes both poor discrimination and poor calibration;
    :func:`min_cllr` isolates the first.

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios in favour of the target class; +/-inf
        allowed (a confidently wrong infinite LLR gives ``inf``).
    p_target : float in (0, 1) or None, default=None
        If given, return instead the prior-weighted logarithmic cost at this
        target prior, normalized by its value for ``llr = 0`` (equal to
        :func:`beta_rule_loss` with ``alpha = beta = 1``). ``p_target=0.5``
        equals the default Cllr.
    {weight_label}

    Returns
    -------
    cllr : float
        Cllr in bits (or the normalized prior-weighted cost if ``p_target``
        is given).

    See Also
    --------
    min_cllr : Cllr after optimal monotonic recalibration (PAV).
    beta_rule_loss : The general prior-weighted Beta-family cost.

    Notes
    -----
    With weighted means over the target and non-target trials,

    .. math::

        C_{llr} = \\frac{1}{2}\\left(
            \\overline{\\log_2(1 + e^{-l})}_{tar}
            + \\overline{\\log_2(1 + e^{l})}_{non} \\right).

    {brummer_du_preez_references}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import cllr
    >>> y = [0, 0, 1, 1]
    >>> float(cllr(y, [0.0, 0.0, 0.0, 0.0]))
    1.0
    >>> round(cllr(y, [-2.0, -1.0, 1.5, 3.0]), 4)
    0.2489
    >>> float(cllr(y, [-np.inf, -1.0, 1.5, np.inf])) < 0.2
    True
    >>> float(cllr(y, [np.inf, -1.0, 1.5, 3.0]))  # a confidently wrong trial
    inf
    """
    trials = ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr", instead=_LLR_INSTEAD
    )
    return trials.cllr(p_target)


@validate_params(
    trials_constraints("y_score", p_target=[_PROB, None]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, REFERENCES)
def min_cllr(y_true, y_score, *, p_target=None, sample_weight=None, pos_label=None):
    """Minimum Cllr: the Cllr of the optimally recalibrated scores (PAV-LLR).

    The lowest Cllr that any monotonic (order-preserving) transformation of
    the scores reaches on these data; it measures discrimination only, and
    ``cllr - min_cllr`` is the calibration loss. Depends only on the order of
    the scores, which may be any real numbers or +/-inf.

    Parameters
    ----------
    {y_true}
    {y_score}
    p_target : float in (0, 1) or None, default=None
        As in :func:`cllr`; the PAV-LLR is optimal at every prior.
    {weight_label}

    Returns
    -------
    min_cllr : float
        Minimum Cllr in bits, in [0, 1].

    See Also
    --------
    cllr : The actual Cllr of LLRs.
    skcalib.PAVLLRCalibrator : The PAV-LLR as a transformer.

    Notes
    -----
    The PAV-LLR of block :math:`b` is
    :math:`\\log(T_b/N_b) - \\log(N_{tar}/N_{non})`; it minimizes every proper
    scoring rule over monotonic transformations (Brümmer and du Preez), so
    ``min_cllr <= cllr`` for any LLRs with the same order.

    {pav_references}

    Examples
    --------
    >>> from skcalib.metrics import min_cllr
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> round(min_cllr(y, [0.1, 0.2, 0.3, 0.4, 0.4, 0.9]), 4)
    0.4591
    >>> float(min_cllr(y, [0, 0, 0, 0, 0, 0]))  # one tied block
    1.0
    """
    trials = ScoredTrials._from_metric_inputs(y_true, y_score, sample_weight, pos_label)
    return trials.min_cllr(p_target)


@validate_params(
    trials_constraints(
        "llr",
        alpha=[_POSITIVE],
        beta=[_POSITIVE],
        p_target=[_PROB],
        normalize=["boolean"],
    ),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS, REFERENCES)
def beta_rule_loss(
    y_true,
    llr,
    *,
    alpha,
    beta,
    p_target=0.5,
    normalize=True,
    sample_weight=None,
    pos_label=None,
):
    """Prior-weighted expected cost of LLRs under a Beta-family scoring rule.

    The family of proper scoring rules of Brümmer and Doddington: ``alpha =
    beta = 1`` is the logarithmic rule (Cllr), ``alpha = beta = 2`` the
    Brier rule, ``alpha = beta = 1/2`` the boosting rule; other values weight
    applications (priors) differently.

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios; +/-inf allowed.
    alpha, beta : float > 0
        Rule parameters.
    p_target : float in (0, 1), default=0.5
        Target prior of the application the cost is measured for; the
        posterior of each trial is ``q = sigmoid(llr + logit(p_target))``.
    normalize : bool, default=True
        Whether to divide by the cost of the uninformative system ``llr = 0``,
        so that 1.0 means "no better than the prior".
    {weight_label}

    Returns
    -------
    loss : float
        The (normalized) prior-weighted cost. A confidently wrong infinite
        LLR gives ``inf`` under unbounded rules and a finite contribution
        under bounded ones.

    See Also
    --------
    cllr, brier_loss : The two most used members of the family.

    Notes
    -----
    .. math::

        \\bar C = \\frac{\\pi}{N_{tar}} \\sum_{tar} w_i C(q_i, tar)
                + \\frac{1-\\pi}{N_{non}} \\sum_{non} w_i C(q_i, non),

    .. math::

        C(q, tar) = \\frac{1}{B(\\alpha,\\beta)} \\int_q^1
                    c^{\\alpha-2} (1-c)^{\\beta-1} dc, \\\\
        C(q, non) = \\frac{1}{B(\\alpha,\\beta)} \\int_0^q
                    c^{\\alpha-1} (1-c)^{\\beta-2} dc.

    {brummer_doddington_references}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import beta_rule_loss
    >>> y = [0, 0, 1, 1]
    >>> float(beta_rule_loss(y, [0.0] * 4, alpha=3, beta=0.5))
    1.0
    >>> round(beta_rule_loss(y, [-2.0, -1.0, 1.5, 3.0], alpha=1, beta=1), 4)
    0.2489
    >>> round(beta_rule_loss(y, [-2.0, np.inf, 1.5, 3.0], alpha=2, beta=2), 4)
    1.0497
    """
    trials = ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr", instead=_LLR_INSTEAD
    )
    return trials.beta_rule_loss(alpha, beta, p_target=p_target, normalize=normalize)


@validate_params(
    trials_constraints("llr", p_target=[_PROB], normalize=["boolean"]),
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS)
def brier_loss(
    y_true, llr, *, p_target=0.5, normalize=True, sample_weight=None, pos_label=None
):
    """Prior-weighted Brier cost of LLRs (the Beta(2, 2) rule).

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios; +/-inf allowed (bounded: a confidently
        wrong trial costs 3 before weighting).
    p_target : float in (0, 1), default=0.5
        Target prior; the posterior is ``q = sigmoid(llr + logit(p_target))``.
    normalize : bool, default=True
        Whether to divide by the cost of ``llr = 0`` (``3 p_target (1-p_target)``).
    {weight_label}

    Returns
    -------
    loss : float
        The (normalized) prior-weighted Brier cost.

    See Also
    --------
    beta_rule_loss : The general family.
    sklearn.metrics.brier_score_loss : The mean squared error of
        probabilities; ``brier_loss(..., p_target=pi, normalize=False)`` is three
        times it when ``pi`` is the proportion of targets.

    Notes
    -----
    Per trial :math:`C(q, tar) = 3(1-q)^2` and :math:`C(q, non) = 3q^2`; the
    factor 3 makes it a member of the Beta family (``alpha = beta = 2``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import brier_loss
    >>> y = [0, 1]
    >>> float(brier_loss(y, [0.0, 0.0]))
    1.0
    >>> float(brier_loss(y, [np.inf, -np.inf], normalize=False))  # 3 per trial
    3.0
    """
    trials = ScoredTrials._from_metric_inputs(
        y_true,
        llr,
        sample_weight,
        pos_label,
        score_name="llr",
        instead=_BRIER_INSTEAD,
    )
    return trials.brier_loss(p_target=p_target, normalize=normalize)
