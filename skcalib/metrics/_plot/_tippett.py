"""Tippett plot: proportion of each class with an LLR above each value."""

from __future__ import annotations

import math

import numpy as np

from ._base import _DisplayMixin

__all__ = ["TippettDisplay"]

_ZERO_GID = "skcalib-tippett-zero"
# Farthest an LLR is drawn from 0: matplotlib cannot place an axis whose
# width overflows (LLRs of +/-1.7e308 gave a singular transform): a value
# beyond a sixteenth of the largest float (1.1e307, where matplotlib's
# arithmetic keeps a margin of 4) is drawn at the edge of the axis, as an
# infinite one is
_EDGE = float(np.finfo(np.float64).max / 16)


def _proportion_at_least(llr, w):
    """Distinct LLRs in increasing order and the weight fraction ``>=`` each."""
    order = np.argsort(llr, kind="stable")
    x, w = llr[order], w[order]
    starts = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
    # weight at or above each distinct value: total minus the weight below
    below = np.r_[0.0, np.cumsum(w)][starts]
    total = w.sum()
    return x[starts], np.clip((total - below) / total, 0.0, 1.0)


class TippettDisplay(_DisplayMixin):
    """Tippett plot: the proportions of targets and non-targets with LLR >= x.

    The forensic evaluation plot: for every value ``x`` of the LLR, the
    proportion of target trials (same source) and of non-target trials
    (different sources) whose LLR is at least ``x``, both classes on one
    axes. A good system keeps the target curve high and the non-target
    curve low over positive LLRs; the curves' heights at ``x = 0`` give the
    rates of misleading evidence, shown in the legend: the proportion of
    targets with LLR < 0 and of non-targets with LLR > 0.

    Several systems share one axes: pass ``ax=display.ax_`` to the next call.

    {recommended}

    Parameters
    ----------
    target_llr : ndarray of shape (n_target_values,)
        Distinct target LLRs (natural log), increasing.
    target_proportion : ndarray of shape (n_target_values,)
        Proportion of targets with an LLR at least each value.
    nontarget_llr : ndarray of shape (n_nontarget_values,)
        Distinct non-target LLRs, increasing.
    nontarget_proportion : ndarray of shape (n_nontarget_values,)
        Proportion of non-targets with an LLR at least each value.
    misleading_target : float
        Proportion of targets with LLR < 0 (rate of misleading evidence
        against the target hypothesis).
    misleading_nontarget : float
        Proportion of non-targets with LLR > 0.
    log10 : bool, default=False
        Whether the plot's axis is the base-10 log likelihood ratio (the
        stored LLRs stay natural logs).
    name : str, default=None
        Name of the system, used in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The target curve.
    nontarget_line_ : matplotlib Line2D
        The non-target curve.
    {axes_attributes}

    See Also
    --------
    DETDisplay : Error rates at every threshold.
    BayesErrorDisplay : Decision costs of the LLRs over applications.

    Notes
    -----
    The target curve is :math:`T(x) = \\sum_{tar} w_i [l_i \\ge x] / N_{tar}`
    and the non-target curve :math:`N(x) = \\sum_{non} w_i [l_i \\ge x] /
    N_{non}`. The rates of misleading evidence are :math:`1 - T(0)` for the
    targets (strictly below 0) and :math:`N(0^+)` for the non-targets
    (strictly above 0). Infinite LLRs count in the proportions and are drawn
    at the edges of the axis, as are finite ones beyond +/-1.1e307.

    References
    ----------
    .. [1] D. Meuwly, D. Ramos and R. Haraksim, "A guideline for the
       validation of likelihood ratio methods used for forensic evidence
       evaluation", Forensic Science International 276, 2017.
    .. [2] C. G. G. Aitken and F. Taroni, "Statistics and the Evaluation of
       Evidence for Forensic Scientists", Wiley, 2004 (Tippett plots).

    {examples_agg}
    >>> import numpy as np
    >>> from skcalib.metrics import TippettDisplay
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> llr = [-2.0, -0.5, 1.0, -1.0, 2.0, np.inf]
    >>> disp = TippettDisplay.from_predictions(y, llr, name="system A")
    >>> round(disp.misleading_target, 3), round(disp.misleading_nontarget, 3)
    (0.333, 0.333)
    >>> disp.target_proportion.round(3).tolist()   # at LLR -1, 2, inf
    [1.0, 0.667, 0.333]
    """

    def __init__(
        self,
        *,
        target_llr,
        target_proportion,
        nontarget_llr,
        nontarget_proportion,
        misleading_target,
        misleading_nontarget,
        log10=False,
        name=None,
    ):
        self._store(locals())

    def plot(self, *, ax=None, name=None, nontarget_kwargs=None, **kwargs):
        """Plot both curves.

        Parameters
        ----------
        {plot_ax_name}
        nontarget_kwargs : dict, default=None
            Keyword arguments for the non-target line (dashed, same colour).
        **kwargs : dict
            Keyword arguments for the target line (``matplotlib.pyplot.step``).

        {plot_returns}
        """
        # a new figure keeps the legend beside the axes inside it
        ax, fig = self._plot_axes(ax, figsize=(9.0, 4.8), layout="constrained")
        prefix = self._legend_prefix(name)
        scale = 1.0 / math.log(10.0) if self.log10 else 1.0
        xt = np.asarray(self.target_llr, float) * scale
        xn = np.asarray(self.nontarget_llr, float) * scale
        finite = np.concatenate([xt, xn])
        finite = finite[np.abs(finite) <= _EDGE]  # the others are drawn at the edges
        span = (float(finite.min()), float(finite.max())) if finite.size else (-1, 1)
        pad = 0.05 * max(span[1] - span[0], 1.0)
        left, right = span[0] - pad, span[1] + pad
        if ax.get_gid() == _ZERO_GID:  # keep the range of systems drawn before
            left = min(left, ax.get_xlim()[0])
            right = max(right, ax.get_xlim()[1])

        def curve(x, p):
            # "LLR >= x" is right-continuous from the left: the proportion at
            # a value holds up to it; beyond the largest value it is 0.
            x = np.clip(x, left, right)
            return np.r_[left, x, right], np.r_[p[0] if p.size else 0.0, p, 0.0]

        line_kwargs = self._line_kwargs(
            {
                "label": f"{prefix}targets ({self.misleading_target:.1%} with LLR < 0)",
                "where": "pre",
            },
            kwargs,
        )
        (self.line_,) = ax.step(
            *curve(xt, np.asarray(self.target_proportion)), **line_kwargs
        )
        non_kwargs = self._line_kwargs(
            {
                "label": f"{prefix}non-targets ({self.misleading_nontarget:.1%} "
                "with LLR > 0)",
                "where": "pre",
                "linestyle": "--",
                "color": self.line_.get_color(),
            },
            nontarget_kwargs,
        )
        (self.nontarget_line_,) = ax.step(
            *curve(xn, np.asarray(self.nontarget_proportion)), **non_kwargs
        )
        if ax.get_gid() != _ZERO_GID:
            ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_gid(_ZERO_GID)
        ax.set_xlim(left, right)
        ax.set_ylim(-0.02, 1.02)
        unit = "log10 likelihood ratio" if self.log10 else "LLR (natural log)"
        ax.set_xlabel(f"x: {unit}")
        ax.set_ylabel("Proportion of trials with LLR ≥ x")
        if not ax.get_title():
            ax.set_title("Tippett plot")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        return self._plotted(ax, fig)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        llr,
        *,
        log10=False,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the Tippett curves of given LLRs.

        Parameters
        ----------
        {y_true}
        llr : array-like of shape (n_samples,)
            Natural-log likelihood ratios; +/-inf allowed.
        log10 : bool, default=False
            Draw against the base-10 log likelihood ratio (the forensic
            convention) instead of the natural log.
        {weight_label}
        {name_ax_kwargs}

        {returns}
        """
        return cls._plot_predictions(locals(), "llr")

    @classmethod
    def from_trials(cls, trials, *, log10=False, name=None, ax=None, **kwargs):
        """Plot the Tippett curves of scored trials evaluated once.

        Parameters
        ----------
        {trials_llr}
        log10 : bool, default=False
            Draw against the base-10 log likelihood ratio.
        {name_ax_kwargs}

        {returns}
        """
        is_target, x, w = trials.as_arrays()
        if w is None:
            w = np.ones_like(x)
        keep = w > 0
        tar, non = is_target & keep, ~is_target & keep
        xt, pt = _proportion_at_least(x[tar], w[tar])
        xn, pn = _proportion_at_least(x[non], w[non])
        disp = cls(
            target_llr=xt,
            target_proportion=pt,
            nontarget_llr=xn,
            nontarget_proportion=pn,
            misleading_target=float(w[tar & (x < 0)].sum() / w[tar].sum()),
            misleading_nontarget=float(w[non & (x > 0)].sum() / w[non].sum()),
            log10=log10,
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
        log10=False,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the Tippett curves of a fitted calibrator's LLRs.

        {estimator_llr}
        log10, sample_weight, pos_label
            As in :meth:`from_predictions`.
        {estimator_tail}

        {returns}
        """
        return cls._plot_estimator(locals())
