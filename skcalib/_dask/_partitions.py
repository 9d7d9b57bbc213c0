"""Aligned partitions of Dask inputs and the validating first pass over them.

Every distributed computation in :mod:`skcalib._dask` starts here:
:func:`_partitions` pairs the partitions of scores, labels and weights (Dask
arrays, Dask Series or DataFrame columns; chunk sizes computed where Dask
does not know them) and :func:`_first_pass` validates them on the workers
with the in-memory checks and messages, summing the class totals, sampling
the scores for the range boundaries of the block summary or running a
per-class reduction, in one pass.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernel._sort import quantiles
from ..utils._stats import drop_zero_weights
from ..utils._validation import check_binary_target, distinct_labels, show_labels
from ._detect import is_dask_collection

__all__ = [
    "DaskInputSummary",
    "ESTIMATOR_LABELS",
    "clean_partition",
    "class_totals_pass",
    "raise_infinite",
]

# Scores sampled per partition for the range boundaries (pass 1).
_SAMPLES_PER_PARTITION = 2048

# Default cap on the number of score ranges.
_MAX_RANGES = 64


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
    if np.isnan(x.shape[0]):
        # Unknown chunk sizes (boolean indexing, a Series' to_dask_array()):
        # count them, on a copy so that the caller's array is left as it is.
        x = x.copy()
        x.compute_chunk_sizes()
    return x


def _partitions(arrays: dict[str, Any]) -> list[tuple]:
    """Aligned partitions of several 1-D inputs, as tuples of Delayed objects.

    ``arrays`` maps argument names to Dask arrays, Dask Series, NumPy arrays
    or None; the first entry is the reference. Dask Series of equal
    ``npartitions`` (columns of one DataFrame) are used partition by
    partition as they are (their lengths are checked in the first pass);
    anything else becomes a Dask array rechunked like the reference (chunk
    sizes that Dask does not know are computed first).
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


def _class_stats(y: np.ndarray, w: np.ndarray | None):
    """Every distinct label and per label (count, weight, any > 0)."""
    classes = distinct_labels(y, "y")
    index = np.searchsorted(classes, y)
    K = classes.shape[0]
    count = np.bincount(index, minlength=K).astype(np.float64)
    if w is None:
        return classes, (count, count, count > 0)
    wsum = np.bincount(index, weights=w, minlength=K)
    positive = np.bincount(index, weights=w > 0, minlength=K) > 0
    return classes, (count, wsum, positive)


def _summarize_partition(
    y, s, w, score_name, n_sample, reduce=None, target=None, all_labels=False
):
    """Validation summary and score sample of one partition.

    ``s`` is one score partition, or a tuple of them (the columns of one
    ``X``, validated and sampled together with their one ``y`` and ``w``).
    With ``reduce`` (one column), also ``reduce(s_tar, w_tar, s_non, w_non)``
    where the targets are ``y == target`` and zero-weight samples are
    dropped (weights are None for unweighted data). ``all_labels``: the
    statistics of every distinct label (K classes), not of the first three.
    """
    columns = [_as_float(c, score_name) for c in (s if isinstance(s, tuple) else (s,))]
    s = columns[0]
    y = _as_1d(y)
    out = {"n": s.shape[0], "n_y": y.shape[0], "nan": False, "inf": False}
    for c in columns:
        if c.shape[0] and not np.isfinite(c).all():
            out["nan"] = bool(np.isnan(c).any())
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
        stats = _class_stats if all_labels else _label_stats
        out["classes"], out["stats"] = stats(y, w)
    if reduce is not None:
        s, t, w = drop_zero_weights(w, s, y == target)
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
        out["samples"] = [np.sort(c[::step]) for c in columns]
        out["sample_weight"] = s.shape[0] / max(out["samples"][0].shape[0], 1)
    return out


