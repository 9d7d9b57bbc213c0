"""Inductive Venn-Abers calibration: the estimator over the tables of
:mod:`skcalib._kernel._venn_abers`."""

from __future__ import annotations

import warnings

import numpy as np

from ._base import BaseCalibrator, needs_single_column
from ._kernel._venn_abers import (
    cut_tables,
    expand_table,
    lookup_interval,
    merge_p0p1,
    venn_abers_pairs,
)
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import fill_doc

__all__ = [
    "VennAbersCalibrator",
    "warn_small_folds",
]


@fill_doc(CALIBRATOR_DOCS)
class VennAbersCalibrator(BaseCalibrator):
    """Inductive Venn-Abers calibration: a probability and a validity interval.

    For a test score ``s`` the Venn-Abers predictor [1]_ fits isotonic (PAV)
    regression twice, to the calibration set plus the test point labelled
    0 and plus the test point labelled 1, and reads both fits at ``s``: the
    pair ``(p0, p1)``. One of the two is calibrated in the sense of validity,
    whatever the distribution of the data, as long as calibration and test
    data are exchangeable. ``transform`` and ``predict_proba`` return the
    log-loss-optimal merge of the pair [2]_; ``predict_interval`` returns the
    pair itself, whose width shrinks as the calibration set grows (a wide
    interval says the calibration data are too few for this score).

    All test scores are computed exactly, in O((n + m) log n) for ``n``
    calibration and ``m`` test scores, from one sort of the calibration
    scores. Tied scores are pooled (a test score equal to a calibration score
    joins its tie group) and a sample weight counts as repeated rows; the
    test point has weight 1.

    Parameters
    ----------
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data, and then
        ``predict_proba`` is the merged Venn-Abers probability itself.

    Attributes
    ----------
    {binary_attributes}
    scores_ : list of ndarray
        Per column, the distinct calibration scores (increasing), ``K`` of
        them.
    p0_, p1_ : list of ndarray
        Per column, arrays of length ``K + 1``: ``p0`` and ``p1`` of a test
        score above ``g`` distinct calibration scores and below the others
        (``p1_`` also for a score equal to ``scores_[g]``, ``p0_`` for one
        equal to ``scores_[g - 1]``).

    See Also
    --------
    PAVCalibrator : The isotonic fit of the calibration set alone.
    CalibratedClassifier : With ``ensemble=True`` and ``cv=K``, cross
        Venn-Abers: the K folds' pairs merged by geometric means.

    Notes
    -----
    With ``f_y`` the isotonic fit of the calibration set augmented by
    ``(s, y)``, the pair is ``p0 = f_0(s) <= p1 = f_1(s)`` and the merged
    probability, the log-loss merge of [2]_, is

    .. math:: p = \\frac{p_1}{1 - p_0 + p_1}.

    ``decision_function`` is the LLR ``logit(p) - logit(calibration_prior_)``,
    finite (``0 < p < 1``), so the calibrator works with every metric and
    display of skcalib; only sample weights above ~1e16 per row, next to
    which the test point's weight of one row rounds away, give ``p`` of
    exactly 0 or 1 and an infinite LLR.

    The tables are built through the greatest convex minorant of the
    cumulative sum diagram, as suggested in [2]_: the value at a test point
    is the slope of the common lower tangent of the diagram left of it and
    the shifted diagram right of it, and that tangent always touches a
    vertex of the plain PAV fit on one side; see the module
    ``skcalib._kernel._venn_abers`` for the derivation.

    The guarantee is for the pair, not the merged probability, and is
    marginal (on average over test points and calibration sets), not
    conditional on a score. Multiclass problems are handled one-vs-rest by
    :class:`CalibratedClassifier`: each class's pair is valid for "this class
    or not", the normalized probabilities carry no joint guarantee.

    References
    ----------
    .. [1] V. Vovk and I. Petej, "Venn-Abers predictors", Proceedings of the
       30th Conference on Uncertainty in Artificial Intelligence (UAI), 2014.
    .. [2] V. Vovk, I. Petej and V. Fedorova, "Large-scale probabilistic
       predictors with and without guarantees of validity", Advances in
       Neural Information Processing Systems 28 (NeurIPS), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import VennAbersCalibrator
    >>> s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    >>> y = np.array([0, 1, 0, 1, 1])
    >>> cal = VennAbersCalibrator().fit(s, y)
    >>> cal.predict_interval([0.3, 0.5]).round(3).tolist()   # (p0, p1)
    [[0.5, 0.75], [0.6, 1.0]]
    >>> cal.transform([0.3, 0.5]).round(3).tolist()          # merged
    [0.6, 0.714]
    >>> cal.predict([0.05, 0.5]).tolist()
    [0, 1]
    """

    _output = "proba"

    def __init__(self, *, prior=None):
        self._store(locals())

    def _fit(self, data):
        X, is_target, sample_weight = data.arrays()
        scores, lookups = [], []
        for j in range(X.shape[1]):
            c, p0, p1 = venn_abers_pairs(
                X[:, j], is_target, sample_weight, self._virtual_trial_weight
            )
            scores.append(c)
            # only the cut tables are kept, a few thousand rows instead of
            # K + 1: less fresh memory every fit, and lookups in cache
            lookups.append(cut_tables(c, p0, p1))
            del p0, p1
        self.scores_, self._lookups = scores, lookups
        return self

    @property
    def p0_(self):
        """Per column, ``p0`` of a test score at every position (read from
        the cut tables the calibrator keeps)."""
        return self._whole_tables("p0")

    @property
    def p1_(self):
        """Per column, ``p1`` of a test score at every position (read from
        the cut tables the calibrator keeps)."""
        return self._whole_tables("p1")

    def _whole_tables(self, field):
        return [
            expand_table(lookup, scores, getattr(lookup, field))
            for lookup, scores in zip(self._lookups, self.scores_, strict=True)
        ]

    def _interval(self, j, x):
        return lookup_interval(self._lookups[j], x)

    def _transform(self, X):
        out = np.empty_like(X)
        for j in range(X.shape[1]):
            interval = self._interval(j, X[:, j])
            out[:, j] = merge_p0p1(interval[:, 0], interval[:, 1])[0]
        return out

    @needs_single_column
    def predict_interval(self, X):
        """The Venn-Abers pair ``(p0, p1)`` of every score.

        Parameters
        ----------
        {scores}

        Returns
        -------
        interval : ndarray of shape (n_samples, 2)
            ``p0`` (the fit with the test point labelled non-target) and
            ``p1`` (labelled target), ``p0 <= p1``, probabilities of
            ``classes_[1]`` at the calibration prior.
        """
        X, _ = self._validate_X(X)
        return self._interval(0, X[:, 0])


