"""DET plot: miss against false-alarm probability on probit axes."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from ...utils._response import decision_function_is_llr, resolve_response_method
from ._base import _DisplayMixin

__all__ = ["DETDisplay"]

_TICKS = np.array(
    [1e-5, 1e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9]
)
# The ticks kept first when the probit axis is too short for all of them:
# the decades, then the middle, then the 2s and 5s.
_TICK_PRIORITY = [
    0.01,
    0.1,
    0.001,
    1e-4,
    1e-5,
    0.4,
    0.6,
    0.2,
    0.8,
    0.05,
    0.9,
    0.02,
    5e-3,
    2e-3,
]
_MIN_TICK_GAP = 1 / 14  # of the axis span: labels such as "0.5" and "1" apart
_MIN_TICK_GAP_INCHES = 0.32  # and never closer than this on the page
_FIGURE_GID = "skcalib-det-figure"  # a figure the display made for itself
_TOP = 0.95
_GID = "skcalib-det-axes"


def _tick_label(p: float) -> str:
    pct = 100 * p
    return f"{pct:g}"


def _ticks(low: float, length: float = 4.0) -> np.ndarray:
    """Rates to label on an axis from ``low * 0.8`` to ``_TOP``, ``length``
    inches long: as many of ``_TICKS`` as fit with their labels apart, in
    ``_TICK_PRIORITY``."""
    span = float(norm.ppf(_TOP) - norm.ppf(low * 0.8))
    gap = max(_MIN_TICK_GAP, _MIN_TICK_GAP_INCHES / max(length, 1e-3))
    kept: list[float] = []
    for t in _TICK_PRIORITY:
        if t < low * 0.999:
            continue
        z = norm.ppf(t)
        if all(abs(z - norm.ppf(k)) >= gap * span for k in kept):
            kept.append(t)
    return np.sort(np.array(kept))


def _densify(pfa, pmiss, per_segment=16):
    """Points along each straight hull segment (straight in linear rates only)."""
    if pfa.shape[0] < 2:
        return pfa, pmiss
    t = np.linspace(0.0, 1.0, per_segment, endpoint=False)
    x = pfa[:-1, None] + (pfa[1:] - pfa[:-1])[:, None] * t
    y = pmiss[:-1, None] + (pmiss[1:] - pmiss[:-1])[:, None] * t
    return np.r_[x.ravel(), pfa[-1]], np.r_[y.ravel(), pmiss[-1]]


class DETDisplay(_DisplayMixin):
    """DET plot: miss vs false-alarm probability on normal-deviate axes.

    The detection error trade-off plot of speaker recognition: both error
    rates on probit (normal quantile) scales, so that Gaussian score
    distributions give straight lines. The display draws the steppy
    empirical curve (every threshold on the scores, from
    :func:`sklearn.metrics.det_curve`), the curve of the ROC convex hull
    (the operating points reachable by thresholds and by mixing two
    neighbouring thresholds; its straight segments in linear rates become
    curves here), and markers: the equal error rate on the hull, the
    minimum-DCF operating point at each requested ``p_target`` and, when the
    scores are LLRs, the operating point of their own Bayes decisions (the
    actual DCF).

    Several systems share one axes: pass ``ax=display.ax_`` to the next call.

    {recommended}

    Parameters
    ----------
    fpr : ndarray of shape (n_thresholds,)
        False-alarm rate at each threshold (``sklearn.metrics.det_curve``).
    fnr : ndarray of shape (n_thresholds,)
        Miss rate at each threshold.
    hull_pfa : ndarray of shape (n_vertices,)
        False-alarm rates of the ROC convex hull vertices.
    hull_pmiss : ndarray of shape (n_vertices,)
        Miss rates of the hull vertices.
    eer : float, default=None
        ROCCH-EER, marked at ``(eer, eer)``.
    min_dcf_points : list of tuple, default=None
        ``(p_target, pfa, pmiss, min_dcf)`` of each requested application.
    actual_dcf_points : list of tuple, default=None
        ``(p_target, pfa, pmiss, actual_dcf)`` of the LLRs' own decisions.
    name : str, default=None
        Name of the system, used in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The steppy empirical curve.
    hull_line_ : matplotlib Line2D or None
        The ROC convex hull curve, if drawn.
    markers_ : list of matplotlib Line2D
        The EER, minimum-DCF and actual-DCF markers.
    {axes_attributes}

    See Also
    --------
    sklearn.metrics.DetCurveDisplay : The steppy curve alone.
    ROCConvexHullDisplay : The same hull in ROC space.
    skcalib.metrics.eer, skcalib.metrics.min_dcf : The marked values.

    Notes
    -----
    A point :math:`(P_{fa}, P_{miss})` is drawn at
    :math:`(\\Phi^{-1}(P_{fa}), \\Phi^{-1}(P_{miss}))`, :math:`\\Phi` the
    standard normal distribution function; the axes are labelled in
    percent. The minimum-DCF point at :math:`\\pi` is the hull vertex that
    minimizes :math:`\\pi C_{miss} P_{miss} + (1-\\pi) C_{fa} P_{fa}`.

    References
    ----------
    .. [1] A. Martin, G. Doddington, T. Kamm, M. Ordowski and M. Przybocki,
       "The DET curve in assessment of detection task performance",
       Eurospeech 1997.
    .. [2] N. Brümmer and E. de Villiers, "The BOSARIS toolkit: theory,
       algorithms and code for surviving the new DCF", arXiv:1304.2865, 2013.

    {examples_agg}
    >>> from skcalib.datasets import make_gaussian_scores
    >>> from skcalib.metrics import DETDisplay
    >>> scores, y, llr = make_gaussian_scores(1000, random_state=0)
    >>> disp = DETDisplay.from_predictions(
    ...     y, llr, llr=True, p_target=[0.01, 0.5], name="true LLR")
    >>> round(disp.eer, 3)
    0.151
    >>> [round(p[3], 3) for p in disp.min_dcf_points]
    [0.776, 0.3]
    >>> [round(p[3], 3) for p in disp.actual_dcf_points]
    [0.902, 0.308]
    """

    def __init__(
        self,
        *,
        fpr,
        fnr,
        hull_pfa,
        hull_pmiss,
        eer=None,
        min_dcf_points=None,
        actual_dcf_points=None,
        name=None,
    ):
        self._store(locals())

    def plot(self, *, ax=None, name=None, plot_hull=True, hull_kwargs=None, **kwargs):
        """Plot the curves and markers.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None, with the legend
            beside the axes. On axes of yours the legend goes inside, where
            it hides no curve or marker, or, if there is no such place (many
            systems or applications), beside the axes on the right: leave
            room for it (``fig.tight_layout()``, a layout engine, or
            ``savefig(..., bbox_inches="tight")``).
        name : str, default=None
            Name of the system in the legend; defaults to ``self.name``.
        plot_hull : bool, default=True
            Whether to draw the ROC convex hull curve (same colour, dashed).
        hull_kwargs : dict, default=None
            Keyword arguments for the hull line.
        **kwargs : dict
            Keyword arguments for the steppy line (``matplotlib.pyplot.plot``).

        {plot_returns}
        """
        new_figure = ax is None
        ax, fig = self._plot_axes(ax, figsize=(9.0, 5.0))
        if new_figure:
            # square axes on the left, the legend beside them (a layout engine
            # cannot be used: it ignores the legend of fixed-aspect axes)
            ax.set_position([0.08, 0.11, 0.45, 0.81])
            fig.set_gid(_FIGURE_GID)
        prefix = self._legend_prefix(name)
        with np.errstate(divide="ignore"):
            x, y = norm.ppf(self.fpr), norm.ppf(self.fnr)
        line_kwargs = self._line_kwargs(
            {"label": f"{prefix}thresholds", "drawstyle": "default"}, kwargs
        )
        (self.line_,) = ax.plot(x, y, **line_kwargs)
        color = self.line_.get_color()

        self.hull_line_ = None
        if plot_hull:
            hx, hy = _densify(
                np.asarray(self.hull_pfa, float), np.asarray(self.hull_pmiss, float)
            )
            h_kwargs = self._line_kwargs(
                {
                    "label": f"{prefix}ROC convex hull",
                    "linestyle": "--",
                    "color": color,
                    "linewidth": 1.0,
                },
                hull_kwargs,
            )
            with np.errstate(divide="ignore"):
                (self.hull_line_,) = ax.plot(norm.ppf(hx), norm.ppf(hy), **h_kwargs)

        low = self._low(ax)
        # A rate of 0 lies at minus infinity on a probit axis (and a rate below
        # the axis range beyond its edge): such a marker is drawn on the edge
        # with an arrow pointing off the scale, and its legend entry says so.
        lo, hi = low * 0.8, _TOP

        def probit(p):
            return float(norm.ppf(min(max(p, lo), hi)))

        def off_scale(pfa, pmiss):
            notes = [
                f"{what} = {'0' if p == 0 else f'{p:.1e}'}"
                for what, p in (("P_fa", pfa), ("P_miss", pmiss))
                if p < lo
            ]
            return f" [{', '.join(notes)}]" if notes else ""

        def arrow(px, py, pfa, pmiss):
            dx = -1 if pfa < lo else 0
            dy = -1 if pmiss < lo else 0
            if dx or dy:
                ax.annotate(
                    "",
                    xy=(px, py),
                    xytext=(-18 * dx, -18 * dy),
                    textcoords="offset points",
                    annotation_clip=False,
                    arrowprops={"arrowstyle": "->", "color": color, "lw": 1.2},
                )

        self.markers_ = []
        # hollow markers, larger for each further p_target: markers at the
        # same operating point (two applications sharing a hull vertex, an
        # actual-DCF point on its minimum) stay visible inside each other
        marker_style = {
            "color": color,
            "linestyle": "none",
            "markerfacecolor": "none",
            "markeredgewidth": 1.5,
            "clip_on": False,
        }
        if self.eer is not None:
            z = probit(self.eer)
            (m,) = ax.plot(
                [z],
                [z],
                marker="o",
                markersize=7,
                label=f"{prefix}EER {self.eer:.2%}" + off_scale(self.eer, self.eer),
                **marker_style,
            )
            arrow(z, z, self.eer, self.eer)
            self.markers_.append(m)
        for points, marker, what in (
            (self.min_dcf_points, "s", "min DCF"),
            (self.actual_dcf_points, "X", "actual DCF"),
        ):
            for j, (p_target, pfa, pmiss, value) in enumerate(points or ()):
                px, py = probit(pfa), probit(pmiss)
                (m,) = ax.plot(
                    [px],
                    [py],
                    marker=marker,
                    markersize=7 + 4 * j,
                    label=f"{prefix}{what} {value:.3f} (p_target={p_target:g})"
                    + off_scale(pfa, pmiss),
                    **marker_style,
                )
                arrow(px, py, pfa, pmiss)
                self.markers_.append(m)

        self._set_axes(ax, low)
        return self._plotted(ax, fig)

    def _low(self, ax):
        """Lowest rate shown: the smallest non-zero rate of the curve or of a
        marker, within 1e-5..1 %."""
        marked = [self.eer] if self.eer is not None else []
        for points in (self.min_dcf_points, self.actual_dcf_points):
            marked += [r for point in points or () for r in point[1:3]]
        rates = np.concatenate(
            [np.ravel(self.fpr), np.ravel(self.fnr), np.asarray(marked, float)]
        )
        positive = rates[rates > 0]
        low = float(positive.min()) if positive.size else 1e-3
        low = float(np.clip(low, _TICKS[0], 0.01))
        if ax.get_gid() == _GID:  # another system is drawn: keep the wider range
            low = min(low, float(norm.cdf(ax.get_xlim()[0])) / 0.8)
        return low

    def _set_axes(self, ax, low):
        """Probit axes labelled in percent, wide enough for every system."""
        # the side of the square axes, in inches, before any layout engine
        box = ax.get_position()
        fig = ax.figure
        length = min(box.width * fig.get_figwidth(), box.height * fig.get_figheight())
        ticks = _ticks(low, length)
        lim = (float(norm.ppf(low * 0.8)), float(norm.ppf(_TOP)))
        for axis, set_lim in ((ax.xaxis, ax.set_xlim), (ax.yaxis, ax.set_ylim)):
            axis.set_ticks(norm.ppf(ticks))
            axis.set_ticklabels([_tick_label(t) for t in ticks])
            set_lim(*lim)
        ax.set_gid(_GID)
        ax.set_xlabel("False-alarm probability (%)")
        ax.set_ylabel("Miss probability (%)")
        if not ax.get_title():
            ax.set_title("DET curve")
        ax.grid(True, linewidth=0.5, alpha=0.5)
        ax.set_aspect("equal", adjustable="box")
        beside = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0)}
        if fig.get_gid() == _FIGURE_GID:  # room was left beside the axes
            ax.legend(fontsize="small", **beside)
        elif _hides_a_curve(ax, ax.legend(fontsize="small", loc="best")):
            # someone else's layout: inside where it hides nothing, else
            # beside the axes (for their layout engine or bbox_inches="tight"
            # to make room) rather than over the curves
            ax.legend(fontsize="small", **beside)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        llr=False,
        p_target=0.01,
        c_miss=1.0,
        c_fa=1.0,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the DET curve of given scores.

        Parameters
        ----------
        {y_true}
        y_score : array-like of shape (n_samples,)
            Scores, higher favouring the target class; +/-inf allowed.
        llr : bool, default=False
            Whether ``y_score`` are natural-log LLRs; then the operating point
            of their Bayes decisions at each ``p_target`` (the actual DCF) is
            marked too.
        p_target : float in (0, 1), Application, a sequence of them or \
None, default=0.01
            Target prior(s) of the applications whose minimum-DCF (and, with
            ``llr``, actual-DCF) operating points are marked, or the
            applications themselves; ``None`` marks none. Validated as
            :func:`~skcalib.metrics.min_dcf` does.
        c_miss, c_fa : float > 0, default=1.0
            Costs of a miss and of a false alarm, for float ``p_target``.
        {weight_label}
        {name_ax_kwargs}

        {returns}
        """
        apps = _applications(p_target, c_miss, c_fa, "DETDisplay.from_predictions")
        trials = cls._validated_trials(y_true, y_score, sample_weight, pos_label)
        return cls._from_applications(trials, apps, llr=llr, name=name, ax=ax, **kwargs)

    @classmethod
    def from_trials(
        cls,
        trials,
        *,
        llr=False,
        p_target=0.01,
        c_miss=1.0,
        c_fa=1.0,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the DET curve of scored trials evaluated once.

        The same plot as :meth:`from_predictions`, from the hull and block
        summary that ``trials`` already hold: nothing is validated or sorted
        again.

        Parameters
        ----------
        trials : ScoredTrials
            The scored trials.
        llr : bool, default=False
            Whether the scores are natural-log LLRs; then the actual-DCF
            operating points are marked too.
        p_target : float in (0, 1), Application, a sequence of them or \
None, default=0.01
            Target prior(s) of the applications whose operating points are
            marked, or the applications themselves; ``None`` marks none.
        c_miss, c_fa : float > 0, default=1.0
            Costs of a miss and of a false alarm, for float ``p_target``.
        {name_ax_kwargs}

        {returns}
        """
        apps = _applications(p_target, c_miss, c_fa, "DETDisplay.from_trials")
        return cls._from_applications(trials, apps, llr=llr, name=name, ax=ax, **kwargs)

    @classmethod
    def _from_applications(cls, trials, apps, *, llr, name, ax, **kwargs):
        fpr, fnr = trials.det_curve()
        # one kernel run: the hull gives the EER and every minimum DCF
        pmiss, pfa = trials.rocch()
        min_points, actual_points = [], []
        for app in apps:
            p = app.p_target
            value, miss, fa = trials.min_dcf(app, return_rates=True)
            min_points.append((p, fa, miss, value))
            if llr:
                value, miss, fa = trials.actual_dcf(app, return_rates=True)
                actual_points.append((p, fa, miss, value))
        disp = cls(
            fpr=fpr,
            fnr=fnr,
            hull_pfa=pfa,
            hull_pmiss=pmiss,
            eer=trials.eer(),
            min_dcf_points=min_points,
            actual_dcf_points=actual_points if llr else None,
            name=name,
        )
        return disp.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        response_method="auto",
        llr="auto",
        p_target=0.01,
        c_miss=1.0,
        c_fa=1.0,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the DET curve of a fitted classifier or calibrator.

        Parameters
        ----------
        estimator : estimator instance
            Fitted binary classifier or calibrator.
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            Input of the estimator.
        y : array-like of shape (n_samples,)
            True binary labels.
        response_method : {'auto', 'decision_function', 'predict_proba'}, \
default='auto'
            Which output gives the scores (``'auto'``: ``decision_function``
            if it exists, else ``predict_proba``).
        llr : bool or 'auto', default='auto'
            Whether the scores are natural-log LLRs; then the actual-DCF
            operating points are marked too. ``'auto'``: True when the scores
            come from the ``decision_function`` of a skcalib calibrator, of
            ``CalibratedClassifier`` or of a ``Pipeline`` ending in one (their
            decision function is the calibrated LLR), else False.
        p_target, c_miss, c_fa, sample_weight, pos_label
            As in :meth:`from_predictions`.
        {estimator_tail}

        {returns}
        """
        response_method = resolve_response_method(estimator, response_method)
        if isinstance(llr, str) and llr == "auto":
            llr = response_method == "decision_function" and decision_function_is_llr(
                estimator
            )
        return cls._plot_estimator(locals())


def _applications(p_target, c_miss, c_fa, caller):
    """The applications of ``p_target`` (as :func:`~skcalib.metrics.min_dcf`
    reads it, or None: none, the costs checked alone)."""
    from .._application import as_applications

    if p_target is None:
        as_applications(0.5, c_miss, c_fa, caller=caller)
        return []
    return as_applications(p_target, c_miss, c_fa, caller=caller)[0]


def _hides_a_curve(ax, legend) -> bool:
    """Whether ``legend`` covers a point or crosses a line drawn on ``ax``.

    Measured as the figure stands (``loc='best'`` is placed now for the
    measure, and again when the figure is drawn); False if the figure's
    canvas has no renderer at hand to measure text with.
    """
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)
    if get_renderer is None:
        return False
    renderer = get_renderer()
    ax.apply_aspect()  # the square box the drawing will have
    box = legend.get_window_extent(renderer)
    for line in ax.get_lines():
        path = line.get_transform().transform_path(line.get_path())
        if box.count_contains(path.vertices) or path.intersects_bbox(box, filled=False):
            return True
    return False
