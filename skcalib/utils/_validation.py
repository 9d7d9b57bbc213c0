"""Input validation shared by the metrics and the estimators.

Kernels take clean float64 arrays; everything public validates here first so
that bad input is a ``ValueError`` that names the argument, never a wrong
answer.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.utils import assert_all_finite, check_consistent_length
from sklearn.utils import column_or_1d as _sklearn_column_or_1d
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from ._docstrings import doc_blocks, fill_doc
from ._numpy_compat import count_nonzero

__all__ = [
    "check_binary_target",
    "check_binary_y",
    "check_class_y",
    "check_scores",
    "check_weights",
    "check_metric_inputs",
    "column_or_1d",
    "distinct_labels",
    "plain_value",
    "show_labels",
    "warn_if_probabilities",
]


def column_or_1d(y, *, warn: bool = False) -> np.ndarray:
    """scikit-learn's ``column_or_1d``, at no cost for a plain 1-D array.

    For an ``ndarray`` (not a subclass) of booleans, numbers or strings,
    scikit-learn's conversion changes nothing but the memory layout (C
    order); its dataframe and array-API detection would otherwise be most
    of the time of a metric or a fit on a hundred samples. Everything else,
    and every error, goes through scikit-learn.
    """
    if type(y) is np.ndarray and y.ndim == 1 and y.dtype.kind in "biufU":
        return np.ascontiguousarray(y)
    return _sklearn_column_or_1d(y, warn=warn)


def _is_implicit_binary(classes: np.ndarray) -> bool:
    """Labels whose positive class is obvious: {0, 1}, {-1, 1} or booleans."""
    if classes.dtype.kind == "b":
        return True
    if classes.dtype.kind in "iuf":
        values = set(classes.tolist())
        return values <= {0, 1} or values <= {-1, 1}
    return False


def check_binary_target(
    y_true, *, pos_label=None, name: str = "y_true", require_both: bool = True
) -> np.ndarray:
    """Validate binary labels and return a boolean "is target" array.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels, any two distinct values.
    pos_label : int, float, bool or str, default=None
        The target (positive) label. May be omitted only for labels in
        {0, 1}, {-1, 1} or booleans, as in scikit-learn.
    name : str, default="y_true"
        Argument name used in error messages.
    require_both : bool, default=True
        Whether both classes must be present.

    Returns
    -------
    is_target : ndarray of shape (n_samples,), dtype=bool
    """
    y = column_or_1d(y_true, warn=False)
    if y.shape[0] == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is required.")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"Input {name} contains NaN.")
    if pos_label is None and y.dtype.kind in "iu" and 0 <= np.bitwise_or.reduce(y) <= 1:
        # Integer labels in {0, 1}, the common case, decided by one reduction
        # (any other value, a negative one too, sets another bit of the OR);
        # the distinct labels are only needed for a message.
        is_target = y == 1
        if require_both:
            n_tar = int(np.count_nonzero(is_target))
            if n_tar == 0 or n_tar == y.shape[0]:
                _raise_one_class(name, y[:1], n_tar > 0)
        return is_target
    classes = distinct_labels(y, name)
    if classes.shape[0] > 2:
        raise ValueError(
            f"`{name}` has {classes.shape[0]} classes ({show_labels(classes)}); "
            "only binary targets are supported."
        )
    if pos_label is None:
        if not _is_implicit_binary(classes):
            raise ValueError(
                f"`{name}` takes values in {{{show_labels(classes)}}} and "
                "`pos_label` is not specified: either make y_true take values "
                "in {0, 1} or {-1, 1} or pass pos_label explicitly."
            )
        pos_label = True if classes.dtype.kind == "b" else 1
    elif classes.shape[0] == 2 and pos_label not in classes.tolist():
        raise ValueError(
            f"`pos_label`={plain_value(pos_label)!r} is not a valid label of "
            f"`{name}`: it must be one of {{{show_labels(classes)}}}."
        )
    is_target = y == pos_label
    if require_both:
        n_tar = int(np.count_nonzero(is_target))
        if n_tar == 0 or n_tar == y.shape[0]:
            _raise_one_class(name, classes, n_tar > 0)
    return np.asarray(is_target, dtype=bool)


def _raise_one_class(name: str, classes, all_targets: bool):
    missing = "non-target" if all_targets else "target"
    raise ValueError(
        f"`{name}` contains only one class ({show_labels(classes)}); "
        "both target and non-target samples are required "
        f"(no {missing} samples)."
    )


def _checked_labels(y, owner: str):
    """A 1-D classification target with at least 2 classes: ``(y, classes)``."""
    y = column_or_1d(y, warn=True)
    if y.shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={y.shape}) while a minimum of 1 "
            f"is required by {owner}."
        )
    if y.dtype.kind in "fc":
        assert_all_finite(y, input_name="y")
    classes = distinct_labels(y, "y")
    # The target type of a 1-D y is that of its distinct values: checking
    # those is O(n_classes) instead of another O(n) pass over y. Distinct
    # booleans, integers or strings are always a 'binary' or 'multiclass'
    # target; floats (which may be continuous) and objects are checked.
    if classes.dtype.kind not in "biuU":
        with warnings.catch_warnings():
            # it sees the distinct values only, all unique: its test of the
            # share of distinct values is made below on y itself
            warnings.filterwarnings(
                "ignore", "The number of unique classes", UserWarning
            )
            check_classification_targets(classes)
    if y.shape[0] > 20 and classes.shape[0] > round(0.5 * y.shape[0]):
        warnings.warn(
            "The number of unique classes is greater than 50% of the number "
            "of samples. `y` could represent a regression problem, not a "
            "classification problem.",
            UserWarning,
            stacklevel=3,
        )
    if classes.shape[0] < 2:
        raise ValueError(
            f"{owner} needs samples of 2 classes in `y`; got 1 class "
            f"({show_labels(classes[:1])}). Calibration needs both target and "
            "non-target samples."
        )
    return y, classes


#: The parameters and first result of the target checks.
_DOCS = doc_blocks(
    labels_in_out="""
        Parameters
        ----------
        y : array-like of shape (n_samples,)
        owner : str
            Name of the estimator, for error messages.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
)


