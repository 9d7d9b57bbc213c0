"""The training data of a calibrator on Dask collections.

:class:`DaskTrainingData` is the :class:`~skcalib._data._training.TrainingData` of
Dask inputs: one validating pass over all score columns, the labels and the
weights (on the workers, with the in-memory checks and messages) gives the
classes and class totals; a fit then asks for what it is made of, and gets
it computed where the data live:

* ``column(j)`` and ``stacked()``: a :class:`~skcalib._dask._source.DaskData`
  source of cleaned partitions persisted on the workers, for the Newton
  solver (each pass evaluates the objective on the workers and sums on the
  client);
* ``blocks(j)``: the distributed PAV block summary of column ``j``
  (:mod:`skcalib._dask._blocks`), equal to the in-memory kernel's; only the
  blocks reach the client, and the object keeps them.

Built on a :class:`~skcalib._dask._trials.DaskTrials` handle (``trials=``,
the data of a :class:`~skcalib.metrics.ScoredTrials` that a calibrator is
fitted on), it validates nothing again and reads its block summary off the
handle: the metrics of those trials and the fit share one computation.

It knows no estimator: a fit that needs the data in memory (``arrays()``)
gets a ``TypeError``.

:class:`DaskClassTrainingData` is the
:class:`~skcalib._data._training.ClassTrainingData`
of ``K``-class Dask inputs: one validating pass gives the distinct labels
(checked as in memory) and the class totals; ``source()`` persists
``(X, class_index, weights)`` partitions on the workers.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .._data._training import (
    ClassTrainingData,
    TrainingData,
    check_class_totals,
    check_trials_target,
)
from .._kernel._pav import BlockSummary, pav_finish
from ..utils._stats import drop_zero_weights
from ..utils._validation import check_class_y
from ._blocks import validated_ranges
from ._detect import is_dask_collection
from ._partitions import (
    ESTIMATOR_LABELS,
    _as_1d,
    _as_float,
    _first_pass,
    _partitions,
    class_totals_pass,
    clean_partition,
    raise_infinite,
)
from ._source import DaskData

__all__ = ["DaskTrainingData", "DaskClassTrainingData"]


def _columns(X) -> tuple[list, list | None]:
    """The score columns of ``X`` as 1-D Dask collections, and feature names."""
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        names = list(X.columns)
        feature_names = names if all(isinstance(c, str) for c in names) else None
        return [X[c] for c in names], feature_names
    if isinstance(X, dd.Series):
        return [X], None
    if not is_dask_collection(X):
        X = np.asarray(X)
    if X.ndim == 1:
        return [X], None
    if X.ndim != 2:
        raise ValueError(f"Expected a 1-D or 2-D array for X; got {X.ndim}-D.")
    return [X[:, j] for j in range(X.shape[1])], None


def _aligned_parts(columns, y, w):
    """The aligned ``(y, columns, w)`` partitions of score columns, labels and
    weights (``columns`` a tuple of partitions)."""
    arrays = {"X": columns[0]}
    arrays.update({f"X[:, {j}]": c for j, c in enumerate(columns) if j})
    arrays.update({"y": y, "sample_weight": w})
    k = len(columns)
    return [(p[k], p[:k], p[k + 1]) for p in _partitions(arrays)]


def _stacked_partition(y, columns, w, pos_label):
    """``(X (n, k), is_target, weights)`` of one partition of k columns."""
    parts = [clean_partition(y, s, w, pos_label) for s in columns]
    return np.column_stack([p[0] for p in parts]), parts[0][1], parts[0][2]


class DaskTrainingData(TrainingData):
    """:class:`~skcalib._data._training.TrainingData` of Dask collections.

    Nothing is computed until a fit asks for the classes, the class totals,
    a source or the blocks; then one pass validates every column with the
    labels and the weights.

    Parameters
    ----------
    X : Dask array of shape (n_samples,) or (n_samples, k), Dask Series or DataFrame
        Scores; NaN and +/-inf are rejected, as in memory.
    y : Dask array or Dask Series of shape (n_samples,)
        Two distinct labels; the larger is the target.
    sample_weight : Dask array, Dask Series or None
        Non-negative weights (not rescaled: ``weight_exponent`` is 0).
    owner : str
        Name of the estimator, for error messages.
    trials : DaskTrials or None, default=None
        The handle of the one score column ``X`` with labels ``y`` and
        weights ``sample_weight``: its first pass and range blocks are
        this object's (computed once, for the fit and the metrics alike).

    Attributes
    ----------
    feature_names : list of str or None
        The column names of a Dask DataFrame ``X`` (if all are strings).
    """

    def __init__(self, X, y, sample_weight, *, owner: str, trials=None):
        self._columns, self.feature_names = _columns(X)
        self._y, self._w = y, sample_weight
        self._trials = trials
        self._ranges = {}
        super().__init__(n_columns=len(self._columns), weight_exponent=0, owner=owner)

    @cached_property
    def _parts(self):
        """The aligned ``(y, columns, w)`` partitions."""
        return _aligned_parts(self._columns, self._y, self._w)

    @cached_property
    def _summary(self):
        """The first pass over all columns, labels and weights (one pass;
        the handle's, if built on one)."""
        if self._trials is not None:
            return _fit_summary(self._trials.summary, self._trials.score_name)
        summary, _ = _first_pass(
            self._parts,
            pos_label=ESTIMATOR_LABELS,
            score_name="X",
            y_name="y",
            require_both=True,
            n_ranges=None,
            weighted=self._w is not None,
            allow_inf=False,
        )
        return summary

    @property
    def classes(self):
        return self._summary.classes

    @property
    def n_tar(self):
        return self._summary.n_tar

    @property
    def n_non(self):
        return self._summary.n_non

    def _persist(self, fn, scores):
        import dask

        pos_label = self._summary.pos_label
        return DaskData(
            dask.persist(
                *[
                    dask.delayed(fn, pure=True)(y, scores(s), w, pos_label)
                    for y, s, w in self._parts
                ]
            )
        )

    def column(self, j: int):
        return self._persist(clean_partition, lambda s: s[j])

    def stacked(self):
        return self._persist(_stacked_partition, lambda s: s)

    def blocks(self, j: int, pseudo_count: float = 0.0):
        summary = self._summary
        if self._trials is not None:
            return self._trials.finished_ranges(pseudo_count)
        if j not in self._ranges:
            summary = summary._replace(boundaries=summary.column_boundaries[j])
            self._ranges[j] = validated_ranges(
                [(y, s[j], w) for y, s, w in self._parts], summary
            )
        # a copy: pav_finish may hand its input back, and the caller owns it
        return pav_finish(
            BlockSummary(*(a.copy() for a in self._ranges[j])), pseudo_count
        )


def _fit_summary(summary, score_name):
    """The first pass of metric trials, checked as a fit checks its data:
    finite scores, and the target the larger of the two labels."""
    if summary.has_inf:
        raise_infinite(score_name)
    check_trials_target(summary.pos_label, summary.classes)
    return summary._replace(column_boundaries=(summary.boundaries,))


def _class_partition(y, columns, w, classes):
    """``(X (n, k), class_index, weights)`` of one validated partition, the
    rows of zero weight dropped."""
    X = np.column_stack([_as_float(c, "X") for c in columns])
    index = np.searchsorted(classes, _as_1d(y)).astype(np.intp, copy=False)
    if w is not None:
        w = _as_float(w, "sample_weight")
    return drop_zero_weights(w, X, index)


class DaskClassTrainingData(ClassTrainingData):
    """:class:`~skcalib._data._training.ClassTrainingData` of Dask collections.

    Nothing is computed until a fit asks for the classes, the totals or the
    source; then one pass validates the score columns, the labels and the
    weights, and the in-memory label checks run on the distinct labels.

    Parameters
    ----------
    X : Dask array of shape (n_samples, k) or Dask DataFrame of k columns
        Scores; NaN and +/-inf are rejected, as in memory.
    y : Dask array or Dask Series of shape (n_samples,)
        Class labels (at least two distinct).
    sample_weight : Dask array, Dask Series or None
        Non-negative weights.
    owner : str
        Name of the estimator, for error messages.

    Attributes
    ----------
    feature_names : list of str or None
        The column names of a Dask DataFrame ``X`` (if all are strings).
    """

    def __init__(self, X, y, sample_weight, *, owner: str):
        if len(getattr(X, "shape", ())) != 2:
            raise ValueError(
                "Expected a 2-D Dask array or a Dask DataFrame for X (one "
                "column per class); reshape a single column to (n_samples, 1)."
            )
        self._columns, self.feature_names = _columns(X)
        self._y, self._w = y, sample_weight
        super().__init__(n_columns=len(self._columns), owner=owner)

    @cached_property
    def _parts(self):
        return _aligned_parts(self._columns, self._y, self._w)

    @cached_property
    def _summary(self):
        classes, totals = class_totals_pass(self._parts, weighted=self._w is not None)
        _, classes, _ = check_class_y(classes, owner=self.owner)
        check_class_totals(classes, totals)
        return classes, totals

    @property
    def classes(self):
        return self._summary[0]

    @property
    def totals(self):
        return self._summary[1]

    def source(self):
        import dask

        classes = self.classes
        return DaskData(
            dask.persist(
                *[
                    dask.delayed(_class_partition, pure=True)(y, s, w, classes)
                    for y, s, w in self._parts
                ]
            )
        )
