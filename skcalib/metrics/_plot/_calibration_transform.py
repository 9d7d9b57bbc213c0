"""Calibration transform plot: raw score vs calibrated LLR, with the PAV reference."""

from __future__ import annotations

import numpy as np

from ...utils._validation import check_scores
from ._base import _DisplayMixin

__all__ = ["CalibrationTransformDisplay"]


def _as_list(values, name):
    """A single array or a sequence of arrays -> list of 1-D float64 arrays."""
    if isinstance(values, (list, tuple)) and values and np.ndim(values[0]) >= 1:
        return [check_scores(v, name=name) for v in values]
    return [check_scores(values, name=name)]


class CalibrationTransformDisplay(_DisplayMixin):
    """Raw score vs calibrated LLR of several calibrators, with the PAV reference.

    The PAV-LLR of the evaluation data is the best monotone score-to-LLR map
    for those data under every proper scoring rule and every prior (Brümmer &
    du Preez); drawing each calibrator's map over it shows where a parametric
    calibrator (Platt, affine) is close to ideal and where it is not
    (Brümmer & Doddington, 2013, Fig. 3).

    It is recommended to create a display with :meth:`from_estimator` or
    :meth:`from_predictions`; the constructor only stores computed arrays.

    Parameters
    ----------
    scores : list of ndarray
        For each calibrator, the raw scores (x coordinates, increasing).
    llrs : list of ndarray
        For each calibrator, the calibrated LLRs at ``scores``.
    names : list of str, default=None
        Legend names, one per calibrator.
    pav_scores : ndarray of shape (2 * n_blocks,), default=None
        Knots of the PAV reference: first and last score of every block.
    pav_llr : ndarray of shape (2 * n_blocks,), default=None
        PAV-LLR at the knots (exact: +/-inf for blocks holding one class).

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        One curve per calibrator.
    pav_line_ : matplotlib Line2D or None
        The PAV reference.
    {axes_attributes}

    See Also
    --------
    skcalib.PAVLLRCalibrator : The PAV-LLR as a calibrator for new data.
    skcalib.metrics.min_cllr : ``cllr`` of the PAV-LLR shown here.
    sklearn.calibration.CalibrationDisplay : Reliability diagram.

    Notes
    -----
    The reference is drawn through the block knots, linearly between blocks,
    which is how ``PAVLLRCalibrator`` interpolates. Infinite PAV-LLRs are
    drawn clipped to the plotted range; the attribute keeps the exact values.

    References
    ----------
    .. [1] N. Brümmer and G. Doddington, "Likelihood-ratio calibration using
       prior-weighted proper scoring rules", Interspeech 2013.
    .. [2] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
       proper scoring rules", 2013.

    {examples_agg}
    >>> from skcalib.datasets import make_gaussian_scores
    >>> from skcalib.metrics import CalibrationTransformDisplay
    >>> scores, y, llr = make_gaussian_scores(300, random_state=0)
    >>> disp = CalibrationTransformDisplay.from_predictions(
    ...     y, scores, llr, names=["true LLR"])
    >>> len(disp.lines_), bool(disp.pav_llr[0] == -float("inf"))
    (1, True)
    """

    def __init__(self, *, scores, llrs, names=None, pav_scores=None, pav_llr=None):
        self._store(locals())

    def plot(self, *, ax=None, names=None, plot_pav=True, pav_kwargs=None, **kwargs):
        """Plot the calibration maps and the PAV reference.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        names : list of str, default=None
            Legend names; defaults to ``self.names``.
        plot_pav : bool, default=True
            Whether to draw the PAV reference.
        pav_kwargs : dict, default=None
            Keyword arguments for the PAV reference line.
        **kwargs : dict
            Keyword arguments for every calibrator line.

        {plot_returns}
        """
        ax, fig = self._plot_axes(ax)
        names = self.names if names is None else names
        if names is None:
            names = [None] * len(self.llrs)
        if len(names) != len(self.llrs):
            raise ValueError(
                f"`names` has {len(names)} entries for {len(self.llrs)} curves."
            )
        values = [np.asarray(v, dtype=float) for v in self.llrs]
        if self.pav_llr is not None:
            values.append(np.asarray(self.pav_llr, dtype=float))
        finite = np.concatenate([v[np.isfinite(v)] for v in values] + [[0.0]])
        lo, hi = float(finite.min()), float(finite.max())
        margin = 0.05 * (hi - lo) if hi > lo else 1.0
        ylim = (lo - margin, hi + margin)
        # Infinite LLRs are drawn leaving the axes rather than at a fake value.
        clip = (lo - 10 * margin, hi + 10 * margin)

        self.lines_ = []
        for x, v, label in zip(self.scores, self.llrs, names, strict=True):
            line_kwargs = self._line_kwargs({"label": label}, kwargs)
            (line,) = ax.plot(x, np.clip(v, *clip), **line_kwargs)
            self.lines_.append(line)

        self.pav_line_ = None
        if plot_pav and self.pav_llr is not None:
            ref_kwargs = self._line_kwargs(
                {
                    "label": "PAV reference (optimal monotone)",
                    "color": "black",
                    "linewidth": 1.0,
                },
                pav_kwargs,
            )
            (self.pav_line_,) = ax.plot(
                self.pav_scores, np.clip(self.pav_llr, *clip), **ref_kwargs
            )
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.set_ylim(*ylim)
        ax.set_xlabel("Raw score")
        ax.set_ylabel("Calibrated LLR (nats)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper left", fontsize="small")
        return self._plotted(ax, fig)

    @classmethod
    def _from_maps(cls, trials, scores, llrs, names, plot_pav, ax, kwargs):
        """The display of the maps ``llrs`` at ``scores`` (drawn in the order
        of the scores) and of the PAV-LLR of ``trials``, whose knots are each
        block's first and last score, at the block's LLR."""
        llr, lo, hi = trials.pav_llr()
        order = np.argsort(scores, kind="stable")
        disp = cls(
            scores=[scores[order]] * len(llrs),
            llrs=[v[order] for v in llrs],
            names=names,
            pav_scores=np.column_stack([lo, hi]).ravel(),
            pav_llr=np.repeat(llr, 2),
        )
        return disp.plot(ax=ax, plot_pav=plot_pav, **kwargs)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        llr,
        *,
        names=None,
        sample_weight=None,
        pos_label=None,
        plot_pav=True,
        ax=None,
        **kwargs,
    ):
        """Plot given calibrated LLRs against the raw scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels (for the PAV reference).
        y_score : array-like of shape (n_samples,)
            Raw scores.
        llr : array-like of shape (n_samples,) or list of such arrays
            Calibrated LLRs of ``y_score``, one array per calibrator.
        names : list of str, default=None
            Legend names, one per LLR array.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights (for the PAV reference).
        pos_label : int, float, bool or str, default=None
            The target label.
        plot_pav : bool, default=True
            Whether to draw the PAV reference.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        **kwargs : dict
            Passed to :meth:`plot`.

        {returns}
        """
        scores = check_scores(y_score, name="y_score")
        llrs = _as_list(llr, "llr")
        for v in llrs:
            if v.shape[0] != scores.shape[0]:
                raise ValueError(
                    "Found input variables with inconsistent numbers of samples: "
                    f"`y_score` has {scores.shape[0]}, `llr` has {v.shape[0]}."
                )
        trials = cls._validated_trials(y_true, scores, sample_weight, pos_label)
        return cls._from_maps(trials, scores, llrs, names, plot_pav, ax, kwargs)

    @classmethod
    def from_trials(
        cls, trials, llr=None, *, names=None, plot_pav=True, ax=None, **kwargs
    ):
        """Plot calibrated LLRs of scored trials against their raw scores.

        The PAV reference comes from the blocks that ``trials`` hold (their
        scores are the raw scores); nothing is validated or sorted again but
        the given LLRs for drawing.

        Parameters
        ----------
        trials : ScoredTrials
            The scored trials of the raw scores.
        llr : array-like of shape (n_trials,) or list of such arrays, \
default=None
            Calibrated LLRs of the trials' scores (in the order of
            ``trials.as_arrays()``), one array per calibrator; None draws
            the PAV reference alone.
        names : list of str, default=None
            Legend names, one per LLR array.
        plot_pav : bool, default=True
            Whether to draw the PAV reference.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created if None.
        **kwargs : dict
            Passed to :meth:`plot`.

        {returns}
        """
        scores = trials.as_arrays()[1]
        llrs = [] if llr is None else _as_list(llr, "llr")
        for v in llrs:
            if v.shape[0] != scores.shape[0]:
                raise ValueError(
                    f"`llr` has {v.shape[0]} values for {scores.shape[0]} trials."
                )
        return cls._from_maps(trials, scores, llrs, names, plot_pav, ax, kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        names=None,
        n_points=256,
        sample_weight=None,
        pos_label=None,
        plot_pav=True,
        ax=None,
        **kwargs,
    ):
        """Plot the maps of fitted calibrators over the range of ``X``.

        Parameters
        ----------
        estimator : calibrator instance or list of calibrator instances
            Fitted one-column calibrators; their ``decision_function`` (the
            calibrated LLR) is evaluated on a grid of scores.
        X : array-like of shape (n_samples,) or (n_samples, 1)
            Raw scores of the evaluation data: they set the grid's range and,
            with ``y``, the PAV reference.
        y : array-like of shape (n_samples,)
            True binary labels.
        names : list of str, default=None
            Legend names; default the class names.
        n_points : int, default=256
            Number of grid points.
        sample_weight, pos_label, plot_pav, ax, **kwargs
            As in :meth:`from_predictions`.

        {returns}
        """
        estimators = (
            list(estimator) if isinstance(estimator, (list, tuple)) else [estimator]
        )
        scores = check_scores(
            np.asarray(X).reshape(-1) if np.ndim(X) == 2 and np.shape(X)[1] == 1 else X,
            name="X",
        )
        finite = scores[np.isfinite(scores)]
        if finite.size == 0:
            raise ValueError("`X` has no finite score to draw a grid over.")
        grid = np.linspace(finite.min(), finite.max(), int(n_points))
        responses = [
            cls._estimator_response(
                est, grid, response_method="decision_function", pos_label=pos_label
            )
            for est in estimators
        ]
        llrs = [scores for scores, _ in responses]
        if names is None:
            names = [default for _, default in responses]
        trials = cls._validated_trials(y, scores, sample_weight, pos_label)
        return cls._from_maps(trials, grid, llrs, names, plot_pav, ax, kwargs)