@fill_doc(_DOCS)
def check_binary_y(y, *, owner: str):
    """Validate the target of a binary estimator (any two labels).

    As scikit-learn's classifiers: ``classes`` are the sorted distinct labels
    and ``classes[1]`` is the target class.

    {labels_in_out}
    classes : ndarray of shape (2,)
    is_target : ndarray of shape (n_samples,), dtype=bool
    """
    y, classes = _checked_labels(y, owner)
    if classes.shape[0] > 2:
        raise ValueError(
            "Only binary classification is supported. The type of the target is "
            f"{type_of_target(classes, input_name='y')}: `y` must have 2 classes; "
            f"got {classes.shape[0]} classes. {owner} calibrates binary "
            "problems; CalibratedClassifier calibrates multiclass ones "
            "(one-vs-rest or with a multiclass calibrator)."
        )
    return y, classes, np.asarray(y == classes[1], dtype=bool)


@fill_doc(_DOCS)
def check_class_y(y, *, owner: str):
    """Validate the target of a classifier of 2 or more classes.

    {labels_in_out}
    classes : ndarray of shape (n_classes,)
        The sorted distinct labels.
    y_index : ndarray of shape (n_samples,), dtype=intp
        The position of each label in ``classes``.
    """
    y, classes = _checked_labels(y, owner)
    if classes.shape[0] == 2:  # one comparison pass instead of a search
        return y, classes, np.asarray(y == classes[1], dtype=np.intp)
    return y, classes, np.searchsorted(classes, y).astype(np.intp, copy=False)


