"""Helpers shared by the Display classes (no matplotlib at import time)."""

from __future__ import annotations

# the Display modules' road to an estimator's scores (one helper for the
# displays, the scorers and the score transformer)
from ...utils._response import (  # noqa: F401
    decision_function_is_llr as _decision_function_is_llr,
)
from ...utils._response import (  # noqa: F401
    estimator_scores as _estimator_scores,
)
from ...utils._response import (  # noqa: F401
    resolve_response_method as _resolve_response_method,
)


def _check_matplotlib(caller: str):
    """Import and return ``matplotlib.pyplot``, or explain how to get it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is installed in CI
        raise ImportError(
            f"{caller} requires matplotlib. Install it with "
            "`pip install matplotlib` (or install skcalib with its `plot` "
            'extra: `pip install ".[plot]"` from its checkout).'
        ) from exc
    return plt


def _get_ax(ax, caller: str, **subplots_kwargs):
    """Return ``(ax, figure)``, creating a new figure when ``ax`` is None.

    ``subplots_kwargs`` (``figsize``, ``layout``) shape that new figure only:
    a display whose legend sits beside the axes asks for a wider figure and
    a layout engine that keeps the legend inside it.
    """
    plt = _check_matplotlib(caller)
    if ax is None:
        _, ax = plt.subplots(**subplots_kwargs)
    return ax, ax.figure
