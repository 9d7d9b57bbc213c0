"""Scored trials, validated once and sorted once: every metric of one system.

:class:`ScoredTrials` is the one road from ``(y_true, y_score,
sample_weight)`` to the metrics: it validates the inputs once, runs the PAV
kernel (:func:`skcalib._pav.pav_blocks`) at most once, when a minimum metric
first needs it, and keeps the block summary and the ROC convex hull for every
later question. The metric functions (``min_dcf``, ``eer``, ``min_cllr``,
``rocch``, ``actual_dcf``, ``cllr``, ``bayes_error_curve``), the displays,
the bootstrap and the command line all go through it. Design note:
docs/design/evaluation_objects.rst.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import expit

from .._dask import any_dask_collection
from .._pav import BlockSummary, block_llr, pav_blocks, rocch_from_blocks
from ..utils._numpy_compat import count_nonzero, einsum
from ..utils._sklearn_compat import validate_parameter_constraints
from ..utils._validation import check_metric_inputs
from ._application import Application, normalized_dcf
from ._common import _cllr_bits, _error_rates, _normalized_log_loss

__all__ = ["ScoredTrials", "check_prior_log_odds"]

_POS_LABEL = [Real, str, "boolean", None]


class ScoredTrials:
    """Scored trials of one system, sorted and pooled once for evaluation.

    Built once from labels, scores and weights, it validates them once and
    holds the pool-adjacent-violators (PAV) block summary of the scores and
    their ROC convex hull (ROCCH), computed on the first question that needs
    them. It then answers every minimum metric -- minimum DCF at any number
    of applications, EER, minimum Cllr, the hull, the DET curve, Bayes
    error-rate curves -- without sorting again, and, reading the scores as
    natural-log likelihood ratios, the actual DCF and Cllr. It is the way to
    evaluate one system at many operating points; the metric functions of
    :mod:`skcalib.metrics` are thin wrappers that build one and ask it once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_score : array-like of shape (n_samples,)
        Scores, higher favouring the target class; +/-inf allowed, NaN not.
        The minimum metrics use only their order; :meth:`actual_dcf`,
        :meth:`cllr` and the actual curve of :meth:`bayes_error_curve` read
        them as natural-log LLRs.
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
    >>> from skcalib.metrics import ScoredTrials
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> trials = ScoredTrials(y, [0.1, 0.2, 0.3, 0.4, 0.4, 0.9])
    >>> round(trials.eer(), 4), round(trials.min_cllr(), 4)
    (0.2222, 0.4591)
    >>> trials.min_dcf([0.01, 0.1, 0.5]).round(4).tolist()  # one sort for all
    [0.6667, 0.6667, 0.3333]

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
        cls, y_true, y_score, sample_weight, pos_label, *, score_name="y_score"
    ):
        """The trials of a metric function, whose ``validate_params`` already
        checked the parameter types; data errors name ``score_name``."""
        trials = cls.__new__(cls)
        trials._setup(y_true, y_score, sample_weight, pos_label, score_name)
        return trials

    @classmethod
    def _from_blocks(cls, blocks: BlockSummary):
        """Trials known only by their PAV block summary (a bootstrap
        replicate): the minimum metrics only."""
        trials = cls.__new__(cls)
        trials._dask = None
        trials._arrays = trials._positive = None
        trials._store_blocks(blocks)
        return trials

    def _setup(self, y_true, y_score, sample_weight, pos_label, score_name):
        self._blocks = None
        self._score_name = score_name
        if any_dask_collection(y_true, y_score, sample_weight):
            # validated by the distributed passes, which also read the data
            self._dask = (y_true, y_score, sample_weight, pos_label)
            self._arrays = self._positive = None
            return
        self._dask = None
        is_target, scores, w = check_metric_inputs(
            y_true, y_score, sample_weight, pos_label=pos_label, score_name=score_name
        )
        self._arrays = (is_target, scores, w)
        self._positive = None

    # ------------------------------------------------------------ summaries
    def _trial_arrays(self):
        """``(is_target, scores, sample_weight)`` without zero-weight trials.

        Dropped here once, so that no actual metric forms ``0 * inf`` for an
        infinite LLR of a trial that should not count.
        """
        if self._positive is None:
            is_target, x, w = self._arrays
            if w is not None:
                positive = w > 0
                if not positive.all():
                    is_target, x, w = is_target[positive], x[positive], w[positive]
            self._positive = (is_target, x, w)
        return self._positive

    def _summary(self):
        """The PAV block summary: the one kernel run of these trials."""
        if self._blocks is None:
            if self._dask is not None:
                from .._dask._blocks import dask_validated_blocks

                y, s, w, pos_label = self._dask
                blocks = dask_validated_blocks(
                    y, s, w, pos_label, score_name=self._score_name
                )[0]
            else:
                is_target, x, w = self._trial_arrays()
                blocks = pav_blocks(x, is_target, w, ranges=False)
            self._store_blocks(blocks)
        return self._blocks

    def _store_blocks(self, blocks):
        self._blocks = blocks
        self._hull = None
        self._block_llr = None

    def _rocch(self):
        """The hull vertices ``(pmiss, pfa)``, computed once (not copied)."""
        blocks = self._summary()
        if self._hull is None:
            self._hull = rocch_from_blocks(blocks)
        return self._hull

    def _llr_of_blocks(self):
        blocks = self._summary()
        if self._block_llr is None:
            n_tar = float(np.add.reduce(blocks.tar))  # .sum(), without its
            n_non = float(np.add.reduce(blocks.non))  # Python wrapper
            self._block_llr = block_llr(blocks, n_tar, n_non)
        return self._block_llr

    def _require_arrays(self, what):
        if self._arrays is None and self._dask is not None:
            # a drawing needs every trial in memory (as before this object,
            # when the displays validated Dask inputs as arrays): computed once
            y, s, w, pos_label = self._dask
            self._arrays = check_metric_inputs(
                y, s, w, pos_label=pos_label, score_name=self._score_name
            )
        if self._arrays is None:
            raise ValueError(
                f"{what} needs the trials themselves; these ScoredTrials hold "
                "only a block summary."
            )
        return self._arrays

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

    def eer(self):
        """Equal error rate of the ROC convex hull (ROCCH-EER).

        Returns
        -------
        eer : float
            The error rate where the hull crosses ``P_miss == P_fa``, in
            [0, 0.5].
        """
        return _eer_from_hull(*self._rocch())

    def min_dcf(
        self, p_target, *, c_miss=1.0, c_fa=1.0, normalize=True, return_rates=False
    ):
        """Minimum detection cost at one or many applications.

        The lowest DCF over all thresholds on the scores (the vertices of the
        ROC convex hull, accept-all and reject-all included).

        Parameters
        ----------
        p_target : float in (0, 1) or array-like of shape (n_points,)
            Target prior(s) of the applications.
        c_miss : float > 0, default=1.0
            Cost of a miss.
        c_fa : float > 0, default=1.0
            Cost of a false alarm.
        normalize : bool, default=True
            Whether to divide by the cost of the best trivial system.
        return_rates : bool, default=False
            Whether to also return the error rates of the best operating
            point.

        Returns
        -------
        dcf : float or ndarray of shape (n_points,)
            The (normalized) minimum DCF; an array for array-like
            ``p_target``.
        p_miss, p_fa : float or ndarray of shape (n_points,)
            The miss and false-alarm rates where the minimum is reached; only
            if ``return_rates=True``.
        """
        apps, scalar = _applications(p_target, c_miss, c_fa, "min_dcf")
        _check_bool(normalize, "normalize", "min_dcf")
        pmiss, pfa = self._rocch()
        out = np.empty((3, len(apps)))
        for i, app in enumerate(apps):
            k, out[0, i] = self._min_dcf_point(app, normalize)
            out[1, i], out[2, i] = pmiss[k], pfa[k]
        return _shaped(out if return_rates else out[0], scalar)

    def _min_dcf_point(self, app: Application, normalize=True):
        """Index of the hull vertex of lowest DCF and that DCF."""
        pmiss, pfa = self._rocch()
        if normalize:  # app.dcf, without its checks of the rates
            w_miss, w_fa = app.miss_weight, app.fa_weight
            cost = normalized_dcf(w_miss, w_fa, pmiss, pfa, nonnegative=True)
        else:
            cost = app.dcf(pmiss, pfa, normalize=False)
        k = int(cost.argmin())
        return k, cost.item(k)

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
        if p_target is not None:
            p_target = _applications(p_target, 1.0, 1.0, "min_cllr")[0][0].p_target
        return self._min_cllr(p_target)

    def _min_cllr(self, p_target=None):
        blocks = self._summary()
        return _pav_cllr(blocks.tar, blocks.non, 0.5 if p_target is None else p_target)

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
    def actual_dcf(
        self, p_target, *, c_miss=1.0, c_fa=1.0, normalize=True, return_rates=False
    ):
        """Actual detection cost of the Bayes decisions on the scores as LLRs.

        Each trial is accepted iff its score is at least the application's
        Bayes threshold ``-logit(effective prior)``.

        Parameters
        ----------
        p_target : float in (0, 1) or array-like of shape (n_points,)
            Target prior(s) of the applications.
        c_miss : float > 0, default=1.0
            Cost of a miss.
        c_fa : float > 0, default=1.0
            Cost of a false alarm.
        normalize : bool, default=True
            Whether to divide by the cost of the best trivial system.
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
        apps, scalar = _applications(p_target, c_miss, c_fa, "actual_dcf")
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
        if self._dask is not None:
            from .._dask._metrics import dask_error_rates

            y, s, w, pos_label = self._dask
            return dask_error_rates(
                y, s, thresholds, sample_weight=w, pos_label=pos_label
            )
        self._require_arrays("An actual metric")
        is_target, x, w = self._trial_arrays()
        return _error_rates(is_target, x, w, thresholds)

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
        if p_target is not None:
            p_target = _applications(p_target, 1.0, 1.0, "cllr")[0][0].p_target
        return self._cllr(p_target)

    def _cllr(self, p_target=None):
        if self._dask is not None:
            from .._dask._metrics import dask_cllr_sums, dask_prior_weighted_objective
            from .._special import uninformative_objective

            y, s, w, pos_label = self._dask
            if p_target is not None:
                loss = dask_prior_weighted_objective(
                    y, s, w, alpha=1.0, beta=1.0, prior=p_target, pos_label=pos_label
                )
                return loss / uninformative_objective(1.0, 1.0, p_target)
            loss_tar, loss_non, n_tar, n_non = dask_cllr_sums(
                y, s, w, pos_label=pos_label
            )
            return float(0.5 * (loss_tar / n_tar + loss_non / n_non))
        self._require_arrays("cllr")
        is_target, x, w = self._trial_arrays()
        if p_target is not None:
            return _normalized_log_loss(x, is_target, w, p_target)
        return float(_cllr_bits(x, is_target, w))

    def bayes_error_curve(self, prior_log_odds):
        """Actual and minimum normalized DCF over a grid of prior log-odds.

        The data of a Bayes error-rate plot: at each prior log-odds ``eta``
        (effective prior ``sigmoid(eta)``), the normalized DCF of the
        decisions ``score >= -eta`` (the scores read as LLRs) and the
        normalized minimum DCF. Each grid point costs a binary search.

        Parameters
        ----------
        prior_log_odds : float or array-like of shape (n_points,)
            Finite prior log-odds.

        Returns
        -------
        actual : ndarray of shape (n_points,)
            Normalized actual DCF at each prior log-odds.
        minimum : ndarray of shape (n_points,)
            Normalized minimum DCF at each prior log-odds.
        """
        plo = check_prior_log_odds(prior_log_odds)
        return self._bayes_error_curve(plo, actual=True)

    def bayes_error_rates(self, prior_log_odds):
        """Normalized minimum DCF over a grid of prior log-odds.

        The minimum curve of :meth:`bayes_error_curve`, which uses only the
        order of the scores.

        Parameters
        ----------
        prior_log_odds : float or array-like of shape (n_points,)
            Finite prior log-odds.

        Returns
        -------
        minimum : ndarray of shape (n_points,)
            Normalized minimum DCF at each prior log-odds.
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


def _applications(p_target, c_miss, c_fa, method):
    """Validated applications of one or many ``p_target``; scalar or not."""
    caller = f"ScoredTrials.{method}"
    if np.ndim(p_target) == 0:
        return [Application._from_params(p_target, c_miss, c_fa, caller=caller)], True
    if np.ndim(p_target) > 1:
        raise ValueError(
            f"`p_target` must be a float or a 1-D array-like of floats; got "
            f"shape {np.shape(p_target)}."
        )
    # a list keeps its items' types (True is refused, not read as 1.0)
    if isinstance(p_target, list | tuple):
        values = list(p_target)
    else:
        values = [v.item() for v in np.asarray(p_target)]
    apps = [Application._from_params(v, c_miss, c_fa, caller=caller) for v in values]
    return apps, False


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
