"""Dask support: exact distributed PAV, metrics and parametric fits.

Dask and distributed are imported lazily, and only when a Dask collection
has been passed: importing skcalib and running the in-memory paths never
imports them. The package imports downward only and knows no estimator:

* :mod:`._detect` -- whether an object is a Dask collection (with
  :func:`blockwise`, what the estimators and the metrics import at module
  level; neither imports Dask);
* :mod:`._partitions` -- aligned partitions of scores, labels and weights,
  and the validating first pass over them;
* :mod:`._blocks` -- the distributed PAV block summary;
* :mod:`._source` -- the Newton solver's data source on persisted partitions;
* :mod:`._training` -- a calibrator's training data on Dask (validated in
  one pass; solver sources and PAV blocks on demand);
* :mod:`._metrics` -- per-partition reductions of the actual metrics;
* :mod:`._trials` -- scored trials on Dask: the Dask backend of
  ``ScoredTrials``, and the data handle a fit and the metrics share;
* :mod:`._fit` -- :func:`blockwise`, the decorator of the prediction
  methods: the lazy map of a fitted calibrator's method over Dask blocks.
"""

from ._detect import any_dask_collection, is_dask_collection
from ._fit import blockwise

__all__ = ["is_dask_collection", "any_dask_collection", "blockwise"]
