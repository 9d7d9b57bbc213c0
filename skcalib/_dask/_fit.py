"""Apply fitted calibrators lazily to Dask collections.

Knows no estimator: it calls the methods of the fitted estimator it is given
on every block. (Fitting on Dask collections goes through
:class:`~skcalib._dask._training.DaskTrainingData`.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["dask_apply"]


def _apply_in_memory(estimator, method, block, n_out, columns=None):
    """``estimator.method`` on one in-memory block (empty blocks allowed).

    ``n_out``: the number of output columns (None for a 1-D output).
    ``columns``: the feature names of a Dask DataFrame input, restored on the
    block so that a calibrator fitted with feature names sees them again.
    """
    block = np.asarray(block)
    if block.shape[0] == 0:
        shape = (0,) if n_out is None else (0, n_out)
        dtype = estimator.classes_.dtype if method == "predict" else np.float64
        return np.empty(shape, dtype=dtype)
    if columns is not None and block.ndim == 2:
        import pandas as pd

        block = pd.DataFrame(block, columns=columns)
    return getattr(estimator, method)(block)


def dask_apply(estimator, method: str, X, *, n_out=None):
    """Lazy ``estimator.method(X)`` over the blocks of a Dask collection.

    A fitted calibrator holds only its knots (or coefficients), so
    ``transform`` (and ``decision_function``, ``predict_proba``,
    ``predict``) of a Dask array is a ``map_blocks`` of the in-memory
    method; nothing is computed here.

    Parameters
    ----------
    estimator : fitted calibrator
    method : {'transform', 'decision_function', 'predict_proba', 'predict'}
    X : Dask array of shape (n_samples,) or (n_samples, k), Dask Series or DataFrame
    n_out : int, default=None
        Number of columns of the output of ``transform`` and
        ``predict_proba``; None for a binary calibrator (``transform`` keeps
        the shape of ``X``, ``predict_proba`` has 2 columns).

    Returns
    -------
    out : Dask array
        ``transform`` and ``predict_proba`` as described by ``n_out``;
        ``decision_function`` and ``predict`` give shape (n_samples,).
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
    if method == "predict_proba" and n_out is None:
        n_out = 2
    elif method == "transform" and n_out is None and X.ndim == 2:
        n_out = X.shape[1]
    elif method not in ("transform", "predict_proba"):
        n_out = None
    fn = partial(_apply_in_memory, estimator, method, n_out=n_out, columns=columns)
    dtype = estimator.classes_.dtype if method == "predict" else np.float64
    if n_out is None:
        if X.ndim == 2:
            return X.map_blocks(fn, dtype=dtype, drop_axis=1)
        return X.map_blocks(fn, dtype=dtype)
    chunks = (X.chunks[0], (n_out,))
    if X.ndim == 1:
        return X.map_blocks(fn, dtype=dtype, new_axis=1, chunks=chunks)
    return X.map_blocks(fn, dtype=dtype, chunks=chunks)
