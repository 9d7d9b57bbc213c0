"""Helpers shared by the Display classes (no matplotlib at import time)."""

from __future__ import annotations

import numpy as np


def _check_matplotlib(caller: str):
    """Import and return ``matplotlib.pyplot``, or explain how to get it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is installed in CI
        raise ImportError(
            f"{caller} requires matplotlib. Install it with "
            "`pip install matplotlib` or `pip install skcalib[plot]`."
        ) from exc
    return plt


def _get_ax(ax, caller: str):
    """Return ``(ax, figure)``, creating a new figure when ``ax`` is None."""
    plt = _check_matplotlib(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax, ax.figure


def _estimator_scores(estimator, X, *, response_method, pos_label=None):
    """Scores of a fitted binary estimator, higher favouring the target.

    ``response_method`` is ``"decision_function"``, ``"predict_proba"`` or
    ``"auto"`` (the first of the two that the estimator has). With
    ``predict_proba`` the target column's probability is returned. The target
    is ``pos_label`` if given, else ``classes_[1]``; a ``pos_label`` equal to
    ``classes_[0]`` flips the decision function's sign.
    """
    if response_method == "auto":
        methods = ["decision_function", "predict_proba"]
    elif response_method in ("decision_function", "predict_proba"):
        methods = [response_method]
    else:
        raise ValueError(
            "`response_method` must be 'auto', 'decision_function' or "
            f"'predict_proba'; got {response_method!r}."
        )
    method = next((m for m in methods if hasattr(estimator, m)), None)
    if method is None:
        raise ValueError(
            f"{type(estimator).__name__} has none of the response methods "
            f"{methods}; a fitted binary classifier or calibrator is needed."
        )
    classes = getattr(estimator, "classes_", None)
    flip = False
    if pos_label is not None and classes is not None and len(classes) == 2:
        if pos_label not in list(classes):
            raise ValueError(
                f"`pos_label`={pos_label!r} is not a valid label: it must be one "
                f"of {list(classes)}."
            )
        flip = pos_label == classes[0]
    out = np.asarray(getattr(estimator, method)(X))
    if method == "predict_proba":
        if out.ndim != 2 or out.shape[1] != 2:
            raise ValueError(
                "`predict_proba` must return shape (n_samples, 2) for a binary "
                f"problem; got {out.shape}."
            )
        return out[:, 0 if flip else 1]
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1:
        raise ValueError(
            f"`decision_function` must return shape (n_samples,); got {out.shape}."
        )
    return -out if flip else out


def _metric_kwargs(sample_weight, pos_label) -> dict:
    """Pass optional arguments only when set (keeps calls minimal)."""
    kwargs = {}
    if sample_weight is not None:
        kwargs["sample_weight"] = sample_weight
    if pos_label is not None:
        kwargs["pos_label"] = pos_label
    return kwargs
