"""Generators of synthetic scores and of Breiman's two-class waveform data."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.special import log_ndtr
from sklearn.utils import check_random_state

from ..utils._sklearn_compat import Interval, validate_params

__all__ = ["make_gaussian_scores", "make_waveform"]


#: The constraints of the sampling parameters both generators take.
_SAMPLING_CONSTRAINTS = {
    "n_samples": [Interval(Integral, 2, None, closed="left")],
    "shuffle": ["boolean"],
    "random_state": ["random_state"],
}


def _class_counts(n_samples: int, prior: float) -> tuple[int, int]:
    """Exact target / non-target counts, both at least one."""
    n_tar = int(round(prior * n_samples))
    if n_tar == 0 or n_tar == n_samples:
        missing = "target" if n_tar == 0 else "non-target"
        raise ValueError(
            f"`n_samples`={n_samples} with `prior`={prior} gives no {missing} "
            "samples; increase `n_samples` or move `prior` away from 0 and 1."
        )
    return n_tar, n_samples - n_tar


@validate_params(
    {
        **_SAMPLING_CONSTRAINTS,
        "prior": [Interval(Real, 0, 1, closed="neither")],
        "target_mean": [Interval(Real, None, None, closed="neither")],
        "target_std": [Interval(Real, 0, None, closed="neither")],
        "nontarget_mean": [Interval(Real, None, None, closed="neither")],
        "nontarget_std": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def make_gaussian_scores(
    n_samples: int = 1000,
    *,
    prior: float = 0.5,
    target_mean: float = 2.0,
    target_std: float = 1.0,
    nontarget_mean: float = 0.0,
    nontarget_std: float = 1.0,
    shuffle: bool = True,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores with Gaussian class-conditional densities and their true LLR.

    Target scores are drawn from ``N(target_mean, target_std**2)`` and
    non-target scores from ``N(nontarget_mean, nontarget_std**2)``. Because the
    densities are known, the exact log-likelihood-ratio of every score is
    returned too: the ideal output of a calibrator, against which calibrated
    LLRs can be judged. With equal standard deviations the true LLR is an
    affine function of the score (an affine calibrator can be perfect); with
    unequal ones it is quadratic and non-monotonic far in the tails.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of scores, at least 2.
    prior : float, default=0.5
        Proportion of targets, in (0, 1). Exactly
        ``round(prior * n_samples)`` targets are drawn; both classes must be
        present.
    target_mean : float, default=2.0
        Mean of the target scores.
    target_std : float, default=1.0
        Standard deviation of the target scores, > 0.
    nontarget_mean : float, default=0.0
        Mean of the non-target scores.
    nontarget_std : float, default=1.0
        Standard deviation of the non-target scores, > 0.
    shuffle : bool, default=True
        Whether to shuffle the samples; otherwise targets come first.
    random_state : int, RandomState instance or None, default=None
        Seed of the random draws, for reproducible output.

    Returns
    -------
    scores : ndarray of shape (n_samples,), dtype=float64
        The raw scores (higher favours the target class).
    y : ndarray of shape (n_samples,), dtype=int
        Labels: 1 for targets, 0 for non-targets.
    llr : ndarray of shape (n_samples,), dtype=float64
        The true natural-log likelihood-ratio of each score.

    See Also
    --------
    make_waveform : A classification problem with a known Bayes LLR.

    Notes
    -----
    With :math:`\\mu_1, \\sigma_1` the target and :math:`\\mu_0, \\sigma_0` the
    non-target parameters, the true LLR of a score :math:`s` is

    .. math::

        \\ell(s) = \\log\\frac{\\mathcal{N}(s; \\mu_1, \\sigma_1^2)}
                              {\\mathcal{N}(s; \\mu_0, \\sigma_0^2)}
                 = \\log\\frac{\\sigma_0}{\\sigma_1}
                   - \\frac{(s - \\mu_1)^2}{2\\sigma_1^2}
                   + \\frac{(s - \\mu_0)^2}{2\\sigma_0^2}.

    With :math:`\\sigma_0 = \\sigma_1 = \\sigma` it is the affine map
    :math:`(\\mu_1 - \\mu_0) (s - (\\mu_0 + \\mu_1)/2) / \\sigma^2`.

    Examples
    --------
    >>> from skcalib.datasets import make_gaussian_scores
    >>> scores, y, llr = make_gaussian_scores(6, random_state=0)
    >>> scores.shape, int(y.sum())
    ((6,), 3)
    >>> # equal variances: the true LLR is 2 * (s - 1)
    >>> bool(abs(llr - 2 * (scores - 1)).max() < 1e-12)
    True
    """
    rng = check_random_state(random_state)
    n_tar, n_non = _class_counts(n_samples, prior)
    scores = np.empty(n_samples, dtype=np.float64)
    scores[:n_tar] = rng.normal(target_mean, target_std, size=n_tar)
    scores[n_tar:] = rng.normal(nontarget_mean, nontarget_std, size=n_non)
    y = np.zeros(n_samples, dtype=int)
    y[:n_tar] = 1
    if shuffle:
        order = rng.permutation(n_samples)
        scores, y = scores[order], y[order]
    z1 = (scores - target_mean) / target_std
    z0 = (scores - nontarget_mean) / nontarget_std
    llr = np.log(nontarget_std / target_std) - 0.5 * z1 * z1 + 0.5 * z0 * z0
    return scores, y, llr


#: Centres (1-based feature index) of the three triangular base waves.
_WAVE_PEAKS = (7, 15, 11)


def _base_waves() -> np.ndarray:
    """The base waves ``h_k(m) = max(6 - |m - c_k|, 0)``, shape (3, 21)."""
    m = np.arange(1, 22)
    return np.maximum(6.0 - np.abs(m[None, :] - np.array(_WAVE_PEAKS)[:, None]), 0.0)


