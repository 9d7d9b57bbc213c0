"""Newton's method on objectives that are sums over chunks of data.

One solver serves every parametric calibrator (Platt, the affine, fusion,
Beta and multiclass calibrators, and any objective with a parameter vector
of any length), in memory and on Dask. It only solves: each objective lives
beside its estimator (:mod:`skcalib._affine`, :mod:`skcalib._fusion`,
:mod:`skcalib._multiclass_affine`), the rule's per-sample math in
:mod:`skcalib._kernel._special`. It joins two objects:

* an **objective**, with ``n_params`` and
  ``terms(theta, chunk, order)`` returning the sums over one (prepared)
  chunk of the value (``order=0``), the value and gradient (``order=1``),
  or the value, gradient and Hessian (``order=2``). Optional members:
  ``prepare(chunk)`` (run once per chunk, where the chunk lives: split,
  standardize, copy), ``penalty(theta, order)`` (terms added once, not per
  chunk; None when there are none), ``span(theta)`` (how far the fitted
  LLRs spread over the data: beyond :data:`MAX_LLR_RANGE` the objective is
  taken to have no finite minimizer), ``limit(data)`` (the parameters
  at that bound when the data show without solving that there is no finite
  minimizer, e.g. perfectly separated classes; else None) and
  ``hessian_growth`` (a bound on how fast the second derivative grows along
  a step, or None; with it ``terms`` takes ``value=False``, see
  :func:`_newton`);
* a **data source**, with ``n_samples``, ``reduce(fn, combine=operator.add)``
  (``fn`` of every chunk, combined: summed by default), ``map(fn)`` (a
  source of ``fn`` of every chunk, kept where the chunks are) and
  ``subsample(n, random_state=None)`` (an in-memory :class:`ArrayData` of
  about ``n`` samples). :class:`ArrayData` holds in-memory arrays; the Dask
  data source holds partitions persisted on the workers.

Why it is fast at large n
-------------------------
Every pass over the data costs the same, so the solver minimizes passes:

* warm start: on more than ``WARM_START_SIZE`` samples the problem is
  first solved on systematic subsamples of about ``WARM_START_SIZE // 16``
  and ``WARM_START_SIZE // 4`` samples, and on more than
  ``4 * WARM_START_SIZE`` then on one of about ``WARM_START_SIZE``; each
  optimum is within sampling error (~1e-2) of the next, where Newton
  converges quadratically, so the full data typically take 3 passes (the
  last Newton step, below ``tol``, is applied without another pass, and
  the last pass computes no Hessian);
* fused passes: each pass returns the value, the gradient and the Hessian
  (without the value when the objective certifies the step's decrease in
  advance, ``hessian_growth``: the logistic fusion).

The answer is the exact optimum of the full-data objective (to ``tol``); the
subsample only chooses the starting point.

Units
-----
Objectives work on standardized inputs (:class:`Standardizer`): each input
column is scaled by a power of two (exact) into ``[-1, 1]``, then centred
and divided by its standard deviation, and the parameters are mapped back
to the units of the input at the end. The fitted map is therefore the same
for scores in any units, from 1e-300 to 1e300. An L2 penalty is either on
the slopes in the units of the input (inputs with units of their own,
log-probabilities) or, to keep that invariance, on the slopes per
standard deviation of the input (:func:`skcalib._kernel._linear_rule.penalty_variance`).
"""

from __future__ import annotations

import math
import operator
import warnings
from dataclasses import dataclass
from functools import partial
from functools import reduce as _fold

import numpy as np
from scipy.linalg.lapack import dpocon, dpotrf, dpotrs
from sklearn.exceptions import ConvergenceWarning

__all__ = [
    "DEFAULT_L2",
    "MAX_LLR_RANGE",
    "WARM_START_SIZE",
    "ArrayData",
    "Standardizer",
    "SolverResult",
    "minimize",
    "fit_standardizer",
    "row_blocks",
    "warn_convergence",
]

#: The default ``l2`` of the calibrators on the shared solver
#: (:class:`~skcalib.MulticlassAffineCalibrator`,
#: :class:`~skcalib.BetaCalibrator`, :class:`~skcalib.ProperScoringAffineCalibrator`,
#: :class:`~skcalib.ProperScoringFusion`): ``lambda`` on the squared slopes,
#: added to the prior-weighted mean loss (the class weights sum to 1, so
#: ``lambda`` does not grow with the number of samples). The slopes are in
#: nats for inputs that are log-probabilities (Beta) and per standard
#: deviation of the scores for scores in any units (multiclass; affine and
#: fusion, whose penalty is also relative to the normalized objective:
#: :func:`skcalib._kernel._linear_rule.penalty_variance`). Small enough to cost nothing
#: on data that pin the fit down, large enough that no fit on a finite
#: sample returns posteriors of 0 or 1 (separable calibration sets), chosen
#: on a panel of scikit-learn data sets (user guide: *Regularized
#: defaults*). ``l2=0`` gives the exact unpenalized fit.
DEFAULT_L2 = 1e-5

