"""Apply fitted calibrators lazily to Dask collections.

Knows no estimator: it calls the methods of the fitted estimator it is given
on every block. (Fitting on Dask collections goes through
:class:`~skcalib._dask._training.DaskTrainingData`.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["dask_apply"]


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
