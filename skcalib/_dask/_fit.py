"""Apply fitted calibrators lazily to Dask collections.

Knows no estimator: :func:`blockwise` decorates a prediction method (a
function of ``(self, X)``) so that a Dask ``X`` gets the lazy map of that
same method over its blocks, and :func:`dask_apply` is that map. (Fitting
on Dask collections goes through
:class:`~skcalib._dask._training.DaskTrainingData`.)
"""

from __future__ import annotations

from functools import wraps

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._detect import is_dask_collection

__all__ = ["blockwise", "dask_apply"]


def blockwise(method=None, *, n_out=None):
    """Decorate a prediction method so that a Dask ``X`` is mapped over its blocks.

    The one Dask path of every ``transform``, ``decision_function``,
    ``predict_proba`` and ``predict``: for a Dask collection ``X`` the
    decorated ``method(self, X)`` checks that ``self`` is fitted and returns
    the lazy :func:`dask_apply` of the same method (which, on each in-memory
    block, runs the undecorated body); any other ``X`` goes to the body.

    Parameters
    ----------
    method : callable, default=None
        The method ``method(self, X)``; omitted when the decorator is called
        with ``n_out``.
    n_out : int, callable or None, default=None
        Number of output columns (see :func:`dask_apply`), or a function of
        the fitted object that gives it (e.g. its number of classes).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._dask._fit import blockwise
    >>> class Doubler:
    ...     classes_ = np.array([0, 1])
    ...     @blockwise
    ...     def transform(self, X):
    ...         return 2 * np.asarray(X, dtype=float)
    >>> Doubler().transform([1.0, 2.0]).tolist()   # in memory: the body
    [2.0, 4.0]
    """

    def decorate(method):
        name = method.__name__

        @wraps(method)
        def wrapper(self, X, *args, **kwargs):
            if is_dask_collection(X):
                check_is_fitted(self)
                k = n_out(self) if callable(n_out) else n_out
                return dask_apply(self, name, X, n_out=k)
            return method(self, X, *args, **kwargs)

        return wrapper

    return decorate if method is None else decorate(method)


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
