"""Non-parametric calibrators from the PAV block summary: probabilities and LLRs."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import expit
from scipy.special import logit as _logit

from ._base import BaseCalibrator
from ._kernel._forensic import elub_from_values, invariance_from_values
from ._kernel._pav import BlockSummary, block_llr, block_proba, pool_blocks
from ._kernel._sort import run_starts
from .utils._calibrator_docs import CALIBRATOR_DOCS
from .utils._docstrings import fill_docstring
from .utils._sklearn_compat import Interval, StrOptions

__all__ = ["PAVCalibrator", "PAVLLRCalibrator"]

#: Relative size of the tilt that ``strict=True`` gives each flat PAV step.
STRICT_TILT = 1e-6


def _ratio(a, b, c, d):
    """``(a - b) / (c - d)`` for ``d <= b <= a <= c``, a fraction in [0, 1].

    Written out rather than left to ``np.interp``, whose slope
    ``(v1 - v0) / (x1 - x0)`` overflows between knots closer than about
    5e-309 (subnormal gaps): the fraction of the gap never overflows. A gap
    wider than the float maximum (scores spanning +/-1.7e308) is measured
    in halves, which is exact for such large numbers.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        num = np.subtract(a, b)
        den = np.subtract(c, d)
        out = num / den
    wide = np.isinf(den)
    if np.any(wide):
        half = [np.broadcast_to(v, out.shape)[wide] * 0.5 for v in (a, b, c, d)]
        out[wide] = (half[0] - half[1]) / (half[2] - half[3])
    return out


def _plain_knots(knot_x, knot_v):
    """Whether ``np.interp`` is safe on these knots.

    It is when the values and the gaps are finite and every slope is a
    normal float or 0: an overflowing slope (knots closer than about 5e-309)
    gives infinities, a subnormal one (knots ~1e308 apart) loses the digits
    that keep the interpolation monotone.
    """
    if not np.isfinite(knot_v).all():
        return False
    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        gaps = knot_x[1:] - knot_x[:-1]  # np.diff, less overhead
        slopes = np.abs((knot_v[1:] - knot_v[:-1]) / gaps)
    normal = (slopes == 0.0) | (slopes >= np.finfo(float).tiny)
    return bool(np.isfinite(gaps).all() and np.isfinite(slopes).all() and normal.all())


def _interp(x, knot_x, knot_v):
    """Piecewise-linear interpolation, clipped at the end knots.

    Like ``np.interp`` (see :func:`_ratio` for why it is not used), and
    understands infinite knot values: between a finite and an infinite knot
    value the line is the limit of the interpolation, i.e. the infinite value
    everywhere except at the finite knot itself; between ``-inf`` and
    ``+inf`` (perfectly separated data) the sign flips at the midpoint, where
    the value is 0.
    """
    n = knot_x.shape[0]
    if n == 1:
        return np.full(x.shape, knot_v[0])
    if _plain_knots(knot_x, knot_v):
        # np.interp is exact at the knots and 3x faster; it only fails where
        # its slopes overflow or the values are infinite
        return np.interp(x, knot_x, knot_v)
    x = np.clip(x, knot_x[0], knot_x[-1])
    right = np.clip(np.searchsorted(knot_x, x, side="right"), 1, n - 1)
    x0, x1 = knot_x[right - 1], knot_x[right]
    v0, v1 = knot_v[right - 1], knot_v[right]
    t = _ratio(x, x0, x1, x0)
    with np.errstate(invalid="ignore"):  # inf - inf: fixed below
        step = v1 - v0
        # exact at both knots: from the nearer end
        out = np.where(t < 0.5, v0 + t * step, v1 - (1.0 - t) * step)
    infinite = ~(np.isfinite(v0) & np.isfinite(v1))
    if infinite.any():
        t, v0, v1 = t[infinite], v0[infinite], v1[infinite]
        val = np.where(np.isfinite(v0), v1, v0)
        val = np.where((t == 0) & np.isfinite(v0), v0, val)
        val = np.where((t == 1) & np.isfinite(v1), v1, val)
        flip = ~np.isfinite(v0) & ~np.isfinite(v1) & (v0 != v1)
        val = np.where(flip, np.where(t < 0.5, v0, np.where(t > 0.5, v1, 0.0)), val)
        out[infinite] = val
    return out


