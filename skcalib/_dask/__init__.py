"""Dask support: exact distributed PAV, metrics and parametric fits.

Dask and distributed are imported lazily, and only when a Dask collection
has been passed: importing skcalib and running the in-memory paths never
imports them. The package imports downward only and knows no estimator:

* :mod:`._detect` -- whether an object is a Dask collection (the only part
  the estimators' base class and the metrics import at module level);
* :mod:`._partitions` -- aligned partitions of scores, labels and weights,
  and the validating first pass over them;
* :mod:`._blocks` -- the distributed PAV block summary;
* :mod:`._source` -- the Newton solver's data source on persisted partitions;
* :mod:`._training` -- a calibrator's training data on Dask (validated in
  one pass; solver sources and PAV blocks on demand);
* :mod:`._metrics` -- per-partition reductions of the actual metrics;
* :mod:`._fit` -- lazy ``transform`` of a fitted calibrator.
"""

from ._detect import any_dask_collection, is_dask_collection

__all__ = ["is_dask_collection", "any_dask_collection"]
