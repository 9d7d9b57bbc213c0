"""Bootstrap confidence intervals of the metrics.

The minimum metrics (``min_dcf``, ``eer``, ``min_cllr``) take a fast path:
the scores are sorted once into the kernel's ordered points, and a bootstrap
replicate is the same ordered points with new integer weights, so each
replicate costs linear passes (two counts and the pool-adjacent-violators
step) instead of a sort. The per-trial metrics are evaluated with the
replicate's counts as sample weights; any other metric on resampled rows.
"""

from __future__ import annotations

import types
from collections import namedtuple
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy import special, stats
from sklearn.utils import check_random_state

from .._pav import BlockSummary, pav_merge, pav_point_index, pav_points
from ..utils._progress import progress_callback
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._validation import check_metric_inputs
from ._application import Application
from ._dcf import actual_dcf, bayes_error_curve, min_dcf
from ._ece import expected_calibration_error
from ._roc import eer
from ._scoring_rules import beta_rule_loss, brier_loss, cllr, min_cllr
from ._trials import ScoredTrials

__all__ = ["bootstrap_ci", "BootstrapResult"]

#: Metrics that accept a name instead of the function.
_BY_NAME = {
    f.__name__: f
    for f in (
        actual_dcf,
        beta_rule_loss,
        brier_loss,
        cllr,
        eer,
        expected_calibration_error,
        min_cllr,
        min_dcf,
    )
}

#: Per-trial metrics: a sample weight k counts exactly as k copies of a trial.
_WEIGHTED = (actual_dcf, beta_rule_loss, brier_loss, cllr)


@dataclass(frozen=True)
class BootstrapResult:
    """Result of :func:`bootstrap_ci` (named as in ``scipy.stats.bootstrap``).

    Attributes
    ----------
    statistic : float
        The metric on the data (the point estimate).
    confidence_interval : ConfidenceInterval
        Named tuple ``(low, high)``: the bootstrap confidence interval.
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The metric on each bootstrap resample.
    standard_error : float
        Standard deviation of the bootstrap distribution (``ddof=1``).
    confidence_level : float
        The confidence level of the interval.
    method : str
        The interval method.
    """

    statistic: float
    confidence_interval: tuple
    bootstrap_distribution: np.ndarray
    standard_error: float
    confidence_level: float
    method: str


def _statistic(metric, kwargs):
    """A minimum metric as a function of cumulative per-point class weights.

    ``f(cum_tar, cum_non)`` receives the target and non-target weight below
    each boundary between the ordered points (from 0 to the class totals).
    The minimum DCF needs no PAV: the minimum of a linear cost over the ROC
    points of the ordered points equals its minimum over their convex hull.
    EER and minimum Cllr run PAV on the points that hold weight.
    """
    if metric is min_dcf:
        return _min_dcf_statistic(kwargs)
    if metric is eer:

        def of_trials(trials):
            return trials.eer()
    elif metric is min_cllr:

        def of_trials(trials):
            return trials._min_cllr(kwargs.get("p_target"))
    else:
        return None

    def f(cum_tar, cum_non):
        tar, non = np.diff(cum_tar), np.diff(cum_non)
        keep = np.flatnonzero(tar + non > 0)  # PAV needs positive weights
        position = keep.astype(np.float64)
        tar, non = tar[keep].astype(np.float64), non[keep].astype(np.float64)
        blocks = pav_merge(BlockSummary(position, position, tar, non))
        return of_trials(ScoredTrials._from_blocks(blocks))

    return f


def _min_dcf_statistic(kwargs):
    """``f(cum_tar, cum_non)`` for the minimum DCF (see :func:`_statistic`).

    The cost at each point is ``a * misses + b * false_alarms`` with the
    normalized cost weights over the class totals as ``a`` and ``b``: one
    pass over the points finds the best one (a sum of two nonnegative terms,
    so no cancellation), and the metric's own formula gives the value there.
    Extreme applications (a weight ratio that overflows) take the metric's
    formula at every point.
    """
    app = Application._from_params(
        kwargs["p_target"], kwargs.get("c_miss", 1.0), kwargs.get("c_fa", 1.0)
    )
    w_miss, w_fa = app.miss_weight, app.fa_weight
    normalize = kwargs.get("normalize", True)
    if normalize:
        with np.errstate(divide="ignore", over="ignore"):
            a, b = (1.0, w_fa / w_miss) if w_miss <= w_fa else (w_miss / w_fa, 1.0)
    else:
        a, b = w_miss, w_fa
    by_cost = bool(np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0)

    def f(cum_tar, cum_non):
        n_tar, n_non = cum_tar[-1], cum_non[-1]
        if by_cost and cum_tar.shape[0] > 1024:  # else one pass is as fast
            cost = cum_tar * (a / n_tar)
            cost += (n_non - cum_non) * (b / n_non)
            k = int(np.argmin(cost))
            cum_tar, cum_non = cum_tar[k : k + 1], cum_non[k : k + 1]
        cost = app.dcf(cum_tar / n_tar, (n_non - cum_non) / n_non, normalize=normalize)
        return float(np.min(cost))

    return f


