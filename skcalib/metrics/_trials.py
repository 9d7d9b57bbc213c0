"""Scored trials, validated once and sorted once: every metric of one system.

:class:`ScoredTrials` is the one road from ``(y_true, y_score,
sample_weight)`` to the metrics: it validates the inputs once, runs the PAV
kernel (:func:`skcalib._kernel._pav.pav_blocks`) at most once, when a minimum metric
first needs it, and keeps the block summary and the ROC convex hull for every
later question. The metric functions (``min_dcf``, ``eer``, ``min_cllr``,
``rocch``, ``actual_dcf``, ``cllr``, ``bayes_error_curve``), the displays,
the bootstrap and the command line all go through it. Design note:
docs/design/evaluation_objects.rst.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from scipy.special import expit, logit

from .._dask import any_dask_collection
from .._data._trials import ArrayTrials, log_loss_ratio
from .._kernel._forensic import (
    devpav_from_blocks,
    elub_bounds_unsorted,
    elub_from_values,
    elub_on_grid,
    expected_lrs,
    invariance_bounds_unsorted,
    invariance_from_values,
    invariance_on_grid,
    misleading_rates,
    sorted_values,
)
from .._kernel._pav import (
    BlockSummary,
    block_llr,
    block_proba,
    pav_merge,
    pav_point_index,
    pav_points,
    rocch_from_blocks,
)
from .._kernel._special import (
    beta_rule_costs,
    cllr_bits_sorted,
    log1pexp,
    uninformative_objective,
)
from ..utils._docstrings import doc_blocks, fill_doc
from ..utils._numpy_compat import count_nonzero, einsum
from ..utils._sklearn_compat import Interval, validate_parameter_constraints
from ._application import Application, as_applications, normalized_dcf

__all__ = [
    "ScoredTrials",
    "Resampler",
    "ResamplingUnits",
    "check_prior_log_odds",
    "fit_inputs",
]

_POS_LABEL = [Real, str, "boolean", None]
_PROB = Interval(Real, 0, 1, closed="neither")
_POSITIVE = Interval(Real, 0, None, closed="neither")

_LOG2 = math.log(2.0)


_DOCS = doc_blocks(
    application_parameters="""
        p_target : float in (0, 1), Application or a sequence of them
            Target prior(s) of the applications, or the applications.
        c_miss : float > 0, default=1.0
            Cost of a miss (of a float ``p_target``).
        c_fa : float > 0, default=1.0
            Cost of a false alarm (of a float ``p_target``).
        normalize : bool, default=True
            Whether to divide by the cost of the best trivial system.
        """
)

#: The grid and the returns of a Bayes error-rate curve (also of
#: :func:`skcalib.metrics.bayes_error_curve`).
BAYES_ERROR_DOCS = doc_blocks(
    bayes_grid="""
        Parameters
        ----------
        prior_log_odds : float or array-like of shape (n_points,)
            Finite prior log-odds.
        """,
    bayes_actual="""
        actual : ndarray of shape (n_points,)
            Normalized actual DCF at each prior log-odds.
        """,
    bayes_minimum="""
        minimum : ndarray of shape (n_points,)
            Normalized minimum DCF at each prior log-odds.
        """,
)


class ScoredTrials:
    """Scored trials of one system, sorted and pooled once for evaluation.

    Built once from labels, scores and weights, it validates them once and
    holds the pool-adjacent-violators (PAV) block summary of the scores and
    their ROC convex hull (ROCCH), computed on the first question that needs
    them. It then answers every minimum metric -- minimum DCF at any number
    of applications, EER, minimum Cllr, the hull, the ROC and DET curves,
    the PAV-LLRs, Bayes error-rate curves -- without sorting again, and,
    reading the scores as natural-log likelihood ratios, the actual DCF,
    Cllr and the Beta-family (Brier) losses. It is the way to evaluate one
    system at many operating points; the metric functions of
    :mod:`skcalib.metrics` are thin wrappers that build one and ask it once,
    and :func:`bootstrap_ci` resamples it without sorting again.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_score : array-like of shape (n_samples,)
        Scores, higher favouring the target class; +/-inf allowed, NaN not.
        The minimum metrics use only their order; :meth:`actual_dcf`,
        :meth:`cllr`, :meth:`beta_rule_loss`, :meth:`brier_loss` and the
        actual curve of :meth:`bayes_error_curve` read them as natural-log
        LLRs.
    sample_weight : array-like of shape (n_samples,), default=None
        Trial weights; zero-weight trials are ignored.
    pos_label : int, float, bool or str, default=None
        The target label. May be omitted for labels in {0, 1}, {-1, 1} or
        booleans.

    See Also
    --------
    Application : A validated ``(p_target, c_miss, c_fa)``.
    min_dcf, eer, min_cllr, rocch : The same values from one call each.
    bootstrap_ci : Confidence intervals of these metrics.

    Notes
    -----
    The scores are sorted once into PAV blocks :math:`b` with target and
    non-target weights :math:`T_b, N_b`; the block LLRs
    :math:`\\log(T_b/N_b) - \\log(N_{tar}/N_{non})` increase, and the hull
    vertices are the cumulative :math:`(P_{miss}, P_{fa})` at the block
    boundaries. Every minimum metric is a linear pass over the blocks
    (Brümmer and du Preez; Fawcett and Niculescu-Mizil). Dask collections
    are accepted: the block summary then comes from the distributed kernel
    and the actual metrics from one pass over the partitions.

    References
    ----------
    .. [1] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
       proper scoring rules", arXiv:1304.2331, 2013.
    .. [2] T. Fawcett and A. Niculescu-Mizil, "PAV and the ROC convex hull",
       Machine Learning 68, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import Application, ScoredTrials
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> trials = ScoredTrials(y, [0.1, 0.2, 0.3, 0.4, 0.4, 0.9])
    >>> round(trials.eer(), 4), round(trials.min_cllr(), 4)
    (0.2222, 0.4591)
    >>> trials.min_dcf([0.01, 0.1, 0.5]).round(4).tolist()  # one sort for all
    [0.6667, 0.6667, 0.3333]
    >>> round(trials.min_dcf(Application(0.1, c_miss=10.0)), 4)
    0.3333

    Tied scores are one operating point, and +/-inf are valid LLRs:

    >>> llr = ScoredTrials([0, 1, 1], [-np.inf, 0.0, 0.0])
    >>> float(llr.eer()), float(llr.cllr())
    (0.0, 0.5)
    """

    def __init__(self, y_true, y_score, *, sample_weight=None, pos_label=None):
        validate_parameter_constraints(
            {
                "y_true": ["array-like"],
                "y_score": ["array-like"],
                "sample_weight": ["array-like", None],
                "pos_label": _POS_LABEL,
            },
            {
                "y_true": y_true,
                "y_score": y_score,
                "sample_weight": sample_weight,
                "pos_label": pos_label,
            },
            caller_name="ScoredTrials",
        )
        self._setup(y_true, y_score, sample_weight, pos_label, "y_score")

    @classmethod
    def _from_metric_inputs(
        cls,
        y_true,
        y_score,
        sample_weight,
        pos_label,
        *,
        score_name="y_score",
        instead=None,
    ):
        """The trials of a metric function, whose ``validate_params`` already
        checked the parameter types; data errors name ``score_name``.

        ``instead``: for a metric of LLRs, what to pass instead of
        probabilities, said if every score lies in [0, 1] (in-memory trials;
        the warning points at the metric's caller).
        """
        trials = cls.__new__(cls)
        trials._setup(y_true, y_score, sample_weight, pos_label, score_name)
        if instead is not None:
            # caller -> validate_params -> metric -> here -> the check
            trials._data.warn_if_probabilities(score_name, instead, stacklevel=5)
        return trials

    @classmethod
    def _of_replicate(cls, replicate, arrays=None):
        """A bootstrap resample: trials whose block summary comes from
        ``replicate`` (the resample's weights over points sorted once), and
        whose actual metrics come from ``arrays`` if given, else from the
        replicate's weighted sums over per-trial terms."""
        trials = cls.__new__(cls)
        trials._reset()
        trials._data = None if arrays is None else ArrayTrials(*arrays)
        trials._replicate = replicate
        return trials

    def _reset(self):
        self._blocks = None
        self._ranged = None
        self._hull = None
        self._block_llr = None

    def _setup(self, y_true, y_score, sample_weight, pos_label, score_name):
        """Choose the data object once: the trials in memory, or on Dask
        (validated by the distributed passes, which also read the data)."""
        self._reset()
        self._replicate = None
        if any_dask_collection(y_true, y_score, sample_weight):
            from .._dask._trials import DaskTrials

            self._data = DaskTrials(
                y_true,
                y_score,
                sample_weight,
                pos_label=pos_label,
                score_name=score_name,
            )
        else:
            self._data = ArrayTrials.validate(
                y_true, y_score, sample_weight, pos_label, score_name
            )

    # ------------------------------------------------------------ summaries
    def _trial_arrays(self):
        """``(is_target, scores, sample_weight)`` without zero-weight trials.

        Dropped once, so that no actual metric forms ``0 * inf`` for an
        infinite LLR of a trial that should not count.
        """
        return self._trial_data("This metric").positive()

    def _kernel_points(self):
        """The kernel's ordered points (ties and runs of one class pooled,
        score ranges kept): the one sort of these trials."""
        return self._trial_data("This metric").points()

    def _summary(self):
        """The PAV block summary: the one kernel run of these trials."""
        if self._blocks is None:
            source = self._data if self._replicate is None else self._replicate
            self._blocks = source.blocks()
        return self._blocks

    def _sums(self):
        """What answers the actual metrics: the trials' data object, or the
        weighted sums of a bootstrap resample that holds no trials."""
        return self._data if self._data is not None else self._replicate

    def _ranged_blocks(self):
        """The block summary with each block's score range."""
        if self._replicate is not None:
            if self._ranged is None:
                # A replicate's blocks are numbered by point, and a point of
                # the original trials (a pooled run) may be drawn in part: the
                # ranges come from the drawn trials, with their counts as
                # weights (integers: the same blocks), sorted once more.
                is_target, x, w = self._replicate.weighted_arrays()
                drawn = w > 0
                points = pav_points(x[drawn], is_target[drawn], w[drawn])
                self._ranged = pav_merge(points)
            return self._ranged
        blocks = self._summary()
        if blocks.lo is None:
            # the same blocks (integer counts: exact), now with their ranges
            self._blocks = blocks = pav_merge(self._kernel_points())
        return blocks

    def _sorted_classes(self):
        """``(tar, non)``: each class's scores sorted, from the one sort (read
        only); None where that sort does not form them (weighted or few
        trials, a resample, Dask trials)."""
        if self._replicate is not None or not isinstance(self._data, ArrayTrials):
            return None
        return self._data.sorted_classes()

    def _rocch(self):
        """The hull vertices ``(pmiss, pfa)``, computed once (not copied)."""
        if self._hull is None:
            self._hull = rocch_from_blocks(self._summary())
        return self._hull

    def _llr_of_blocks(self):
        blocks = self._summary()
        if self._block_llr is None:
            n_tar = float(np.add.reduce(blocks.tar))  # .sum(), without its
            n_non = float(np.add.reduce(blocks.non))  # Python wrapper
            self._block_llr = block_llr(blocks, n_tar, n_non)
        return self._block_llr

    def _trial_data(self, what):
        if self._data is None:
            raise ValueError(
                f"{what} needs the trials themselves; a bootstrap resample "
                "holds only their weights over the sorted trials."
            )
        return self._data

    def _require_arrays(self, what):
        # a drawing needs every trial in memory (Dask trials: computed once)
        return self._trial_data(what).arrays()

    def as_arrays(self):
        """The validated trials: labels, scores and weights as arrays.

        Returns
        -------
        is_target : ndarray of shape (n_trials,), dtype=bool
            Whether each trial is a target trial.
        scores : ndarray of shape (n_trials,), dtype=float64
            The scores (+/-inf allowed).
        sample_weight : ndarray of shape (n_trials,) or None
            The positive weights, or None for unweighted trials.

        Trials of zero weight are left out. Dask inputs are computed here.
        The arrays are the object's own: do not modify them.
        """
        return self._trial_arrays()

    # ------------------------------------------------------- minimum metrics
    def rocch(self):
        """Vertices of the ROC convex hull, as miss and false-alarm rates.

        Returns
        -------
        pmiss : ndarray of shape (n_vertices,)
            Miss rate at each vertex, increasing from 0 (accept all) to 1.
        pfa : ndarray of shape (n_vertices,)
            False-alarm rate at each vertex, decreasing from 1 to 0.
        """
        pmiss, pfa = self._rocch()
        return pmiss.copy(), pfa.copy()

    def roc_curve(self):
        """The empirical ROC curve, one vertex per ordered point.

        The points of the PAV kernel: runs of tied scores, and runs of
        consecutive scores of one class (a straight stretch of the curve
        along an axis, so the curve drawn is the full ROC).

        Returns
        -------
        fpr : ndarray of shape (n_points + 1,)
            False-alarm rate, increasing from 0 (reject all) to 1.
        tpr : ndarray of shape (n_points + 1,)
            True-positive rate ``1 - P_miss``, increasing from 0 to 1.
        """
        pmiss, pfa = rocch_from_blocks(self._kernel_points())
        return pfa[::-1].copy(), 1.0 - pmiss[::-1]

    def pav_llr(self):
        """The PAV-LLR of the scores: one LLR per PAV block, with its range.

        The optimal monotone score-to-LLR map on these trials (Brümmer and
        du Preez): a block without non-targets has LLR ``+inf``, one without
        targets ``-inf``.

        Returns
        -------
        llr : ndarray of shape (n_blocks,)
            PAV-LLR of each block, increasing.
        lo, hi : ndarray of shape (n_blocks,)
            Lowest and highest score in each block.
        """
        blocks = self._ranged_blocks()
        n_tar, n_non = float(blocks.tar.sum()), float(blocks.non.sum())
        return block_llr(blocks, n_tar, n_non), blocks.lo, blocks.hi

    def pav_proba(self):
        """The PAV posterior of each block, ``T_b / (T_b + N_b)``.

        The isotonic regression of the labels on the scores (at the class
        proportions of these trials), block by block as in :meth:`pav_llr`.

        Returns
        -------
        proba : ndarray of shape (n_blocks,)
            Target fraction of each block, increasing.
        """
        return block_proba(self._summary())

    def eer(self, return_threshold=False):
        """Equal error rate of the ROC convex hull (ROCCH-EER).

        Parameters
        ----------
        return_threshold : bool, default=False
            Whether to return the score threshold of the hull vertex nearest
            the EER too.

        Returns
        -------
        eer : float
            The error rate where the hull crosses ``P_miss == P_fa``, in
            [0, 0.5].
        threshold : float
            Only if ``return_threshold``: deciding "target" for the scores
            ``>= threshold`` gives the hull vertex at the crossing, or, when
            the hull crosses inside a segment (an operating point that
            randomizes over one PAV block), the segment's end whose
            ``|P_miss - P_fa|`` is smaller (the lower-score end on a tie).
            It is the lowest score of the first accepted PAV block, a score
            of the trials. See :func:`~skcalib.metrics.eer`.
        """
        _check_bool(return_threshold, "return_threshold", "eer")
        pmiss, pfa = self._rocch()
        value = _eer_from_hull(pmiss, pfa)
        if not return_threshold:
            return value
        return value, _eer_threshold(self._ranged_blocks().lo, pmiss, pfa)

    @fill_doc(_DOCS)
    def min_dcf(
        self, p_target, *, c_miss=1.0, c_fa=1.0, normalize=True, return_rates=False
    ):
        """Minimum detection cost at one or many applications.

        The lowest DCF over all thresholds on the scores (the vertices of the
        ROC convex hull, accept-all and reject-all included).

        Parameters
        ----------
        {application_parameters}
        return_rates : bool, default=False
            Whether to also return the error rates of the best operating
            point.

        Returns
        -------
        dcf : float or ndarray of shape (n_points,)
            The (normalized) minimum DCF; an array for a sequence.
        p_miss, p_fa : float or ndarray of shape (n_points,)
            The miss and false-alarm rates where the minimum is reached; only
            if ``return_rates=True``.
        """
        apps, scalar = as_applications(
            p_target, c_miss, c_fa, caller="ScoredTrials.min_dcf"
        )
        _check_bool(normalize, "normalize", "min_dcf")
        out = np.empty((3, len(apps)))
        for i, app in enumerate(apps):
            out[:, i] = self._min_dcf_point(app, normalize)
        return _shaped(out if return_rates else out[0], scalar)

    def _min_dcf_point(self, app: Application, normalize=True):
        """``(dcf, p_miss, p_fa)`` of the operating point of lowest DCF."""
        if self._replicate is not None and self._blocks is None:
            # a resample not yet pooled: its ROC points hold the same minimum
            return self._replicate.min_dcf_point(app, normalize)
        pmiss, pfa = self._rocch()
        if normalize:  # app.dcf, without its checks of the rates
            w_miss, w_fa = app.miss_weight, app.fa_weight
            cost = normalized_dcf(w_miss, w_fa, pmiss, pfa, nonnegative=True)
        else:
            cost = app.dcf(pmiss, pfa, normalize=False)
        k = int(cost.argmin())
        return cost.item(k), pmiss.item(k), pfa.item(k)

    def min_cllr(self, p_target=None):
        """Minimum Cllr: the Cllr of the PAV-LLRs of the scores, in bits.

        Parameters
        ----------
        p_target : float in (0, 1) or None, default=None
            None: Cllr with the two classes weighted equally; a float: the
            prior-weighted log loss at ``p_target``, normalized by that of
            ``llr = 0``.

        Returns
        -------
        min_cllr : float
            In [0, 1].
        """
        p = _prior(p_target, "min_cllr")
        blocks = self._summary()
        return _pav_cllr(blocks.tar, blocks.non, 0.5 if p is None else p)

    def det_curve(self):
        """The DET curve: false-alarm and miss rates at every threshold.

        The steppy curve of scikit-learn's ``det_curve`` (one point per
        distinct score), computed on the ranks of the scores, so that +/-inf
        and huge scores are accepted.

        Returns
        -------
        fpr : ndarray of shape (n_thresholds,)
            False-alarm rate, decreasing.
        fnr : ndarray of shape (n_thresholds,)
            Miss rate, increasing.
        """
        from sklearn.metrics import det_curve

        is_target, s, w = self._require_arrays("det_curve")
        # scikit-learn's curve only depends on the order of the scores, but
        # its finiteness check refuses +/-inf (valid scores and LLRs) and sums
        # the scores first (1.7e308 + 1.7e308 overflows): it gets their
        # ranks, ties kept
        ranks = np.unique(s, return_inverse=True)[1].reshape(-1)
        fpr, fnr, _ = det_curve(is_target, ranks, sample_weight=w)
        return fpr, fnr

    # ----------------------------------------------- the scores read as LLRs
    @fill_doc(_DOCS)
    def actual_dcf(
        self, p_target, *, c_miss=1.0, c_fa=1.0, normalize=True, return_rates=False
    ):
        """Actual detection cost of the Bayes decisions on the scores as LLRs.

        Each trial is accepted iff its score is at least the application's
        Bayes threshold ``-logit(effective prior)``.

        Parameters
        ----------
        {application_parameters}
        return_rates : bool, default=False
            Whether to also return the error rates of the decisions.

        Returns
        -------
        dcf : float or ndarray of shape (n_points,)
            The (normalized) actual DCF.
        p_miss, p_fa : float or ndarray of shape (n_points,)
            The miss and false-alarm rates of the decisions; only if
            ``return_rates=True``.
        """
        apps, scalar = as_applications(
            p_target, c_miss, c_fa, caller="ScoredTrials.actual_dcf"
        )
        _check_bool(normalize, "normalize", "actual_dcf")
        p_miss, p_fa = self._error_rates([app.threshold for app in apps])
        dcf = [
            app.dcf(float(m), float(f), normalize=normalize)
            for app, m, f in zip(apps, p_miss, p_fa, strict=True)
        ]
        out = np.array([dcf, p_miss, p_fa], dtype=float)
        return _shaped(out if return_rates else out[0], scalar)

    def _error_rates(self, thresholds):
        """``(P_miss, P_fa)`` of the decisions ``score >= t`` at each threshold."""
        thresholds = np.asarray(thresholds, dtype=np.float64)
        return self._sums().error_rates(thresholds)

    def cllr(self, p_target=None):
        """Cllr of the scores read as LLRs, in bits.

        Parameters
        ----------
        p_target : float in (0, 1) or None, default=None
            None: the two classes weighted equally (``llr = 0`` gives exactly
            1 bit); a float: the prior-weighted log loss at ``p_target``,
            normalized by that of ``llr = 0``.

        Returns
        -------
        cllr : float
            0 for a perfect system; ``inf`` for a confidently wrong trial.
        """
        p_target = _prior(p_target, "cllr")
        return self._sums().cllr(p_target)

    def beta_rule_loss(self, alpha, beta, *, p_target=0.5, normalize=True):
        """Prior-weighted cost of the scores as LLRs under a Beta-family rule.

        ``alpha = beta = 1`` is the logarithmic rule (Cllr in nats),
        ``alpha = beta = 2`` the Brier rule (Brümmer and Doddington, 2013);
        see :func:`~skcalib.metrics.beta_rule_loss`.

        Parameters
        ----------
        alpha, beta : float > 0
            Rule parameters.
        p_target : float in (0, 1), default=0.5
            Target prior; the posterior of a trial is
            ``sigmoid(llr + logit(p_target))``.
        normalize : bool, default=True
            Whether to divide by the cost of the uninformative ``llr = 0``.

        Returns
        -------
        loss : float
            The (normalized) prior-weighted cost.
        """
        validate_parameter_constraints(
            {
                "alpha": [_POSITIVE],
                "beta": [_POSITIVE],
                "p_target": [_PROB],
                "normalize": ["boolean"],
            },
            {
                "alpha": alpha,
                "beta": beta,
                "p_target": p_target,
                "normalize": normalize,
            },
            caller_name="ScoredTrials.beta_rule_loss",
        )
        return self._rule_loss(alpha, beta, p_target, normalize)

    def brier_loss(self, *, p_target=0.5, normalize=True):
        """Prior-weighted Brier cost of the scores as LLRs (Beta(2, 2) rule).

        Parameters
        ----------
        p_target : float in (0, 1), default=0.5
            Target prior; the posterior of a trial is
            ``sigmoid(llr + logit(p_target))``.
        normalize : bool, default=True
            Whether to divide by the cost of ``llr = 0``
            (``3 p_target (1 - p_target)``).

        Returns
        -------
        loss : float
            The (normalized) prior-weighted Brier cost.
        """
        return self.beta_rule_loss(2.0, 2.0, p_target=p_target, normalize=normalize)

    def _rule_loss(self, alpha, beta, p_target, normalize):
        loss = self._sums().rule_loss(alpha, beta, p_target)
        if normalize:
            loss /= uninformative_objective(alpha, beta, p_target)
        return float(loss)

    @fill_doc(BAYES_ERROR_DOCS)
    def bayes_error_curve(self, prior_log_odds):
        """Actual and minimum normalized DCF over a grid of prior log-odds.

        The data of a Bayes error-rate plot: at each prior log-odds ``eta``
        (effective prior ``sigmoid(eta)``), the normalized DCF of the
        decisions ``score >= -eta`` (the scores read as LLRs) and the
        normalized minimum DCF. Each grid point costs a binary search.

        {bayes_grid}

        Returns
        -------
        {bayes_actual}
        {bayes_minimum}
        """
        plo = check_prior_log_odds(prior_log_odds)
        return self._bayes_error_curve(plo, actual=True)

    @fill_doc(BAYES_ERROR_DOCS)
    def bayes_error_rates(self, prior_log_odds):
        """Normalized minimum DCF over a grid of prior log-odds.

        The minimum curve of :meth:`bayes_error_curve`, which uses only the
        order of the scores.

        {bayes_grid}

        Returns
        -------
        {bayes_minimum}
        """
        plo = check_prior_log_odds(prior_log_odds)
        return self._bayes_error_curve(plo, actual=False)[1]

    def _bayes_error_curve(self, plo, *, actual=True):
        pe, one_minus_pe = expit(plo), expit(-plo)
        thresholds = -plo
        if actual:
            p_miss, p_fa = self._error_rates(thresholds)
            actual = normalized_dcf(pe, one_minus_pe, p_miss, p_fa)
        else:
            actual = None
        # Minimum: the hull vertex where the PAV-LLRs cross the threshold; the
        # two neighbours are checked too so that rounding in the block LLRs
        # cannot pick the wrong side (the cost is convex along the hull).
        pmiss_h, pfa_h = self._rocch()
        k = np.searchsorted(self._llr_of_blocks(), thresholds, side="left")
        last = pmiss_h.shape[0] - 1
        cand = np.clip(k[None, :] + np.arange(-1, 2)[:, None], 0, last)
        minimum = normalized_dcf(pe, one_minus_pe, pmiss_h[cand], pfa_h[cand])
        return actual, minimum.min(axis=0)

    # ------------------------------------------------ forensic validation
    # The metrics of skcalib.metrics._forensic (documented there in full),
    # read from this one object; kernels in skcalib._kernel._forensic.
    def _sorted_values(self):
        """The distinct scores with each class's weight: one sort, cached."""
        values = getattr(self, "_values", None)
        if values is None:
            values = self._values = sorted_values(*self._trial_arrays())
        return values

    def cllr_cal(self):
        """Calibration loss ``cllr() - min_cllr()``, in bits.

        Returns
        -------
        cllr_cal : float
            Nonnegative; ``inf`` for a confidently wrong trial.
        """
        minimum = self.min_cllr()
        # each class's LLRs sorted, from the sort of min_cllr (many
        # unweighted trials): one logarithm per 64 trials, to within 1e-13
        # of cllr(), which takes one per trial
        classes = self._sorted_classes()
        loss = None if classes is None else cllr_bits_sorted(*classes)
        if loss is None:
            loss = self.cllr()
        if math.isinf(loss):
            return loss
        return max(loss - minimum, 0.0)

    def devpav(self):
        """devPAV of the scores read as natural-log LLRs (Vergeer et al.,
        2021), exact, in natural-log units (lir's base-10 value times
        ``ln 10``); see :func:`skcalib.metrics.devpav`.

        Returns
        -------
        devpav : float
            Nonnegative, ``inf`` for separated classes or a finite PAV-LLR
            reaching an infinite LLR.
        """
        return devpav_from_blocks(*self.pav_llr())

    def elub_bounds(self, *, grid=None):
        """Empirical lower and upper bounds on the LLR (Vergeer et al.,
        2016), exact; see :func:`skcalib.metrics.elub_bounds`.

        Parameters
        ----------
        grid : float or None, default=None
            None for the exact bounds, else lir's base-10 grid spacing.

        Returns
        -------
        lower, upper : float
            Natural-log LLR bounds, ``lower <= 0 <= upper``.
        """
        if grid is not None:
            grid = float(grid)
        return self._llr_bounds(
            grid, elub_bounds_unsorted, elub_from_values, elub_on_grid
        )

    def invariance_bounds(self, *, grid=None):
        """Invariance-verification bounds on the LLR (Alberink et al.,
        2025), exact; see :func:`skcalib.metrics.invariance_bounds`.

        Parameters
        ----------
        grid : float, array-like or None, default=None
            None for the exact bounds, else lir's base-10 grid spacing or
            thresholds.

        Returns
        -------
        lower, upper : float
            Natural-log LLR bounds, ``lower <= 0 <= upper``.
        """
        return self._llr_bounds(
            grid,
            invariance_bounds_unsorted,
            invariance_from_values,
            invariance_on_grid,
        )

    def _llr_bounds(self, grid, unsorted, from_values, on_grid):
        """``(lower, upper)`` by the kernel's three roads to a pair of bounds:
        on the unsorted trials, on the sorted values, on a grid."""
        if grid is None and getattr(self, "_values", None) is None:
            # no sort of all the trials needed (exact all the same)
            bounds = unsorted(*self._trial_arrays())
        elif grid is None:
            bounds = from_values(*self._sorted_values())
        else:
            bounds = on_grid(*self._sorted_values(), grid)
        return float(bounds[0]), float(bounds[1])

    def misleading_evidence_rates(self):
        """``(P(llr < 0 | H1), P(llr > 0 | H2))`` of the scores as LLRs.

        Returns
        -------
        rate_h1, rate_h2 : float
            The weighted shares of misleading target and non-target trials.
        """
        return misleading_rates(*self._trial_arrays())

    def expected_likelihood_ratios(self):
        """``(E[1/LR | H1], E[LR | H2])`` of the scores as natural-log LLRs:
        both 1 for a calibrated system; see
        :func:`skcalib.metrics.expected_likelihood_ratios`.

        Returns
        -------
        inv_lr_h1, lr_h2 : float
            Computed in log space (``inf`` where the mean is infinite).
        """
        return expected_lrs(*self._trial_arrays())


class ResamplingUnits:
    """Bootstrap resampling units: the rows, or whole groups of rows.

    Parameters
    ----------
    n_samples : int
        The number of rows.
    groups : array-like of shape (n_samples,), default=None
        Group of each row; a unit is then a group.

    Attributes
    ----------
    n_units : int
        The number of units (at least 2).
    group_of_row : ndarray of shape (n_samples,) or None
        The unit number of each row's group.
    """

    def __init__(self, n_samples, groups=None):
        self.n_samples = n_samples
        self.group_of_row = None
        self.n_units = n_samples
        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != (n_samples,):
                raise ValueError(
                    f"`groups` must have shape ({n_samples},) like `y_score`; "
                    f"got {groups.shape}."
                )
            _, group_of_row = np.unique(groups, return_inverse=True)
            self.group_of_row = group_of_row.reshape(-1)
            self.n_units = int(self.group_of_row.max()) + 1
        if self.n_units < 2:
            raise ValueError(
                f"At least two resampling units are needed; got {self.n_units} "
                f"{'group' if groups is not None else 'trial'}."
            )

    def multiplicity(self, idx):
        """How often each row is in the resample of units ``idx``."""
        counts = np.bincount(idx, minlength=self.n_units)
        if self.group_of_row is None:
            return counts
        return counts[self.group_of_row]

    def rows(self, idx):
        """The rows of the resample of units ``idx`` (with repeats)."""
        if self.group_of_row is None:
            return idx
        return np.repeat(np.arange(self.n_samples), self.multiplicity(idx))


class Resampler:
    """Bootstrap resamples of scored trials, as weights over them sorted once.

    A resample of ``n`` units drawn with replacement is the same trials with
    integer weights (how often each was drawn): the ordered points of the
    PAV kernel, computed once, receive the summed weights of their trials,
    so a minimum metric re-runs PAV (or a pass over the points) without
    sorting, and an actual metric (actual DCF, Cllr, Beta-family losses) is
    a weighted sum of per-trial terms computed once.

    Unweighted trials resampled one by one are exchangeable, so the drawn
    unit numbers need not be the caller's row numbers: unit ``j`` is the
    ``j``-th trial in the order "targets by increasing score, then
    non-targets by increasing score", and a resample's weights are the
    counts of the drawn units in that order. Cumulative counts at fixed
    positions then give the class weights of every point and the errors at
    every threshold. Weighted trials and groups keep the caller's rows
    (units are rows, or groups of rows): the resample's weights, times the
    sample weights, are summed per point with a code per row.

    Parameters
    ----------
    trials : ScoredTrials
        The trials (a Dask input is computed here).
    groups : array-like of shape (n_samples,), default=None
        Group of each trial; whole groups are drawn.

    Attributes
    ----------
    units : ResamplingUnits
        The resampling units (trials or groups).
    """

    def __init__(self, trials: ScoredTrials, groups=None):
        is_target, x, w = trials._require_arrays("The bootstrap")
        self.units = ResamplingUnits(x.shape[0], groups)
        if groups is None and w is None:
            self._layout = _ArrangedLayout(trials, is_target, x)
        else:
            self._layout = _RowLayout(is_target, x, w)

    def __call__(self, idx):
        """The resample of the drawn units ``idx``, as scored trials.

        Raises a ``ValueError`` if it holds no trial of one class.
        """
        if isinstance(self._layout, _ArrangedLayout):
            counts = np.bincount(idx, minlength=self.units.n_units)
            replicate = _ArrangedReplicate(self._layout, counts, idx.shape[0])
            return ScoredTrials._of_replicate(replicate)
        replicate = _RowReplicate(self._layout, self.units.multiplicity(idx))
        return ScoredTrials._of_replicate(replicate, replicate.arrays())


def _no_class_error(n_tar):
    return ValueError(
        "A bootstrap resample holds no "
        f"{'target' if n_tar == 0 else 'non-target'} trials, so the metric is "
        "undefined on it; use more trials, or groups that each hold both "
        "classes."
    )


class _Replicate:
    """What the resampled trials answer from their weights: the points'
    cumulative class weights, and from them the blocks and the minimum DCF
    over the ROC points."""

    def point_cumulative(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def blocks(self):
        cum_tar, cum_non = self.point_cumulative()
        tar, non = np.diff(cum_tar), np.diff(cum_non)
        keep = np.flatnonzero(tar + non > 0)  # PAV needs positive weights
        position = keep.astype(np.float64)
        tar, non = tar[keep].astype(np.float64), non[keep].astype(np.float64)
        return pav_merge(BlockSummary(position, position, tar, non))

    def min_dcf_point(self, app, normalize):
        """``(dcf, p_miss, p_fa)`` of the lowest DCF over the ROC points.

        The minimum of a linear cost over the points equals its minimum over
        their convex hull, so no PAV is needed. The cost at each point is
        ``a * misses + b * false_alarms`` with the normalized cost weights
        over the class totals as ``a`` and ``b``: one pass finds the best
        point (a sum of two nonnegative terms, so no cancellation), and the
        metric's own formula gives the value there. Extreme applications (a
        weight ratio that overflows) take the formula at every point.
        """
        cum_tar, cum_non = self.point_cumulative()
        w_miss, w_fa = app.miss_weight, app.fa_weight
        if normalize:  # the smaller weight 1, the larger their ratio
            small, large = min(w_miss, w_fa), max(w_miss, w_fa)
            ratio = large / small if small > 0 else math.inf
            a, b = (1.0, ratio) if w_miss <= w_fa else (ratio, 1.0)
        else:
            a, b = w_miss, w_fa
        n_tar, n_non = cum_tar[-1], cum_non[-1]
        if cum_tar.shape[0] > 1024 and math.isfinite(a) and math.isfinite(b):
            if a > 0 and b > 0:  # else one pass is as fast
                cost = cum_tar * (a / n_tar)
                cost += (n_non - cum_non) * (b / n_non)
                k = int(np.argmin(cost))
                cum_tar, cum_non = cum_tar[k : k + 1], cum_non[k : k + 1]
        p_miss, p_fa = cum_tar / n_tar, (n_non - cum_non) / n_non
        cost = app.dcf(p_miss, p_fa, normalize=normalize)
        k = int(np.argmin(cost))
        return float(cost[k]), float(p_miss[k]), float(p_fa[k])


class _ArrangedLayout:
    """Unweighted trials as units "targets by score, then non-targets by
    score": the positions of the point boundaries, and, once an actual
    metric asks, the class-sorted scores and per-trial terms."""

    def __init__(self, trials, is_target, x):
        points = trials._kernel_points()
        n_tar = int(points.tar.sum())
        n_points = points.tar.shape[0]
        # the positions of the boundaries between points, per class
        bounds = np.zeros(2 * (n_points + 1), dtype=np.intp)
        bounds[1 : n_points + 1] = np.cumsum(points.tar)
        bounds[n_points + 2 :] = np.cumsum(points.non)
        bounds[n_points + 1 :] += n_tar
        # The count below a boundary b > 0 is the inclusive cumulative count
        # at b - 1; the boundaries at 0 (a nondecreasing array's prefix)
        # count nothing.
        self.n_zero_bounds = int(np.count_nonzero(bounds == 0))
        self.last_below = bounds - 1
        self.n_points = n_points
        self.n_tar = n_tar
        self.n = x.shape[0]
        self._x = (is_target, x)
        self._sorted = None
        self._terms = {}

    def class_sorted(self):
        """The target scores sorted, and the non-target scores sorted."""
        if self._sorted is None:
            is_target, x = self._x
            self._sorted = (np.sort(x[is_target]), np.sort(x[~is_target]))
        return self._sorted

    def below(self, thresholds):
        """Targets and non-targets with a score below each threshold."""
        tar, non = self.class_sorted()
        return (
            np.searchsorted(tar, thresholds, side="left"),
            np.searchsorted(non, thresholds, side="left"),
        )

    def terms(self, key, costs):
        """Per-trial terms ``costs(tar_scores, non_scores)`` in unit order,
        computed once per ``key``, split into finite values and the
        positions of the infinite ones."""
        if key not in self._terms:
            tar, non = costs(*self.class_sorted())
            self._terms[key] = (_FiniteTerms(tar), _FiniteTerms(non))
        return self._terms[key]


class _FiniteTerms:
    """Nonnegative per-trial terms: the finite ones (0 where infinite) and
    where the infinite ones are, so that a weight of 0 never meets inf."""

    def __init__(self, values):
        infinite = np.isinf(values)
        self.infinite = np.flatnonzero(infinite)
        self.finite = np.where(infinite, 0.0, values) if self.infinite.size else values

    def weighted_sum(self, weights):
        if self.infinite.size and np.take(weights, self.infinite).any():
            return math.inf
        return float(einsum("i,i->", weights, self.finite))


class _ArrangedReplicate(_Replicate):
    """A resample of unweighted trials: the counts of the drawn units, held
    as their inclusive cumulative sum (formed in place)."""

    def __init__(self, layout: _ArrangedLayout, counts, n_draws):
        self.layout = layout
        self.cum = np.cumsum(counts, out=counts)
        self.n_tar = int(counts[layout.n_tar - 1]) if layout.n_tar else 0
        self.n_non = n_draws - self.n_tar
        if self.n_tar == 0 or self.n_non == 0:
            raise _no_class_error(self.n_tar)

    def cumulative(self):
        return self.cum

    def counts(self):
        """The counts of the drawn units (the differences of the cumulative
        counts, exact), for the weighted sums of per-trial terms."""
        cum = self.cum
        counts = np.empty_like(cum)
        counts[:1] = cum[:1]
        np.subtract(cum[1:], cum[:-1], out=counts[1:])
        return counts

    def weighted_arrays(self):
        """The trials in unit order with their counts as weights."""
        tar, non = self.layout.class_sorted()
        is_target = np.zeros(tar.shape[0] + non.shape[0], dtype=bool)
        is_target[: tar.shape[0]] = True
        return is_target, np.concatenate([tar, non]), self.counts().astype(float)

    def point_cumulative(self):
        layout = self.layout
        n = layout.n_points + 1
        # read at the boundaries with np.take (faster than fancy indexing)
        at = np.take(self.cum, layout.last_below)
        at[: layout.n_zero_bounds] = 0
        return at[:n], at[n:] - at[n]

    def _count_below(self, k, offset):
        cum = self.cumulative()
        inclusive = np.take(cum, k + (offset - 1), mode="clip")
        before = cum[offset - 1] if offset > 0 else 0
        return np.where(k > 0, inclusive - before, 0)

    def error_rates(self, thresholds):
        k_tar, k_non = self.layout.below(thresholds)
        misses = self._count_below(k_tar, 0)
        non_below = self._count_below(k_non, self.layout.n_tar)
        return misses / self.n_tar, (self.n_non - non_below) / self.n_non

    def _class_sums(self, key, costs):
        tar, non = self.layout.terms(key, costs)
        n_tar = self.layout.n_tar
        counts = self.counts()
        return tar.weighted_sum(counts[:n_tar]), non.weighted_sum(counts[n_tar:])

    def cllr(self, p_target):
        shift = 0.0 if p_target is None else float(logit(p_target))
        loss_tar, loss_non = self._class_sums(("log", shift), _log_losses(shift))
        if p_target is None:
            return float(0.5 * (loss_tar / self.n_tar + loss_non / self.n_non))
        return log_loss_ratio(
            loss_tar / self.n_tar, loss_non / self.n_non, p_target, shift
        )

    def rule_loss(self, alpha, beta, p_target):
        s_tar, s_non = self._class_sums(
            ("rule", alpha, beta, p_target), _rule_costs(alpha, beta, p_target)
        )
        return p_target / self.n_tar * s_tar + (1.0 - p_target) / self.n_non * s_non


def _log_losses(shift):
    """Per-trial log losses in bits at posterior log-odds ``llr + shift``."""

    def costs(tar, non):
        # as in the Cllr loop: log(1 + e^z) of z = -(l + shift) for targets
        # and l + shift for non-targets, in bits
        return (
            log1pexp(-(tar + shift)) / _LOG2,
            log1pexp(non + shift) / _LOG2,
        )

    return costs


def _rule_costs(alpha, beta, p_target):
    def costs(tar, non):
        return (
            beta_rule_costs(tar, alpha=alpha, beta=beta, prior=p_target)[0],
            beta_rule_costs(non, alpha=alpha, beta=beta, prior=p_target)[1],
        )

    return costs


class _RowLayout:
    """Weighted or grouped trials: the caller's rows, with their point and
    class as one code per row (zero-weight rows keep theirs; they receive
    no weight)."""

    def __init__(self, is_target, x, w):
        if w is not None:
            # Every metric is unchanged by a common scale of the weights: a
            # power of two (exact) brings the largest into [0.5, 1), so a
            # weight times its count of draws (at most n) cannot overflow.
            top = float(np.max(w, initial=0.0))
            if np.isfinite(top) and top > 0:
                w = np.ldexp(w, -int(np.frexp(top)[1]))
        self.is_target, self.x, self.w = is_target, x, w
        index = pav_point_index(x, is_target)
        self.n_points = int(index.max()) + 1
        # One code per row: its point and its class.
        index *= 2
        index += is_target
        dtype = np.int32 if 2 * self.n_points <= np.iinfo(np.int32).max else np.int64
        self.code = index.astype(dtype, copy=False)


class _RowReplicate(_Replicate):
    """A resample of weighted or grouped trials: per-row weights."""

    def __init__(self, layout: _RowLayout, multiplicity):
        self.layout = layout
        if layout.w is None:
            w = multiplicity.astype(np.float64)
        else:
            w = multiplicity * layout.w
        self.w = w
        sums = np.bincount(layout.code, weights=w, minlength=2 * layout.n_points)
        n = layout.n_points + 1
        self.cum_tar, self.cum_non = np.zeros(n), np.zeros(n)
        np.cumsum(sums[1::2], out=self.cum_tar[1:])
        np.cumsum(sums[0::2], out=self.cum_non[1:])
        if self.cum_tar[-1] == 0 or self.cum_non[-1] == 0:
            raise _no_class_error(self.cum_tar[-1])

    def point_cumulative(self):
        return self.cum_tar, self.cum_non

    def arrays(self):
        layout = self.layout
        return layout.is_target, layout.x, self.w

    weighted_arrays = arrays


def fit_inputs(trials: ScoredTrials, y=None, sample_weight=None):
    """What a calibrator's ``fit(trials)`` fits on.

    Returns ``(X, y, sample_weight, pos_label, handle)``: the trials' own
    inputs, their target label, and the Dask data handle whose block
    summary the fit shares with the trials' metrics (None in memory).
    """
    if y is not None or sample_weight is not None:
        raise ValueError(
            "Fitting on ScoredTrials takes no `y` or `sample_weight`: the "
            "trials hold their labels and weights."
        )
    return trials._trial_data("Fitting a calibrator").fit_inputs()


def check_prior_log_odds(prior_log_odds) -> np.ndarray:
    """A scalar or 1-D grid of finite prior log-odds, as a 1-D float array."""
    plo = np.asarray(prior_log_odds, dtype=np.float64)
    if plo.ndim > 1:
        raise ValueError(
            f"`prior_log_odds` must be a scalar or 1-D; got shape {plo.shape}."
        )
    plo = np.atleast_1d(plo)
    if not np.isfinite(plo).all():
        raise ValueError("`prior_log_odds` must be finite (no NaN or infinity).")
    return plo


def _prior(p_target, method):
    """``p_target`` of the Cllr methods: None, or a float in (0, 1)."""
    if p_target is None:
        return None
    validate_parameter_constraints(
        {"p_target": [_PROB]},
        {"p_target": p_target},
        caller_name=f"ScoredTrials.{method}",
    )
    return float(p_target)


def _check_bool(value, name, method):
    validate_parameter_constraints(
        {name: ["boolean"]}, {name: value}, caller_name=f"ScoredTrials.{method}"
    )


def _shaped(out, scalar):
    """Floats for one application, arrays for many; rows become a tuple."""
    if out.ndim == 2:
        return tuple(float(r[0]) if scalar else r for r in out)
    return float(out[0]) if scalar else out


def _eer_from_hull(pmiss: np.ndarray, pfa: np.ndarray) -> float:
    """ROCCH-EER: where the hull crosses ``pmiss == pfa``.

    Each hull segment's line meets the diagonal at
    ``e = (y1*x2 - x1*y2) / ((x2 - x1) - (y2 - y1))`` (``x = pfa``,
    ``y = pmiss``). Every such line lies on or below the convex hull, so its
    crossing is at or below the hull's own: the EER is the largest ``e``
    (BOSARIS ``rocch2eer``).
    """
    x1, x2 = pfa[:-1], pfa[1:]
    y1, y2 = pmiss[:-1], pmiss[1:]
    # (x2 - x1) <= 0 <= (y2 - y1), so the denominator is positive, except for
    # a block whose weight vanishes against the class totals (1 next to
    # 1e300): a segment of length 0 after rounding, whose line is undefined
    # and whose end points are the neighbouring segments'. Written with a
    # positive denominator so that a zero crossing (separated classes) is
    # +0.0: ``a - a`` is +0.0 while ``0 / negative`` would be -0.0.
    den = (y2 - y1) - (x2 - x1)
    num = x1 * y2 - y1 * x2
    if count_nonzero(den) == den.shape[0]:  # den >= 0: no empty segment
        e = num / den
    else:
        e = np.divide(num, den, out=np.full_like(num, -np.inf), where=den > 0)
    return min(max(float(np.maximum.reduce(e)), 0.0), 1.0)


def _eer_threshold(lo, pmiss, pfa) -> float:
    """Score threshold of the hull vertex nearest the ROCCH-EER.

    Vertex ``k`` accepts the blocks ``k, k+1, ...``: the scores ``>=
    lo[k]``. ``pmiss - pfa`` increases along the vertices from -1 to 1; the
    first vertex where it is ``>= 0`` ends the crossing segment, and of that
    segment's two ends the one nearer ``pmiss == pfa`` is taken, the lower
    (more accepting) one on a tie. The last vertex (reject all) is never
    nearer than its neighbour, so the threshold is always a score.
    """
    d = pmiss - pfa
    v = int(np.searchsorted(d, 0.0, side="left"))
    if d.item(v) > 0.0 and -d.item(v - 1) <= d.item(v):
        v -= 1
    return float(lo[v]) if v < lo.shape[0] else math.inf


def _pav_cllr(tar, non, p_target):
    """Normalized log loss at ``p_target`` of the PAV-LLRs of blocks, in
    closed form from their class weights ``tar`` and ``non``.

    A block holding the fractions ``t = tar / N_tar`` of the targets and
    ``u = non / N_non`` of the non-targets has the PAV-LLR ``log(t / u)``;
    at the posterior log-odds ``log(t / (c u))``, ``c = (1 - p) / p``, its
    targets cost ``log(1 + c u / t)`` each and its non-targets ``log(1 + t /
    (c u))``. So the prior-weighted loss is ``p sum t log1p(c q) + (1 - p)
    sum u log1p(1 / (c q))`` with ``q = u / t``, no LLR formed (Brümmer and
    du Preez, 2006). A block without targets (only the first can be one: the
    block ratios increase) or without non-targets (only the last) costs 0.
    The normalizer, the loss of ``llr = 0``, takes the same steps, so that a
    single block gives exactly 1; the result is at most 1.
    """
    first = 1 if tar.item(0) == 0.0 else 0
    stop = -1 if non.item(-1) == 0.0 else None
    c = (1.0 - p_target) / p_target
    t = tar[first:stop] / np.add.reduce(tar)
    u = non[first:stop] / np.add.reduce(non)
    q = np.divide(u, t)
    if c != 1.0:
        q *= c
    loss_tar = float(einsum("i,i->", t, np.log1p(q)))
    np.divide(1.0, q, out=q)  # 1 / q, as in _special._sigmoid
    loss_non = float(einsum("i,i->", u, np.log1p(q, out=q)))
    ref = p_target * np.log1p(c) + (1.0 - p_target) * np.log1p(1.0 / c)
    return min(float((p_target * loss_tar + (1.0 - p_target) * loss_non) / ref), 1.0)
