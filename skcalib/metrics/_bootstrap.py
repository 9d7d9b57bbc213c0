"""Bootstrap confidence intervals of the metrics.

Every metric of :class:`ScoredTrials` is bootstrapped from the trials
sorted once (:class:`~skcalib.metrics._trials.Resampler`): a resample is the
same sorted trials with integer weights, so a minimum metric costs linear
passes (the pool-adjacent-violators step on the reweighted points) and an
actual metric a weighted sum of per-trial terms computed once; several
metrics share each resample. Any other metric is computed with the
resample's counts as sample weights, or on the resampled rows.
"""

from __future__ import annotations

import functools
import types
from collections import namedtuple
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy import special, stats
from sklearn.utils import check_random_state

from ..utils._progress import progress_callback
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._application import as_applications
from ._dcf import actual_dcf, min_dcf
from ._ece import expected_calibration_error
from ._roc import eer
from ._scoring_rules import beta_rule_loss, brier_loss, cllr, min_cllr
from ._trials import Resampler, ResamplingUnits, ScoredTrials

__all__ = ["bootstrap_ci", "BootstrapResult"]


def _uniform_bins(kwargs):
    """Whether an ECE call's bins are fixed (uniform): then a weight counts
    as copies of a trial; quantile bins move with the data."""
    return kwargs.get("strategy", "uniform") == "uniform"


#: Each public metric and how a resample reaches it: the name of its
#: :class:`ScoredTrials` method (the same keyword arguments, without
#: ``sample_weight`` and ``pos_label``, which go to the trials), or, for a
#: metric of other arrays, whether the resample's counts may be its sample
#: weights (a predicate of its keyword arguments).
_METRICS = {
    actual_dcf: "actual_dcf",
    beta_rule_loss: "beta_rule_loss",
    brier_loss: "brier_loss",
    cllr: "cllr",
    eer: "eer",
    min_cllr: "min_cllr",
    min_dcf: "min_dcf",
    expected_calibration_error: _uniform_bins,
}

#: Metrics that accept a name instead of the function.
_BY_NAME = {f.__name__: f for f in _METRICS}

#: The trials methods whose ``p_target`` (with ``c_miss``, ``c_fa``) is an
#: application: parsed once, not at every resample.
_OF_APPLICATIONS = ("min_dcf", "actual_dcf")


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


class _Method:
    """A metric as a method of the trials: ``getattr(trials, name)(**kwargs)``."""

    def __init__(self, name, kwargs):
        self.name = name
        self.kwargs = kwargs

    def __call__(self, trials):
        return getattr(trials, self.name)(**self.kwargs)

    def checked(self):
        """The same call with its applications validated once (after the
        call on the data checked them, naming the method)."""
        kwargs = dict(self.kwargs)
        if self.name in _OF_APPLICATIONS and "p_target" in kwargs:
            apps, scalar = as_applications(
                kwargs.pop("p_target"),
                kwargs.pop("c_miss", 1.0),
                kwargs.pop("c_fa", 1.0),
                caller=f"ScoredTrials.{self.name}",
            )
            kwargs["p_target"] = apps[0] if scalar else apps
        return _Method(self.name, kwargs)


def _trials_statistic(metric, metric_kwargs):
    """``metric`` as a function of scored trials, and what is left of the
    keyword arguments for the trials (``sample_weight``, ``pos_label``).

    A metric of the table (or a ``functools.partial`` of one) becomes its
    method; any other callable is taken to be a function of the trials.
    """
    kwargs = dict(metric_kwargs)
    trial_kwargs = {
        k: kwargs.pop(k) for k in ("sample_weight", "pos_label") if k in kwargs
    }
    if _of_trials(metric):
        if isinstance(metric, functools.partial):
            if metric.args:
                raise ValueError(
                    "`metric` binds positional arguments; bind keywords only."
                )
            kwargs = {**metric.keywords, **kwargs}
            metric = metric.func
        return _Method(_METRICS[metric], kwargs), trial_kwargs
    if kwargs:
        raise TypeError(
            "Keyword arguments go to skcalib's metrics; a function of the "
            f"trials takes none: got {sorted(kwargs)}."
        )
    return metric, trial_kwargs


