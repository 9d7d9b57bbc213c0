"""Fit calibrators on Dask collections and apply them lazily.

Knows no estimator: it calls the hooks of the estimator it is given.
A PAV-based calibrator exposes ``_fit_from_blocks(blocks, n_tar, n_non)``
and gets the distributed block summary of every column
(:mod:`skcalib._dask._blocks`); a calibrator fitted by the Newton solver
exposes ``_fit_sources(sources)`` and gets one :class:`~skcalib._dask._source.DaskData`
source per column (:mod:`skcalib._dask._source`), or ``_fit_source(source)``
(one model of all the columns) and gets one source of ``(X, is_target,
weights)`` partitions with the columns side by side.
"""

from __future__ import annotations

import numpy as np

from ._blocks import dask_block_summary
from ._detect import is_dask_collection
from ._partitions import ESTIMATOR_LABELS
from ._source import column_source, stack_sources

__all__ = ["dask_fit_calibrator", "dask_apply"]


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


def dask_fit_calibrator(estimator, X, y, sample_weight=None):
    """Fit a calibrator on Dask collections, distributed.

    Sets the same fitted attributes as ``BaseCalibrator.fit`` on in-memory
    data (``BaseCalibrator.fit`` routes Dask inputs here), through the same
    methods: ``_set_classes``, then ``_fit_from_blocks`` or ``_fit_sources``.

    * PAV-based calibrators: every column's PAV blocks come from
      :func:`dask_block_summary` (equal to the in-memory kernel's) and the
      estimator's ``_fit_from_blocks(blocks, n_tar, n_non)`` turns them into
      knots. Only the knots reach the client.
    * Calibrators fitted by the Newton solver (``skcalib._solver``): every
      column becomes a :class:`DaskData` source of cleaned partitions
      persisted on the workers, handed to the estimator's
      ``_fit_sources(sources)``; each pass of the solver evaluates the
      objective on the workers and sums on the client.

    Parameters
    ----------
    estimator : BaseCalibrator
        Parameters already validated (``fit`` validates them first).
    X : Dask array of shape (n_samples,) or (n_samples, k), Dask Series or DataFrame
        Scores; NaN and +/-inf are rejected, as in memory.
    y : Dask array or Dask Series of shape (n_samples,)
        Two distinct labels; ``classes_[1]`` (the larger) is the target.
    sample_weight : Dask array, Dask Series or None, default=None

    Returns
    -------
    estimator : the fitted estimator
    """
    columns, feature_names = _columns(X)
    pav = hasattr(estimator, "_fit_from_blocks")
    joint = hasattr(estimator, "_fit_source")
    if not pav and not joint and not hasattr(estimator, "_fit_sources"):
        raise TypeError(
            f"{type(estimator).__name__} cannot be fitted on Dask collections; "
            "compute the data first."
        )
    pseudo = float(getattr(estimator, "_pseudo_count", 0.0)) if pav else 0.0
    fits = []
    pos_label = ESTIMATOR_LABELS
    first = None
    for col in columns:
        if pav:
            fit, summary = dask_block_summary(
                y,
                col,
                sample_weight,
                pos_label=pos_label,
                score_name="X",
                y_name="y",
                require_both=True,
                allow_inf=False,
                pseudo_count=pseudo,
            )
        else:
            fit, summary = column_source(y, col, sample_weight, pos_label)
        if first is None:
            first = summary
            pos_label = summary.pos_label
        fits.append(fit)
    estimator.n_features_in_ = len(columns)
    if feature_names is not None:
        estimator.feature_names_in_ = np.asarray(feature_names, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    estimator._set_classes(first.classes, first.n_tar, first.n_non)
    if pav:
        estimator._fit_from_blocks(fits, first.n_tar, first.n_non)
    elif joint:  # one model of all the columns (fusion)
        estimator._fit_source(stack_sources(fits))
    else:
        estimator._fit_sources(fits)
    return estimator


def _apply_in_memory(estimator, method, block, columns=None):
    """``estimator.method`` on one in-memory block (empty blocks allowed).

    ``columns``: the feature names of a Dask DataFrame input, restored on the
    block so that a calibrator fitted with feature names sees them again.
    """
    block = np.asarray(block)
    if block.shape[0] == 0:
        shape = {"predict_proba": (0, 2)}.get(method)
        if shape is None:
            shape = (0,) if method != "transform" or block.ndim == 1 else block.shape
        dtype = estimator.classes_.dtype if method == "predict" else np.float64
        return np.empty(shape, dtype=dtype)
    if columns is not None and block.ndim == 2:
        import pandas as pd

        block = pd.DataFrame(block, columns=columns)
    return getattr(estimator, method)(block)


def dask_apply(estimator, method: str, X):
    """Lazy ``estimator.method(X)`` over the blocks of a Dask collection.

    A fitted calibrator holds only its knots, so ``transform`` (and
    ``decision_function``, ``predict_proba``, ``predict``) of a Dask array is
    a ``map_blocks`` of the in-memory method; nothing is computed here.

    Parameters
    ----------
    estimator : fitted calibrator
    method : {'transform', 'decision_function', 'predict_proba', 'predict'}
    X : Dask array of shape (n_samples,) or (n_samples, k), Dask Series or DataFrame

    Returns
    -------
    out : Dask array
        ``transform`` keeps the shape of ``X``; ``decision_function`` and
        ``predict`` give shape (n_samples,), ``predict_proba`` (n_samples, 2).
    """
    from functools import partial

    import dask.dataframe as dd

    columns = None
    if isinstance(X, dd.DataFrame):
        columns = list(X.columns)
    if isinstance(X, (dd.DataFrame, dd.Series)):
        X = X.to_dask_array()
    if X.ndim == 2:
        X = X.rechunk({1: -1})  # columns of one block together
    fn = partial(_apply_in_memory, estimator, method, columns=columns)
    dtype = estimator.classes_.dtype if method == "predict" else np.float64
    if method == "transform":
        return X.map_blocks(fn, dtype=dtype)
    if method == "predict_proba":
        if X.ndim == 1:
            return X.map_blocks(fn, dtype=dtype, new_axis=1, chunks=(X.chunks[0], (2,)))
        return X.map_blocks(fn, dtype=dtype, chunks=(X.chunks[0], (2,)))
    if X.ndim == 2:
        return X.map_blocks(fn, dtype=dtype, drop_axis=1)
    return X.map_blocks(fn, dtype=dtype)