#: Bound on the spread of the fitted LLRs over the training data, in nats
#: (``span(theta)`` of the objective). Beyond it the calibrated map is a step
#: function for every practical purpose: the objective has no finite
#: minimizer (separable classes, or a bounded rule on nearly separable data)
#: and the solver stops there.
MAX_LLR_RANGE = 1e4

#: Number of samples of the warm-start subsample.
WARM_START_SIZE = 1 << 16


# --------------------------------------------------------------------------
# Data sources


class _Chunks:
    """In-memory data source over a list of chunks (the result of ``map``)."""

    def __init__(self, chunks, n_samples):
        self.chunks = list(chunks)
        self.n_samples = int(n_samples)

    def reduce(self, fn, combine=operator.add):
        """``fn`` of every chunk, combined pairwise with ``combine``."""
        return _fold(combine, [fn(c) for c in self.chunks])

    def map(self, fn):
        """A data source of ``fn`` of every chunk."""
        return _Chunks([fn(c) for c in self.chunks], self.n_samples)


class ArrayData(_Chunks):
    """In-memory data source: aligned arrays of ``n_samples`` rows, one chunk.

    Parameters
    ----------
    *arrays : ndarray or None
        Arrays with the same first dimension (``None`` entries, e.g. absent
        sample weights, are passed through). A chunk is the tuple of them.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._solver import ArrayData
    >>> data = ArrayData(np.arange(10.0), None)
    >>> float(data.reduce(lambda chunk: chunk[0].sum()))
    45.0
    >>> data.subsample(3).arrays[0].tolist()
    [1.0, 4.0, 7.0]
    """

    def __init__(self, *arrays):
        self.arrays = arrays
        super().__init__([arrays], arrays[0].shape[0])

    def subsample(self, n, random_state=None):
        """About ``n`` rows: every ``n_samples // n``-th (or random ones).

        With ``random_state=None`` the subsample is systematic,
        ``rows[step // 2 :: step]``, deterministic and without a copy.
        """
        step = max(1, self.n_samples // int(n))
        if step == 1:
            return self
        if random_state is None:
            rows = slice(step // 2, None, step)
        else:
            rng = np.random.default_rng(random_state)
            rows = np.sort(rng.choice(self.n_samples, self.n_samples // step, False))
        return ArrayData(*(None if a is None else a[rows] for a in self.arrays))


# --------------------------------------------------------------------------
# Units


class Standardizer:
    """Per-column standardization ``u = (2**-e x - center) / scale``.

    ``e`` is the binary exponent of the largest ``|x|`` (an exact scaling
    into ``[-1, 1]``, so no moment over- or underflows for any finite
    input), ``center`` and ``scale`` the mean and standard deviation of the
    scaled sample. A constant column gets ``u = 0`` (``constant`` is True).

    Parameters
    ----------
    exponent, center, scale : ndarray of shape (n_columns,)
    constant : ndarray of shape (n_columns,), dtype=bool
    width : ndarray of shape (n_columns,), default=None
        Range of each column over all the data in standardized units (1 for
        a constant column); defaults to 1.
    reach : ndarray of shape (n_columns,), default=None
        Largest ``|u|`` of each column over all the data (0 for a constant
        column); defaults to ``width``, a bound on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._solver import Standardizer
    >>> x = np.array([1e300, 2e300, 3e300])
    >>> std = Standardizer.fit(x, x.min(), x.max())
    >>> std.transform(x).round(6).tolist()
    [-1.224745, 0.0, 1.224745]
    >>> coef, intercept = std.to_raw(np.array([1.0]), 0.0)  # l = u
    >>> round(float(coef[0] * 3e300 + intercept), 6)
    1.224745
    """

    def __init__(self, exponent, center, scale, constant, width=None, reach=None):
        self.exponent = np.asarray(exponent, dtype=np.int64)
        self.center = np.asarray(center, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.constant = np.asarray(constant, dtype=bool)
        self.width = np.ones_like(self.scale) if width is None else width
        self.reach = self.width if reach is None else reach

    @classmethod
    def fit(cls, sample, lo, hi):
        """From a sample of rows and the exact column extremes of all rows.

        Parameters
        ----------
        sample : ndarray of shape (m,) or (m, n_columns)
            Rows for the mean and standard deviation (e.g. a subsample).
        lo, hi : float or ndarray of shape (n_columns,)
            Smallest and largest value of each column over all the data.
        """
        lo = np.atleast_1d(np.asarray(lo, dtype=np.float64))
        hi = np.atleast_1d(np.asarray(hi, dtype=np.float64))
        sample = np.asarray(sample, dtype=np.float64).reshape(sample.shape[0], -1)
        exponent = np.frexp(np.maximum(np.abs(lo), np.abs(hi)))[1]
        lo_s, hi_s = np.ldexp(lo, -exponent), np.ldexp(hi, -exponent)
        # The mean and standard deviation of each scaled column, the
        # operations of xs.mean(axis=0) and xs.std(axis=0) without computing
        # the mean twice, one column at a time in one vector: a scaled copy
        # of the whole sample costs its page faults again on every fit
        # (several times the arithmetic; the sample is all the data below
        # 2 * WARM_START_SIZE rows).
        m, k = sample.shape
        center, scale = np.empty(k), np.empty(k)
        xs = np.empty(m)
        for j in range(k):
            _ldexp(sample[:, j], -exponent[j], out=xs)
            center[j] = xs.sum() / m
            xs -= center[j]
            xs *= xs
            scale[j] = xs.sum() / m
        np.sqrt(scale, out=scale)
        constant = ~(hi_s > lo_s)
        if constant.any() or not (scale > 0).all():
            # a subsample may miss the spread of the data: half the range then
            scale = np.where(scale > 0, scale, 0.5 * (hi_s - lo_s))
            scale = np.where(constant, 1.0, scale)
            center = np.where(constant, lo_s, center)
        width = (hi_s - lo_s) / scale
        width[constant] = 1.0
        reach = np.maximum(hi_s - center, center - lo_s) / scale
        reach[constant] = 0.0
        return cls(exponent, center, scale, constant, width, reach)

    def transform(self, x, *, copy=True, column=0, out=None):
        """``u`` of ``x`` (shape (m,) for one column, else (m, n_columns)).

        With ``copy=False`` a float64 ``x`` is overwritten; with ``out`` (a
        float64 array of the shape of ``x``) ``u`` is written there and ``x``
        is not changed. A vector ``x`` is taken as column ``column``.
        """
        if out is None:
            # np.asarray copies only if needed (numpy 1.x has no copy=None)
            x = np.array(x, dtype=np.float64) if copy else np.asarray(x, np.float64)
            out = x
        e, c, d = self.exponent, self.center, self.scale
        if x.ndim == 1:
            j = column
            e, c, d = int(e[j]), float(c[j]), float(d[j])
        u = _ldexp(x, -e, out=out)
        u -= c
        u /= d
        return u

    def to_raw(self, coef, intercept):
        """Map a linear predictor ``coef @ u + intercept`` back to ``x``.

        ``coef`` has the columns on its last axis (shape ``(n_columns,)`` or
        ``(n_outputs, n_columns)``). Returns ``(coef_x, intercept_x)`` with
        ``coef_x @ x + intercept_x`` equal to the predictor.
        """
        coef = np.asarray(coef, dtype=np.float64)
        scaled = coef / self.scale
        return np.ldexp(scaled, -self.exponent), intercept - scaled @ self.center

    def from_raw(self, coef, intercept):
        """Inverse of :meth:`to_raw`."""
        scaled = np.ldexp(np.asarray(coef, dtype=np.float64), self.exponent)
        return scaled * self.scale, intercept + scaled @ self.center


def _ldexp(x, e, out=None):
    """``np.ldexp(x, e)`` (``e`` an int or one per column of ``x``).

    Where every ``2**e`` is a float (``|e| <= 1000``), ``x`` times it: the
    same (exactly rounded) result, several times faster.
    """
    if isinstance(e, (int, np.integer)):
        small = -1000 <= e <= 1000  # np.all of one value: 4 us per call
    else:
        small = np.all(np.abs(e) <= 1000)
    if small:
        return np.multiply(x, np.ldexp(1.0, e), out=out)
    return np.ldexp(x, e, out=out)


def row_blocks(x):
    """Slices of the rows of a 2-D ``x`` to read it column by column.

    All the rows if ``x`` is column-major, else blocks of ``1 << 15`` rows
    (a megabyte at four columns): a block stays in cache while its columns
    are read, where a whole strided column of a row-major ``x`` would read
    all of ``x``, and numpy's reductions along its rows run one inner loop
    of ``k`` values per row (15x slower).
    """
    n = x.shape[0]
    step = max(n, 1) if x.flags.f_contiguous else 1 << 15
    return [slice(start, start + step) for start in range(0, n, step)]


def _chunk_extremes(chunk):
    """``(-min, max)`` of every column of the chunk's inputs."""
    x = np.asarray(chunk[0], dtype=np.float64).reshape(chunk[0].shape[0], -1)
    n, k = x.shape
    if n == 0:
        return np.full((2, k), -np.inf)
    if k > 1 and x.flags.c_contiguous and n >= _WIDE_ROWS:
        # rows side by side, _WIDE_ROWS to a row: the reductions along the
        # rows then run long inner loops (4x faster than the columns of
        # row_blocks on 1e5 rows of four columns)
        m = n - n % _WIDE_ROWS
        wide = x[:m].reshape(-1, _WIDE_ROWS * k)
        parts = [
            [-wide.min(axis=0).reshape(-1, k).min(axis=0)],
            [wide.max(axis=0).reshape(-1, k).max(axis=0)],
        ]
        if m < n:
            parts[0].append(-x[m:].min(axis=0))
            parts[1].append(x[m:].max(axis=0))
        return np.max(parts, axis=1)
    parts = [
        [[-c.min() for c in x[rows].T], [c.max() for c in x[rows].T]]
        for rows in row_blocks(x)
    ]
    return np.max(parts, axis=0)


#: Rows per row of the reshaped row-major inputs in _chunk_extremes.
_WIDE_ROWS = 256


def fit_standardizer(data, lo=None, hi=None):
    """:class:`Standardizer` of the first array of every chunk (the inputs).

    ``lo``, ``hi``: the column extremes if already known (else one pass);
    the mean and standard deviation come from the small warm-start
    subsample (:func:`_warm_start_samples`; all the data below
    ``WARM_START_SIZE`` samples): they only set the units (on all of 1e5
    rows of four columns they took 0.8 ms of a 17 ms fusion fit).
    """
    if lo is None or hi is None:
        neg_lo, hi = data.reduce(_chunk_extremes, np.maximum)
        lo = -neg_lo
    samples = _warm_start_samples(data)
    # the stage of WARM_START_SIZE // 4 samples
    sample = samples[1] if samples else data.subsample(WARM_START_SIZE)
    return Standardizer.fit(sample.arrays[0], lo, hi)


# --------------------------------------------------------------------------
# The solver


@dataclass(slots=True, eq=False)
class SolverResult:
    """Parameters found and how: ``theta``, ``n_iter`` (Newton iterations on
    the full data), ``n_evals`` / ``n_sub_evals`` (passes over the full data
    and over the warm-start subsamples) and ``status``: ``"converged"``,
    ``"max_iter"``, ``"unbounded"`` (no finite minimizer) or ``"stalled"``
    (the line search could not decrease the objective)."""

    theta: np.ndarray
    n_iter: int
    n_evals: int
    status: str
    n_sub_evals: int = 0


def _pack(out, order):
    """``f``, ``(f, g)`` or ``(f, g, H)`` as one flat (summable) array."""
    if order == 0:
        return np.array([out], dtype=np.float64)
    return np.concatenate([np.ravel(v) for v in ((out[0],), *out[1:])])


def _packed_terms(objective, theta, order, chunk, **kwargs):
    """``objective.terms`` of one chunk, packed."""
    return _pack(objective.terms(theta, chunk, order, **kwargs), order)


class _Passes:
    """The objective summed over a prepared data source, one pass per call.

    A source of one chunk (a problem in memory) gets the objective's terms
    unpacked: on a hundred samples packing and unpacking cost as much as the
    terms themselves.
    """

    def __init__(self, objective, data):
        self.objective = objective
        self.data = data
        self.k = int(objective.n_params)
        self.n_evals = 0
        self.penalty = getattr(objective, "penalty", None)
        chunks = getattr(data, "chunks", None)
        self.chunk = chunks[0] if chunks is not None and len(chunks) == 1 else None

    def __call__(self, theta, order=2, value=True):
        """``f``, ``(f, g)`` or ``(f, g, H)``; with ``value=False`` (for
        objectives whose ``terms`` take it) ``f`` is None, not computed."""
        self.n_evals += 1
        extra = None if self.penalty is None else self.penalty(theta, order)
        kwargs = {} if value else {"value": False}
        if self.chunk is not None:
            out = self.objective.terms(theta, self.chunk, order, **kwargs)
            if extra is not None:
                if order == 0:
                    return float(out + extra)
                pairs = zip(out[1:], extra[1:], strict=True)
                out = (float(out[0] + extra[0]), *(a + b for a, b in pairs))
            return out if value else (None, *out[1:])
        k = self.k
        total = self.data.reduce(
            partial(_packed_terms, self.objective, theta, order, **kwargs)
        )
        if extra is not None:
            total = total + _pack(extra, order)
        f = float(total[0]) if value else None
        if order == 0:
            return f
        g = total[1 : 1 + k]
        if order == 1:
            return f, g
        return f, g, total[1 + k :].reshape(k, k)


def _eigh2(a, b, c):
    """Eigen-decomposition of the symmetric ``[[a, b], [b, c]]``, in floats.

    LAPACK's ``dlaev2``: ``(rt1, rt2, cs, sn)`` with ``|rt1| >= |rt2|``,
    ``(cs, sn)`` the unit eigenvector of ``rt1`` and ``(-sn, cs)`` that of
    ``rt2``. ``rt1`` is accurate to a few ulps, ``rt2`` to a few ulps of
    ``rt1`` (as with ``np.linalg.eigh``), at a tenth of its cost on 2 x 2.
    """
    sm, df, tb = a + c, a - c, b + b
    adf, ab = abs(df), abs(tb)
    acmx, acmn = (a, c) if abs(a) > abs(c) else (c, a)
    if adf > ab:
        rt = adf * math.sqrt(1.0 + (ab / adf) ** 2)
    elif adf < ab:
        rt = ab * math.sqrt(1.0 + (adf / ab) ** 2)
    else:
        rt = ab * math.sqrt(2.0)
    if sm < 0.0:
        rt1, sgn1 = 0.5 * (sm - rt), -1
        rt2 = (acmx / rt1) * acmn - (b / rt1) * b
    elif sm > 0.0:
        rt1, sgn1 = 0.5 * (sm + rt), 1
        rt2 = (acmx / rt1) * acmn - (b / rt1) * b
    else:
        rt1, rt2, sgn1 = 0.5 * rt, -0.5 * rt, 1
    cs, sgn2 = (df + rt, 1) if df >= 0.0 else (df - rt, -1)
    if abs(cs) > ab:
        ct = -tb / cs
        sn1 = 1.0 / math.sqrt(1.0 + ct * ct)
        cs1 = ct * sn1
    elif ab == 0.0:
        cs1, sn1 = 1.0, 0.0
    else:
        tn = -cs / tb
        cs1 = 1.0 / math.sqrt(1.0 + tn * tn)
        sn1 = tn * cs1
    if sgn1 == sgn2:
        cs1, sn1 = -sn1, cs1
    return rt1, rt2, cs1, sn1


#: Below this estimated reciprocal condition number (1-norm, which bounds
#: the ratio of the extreme eigenvalues from below) a positive definite
#: Hessian's step is solved by its eigen-decomposition, which drops the
#: directions of eigenvalues below ``1e-12`` of the largest.
CHOLESKY_RCOND = 1e-10


def _direction(hess, g):
    """Saddle-free Newton step ``-|H|^+ g`` and whether ``H`` is convex.

    ``|H|`` has the absolute eigenvalues of ``H``; eigenvalues below
    ``1e-12`` times the largest are dropped (flat directions get no step).
    None if ``H`` is 0 (or not finite). Two parameters (the one-column
    calibrators) are solved in closed form in floats: on a hundred samples
    ``np.linalg.eigh`` and the array arithmetic around it cost as much as a
    pass over the data. More parameters: a Cholesky solve where ``H`` is
    positive definite and its estimated reciprocal condition number (1-norm,
    LAPACK ``dpocon``) is above :data:`CHOLESKY_RCOND`, where no eigenvalue
    is dropped and the step is the same; the eigen-decomposition otherwise
    (it cost a quarter of a fit of 99 parameters).
    """
    if g.shape[0] == 2:
        (a, b), (_, c) = hess.tolist()
        g0, g1 = g.tolist()
        rt1, rt2, cs, sn = _eigh2(a, b, c)
        lam_max = abs(rt1)
        if not lam_max > 0:
            return None
        c1 = (cs * g0 + sn * g1) / lam_max
        c2 = 0.0
        if abs(rt2) > 1e-12 * lam_max:
            c2 = (cs * g1 - sn * g0) / abs(rt2)
        step = np.array([sn * c2 - cs * c1, -sn * c1 - cs * c2])
        return step, min(rt1, rt2) > -1e-12 * lam_max
    factor, info = dpotrf(hess, lower=0, clean=0)
    if info == 0:
        rcond, info = dpocon(factor, float(np.abs(hess).sum(axis=0).max()))
        if info == 0 and rcond > CHOLESKY_RCOND:
            step, info = dpotrs(factor, g)
            if info == 0:
                return -step, True
    lam, vec = np.linalg.eigh(hess)
    lam_max = _max_abs(lam)
    if not lam_max > 0:
        return None
    # in floats, as above (a third of the time at five parameters)
    floor = 1e-12 * lam_max
    values = lam.tolist()
    coef = [
        c / abs(v) if abs(v) > floor else 0.0
        for c, v in zip((vec.T @ g).tolist(), values, strict=True)
    ]
    return -vec @ np.array(coef), min(values) > -floor


def _newton(fun, theta, *, span, tol, max_iter, cold=True, margin=1e-3):
    """Minimize ``fun`` by damped (saddle-free) Newton from ``theta``.

    The parameters are in standardized units, where ``tol`` is measured.
    Indefinite Hessians (non-convex rules) use the absolute values of the
    eigenvalues, which keeps the direction a descent direction; an Armijo
    backtracking line search guarantees decrease; flat directions (a
    constant input) get no step.

    Converged when the step, or the step after it, is at most ``tol``: from
    two full steps in a row, ``s_k = rate * s_{k-1}^2`` (quadratic, or
    ``rate * s_{k-1}`` with ``rate = s_k / s_{k-1}^2``, linear) predicts the
    next one, ``rate * s_k^2``; a step whose successor is predicted below
    ``margin * tol`` (``margin``: 1e-3 for the estimated rate) is applied
    without another pass over the data. On large data, started near the
    optimum, this saves one of three or four passes. A pass whose step is
    predicted below ``tol`` (so that it is expected to be the last)
    computes no Hessian: that step is solved with the previous one, which
    differs by ``2 rate s_{k-1}`` relative (the third derivative that makes
    the rate), so the step is off by that fraction of itself, which adds
    ``2 s_k^2 / s_{k-1}`` to the predicted successor (far below ``tol``:
    about 1e-12 at ``tol = 1e-8``). A step above ``tol`` whose successor
    is not predicted below ``margin * tol`` gets its Hessian from another
    pass.

    An objective with ``hessian_growth(step)`` (``R``: the second derivative
    along the step grows at most as ``exp(R t)``) gets the step's Armijo
    test decided before the pass (:func:`_certified`); a certified step's
    pass skips the value (``terms(..., value=False)``), and a value needed
    later costs a pass of ``order=0``. ``cold``: whether ``theta`` is far
    from the optimum (a first step rarely certified: the first pass then
    computes the value).
    """
    theta = np.array(theta, dtype=np.float64)
    evals0 = fun.n_evals
    last = None  # size of the previous step if it was a full Newton step

    def result(status, it):
        return SolverResult(theta, it, fun.n_evals - evals0, status)

    # With the objective's hessian_growth, a step whose decrease is
    # certified in advance (_certified) needs no values: the pass after it
    # skips them (f is None). A cold start's first step rarely is.
    growth = getattr(fun.objective, "hessian_growth", None)
    value = growth is None or cold
    f, g, hess = fun(theta, 2, value)
    if not (np.isfinite(f) if value else np.isfinite(g).all()):
        return result("stalled", 0)
    stale = False  # hess is that of the previous theta
    for it in range(1, max_iter + 1):
        while True:
            direction = _direction(hess, g)
            if direction is None:
                return result("converged", it)
            step, convex = direction
            cap = max(10.0, _max_abs(theta))
            size = _max_abs(step)
            if size > cap:
                step *= cap / size
                size = cap
            done = size <= tol
            if not done and last is not None:
                # the successor of this step, rate * size**2 (times last**2),
                # plus the error of a Hessian of the previous theta
                ahead = size**3 + (2.0 * size**2 * last if stale else 0.0)
                done = ahead <= margin * tol * last**2
            if convex and done:
                # the error left, the next step, is ~size**2 or predicted far
                # below tol: apply without a pass
                theta = theta + step
                return result("converged", it)
            if not stale:
                break
            # predicted to be the last step, it is not: the Hessian here
            _, g, hess = fun(theta, 2, growth is None)
            stale = False
        slope = float(g @ step)
        if not slope < 0:
            return result("stalled", it)
        t = 1.0
        new = theta + step
        value = not (
            growth is not None
            and convex
            and _certified(slope, float(step @ hess @ step), growth(step))
        )
        if value and f is None:
            f = fun(theta, 0)
        # the step after this one predicted below tol: no Hessian
        stale = convex and last is not None and size**3 <= tol * last**2
        fn, gn, *hn = fun(new, 1 if stale else 2, value)
        hn = hess if stale else hn[0]
        if value:
            slack = 8.0 * _EPS * abs(f)
            while not (fn <= f + 1e-4 * t * slope + slack):
                t *= 0.5
                if t < 1e-12:
                    return result("stalled", it)
                new = theta + t * step
                fn = fun(new, 0)
                gn = None
            if gn is None:
                fn, gn, hn = fun(new)
                stale = False
        theta, f, g, hess = new, fn, gn, hn
        last = size if convex and t == 1.0 else None
        if span is not None and span(theta) > MAX_LLR_RANGE:
            return result("unbounded", it)
    return result("max_iter", max_iter)


_EPS = float(np.finfo(np.float64).eps)


def _certified(slope, curvature, growth):
    """Whether a full step surely passes Armijo's test ``f(new) <= f +
    1e-4 slope``, from the slope ``g @ s``, the curvature ``s @ H @ s`` and
    ``R``: the second derivative along the step grows at most as
    ``exp(R t)``.

    Taylor's theorem then bounds ``f(new) - f`` by ``slope + curvature *
    (e^R - 1 - R) / R^2`` (the integral of ``(1 - t) e^(R t)``), which is
    about ``slope / 2`` for a Newton step (``curvature = -slope``) with a
    small ``R``.
    """
    if not growth < 50.0:
        return False
    if growth < 1e-4:
        kappa = 0.5 + growth / 6.0
    else:
        kappa = (math.expm1(growth) - growth) / growth**2
    return slope + curvature * kappa <= 1e-4 * slope


def _max_abs(x):
    """``np.abs(x).max()`` (NaN if any is) of a short array, as a float."""
    values = x.tolist()
    return math.nan if any(map(math.isnan, values)) else max(map(abs, values))


def _identity(chunk):
    return chunk


#: Tolerance of the warm-start stages: far below the sampling error (~1e-2)
#: that separates each stage's optimum from the next, and its successor
#: predicted below it suffices (no margin).
_WARM_START_TOL = 1e-4


def _warm_start_samples(data):
    """The in-memory subsamples the solver warms up on, smallest first.

    From ``WARM_START_SIZE`` samples on, about ``WARM_START_SIZE // 16`` and
    ``WARM_START_SIZE // 4``, and from ``4 * WARM_START_SIZE`` on also
    ``WARM_START_SIZE``: each stage starts the next within its sampling
    error, where Newton needs two or three passes, instead of the five to
    seven from zero (with their line searches: on the smallest they cost a
    quarter of two passes on the next). Each is a subsample of the next (on
    Dask, no second computation).
    """
    n = data.n_samples
    samples = []
    if n < WARM_START_SIZE:
        return samples
    data = data.subsample(WARM_START_SIZE)
    for size in (WARM_START_SIZE, WARM_START_SIZE // 4, WARM_START_SIZE // 16):
        if n >= 4 * size:
            data = data.subsample(size)
            samples.insert(0, data)
    return samples


_controller = None


def _one_blas_thread():
    """A context in which BLAS and LAPACK run on one thread.

    The solver's products are small (a Hessian of a hundred parameters, an
    ``eigh`` of it, a Gram matrix of a few thousand rows of a chunk): split
    over threads they gain little and, on a machine whose cores are busy,
    lose up to ten times (OpenBLAS's threads wait for each other, spinning:
    ``eigh`` of 99 x 99 took 210 ms instead of 2 ms on two cores under a
    load of 10). The controller is scikit-learn's (threadpoolctl), found
    once; entering the limit costs tens of microseconds.
    """
    global _controller
    if _controller is None:
        from ..utils._sklearn_compat import threadpool_controller

        _controller = threadpool_controller()
    return _controller.limit(limits=1, user_api="blas")


def minimize(objective, data, theta0, *, tol=1e-8, max_iter=100, presolve=()):
    """Minimize an objective summed over a data source by Newton's method.

    Parameters
    ----------
    objective : object
        ``n_params``, ``terms(theta, chunk, order)`` and optionally
        ``prepare``, ``penalty``, ``span`` and ``limit`` (module docstring).
    data : data source
        :class:`ArrayData` or the Dask data source.
    theta0 : array-like of shape (n_params,)
        Starting point.
    tol : float, default=1e-8
        Convergence tolerance on the Newton step (largest component, in the
        objective's units).
    max_iter : int, default=100
        Maximum number of Newton iterations per objective.
    presolve : sequence of objectives, default=()
        Objectives minimized first, in turn, each started from the previous
        optimum (e.g. a convex rule before a non-convex one). They are
        evaluated on the chunks prepared by ``objective.prepare``.

    Returns
    -------
    SolverResult
        The last objective's result, with the iterations and passes of the
        whole sequence. With more than ``WARM_START_SIZE`` samples the
        sequence is first solved on two or three subsamples
        (:func:`_warm_start_samples`, the smallest for the first objective
        only; ``n_sub_evals`` passes over them)
        and, if that converged, only ``objective`` on the full data.

    Examples
    --------
    Least squares ``sum (theta_0 + theta_1 x - y)^2`` as chunk sums:

    >>> import numpy as np
    >>> from skcalib._kernel._solver import ArrayData, minimize
    >>> class LeastSquares:
    ...     n_params = 2
    ...     def terms(self, theta, chunk, order):
    ...         x, y = chunk
    ...         J = np.column_stack([np.ones_like(x), x])
    ...         r = J @ theta - y
    ...         out = (float(r @ r), 2 * J.T @ r, 2 * J.T @ J)
    ...         return out[0] if order == 0 else out[: order + 1]
    >>> x = np.array([0.0, 1.0, 2.0, 3.0])
    >>> res = minimize(LeastSquares(), ArrayData(x, 1.0 + 2.0 * x), [0.0, 0.0])
    >>> res.status, res.theta.round(12).tolist()
    ('converged', [1.0, 2.0])
    """
    if objective.n_params < _ONE_THREAD_PARAMS:
        return _minimize(objective, data, theta0, tol, max_iter, presolve)
    with _one_blas_thread():
        return _minimize(objective, data, theta0, tol, max_iter, presolve)


#: From this many parameters on, :func:`minimize` runs BLAS on one thread
#: (:func:`_one_blas_thread`); below, OpenBLAS does not split its products
#: anyway and the limit would only cost its switching.
_ONE_THREAD_PARAMS = 32


#: From this many parameters on, :func:`minimize` solves by limited-memory
#: BFGS (:func:`_quasi_newton`) instead of Newton's method. A Newton step
#: needs the ``k x k`` Hessian, ``O(n k^2)`` time per pass and ``O(k^2)``
#: memory, where a pass of value and gradient costs ``O(n k)``: matrix
#: scaling of ``K`` classes has ``k = K^2 - 1`` free parameters (a Hessian
#: of 10^8 entries with 100 classes, of 10^12 with 1,000). Newton was the
#: faster at 40 classes (5,000 samples: ``'sms'`` 2.6 s against 5.5 s) and
#: 46 (3,000 samples: ``'matrix'`` 6.9 s against 10.4 s), L-BFGS at 50
#: (5,000 samples: ``'sms'`` 5.2 s against 7.2 s, ``'matrix'`` 13.1 s
#: against 14.0 s) and 60 (``'sms'`` 3.6 s against 15 s, ``'matrix'`` 15.5 s
#: against 26 s): the switch is at 49 classes. The largest default candidate
#: of :class:`~skcalib.AutoCalibrator` (SMS on 32 classes, 1,023
#: parameters) keeps its Newton fit.
QUASI_NEWTON_MIN_PARAMS = 2400

#: Iterations of :func:`_quasi_newton` per Newton iteration of ``max_iter``:
#: a quasi-Newton iteration is a pass of value and gradient, and it needs
#: tens to hundreds of them where Newton needs a few.
QUASI_NEWTON_ITER_FACTOR = 100

#: The gradient pairs L-BFGS keeps (its ``maxcor``; memory ``2 m k``
#: doubles): on matrix scaling of 46 classes 50 pairs ended within
#: 1.3e-6 of Newton's coefficients, 20 within 7e-6, in the same time.
QUASI_NEWTON_MEMORY = 50


def _quasi_newton(fun, theta, *, span, tol, max_iter, cold=True, margin=None):
    """Minimize ``fun`` by limited-memory BFGS (scipy's L-BFGS-B) from ``theta``.

    For objectives with too many parameters for a Hessian
    (:data:`QUASI_NEWTON_MIN_PARAMS`): each pass computes the value and
    gradient only. Converged when the largest gradient component is at most
    ``tol**1.25`` (1e-10 at ``tol = 1e-8``), or where the objective cannot
    be decreased further in floating point (its line search fails, or a
    step leaves it unchanged) while the quasi-Newton step, the method's
    estimate of the Newton step, is at most ``sqrt(tol)``: the value is then
    at its minimum to rounding, the parameters less accurate than Newton's
    along the flattest directions, which change the value least (matrix
    scaling of 46 classes: gradient 1e-9, coefficients within 1.3e-6 of
    Newton's). Up to ``QUASI_NEWTON_ITER_FACTOR * max_iter`` iterations;
    ``cold`` and ``margin`` are :func:`_newton`'s, unused.
    """
    from scipy.optimize import minimize as scipy_minimize

    evals0 = fun.n_evals
    gtol = tol**1.25
    limit = QUASI_NEWTON_ITER_FACTOR * max_iter

    def value_and_grad(x):
        f, g = fun(x, 1)
        return f, np.asarray(g, dtype=np.float64)

    res = scipy_minimize(
        value_and_grad,
        np.array(theta, dtype=np.float64),
        jac=True,
        method="L-BFGS-B",
        options={
            "maxiter": limit,
            "maxfun": 2 * limit,
            "gtol": gtol,
            "ftol": 0.0,
            "maxcor": QUASI_NEWTON_MEMORY,
        },
    )
    theta = res.x
    if _max_abs(res.jac) <= gtol:
        status = "converged"
    elif res.nit >= limit:
        status = "max_iter"
    elif _max_abs(res.hess_inv.matvec(res.jac)) <= math.sqrt(tol):
        status = "converged"
    else:
        status = "stalled"
    if span is not None and span(theta) > MAX_LLR_RANGE:
        status = "unbounded"
    return SolverResult(theta, int(res.nit), fun.n_evals - evals0, status)


def _minimize(objective, data, theta0, tol, max_iter, presolve):
    """:func:`minimize`, with BLAS on one thread."""
    limit = getattr(objective, "limit", None)
    if limit is not None:
        theta = limit(data)
        if theta is not None:
            return SolverResult(np.asarray(theta, dtype=np.float64), 1, 0, "unbounded")
    many = int(objective.n_params) >= QUASI_NEWTON_MIN_PARAMS
    newton = partial(
        _quasi_newton if many else _newton,
        span=getattr(objective, "span", None),
        max_iter=max_iter,
    )
    prepare = getattr(objective, "prepare", _identity)
    stages = [*presolve, objective]
    theta = np.asarray(theta0, dtype=np.float64)
    todo = stages
    sub_evals = 0
    cold = True  # theta is theta0
    for i, sub in enumerate(_warm_start_samples(data)):
        sub = sub.map(prepare)
        t_sub, t_cold = theta, cold
        # the smallest subsample only starts the first objective (the convex
        # presolve, if any): on so few samples a bounded rule may converge
        # into a flat region far out, and the next stages start there
        for stage in todo[:1] if i == 0 else todo:
            res = newton(
                _Passes(stage, sub), t_sub, tol=_WARM_START_TOL, cold=t_cold, margin=1.0
            )
            sub_evals += res.n_evals
            if res.status != "converged":
                break
            t_sub, t_cold = res.theta, False
        else:
            theta, cold = t_sub, False
            todo = todo if i == 0 else stages[-1:]
    prepared = data.map(prepare)
    n_iter = n_evals = 0
    for stage in todo:
        res = newton(_Passes(stage, prepared), theta, tol=tol, cold=cold)
        cold = False
        theta = res.theta
        n_iter += res.n_iter
        n_evals += res.n_evals
    res.n_iter, res.n_evals, res.n_sub_evals = n_iter, n_evals, sub_evals
    return res


def warn_convergence(estimator, j, res, max_iter):
    """A ``ConvergenceWarning`` for a fit that ended with ``res.status``.

    ``j`` is the column of a per-column fit, or None for a model of all
    columns at once (fusion, multiclass).
    """
    name = type(estimator).__name__
    where = "" if j is None else f" on column {j}"
    if res.status == "max_iter":
        msg = (
            f"{name}: Newton's method did not converge in max_iter={max_iter} "
            f"iterations{where}. Increase max_iter or tol."
        )
    elif res.status == "unbounded":
        msg = (
            f"{name}: the objective has no finite minimizer{where} (the "
            "classes are (nearly) separable): the fit stopped where the "
            f"calibrated LLRs span {MAX_LLR_RANGE:g} nats over the training "
            "scores. Set l2 > 0 for a well-posed problem."
        )
    else:
        msg = (
            f"{name}: the line search could not decrease the objective{where}; "
            "the result may not be optimal."
        )
    warnings.warn(msg, ConvergenceWarning, stacklevel=3)
