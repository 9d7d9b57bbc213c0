"""What every Display class repeats (no matplotlib at import time).

The idea of scikit-learn's ``_BinaryClassifierCurveDisplayMixin``: the
plumbing of ``from_estimator`` (the estimator's scores and its legend name),
of ``from_predictions`` (the trials validated once), of the constructor
(its arguments stored) and of ``plot`` (the axes and figure, the legend
prefix, line keyword arguments over their defaults, the fitted ``ax_`` and
``figure_``) lives in one base class, with the parameter docs the displays
share, and each display keeps only what it computes and draws.
"""

from __future__ import annotations

from ...utils._arguments import store_arguments
from ...utils._docstrings import doc_blocks, fill_members
from ...utils._response import estimator_scores
from .._params import TRIALS_DOCS

#: The parameter blocks the displays' docstrings share (see
#: :func:`~skcalib.utils._docstrings.fill_doc`); ``{returns}`` and
#: ``{plot_returns}`` name the display's class.
_DOCS = doc_blocks(
    recommended="""
        It is recommended to create a display with :meth:`from_predictions` or
        :meth:`from_estimator`; the constructor only stores computed arrays.
        """,
    examples_agg="""
        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        """,
    axes_attributes="""
        ax_ : matplotlib Axes
            Axes with the plot.
        figure_ : matplotlib Figure
            Figure containing the plot.
        """,
    plot_ax_name="""
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        name : str, default=None
            Name of the system in the legend; defaults to ``self.name``.
        """,
    weight_label="""
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        pos_label : int, float, bool or str, default=None
            The target label; may be omitted for labels in {0, 1}, {-1, 1} or
            booleans.
        """,
    name_ax_kwargs="""
        name : str, default=None
            Name of the system in the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        **kwargs : dict
            Passed to :meth:`plot`.
        """,
    trials_llr="""
        trials : ScoredTrials
            The scored trials; their scores are read as natural-log LLRs.
        """,
    estimator_llr="""
        The LLRs are ``estimator.decision_function(X)``: the calibrated LLR
        for every skcalib calibrator and ``CalibratedClassifier``.

        Parameters
        ----------
        estimator : estimator instance
            Fitted estimator whose ``decision_function`` returns LLRs.
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Input of ``estimator.decision_function``.
        y : array-like of shape (n_samples,)
            True binary labels.
        """,
    estimator_name="""
        name : str, default=None
            Legend name; defaults to the estimator's class name.
        """,
    estimator_tail="""
        name : str, default=None
            Legend name; defaults to the estimator's class name.
        ax, **kwargs
            As in :meth:`from_predictions`.
        """,
)
_DOCS["y_true"] = TRIALS_DOCS["y_true"]


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


def _arguments(local_vars) -> dict:
    """A method's arguments from its ``locals()`` taken while it holds no
    other local name: ``**kwargs`` merged in, ``cls`` left out."""
    arguments = {key: value for key, value in local_vars.items() if key != "cls"}
    arguments.update(arguments.pop("kwargs", None) or {})
    return arguments


class _DisplayMixin:
    """Shared plumbing of the Display classes.

    A display's ``__init__`` stores its arguments by :meth:`_store`; its
    ``plot`` starts with :meth:`_plot_axes` (and
    :meth:`_legend_prefix` for a display of one named system), builds each
    line's keyword arguments with :meth:`_line_kwargs` and ends with
    :meth:`_plotted`. A display of one system's scores writes its own
    ``from_trials`` only: its ``from_predictions`` hands its arguments to
    :meth:`_plot_predictions` (the trials validated once, then
    ``from_trials``) and its ``from_estimator`` to :meth:`_plot_estimator`
    (the estimator's scores and default name, then ``from_predictions``).
    Each keeps its own signature and docstring, whose ``{block}`` lines are
    filled from :data:`_DOCS` and the display's ``_doc_blocks`` when the
    class is defined.
    """

    #: A display's own blocks, for parameters its methods share.
    _doc_blocks: dict[str, str] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        blocks = {
            **_DOCS,
            **cls._doc_blocks,
            "returns": f"Returns\n-------\ndisplay : {cls.__name__}",
            "plot_returns": f"Returns\n-------\ndisplay : {cls.__name__}\n"
            "    Object that stores computed values.",
        }
        fill_members(cls, blocks)

    def _store(self, arguments):
        """The constructor's work: each argument (its ``locals()``) stored as
        the attribute of its name."""
        store_arguments(self, arguments)

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

    @classmethod
    def _plot_estimator(cls, arguments):
        """``from_estimator`` of a display of one system: ``arguments`` are its
        ``locals()``; the estimator's scores on ``X`` (its
        ``response_method``, by default ``decision_function``) go with the
        other arguments to ``from_predictions``."""
        arguments = _arguments(arguments)
        estimator, X, y = (arguments.pop(key) for key in ("estimator", "X", "y"))
        scores, arguments["name"] = cls._estimator_response(
            estimator,
            X,
            response_method=arguments.pop("response_method", "decision_function"),
            pos_label=arguments["pos_label"],
            name=arguments["name"],
        )
        return cls.from_predictions(y, scores, **arguments)

    @classmethod
    def _plot_predictions(cls, arguments, score_name="y_score"):
        """``from_predictions`` of a display of one system: ``arguments`` are
        its ``locals()``; the trials of ``y_true`` and the scores
        ``score_name``, validated once, go with the other arguments to
        ``from_trials``."""
        arguments = _arguments(arguments)
        trials = cls._validated_trials(
            *(arguments.pop(key) for key in ("y_true", score_name)),
            *(arguments.pop(key) for key in ("sample_weight", "pos_label")),
            score_name=score_name,
        )
        return cls.from_trials(trials, **arguments)

    @staticmethod
    def _validated_trials(y_true, y_score, sample_weight, pos_label, **kwargs):
        """The trials of ``from_predictions``, validated once (a
        ``ScoredTrials``; ``kwargs``: ``score_name`` for the data errors)."""
        from .._trials import ScoredTrials

        return ScoredTrials._from_metric_inputs(
            y_true, y_score, sample_weight, pos_label, **kwargs
        )
