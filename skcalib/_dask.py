"""Exact distributed PAV and metrics on Dask collections.

Everything Dask-specific in skcalib lives here. Dask and distributed are
imported lazily, and only when a Dask collection has been passed: importing
skcalib and running the in-memory paths never imports them.

How the block summary is distributed
------------------------------------
PAV of contiguous score ranges solved separately, followed by PAV over the
concatenated blocks in score order, equals PAV of the whole: the
global isotonic solution is constant on every block of every range, so the
range blocks are just coarser points. :func:`dask_pav_blocks` therefore makes
two passes over the data:

1. per partition, a validation summary and a strided sample of the scores;
   on the client, approximate quantiles of the pooled samples become the
   range boundaries ``b_1 < ... < b_{R-1}`` (distinct score *values*);
2. per partition, the samples are split by range, ``b_{r-1} <= s < b_r``
   (``np.searchsorted(..., side="right")``), so tied scores can never straddle
   two ranges; per range, on the workers, the kernel's :func:`~skcalib._pav.pav_points`
   and :func:`~skcalib._pav.pav_merge` (never a re-implementation); on the
   client, one more :func:`~skcalib._pav.pav_merge` over the range blocks in
   score order.

The result equals :func:`~skcalib._pav.pav_blocks` on the same data: the same
blocks (``lo``/``hi`` bit for bit) and block weights up to summation order
(exact for integer weights).

The range boundaries only balance the work; a badly chosen boundary costs
memory on one worker, never correctness. A single tied score value is never
split, so a range holds at least all samples tied at one score.
"""

from __future__ import annotations

import operator
import sys
from functools import reduce as _fold
from typing import Any, NamedTuple

import numpy as np

from ._pav import BlockSummary, pav_finish, pav_merge, pav_points
from .utils._validation import check_binary_target

__all__ = [
    "is_dask_collection",
    "any_dask_collection",
    "dask_pav_blocks",
    "dask_block_summary",
    "dask_validated_blocks",
    "dask_class_reduce",
    "dask_prior_weighted_objective",
    "dask_cllr_sums",
    "dask_error_rates",
    "dask_fit_calibrator",
    "dask_apply",
    "DaskInputSummary",
]

# Scores sampled per partition for the range boundaries (pass 1).
_SAMPLES_PER_PARTITION = 2048

# Default cap on the number of score ranges.
_MAX_RANGES = 64


