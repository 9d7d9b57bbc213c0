"""ROC curve with its convex hull and the PAV groups (Fawcett & Niculescu-Mizil)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ._base import _DisplayMixin

__all__ = ["ROCConvexHullDisplay"]


class ROCConvexHullDisplay(_DisplayMixin):
    """ROC curve, its convex hull (ROCCH) and the PAV group of each segment.

    Every segment of the ROC convex hull covers one block of the PAV
    (isotonic) fit of the scores, and the block's PAV probability is
    ``slope * skew / (1 + slope * skew)``, with ``slope`` the segment's slope in
    ROC space and ``skew = N_tar / N_non`` (Fawcett & Niculescu-Mizil, 2007).
    The display draws the empirical ROC curve (tied scores give diagonal
    segments), the hull, and labels each hull segment with its PAV
    probability.

    {recommended}

    Parameters
    ----------
    fpr : ndarray of shape (n_roc,)
        False-positive rates of the empirical ROC curve, increasing.
    tpr : ndarray of shape (n_roc,)
        True-positive rates of the empirical ROC curve.
    hull_fpr : ndarray of shape (n_segments + 1,)
        False-positive rates of the hull vertices, from (0, 0) to (1, 1).
    hull_tpr : ndarray of shape (n_segments + 1,)
        True-positive rates of the hull vertices.
    pav_proba : ndarray of shape (n_segments,), default=None
        PAV probability of the block that each hull segment covers, in the
        order of the segments (decreasing).
    name : str, default=None
        Name of the system, used in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The empirical ROC curve (None if not drawn).
    hull_line_ : matplotlib Line2D
        The convex hull.
    annotations_ : list of matplotlib Text
        The PAV-probability labels of the hull segments.
    chance_level_ : matplotlib Line2D or None
        The chance-level diagonal, if drawn.
    {axes_attributes}

    See Also
    --------
    skcalib.metrics.rocch : Hull vertices as ``(pmiss, pfa)``.
    skcalib.PAVCalibrator : The isotonic calibrator the hull is equivalent to.
    sklearn.metrics.DetCurveDisplay : DET curve (probit-scaled error rates).

    Notes
    -----
    In ROC space ``fpr = P_fa`` and ``tpr = 1 - P_miss``. The hull vertices
    are the operating points at the PAV block boundaries.

    References
    ----------
    .. [1] T. Fawcett and A. Niculescu-Mizil, "PAV and the ROC convex hull",
       Machine Learning 68(1), 2007 (Fig. 2).

    {examples_agg}
    >>> from skcalib.metrics import ROCConvexHullDisplay
    >>> s = [.9, .8, .7, .6, .55, .5, .45, .4, .35, .3, .27, .2, .18, .1, .02]
    >>> y = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0]
    >>> disp = ROCConvexHullDisplay.from_predictions(y, s)
    >>> [str(t.get_text()) for t in disp.annotations_]
    ['1', '3/4', '2/3', '1/2', '1/3', '0']
    """

    def __init__(self, *, fpr, tpr, hull_fpr, hull_tpr, pav_proba=None, name=None):
        self._store(locals())

    def plot(
        self,
        *,
        ax=None,
        name=None,
        plot_roc=True,
        annotate="auto",
        plot_chance_level=False,
        roc_kwargs=None,
        chance_level_kwargs=None,
        **kwargs,
    ):
        """Plot the ROC curve and its convex hull.

        Parameters
        ----------
        {plot_ax_name}
        plot_roc : bool, default=True
            Whether to draw the empirical ROC curve under the hull.
        annotate : bool or 'auto', default='auto'
            Whether to label each hull segment with its PAV probability (as a
            fraction when it has a small denominator). ``'auto'`` labels only
            hulls of at most 20 segments.
        plot_chance_level : bool, default=False
            Whether to draw the chance-level diagonal.
        roc_kwargs : dict, default=None
            Keyword arguments for the ROC curve.
        chance_level_kwargs : dict, default=None
            Keyword arguments for the chance-level line.
        **kwargs : dict
            Keyword arguments for the hull line (``matplotlib.pyplot.plot``).

        {plot_returns}
        """
        ax, fig = self._plot_axes(ax)
        prefix = self._legend_prefix(name)

        hull_kwargs = self._line_kwargs(
            {
                "label": f"{prefix}ROC convex hull",
                "linestyle": "--",
                "marker": "o",
                "markersize": 3,
            },
            kwargs,
        )
        (self.hull_line_,) = ax.plot(self.hull_fpr, self.hull_tpr, **hull_kwargs)

        self.line_ = None
        if plot_roc:
            line_kwargs = self._line_kwargs(
                {
                    "label": f"{prefix}ROC",
                    "color": self.hull_line_.get_color(),
                    "alpha": 0.6,
                    "linewidth": 1.0,
                },
                roc_kwargs,
            )
            (self.line_,) = ax.plot(self.fpr, self.tpr, **line_kwargs)

        self.annotations_ = []
        n_segments = len(self.hull_fpr) - 1
        if annotate == "auto":
            annotate = self.pav_proba is not None and n_segments <= 20
        if annotate and self.pav_proba is not None:
            x = np.asarray(self.hull_fpr, dtype=float)
            y = np.asarray(self.hull_tpr, dtype=float)
            for j, p in enumerate(self.pav_proba):
                mx, my = (x[j] + x[j + 1]) / 2, (y[j] + y[j + 1]) / 2
                # Label above-left of the segment (outside the hull, away from
                # the ROC steps), except where that leaves the unit square
                # (the vertical first and horizontal last segments): there,
                # inside.
                dx, dy = x[j + 1] - x[j], y[j + 1] - y[j]
                norm = np.hypot(dx, dy) or 1.0
                nx, ny = -dy / norm, dx / norm
                if nx > 0 or (nx == 0 and ny == 0):
                    nx, ny = -nx, -ny
                if mx + 0.05 * nx < 0 or my + 0.05 * ny > 1:
                    nx, ny = -nx, -ny
                self.annotations_.append(
                    ax.annotate(
                        _format_proba(p),
                        (mx, my),
                        xytext=(9 * nx, 9 * ny),
                        textcoords="offset points",
                        ha="center",
                        va="center",
                        fontsize="small",
                        color=self.hull_line_.get_color(),
                    )
                )

        self.chance_level_ = None
        if plot_chance_level:
            cl_kwargs = self._line_kwargs(
                {"label": "chance level", "color": "black", "linestyle": ":"},
                chance_level_kwargs,
            )
            (self.chance_level_,) = ax.plot([0, 1], [0, 1], **cl_kwargs)

        ax.set_xlabel("False positive rate (P_fa)")
        ax.set_ylabel("True positive rate (1 - P_miss)")
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_aspect("equal")
        ax.legend(loc="lower right", fontsize="small")
        return self._plotted(ax, fig)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the ROC convex hull of given scores.

        Parameters
        ----------
        {y_true}
        y_score : array-like of shape (n_samples,)
            Scores (any monotone scale; higher favours the target class).
        {weight_label}
        {name_ax_kwargs}

        {returns}
        """
        return cls._plot_predictions(locals())

    @classmethod
    def from_trials(cls, trials, *, name=None, ax=None, **kwargs):
        """Plot the ROC convex hull of scored trials evaluated once.

        The plot of :meth:`from_predictions` from what ``trials`` hold: one
        sort gives the empirical ROC (the kernel's ordered points) and, by
        PAV on the same points, the hull and the PAV probabilities.

        Parameters
        ----------
        trials : ScoredTrials
            The scored trials.
        {name_ax_kwargs}

        {returns}
        """
        fpr, tpr = trials.roc_curve()
        pmiss, pfa = trials.rocch()
        disp = cls(
            fpr=fpr,
            tpr=tpr,
            hull_fpr=pfa[::-1].copy(),
            hull_tpr=1.0 - pmiss[::-1],
            pav_proba=trials.pav_proba()[::-1].copy(),
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
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the ROC convex hull of a fitted classifier's scores.

        Parameters
        ----------
        estimator : estimator instance
            Fitted binary classifier or calibrator.
        X : array-like of shape (n_samples, n_features)
            Input of the estimator.
        y : array-like of shape (n_samples,)
            True binary labels.
        response_method : {'auto', 'decision_function', 'predict_proba'}, \
                default='auto'
            Which score to use; 'auto' tries ``decision_function`` first.
        sample_weight, pos_label
            As in :meth:`from_predictions`.
        {estimator_tail}

        {returns}
        """
        return cls._plot_estimator(locals())


def _format_proba(p: float) -> str:
    """``3/4`` for probabilities that are simple fractions, else ``0.123``."""
    frac = Fraction(float(p)).limit_denominator(20)
    if abs(float(frac) - p) < 1e-9:
        return str(frac)
    return f"{p:.3f}"
