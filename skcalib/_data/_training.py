"""The validated training data of a calibrator: what every ``fit`` gets.

``BaseCalibrator.fit`` validates ``(X, y, sample_weight)`` once into a
:class:`TrainingData` and hands it to the calibrator's ``_fit``: the labels
as a target mask, the weights (rescaled once if their total could
overflow, zero-weight rows dropped once), the class totals and, per score
column, the data a fit is made of. Where the data live is the object's
business, not the calibrator's: :class:`ArrayTrainingData` holds NumPy
arrays, :class:`skcalib._dask._training.DaskTrainingData` partitions on Dask
workers, and both give the same sources to the Newton solver
(:mod:`skcalib._kernel._solver`) and the same PAV blocks (:mod:`skcalib._kernel._pav`).
:class:`ClassTrainingData` is the same idea for ``K`` classes (the data of
:class:`~skcalib.MulticlassAffineCalibrator`): the classes, their totals and
one solver source of ``(X, class_index, weights)``.
Design note: docs/design/evaluation_objects.rst.
"""

from __future__ import annotations

import numpy as np

from .._kernel._pav import BlockSummary, pav_blocks
from .._kernel._solver import ArrayData
from ..utils._docstrings import doc_blocks, fill_doc
from ..utils._stats import class_totals, drop_zero_weights
from ..utils._validation import check_binary_y, check_class_y, check_weights

__all__ = [
    "TrainingData",
    "ArrayTrainingData",
    "ClassTrainingData",
    "ArrayClassTrainingData",
    "check_class_totals",
    "check_trials_target",
]


#: The parameters of the array training data but the labels.
_DOCS = doc_blocks(
    array_scores="""
        X : ndarray of shape (n_samples, n_columns), float64
            Validated finite scores.
        """,
    array_weights="""
        sample_weight : array-like of shape (n_samples,) or None
            Non-negative weights.
        owner : str
            Name of the estimator, for error messages.
        """,
)


class TrainingData:
    """Validated binary training data (the interface every fit uses).

    Parameters
    ----------
    n_columns : int
        Number of score columns.
    weight_exponent : int
        The weights were divided by ``2**weight_exponent`` so that their
        total cannot overflow (0 if they were not); see
        :func:`~skcalib.utils._validation.check_weights`.
    owner : str
        Name of the estimator, for error messages.

    Attributes
    ----------
    classes : ndarray of shape (2,)
        The sorted labels; ``classes[1]`` is the target.
    n_tar, n_non : float
        Total target and non-target weight (counts if unweighted).
    """

    def __init__(self, *, n_columns: int, weight_exponent: int, owner: str):
        self.n_columns = n_columns
        self.weight_exponent = weight_exponent
        self.owner = owner

    def column(self, j: int):
        """Data source of ``(scores, is_target, weights)`` chunks of column
        ``j`` for the Newton solver, zero-weight rows dropped."""
        raise NotImplementedError

    def stacked(self):
        """Data source of ``(X, is_target, weights)`` chunks, all columns side
        by side (a model of all columns at once), zero-weight rows dropped."""
        raise NotImplementedError

    def blocks(self, j: int, pseudo_count: float = 0.0) -> BlockSummary:
        """PAV block summary of column ``j``
        (see :func:`~skcalib._kernel._pav.pav_blocks`)."""
        raise NotImplementedError

    def arrays(self, *, all_rows: bool = False):
        """``(X, is_target, sample_weight)`` as NumPy arrays.

        Parameters
        ----------
        all_rows : bool, default=False
            Keep the rows of zero weight (by default they are dropped).
        """
        raise TypeError(
            f"{self.owner} cannot be fitted on Dask collections; compute the "
            "data first."
        )


