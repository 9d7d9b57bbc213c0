"""Actual (LLR) metrics on Dask inputs: one pass of per-partition, per-class sums."""

from __future__ import annotations

import numpy as np

from .._kernel._special import beta_rule_costs, check_rule_params, cllr_sums
from ..utils._stats import error_counts
from ._partitions import _first_pass, _partitions

__all__ = [
    "dask_class_reduce",
    "dask_prior_weighted_objective",
    "dask_error_rates",
    "dask_cllr_sums",
]


def _wsum(x: np.ndarray, w: np.ndarray | None) -> float:
    # Zero weights were dropped, so an infinite cost never meets a zero weight.
    return float(x.sum()) if w is None else float(x @ w)


def _reduce_beta_costs(alpha, beta, prior, s_tar, w_tar, s_non, w_non):
    """``[sum_tar w C(q, tar), sum_non w C(q, non)]`` of one partition."""
    c_tar = beta_rule_costs(s_tar, alpha=alpha, beta=beta, prior=prior)[0]
    c_non = beta_rule_costs(s_non, alpha=alpha, beta=beta, prior=prior)[1]
    return [_wsum(c_tar, w_tar), _wsum(c_non, w_non)]


def _reduce_errors(thresholds, s_tar, w_tar, s_non, w_non):
    """Missed target weight (``l < t``) and false-alarm weight (``l >= t``).

    The in-memory metrics' :func:`~skcalib.utils._stats.error_counts` on each
    class of the partition: raw weighted counts, which add up over partitions.
    """
    misses = error_counts(np.ones(s_tar.shape[0], bool), s_tar, w_tar, thresholds)[0]
    false_alarms = error_counts(
        np.zeros(s_non.shape[0], bool), s_non, w_non, thresholds
    )[1]
    return np.stack([misses, false_alarms])


def dask_class_reduce(
    y_true,
    y_score,
    sample_weight=None,
    *,
    reduce,
    pos_label=None,
    score_name: str = "y_score",
):
    """Validate Dask metric inputs and sum a per-class reduction, in one pass.

    Parameters
    ----------
    y_true, y_score, sample_weight : Dask collections (or arrays)
        As for the metrics; ``y_score`` may hold +/-inf, not NaN.
    reduce : callable
        ``reduce(s_tar, w_tar, s_non, w_non) -> array-like``, evaluated on
        every partition (zero-weight samples dropped; weights None when
        unweighted) and summed. Must be picklable.
    pos_label : label, default=None
    score_name : str, default="y_score"

    Returns
    -------
    total : ndarray
        Sum of the per-partition results.
    summary : DaskInputSummary
        Labels and class totals (``boundaries`` is None).
    """
    parts = _partitions(
        {score_name: y_score, "y_true": y_true, "sample_weight": sample_weight}
    )
    parts = [(y, s, w) for s, y, w in parts]
    summary, total = _first_pass(
        parts,
        pos_label=pos_label,
        score_name=score_name,
        y_name="y_true",
        require_both=True,
        n_ranges=None,
        weighted=sample_weight is not None,
        reduce=reduce,
    )
    return total, summary


def dask_prior_weighted_objective(
    y_true, llr, sample_weight=None, *, alpha, beta, prior=0.5, pos_label=None
) -> float:
    """Prior-weighted Beta-family objective ``Cbar`` of Dask inputs.

    The Dask counterpart of ``skcalib._kernel._special.prior_weighted_objective``
    (unnormalized), with the metrics' input validation, in one pass: each
    partition returns its weighted class sums of ``C(q, tar)`` and
    ``C(q, non)`` (``skcalib._kernel._special.beta_rule_costs``); the client forms
    ``prior/N_tar * S_tar + (1-prior)/N_non * S_non``. ``cllr`` is this at
    ``alpha = beta = 1`` divided by the uninformative value (``log 2`` at
    ``prior = 1/2``), ``beta_rule_loss`` likewise.
    """
    from functools import partial

    alpha, beta, prior = check_rule_params(alpha, beta, prior)
    (s_tar, s_non), summary = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=partial(_reduce_beta_costs, alpha, beta, prior),
        pos_label=pos_label,
        score_name="llr",
    )
    return float(prior / summary.n_tar * s_tar + (1.0 - prior) / summary.n_non * s_non)


def dask_error_rates(
    y_true, llr, thresholds, *, sample_weight=None, pos_label=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(P_miss, P_fa)`` of the decisions ``llr >= t`` for every threshold.

    One pass; per partition, weighted counts of targets below and
    non-targets at or above each threshold. This is what ``actual_dcf``
    (one threshold, ``-logit(pe)``) and the actual curve of
    ``bayes_error_curve`` (thresholds ``-prior_log_odds``) need.

    Returns
    -------
    p_miss, p_fa : ndarray of shape (n_thresholds,)
    """
    from functools import partial

    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    (misses, false_alarms), summary = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=partial(_reduce_errors, thresholds),
        pos_label=pos_label,
        score_name="llr",
    )
    return misses / summary.n_tar, false_alarms / summary.n_non


def _reduce_cllr(s_tar, w_tar, s_non, w_non):
    """The metrics' own chunked Cllr sums, per class, on one partition."""
    loss_tar, _, n_tar, _ = cllr_sums(s_tar, np.ones(s_tar.shape[0], bool), w_tar)
    _, loss_non, _, n_non = cllr_sums(s_non, np.zeros(s_non.shape[0], bool), w_non)
    return [loss_tar, loss_non, n_tar, n_non]


def dask_cllr_sums(y_true, llr, sample_weight=None, *, pos_label=None):
    """Per-class Cllr sums ``(loss_tar, loss_non, n_tar, n_non)`` on Dask inputs.

    One pass: every partition runs ``skcalib._kernel._special.cllr_sums``
    on its targets and on its non-targets; the sums are added on the client,
    so ``cllr = (loss_tar / n_tar + loss_non / n_non) / 2`` as in memory.
    """
    total, _ = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=_reduce_cllr,
        pos_label=pos_label,
        score_name="llr",
    )
    return tuple(float(v) for v in total)
