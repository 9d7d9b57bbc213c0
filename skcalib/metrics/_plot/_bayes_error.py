"""Bayes error-rate plot: actual and minimum DCF against the prior log-odds."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ...utils._docstrings import doc_blocks
from ._base import _DisplayMixin

__all__ = ["BayesErrorDisplay"]

_REFERENCE_GID = "skcalib-bayes-error-uninformative"


def _prior_log_odds_grid(prior_log_odds=None) -> np.ndarray:
    """The grid to draw on: ``prior_log_odds`` as floats, by default 121
    points from -6 to 6."""
    if prior_log_odds is None:
        return np.linspace(-6.0, 6.0, 121)
    return np.asarray(prior_log_odds, dtype=float)


class BayesErrorDisplay(_DisplayMixin):
    """Bayes error-rate plot: actual and minimum DCF vs prior log-odds.

    For every effective prior :math:`\\tilde\\pi` on a grid of prior log-odds
    :math:`\\operatorname{logit}(\\tilde\\pi)`, the plot shows the normalized
    actual DCF of the Bayes decisions made with the LLRs (threshold
    :math:`-\\operatorname{logit}(\\tilde\\pi)`), the normalized minimum DCF
    (best threshold chosen on the data) and the uninformative reference (the
    best decision without looking at the data, 1.0 when normalized). The gap
    between actual and minimum DCF is the loss due to miscalibration.

    Several systems share one axes: pass ``ax=display.ax_`` to the next call
    (the reference line is drawn once per axes).

    {recommended}

    Parameters
    ----------
    prior_log_odds : ndarray of shape (n_points,)
        The grid of prior log-odds :math:`\\operatorname{logit}(\\tilde\\pi)`.
    actual_dcf : ndarray of shape (n_points,)
        Actual DCF at each point of the grid.
    min_dcf : ndarray of shape (n_points,)
        Minimum DCF at each point of the grid.
    name : str, default=None
        Name of the system, used in the legend.
    normalize : bool, default=True
        Whether the DCFs are normalized (divided by the uninformative DCF
        ``min(pe, 1 - pe)``); otherwise they are Bayes error rates.
    actual_dcf_band : ndarray of shape (2, n_points), default=None
        Lower and upper ends of a bootstrap confidence interval of the
        actual DCF at each point, drawn as a shaded band.
    min_dcf_band : ndarray of shape (2, n_points), default=None
        The same for the minimum DCF.
    confidence_level : float, default=None
        Confidence level of the bands, for the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The actual-DCF curve.
    min_line_ : matplotlib Line2D or None
        The minimum-DCF curve, if drawn.
    reference_line_ : matplotlib Line2D or None
        The uninformative reference, if drawn by this display.
    bands_ : list of matplotlib PolyCollection
        The shaded confidence bands (actual, then minimum DCF), if any.
    {axes_attributes}

    See Also
    --------
    skcalib.metrics.bayes_error_curve : The data of this plot.
    ROCConvexHullDisplay : ROC curve with its convex hull.

    Notes
    -----
    With :math:`\\tilde\\pi = \\operatorname{sigmoid}(x)` at prior log-odds
    :math:`x`, the normalized actual DCF is

    .. math::

        \\frac{\\tilde\\pi P_{miss}(-x) + (1 - \\tilde\\pi) P_{fa}(-x)}
             {\\min(\\tilde\\pi, 1 - \\tilde\\pi)},

    with :math:`P_{miss}(t)`, :math:`P_{fa}(t)` the error rates of the
    decisions ``llr >= t``; the minimum DCF takes the best threshold instead.

    References
    ----------
    .. [1] S. Cumani, "Bayes decisions and model evaluation", course notes
       (Bayes error plots).
    .. [2] N. Brümmer and J. du Preez, "Application-independent evaluation of
       speaker detection", Computer Speech and Language, 2006.

    {examples_agg}
    >>> from skcalib.datasets import make_gaussian_scores
    >>> from skcalib.metrics import BayesErrorDisplay
    >>> scores, y, llr = make_gaussian_scores(500, random_state=0)
    >>> disp = BayesErrorDisplay.from_predictions(y, llr, name="true LLR")
    >>> disp = BayesErrorDisplay.from_predictions(
    ...     y, scores, name="raw scores", ax=disp.ax_)
    >>> bool((disp.min_dcf <= disp.actual_dcf + 1e-12).all())
    True
    """

    _doc_blocks = doc_blocks(
        grid="""
            prior_log_odds : array-like of shape (n_points,), default=None
                Grid of prior log-odds; default 121 points from -6 to 6.
            """,
        normalize="""
            normalize : bool, default=True
                Normalized DCF (1.0 = uninformative) or Bayes error rate.
            """,
        bands="""
            confidence_level : float in (0, 1), default=None
                If given, shade the bootstrap (percentile) confidence interval of
                the actual and of the minimum DCF at each prior log-odds, from
                ``n_resamples`` resamples of the trials (of whole groups with
                ``groups``); see :func:`skcalib.metrics.bootstrap_ci`.
            n_resamples : int, default=200
                Bootstrap resamples for the bands.
            groups : array-like of shape (n_samples,), default=None
                Group of each trial (speaker, model): the bands then resample
                whole groups.
            random_state : int, RandomState instance, Generator or None, \