@fill_doc(_DOCS)
class ArrayTrainingData(TrainingData):
    """:class:`TrainingData` of in-memory arrays.

    Validates the labels and the weights of scores already validated as a
    float64 array of shape ``(n_samples, n_columns)``.

    Parameters
    ----------
    {array_scores}
    y : array-like of shape (n_samples,)
        Two distinct labels; the larger is the target.
    {array_weights}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._data._training import ArrayTrainingData
    >>> X = np.array([[0.1], [0.2], [0.3], [0.4]])
    >>> data = ArrayTrainingData(X, ["a", "b", "a", "b"], [1, 0, 2, 1], owner="cal")
    >>> data.classes.tolist(), data.n_tar, data.n_non
    (['a', 'b'], 1.0, 3.0)
    >>> data.arrays()[0].ravel().tolist()   # the zero-weight row is dropped
    [0.1, 0.3, 0.4]
    """

    def __init__(self, X, y, sample_weight, *, owner: str):
        _, self.classes, self._is_target = check_binary_y(y, owner=owner)
        self._sample_weight, exponent = check_weights(
            sample_weight, X.shape[0], return_exponent=True
        )
        self.n_tar, self.n_non = class_totals(self._is_target, self._sample_weight)
        if self.n_tar == 0 or self.n_non == 0:
            raise ValueError(
                "`sample_weight` leaves only one class with positive weight; "
                "both target and non-target scores are needed."
            )
        super().__init__(n_columns=X.shape[1], weight_exponent=exponent, owner=owner)
        self._X = X
        self._kept = None

    def with_scores(self, X):
        """The same rows, labels and weights with other score columns."""
        data = object.__new__(type(self))
        data.__dict__.update(self.__dict__)
        data._X, data._kept = X, None
        data.n_columns = X.shape[1]
        return data

    def arrays(self, *, all_rows: bool = False):
        if all_rows:
            return self._X, self._is_target, self._sample_weight
        if self._kept is None:
            self._kept = drop_zero_weights(
                self._sample_weight, self._X, self._is_target
            )
        return self._kept

    def column(self, j: int):
        X, is_target, sample_weight = self.arrays()
        return ArrayData(np.ascontiguousarray(X[:, j]), is_target, sample_weight)

    def stacked(self):
        return ArrayData(*self.arrays())

    def blocks(self, j: int, pseudo_count: float = 0.0) -> BlockSummary:
        X, is_target, sample_weight = self.arrays()
        return pav_blocks(X[:, j], is_target, sample_weight, pseudo_count=pseudo_count)


def check_trials_target(pos_label, classes):
    """A calibrator fitted on scored trials needs their target label to be
    the larger of the two (its ``classes_[1]``).

    Parameters
    ----------
    pos_label : object
        The trials' target label (resolved).
    classes : ndarray of shape (2,)
        The sorted labels.
    """
    if pos_label != classes[-1]:
        raise ValueError(
            f"The trials' target label {pos_label!r} is not the larger of "
            f"their labels {classes.tolist()}; a calibrator's target is "
            "classes_[1]."
        )


def check_class_totals(classes, totals):
    """Every class needs a positive total weight (as the in-memory fit checks).

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        The sorted labels.
    totals : ndarray of shape (n_classes,)
        Total weight of each class.
    """
    if not (totals > 0).all():
        empty = classes[np.flatnonzero(totals <= 0)[0]].item()
        raise ValueError(
            f"`sample_weight` gives class {empty!r} zero total weight; every "
            "class needs samples with positive weight."
        )


class ClassTrainingData:
    """Validated training data of ``K >= 2`` classes (the interface a fit uses).

    Parameters
    ----------
    n_columns : int
        Number of score columns.
    owner : str
        Name of the estimator, for error messages.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        The sorted labels; class index ``k`` is ``classes[k]``.
    totals : ndarray of shape (n_classes,)
        Total weight of each class (counts if unweighted), each positive.
    """

    def __init__(self, *, n_columns: int, owner: str):
        self.n_columns = n_columns
        self.owner = owner

    def source(self):
        """Data source of ``(X, class_index, weights)`` chunks for the Newton
        solver (``class_index`` of dtype intp), zero-weight rows dropped."""
        raise NotImplementedError

    def arrays(self):
        """``(X, class_index, sample_weight)`` as NumPy arrays, every row
        (zero weights kept; ``sample_weight`` None if unweighted)."""
        raise TypeError(
            f"{self.owner} cannot be fitted on Dask collections; compute the "
            "data first."
        )


@fill_doc(_DOCS)
class ArrayClassTrainingData(ClassTrainingData):
    """:class:`ClassTrainingData` of in-memory arrays.

    Parameters
    ----------
    {array_scores}
    y : array-like of shape (n_samples,)
        At least two distinct labels.
    {array_weights}

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._data._training import ArrayClassTrainingData
    >>> X = np.zeros((4, 3))
    >>> y, w = ["b", "c", "a", "b"], [1, 2, 3, 0]
    >>> data = ArrayClassTrainingData(X, y, w, owner="cal")
    >>> data.classes.tolist(), data.totals.tolist()
    (['a', 'b', 'c'], [3.0, 1.0, 2.0])
    >>> data.source().arrays[1].tolist()   # class indices, zero-weight row dropped
    [1, 2, 0]
    """

    def __init__(self, X, y, sample_weight, *, owner: str):
        _, self.classes, y_index = check_class_y(y, owner=owner)
        sample_weight = check_weights(sample_weight, X.shape[0])
        self.totals = np.bincount(
            y_index, weights=sample_weight, minlength=self.classes.shape[0]
        ).astype(np.float64, copy=False)
        check_class_totals(self.classes, self.totals)
        super().__init__(n_columns=X.shape[1], owner=owner)
        self._arrays = X, y_index, sample_weight

    def source(self):
        X, y_index, sample_weight = self._arrays
        return ArrayData(*drop_zero_weights(sample_weight, X, y_index))

    def arrays(self):
        return self._arrays
