"""Input handling shared by the binary metrics, and their one route to the kernel.

Every minimum metric (``min_dcf``, ``eer``, ``min_cllr``, ``rocch``, the
minimum of ``bayes_error_curve``) obtains its block summary from
:func:`_validated_blocks` and nowhere else, so that a new kind of input (for
instance a distributed collection) is supported by all of them at once.
"""

from __future__ import annotations

import numpy as np

from .._dask import any_dask_collection
from .._pav import BlockSummary, pav_blocks
from ..utils._validation import check_metric_inputs

__all__ = [
    "_validated_blocks",
    "_validated_binary",
    "_blocks_from_arrays",
]


def _validated_blocks(
    y_true, scores, sample_weight, pos_label, *, score_name: str = "y_score"
) -> tuple[BlockSummary, float, float]:
    """Validate a binary metric's inputs and return its PAV block summary.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    scores : array-like of shape (n_samples,)
        Any scores (+/-inf allowed); only their order matters.
    sample_weight : array-like of shape (n_samples,) or None
    pos_label : label or None
    score_name : str, default="y_score"
        Name of the score argument in error messages.

    Returns
    -------
    blocks : BlockSummary
        :func:`skcalib._pav.pav_blocks` of the data (zero-weight trials
        dropped).
    n_tar, n_non : float
        Total target and non-target weight.
    """
    # Distributed inputs: the same ``(blocks, n_tar, n_non)`` triple from the
    # distributed block summary; every minimum metric then follows.
    if any_dask_collection(y_true, scores, sample_weight):
        from .._dask._blocks import dask_validated_blocks

        return dask_validated_blocks(
            y_true, scores, sample_weight, pos_label, score_name=score_name
        )
    is_target, s, w = check_metric_inputs(
        y_true, scores, sample_weight, pos_label=pos_label, score_name=score_name
    )
    return _blocks_from_arrays(is_target, s, w)


def _blocks_from_arrays(
    is_target: np.ndarray, scores: np.ndarray, sample_weight: np.ndarray | None
) -> tuple[BlockSummary, float, float]:
    """The kernel call of :func:`_validated_blocks`, on validated arrays."""
    blocks = pav_blocks(scores, is_target, sample_weight)
    return blocks, float(blocks.tar.sum()), float(blocks.non.sum())


def _validated_binary(
    y_true, llr, sample_weight, pos_label, *, score_name: str = "llr"
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate the inputs of a per-trial (actual) metric.

    Zero-weight trials are removed here, so that the metric never forms
    ``0 * inf`` for an infinite LLR of a trial that should not count.

    Returns
    -------
    is_target : ndarray of bool
    llr : ndarray of float64, +/-inf allowed
    sample_weight : ndarray of float64 (all positive) or None
    """
    is_target, x, w = check_metric_inputs(
        y_true, llr, sample_weight, pos_label=pos_label, score_name=score_name
    )
    if w is not None:
        positive = w > 0
        if not positive.all():
            is_target, x, w = is_target[positive], x[positive], w[positive]
    return is_target, x, w