# ------------------------------------------------ cross Venn-Abers (ensembles)
#: Fewest samples of a class in a calibration fold of cross Venn-Abers
#: before :func:`warn_small_folds` warns: a fold's merged probability of
#: the class is then at most 20/21 < 0.953 (and of the rest of the classes
#: at least 1/21).
MIN_FOLD_CLASS = 20


def warn_small_folds(fold_counts, classes):
    """Warn if a calibration fold of cross Venn-Abers holds few of a class.

    ``fold_counts``: per fold, the samples (of positive weight) of each of
    ``classes``. A fold with ``t`` samples of a class, all scored above the
    others, gives that class the pair ``(t / (t + 1), 1)``, merged into at
    most ``(t + 1) / (t + 2)``: the test point weighs as much as one
    calibration sample. The geometric means of the folds' pairs (Vovk,
    Petej and Fedorova, 2015) average these bounds, they do not pool the
    folds' data, so each fold's ``t`` is about ``1 / K`` of the class's
    samples for ``K`` folds, and more folds are more conservative.
    """
    counts = np.asarray(fold_counts)
    present = np.where(counts > 0, counts, np.iinfo(np.int64).max)
    fold, k = np.unravel_index(np.argmin(present), present.shape)
    t = int(counts[fold, k])
    if t >= MIN_FOLD_CLASS:
        return
    warnings.warn(
        f"Cross Venn-Abers: calibration fold {fold} (0-based) holds only {t} "
        f"samples of class {np.asarray(classes)[k].tolist()!r}. A fold's "
        "Venn-Abers probability of a class with t samples of it is at most "
        f"(t + 1) / (t + 2) = {(t + 1) / (t + 2):.3f}, and merging the folds "
        "by geometric means does not pool their data: the probabilities are "
        "conservative, the more so the more folds. Use fewer folds, "
        "ensemble=False (one Venn-Abers calibrator on all the out-of-fold "
        "scores), or another calibrator.",
        UserWarning,
        stacklevel=4,
    )
