"""Reliability diagram with per-bin Clopper-Pearson intervals and a histogram."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import expit, logit

from ...utils._response import class_response, estimator_scores
from ...utils._sklearn_compat import Interval, validate_parameter_constraints
from ...utils._validation import plain_value
from .._reliability import _PARAMS, _checked_curves, _Curves, _reliability_bins
from ._base import _check_matplotlib, _DisplayMixin

__all__ = ["ReliabilityDisplay"]

_REF_LABEL = "perfectly calibrated"
#: The arrays of :func:`reliability_curve` that the display keeps.
_BIN_ARRAYS = ("curve", "mean_predicted", "frequency", "lower", "upper", "count")


def _histograms(curves: _Curves, edges):
    """Share of the (weighted) samples of each curve in each histogram bin."""
    w = curves.sample_weight
    total = float(curves.prob.shape[0]) if w is None else float(w.sum())
    return np.array(
        [np.histogram(p, bins=edges, weights=w)[0] / total for _, p in curves.each()]
    )


def _validated_params(caller, **params):
    constraints = {name: _PARAMS[name] for name in params if name in _PARAMS}
    if "p_target" in params:
        constraints["p_target"] = [Interval(Real, 0, 1, closed="neither"), None]
    validate_parameter_constraints(constraints, params, caller_name=caller)


class ReliabilityDisplay(_DisplayMixin):
    """Reliability diagram with Clopper-Pearson intervals and a histogram.

    For each bin of predicted probabilities, the observed frequency of the
    outcome against the mean prediction, with the Clopper-Pearson confidence
    interval of the frequency as an error bar, over the diagonal of perfect
    calibration; below it, the histogram of the predicted probabilities (the
    share of the samples in each of ``n_bins`` bins of equal width), which
    shows where the diagram rests on few samples. Binary (positive-class
    probabilities, or LLRs at a prior with :meth:`from_trials`), top-label
    (confidence against accuracy) and classwise (one curve per class)
    diagrams; the numbers are those of :func:`reliability_curve`.

    scikit-learn's :class:`~sklearn.calibration.CalibrationDisplay` draws the
    same points (with the same bins) without the intervals: a point far
    from the diagonal may be noise when its bin holds few samples, and a
    point on it may hide a wide interval.

    Several systems share one diagram: pass ``ax=display.ax_`` and
    ``hist_ax=display.hist_ax_`` to the next call.

    It is recommended to create a display with :meth:`from_estimator`,
    :meth:`from_predictions` or :meth:`from_trials`; the constructor only
    stores computed arrays.

    Parameters
    ----------
    curve : ndarray of shape (n_rows,)
        The curve of each non-empty bin (0, or the class's column for a
        classwise diagram), as returned by :func:`reliability_curve`.
    mean_predicted : ndarray of shape (n_rows,)
        Mean predicted probability of each bin.
    frequency : ndarray of shape (n_rows,)
        Observed frequency of the outcome in each bin.
    lower, upper : ndarray of shape (n_rows,)
        The confidence interval of each frequency.
    count : ndarray of shape (n_rows,)
        Number of samples in each bin.
    hist_edges : ndarray of shape (n_hist + 1,)
        Edges of the histogram's bins, on [0, 1].
    hist_share : ndarray of shape (n_curves, n_hist)
        Share of the (weighted) samples of each curve in each histogram bin.
    kind : {'binary', 'top-label', 'classwise'}, default='binary'
        What the curves are: positive-class probabilities, top-label
        confidences, or one curve per class.
    curve_names : list of str, default=None
        The class of each curve of a classwise diagram, for the legend.
    confidence_level : float, default=0.95
        The level of the intervals (for the legend).
    pos_label : int, float, bool or str, default=None
        The positive class of a binary diagram (for the axis labels).
    p_target : float, default=None
        The prior at which LLRs were turned into probabilities
        (:meth:`from_trials`; for the axis labels).
    name : str, default=None
        Name of the system, used in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The first curve (its points and line).
    lines_ : list of matplotlib ErrorbarContainer
        Each curve with its error bars.
    hist_ : list of matplotlib StepPatch
        The histogram of each curve (empty without a histogram axes).
    ax_ : matplotlib Axes
        Axes with the reliability diagram.
    hist_ax_ : matplotlib Axes or None
        Axes with the histogram.
    figure_ : matplotlib Figure
        Figure containing the plot.

    See Also
    --------
    reliability_curve : The numbers of the diagram, without matplotlib.
    expected_calibration_error : The weighted mean gap of the same bins.
    sklearn.calibration.CalibrationDisplay : The diagram without intervals.

    Notes
    -----
    The interval of a bin of :math:`n` samples, :math:`k` of them with the
    outcome, is
    :math:`[B^{-1}(\\alpha/2; k, n-k+1),\\, B^{-1}(1-\\alpha/2; k+1, n-k)]`
    (Clopper and Pearson), 0 and 1 at its ends for :math:`k = 0` and
    :math:`k = n`; with sample weights, :math:`n` is the bin's effective
    number of samples (see :func:`reliability_curve`).

    References
    ----------
    .. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26, 1934.
    .. [2] A. Niculescu-Mizil and R. Caruana, "Predicting good probabilities
       with supervised learning", Proc. ICML, 2005 (reliability diagrams
       with histograms).

    {examples_agg}
    >>> import numpy as np
    >>> from skcalib.metrics import ReliabilityDisplay
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=1000)
    >>> y = rng.uniform(size=1000) < p          # calibrated by construction
    >>> disp = ReliabilityDisplay.from_predictions(y, p, n_bins=5, name="model")
    >>> disp.count.tolist()
    [193, 180, 208, 207, 212]
    >>> bool(np.all((disp.lower <= disp.frequency) & (disp.frequency <= disp.upper)))
    True
    """

    def __init__(
        self,
        *,
        curve,
        mean_predicted,
        frequency,
        lower,
        upper,
        count,
        hist_edges,
        hist_share,
        kind="binary",
        curve_names=None,
        confidence_level=0.95,
        pos_label=None,
        p_target=None,
        name=None,
    ):
        self._store(locals())

    def _axis_labels(self):
        if self.kind == "top-label":
            return (
                "Confidence: largest predicted probability (bin mean)",
                "Accuracy: share of correct top-label predictions",
            )
        if self.kind == "classwise":
            return (
                "Predicted probability of the class (bin mean)",
                "Observed frequency of the class",
            )
        if self.p_target is not None:
            return (
                f"Posterior probability of the target at prior {self.p_target:.3g} "
                "(bin mean)",
                "Observed frequency of targets",
            )
        outcome = (
            "the positive class"
            if self.pos_label is None
            else f"class {plain_value(self.pos_label)!r}"
        )
        return (
            f"Predicted probability of {outcome} (bin mean)",
            f"Observed frequency of {outcome}",
        )

    def plot(self, *, ax=None, hist_ax=None, name=None, ref_line=True, **kwargs):
        """Plot the diagram and, below it, the histogram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes of the diagram. If None, a new figure is created with the
            diagram above the histogram.
        hist_ax : matplotlib Axes, default=None
            Axes of the histogram. If None, the histogram is drawn only on a
            new figure (``ax=None``).
        name : str, default=None
            Name of the system in the legend; defaults to ``self.name``.
        ref_line : bool, default=True
            Whether to draw the diagonal of perfect calibration.
        **kwargs : dict
            Keyword arguments for every curve
            (``matplotlib.axes.Axes.errorbar``).

        {plot_returns}
        """
        n_curves = np.asarray(self.hist_share).shape[0]
        if ax is None:
            plt = _check_matplotlib(f"{type(self).__name__}.plot")
            # the legend goes beside the diagram, where no interval can be
            # under it: a figure wider than tall, whose layout keeps it inside
            fig, (ax, hist_ax) = plt.subplots(
                2,
                1,
                sharex=True,
                figsize=(8.8, 7.2),
                gridspec_kw={"height_ratios": [3, 1]},
                layout="constrained",
            )
        fig = ax.figure
        prefix = self._legend_prefix(name)
        curve = np.asarray(self.curve)
        if ref_line and _REF_LABEL not in ax.get_legend_handles_labels()[1]:
            # above the curves: a curve along the diagonal must not hide it
            ax.plot([0, 1], [0, 1], ":", color="grey", label=_REF_LABEL, zorder=3)
        level = f"{100 * self.confidence_level:.4g}%"
        self.lines_, self.hist_ = [], []
        for k in range(n_curves):
            rows = curve == k
            x = np.asarray(self.mean_predicted)[rows]
            f = np.asarray(self.frequency)[rows]
            err = np.vstack(
                [f - np.asarray(self.lower)[rows], np.asarray(self.upper)[rows] - f]
            )
            if self.kind == "classwise":
                label = f"{prefix}class {self.curve_names[k]}"
            else:
                label = prefix.removesuffix(": ") or "observed frequency"
            line_kwargs = self._line_kwargs(
                {
                    "fmt": "o-",
                    "markersize": 4,
                    "capsize": 3,
                    "linewidth": 1.2,
                    "elinewidth": 1.0,
                    "label": label,
                },
                kwargs,
            )
            container = ax.errorbar(x, f, yerr=err, **line_kwargs)
            self.lines_.append(container)
            if hist_ax is not None:
                self.hist_.append(
                    hist_ax.stairs(
                        np.asarray(self.hist_share)[k],
                        self.hist_edges,
                        color=container.lines[0].get_color(),
                        linewidth=1.5,
                    )
                )
        self.line_ = self.lines_[0].lines[0] if self.lines_ else None
        xlabel, ylabel = self._axis_labels()
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(ylabel)
        if not ax.get_title():
            ax.set_title(f"Reliability diagram ({level} Clopper-Pearson intervals)")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        if hist_ax is not None:
            hist_ax.set_xlim(-0.02, 1.02)
            hist_ax.set_xlabel(xlabel)
            # log scale: bins of a few samples, where the diagram is least
            # certain, stay visible beside bins of most of them
            hist_ax.set_yscale("log")
            hist_ax.yaxis.set_minor_formatter("")  # powers of ten only
            hist_ax.set_ylabel("Share of samples (log)")
        if hist_ax is not None and ax.get_shared_x_axes().joined(ax, hist_ax):
            ax.tick_params(labelbottom=False)  # the histogram below has them
        else:
            ax.set_xlabel(xlabel)
        self.hist_ax_ = hist_ax
        return self._plotted(ax, fig)

    @classmethod
    def _from_curves(
        cls,
        curves,
        *,
        n_bins,
        strategy,
        confidence_level,
        curve_names=None,
        pos_label=None,
        p_target=None,
        name=None,
        ax=None,
        hist_ax=None,
        **kwargs,
    ):
        bins = _reliability_bins(curves, n_bins, strategy, confidence_level)
        edges = np.linspace(0.0, 1.0, min(n_bins, 100) + 1)
        disp = cls(
            **{key: bins[key] for key in _BIN_ARRAYS},
            hist_edges=edges,
            hist_share=_histograms(curves, edges),
            kind=curves.kind,
            curve_names=curve_names,
            confidence_level=confidence_level,
            pos_label=pos_label,
            p_target=p_target,
            name=name,
        )
        return disp.plot(ax=ax, hist_ax=hist_ax, **kwargs)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_prob,
        *,
        n_bins=10,
        strategy="uniform",
        multi_class="top-label",
        confidence_level=0.95,
        labels=None,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        hist_ax=None,
        **kwargs,
    ):
        """Plot the reliability diagram of given probabilities.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels: binary for 1-D ``y_prob``; for 2-D ``y_prob``,
            column indices or labels listed in ``labels``.
        y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
            Positive-class probabilities (1-D) or posteriors (2-D).
        n_bins : int >= 1, default=10
            Number of bins; the histogram has as many bins of equal width
            (at most 100).
        strategy : {'uniform', 'quantile'}, default='uniform'
            Bins of equal width, or of about equally many samples.
        multi_class : {'top-label', 'classwise'}, default='top-label'
            The curves of 2-D ``y_prob``.
        confidence_level : float in (0, 1), default=0.95
            Level of the Clopper-Pearson intervals.
        labels : array-like of shape (n_classes,), default=None
            The class labels of the columns of 2-D ``y_prob``.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights (see :func:`reliability_curve` for the intervals).
        pos_label : int, float, bool or str, default=None
            The positive label of 1-D ``y_prob``.
        name : str, default=None
            Name of the system in the legend.
        ax, hist_ax : matplotlib Axes, default=None
            Axes of the diagram and of the histogram (see :meth:`plot`).
        **kwargs : dict
            Passed to :meth:`plot`.

        {returns}
        """
        _validated_params(
            "ReliabilityDisplay.from_predictions",
            y_true=y_true,
            y_prob=y_prob,
            n_bins=n_bins,
            strategy=strategy,
            multi_class=multi_class,
            confidence_level=confidence_level,
            labels=labels,
            sample_weight=sample_weight,
            pos_label=pos_label,
        )
        curves = _checked_curves(
            y_true, y_prob, multi_class, labels, sample_weight, pos_label
        )
        names = None
        if curves.kind == "classwise":
            classes = range(curves.n_curves) if labels is None else np.asarray(labels)
            names = [str(plain_value(c)) for c in classes]
        return cls._from_curves(
            curves,
            n_bins=n_bins,
            strategy=strategy,
            confidence_level=confidence_level,
            curve_names=names,
            pos_label=pos_label,
            name=name,
            ax=ax,
            hist_ax=hist_ax,
            **kwargs,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        n_bins=10,
        strategy="uniform",
        multi_class="top-label",
        confidence_level=0.95,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        hist_ax=None,
        **kwargs,
    ):
        """Plot the reliability diagram of a fitted classifier's probabilities.

        The probabilities are ``estimator.predict_proba(X)``: the column of
        ``pos_label`` (by default ``classes_[1]``) for a binary classifier,
        every column (top-label or classwise) otherwise.

        Parameters
        ----------
        estimator : estimator instance
            Fitted classifier with ``predict_proba`` and ``classes_``.
        X : array-like of shape (n_samples, n_features)
            Input of ``estimator.predict_proba``.
        y : array-like of shape (n_samples,)
            True labels.
        n_bins, strategy, multi_class, confidence_level, sample_weight
            As in :meth:`from_predictions`.
        pos_label : int, float, bool or str, default=None
            The positive class of a binary classifier; defaults to
            ``classes_[1]``.
        {estimator_name}
        ax, hist_ax, **kwargs
            As in :meth:`from_predictions`.

        {returns}
        """
        classes = getattr(estimator, "classes_", None)
        if classes is None:
            raise ValueError(
                f"`estimator` ({type(estimator).__name__}) has no `classes_`; "
                "a fitted classifier is required."
            )
        name = type(estimator).__name__ if name is None else name
        shared = {
            "n_bins": n_bins,
            "strategy": strategy,
            "confidence_level": confidence_level,
            "sample_weight": sample_weight,
            "name": name,
            "ax": ax,
            "hist_ax": hist_ax,
        }
        if len(classes) == 2:
            pos_label = classes[1] if pos_label is None else pos_label
            p = estimator_scores(
                estimator, X, response_method="predict_proba", pos_label=pos_label
            )
            return cls.from_predictions(y, p, pos_label=pos_label, **shared, **kwargs)
        q = class_response(estimator, X, "predict_proba", classes)
        return cls.from_predictions(
            y, q, multi_class=multi_class, labels=classes, **shared, **kwargs
        )

    @classmethod
    def from_trials(
        cls,
        trials,
        *,
        p_target=None,
        n_bins=10,
        strategy="uniform",
        confidence_level=0.95,
        name=None,
        ax=None,
        hist_ax=None,
        **kwargs,
    ):
        """Plot the reliability diagram of scored trials' LLRs at a prior.

        Each natural-log LLR :math:`\\ell` becomes the posterior probability
        of the target :math:`\\sigma(\\ell + \\mathrm{logit}(p_{target}))`,
        and the diagram compares it with the frequency of targets. Calibrated
        LLRs give calibrated posteriors at the prior that is the trials'
        (weighted) proportion of targets, the default; at another prior the
        diagram of calibrated LLRs is off the diagonal unless the trials are
        weighted to that proportion.

        Parameters
        ----------
        trials : ScoredTrials
            The scored trials; their scores are read as natural-log LLRs
            (+/-inf give the probabilities 1 and 0).
        p_target : float in (0, 1), default=None
            Prior probability of the target; None for the trials' (weighted)
            proportion of targets.
        n_bins, strategy, confidence_level
            As in :meth:`from_predictions`.
        name : str, default=None
            Name of the system in the legend.
        ax, hist_ax, **kwargs
            As in :meth:`from_predictions`.

        {returns}
        """
        _validated_params(
            "ReliabilityDisplay.from_trials",
            n_bins=n_bins,
            strategy=strategy,
            confidence_level=confidence_level,
            p_target=p_target,
        )
        is_target, llr, w = trials.as_arrays()
        if p_target is None:
            n_tar = is_target.sum() if w is None else w[is_target].sum()
            p_target = n_tar / (is_target.shape[0] if w is None else w.sum())
        p = expit(llr + logit(p_target))
        return cls._from_curves(
            _Curves("binary", is_target, p, w),
            n_bins=n_bins,
            strategy=strategy,
            confidence_level=confidence_level,
            p_target=float(p_target),
            name=name,
            ax=ax,
            hist_ax=hist_ax,
            **kwargs,
        )
