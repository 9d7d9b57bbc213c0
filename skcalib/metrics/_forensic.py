"""Forensic validation of an LR system: Cllr_cal, devPAV, LR bounds, rates.

The performance characteristics of the validation guideline of Meuwly,
Ramos and Haraksim (2017) that are not already a scoring rule: the
calibration loss ``cllr_cal``, the devPAV calibration metric (Vergeer et
al., 2021), the empirical lower and upper bounds on the LR (ELUB, Vergeer et
al., 2016) and the invariance-verification bounds (Alberink et al., 2025),
the rates of misleading evidence and the expected LRs under each hypothesis.

All of them are exact (no threshold grid) and come from one
:class:`ScoredTrials`: the bounds from linear passes over the trials
in buckets and a sort of the few buckets that can hold a bound, devPAV
from the PAV block summary, the rest from one linear pass. Every value is in
natural-log units, as every LLR in skcalib; the package ``lir`` works in
base 10 (divide an LLR by ``ln 10`` to compare). The functions are thin
wrappers over the methods of :class:`ScoredTrials` of the same names, whose
kernels are in :mod:`skcalib._kernel._forensic`.
"""

from __future__ import annotations

from numbers import Real

from ..utils._docstrings import fill_doc
from ..utils._sklearn_compat import Interval, validate_params
from ._params import LLR_METRIC_PARAMS, TRIALS_DOCS
from ._trials import ScoredTrials

__all__ = [
    "cllr_cal",
    "devpav",
    "elub_bounds",
    "expected_likelihood_ratios",
    "invariance_bounds",
    "misleading_evidence_rates",
]

# ----------------------------------------------------------------- functions
_GRID = Interval(Real, 0, None, closed="neither")


def _trials(y_true, llr, sample_weight, pos_label):
    return ScoredTrials._from_metric_inputs(
        y_true, llr, sample_weight, pos_label, score_name="llr"
    )


