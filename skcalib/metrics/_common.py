"""Validated-array helpers shared by the binary metrics.

The metrics validate their inputs once, in :class:`~skcalib.metrics.ScoredTrials`
(``_trials.py``), and hand these helpers clean arrays: boolean ``is_target``,
float64 LLRs (+/-inf allowed) and positive float64 weights or ``None``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from .._kernel._special import cllr_sums
from ..utils._stats import error_counts

__all__ = ["_cllr_bits", "_normalized_log_loss", "_log_loss_ratio", "_error_rates"]


def _cllr_bits(llr, is_target, w) -> float:
    """Cllr in bits of validated inputs (no zero weights)."""
    loss_tar, loss_non, n_tar, n_non = cllr_sums(llr, is_target, w)
    return 0.5 * (loss_tar / n_tar + loss_non / n_non)


def _normalized_log_loss(llr, is_target, w, p_target) -> float:
    """Prior-weighted log loss at ``p_target``, normalized by that of ``llr = 0``.

    The Cllr loop on the posterior log-odds ``llr + logit(p_target)``; the
    normalizer goes through the same loop (one target and one non-target
    trial at ``logit(p_target)``), so ``llr = 0`` gives exactly 1.
    """
    shift = float(logit(p_target))
    loss_tar, loss_non, n_tar, n_non = cllr_sums(llr + shift, is_target, w)
    return _log_loss_ratio(loss_tar / n_tar, loss_non / n_non, p_target, shift)


def _log_loss_ratio(mean_tar, mean_non, p_target, shift) -> float:
    """The normalized log loss of :func:`_normalized_log_loss` from the class
    means of the per-trial losses at ``llr + shift`` (``shift =
    logit(p_target)``)."""
    ref_tar, ref_non, _, _ = cllr_sums(
        np.array([shift, shift]), np.array([True, False]), None
    )
    cost = p_target * mean_tar + (1.0 - p_target) * mean_non
    return float(cost / (p_target * ref_tar + (1.0 - p_target) * ref_non))


def _error_rates(is_target, llr, w, thresholds):
    """``P_miss`` and ``P_fa`` of the decisions ``llr >= t`` at each threshold."""
    misses, false_alarms, n_tar, n_non = error_counts(is_target, llr, w, thresholds)
    return misses / n_tar, false_alarms / n_non