def _log_ndtr_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``log(Phi(a) - Phi(b))`` for ``a > b``, accurate in both tails."""
    # Where the interval lies in the upper tail, use Phi(-b) - Phi(-a) instead.
    upper = (a + b) > 0
    hi = np.where(upper, -b, a)
    lo = np.where(upper, -a, b)
    log_hi = log_ndtr(hi)
    return log_hi + np.log1p(-np.exp(log_ndtr(lo) - log_hi))


def _waveform_loglik(X: np.ndarray, ha, hb, noise: float) -> np.ndarray:
    """Log-density (up to a shared constant) of ``u*ha + (1-u)*hb + noise``."""
    r = X - hb
    d = ha - hb
    dist = np.sqrt(d @ d)
    t = r @ (d / dist)
    perp2 = np.einsum("ij,ij->i", r, r) - t * t
    return (
        -perp2 / (2 * noise**2)
        - np.log(dist)
        + _log_ndtr_diff(t / noise, (t - dist) / noise)
    )


@validate_params(
    {
        **_SAMPLING_CONSTRAINTS,
        "noise": [Interval(Real, 0, None, closed="neither")],
        "return_llr": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_waveform(
    n_samples: int = 1000,
    *,
    noise: float = 1.0,
    shuffle: bool = True,
    return_llr: bool = False,
    random_state=None,
) -> tuple[np.ndarray, ...]:
    """Breiman's waveform data restricted to its first two classes.

    The waveform recognition problem of Breiman et al. (1984) has 21
    features built from three triangular base waves. Following
    Rakotomalala's notes on score calibration (the "WAVE" file without its
    third class), only the first two classes are generated, in equal numbers
    (``n_samples // 2`` of class 0, the rest of class 1), and labelled 0 and 1.

    The exact generative definition, with feature index ``m = 1, ..., 21``:

    - base waves ``h1(m) = max(6 - |m - 7|, 0)``,
      ``h2(m) = max(6 - |m - 15|, 0)`` and ``h3(m) = max(6 - |m - 11|, 0)``
      (triangles of height 6 peaking at features 7, 15 and 11, as in the UCI
      generator of Breiman's data);
    - for each sample, ``u ~ Uniform(0, 1)`` and independent noise
      ``eps_m ~ N(0, noise**2)``;
    - class 0: ``x_m = u * h1(m) + (1 - u) * h2(m) + eps_m``;
    - class 1: ``x_m = u * h1(m) + (1 - u) * h3(m) + eps_m``.

    The classes overlap (both contain ``h1``), so the Bayes error is not zero;
    ``return_llr=True`` also returns the exact Bayes log-likelihood-ratio of
    each sample, available in closed form (see Notes).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples, at least 2.
    noise : float, default=1.0
        Standard deviation of the Gaussian noise added to every feature
        (1.0 in Breiman's definition).
    shuffle : bool, default=True
        Whether to shuffle the samples; otherwise class 0 comes first.
    return_llr : bool, default=False
        Whether to also return the true LLR ``log p(x | 1) - log p(x | 0)``.
    random_state : int, RandomState instance or None, default=None
        Seed of the random draws, for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_samples, 21), dtype=float64
        The features.
    y : ndarray of shape (n_samples,), dtype=int
        Labels 0 and 1.
    llr : ndarray of shape (n_samples,), dtype=float64
        Only if ``return_llr=True``: the exact log-likelihood-ratio of class 1
        against class 0.

    See Also
    --------
    make_gaussian_scores : One-dimensional scores with a known LLR.

    Notes
    -----
    Write a class as ``x = u a + (1 - u) b + eps`` with base waves
    :math:`a = h_1` and :math:`b` (:math:`h_2` for class 0, :math:`h_3` for
    class 1). With :math:`r = x - b`, :math:`d = a - b`,
    :math:`D = \\lVert d \\rVert` and :math:`t = r^\\top d / D`, integrating
    the Gaussian over :math:`u` gives, up to a constant shared by the classes,

    .. math::

        \\log p(x) = -\\frac{\\lVert r \\rVert^2 - t^2}{2\\sigma^2} - \\log D
                    + \\log\\left(\\Phi\\left(\\frac{t}{\\sigma}\\right)
                    - \\Phi\\left(\\frac{t - D}{\\sigma}\\right)\\right),

    where :math:`\\sigma` is ``noise`` and :math:`\\Phi` the standard normal
    distribution function; the LLR is the difference of the two classes'
    values.

    References
    ----------
    .. [1] L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone,
       "Classification and Regression Trees", Wadsworth, 1984, pp. 49-55.
    .. [2] R. Rakotomalala, "Normalisation des scores", course notes
       (Platt scaling and isotonic regression on the two-class waveform data).

    Examples
    --------
    >>> from skcalib.datasets import make_waveform
    >>> X, y = make_waveform(100, random_state=0)
    >>> X.shape, int(y.sum())
    ((100, 21), 50)
    >>> X, y, llr = make_waveform(4, return_llr=True, random_state=0)
    >>> llr.shape
    (4,)
    """
    rng = check_random_state(random_state)
    h1, h2, h3 = _base_waves()
    n0 = n_samples // 2
    y = np.zeros(n_samples, dtype=int)
    y[n0:] = 1
    u = rng.uniform(0.0, 1.0, size=n_samples)[:, None]
    other = np.where(y[:, None] == 1, h3, h2)
    X = u * h1 + (1.0 - u) * other
    X += rng.normal(0.0, noise, size=X.shape)
    if shuffle:
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]
    if not return_llr:
        return X, y
    llr = _waveform_loglik(X, h1, h3, noise) - _waveform_loglik(X, h1, h2, noise)
    return X, y, llr