def is_dask_collection(x: Any) -> bool:
    """Whether ``x`` is a Dask collection, without importing Dask needlessly.

    If Dask has not been imported yet, nothing can be a Dask collection, so
    this returns False without importing it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._dask import is_dask_collection
    >>> is_dask_collection(np.arange(3))
    False
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return bool(dask.is_dask_collection(x))


def any_dask_collection(*args: Any) -> bool:
    """Whether any argument is a Dask collection (see :func:`is_dask_collection`)."""
    if "dask" not in sys.modules:
        return False
    return any(is_dask_collection(a) for a in args)


# --------------------------------------------------------------------------
# Partition handling
# --------------------------------------------------------------------------


def _is_dask_frame(x: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(x, (dd.Series, dd.DataFrame))


def _to_dask_array(x: Any, name: str):
    """A 1-D Dask array for ``x`` (Dask array, Dask Series/1-column frame)."""
    import dask.array as da

    if _is_dask_frame(x):
        x = x.to_dask_array(lengths=True)
    elif not is_dask_collection(x):
        x = da.from_array(np.asarray(x))
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got shape {x.shape}.")
    return x


def _partitions(arrays: dict[str, Any]) -> list[tuple]:
    """Aligned partitions of several 1-D inputs, as tuples of Delayed objects.

    ``arrays`` maps argument names to Dask arrays, Dask Series, NumPy arrays
    or None; the first entry is the reference. Dask Series of equal
    ``npartitions`` (columns of one DataFrame) are used partition by
    partition as they are (their lengths are checked in the first pass);
    anything else becomes a Dask array rechunked like the reference.
    """
    names = [k for k, v in arrays.items() if v is not None]
    values = [arrays[k] for k in names]
    frames = [_is_dask_frame(v) for v in values]
    if all(frames) and len({v.npartitions for v in values}) == 1:
        parts = [v.to_delayed() for v in values]
    else:
        ref = _to_dask_array(values[0], names[0])
        dask_arrays = [ref]
        for name, v in zip(names[1:], values[1:], strict=True):
            a = _to_dask_array(v, name)
            if a.shape[0] != ref.shape[0]:
                raise ValueError(
                    "Found input variables with inconsistent numbers of samples: "
                    f"[{ref.shape[0]}, {a.shape[0]}] (`{names[0]}`, `{name}`)."
                )
            dask_arrays.append(a.rechunk(ref.chunks))
        parts = [list(a.to_delayed().ravel()) for a in dask_arrays]
    out = []
    for row in zip(*parts, strict=True):
        full = dict(zip(names, row, strict=True))
        out.append(tuple(full.get(k) for k in arrays))
    return out


def _as_1d(part: Any) -> np.ndarray:
    if hasattr(part, "to_numpy"):  # pandas Series / DataFrame partition
        part = part.to_numpy()
    a = np.asarray(part)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    return a


def _as_float(part: Any, name: str) -> np.ndarray:
    a = _as_1d(part)
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be numeric; got dtype {a.dtype}.") from exc


# --------------------------------------------------------------------------
# Pass 1: validation summary and score sample, per partition
# --------------------------------------------------------------------------


def _label_stats(y: np.ndarray, w: np.ndarray | None):
    """Distinct labels (at most 3 reported) and per label (count, weight, any > 0).

    O(n) equality passes instead of ``np.unique``, which would sort every
    partition: binary labels only need the first two distinct values and a
    check that nothing else occurs.
    """
    masks = []
    values = []
    rest = None
    while len(values) < 3:
        candidates = y if rest is None else y[rest]
        if candidates.shape[0] == 0:
            break
        values.append(candidates[0])
        masks.append(y == values[-1])
        covered = masks[-1] if rest is None else ~rest | masks[-1]
        rest = ~covered
        if not rest.any():
            break
    try:
        order = np.argsort(np.array(values), kind="stable")
    except TypeError as exc:
        raise ValueError(
            f"The labels mix types that cannot be compared: {exc}"
        ) from exc
    classes = np.array(values)[order]
    if classes.shape[0] > 2:  # an error anyway
        return classes, None
    masks = [masks[i] for i in order]
    count = np.array([np.count_nonzero(m) for m in masks], dtype=np.float64)
    if w is None:
        return classes, (count, count, count > 0)
    wsum = np.array([w[m].sum() for m in masks])
    positive = np.array([bool((w[m] > 0).any()) for m in masks])
    return classes, (count, wsum, positive)


def _summarize_partition(y, s, w, score_name, n_sample, reduce=None, target=None):
    """Validation summary and score sample of one partition.

    With ``reduce``, also ``reduce(s_tar, w_tar, s_non, w_non)`` where the
    targets are ``y == target`` and zero-weight samples are dropped (weights
    are None for unweighted data).
    """
    s = _as_float(s, score_name)
    y = _as_1d(y)
    out = {"n": s.shape[0], "n_y": y.shape[0], "nan": False, "inf": False}
    if s.shape[0] and not np.isfinite(s).all():
        out["nan"] = bool(np.isnan(s).any())
        out["inf"] = True
        if out["nan"]:
            return out
    if w is not None:
        w = _as_float(w, "sample_weight")
        out["n_w"] = w.shape[0]
        out["w_finite"] = bool(np.isfinite(w).all())
        out["w_negative"] = bool((w < 0).any()) if out["w_finite"] else False
        if w.shape[0] != s.shape[0] or not out["w_finite"]:
            return out
    if y.shape[0] != s.shape[0]:
        return out
    if y.shape[0]:
        if y.dtype.kind == "f" and np.isnan(y).any():
            out["y_nan"] = True
            return out
        out["classes"], out["stats"] = _label_stats(y, w)
    if reduce is not None:
        t = y == target
        if w is not None:
            keep = w > 0
            s, t, w = s[keep], t[keep], w[keep]
        out["reduced"] = np.asarray(
            reduce(
                s[t],
                None if w is None else w[t],
                s[~t],
                None if w is None else w[~t],
            ),
            dtype=np.float64,
        )
    if n_sample:
        step = max(1, s.shape[0] // n_sample)
        out["sample"] = np.sort(s[::step])
        out["sample_weight"] = s.shape[0] / max(out["sample"].shape[0], 1)
    return out


def _show_classes(classes: np.ndarray) -> str:
    return ", ".join(repr(c) for c in classes.tolist()[:5]) + (
        ", ..." if classes.shape[0] > 5 else ""
    )


class DaskInputSummary(NamedTuple):
    """What the first pass over Dask inputs established.

    Attributes
    ----------
    pos_label : object
        The target label (the label compared with to get ``is_target``).
    classes : ndarray
        Sorted distinct labels (one or two).
    n_samples : int
    n_tar, n_non : float
        Total target and non-target weight (sample counts if unweighted).
    boundaries : ndarray
        Range boundaries for the block summary (distinct, increasing).
    """

    pos_label: Any
    classes: np.ndarray
    n_samples: int
    n_tar: float
    n_non: float
    boundaries: np.ndarray


def _weighted_quantiles(samples, weights, n_ranges):
    """Distinct approximate ``k / n_ranges`` quantiles of a weighted sample."""
    if not samples or n_ranges <= 1:
        return np.empty(0)
    values = np.concatenate(samples)
    w = np.concatenate(
        [np.full(v.shape[0], c) for v, c in zip(samples, weights, strict=True)]
    )
    order = np.argsort(values, kind="stable")
    values, w = values[order], w[order]
    cum = np.cumsum(w)
    targets = cum[-1] * np.arange(1, n_ranges) / n_ranges
    idx = np.minimum(np.searchsorted(cum, targets, side="left"), values.shape[0] - 1)
    # The lowest value as a boundary would leave range 0 empty.
    return np.unique(values[idx][values[idx] > values[0]])


#: ``pos_label`` for estimators: the larger of the two sorted labels.
ESTIMATOR_LABELS = object()


def _first_pass(
    parts,
    *,
    pos_label,
    score_name,
    y_name,
    require_both,
    n_ranges,
    weighted,
    allow_inf=True,
    reduce=None,
):
    """One pass: validate, sample the scores and optionally reduce.

    Returns the :class:`DaskInputSummary` and, with ``reduce``, the sum of
    its per-partition results (None otherwise).
    """
    import dask

    n_sample = 0 if reduce is not None else _SAMPLES_PER_PARTITION
    target = None
    if reduce is not None:
        if pos_label is ESTIMATOR_LABELS:
            raise ValueError("A reduction needs a known `pos_label`.")
        # Known before looking at the data: an implicit positive label is 1
        # (True == 1); other labels are rejected below.
        target = 1 if pos_label is None else pos_label
    tasks = [
        dask.delayed(_summarize_partition, pure=True)(
            y, s, w, score_name, n_sample, reduce, target
        )
        for y, s, w in parts
    ]
    (summaries,) = dask.compute(tasks)

    n = sum(p["n"] for p in summaries)
    if any(p["nan"] for p in summaries):
        raise ValueError(f"Input {score_name} contains NaN.")
    if not allow_inf and any(p["inf"] for p in summaries):
        raise ValueError(
            f"Input {score_name} contains infinity or a value too large for "
            "dtype('float64')."
        )
    if n == 0:
        raise ValueError(f"`{score_name}` is empty; at least one sample is required.")
    n_y = sum(p["n_y"] for p in summaries)
    if n_y != n or any(p["n_y"] != p["n"] for p in summaries):
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n_y}, {n}] (`{y_name}`, `{score_name}`)."
        )
    if weighted:
        n_w = sum(p["n_w"] for p in summaries)
        if n_w != n or any(p["n_w"] != p["n"] for p in summaries):
            raise ValueError(
                f"`sample_weight`.shape == ({n_w},), expected ({n},)! "
                "Found input variables with inconsistent numbers of samples."
            )
        if not all(p["w_finite"] for p in summaries):
            raise ValueError("`sample_weight` contains NaN or infinity.")
        if any(p["w_negative"] for p in summaries):
            raise ValueError("Negative values in data passed to `sample_weight`.")
    if any(p.get("y_nan") for p in summaries):
        raise ValueError(f"Input {y_name} contains NaN.")

    present = [p for p in summaries if "classes" in p]
    classes = np.unique(np.concatenate([p["classes"] for p in present]))
    if pos_label is ESTIMATOR_LABELS:
        # BaseCalibrator.fit's rule: any two labels, classes_[1] the target.
        if classes.shape[0] != 2:
            raise ValueError(
                f"`{y_name}` must have 2 classes (binary calibration); got "
                f"{classes.shape[0]}: {_show_classes(classes)}."
            )
        pos_label = classes[1]
    else:
        # The in-memory label checks, run on the distinct labels only.
        check_binary_target(
            classes, pos_label=pos_label, name=y_name, require_both=False
        )
        if pos_label is None:
            pos_label = True if classes.dtype.kind == "b" else 1

    n_tar = n_non = 0.0
    has_tar = has_non = False
    for p in present:
        count, wsum, positive = p["stats"]
        is_tar = p["classes"] == pos_label
        n_tar += float(wsum[is_tar].sum())
        n_non += float(wsum[~is_tar].sum())
        has_tar |= bool(positive[is_tar].any())
        has_non |= bool(positive[~is_tar].any())
    if weighted and not (has_tar or has_non):
        raise ValueError(
            "Sample weights must contain at least one non-zero number "
            "(`sample_weight` is all zero)."
        )
    if require_both and not (has_tar and has_non):
        missing = "target" if not has_tar else "non-target"
        raise ValueError(
            f"`{y_name}` has no {missing} samples (with non-zero weight); both "
            "target and non-target samples are required."
        )
    if n_ranges is None:
        # One range per partition keeps each range about a partition's size;
        # the cap bounds the partitions x ranges pieces of the split.
        n_ranges = min(len(parts), _MAX_RANGES)
    if reduce is not None:
        reduced = sum(p["reduced"] for p in present)
        return DaskInputSummary(pos_label, classes, n, n_tar, n_non, None), reduced
    boundaries = _weighted_quantiles(
        [p["sample"] for p in present if p["sample"].shape[0]],
        [p["sample_weight"] for p in present if p["sample"].shape[0]],
        n_ranges,
    )
    return DaskInputSummary(pos_label, classes, n, n_tar, n_non, boundaries), None


# --------------------------------------------------------------------------
# Pass 2: split by score range, PAV per range on the workers
# --------------------------------------------------------------------------


def _split_partition(y, s, w, pos_label, boundaries):
    """Split one partition into its score ranges: a tuple of (s, t, w)."""
    s = _as_float(s, "scores")
    t = _as_1d(y) == pos_label
    if w is not None:
        w = _as_float(w, "sample_weight")
        keep = w > 0  # the kernel drops zero weights too
        if not keep.all():
            s, t, w = s[keep], t[keep], w[keep]
    n_ranges = boundaries.shape[0] + 1
    # Boundaries are values: range r holds b[r-1] <= s < b[r], so ties stay
    # together. Range ids fit in 16 bits, where the stable sort is a radix sort.
    rid = np.searchsorted(boundaries, s, side="right")
    rid = rid.astype(np.uint16 if n_ranges < 2**16 else np.intp)
    order = np.argsort(rid, kind="stable")
    edges = np.zeros(n_ranges + 1, dtype=np.intp)
    np.cumsum(np.bincount(rid, minlength=n_ranges), out=edges[1:])
    s, t = s[order], t[order]
    if w is not None:
        w = w[order]
    return tuple(
        (
            s[a:b],
            t[a:b],
            None if w is None else w[a:b],
        )
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    )


def _empty_summary() -> BlockSummary:
    e = np.empty(0)
    return BlockSummary(e, e.copy(), e.copy(), e.copy())


def _solve_range(*pieces) -> tuple:
    """PAV blocks of one score range (the kernel, on a worker).

    Returned as a plain tuple of the four arrays (cheap to serialize).
    """
    s = np.concatenate([p[0] for p in pieces])
    if s.shape[0] == 0:
        return tuple(_empty_summary())
    t = np.concatenate([p[1] for p in pieces])
    if pieces[0][2] is None:
        # one task per worker thread already: no nested sort threads
        points = pav_points(s, t, threads=1)
    else:
        points = pav_points(s, t, np.concatenate([p[2] for p in pieces]), threads=1)
    return tuple(pav_merge(points))


def _concat(summaries: list[BlockSummary]) -> BlockSummary:
    summaries = [b for b in summaries if b.lo.shape[0]]
    if not summaries:
        return _empty_summary()
    return BlockSummary(*(np.concatenate(f) for f in zip(*summaries, strict=True)))


def _range_blocks(parts, summary: DaskInputSummary) -> list[BlockSummary]:
    """Pass 2: the PAV blocks of every score range, in score order."""
    import dask

    n_ranges = summary.boundaries.shape[0] + 1
    split = [
        dask.delayed(_split_partition, pure=True)(
            y, s, w, summary.pos_label, summary.boundaries
        )
        for y, s, w in parts
    ]
    pieces = [[p[r] for p in split] for r in range(n_ranges)]
    tasks = [dask.delayed(_solve_range, pure=True)(*row) for row in pieces]
    (blocks,) = dask.compute(tasks)
    return [BlockSummary(*b) for b in blocks]


def dask_block_summary(
    y_true,
    y_score,
    sample_weight=None,
    *,
    pos_label=None,
    score_name: str = "y_score",
    y_name: str = "y_true",
    require_both: bool = True,
    allow_inf: bool = True,
    pseudo_count: float = 0.0,
    n_ranges: int | None = None,
) -> tuple[BlockSummary, DaskInputSummary]:
    """Validate Dask inputs and compute their PAV block summary, distributed.

    The Dask counterpart of ``check_metric_inputs`` followed by
    :func:`~skcalib._pav.pav_blocks`: the same checks and messages, and the
    same blocks.

    Parameters
    ----------
    y_true : Dask array or Dask Series of shape (n_samples,)
        Labels (two distinct values).
    y_score : Dask array or Dask Series of shape (n_samples,)
        Scores; +/-inf allowed, NaN not.
    sample_weight : Dask array, Dask Series, array-like or None, default=None
        Non-negative weights; zero-weight samples are dropped.
    pos_label : int, float, bool or str, default=None
        The target label; may be omitted for labels in {0, 1}, {-1, 1} or
        booleans. ``ESTIMATOR_LABELS`` applies the estimators' rule instead:
        exactly two labels, the larger one the target.
    score_name, y_name : str
        Argument names used in error messages.
    require_both : bool, default=True
        Whether both classes must be present with non-zero weight.
    allow_inf : bool, default=True
        Whether +/-inf scores are allowed (the estimators reject them).
    pseudo_count : float, default=0.0
        As in :func:`~skcalib._pav.pav_blocks`.
    n_ranges : int or None, default=None
        Number of score ranges solved in parallel; ``None`` means the number
        of partitions of ``y_score``, at most 64.

    Returns
    -------
    blocks : BlockSummary
        Equal to ``pav_blocks`` of the same data (weights to rounding).
    summary : DaskInputSummary
        Labels, class totals and the range boundaries used.
    """
    # The scores are the reference for chunking.
    parts = _partitions(
        {score_name: y_score, y_name: y_true, "sample_weight": sample_weight}
    )
    parts = [(y, s, w) for s, y, w in parts]
    summary, _ = _first_pass(
        parts,
        pos_label=pos_label,
        score_name=score_name,
        y_name=y_name,
        require_both=require_both,
        n_ranges=n_ranges,
        weighted=sample_weight is not None,
        allow_inf=allow_inf,
    )
    blocks = pav_finish(_concat(_range_blocks(parts, summary)), pseudo_count)
    return blocks, summary


def dask_validated_blocks(
    y_true, scores, sample_weight, pos_label, *, score_name: str = "scores"
) -> tuple[BlockSummary, float, float]:
    """Dask branch of ``skcalib.metrics._common._validated_blocks``.

    Returns the same triple ``(blocks, n_tar, n_non)``: the distributed block
    summary (equal to ``pav_blocks`` of the validated data) and the class
    totals as block sums.
    """
    blocks, _ = dask_block_summary(
        y_true, scores, sample_weight, pos_label=pos_label, score_name=score_name
    )
    return blocks, float(blocks.tar.sum()), float(blocks.non.sum())


def dask_pav_blocks(
    scores,
    is_target,
    sample_weight=None,
    *,
    pseudo_count: float = 0.0,
    n_ranges: int | None = None,
) -> BlockSummary:
    """Distributed :func:`~skcalib._pav.pav_blocks` over Dask collections.

    Parameters
    ----------
    scores : Dask array or Dask Series of shape (n_samples,)
        Scores; +/-inf allowed, NaN not.
    is_target : Dask array or Dask Series of shape (n_samples,), bool
    sample_weight : Dask array, Dask Series or None, default=None
        Non-negative weights; zero-weight samples are dropped before PAV.
    pseudo_count : float, default=0.0
        As in :func:`~skcalib._pav.pav_blocks`.
    n_ranges : int or None, default=None
        Number of score ranges solved in parallel; ``None`` means the number
        of partitions of ``scores``, at most 64.

    Returns
    -------
    blocks : BlockSummary
        The same blocks as ``pav_blocks`` on the computed arrays; block
        weights equal up to summation order.

    Examples
    --------
    >>> import numpy as np
    >>> import dask
    >>> import dask.array as da
    >>> from skcalib._dask import dask_pav_blocks
    >>> s = da.from_array(np.array([0.1, 0.2, 0.3, 0.3, 0.4]), chunks=2)
    >>> y = da.from_array(np.array([False, True, False, True, True]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     b = dask_pav_blocks(s, y)
    >>> (b.tar / (b.tar + b.non)).round(3).tolist()   # ties 0.3 pooled
    [0.0, 0.667, 1.0]
    >>> b.lo.tolist(), b.hi.tolist()
    ([0.1, 0.2, 0.4], [0.1, 0.3, 0.4])
    """
    blocks, _ = dask_block_summary(
        is_target,
        scores,
        sample_weight,
        pos_label=True,
        score_name="scores",
        y_name="is_target",
        require_both=False,
        pseudo_count=pseudo_count,
        n_ranges=n_ranges,
    )
    return blocks


# --------------------------------------------------------------------------
# Calibrators: fit on Dask collections, lazy transform
# --------------------------------------------------------------------------


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
    data (``BaseCalibrator.fit`` routes Dask inputs here).

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
    if not pav and not hasattr(estimator, "_fit_sources"):
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
            fit, summary = _column_source(y, col, sample_weight, pos_label)
        if first is None:
            first = summary
            pos_label = summary.pos_label
        fits.append(fit)
    estimator.classes_ = first.classes
    estimator.n_features_in_ = len(columns)
    if feature_names is not None:
        estimator.feature_names_in_ = np.asarray(feature_names, dtype=object)
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
    estimator.calibration_prior_ = first.n_tar / (first.n_tar + first.n_non)
    estimator.prior_ = (
        estimator.calibration_prior_ if estimator.prior is None else estimator.prior
    )
    if pav:
        estimator._fit_from_blocks(fits, first.n_tar, first.n_non)
    else:
        estimator._fit_sources(fits)
    return estimator


# ------------------------------------------- the solver's data source on Dask


def _prepare_partition(y, s, w, pos_label):
    """Clean (scores, is_target, weights) of one partition, zero weights dropped."""
    s = _as_float(s, "X")
    t = np.asarray(_as_1d(y) == pos_label, dtype=bool)
    if w is not None:
        w = _as_float(w, "sample_weight")
        keep = w > 0
        if not keep.all():
            s, t, w = s[keep], t[keep], w[keep]
    return s, t, w


def _length(part):
    return part[0].shape[0]


def _take(part, rows):
    return tuple(None if a is None else a[rows] for a in part)


class DaskData:
    """The solver's data source on partitions persisted on the Dask workers.

    Each partition is one chunk (a tuple of arrays, e.g. ``(scores,
    is_target, weights)``). ``reduce`` evaluates a function on every
    partition on the workers and combines the results on the client (one
    pass); ``map`` persists a function of every partition where it lives;
    ``subsample`` gathers the rows of the in-memory systematic subsample
    ``rows[step // 2 :: step]`` (or random rows) to the client.

    Parameters
    ----------
    parts : list of Delayed
        Persisted partitions.
    n_samples : int or None, default=None
        Total number of rows (computed on first use if None).
    """

    def __init__(self, parts, n_samples=None):
        self.parts = list(parts)
        self._n = n_samples
        self._lengths = None
        self._subsamples = {}

    def lengths(self):
        if self._lengths is None:
            import dask

            self._lengths = np.array(
                dask.compute(*[dask.delayed(_length)(p) for p in self.parts]),
                dtype=np.int64,
            )
        return self._lengths

    @property
    def n_samples(self):
        if self._n is None:
            self._n = int(self.lengths().sum())
        return self._n

    def reduce(self, fn, combine=operator.add):
        import dask

        (results,) = dask.compute([dask.delayed(fn, pure=False)(p) for p in self.parts])
        return _fold(combine, results)

    def map(self, fn):
        import dask

        parts = dask.persist(*[dask.delayed(fn, pure=False)(p) for p in self.parts])
        return DaskData(parts, self._n)

    def subsample(self, n, random_state=None):
        from ._solver import ArrayData

        key = (int(n), random_state)
        if key not in self._subsamples:
            import dask

            total = self.n_samples
            step = max(1, total // int(n))
            if random_state is None:
                rows = np.arange(step // 2, total, step)
            else:
                rng = np.random.default_rng(random_state)
                rows = np.sort(rng.choice(total, total // step, replace=False))
            edges = np.concatenate([[0], np.cumsum(self.lengths())])
            cuts = np.searchsorted(rows, edges)
            pieces = dask.compute(
                *[
                    dask.delayed(_take)(p, rows[a:b] - lo)
                    for p, a, b, lo in zip(
                        self.parts, cuts[:-1], cuts[1:], edges[:-1], strict=True
                    )
                ]
            )
            arrays = [
                None if col[0] is None else np.concatenate(col)
                for col in zip(*pieces, strict=True)
            ]
            self._subsamples[key] = ArrayData(*arrays)
        return self._subsamples[key]


def _column_source(y, col, sample_weight, pos_label):
    """Validate one score column and persist its cleaned partitions.

    Returns the :class:`DaskData` of ``(scores, is_target, weights)``
    partitions (zero weights dropped) and the :class:`DaskInputSummary`.
    """
    import dask

    parts = _partitions({"X": col, "y": y, "sample_weight": sample_weight})
    parts = [(yp, sp, wp) for sp, yp, wp in parts]
    summary, _ = _first_pass(
        parts,
        pos_label=pos_label,
        score_name="X",
        y_name="y",
        require_both=True,
        n_ranges=1,
        weighted=sample_weight is not None,
        allow_inf=False,
    )
    prepared = dask.persist(
        *[
            dask.delayed(_prepare_partition, pure=True)(yp, sp, wp, summary.pos_label)
            for yp, sp, wp in parts
        ]
    )
    return DaskData(prepared), summary


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


# --------------------------------------------------------------------------
# Actual (LLR) metrics: one pass of per-partition, per-class sums
# --------------------------------------------------------------------------


def _wsum(x: np.ndarray, w: np.ndarray | None) -> float:
    # Zero weights were dropped, so an infinite cost never meets a zero weight.
    return float(x.sum()) if w is None else float(x @ w)


def _reduce_beta_costs(alpha, beta, prior, s_tar, w_tar, s_non, w_non):
    """``[sum_tar w C(q, tar), sum_non w C(q, non)]`` of one partition."""
    from ._special import beta_rule_costs

    c_tar = beta_rule_costs(s_tar, alpha=alpha, beta=beta, prior=prior)[0]
    c_non = beta_rule_costs(s_non, alpha=alpha, beta=beta, prior=prior)[1]
    return [_wsum(c_tar, w_tar), _wsum(c_non, w_non)]


def _weight_below(x, w, thresholds):
    """Total weight of ``x < t`` for every threshold ``t``."""
    if thresholds.shape[0] <= 8:
        return np.array([_wsum((x < t).astype(np.float64), w) for t in thresholds])
    order = np.argsort(x)
    cum = np.zeros(x.shape[0] + 1)
    np.cumsum(np.ones(x.shape[0]) if w is None else w[order], out=cum[1:])
    return cum[np.searchsorted(x[order], thresholds, side="left")]


def _reduce_errors(thresholds, s_tar, w_tar, s_non, w_non):
    """Missed target weight (``l < t``) and false-alarm weight (``l >= t``)."""
    n_non = float(s_non.shape[0]) if w_non is None else float(w_non.sum())
    misses = _weight_below(s_tar, w_tar, thresholds)
    false_alarms = n_non - _weight_below(s_non, w_non, thresholds)
    return np.stack([misses, false_alarms])


def dask_class_reduce(
    y_true,
    y_score,
    sample_weight=None,
    *,
    reduce,
    pos_label=None,
    score_name: str = "y_score",
):
    """Validate Dask metric inputs and sum a per-class reduction, in one pass.

    Parameters
    ----------
    y_true, y_score, sample_weight : Dask collections (or arrays)
        As for the metrics; ``y_score`` may hold +/-inf, not NaN.
    reduce : callable
        ``reduce(s_tar, w_tar, s_non, w_non) -> array-like``, evaluated on
        every partition (zero-weight samples dropped; weights None when
        unweighted) and summed. Must be picklable.
    pos_label : label, default=None
    score_name : str, default="y_score"

    Returns
    -------
    total : ndarray
        Sum of the per-partition results.
    summary : DaskInputSummary
        Labels and class totals (``boundaries`` is None).
    """
    parts = _partitions(
        {score_name: y_score, "y_true": y_true, "sample_weight": sample_weight}
    )
    parts = [(y, s, w) for s, y, w in parts]
    summary, total = _first_pass(
        parts,
        pos_label=pos_label,
        score_name=score_name,
        y_name="y_true",
        require_both=True,
        n_ranges=None,
        weighted=sample_weight is not None,
        reduce=reduce,
    )
    return total, summary


def dask_prior_weighted_objective(
    y_true, llr, sample_weight=None, *, alpha, beta, prior=0.5, pos_label=None
) -> float:
    """Prior-weighted Beta-family objective ``Cbar`` of Dask inputs.

    The Dask counterpart of ``skcalib._special.prior_weighted_objective``
    (unnormalized), with the metrics' input validation, in one pass: each
    partition returns its weighted class sums of ``C(q, tar)`` and
    ``C(q, non)`` (``skcalib._special.beta_rule_costs``); the client forms
    ``prior/N_tar * S_tar + (1-prior)/N_non * S_non``. ``cllr`` is this at
    ``alpha = beta = 1`` divided by the uninformative value (``log 2`` at
    ``prior = 1/2``), ``beta_rule_loss`` likewise.
    """
    from functools import partial

    from ._special import check_rule_params

    alpha, beta, prior = check_rule_params(alpha, beta, prior)
    (s_tar, s_non), summary = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=partial(_reduce_beta_costs, alpha, beta, prior),
        pos_label=pos_label,
        score_name="llr",
    )
    return float(prior / summary.n_tar * s_tar + (1.0 - prior) / summary.n_non * s_non)


def dask_error_rates(
    y_true, llr, thresholds, *, sample_weight=None, pos_label=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(P_miss, P_fa)`` of the decisions ``llr >= t`` for every threshold.

    One pass; per partition, weighted counts of targets below and
    non-targets at or above each threshold. This is what ``actual_dcf``
    (one threshold, ``-logit(pe)``) and the actual curve of
    ``bayes_error_curve`` (thresholds ``-prior_log_odds``) need.

    Returns
    -------
    p_miss, p_fa : ndarray of shape (n_thresholds,)
    """
    from functools import partial

    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    (misses, false_alarms), summary = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=partial(_reduce_errors, thresholds),
        pos_label=pos_label,
        score_name="llr",
    )
    return misses / summary.n_tar, false_alarms / summary.n_non


def _reduce_cllr(s_tar, w_tar, s_non, w_non):
    """The metrics' own chunked Cllr sums, per class, on one partition."""
    from .metrics._scoring_rules import _cllr_sums

    loss_tar, _, n_tar, _ = _cllr_sums(s_tar, np.ones(s_tar.shape[0], bool), w_tar)
    _, loss_non, _, n_non = _cllr_sums(s_non, np.zeros(s_non.shape[0], bool), w_non)
    return [loss_tar, loss_non, n_tar, n_non]


def dask_cllr_sums(y_true, llr, sample_weight=None, *, pos_label=None):
    """``(loss_tar, loss_non, n_tar, n_non)`` of ``_cllr_sums`` on Dask inputs.

    One pass: every partition runs ``skcalib.metrics._scoring_rules._cllr_sums``
    on its targets and on its non-targets; the sums are added on the client,
    so ``cllr = (loss_tar / n_tar + loss_non / n_non) / 2`` as in memory.
    """
    total, _ = dask_class_reduce(
        y_true,
        llr,
        sample_weight,
        reduce=_reduce_cllr,
        pos_label=pos_label,
        score_name="llr",
    )
    return tuple(float(v) for v in total)