default=None
                Fixes the bootstrap resamples.
            """,
    )

    def __init__(
        self,
        *,
        prior_log_odds,
        actual_dcf,
        min_dcf,
        name=None,
        normalize=True,
        actual_dcf_band=None,
        min_dcf_band=None,
        confidence_level=None,
    ):
        self._store(locals())

    def plot(
        self,
        *,
        ax=None,
        name=None,
        plot_min_dcf=True,
        plot_reference=True,
        min_dcf_kwargs=None,
        reference_kwargs=None,
        **kwargs,
    ):
        """Plot the curves.

        Parameters
        ----------
        {plot_ax_name}
        plot_min_dcf : bool, default=True
            Whether to draw the minimum DCF (dashed, same colour).
        plot_reference : bool, default=True
            Whether to draw the uninformative reference (once per axes).
        min_dcf_kwargs : dict, default=None
            Keyword arguments for the minimum-DCF line.
        reference_kwargs : dict, default=None
            Keyword arguments for the reference line.
        **kwargs : dict
            Keyword arguments for the actual-DCF line (``matplotlib.pyplot.plot``).

        {plot_returns}
        """
        ax, fig = self._plot_axes(ax)
        prefix = self._legend_prefix(name)
        x = np.asarray(self.prior_log_odds, dtype=float)

        # the legend speaks the axis' language: DCF, or error rate when not
        # normalized
        what = "DCF" if self.normalize else "error rate"
        line_kwargs = self._line_kwargs({"label": f"{prefix}actual {what}"}, kwargs)
        (self.line_,) = ax.plot(x, self.actual_dcf, **line_kwargs)

        self.min_line_ = None
        if plot_min_dcf:
            min_kwargs = self._line_kwargs(
                {
                    "label": f"{prefix}minimum {what}",
                    "linestyle": "--",
                    "color": self.line_.get_color(),
                },
                min_dcf_kwargs,
            )
            (self.min_line_,) = ax.plot(x, self.min_dcf, **min_kwargs)

        self.bands_ = []
        level = (
            f"{self.confidence_level:.0%} " if self.confidence_level is not None else ""
        )
        for band, kind, alpha, hatch in (
            (self.actual_dcf_band, "actual", 0.25, None),
            (self.min_dcf_band, "minimum", 0.12, "///"),
        ):
            if band is None or (kind == "minimum" and not plot_min_dcf):
                continue
            self.bands_.append(
                ax.fill_between(
                    x,
                    band[0],
                    band[1],
                    color=self.line_.get_color(),
                    alpha=alpha,
                    hatch=hatch,
                    linewidth=0,
                    label=f"{prefix}{kind} {what} {level}interval",
                )
            )

        reference = self._reference(x)
        self.reference_line_ = None
        has_reference = any(line.get_gid() == _REFERENCE_GID for line in ax.get_lines())
        if plot_reference and not has_reference:
            ref_kwargs = self._line_kwargs(
                {
                    "label": "uninformative",
                    "linestyle": ":",
                    "color": "black",
                    "gid": _REFERENCE_GID,
                },
                reference_kwargs,
            )
            (self.reference_line_,) = ax.plot(x, reference, **ref_kwargs)

        ax.set_xlabel("Prior log-odds, logit(effective prior) (natural log)")
        ax.set_ylabel("Normalized DCF" if self.normalize else "Bayes error rate")
        # Show where a system is worse than the uninformative one, but do not
        # let a badly miscalibrated system squash the rest of the plot.
        top = 1.3 * float(np.max(reference))
        ax.set_ylim(0.0, max(top, ax.get_ylim()[1] if has_reference else 0.0))
        ax.set_xlim(float(x.min()), float(x.max()))
        ax.legend(fontsize="small")
        return self._plotted(ax, fig)

    def _reference(self, x):
        if self.normalize:
            return np.ones_like(x)
        pe = expit(x)
        return np.minimum(pe, 1.0 - pe)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        llr,
        *,
        prior_log_odds=None,
        sample_weight=None,
        pos_label=None,
        normalize=True,
        confidence_level=None,
        n_resamples=200,
        groups=None,
        random_state=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the Bayes error curves of given LLRs.

        Parameters
        ----------
        {y_true}
        llr : array-like of shape (n_samples,)
            Log-likelihood-ratios (natural log); +/-inf allowed. The minimum
            DCF only uses their order, so any score can be passed to see it.
        {grid}
        {weight_label}
        {normalize}
        {bands}
        {name_ax_kwargs}

        {returns}
        """
        return cls._plot_predictions(locals(), "llr")

    @classmethod
    def from_trials(
        cls,
        trials,
        *,
        prior_log_odds=None,
        normalize=True,
        confidence_level=None,
        n_resamples=200,
        groups=None,
        random_state=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the Bayes error curves of scored trials evaluated once.

        The plot of :meth:`from_predictions`, from the block summary that
        ``trials`` already hold: nothing is validated or sorted again, and
        the bootstrap bands resample the trials sorted once.

        Parameters
        ----------
        {trials_llr}
        {grid}
        {normalize}
        {bands}
        {name_ax_kwargs}

        {returns}
        """
        from .._bootstrap import _bayes_error_bands
        from .._trials import check_prior_log_odds

        prior_log_odds = _prior_log_odds_grid(prior_log_odds)
        actual, minimum = trials.bayes_error_curve(prior_log_odds)
        actual_band = min_band = None
        if confidence_level is not None:
            actual_band, min_band = _bayes_error_bands(
                trials,
                check_prior_log_odds(prior_log_odds),
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                groups=groups,
                random_state=random_state,
            )
        return cls._from_curves(
            prior_log_odds,
            actual,
            minimum,
            normalize=normalize,
            bands=(actual_band, min_band, confidence_level),
            name=name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    def _from_curves(
        cls,
        prior_log_odds,
        actual,
        minimum,
        *,
        normalize,
        bands=(None, None, None),
        name,
        ax,
        **kwargs,
    ):
        actual = np.asarray(actual, dtype=float)
        minimum = np.asarray(minimum, dtype=float)
        actual_band, min_band, confidence_level = bands
        if not normalize:
            pe = expit(prior_log_odds)
            scale = np.minimum(pe, 1.0 - pe)
            actual, minimum = actual * scale, minimum * scale
            if actual_band is not None:
                actual_band, min_band = actual_band * scale, min_band * scale
        disp = cls(
            prior_log_odds=prior_log_odds,
            actual_dcf=actual,
            min_dcf=minimum,
            name=name,
            normalize=normalize,
            actual_dcf_band=actual_band,
            min_dcf_band=min_band,
            confidence_level=confidence_level,
        )
        return disp.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        prior_log_odds=None,
        sample_weight=None,
        pos_label=None,
        normalize=True,
        confidence_level=None,
        n_resamples=200,
        groups=None,
        random_state=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the Bayes error curves of a fitted calibrator or classifier.

        {estimator_llr}
        prior_log_odds, sample_weight, pos_label, normalize
            As in :meth:`from_predictions`.
        confidence_level, n_resamples, groups, random_state
            Bootstrap bands, as in :meth:`from_predictions`.
        {estimator_tail}

        {returns}
        """
        return cls._plot_estimator(locals())