def clean_partition(y, s, w, pos_label):
    """``(scores, is_target, weights)`` of one validated partition, the rows
    of zero weight dropped (the one place the Dask layer drops them)."""
    s = _as_float(s, "X")
    t = np.asarray(_as_1d(y) == pos_label, dtype=bool)
    if w is not None:
        w = _as_float(w, "sample_weight")
    return drop_zero_weights(w, s, t)


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
        Range boundaries for the block summary (distinct, increasing), of
        the first score column.
    column_boundaries : tuple of ndarray
        The range boundaries of every score column.
    has_inf : bool
        Whether a score is +/-inf (allowed by the metrics, not by a fit).
    """

    pos_label: Any
    classes: np.ndarray
    n_samples: int
    n_tar: float
    n_non: float
    boundaries: np.ndarray
    column_boundaries: tuple = ()
    has_inf: bool = False


def _weighted_quantiles(samples, weights, n_ranges):
    """Distinct approximate ``k / n_ranges`` quantiles of a weighted sample."""
    if not samples or n_ranges <= 1:
        return np.empty(0)
    values = np.concatenate(samples)
    w = np.concatenate(
        [np.full(v.shape[0], c) for v, c in zip(samples, weights, strict=True)]
    )
    cuts = quantiles(values, np.arange(1, n_ranges) / n_ranges, w)
    # The lowest value as a boundary would leave range 0 empty.
    return np.unique(cuts[cuts > values.min()])


#: ``pos_label`` for estimators: the larger of the two sorted labels.
ESTIMATOR_LABELS = object()


def resolve_pos_label(classes, pos_label, y_name: str):
    """The target label of the distinct labels ``classes``, checked.

    ``ESTIMATOR_LABELS``: ``BaseCalibrator.fit``'s rule (any two labels,
    ``classes[1]`` the target); otherwise the in-memory metric checks, run
    on the distinct labels only (``pos_label=None`` for labels in {0, 1},
    {-1, 1} or booleans).
    """
    if pos_label is ESTIMATOR_LABELS:
        if classes.shape[0] != 2:
            raise ValueError(
                f"`{y_name}` must have 2 classes (binary calibration); got "
                f"{classes.shape[0]}: {show_labels(classes)}."
            )
        return classes[1]
    check_binary_target(classes, pos_label=pos_label, name=y_name, require_both=False)
    if pos_label is None:
        return True if classes.dtype.kind == "b" else 1
    return pos_label


def raise_infinite(score_name):
    """The in-memory message of a fit's scores holding +/-inf."""
    raise ValueError(
        f"Input {score_name} contains infinity or a value too large for "
        "dtype('float64')."
    )


def _check_summaries(summaries, score_name, y_name, weighted, allow_inf) -> int:
    """The in-memory checks of values and lengths on the partition summaries
    of :func:`_summarize_partition`; returns the number of samples."""
    n = sum(p["n"] for p in summaries)
    if any(p["nan"] for p in summaries):
        raise ValueError(f"Input {score_name} contains NaN.")
    if not allow_inf and any(p["inf"] for p in summaries):
        raise_infinite(score_name)
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
    return n


def _raise_all_zero_weights():
    raise ValueError(
        "Sample weights must contain at least one non-zero number "
        "(`sample_weight` is all zero)."
    )


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
    n = _check_summaries(summaries, score_name, y_name, weighted, allow_inf)
    has_inf = any(p["inf"] for p in summaries)

    present = [p for p in summaries if "classes" in p]
    classes = np.unique(np.concatenate([p["classes"] for p in present]))
    pos_label = resolve_pos_label(classes, pos_label, y_name)

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
        _raise_all_zero_weights()
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
        summary = DaskInputSummary(
            pos_label, classes, n, n_tar, n_non, None, has_inf=has_inf
        )
        return summary, reduced
    boundaries = tuple(
        _weighted_quantiles(
            [p["samples"][j] for p in present if p["samples"][j].shape[0]],
            [p["sample_weight"] for p in present if p["samples"][j].shape[0]],
            n_ranges,
        )
        for j in range(len(present[0]["samples"]))
    )
    summary = DaskInputSummary(
        pos_label, classes, n, n_tar, n_non, boundaries[0], boundaries, has_inf
    )
    return summary, None


def class_totals_pass(parts, *, weighted: bool):
    """One validating pass over the partitions of K-class inputs.

    ``parts`` holds ``(y, columns, w)`` partitions (``columns`` a tuple of
    score partitions). The scores are checked as in memory (finite), the
    lengths and the weights too; the labels are reduced to their distinct
    values, on which the caller runs the in-memory label checks.

    Returns
    -------
    classes : ndarray
        The sorted distinct labels.
    totals : ndarray of shape (n_classes,)
        Total weight of each class (counts if unweighted).
    """
    import dask

    tasks = [
        dask.delayed(_summarize_partition, pure=True)(y, s, w, "X", 0, all_labels=True)
        for y, s, w in parts
    ]
    (summaries,) = dask.compute(tasks)
    _check_summaries(summaries, "X", "y", weighted, allow_inf=False)
    present = [p for p in summaries if "classes" in p]
    classes = distinct_labels(np.concatenate([p["classes"] for p in present]), "y")
    totals = np.zeros(classes.shape[0])
    for p in present:
        np.add.at(totals, np.searchsorted(classes, p["classes"]), p["stats"][1])
    if weighted and not totals.any():
        _raise_all_zero_weights()
    return classes, totals
