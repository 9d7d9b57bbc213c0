"""The scored trials of one system on Dask: the Dask backend of
:class:`~skcalib.metrics.ScoredTrials`, and the data handle that a fit and
the metrics on the same columns share.

:class:`DaskTrials` answers the questions of the array backend
(:class:`~skcalib._data._trials.ArrayTrials`) where the data live:

* ``blocks()``: the distributed PAV block summary (two passes: validate and
  sample, then the range blocks; :mod:`skcalib._dask._blocks`). The range
  blocks are kept on the object, as ``ranges``: every later question of
  the same object -- a minimum metric, or the PAV fit of a calibrator
  fitted on the trials (``training_data``) -- reads them, and nothing else
  keeps them;
* ``error_rates``, ``cllr``, ``rule_loss``: one pass of per-partition class
  sums (:mod:`skcalib._dask._metrics`);
* ``arrays()``, ``positive()``, ``points()``: the validated trials computed
  into memory, once, for what needs every trial (a drawing, the bootstrap,
  the forensic metrics).

It knows no estimator and no metric function.
"""

from __future__ import annotations

from functools import cached_property

from .._data._trials import ArrayTrials
from .._kernel._pav import BlockSummary, pav_finish
from .._kernel._special import uninformative_objective
from ._blocks import range_blocks
from ._metrics import dask_cllr_sums, dask_error_rates, dask_prior_weighted_objective

__all__ = ["DaskTrials"]


class DaskTrials:
    """Validated scored trials on Dask collections (the Dask backend).

    Nothing is computed on construction. The first minimum metric (or PAV
    fit) validates the trials and computes their range blocks, kept as
    :attr:`ranges`; the actual metrics take one pass each.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        The trials as the metrics take them (see
        :func:`~skcalib._dask._blocks.range_blocks`), as Dask collections
        (the weights may be in memory); held, not read.
    score_name : str, default="y_score"
        Name of the scores in error messages.

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> import numpy as np
    >>> from skcalib._dask._trials import DaskTrials
    >>> y = da.from_array(np.array([0, 1, 0, 1]), chunks=2)
    >>> s = da.from_array(np.array([0.1, 0.4, 0.35, 0.8]), chunks=2)
    >>> trials = DaskTrials(y, s)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     blocks = trials.blocks()
    >>> blocks.tar.tolist(), blocks.non.tolist()
    ([0.0, 2.0], [2.0, 0.0])
    >>> trials.ranges is trials.ranges   # computed once, kept on the object
    True
    """

    def __init__(
        self,
        y_true,
        y_score,
        sample_weight=None,
        *,
        pos_label=None,
        score_name="y_score",
    ):
        self.y_true, self.y_score = y_true, y_score
        self.sample_weight, self.pos_label = sample_weight, pos_label
        self.score_name = score_name
        self._memory = None

    # ------------------------------------------------------ the block summary
    @cached_property
    def _passes(self) -> tuple[BlockSummary, object]:
        # the metrics' checks: +/-inf allowed, both classes required
        trials = (self.y_true, self.y_score, self.sample_weight)
        name = self.score_name
        return range_blocks(*trials, pos_label=self.pos_label, score_name=name)

    @property
    def summary(self):
        """What the validating first pass found
        (:class:`~skcalib._dask._partitions.DaskInputSummary`)."""
        return self._passes[1]

    @property
    def ranges(self) -> BlockSummary:
        """The PAV blocks of every score range, in score order, computed once
        (``pav_finish`` of them is the block summary)."""
        return self._passes[0]

    def blocks(self) -> BlockSummary:
        """The PAV block summary (equal to the in-memory kernel's)."""
        if self._memory is not None and self._memory.sorted:
            return self._memory.blocks()  # already sorted in memory
        return self.finished_ranges()

    def finished_ranges(self, pseudo_count: float = 0.0) -> BlockSummary:
        """The block summary from :attr:`ranges`, with ``pseudo_count``
        (see :func:`~skcalib._kernel._pav.pav_blocks`)."""
        # a copy: pav_finish may hand its input back, and the caller owns it
        ranges = BlockSummary(*(a.copy() for a in self.ranges))
        return pav_finish(ranges, pseudo_count)

    # ------------------------------------------------------ actual metrics
    def error_rates(self, thresholds):
        """``(P_miss, P_fa)`` of the decisions ``score >= t``, one pass."""
        return dask_error_rates(
            self.y_true,
            self.y_score,
            thresholds,
            sample_weight=self.sample_weight,
            pos_label=self.pos_label,
        )

    def cllr(self, p_target):
        """Cllr in bits, one pass (as :meth:`ArrayTrials.cllr`)."""
        if p_target is not None:
            loss = self.rule_loss(1.0, 1.0, p_target)
            return float(loss / uninformative_objective(1.0, 1.0, p_target))
        loss_tar, loss_non, n_tar, n_non = dask_cllr_sums(
            self.y_true, self.y_score, self.sample_weight, pos_label=self.pos_label
        )
        return float(0.5 * (loss_tar / n_tar + loss_non / n_non))

    def rule_loss(self, alpha, beta, p_target):
        """The unnormalized prior-weighted Beta-family objective, one pass."""
        return dask_prior_weighted_objective(
            self.y_true,
            self.y_score,
            self.sample_weight,
            alpha=alpha,
            beta=beta,
            prior=p_target,
            pos_label=self.pos_label,
        )

    def fit_inputs(self):
        """``(X, y, sample_weight, pos_label, handle)`` of a calibrator fitted
        on these trials; the handle is this object, whose first pass and
        range blocks the fit reads (see
        :class:`~skcalib._dask._training.DaskTrainingData`)."""
        return self.y_score, self.y_true, self.sample_weight, self.pos_label, self

    def warn_if_probabilities(self, name, instead, stacklevel):
        """Nothing: the scores are not read into memory for a warning."""

    # ------------------------------------------------------ in memory
    def in_memory(self) -> ArrayTrials:
        """The trials computed and validated in memory, once."""
        if self._memory is None:
            self._memory = ArrayTrials.validate(
                self.y_true,
                self.y_score,
                self.sample_weight,
                self.pos_label,
                self.score_name,
            )
        return self._memory

    def arrays(self):
        return self.in_memory().arrays()

    def positive(self):
        return self.in_memory().positive()

    def points(self):
        return self.in_memory().points()
