"""Data objects in memory: the validated training data an estimator fits on
(:mod:`._training`) and the validated scored trials a
:class:`~skcalib.metrics.ScoredTrials` is evaluated on (:mod:`._trials`),
with the summaries (PAV blocks, solver data, class sums) computed once and
shared by every method that needs them. Their Dask counterparts live in
:mod:`skcalib._dask`."""