class _Units:
    """Resampling units (rows, or whole groups) and their row multiplicities."""

    def __init__(self, n_samples, groups):
        if groups is None:
            self.group_of_row = None
            self.n_units = n_samples
        else:
            _, self.group_of_row = np.unique(groups, return_inverse=True)
            self.group_of_row = self.group_of_row.reshape(-1)
            self.n_units = int(self.group_of_row.max()) + 1
        self.n_samples = n_samples

    def multiplicity(self, idx):
        """How often each row is in the resample of units ``idx``."""
        counts = np.bincount(idx, minlength=self.n_units)
        if self.group_of_row is None:
            return counts
        return counts[self.group_of_row]


class _KernelReplicate:
    """A minimum metric of the resample, from the points sorted once.

    The resample's counts are summed into the kernel's ordered points (ties
    and runs of one class pooled) per class, as cumulative sums at the
    boundaries between points; the metric follows from those
    (:func:`_statistic`).

    Unweighted trials resampled one by one are exchangeable, so the drawn
    unit numbers need not be the caller's row numbers: unit ``j`` is taken
    to be the ``j``-th trial in the order "targets by increasing score, then
    non-targets by increasing score". The cumulative class counts at the
    boundaries are then the cumulative count of the drawn units at fixed
    positions: one counting pass and one cumulative sum per replicate, with
    no per-trial table to look up. Weighted trials and groups keep the
    caller's rows and sum their multiplicities per point with a code per
    row.
    """

    def __init__(self, units, is_target, scores, sample_weight, statistic):
        self.units = units
        self.statistic = statistic
        self.sample_weight = sample_weight
        self.arranged = units.group_of_row is None and sample_weight is None
        if self.arranged:
            points = pav_points(scores, is_target)
            n_tar = int(points.tar.sum())
            n_points = points.tar.shape[0]
            # the positions of the boundaries between points, per class
            bounds = np.zeros(2 * (n_points + 1), dtype=np.intp)
            bounds[1 : n_points + 1] = np.cumsum(points.tar)
            bounds[n_points + 2 :] = np.cumsum(points.non)
            bounds[n_points + 1 :] += n_tar
            # The count below a boundary b > 0 is the inclusive cumulative
            # count at b - 1; the boundaries at 0 (a nondecreasing array's
            # prefix) count nothing.
            self.n_zero_bounds = int(np.count_nonzero(bounds == 0))
            self.last_below = bounds - 1
            self.n_points = n_points
            return
        index = pav_point_index(scores, is_target)
        self.n_points = int(index.max()) + 1
        # One code per row: its point and its class.
        index *= 2
        index += is_target
        self.code = index.astype(_index_dtype(2 * self.n_points), copy=False)

    def _cumulative(self, idx):
        """Cumulative target and non-target weight of the resample ``idx``."""
        n = self.n_points + 1
        if self.arranged:
            # counts summed in place (no second array of n_units), read at
            # the boundaries with np.take (faster than fancy indexing)
            cum = np.bincount(idx, minlength=self.units.n_units)
            np.cumsum(cum, out=cum)
            at = np.take(cum, self.last_below)
            at[: self.n_zero_bounds] = 0
            return at[:n], at[n:] - at[n]
        if self.units.group_of_row is None:
            w = self.units.multiplicity(idx) * self.sample_weight
        else:
            w = self.units.multiplicity(idx).astype(np.float64)
            if self.sample_weight is not None:
                w *= self.sample_weight
        sums = np.bincount(self.code, weights=w, minlength=2 * self.n_points)
        cum_tar, cum_non = np.zeros(n), np.zeros(n)
        np.cumsum(sums[1::2], out=cum_tar[1:])
        np.cumsum(sums[0::2], out=cum_non[1:])
        return cum_tar, cum_non

    def __call__(self, idx):
        cum_tar, cum_non = self._cumulative(idx)
        if cum_tar[-1] == 0 or cum_non[-1] == 0:
            raise ValueError(
                "A bootstrap resample holds no "
                f"{'target' if cum_tar[-1] == 0 else 'non-target'} trials, so "
                "the metric is undefined on it; use more trials, or groups "
                "that each hold both classes."
            )
        return self.statistic(cum_tar, cum_non)