class _BasePAVCalibrator(BaseCalibrator):
    """Shared fitting and interpolation of the two PAV calibrators."""

    # from predict_proba: the probability at scikit-learn's resolution (ties
    # closer than 1e-15), interpolated linearly in probability as isotonic
    # regression does
    _proba_inputs = ("probability",)

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "interpolation": [StrOptions({"linear", "step"})],
        "out_of_bounds": [StrOptions({"clip", "nan", "raise"})],
        "extremes": [StrOptions({"raw", "succession", "bound", "elub", "invariance"})],
        "max_abs_llr": [Interval(Real, 0, None, closed="neither")],
        "strict": ["boolean"],
    }

    def __new__(cls, *args, **kwargs):
        # Python's own message for PAVCalibrator("linear") would name this
        # private class and no parameter
        if args:
            import inspect

            names = [
                p.name
                for p in inspect.signature(cls.__init__).parameters.values()
                if p.kind is p.KEYWORD_ONLY
            ]
            meant = ", ".join(
                f"{name}={value!r}" for name, value in zip(names, args, strict=False)
            )
            raise TypeError(
                f"{cls.__name__} takes keyword arguments only; got "
                f"{', '.join(map(repr, args))} by position: write "
                f"{cls.__name__}({meant}) if that is what you meant."
            )
        return super().__new__(cls)

    def __init__(
        self,
        *,
        interpolation="linear",
        out_of_bounds="clip",
        extremes="raw",
        max_abs_llr=20.0,
        strict=False,
        prior=None,
    ):
        self._store(locals())

    # ------------------------------------------------------------------ fit
    def _block_values(self, blocks: BlockSummary, n_tar: float, n_non: float):
        """Calibrated output of each block (probability or LLR)."""
        raise NotImplementedError

    # The ``extremes`` policy lives here: ``'succession'`` adds its virtual
    # trials to the blocks (``_pseudo_count``), ``'bound'``, ``'elub'`` and
    # ``'invariance'`` clip the block LLRs (``_extreme_llr``), ``'raw'`` does
    # neither.
    @property
    def _pseudo_count(self):
        """Weight of each virtual trial of the rule of succession (or 0)."""
        return self._virtual_trial_weight if self.extremes == "succession" else 0.0

    def _extreme_llr(self, blocks: BlockSummary, n_tar: float, n_non: float):
        """Block LLRs under the ``extremes`` policy."""
        llr = block_llr(blocks, n_tar, n_non)
        if self.extremes == "bound":
            llr = np.clip(llr, -self.max_abs_llr, self.max_abs_llr)
        elif self.extremes in ("elub", "invariance"):
            # the bounds of the calibration trials' own PAV-LLRs: the blocks
            # are their distinct values, with each class's weight
            bounds = (
                elub_from_values
                if self.extremes == "elub"
                else (invariance_from_values)
            )
            tar = np.asarray(blocks.tar, dtype=np.float64)
            non = np.asarray(blocks.non, dtype=np.float64)
            llr = np.clip(llr, *bounds(llr, tar, non))
        return llr

    def _fit(self, data):
        # Only the blocks of every column (in memory or distributed) and the
        # real class totals are needed.
        n_tar, n_non = data.n_tar, data.n_non
        blocks = [
            data.blocks(j, pseudo_count=self._pseudo_count)
            for j in range(data.n_columns)
        ]
        self.blocks_ = []
        self.X_thresholds_ = []
        self.y_thresholds_ = []
        self._tilt = []
        x_min = np.empty(len(blocks))
        x_max = np.empty(len(blocks))
        for j, col_blocks in enumerate(blocks):
            col_blocks, kx, kv, tilt = self._column_map(col_blocks, n_tar, n_non)
            self.blocks_.append(col_blocks)
            self.X_thresholds_.append(kx)
            self.y_thresholds_.append(kv)
            self._tilt.append(tilt)
            x_min[j], x_max[j] = col_blocks.lo[0], col_blocks.hi[-1]
        self.X_min_ = x_min
        self.X_max_ = x_max
        return self

    def _column_map(self, blocks: BlockSummary, n_tar: float, n_non: float):
        """One column's map from its PAV blocks: the blocks kept (those
        holding real scores, equal values pooled) and the knots of
        :meth:`_knots`, ``(blocks, knot_x, knot_v, tilt)``."""
        values = self._block_values(blocks, n_tar, n_non)
        if self._pseudo_count:
            # Blocks holding only the virtual points lie at +/-inf, outside
            # every finite score: they carry no knot.
            real = np.isfinite(blocks.lo) & np.isfinite(blocks.hi)
            if not real.all():
                blocks = BlockSummary(*(a[real] for a in blocks))
                values = values[real]
        # Adjacent blocks with one value (clipped to the same bound by
        # extremes='bound') are one flat step of the map: pooled, so that
        # strict=True tilts the whole step and leaves no tie.
        tied = values[1:] == values[:-1]
        if tied.any():
            starts = run_starts(~tied)
            blocks, values = pool_blocks(blocks, starts), values[starts]
        return (blocks, *self._knots(blocks, values))

    def _bounds(self, values):
        """Outer neighbours used to size the end tilts of ``strict=True``."""
        if self._output == "proba":
            return 0.0, 1.0
        finite = values[np.isfinite(values)]
        if finite.shape[0] == 0:
            return -1.0, 1.0
        return finite[0] - 1.0, finite[-1] + 1.0

    def _knots(self, blocks: BlockSummary, values: np.ndarray):
        """Knots (first and last score of each block) and their values."""
        lo, hi = blocks.lo, blocks.hi
        v_lo = values.copy()
        v_hi = values.copy()
        tilt = (0.0, 0.0)
        if self.strict:
            lower, upper = self._bounds(values)
            prev = np.concatenate([[lower], values[:-1]])
            nxt = np.concatenate([values[1:], [upper]])
            with np.errstate(invalid="ignore"):
                down = STRICT_TILT * (values - prev)
                up = STRICT_TILT * (nxt - values)
            # Infinite values (exact LLRs of pure blocks) cannot be tilted;
            # a finite value next to one is tilted by a gap of 1 nat.
            down = np.where(np.isfinite(down), down, STRICT_TILT)
            up = np.where(np.isfinite(up), up, STRICT_TILT)
            finite = np.isfinite(values)
            down = np.where(finite, down, 0.0)
            up = np.where(finite, up, 0.0)
            if self._output == "proba":
                down = np.minimum(down, values - lower)
                up = np.minimum(up, upper - values)
            flat = hi > lo
            v_lo = np.where(flat, values - down, values)
            v_hi = np.where(flat, values + up, values)
            # the tails beyond the training range get the same room again
            tilt = (float(down[0]), float(up[-1]))
        single = lo == hi
        kx = np.column_stack([lo, hi]).reshape(-1)
        kv = np.column_stack([v_lo, v_hi]).reshape(-1)
        keep = np.ones(kx.shape[0], dtype=bool)
        keep[1::2] = ~single
        return kx[keep], kv[keep], tilt

    # ------------------------------------------------------------ transform
    def _transform(self, X):
        out = np.empty_like(X)
        for j in range(X.shape[1]):
            out[:, j] = self._transform_column(j, X[:, j])
        return out

    def _transform_column(self, j, x):
        kx, kv = self.X_thresholds_[j], self.y_thresholds_[j]
        x_min, x_max = self.X_min_[j], self.X_max_[j]
        if self.out_of_bounds == "raise":
            if x.shape[0] and (x.min() < x_min or x.max() > x_max):
                raise ValueError(
                    f"Some scores in column {j} of X are outside the training "
                    f"range [{float(x_min)!r}, {float(x_max)!r}] and "
                    "out_of_bounds='raise'."
                )
        if self.interpolation == "linear":
            y = _interp(x, kx, kv)
        else:
            lo = self.blocks_[j].lo
            idx = np.clip(np.searchsorted(lo, x, side="right") - 1, 0, lo.shape[0] - 1)
            if self.strict:
                y = self._strict_step(j, x, idx)
            else:
                y = kv[np.searchsorted(kx, lo[idx])]
        if self.out_of_bounds == "nan":
            y[(x < x_min) | (x > x_max)] = np.nan
        elif self.strict and self.out_of_bounds == "clip":
            self._extend_tails(j, x, y, x_min, x_max)
        return y

    def _strict_step(self, j, x, idx):
        """Step interpolation made strictly increasing.

        Within block ``b`` the tilted line from its first to its last knot;
        in the gap up to the next block the value rises linearly by
        ``STRICT_TILT`` of the jump that follows, so every step still jumps up.
        """
        kx, kv = self.X_thresholds_[j], self.y_thresholds_[j]
        lo, hi = self.blocks_[j].lo, self.blocks_[j].hi
        y = _interp(np.clip(x, lo[idx], hi[idx]), kx, kv)
        gap = (x > hi[idx]) & (idx < lo.shape[0] - 1)
        if gap.any():
            b = idx[gap]
            k = np.searchsorted(kx, hi[b], side="right") - 1
            start, end = kv[k], kv[k + 1]
            frac = _ratio(x[gap], hi[b], lo[b + 1], hi[b])
            with np.errstate(invalid="ignore"):
                jump = end - start
            # a jump to an infinite value counts as 1 nat, as in ``_knots``
            y[gap] += STRICT_TILT * frac * np.where(np.isfinite(jump), jump, 1.0)
        return y

    def _extend_tails(self, j, x, y, x_min, x_max):
        """Strictly increasing, bounded tails beyond the training range.

        A score at distance ``d`` beyond the range moves the end value by
        ``tilt * d / (d + width)`` (``width`` the training range), so the map
        stays strictly increasing and never passes the room reserved by the
        end tilt.
        """
        down, up = self._tilt[j]
        below = x < x_min
        above = x > x_max
        if x_max > x_min:
            # d / (d + width) = (x_min - x) / (x_max - x) below the range
            if below.any() and down > 0:
                y[below] -= down * _ratio(x_min, x[below], x_max, x[below])
            if above.any() and up > 0:
                y[above] += up * _ratio(x[above], x_max, x[above], x_min)
            return
        with np.errstate(over="ignore"):  # width 1: d / (d + 1), d may be inf
            if below.any() and down > 0:
                y[below] -= down / (1.0 + 1.0 / (x_min - x[below]))
            if above.any() and up > 0:
                y[above] += up / (1.0 + 1.0 / (x[above] - x_max))


