"""What every Display class repeats (no matplotlib at import time).

The idea of scikit-learn's ``_BinaryClassifierCurveDisplayMixin``: the
plumbing of ``from_estimator`` (the estimator's scores and its legend name),
of ``from_predictions`` (the trials validated once) and of ``plot`` (the
axes and figure, the legend prefix, line keyword arguments over their
defaults, the fitted ``ax_`` and ``figure_``) lives in one base class, and
each display keeps only what it draws.
"""

from __future__ import annotations

from ...utils._response import estimator_scores


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


class _DisplayMixin:
    """Shared plumbing of the Display classes.

    A display's ``plot`` starts with :meth:`_plot_axes` (and
    :meth:`_legend_prefix` for a display of one named system), builds each
    line's keyword arguments with :meth:`_line_kwargs` and ends with
    :meth:`_plotted`; its ``from_estimator`` gets the scores and the default
    name from :meth:`_estimator_response`, and its ``from_predictions`` the
    validated trials from :meth:`_validated_trials`.
    """

    def _plot_axes(self, ax, **subplots_kwargs):
        """``(ax, figure)`` to draw on: ``ax``, or a new figure if None."""
        return _get_ax(ax, f"{type(self).__name__}.plot", **subplots_kwargs)

    def _legend_prefix(self, name):
        """``'name: '`` before each legend entry (``self.name`` if ``name`` is
        None), or nothing for an unnamed system."""
        name = self.name if name is None else name
        return f"{name}: " if name else ""

    @staticmethod
    def _line_kwargs(defaults, kwargs):
        """The display's ``defaults`` overridden by the caller's ``kwargs``
        (None for none)."""
        merged = dict(defaults)
        merged.update(kwargs or {})
        return merged

    def _plotted(self, ax, fig):
        """Store the axes and figure drawn on; return the display."""
        self.ax_ = ax
        self.figure_ = fig
        return self

    @staticmethod
    def _estimator_response(estimator, X, *, response_method, pos_label, name=None):
        """``(scores, name)``: the fitted ``estimator``'s scores on ``X`` (higher
        favouring ``pos_label``) and the legend name, by default the
        estimator's class name."""
        scores = estimator_scores(
            estimator, X, response_method=response_method, pos_label=pos_label
        )
        return scores, type(estimator).__name__ if name is None else name

    @staticmethod
    def _validated_trials(y_true, y_score, sample_weight, pos_label, **kwargs):
        """The trials of ``from_predictions``, validated once (a
        ``ScoredTrials``; ``kwargs``: ``score_name`` for the data errors)."""
        from .._trials import ScoredTrials

        return ScoredTrials._from_metric_inputs(
            y_true, y_score, sample_weight, pos_label, **kwargs
        )