class _WeightedReplicate:
    """A per-trial metric of the resample: its multiplicities as weights."""

    def __init__(self, units, metric, y_true, y_score, sample_weight, kwargs):
        self.units = units
        self.metric = metric
        self.y_true, self.y_score = y_true, y_score
        self.sample_weight = sample_weight
        self.kwargs = kwargs

    def __call__(self, idx):
        w = self.units.multiplicity(idx).astype(np.float64)
        if self.sample_weight is not None:
            w *= self.sample_weight
        return self.metric(self.y_true, self.y_score, sample_weight=w, **self.kwargs)


class _RowReplicate(_WeightedReplicate):
    """Any metric of the resample, on the resampled rows."""

    def __call__(self, idx):
        if self.units.group_of_row is None:
            rows = idx
        else:
            rows = np.repeat(
                np.arange(self.units.n_samples), self.units.multiplicity(idx)
            )
        kwargs = dict(self.kwargs)
        if self.sample_weight is not None:
            kwargs["sample_weight"] = self.sample_weight[rows]
        return self.metric(self.y_true[rows], self.y_score[rows], **kwargs)


def _index_dtype(n):
    """The smaller integer type that holds ``0..n-1``."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def _replicates(replicate, n_units, seeds):
    """The metric on the resample drawn from each seed.

    The unit numbers are drawn as ``np.intp``: the same numbers as in a
    32-bit type (numpy draws both from 32-bit outputs when ``n_units`` fits),
    and ``np.bincount`` counts ``intp`` input without first converting it,
    about twice as fast at a million trials.
    """
    out = []
    callback = progress_callback()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        out.append(replicate(rng.integers(0, n_units, size=n_units, dtype=np.intp)))
        if callback is not None:
            callback("resamples", len(out), len(seeds))
    return np.asarray(out, dtype=np.float64)


def _seeds(random_state, n_resamples):
    """One independent seed per resample, fixed by ``random_state``."""
    if isinstance(random_state, np.random.Generator):
        entropy = random_state.integers(0, 2**32, size=4)
    else:
        entropy = check_random_state(random_state).randint(0, 2**32, size=4)
    return np.random.SeedSequence([int(e) for e in entropy]).spawn(n_resamples)


class _VectorizedStatistic:
    """``statistic(idx, axis=-1)`` as ``scipy.stats.bootstrap`` calls it.

    The values are scaled by ``2**-exponent`` (exact), as the distribution
    handed to scipy is (see :func:`_interval`).
    """

    def __init__(self, replicate, n_units, exponent=0):
        self.replicate = replicate
        self.n_units = n_units  # jackknife samples (BCa), for progress reports
        self.exponent = exponent
        self.n_done = 0

    def __call__(self, idx, axis=-1):
        idx = np.asarray(idx).astype(np.intp, copy=False)
        if idx.ndim == 1:
            return np.ldexp(self.replicate(idx), -self.exponent)
        flat = idx.reshape(-1, idx.shape[-1])
        callback = progress_callback()
        out = []
        for i in flat:
            out.append(self.replicate(i))
            self.n_done += 1
            if callback is not None:
                callback("jackknife", min(self.n_done, self.n_units), self.n_units)
        return np.ldexp(np.array(out).reshape(idx.shape[:-1]), -self.exponent)


#: The (low, high) pair of ``scipy.stats.bootstrap``'s result.
_ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])


def _interval(
    distribution, replicate, n_units, *, confidence_level, method, statistic=None
):
    """The interval of ``scipy.stats.bootstrap`` from our replicate values.

    scipy receives the resampling units ``0..n_units-1`` as its data and our
    distribution as a previous result, with no new resamples; for BCa it
    evaluates the statistic on the data and on its jackknife samples (one
    per unit) through ``replicate``. A distribution or ``statistic`` (the
    metric on the data) that is infinite takes :func:`_extended_interval`.
    """
    if (
        distribution.ndim == 1  # one metric (the Bayes bands pass curves)
        and not np.isnan(distribution[0])
        and (distribution == distribution[0]).all()
    ):
        # every replicate equal (e.g. an EER of 0 on separated classes, or a
        # Cllr of inf in every resample): the interval is that value for
        # every method; scipy's BCa would divide 0 by 0 and its standard
        # error warn
        value = float(distribution[0])
        return _ConfidenceInterval(value, value), 0.0
    if not np.isfinite(distribution).all() or (
        statistic is not None and not np.isfinite(statistic)
    ):
        return _extended_interval(
            distribution, statistic, confidence_level=confidence_level, method=method
        )
    # Replicates of huge magnitude (a normalized DCF at an extreme prior is
    # 1e300) overflow when scipy squares them: they are handed over scaled
    # by a power of two per row (exact), and the interval and standard error
    # scaled back (both scale with the data; BCa's acceleration is free of
    # scale and its bias correction only counts replicates).
    top = np.max(np.abs(distribution), axis=-1, keepdims=True)
    exponent = np.where(top > 2.0**500, np.frexp(top)[1], 0)
    res = stats.bootstrap(
        (np.arange(n_units),),
        _VectorizedStatistic(replicate, n_units, int(exponent.flat[0])),
        n_resamples=0,
        bootstrap_result=types.SimpleNamespace(
            bootstrap_distribution=np.ldexp(distribution, -exponent)
        ),
        vectorized=True,
        confidence_level=confidence_level,
        method=method,
        # jackknife samples in batches of about 4 million indices
        batch=max(1, 4_000_000 // n_units),
    )
    exponent = exponent[..., 0]
    low, high = res.confidence_interval
    return (
        _ConfidenceInterval(np.ldexp(low, exponent), np.ldexp(high, exponent)),
        np.ldexp(res.standard_error, exponent),
    )


def _extended_interval(distribution, statistic, *, confidence_level, method):
    """The interval of replicates on the extended real line.

    A metric may legitimately be infinite: the Cllr of a target trial at LLR
    -inf is +inf, and so is every replicate that draws that trial, while the
    others are finite. scipy's arithmetic on such values (the standard
    deviation, the interpolation between order statistics, the jackknife
    mean of BCa) forms ``inf - inf``. Here the same intervals are taken on
    the order statistics: the quantile is scipy's linear interpolation, and
    an infinite neighbour with a positive weight makes it infinite; the
    basic interval reflects a quantile about the statistic, a quantile equal
    to the statistic (both infinite) giving the statistic; BCa keeps its
    bias correction ``z0`` (which only counts replicates below the
    statistic) with an acceleration of 0, as jackknife values that are
    infinite give none. The standard error of a distribution holding an
    infinite value is infinite.
    """
    alpha = (1.0 - confidence_level) / 2
    levels = np.array([alpha, 1.0 - alpha])
    if method == "BCa":
        n = distribution.shape[-1]
        below = np.count_nonzero(distribution < statistic) + np.count_nonzero(
            distribution <= statistic
        )
        z0 = special.ndtri(below / (2 * n))
        levels = special.ndtr(2 * z0 + special.ndtri(levels))
    x = np.sort(distribution, axis=-1)
    h = levels * (x.shape[-1] - 1)
    j = np.floor(h).astype(np.intp)
    g = h - j
    lo, hi = x[..., j], x[..., np.minimum(j + 1, x.shape[-1] - 1)]
    with np.errstate(invalid="ignore", over="ignore"):  # masked just below
        between = lo + g * (hi - lo)
    q = np.where(
        (g == 0) | (lo == hi),
        lo,
        np.where(lo == -np.inf, -np.inf, np.where(hi == np.inf, np.inf, between)),
    )
    low, high = q[..., 0], q[..., 1]
    if method == "basic":
        with np.errstate(invalid="ignore", over="ignore"):  # masked just below
            low, high = (
                np.where(end == statistic, statistic, statistic + (statistic - end))
                for end in (high, low)
            )
    if distribution.ndim == 1:
        low, high = low[()], high[()]
    return _ConfidenceInterval(low, high), _standard_error(distribution)


def _standard_error(distribution):
    """Standard deviation (``ddof=1``) of the replicates, per row.

    Infinite if a replicate is infinite. Computed on the replicates scaled by
    their largest magnitude (a power of two, exact), so that values of 1e200
    (a normalized DCF at an extreme prior) do not overflow when squared.
    """
    infinite = np.isinf(distribution).any(axis=-1)
    finite = np.where(np.isfinite(distribution), distribution, 0.0)
    top = np.max(np.abs(finite), axis=-1, keepdims=True)
    exponent = np.frexp(np.where(top > 0, top, 1.0))[1]
    sd = np.std(np.ldexp(finite, -exponent), ddof=1, axis=-1)
    with np.errstate(over="ignore"):  # a spread beyond the largest float
        sd = np.ldexp(sd, exponent[..., 0])
    return np.where(infinite, np.inf, sd)[()]


def _distribution(
    metric, y_true, y_score, metric_kwargs, *, n_resamples, groups, random_state, n_jobs
):
    """The replicate function, the number of units and the replicate values."""
    kwargs = dict(metric_kwargs)
    sample_weight = kwargs.pop("sample_weight", None)
    n_samples = np.shape(y_score)[0]
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != (n_samples,):
            raise ValueError(
                f"`groups` must have shape ({n_samples},) like `y_score`; "
                f"got {groups.shape}."
            )
    units = _Units(n_samples, groups)
    if units.n_units < 2:
        raise ValueError(
            f"At least two resampling units are needed; got {units.n_units} "
            f"{'group' if groups is not None else 'trial'}."
        )
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        # Every metric is unchanged by a common scale of the weights: a power
        # of two (exact) brings the largest into [0.5, 1), so a weight times
        # its count of draws (at most n) cannot overflow (weights of 1e308).
        top = float(np.max(sample_weight, initial=0.0))
        if np.isfinite(top) and top > 0:
            sample_weight = np.ldexp(sample_weight, -int(np.frexp(top)[1]))

    statistic = _statistic(
        metric, {k: v for k, v in kwargs.items() if k != "pos_label"}
    )
    if statistic is not None:
        is_target, scores, _ = check_metric_inputs(
            y_true, y_score, None, pos_label=kwargs.get("pos_label")
        )
        replicate = _KernelReplicate(units, is_target, scores, sample_weight, statistic)
    elif (
        metric in _WEIGHTED
        or metric is _bayes_error_curves
        or (
            metric is expected_calibration_error
            and kwargs.get("strategy", "uniform") == "uniform"
        )
    ):
        replicate = _WeightedReplicate(
            units, metric, y_true, y_score, sample_weight, kwargs
        )
    else:
        replicate = _RowReplicate(
            units,
            metric,
            np.asarray(y_true),
            np.asarray(y_score),
            sample_weight,
            kwargs,
        )

    seeds = _seeds(random_state, n_resamples)
    n_chunks = min(effective_n_jobs(n_jobs), n_resamples)
    if n_chunks == 1:
        distribution = _replicates(replicate, units.n_units, seeds)
    else:
        chunks = np.array_split(np.arange(n_resamples), n_chunks)
        parts = Parallel(n_jobs=n_jobs)(
            delayed(_replicates)(replicate, units.n_units, [seeds[i] for i in c])
            for c in chunks
        )
        distribution = np.concatenate(parts)
    return replicate, units.n_units, distribution


def _bayes_error_curves(
    y_true, llr, *, prior_log_odds, sample_weight=None, pos_label=None
):
    """Actual then minimum normalized DCF on the grid, as one vector."""
    actual, minimum = bayes_error_curve(
        y_true, llr, prior_log_odds, sample_weight=sample_weight, pos_label=pos_label
    )
    return np.concatenate([actual, minimum])


def _bayes_error_bands(
    y_true,
    llr,
    prior_log_odds,
    *,
    confidence_level,
    n_resamples,
    groups=None,
    random_state=None,
    n_jobs=None,
    sample_weight=None,
    pos_label=None,
):
    """Percentile bootstrap bands of the actual and minimum DCF curves.

    Returns
    -------
    actual_band, min_band : ndarray of shape (2, n_points)
        Lower and upper ends of the interval at each prior log-odds.
    """
    kwargs = {"prior_log_odds": prior_log_odds, "sample_weight": sample_weight}
    if pos_label is not None:
        kwargs["pos_label"] = pos_label
    replicate, n_units, distribution = _distribution(
        _bayes_error_curves,
        y_true,
        llr,
        kwargs,
        n_resamples=n_resamples,
        groups=groups,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    # One row per point of the two curves; scipy's percentile interval works
    # row by row (the statistic itself is not needed for it).
    ci, _ = _interval(
        distribution.T,
        replicate,
        n_units,
        confidence_level=confidence_level,
        method="percentile",
    )
    band = np.stack([np.asarray(ci.low), np.asarray(ci.high)])
    m = np.size(prior_log_odds)
    return band[:, :m], band[:, m:]


@validate_params(
    {
        "metric": [callable, StrOptions(set(_BY_NAME))],
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        # one replicate has no spread: no interval, no standard error
        "n_resamples": [Interval(Integral, 2, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions({"percentile", "basic", "BCa"})],
        "groups": ["array-like", None],
        "random_state": ["random_state", np.random.Generator],
        "n_jobs": [Integral, None],
    },
    # the metric validates its own arguments
    prefer_skip_nested_validation=False,
)
def bootstrap_ci(
    metric,
    y_true,
    y_score,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    method="percentile",
    groups=None,
    random_state=None,
    n_jobs=None,
    **metric_kwargs,
):
    """Bootstrap confidence interval of a metric.

    The trials (or, with ``groups``, whole groups of trials) are resampled
    with replacement ``n_resamples`` times, the metric is computed on each
    resample, and the interval is read from that bootstrap distribution by
    :func:`scipy.stats.bootstrap`.

    The minimum metrics (:func:`min_dcf`, :func:`eer`, :func:`min_cllr`) sort
    the scores once: a resample is the same sorted trials with integer
    weights (how often each trial was drawn), so each replicate costs linear
    passes instead of a sort. The per-trial metrics (:func:`actual_dcf`,
    :func:`cllr`, :func:`brier_loss`, :func:`beta_rule_loss`, and
    :func:`expected_calibration_error` with uniform bins) take those counts
    as sample weights; any other metric is computed on the resampled rows.
    All three give the same value for the same resample.

    Parameters
    ----------
    metric : callable or str
        A metric ``metric(y_true, y_score, **metric_kwargs) -> float`` such as
        :func:`min_dcf`, or the name of one of skcalib's binary metrics
        (``'min_dcf'``, ``'actual_dcf'``, ``'eer'``, ``'cllr'``,
        ``'min_cllr'``, ``'brier_loss'``, ``'beta_rule_loss'``,
        ``'expected_calibration_error'``).
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores, LLRs or probabilities, as ``metric`` expects them.
    n_resamples : int, default=1000
        Number of bootstrap resamples, at least 2.
    confidence_level : float in (0, 1), default=0.95
        Confidence level of the two-sided interval.
    method : {'percentile', 'basic', 'BCa'}, default='percentile'
        Interval method of :func:`scipy.stats.bootstrap`. ``'BCa'`` (bias
        corrected and accelerated) also evaluates the metric once per
        jackknife sample, i.e. once per trial (or per group): affordable for
        thousands of units, slow for millions of trials without ``groups``.
    groups : array-like of shape (n_samples,), default=None
        Group label of each trial (for instance the speaker or model
        identity). If given, whole groups are resampled (a cluster
        bootstrap), because trials of one group are not independent.
    random_state : int, RandomState instance, Generator or None, default=None
        Fixes the resamples. Resample ``k`` is drawn from its own seed, so the
        result does not depend on ``n_jobs``.
    n_jobs : int, default=None
        Number of jobs computing the replicates (joblib; None means 1).
    **metric_kwargs : dict
        Passed to ``metric``, e.g. ``p_target=0.01``, ``sample_weight`` or
        ``pos_label``.

    Returns
    -------
    result : BootstrapResult
        With attributes ``statistic`` (the metric on the data),
        ``confidence_interval`` (``low``, ``high``),
        ``bootstrap_distribution`` (the ``n_resamples`` replicate values),
        ``standard_error``, ``confidence_level`` and ``method``.

    See Also
    --------
    scipy.stats.bootstrap : The interval methods used here.
    BayesErrorDisplay : Draws bootstrap bands of the actual and minimum DCF.

    Notes
    -----
    Why weights are resampling: drawing :math:`n` rows with replacement
    makes the number of copies :math:`(c_1, \\dots, c_n)` of the rows
    multinomial, :math:`\\mathrm{Mult}(n; 1/n, \\dots, 1/n)`, and every
    skcalib metric computed with sample weights :math:`c_i` equals the
    metric on the resampled rows (a weight :math:`c` counts as :math:`c`
    copies; a weight 0 drops the trial). The counts here are exactly those
    of :math:`n` uniform draws, so the bootstrap distribution is the one of
    resampling rows, not an approximation such as the Poisson bootstrap. A
    resample is therefore the once-sorted data with the weights :math:`c_i`:
    the ordered points of the PAV kernel (ties and runs of one class pooled)
    receive the summed counts of their trials, and PAV, the ROC convex hull
    and the metric follow in linear time. With ``groups``, the counts are
    drawn per group and every trial of a group gets its group's count.

    The percentile interval at level :math:`1 - \\alpha` is
    :math:`[\\hat\\theta^*_{(\\alpha/2)}, \\hat\\theta^*_{(1-\\alpha/2)}]`,
    quantiles of the replicate values :math:`\\hat\\theta^*_b`. BCa shifts
    those quantile levels by the bias correction
    :math:`z_0 = \\Phi^{-1}(\\#\\{\\hat\\theta^*_b < \\hat\\theta\\}/B)` and
    the jackknife acceleration :math:`a` (Efron and Tibshirani, ch. 14).

    The minimum metrics choose their threshold on the data they are
    measured on, so they are optimistic (biased low), and their bootstrap
    replicates more so: the percentile interval then tends to lie too low.
    The ``'basic'`` interval, :math:`[2\\hat\\theta - \\hat\\theta^*_{(1-\\alpha/2)},
    2\\hat\\theta - \\hat\\theta^*_{(\\alpha/2)}]`, reflects that bias; on
    Gaussian scores (2000 trials) its 95 % interval of the minimum DCF
    covered the population value in 95 % of 200 repetitions, the percentile
    interval in under 90 %.

    A metric may be infinite: the Cllr of data holding a target trial at LLR
    -inf is +inf, and so is every replicate that draws that trial. The
    intervals are then read on the extended real line: a quantile
    interpolated towards an infinite replicate is infinite, the basic
    interval reflects an infinite quantile about an equal estimate onto the
    estimate, BCa keeps its bias correction with an acceleration of 0 (the
    jackknife values are infinite), and the standard error is infinite.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the
       Bootstrap", Chapman & Hall, 1993.
    .. [2] N. Poh and S. Bengio, "Estimating the confidence interval of
       expected performance curve in biometric authentication using joint
       bootstrap", ICASSP 2007.

    Examples
    --------
    >>> from skcalib.datasets import make_gaussian_scores
    >>> from skcalib.metrics import bootstrap_ci, min_dcf
    >>> scores, y, llr = make_gaussian_scores(2000, random_state=0)
    >>> res = bootstrap_ci(min_dcf, y, scores, p_target=0.5, random_state=0)
    >>> round(res.statistic, 3)
    0.307
    >>> [round(float(v), 3) for v in res.confidence_interval]
    [0.275, 0.336]
    >>> res.bootstrap_distribution.shape
    (1000,)

    Trials of one speaker are not independent: resample speakers.

    >>> import numpy as np
    >>> speaker = np.arange(2000) % 50
    >>> res = bootstrap_ci("eer", y, scores, groups=speaker, random_state=0)
    >>> [round(float(v), 3) for v in res.confidence_interval]
    [0.139, 0.168]
    """
    if isinstance(metric, str):
        metric = _BY_NAME[metric]
    point = metric(y_true, y_score, **metric_kwargs)
    if np.ndim(point) != 0:
        raise ValueError(
            "`metric` must return one number; "
            f"{getattr(metric, '__name__', metric)!r} returned shape "
            f"{np.shape(point)}."
        )
    point = float(point)

    replicate, n_units, distribution = _distribution(
        metric,
        y_true,
        y_score,
        metric_kwargs,
        n_resamples=n_resamples,
        groups=groups,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    ci, standard_error = _interval(
        distribution,
        replicate,
        n_units,
        confidence_level=confidence_level,
        method=method,
        statistic=point,
    )
    standard_error = float(standard_error)
    return BootstrapResult(
        statistic=point,
        confidence_interval=ci,
        bootstrap_distribution=distribution,
        standard_error=standard_error,
        confidence_level=float(confidence_level),
        method=method,
    )