def _of_trials(metric):
    """Whether ``metric`` (or the function of a ``functools.partial``) is a
    method of the trials in the table."""
    if isinstance(metric, functools.partial):
        metric = metric.func
    return isinstance(_METRICS.get(metric), str)


class _TrialsReplicate:
    """The statistics of the trials on the resample of units ``idx``."""

    def __init__(self, resampler, statistics):
        self.resampler = resampler
        self.statistics = statistics

    def __call__(self, idx):
        resample = self.resampler(idx)
        return np.hstack([s(resample) for s in self.statistics]).astype(np.float64)

    def column(self, j):
        """Statistic ``j`` alone, as a number (for the jackknife of BCa)."""
        return _TrialsColumn(self.resampler, self.statistics[j])


class _TrialsColumn:
    """One statistic of the trials on the resample of units ``idx``."""

    def __init__(self, resampler, statistic):
        self.resampler = resampler
        self.statistic = statistic

    def __call__(self, idx):
        return float(self.statistic(self.resampler(idx)))


class _ArraysReplicate:
    """A metric of arrays on the resample: the resample's counts as sample
    weights (``weights=True``), or the resampled rows."""

    def __init__(self, units, metric, y_true, y_score, sample_weight, kwargs, weights):
        self.units = units
        self.metric = metric
        self.y_true, self.y_score = y_true, y_score
        self.sample_weight = sample_weight
        self.kwargs = kwargs
        self.weights = weights

    def __call__(self, idx):
        if self.weights:
            w = self.units.multiplicity(idx).astype(np.float64)
            if self.sample_weight is not None:
                w *= self.sample_weight
            return self.metric(
                self.y_true, self.y_score, sample_weight=w, **self.kwargs
            )
        rows = self.units.rows(idx)
        kwargs = dict(self.kwargs)
        if self.sample_weight is not None:
            kwargs["sample_weight"] = self.sample_weight[rows]
        return self.metric(self.y_true[rows], self.y_score[rows], **kwargs)


def _distribution(replicate, n_units, *, n_resamples, random_state, n_jobs):
    """The replicate values of ``n_resamples`` resamples."""
    seeds = _seeds(random_state, n_resamples)
    n_chunks = min(effective_n_jobs(n_jobs), n_resamples)
    if n_chunks == 1:
        return _replicates(replicate, n_units, seeds)
    chunks = np.array_split(np.arange(n_resamples), n_chunks)
    parts = Parallel(n_jobs=n_jobs)(
        delayed(_replicates)(replicate, n_units, [seeds[i] for i in c]) for c in chunks
    )
    return np.concatenate(parts)


def _scaled_weights(sample_weight):
    """Weights scaled by a power of two (exact) into [0.5, 1): every metric
    is unchanged, and a weight times its count of draws (at most n) cannot
    overflow (weights of 1e308)."""
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    top = float(np.max(sample_weight, initial=0.0))
    if np.isfinite(top) and top > 0:
        sample_weight = np.ldexp(sample_weight, -int(np.frexp(top)[1]))
    return sample_weight


