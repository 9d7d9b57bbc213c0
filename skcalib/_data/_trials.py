"""The validated trials of one system, in memory: the array backend of
:class:`~skcalib.metrics.ScoredTrials`.

``ScoredTrials`` asks its data object for what every metric is made of --
the validated arrays, the kernel's ordered points, the PAV block summary,
the error rates at thresholds, the Cllr and Beta-family sums -- and never
asks where the data live. :class:`ArrayTrials` holds NumPy arrays;
:class:`skcalib._dask._trials.DaskTrials` holds Dask collections and
answers the same questions with distributed passes (and computes its arrays
only for a question that needs every trial in memory). The backend is
chosen once, when the trials are built. Design note:
docs/design/evaluation_objects.rst.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from .._kernel._pav import pav_blocks, pav_merge, pav_points, pav_points_and_classes
from .._kernel._special import cllr_sums, prior_weighted_objective
from ..utils._stats import error_counts
from ..utils._validation import check_metric_inputs, warn_if_probabilities

__all__ = [
    "ArrayTrials",
    "cllr_bits",
    "error_rates",
    "log_loss_ratio",
    "normalized_log_loss",
]

#: Unweighted trials up to this many take the kernel's one-call path to the
#: blocks (faster on few trials than forming the ordered points first).
FEW_TRIALS = 2000


def cllr_bits(llr, is_target, w) -> float:
    """Cllr in bits of validated inputs (no zero weights)."""
    loss_tar, loss_non, n_tar, n_non = cllr_sums(llr, is_target, w)
    return 0.5 * (loss_tar / n_tar + loss_non / n_non)


def normalized_log_loss(llr, is_target, w, p_target) -> float:
    """Prior-weighted log loss at ``p_target``, normalized by that of ``llr = 0``.

    The Cllr loop on the posterior log-odds ``llr + logit(p_target)``; the
    normalizer goes through the same loop (one target and one non-target
    trial at ``logit(p_target)``), so ``llr = 0`` gives exactly 1.
    """
    shift = float(logit(p_target))
    loss_tar, loss_non, n_tar, n_non = cllr_sums(llr + shift, is_target, w)
    return log_loss_ratio(loss_tar / n_tar, loss_non / n_non, p_target, shift)


def log_loss_ratio(mean_tar, mean_non, p_target, shift) -> float:
    """The normalized log loss of :func:`normalized_log_loss` from the class
    means of the per-trial losses at ``llr + shift`` (``shift =
    logit(p_target)``)."""
    ref_tar, ref_non, _, _ = cllr_sums(
        np.array([shift, shift]), np.array([True, False]), None
    )
    cost = p_target * mean_tar + (1.0 - p_target) * mean_non
    return float(cost / (p_target * ref_tar + (1.0 - p_target) * ref_non))


def error_rates(is_target, llr, w, thresholds):
    """``P_miss`` and ``P_fa`` of the decisions ``llr >= t`` at each threshold."""
    misses, false_alarms, n_tar, n_non = error_counts(is_target, llr, w, thresholds)
    return misses / n_tar, false_alarms / n_non


class ArrayTrials:
    """Validated trials held as NumPy arrays (the array backend).

    Parameters
    ----------
    is_target : ndarray of shape (n_trials,), dtype=bool
    scores : ndarray of shape (n_trials,), dtype=float64
        +/-inf allowed.
    sample_weight : ndarray of shape (n_trials,) or None
        Non-negative weights (zeros allowed).
    inputs : tuple or None, default=None
        The caller's ``(y_true, y_score, sample_weight, pos_label)``, kept
        (not copied) so that a calibrator can be fitted on the trials with
        its own label rule.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._data._trials import ArrayTrials
    >>> data = ArrayTrials.validate([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    >>> blocks = data.blocks()
    >>> blocks.tar.tolist(), blocks.non.tolist()
    ([0.0, 2.0], [2.0, 0.0])
    >>> [r.tolist() for r in data.error_rates([0.5])]   # P_miss, P_fa
    [[0.5], [0.0]]
    """

    def __init__(self, is_target, scores, sample_weight, *, inputs=None):
        self._arrays = (is_target, scores, sample_weight)
        self.inputs = inputs
        self._positive = None
        self._points = None
        self._sorted_classes = (None, None)

    @classmethod
    def validate(
        cls, y_true, y_score, sample_weight=None, pos_label=None, score_name="y_score"
    ):
        """The trials of ``(y_true, y_score, sample_weight)``, validated as
        every metric validates them (``score_name`` in the messages)."""
        arrays = check_metric_inputs(
            y_true, y_score, sample_weight, pos_label=pos_label, score_name=score_name
        )
        return cls(*arrays, inputs=(y_true, y_score, sample_weight, pos_label))

    def arrays(self):
        """``(is_target, scores, sample_weight)``, every trial."""
        return self._arrays

    def positive(self):
        """``(is_target, scores, sample_weight)`` without zero-weight trials.

        Dropped here once, so that no actual metric forms ``0 * inf`` for an
        infinite LLR of a trial that should not count.
        """
        if self._positive is None:
            is_target, x, w = self._arrays
            if w is not None:
                keep = w > 0
                if not keep.all():
                    is_target, x, w = is_target[keep], x[keep], w[keep]
            self._positive = (is_target, x, w)
        return self._positive

    def points(self):
        """The kernel's ordered points (ties and runs of one class pooled,
        score ranges kept): the one sort of these trials."""
        if self._points is None:
            is_target, x, w = self.positive()
            if w is None:
                points, *classes = pav_points_and_classes(x, is_target)
                self._points, self._sorted_classes = points, classes
            else:
                self._points = pav_points(x, is_target, w)
        return self._points

    def sorted_classes(self):
        """``(tar, non)``: the target and the non-target scores, each sorted,
        from the one sort of :meth:`points` (read only); None for weighted
        or few trials, whose sort does not form them."""
        _, x, w = self.positive()
        if w is not None or x.shape[0] <= FEW_TRIALS:
            return None
        self.points()
        tar, non = self._sorted_classes
        return None if tar is None else (tar, non)

    @property
    def sorted(self) -> bool:
        """Whether :meth:`points` has run (the trials are sorted)."""
        return self._points is not None

    def blocks(self):
        """The PAV block summary (few unweighted trials: without score ranges)."""
        is_target, x, w = self.positive()
        if self._points is None and w is None and x.shape[0] <= FEW_TRIALS:
            return pav_blocks(x, is_target, ranges=False)
        return pav_merge(self.points())  # what pav_blocks does, points kept

    def error_rates(self, thresholds):
        """``(P_miss, P_fa)`` of the decisions ``score >= t`` at each threshold."""
        is_target, x, w = self.positive()
        return error_rates(is_target, x, w, thresholds)

    def cllr(self, p_target):
        """Cllr in bits (``p_target``: None, or the prior of the normalized
        prior-weighted log loss)."""
        is_target, x, w = self.positive()
        if p_target is not None:
            return normalized_log_loss(x, is_target, w, p_target)
        return float(cllr_bits(x, is_target, w))

    def rule_loss(self, alpha, beta, p_target):
        """The unnormalized prior-weighted Beta-family objective."""
        is_target, x, w = self.positive()
        return prior_weighted_objective(
            x, is_target, w, alpha=alpha, beta=beta, prior=p_target
        )

    def fit_inputs(self):
        """``(X, y, sample_weight, pos_label, handle)`` of a calibrator fitted
        on these trials: the caller's inputs, validated again by the fit with
        its own rules (no handle: in memory nothing is worth sharing)."""
        if self.inputs is None:
            raise ValueError(
                "A calibrator is fitted on the trials themselves; a bootstrap "
                "resample holds only their weights."
            )
        y_true, y_score, sample_weight, pos_label = self.inputs
        return y_score, y_true, sample_weight, pos_label, None

    def warn_if_probabilities(self, name, instead, stacklevel):
        """Warn if every score lies in [0, 1] where LLRs are due."""
        warn_if_probabilities(
            self._arrays[1],
            name=name,
            expected="log-likelihood-ratios",
            instead=instead,
            stacklevel=stacklevel + 1,
        )