def distinct_labels(y: np.ndarray, name: str) -> np.ndarray:
    """Sorted distinct values of ``y``, like ``np.unique`` but O(n) for numbers.

    Binary numeric labels are the common case on large inputs; a min/max pass
    (plus one comparison pass for non-consecutive values) avoids the sort in
    ``np.unique``, which would otherwise dominate cheap metrics and fits.
    Labels of types that cannot be compared are a ``ValueError``.
    """
    if y.dtype.kind == "b":
        present = [v for v, has in ((False, not y.all()), (True, y.any())) if has]
        return np.array(present, dtype=bool)
    if y.dtype.kind in "iuf" and y.shape[0]:
        lo, hi = y.min(), y.max()
        if lo == hi:
            return y[:1].copy()
        consecutive_ints = y.dtype.kind in "iu" and lo + 1 == hi
        if consecutive_ints or (
            np.count_nonzero(y == lo) + np.count_nonzero(y == hi) == y.shape[0]
        ):
            return np.array([lo, hi], dtype=y.dtype)
    try:
        return np.unique(y)
    except TypeError as exc:
        raise ValueError(
            f"`{name}` mixes label types that cannot be compared: {exc}"
        ) from exc


def plain_value(value):
    """``value`` with NumPy scalars and arrays as Python values, for messages.

    ``repr(np.float64(1.0))`` is ``'np.float64(1.0)'`` since NumPy 2; a
    message shows ``1.0``.

    Examples
    --------
    >>> import numpy as np
    >>> repr(plain_value(np.float64(1.0))), plain_value(np.array([0, 1]))
    ('1.0', [0, 1])
    """
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, list | tuple):
        return type(value)(plain_value(v) for v in value)
    return value


def show_labels(classes) -> str:
    """The first five distinct labels, as Python values, for messages."""
    classes = np.asarray(classes)
    return ", ".join(repr(c) for c in classes.tolist()[:5]) + (
        ", ..." if classes.shape[0] > 5 else ""
    )


def check_scores(x, *, name: str = "y_score", allow_inf: bool = True) -> np.ndarray:
    """Validate a 1-D array of scores or LLRs as contiguous float64.

    NaN is always a ``ValueError``; +/-inf only when ``allow_inf=False``.
    """
    try:
        x = column_or_1d(x, warn=False)
    except ValueError as exc:
        raise ValueError(f"`{name}` must be 1-D: {exc}") from exc
    if x.dtype.kind not in "biuf":
        try:
            x = x.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"`{name}` must be numeric; got dtype {x.dtype}.") from exc
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.shape[0] == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is required.")
    # min/max propagate NaN: two reductions, no boolean temporary.
    lo = np.minimum.reduce(x)
    if math.isnan(lo):
        raise ValueError(f"Input {name} contains NaN.")
    if not allow_inf and (np.isinf(lo) or np.isinf(x.max())):
        raise ValueError(f"Input {name} contains infinity.")
    return x


#: Rescaled weights keep their total below ``2**_WEIGHT_TOTAL_EXPONENT``, which
#: leaves a factor 2**63 of room for sums of weighted per-trial values.
_WEIGHT_TOTAL_EXPONENT = 960


def check_weights(
    sample_weight,
    n_samples: int,
    *,
    name: str = "sample_weight",
    return_exponent: bool = False,
):
    """Validate sample weights; ``None`` stays ``None`` (the unweighted path).

    Weights so large that their total could overflow (all ``1e308``, say)
    are divided by a power of two, ``2**exponent``, chosen so that the total
    stays far below the float maximum. Every result that depends only on
    ratios of weights (all metrics, PAV fits) is unchanged by this, exactly:
    dividing by a power of two does not round. A rule that counts virtual
    trials of weight 1 (the rule of succession, Platt's smoothed targets)
    gives them the weight ``2**-exponent`` to keep its meaning.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), scalar or None
    n_samples : int
    name : str, default="sample_weight"
        Argument name used in error messages.
    return_exponent : bool, default=False
        Whether to also return the exponent of the rescaling.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,), float64, or None
    exponent : int
        The weights were divided by ``2**exponent`` (0 when not rescaled);
        only if ``return_exponent=True``.
    """
    if sample_weight is None:
        return (None, 0) if return_exponent else None
    w = np.asarray(sample_weight)
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    try:
        w = column_or_1d(w, warn=False).astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`{name}` must be a 1-D array of numbers: {exc}") from exc
    if w.shape[0] != n_samples:
        raise ValueError(
            f"`{name}`.shape == ({w.shape[0]},), expected ({n_samples},)! "
            "Found input variables with inconsistent numbers of samples."
        )
    if not np.isfinite(w).all():
        raise ValueError(f"`{name}` contains NaN or infinity.")
    if (w < 0).any():
        raise ValueError(f"Negative values in data passed to `{name}`.")
    if not (w > 0).any():
        raise ValueError(
            "Sample weights must contain at least one non-zero number "
            f"(`{name}` is all zero)."
        )
    w, exponent = _rescale_weights(np.ascontiguousarray(w))
    return (w, exponent) if return_exponent else w