_PAV_NOTES = r"""
    **Scores from predict_proba.** In :class:`CalibratedClassifier`, a
    classifier with only ``predict_proba`` gives this calibrator its
    probability (of each class, one-vs-rest), with probabilities closer
    than 1e-15 tied and linear interpolation in probability, as
    scikit-learn's isotonic regression (user guide:
    :ref:`The score a calibrator sees <proba_inputs>`). Called directly, it
    calibrates whatever scores it is given.

    **Extremes.** The exact PAV solution gives probability 0 (LLR
    :math:`-\infty`) to a lowest block without targets and 1
    (:math:`+\infty`) to a highest block without non-targets. ``extremes``
    chooses what new scores there receive:

    - ``'raw'``: the exact optimum, :math:`l_b = \log(T_b/N_b) -
      \log(N_{tar}/N_{non})`, infinite where a class is absent.
    - ``'succession'``: the rule of succession (BOSARIS ``opt_loglr``): one
      virtual target and one virtual non-target of weight 1 are placed below
      every score, and again above every score, before PAV. Block LLRs still
      remove the real prior odds, :math:`l_b = \log(T'_b/N'_b) -
      \log(N_{tar}/N_{non})` with :math:`T', N'` including the virtual
      weight, so every LLR is finite.
    - ``'bound'``: the exact LLRs clipped to :math:`[-m, m]` with
      ``m = max_abs_llr``.
    - ``'elub'``: the exact LLRs clipped to their empirical lower and upper
      bounds (Vergeer et al., Science & Justice 2016;
      :func:`~skcalib.metrics.elub_bounds`), computed on the PAV-LLRs of
      the calibration trials.
    - ``'invariance'``: the same with the invariance-verification bounds
      (Alberink et al., 2025; :func:`~skcalib.metrics.invariance_bounds`).

    **Strict.** PAV is flat on each block, which ties the scores of a block
    and changes ranking metrics such as the AUC. With ``strict=True`` the
    value of block :math:`b` (range :math:`[a_b, e_b]`, value :math:`v_b`) is
    replaced on that range by the line from :math:`v_b - \epsilon (v_b -
    v_{b-1})` at :math:`a_b` to :math:`v_b + \epsilon (v_{b+1} - v_b)` at
    :math:`e_b`, with :math:`\epsilon = 10^{-6}` (``STRICT_TILT``); the outer
    neighbours are 0 and 1 for probabilities and the end values -/+ 1 nat for
    LLRs. Beyond the training range (with ``out_of_bounds='clip'``) the map
    continues strictly increasing and bounded, moving the end value by at
    most another tilt. The map is then strictly increasing (invertible) and
    ranks exactly like the raw scores, while every output moves by at most
    :math:`10^{-6}` of the gap to a neighbouring block value, so calibration
    metrics stay within about :math:`10^{-6}` (relative) of the PAV optimum.
    Values that are exactly 0, 1 or infinite (``extremes='raw'``) cannot
    move; every other value of the map, in every combination of parameters,
    is strictly increasing (adjacent blocks clipped to the same bound by
    ``extremes='bound'`` form one flat step, tilted as a whole). With
    ``interpolation='step'`` the gap after a block rises by :math:`\epsilon`
    of the jump that follows it.
"""


