"""Weighted counts and quantiles shared by the metrics, estimators and Dask code.

One place per idea: class totals, dropping zero-weight rows, the weighted
error counts of threshold decisions, weighted quantiles, and whether a
weighted mean of paired per-sample differences is significant. The
functions take validated arrays (boolean ``is_target``, float64 scores,
float64 weights or ``None`` for unit weights); the sums are raw weighted
sums, so that the sums of the partitions of a distributed collection add
up to the sums of the whole. Design note:
docs/design/shared_helpers.rst.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "class_totals",
    "drop_zero_weights",
    "error_counts",
    "significantly_positive",
]


def class_totals(is_target, sample_weight) -> tuple[float, float]:
    """Total target and non-target weight ``(n_tar, n_non)``.

    Unweighted (``sample_weight=None``) the totals are the class counts.
    """
    if sample_weight is None:
        n_tar = float(np.count_nonzero(is_target))
        return n_tar, float(is_target.shape[0]) - n_tar
    return (
        float(sample_weight[is_target].sum()),
        float(sample_weight[~is_target].sum()),
    )


def significantly_positive(values, sample_weight, z) -> bool:
    """Whether the weighted mean of paired differences ``values`` exceeds
    ``z`` standard errors.

    The standard error is that of a weighted mean with Kish's effective
    number of samples, ``(sum w)**2 / sum w**2`` (``sample_weight=None``:
    unit weights). The rule by which a method with more freedom must beat
    the simpler one it would replace, on their per-sample losses.
    """
    values = np.asarray(values, dtype=np.float64)
    if sample_weight is None:
        sample_weight = np.ones(values.shape[0])
    total = sample_weight.sum()
    share = sample_weight / total
    mean = float(values @ share)
    variance = float(((values - mean) ** 2) @ share)
    n_effective = total**2 / float(sample_weight @ sample_weight)
    return mean > z * np.sqrt(variance / n_effective)


def drop_zero_weights(sample_weight, *arrays):
    """``arrays`` and ``sample_weight`` without the rows of zero weight.

    Zero-weight rows change no weighted sum, but they would reach kernels
    that need positive weights (scipy's ``isotonic_regression``) or multiply
    an infinite cost by zero. Nothing is copied when no weight is zero (or
    ``sample_weight`` is None).

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,) or None
        Validated non-negative weights.
    *arrays : ndarray
        Arrays of ``n_samples`` rows.

    Returns
    -------
    arrays : tuple
        ``(*arrays, sample_weight)`` restricted to the rows of positive weight.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.utils._stats import drop_zero_weights
    >>> s, w = drop_zero_weights(np.array([1.0, 0.0, 2.0]), np.array([0.1, 0.2, 0.3]))
    >>> s.tolist(), w.tolist()
    ([0.1, 0.3], [1.0, 2.0])
    """
    if sample_weight is None:
        return (*arrays, None)
    keep = sample_weight > 0
    if keep.all():
        return (*arrays, sample_weight)
    return (*(a[keep] for a in arrays), sample_weight[keep])


def error_counts(is_target, scores, sample_weight, thresholds):
    """Weighted misses and false alarms of the decisions ``scores >= t``.

    Parameters
    ----------
    is_target : ndarray of shape (n_samples,), dtype=bool
    scores : ndarray of shape (n_samples,), float64
        Scores or LLRs; +/-inf allowed.
    sample_weight : ndarray of shape (n_samples,) or None
    thresholds : ndarray of shape (n_thresholds,)
        Decision thresholds, in any order; a score equal to a threshold is
        accepted.

    Returns
    -------
    misses : ndarray of shape (n_thresholds,)
        Weight of the targets with ``score < t``.
    false_alarms : ndarray of shape (n_thresholds,)
        Weight of the non-targets with ``score >= t``.
    n_tar, n_non : float
        Total target and non-target weight, summed the way the counts are
        (``misses / n_tar`` is ``P_miss``).
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    if thresholds.shape[0] == 1:
        return _error_counts_one(is_target, scores, sample_weight, thresholds[0])
    # One binning pass instead of a sort of the scores: each trial's bin is
    # the number of (sorted) thresholds at or below its score, and a trial
    # lies below threshold ``t_k`` exactly when its bin is at most ``k``.
    order = np.argsort(thresholds, kind="stable")
    n_thr = thresholds.shape[0]
    bins = np.searchsorted(thresholds[order], scores, side="right")
    # even bins count non-targets, odd bins targets, in one bincount
    counts = np.bincount(
        2 * bins + is_target, weights=sample_weight, minlength=2 * (n_thr + 1)
    ).reshape(-1, 2)
    below = np.cumsum(counts, axis=0)[:n_thr]
    n_non, n_tar = counts.sum(axis=0)
    misses = np.empty(n_thr)
    false_alarms = np.empty(n_thr)
    misses[order] = below[:, 1]
    false_alarms[order] = np.maximum(n_non - below[:, 0], 0.0)
    return misses, false_alarms, float(n_tar), float(n_non)


def _error_counts_one(is_target, scores, sample_weight, threshold):
    """:func:`error_counts` at one threshold: masks, no binning."""
    accept = scores >= threshold
    tar_accepted = np.logical_and(accept, is_target)
    if sample_weight is None:
        n_tar = np.count_nonzero(is_target)
        n_non = is_target.shape[0] - n_tar
        n_tar_acc = np.count_nonzero(tar_accepted)
        n_non_acc = np.count_nonzero(accept) - n_tar_acc
        return (
            np.array([float(n_tar - n_tar_acc)]),
            np.array([float(n_non_acc)]),
            float(n_tar),
            float(n_non),
        )
    n_tar = np.add.reduce(sample_weight, where=is_target)
    n_non = np.add.reduce(sample_weight, where=~is_target)
    non_accepted = np.logical_and(accept, ~is_target, out=accept)
    miss = n_tar - np.add.reduce(sample_weight, where=tar_accepted)
    fa = np.add.reduce(sample_weight, where=non_accepted)
    return np.array([max(miss, 0.0)]), np.array([fa]), float(n_tar), float(n_non)