def _rescale_weights(w: np.ndarray) -> tuple[np.ndarray, int]:
    """Divide ``w`` by ``2**e`` (``e >= 0``, 0 if not needed) so its total
    is below ``2**_WEIGHT_TOTAL_EXPONENT``; the copy is made only if needed."""
    # total <= n * max < 2**(frexp(max) exponent + n.bit_length())
    bound = int(np.frexp(w.max())[1]) + int(w.shape[0]).bit_length()
    exponent = max(0, bound - _WEIGHT_TOTAL_EXPONENT)
    if exponent:
        w = np.ldexp(w, -exponent)
    return w, exponent


def check_metric_inputs(
    y_true,
    y_score,
    sample_weight=None,
    *,
    pos_label=None,
    score_name: str = "y_score",
    require_both: bool = True,
):
    """Validate ``(y_true, y_score, sample_weight)`` of a binary metric.

    Returns
    -------
    is_target : ndarray of bool
    scores : ndarray of float64 (may contain +/-inf)
    sample_weight : ndarray of float64 or None
    """
    scores = check_scores(y_score, name=score_name)
    is_target = check_binary_target(y_true, pos_label=pos_label, require_both=False)
    if is_target.shape[0] != scores.shape[0]:
        check_consistent_length(is_target, scores)
    w = None if sample_weight is None else check_weights(sample_weight, scores.shape[0])
    if require_both:
        if w is None:
            n_tar = count_nonzero(is_target)
            has_tar, has_non = n_tar > 0, n_tar < is_target.shape[0]
        else:  # boolean passes: no copy of the weights of each class
            positive = w > 0
            if positive.all():
                n_tar = count_nonzero(is_target)
                has_tar, has_non = n_tar > 0, n_tar < is_target.shape[0]
            else:
                has_tar = bool(np.logical_and(positive, is_target).any())
                np.logical_and(positive, ~is_target, out=positive)
                has_non = bool(positive.any())
        if not (has_tar and has_non):
            missing = "target" if not has_tar else "non-target"
            raise ValueError(
                f"`y_true` has no {missing} samples (with non-zero weight); both "
                "target and non-target samples are required."
            )
    return is_target, scores, w


#: Fewest values that :func:`warn_if_probabilities` judges: a handful of
#: small LLRs (a worked example, a property test) is no mistake.
_MIN_PROBABILITY_LOOK = 10


def warn_if_probabilities(values, *, name, expected, instead, stacklevel=3):
    """Warn that ``values`` look like probabilities where ``expected`` are due.

    Ten values or more, every one in ``[0, 1]``, and not all equal (the
    LLRs of an uninformative system are all 0): so many LLRs or log-odds
    hardly ever stay within one nat, and the mistake (``cllr(y, p)``)
    otherwise gives a plausible, wrong number. ``instead`` says what to
    pass.
    """
    v = np.asarray(values)
    if v.size < _MIN_PROBABILITY_LOOK:
        return
    lo, hi = v.min(), v.max()
    if 0.0 <= lo < hi <= 1.0:
        warnings.warn(
            f"Every value of `{name}` lies in [0, 1]: probabilities where "
            f"{expected} are expected? They are read as {expected}; "
            f"pass {instead}.",
            UserWarning,
            stacklevel=stacklevel,
        )