class PAVCalibrator(_BasePAVCalibrator):
    """Isotonic (PAV) calibration to probabilities.

    Fits the isotonic regression of the target indicator on the scores with
    the pool-adjacent-violators algorithm. By Brümmer & du Preez [1]_ the
    PAV solution minimizes every regular binary proper scoring rule among
    monotone maps; by Fawcett & Niculescu-Mizil [2]_ its blocks are the
    segments of the ROC convex hull.

    With default settings predictions equal scikit-learn's
    ``IsotonicRegression(out_of_bounds='clip')`` on the same data (skcalib
    pools only exactly equal scores; scikit-learn also merges scores closer
    than 1e-15).

    Parameters
    ----------
    interpolation : {'linear', 'step'}, default='linear'
        How scores between knots are mapped: linearly between the knots (the
        first and last score of every block), or ``'step'``, the value of the
        last block starting at or below the score.
    out_of_bounds : {'clip', 'nan', 'raise'}, default='clip'
        Scores outside the training range: clipped to the end values, mapped
        to NaN, or a ``ValueError``.
    extremes : {'raw', 'succession', 'bound', 'elub', 'invariance'}
        Treatment of the extreme blocks (see Notes); default ``'raw'``. Under
        every policy but ``'raw'`` the probabilities are
        ``sigmoid(llr + logit(calibration_prior_))``.
    max_abs_llr : float, default=20.0
        Bound on ``|llr|`` for ``extremes='bound'`` (nats).
    strict : bool, default=False
        Tilt each flat step slightly so the map is strictly increasing
        (see Notes).
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data.

    Attributes
    ----------
    {binary_attributes}
    blocks_ : list of BlockSummary
        Per column, the PAV blocks (score range, target and non-target
        weight); see :func:`skcalib._kernel._pav.pav_blocks`.
    X_thresholds_ : list of ndarray
        Per column, the knot scores (first and last score of every block).
    y_thresholds_ : list of ndarray
        Per column, the calibrated value at each knot.
    X_min_, X_max_ : ndarray of shape (`n_features_in_`,)
        Training score range per column.

    See Also
    --------
    PAVLLRCalibrator : The same fit, output as log-likelihood-ratios.
    sklearn.isotonic.IsotonicRegression : scikit-learn's isotonic regression.

    Notes
    -----
    With :math:`T_b, N_b` the target and non-target weight of block
    :math:`b`, the calibrated probability is

    .. math:: p_b = \\frac{T_b}{T_b + N_b}.
    {notes}
    References
    ----------
    .. [1] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
       proper scoring rules", 2013.
    .. [2] T. Fawcett and A. Niculescu-Mizil, "PAV and the ROC convex hull",
       Machine Learning 68, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import PAVCalibrator
    >>> s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    >>> y = np.array([0, 1, 0, 1, 1])
    >>> cal = PAVCalibrator().fit(s, y)
    >>> cal.transform(s).round(3).tolist()   # tied scores get one value
    [0.0, 0.667, 0.667, 0.667, 1.0]
    >>> cal.transform([0.25, 9.0]).round(3).tolist()   # 9.0 is clipped
    [0.667, 1.0]
    >>> float(cal.decision_function([0.4])[0])   # exact optimum: infinite LLR
    inf
    """

    _output = "proba"

    def __init__(
        self,
        *,
        interpolation="linear",
        out_of_bounds="clip",
        extremes="raw",
        max_abs_llr=20.0,
        strict=False,
        prior=None,
    ):
        super().__init__(
            interpolation=interpolation,
            out_of_bounds=out_of_bounds,
            extremes=extremes,
            max_abs_llr=max_abs_llr,
            strict=strict,
            prior=prior,
        )

    def _block_values(self, blocks, n_tar, n_non):
        if self.extremes == "raw":
            return block_proba(blocks)
        llr = self._extreme_llr(blocks, n_tar, n_non)
        return expit(llr + _logit(n_tar / (n_tar + n_non)))