@validate_params(LLR_METRIC_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def cllr_cal(y_true, llr, *, sample_weight=None, pos_label=None):
    """Calibration loss: Cllr minus the minimum Cllr, in bits.

    The part of :func:`~skcalib.metrics.cllr` that an optimal monotone
    recalibration (PAV) of the LLRs would remove (Brümmer and du Preez,
    2006; Meuwly, Ramos and Haraksim, 2017): 0 for a system whose LLRs are
    the PAV-LLRs of these trials, positive otherwise.

    {llr_parameters}

    Returns
    -------
    cllr_cal : float
        ``cllr - min_cllr`` in bits, nonnegative (``inf`` for a confidently
        wrong trial).

    See Also
    --------
    cllr, min_cllr : The two terms.
    devpav : Another measure of calibration, in LLR units.

    References
    ----------
    .. [1] N. Brümmer and J. du Preez, "Application-independent evaluation of
       speaker detection", Computer Speech and Language 20, 2006.
    .. [2] D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the
       validation of likelihood ratio methods used for forensic evidence
       evaluation", Forensic Science International 276, 2017.

    Examples
    --------
    >>> from skcalib.metrics import cllr_cal
    >>> y = [0, 0, 1, 1]
    >>> round(cllr_cal(y, [-2.0, -1.0, 1.5, 3.0]), 4)  # separated: min Cllr 0
    0.2489
    >>> float(cllr_cal(y, [0.0, 0.0, 0.0, 0.0]))  # neutral: min Cllr 1
    0.0
    """
    return _trials(y_true, llr, sample_weight, pos_label).cllr_cal()


@validate_params(LLR_METRIC_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def devpav(y_true, llr, *, sample_weight=None, pos_label=None):
    """devPAV: the mean deviation of the PAV-transformed LLRs from the LLRs.

    The calibration metric of Vergeer et al. (2021), as ``lir.devpav``: the
    area between the curve of the PAV-transformed LLRs against the LLRs
    (points joined by straight lines) and the identity line, over the range
    of the LLRs, divided by that range. Computed exactly, segment by segment
    over the PAV blocks. Trials whose PAV-LLR is infinite (a block of one
    class at either end) are left out, as in lir; a finite PAV-LLR extended
    to an infinite LLR gives ``inf``.

    {llr_parameters}

    Returns
    -------
    devpav : float
        In natural-log units: lir's base-10 value times ``ln 10``. 0 for
        LLRs equal to their PAV transform; ``inf`` when the classes are
        separated (lir returns NaN there: its PAV curve is a vertical step)
        or a finite PAV-LLR reaches an infinite LLR.

    See Also
    --------
    cllr_cal : Calibration loss in bits.
    ScoredTrials.pav_llr : The PAV blocks.

    References
    ----------
    .. [1] P. Vergeer, Y. van Schaik and M. Sjerps, "Measuring calibration of
       likelihood-ratio systems: a comparison of four metrics, including a
       new metric devPAV", Forensic Science International 321, 110722, 2021,
       doi:10.1016/j.forsciint.2021.110722.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import devpav
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> llr = np.log([5, 5, 5, 0.2, 5, 0.2, 0.2, 0.2])
    >>> round(float(devpav(y, llr) / np.log(10)), 6)  # lir's base-10 value
    0.110924
    >>> bool(np.isclose(devpav(y, llr), (np.log(5) - np.log(3)) / 2))
    True
    """
    return _trials(y_true, llr, sample_weight, pos_label).devpav()


@validate_params(
    {**LLR_METRIC_PARAMS, "grid": [_GRID, None]}, prefer_skip_nested_validation=True
)
@fill_doc(TRIALS_DOCS)
def elub_bounds(y_true, llr, *, sample_weight=None, pos_label=None, grid=None):
    """Empirical lower and upper bounds (ELUB) on the LLR.

    The bounds of Vergeer et al. (2016), as ``lir``'s ``elub``: the LLRs
    beyond which the system, with one misleading trial added to each
    hypothesis, has a lower expected utility than the neutral LR 1 at
    deciding by thresholding the LR. A system's LLRs are then reported
    within them. Exact: the thresholds are continuous, not lir's grid.

    {llr_parameters}
    grid : float or None, default=None
        None for the exact bounds. A float: lir's value, on lir's grid of
        base-10 thresholds with this spacing (lir's ``step_size``, 0.01),
        rounded towards LLR 0 as lir does.

    Returns
    -------
    lower, upper : float
        The bounds as natural-log LLRs, ``lower <= 0 <= upper`` (LR bounds
        ``exp(lower)``, ``exp(upper)``; base 10: divide by ``ln 10``). Both
        0 if the system is worse than neutral at the threshold LR 1.

    See Also
    --------
    invariance_bounds : Bounds of Alberink et al. (2025).
    skcalib.BoundedCalibrator : A calibrator's LLRs clipped to its bounds.

    Notes
    -----
    With :math:`A_i(\\theta)` the weight of hypothesis :math:`H_i` trials
    with LR above :math:`\\theta` and :math:`n_i` the totals, the expected
    utility with one misleading trial added to each class is
    :math:`1 - A_1/(n_1 + 1) + \\theta (A_2 + 1)/(n_2 + 1)`; the neutral
    system's is :math:`\\min(\\theta, 1)`. The bounds are the thresholds
    nearest 1 where the first exceeds the second. Between consecutive LLRs
    the counts are constant, so each bound is either an LLR of the data or
    a root of a linear condition. No sort of all the trials is needed: in
    buckets of equal LLR width (a linear pass), a bucket can hold a bound
    only if the condition holds at its most favourable end and class
    weights, so only the buckets nearest LLR 0 that pass are sorted.

    References
    ----------
    .. [1] P. Vergeer, A. van Es, A. de Jongh, I. Alberink and R. Stoel,
       "Numerical likelihood ratios outputted by LR systems are often based
       on extrapolation: when to stop extrapolating?", Science & Justice 56,
       2016.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import elub_bounds
    >>> y = [0, 0, 1, 1, 1]
    >>> llr = np.log([0.01, 0.1, 1, 10, 100])
    >>> lo, hi = elub_bounds(y, llr)
    >>> round(float(np.exp(lo)), 6), round(float(np.exp(hi)), 6)  # LR 3/8, 3/2
    (0.375, 1.5)
    >>> lo, hi = elub_bounds(y, llr, grid=0.01)  # lir's published values
    >>> round(float(np.exp(lo)), 7), round(float(np.exp(hi)), 7)
    (0.3801894, 1.4791084)
    """
    return _trials(y_true, llr, sample_weight, pos_label).elub_bounds(grid=grid)


@validate_params(
    {**LLR_METRIC_PARAMS, "grid": [_GRID, "array-like", None]},
    prefer_skip_nested_validation=True,
)
@fill_doc(TRIALS_DOCS)
def invariance_bounds(y_true, llr, *, sample_weight=None, pos_label=None, grid=None):
    """Invariance-verification bounds on the LLR (Alberink et al., 2025).

    As ``lir``'s ``calculate_invariance_bounds``: with the Jeffreys-smoothed
    probabilities that an LLR of each hypothesis reaches a threshold, the
    upper bound is the lowest threshold above which the LR of exceeding it
    falls below the threshold itself, the lower bound the mirror image.
    Exact: continuous thresholds, not lir's grid.

    Parameters
    ----------
    {y_true}
    llr : array-like of shape (n_samples,)
        Natural-log likelihood ratios in favour of the target class (H1);
        +/-inf allowed (LLRs beyond +/-20 count as +/-20, as in lir).
    {weight_label}
    grid : float, array-like or None, default=None
        None for the exact bounds. A float: lir's value on its grid of
        base-10 thresholds with this spacing (lir's ``step_size``, 0.001);
        an array: lir's ``llr_threshold`` (base-10 thresholds).

    Returns
    -------
    lower, upper : float
        The bounds as natural-log LLRs, ``lower <= 0 <= upper``. If no
        threshold qualifies, the lowest H2 LLR (the highest H1 LLR), as
        in lir.

    See Also
    --------
    elub_bounds : Bounds of Vergeer et al. (2016).

    Notes
    -----
    With :math:`p_i(t) = (\\#\\{llr_i \\ge t\\} + 1/2)/(n_i + 1)`,
    :math:`\\Delta_{high}(t) = \\log p_1 - \\log p_2 - t` and
    :math:`\\Delta_{low}(t) = t - \\log(1 - p_1) + \\log(1 - p_2)`, over
    thresholds from ``min(0, lowest LLR)`` to ``max(0, highest LLR)``: the
    upper bound is where :math:`\\Delta_{high}` first turns negative, the
    lower bound where :math:`\\Delta_{low}` last is. Between consecutive LLRs
    both are linear in :math:`t`, so each bound is an LLR or a root.

    References
    ----------
    .. [1] I. Alberink, J. Leegwater, J. Malmborg, A. Nordgaard, M. Sjerps
       and L. van der Ham, "A transparent method to determine limit values
       for likelihood ratio systems", 2025.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import invariance_bounds
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> llr = [np.inf] * 3 + [-np.inf] * 3
    >>> lo, hi = invariance_bounds(y, llr)
    >>> round(float(np.exp(lo)), 6), round(float(np.exp(hi)), 6)  # LR 1/7, 7
    (0.142857, 7.0)
    """
    return _trials(y_true, llr, sample_weight, pos_label).invariance_bounds(grid=grid)


@validate_params(LLR_METRIC_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def misleading_evidence_rates(y_true, llr, *, sample_weight=None, pos_label=None):
    """Rates of misleading evidence: ``P(llr < 0 | H1)``, ``P(llr > 0 | H2)``.

    The share of H1 (target) trials whose LLR supports H2 and of H2 trials
    whose LLR supports H1 (Meuwly, Ramos and Haraksim, 2017); an LLR of
    exactly 0 misleads neither way.

    {llr_parameters}

    Returns
    -------
    rate_h1, rate_h2 : float
        ``P(llr < 0 | H1)`` and ``P(llr > 0 | H2)``, weighted.

    See Also
    --------
    skcalib.metrics.TippettDisplay : The two rates at every threshold.

    References
    ----------
    .. [1] D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the
       validation of likelihood ratio methods used for forensic evidence
       evaluation", Forensic Science International 276, 2017.

    Examples
    --------
    >>> from skcalib.metrics import misleading_evidence_rates
    >>> misleading_evidence_rates([1, 1, 1, 1, 0, 0], [2.0, -1.0, 0.0, 3.0, 0.5, -2.0])
    (0.25, 0.5)
    """
    return _trials(y_true, llr, sample_weight, pos_label).misleading_evidence_rates()


@validate_params(LLR_METRIC_PARAMS, prefer_skip_nested_validation=True)
@fill_doc(TRIALS_DOCS)
def expected_likelihood_ratios(y_true, llr, *, sample_weight=None, pos_label=None):
    """Expected ``1/LR`` under H1 and expected ``LR`` under H2.

    For LLRs that are calibrated likelihood ratios both are 1 (the LR is
    the ratio of the two densities, so its mean under H2 is the integral of
    the H1 density), and a value far from 1 shows miscalibration (Good,
    1985; Meuwly, Ramos and Haraksim, 2017). Computed in log space: stable
    for LLRs of +/-1000 and +/-inf, ``inf`` when an H2 LLR is ``+inf`` (or
    an H1 LLR ``-inf``) or the mean overflows.

    {llr_parameters}

    Returns
    -------
    inv_lr_h1, lr_h2 : float
        ``E[1/LR | H1] = mean(exp(-llr))`` over the target trials and
        ``E[LR | H2] = mean(exp(llr))`` over the non-target trials.

    References
    ----------
    .. [1] I. J. Good, "Weight of evidence: a brief survey", Bayesian
       Statistics 2, 1985.
    .. [2] D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the
       validation of likelihood ratio methods used for forensic evidence
       evaluation", Forensic Science International 276, 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import expected_likelihood_ratios
    >>> y = [1, 1, 0, 0]
    >>> llr = np.log([2.0, 4.0, 0.5, 1.0])
    >>> expected_likelihood_ratios(y, llr)
    (0.375, 0.75)
    """
    return _trials(y_true, llr, sample_weight, pos_label).expected_likelihood_ratios()