def _bayes_error_bands(
    trials,
    prior_log_odds,
    *,
    confidence_level,
    n_resamples,
    groups=None,
    random_state=None,
    n_jobs=None,
):
    """Percentile bootstrap bands of the actual and minimum DCF curves of
    ``trials`` (a ``ScoredTrials``).

    Returns
    -------
    actual_band, min_band : ndarray of shape (2, n_points)
        Lower and upper ends of the interval at each prior log-odds.
    """

    def curves(t):
        return np.concatenate(t.bayes_error_curve(prior_log_odds))

    resampler = Resampler(trials, groups)
    replicate = _TrialsReplicate(resampler, [curves])
    distribution = _distribution(
        replicate,
        resampler.units.n_units,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    # One row per point of the two curves; scipy's percentile interval works
    # row by row (the statistic itself is not needed for it).
    ci, _ = _interval(
        distribution.T,
        replicate,
        resampler.units.n_units,
        confidence_level=confidence_level,
        method="percentile",
    )
    band = np.stack([np.asarray(ci.low), np.asarray(ci.high)])
    m = np.size(prior_log_odds)
    return band[:, :m], band[:, m:]


def _result(statistic, distribution, replicate, n_units, confidence_level, method):
    ci, standard_error = _interval(
        distribution,
        replicate,
        n_units,
        confidence_level=confidence_level,
        method=method,
        statistic=statistic,
    )
    return BootstrapResult(
        statistic=statistic,
        confidence_interval=ci,
        bootstrap_distribution=distribution,
        standard_error=float(standard_error),
        confidence_level=float(confidence_level),
        method=method,
    )


def _one_number(value, metric):
    if np.ndim(value) != 0:
        raise ValueError(
            "`metric` must return one number; "
            f"{getattr(metric, '__name__', metric)!r} returned shape "
            f"{np.shape(value)}."
        )
    return float(value)


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


@validate_params(
    {
        "metric": [callable, StrOptions(set(_BY_NAME)), list, tuple],
        "y_true": ["array-like", ScoredTrials],
        "y_score": ["array-like", None],
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
    y_score=None,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    method="percentile",
    groups=None,
    random_state=None,
    n_jobs=None,
    **metric_kwargs,
):
    """Bootstrap confidence interval of a metric (or of several at once).

    The trials (or, with ``groups``, whole groups of trials) are resampled
    with replacement ``n_resamples`` times, the metric is computed on each
    resample, and the interval is read from that bootstrap distribution by
    :func:`scipy.stats.bootstrap`.

    skcalib's metrics of scored trials (:func:`min_dcf`, :func:`eer`,
    :func:`min_cllr`, :func:`actual_dcf`, :func:`cllr`, :func:`brier_loss`,
    :func:`beta_rule_loss`) are computed by the methods of one
    :class:`ScoredTrials`, validated and sorted once: a resample is the same
    sorted trials with integer weights (how often each trial was drawn), so
    a minimum metric costs linear passes instead of a sort and an actual
    metric a weighted sum of per-trial terms computed once. A list of
    metrics is bootstrapped from the same resamples, each drawn once. Any
    other metric takes the resample's counts as sample weights
    (:func:`expected_calibration_error` with uniform bins) or is computed
    on the resampled rows; all give the same value for the same resample.

    Parameters
    ----------
    metric : callable, str or list of them
        A metric ``metric(y_true, y_score, **metric_kwargs) -> float`` such as
        :func:`min_dcf`, or the name of one of skcalib's binary metrics
        (``'min_dcf'``, ``'actual_dcf'``, ``'eer'``, ``'cllr'``,
        ``'min_cllr'``, ``'brier_loss'``, ``'beta_rule_loss'``,
        ``'expected_calibration_error'``). With :class:`ScoredTrials`, any
        other callable is a function of the trials, ``metric(trials) ->
        float`` (for instance ``lambda t: t.min_dcf(app)``). A list gives a
        list of results from the same resamples (``metric_kwargs`` go to
        each; ``functools.partial`` binds different ones).
    y_true : array-like of shape (n_samples,) or ScoredTrials
        True labels, or the scored trials themselves (then ``y_score``,
        ``sample_weight`` and ``pos_label`` are theirs).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes), \
default=None
        Scores, LLRs or probabilities, as ``metric`` expects them; required
        with ``y_true`` arrays.
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
    result : BootstrapResult or list of BootstrapResult
        One per metric of a list. With attributes ``statistic`` (the
        metric on the data), ``confidence_interval`` (``low``, ``high``),
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

    Several metrics of trials validated and sorted once, from the same
    resamples:

    >>> from skcalib.metrics import Application, ScoredTrials
    >>> trials, app = ScoredTrials(y, llr), Application(0.01)
    >>> res = bootstrap_ci(
    ...     [lambda t: t.min_dcf(app), lambda t: t.actual_dcf(app), "cllr"],
    ...     trials, n_resamples=200, random_state=0)
    >>> [round(r.statistic, 3) for r in res]
    [0.869, 0.904, 0.519]
    """
    metrics = list(metric) if isinstance(metric, list | tuple) else [metric]
    if not metrics:
        raise ValueError("`metric` is an empty list: give at least one metric.")
    metrics = [_BY_NAME[m] if isinstance(m, str) else m for m in metrics]
    for m in metrics:
        if not callable(m):
            raise ValueError(
                "`metric` must be a callable, a metric's name or a list of "
                f"them; got {m!r}."
            )
    given_trials = isinstance(y_true, ScoredTrials)
    if given_trials and y_score is not None:
        raise ValueError(
            "`y_score` goes with `y_true` arrays; ScoredTrials hold their "
            "scores: pass y_score=None."
        )
    if not given_trials and y_score is None:
        raise ValueError("`y_score` is required with `y_true` arrays.")

    if len(metrics) == 1 and not given_trials and not _of_trials(metrics[0]):
        # a metric of arrays (ECE, a user's function): weights or rows
        res = _arrays_bootstrap(
            metrics[0],
            y_true,
            y_score,
            metric_kwargs,
            _METRICS.get(metrics[0]),
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            groups=groups,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        return res

    statistics = []
    trial_kwargs = {}
    for m in metrics:
        if not given_trials and not _of_trials(m):
            raise ValueError(
                "Several metrics are bootstrapped together from ScoredTrials or "
                f"as skcalib's metrics of the trials; {getattr(m, '__name__', m)!r} "
                "is neither: bootstrap it alone."
            )
        statistic, trial_kwargs = _trials_statistic(m, metric_kwargs)
        statistics.append(statistic)
    if given_trials:
        if trial_kwargs:
            raise ValueError(
                f"{sorted(trial_kwargs)} belong to the ScoredTrials, which "
                "already hold the weights and the target label."
            )
        trials = y_true
    else:
        trials = ScoredTrials(
            y_true,
            y_score,
            sample_weight=trial_kwargs.get("sample_weight"),
            pos_label=trial_kwargs.get("pos_label"),
        )
    # the resampler first: its points of the kernel give the blocks of the
    # metrics on the data too (one sort); their arguments are checked there
    resampler = Resampler(trials, groups)
    points = [
        _one_number(s(trials), m) for s, m in zip(statistics, metrics, strict=True)
    ]
    statistics = [s.checked() if isinstance(s, _Method) else s for s in statistics]
    n_units = resampler.units.n_units
    replicate = _TrialsReplicate(resampler, statistics)
    distribution = _distribution(
        replicate,
        n_units,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    if distribution.shape[1] != len(statistics):
        raise ValueError("`metric` must return one number on every resample.")
    results = [
        _result(
            point,
            distribution[:, j],
            replicate.column(j),
            n_units,
            confidence_level,
            method,
        )
        for j, point in enumerate(points)
    ]
    return results if isinstance(metric, list | tuple) else results[0]


def _arrays_bootstrap(
    metric,
    y_true,
    y_score,
    metric_kwargs,
    weights_count,
    *,
    n_resamples,
    confidence_level,
    method,
    groups,
    random_state,
    n_jobs,
):
    """:func:`bootstrap_ci` of a metric that is not a method of the trials."""
    point = _one_number(metric(y_true, y_score, **metric_kwargs), metric)
    kwargs = dict(metric_kwargs)
    sample_weight = kwargs.pop("sample_weight", None)
    units = ResamplingUnits(np.shape(y_score)[0], groups)
    if sample_weight is not None:
        sample_weight = _scaled_weights(sample_weight)
    weights = weights_count is not None and weights_count(kwargs)
    replicate = _ArraysReplicate(
        units,
        metric,
        y_true if weights else np.asarray(y_true),
        y_score if weights else np.asarray(y_score),
        sample_weight,
        kwargs,
        weights,
    )
    distribution = _distribution(
        replicate,
        units.n_units,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    return _result(
        point, distribution, replicate, units.n_units, confidence_level, method
    )