class PAVLLRCalibrator(_BasePAVCalibrator):
    """PAV calibration to log-likelihood-ratios (PAV-LLR).

    The PAV-LLR of a block is its target/non-target weight ratio divided by
    the prior odds of the calibration data [1]_. It is optimal for every
    proper scoring rule *and every prior*, and does not depend on the class
    proportions of the calibration data. ``transform`` returns natural-log
    LLRs, linearly interpolated between knots in the LLR domain.

    Parameters
    ----------
    interpolation : {'linear', 'step'}, default='linear'
        How scores between knots are mapped: linearly (in the LLR domain)
        between the knots (first and last score of every block), or
        ``'step'``, the value of the last block starting at or below the
        score.
    out_of_bounds : {'clip', 'nan', 'raise'}, default='clip'
        Scores outside the training range: clipped to the end values, mapped
        to NaN, or a ``ValueError``.
    extremes : {'succession', 'raw', 'bound', 'elub', 'invariance'}
        Treatment of the extreme blocks (see Notes); the default gives finite
        LLRs, as needed to calibrate new data; ``'elub'`` and
        ``'invariance'`` bound them as a forensic report would. Default
        ``'succession'``.
    max_abs_llr : float, default=20.0
        Bound on ``|llr|`` for ``extremes='bound'`` (nats).
    strict : bool, default=False
        Tilt each flat step slightly so the map is strictly increasing
        (see Notes).
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the calibration data.

    Attributes
    ----------
    {binary_attributes}
    blocks_ : list of BlockSummary
        Per column, the PAV blocks with real scores (virtual-only blocks of
        ``'succession'`` removed).
    X_thresholds_ : list of ndarray
        Per column, the knot scores (first and last score of every block).
    y_thresholds_ : list of ndarray
        Per column, the LLR at each knot.
    X_min_, X_max_ : ndarray of shape (`n_features_in_`,)
        Training score range per column.

    See Also
    --------
    PAVCalibrator : The same fit, output as probabilities.

    Notes
    -----
    With :math:`T_b, N_b` the target and non-target weight of block
    :math:`b` and :math:`N_{tar}, N_{non}` the class totals,

    .. math:: l_b = \\log\\frac{T_b}{N_b} - \\log\\frac{N_{tar}}{N_{non}}.
    {notes}
    References
    ----------
    .. [1] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
       proper scoring rules", 2013.
    .. [2] N. Brümmer and G. Doddington, "Likelihood-ratio calibration using
       prior-weighted proper scoring rules", Interspeech 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import PAVLLRCalibrator
    >>> s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    >>> y = np.array([0, 1, 0, 1, 1])
    >>> cal = PAVLLRCalibrator().fit(s, y)      # rule of succession: finite
    >>> cal.transform(s).round(3).tolist()
    [-1.099, 0.288, 0.288, 0.288, 0.288]
    >>> raw = PAVLLRCalibrator(extremes="raw").fit(s, y)
    >>> raw.transform([0.1, 0.3, 0.4]).round(3).tolist()
    [-inf, 0.288, inf]
    """

    def __init__(
        self,
        *,
        interpolation="linear",
        out_of_bounds="clip",
        extremes="succession",
        max_abs_llr=20.0,
        strict=False,
        prior=None,
    ):
        super().__init__(
            interpolation=interpolation,
            out_of_bounds=out_of_bounds,
            extremes=extremes,
            max_abs_llr=max_abs_llr,
            strict=strict,
            prior=prior,
        )

    def _block_values(self, blocks, n_tar, n_non):
        return self._extreme_llr(blocks, n_tar, n_non)


for _cls in (PAVCalibrator, PAVLLRCalibrator):
    _cls.__doc__ = fill_docstring(
        _cls.__doc__.replace("{notes}", _PAV_NOTES), CALIBRATOR_DOCS
    )
del _cls
