"""Stable sigmoid arithmetic and the Beta family of proper scoring rules.

Everything here works on log-odds, never on probabilities, so that LLRs of
+/-700 and beyond (posteriors within 1e-300 of 0 or 1) and infinite LLRs give
the right limits without numpy warnings.

The Beta family (Brümmer & Doddington) in the log-odds domain
-------------------------------------------------------------
With posterior log-odds ``x = llr + logit(prior)`` and ``q = sigmoid(x)``,
substituting ``c = sigmoid(t)`` in the Beta-weighted integrals of the rules
(user guide: *Affine calibration on a proper scoring rule*) gives

.. math::

    C(q, \\mathrm{tar}) = G(x; \\alpha, \\beta), \\qquad
    C(q, \\mathrm{non}) = G(-x; \\beta, \\alpha),

    G(z; p, r) = \\frac{1}{B(p, r)} \\int_z^\\infty
                 \\sigma(t)^{p-1} \\sigma(-t)^{r} \\, dt,

so one function ``G`` (the cost of a target trial) serves both classes. Its
derivative is closed-form, ``G'(z) = -sigma(z)^(p-1) sigma(-z)^r / B(p, r)``,
and ``G''(z) = G'(z) [(p - 1) sigma(-z) - r sigma(z)]``.

``G`` itself is evaluated without quadrature, from the hypergeometric
function ``2F1`` always at an argument in ``[0, 1/2]`` where its series
converges fast and scipy is accurate:

* ``z >= 0``, ``y = sigma(-z) <= 1/2``:
  ``G = y^r / (r B(p, r)) * 2F1(r, 2 - p; r + 1; y)``
  (the incomplete beta integral of ``u^(r-1) (1-u)^(p-2)`` on ``[0, y]``),
  which keeps full relative accuracy as ``G -> 0``;
* ``z < 0``, ``q = sigma(z) < 1/2``: ``G = G(0) + (F(1/2) - F(q)) / B(p, r)``
  with the antiderivative ``F(q) = q^(p-1)/(p-1) * 2F1(p-1, 1-r; p; q)``
  for ``p != 1`` and ``F(q) = log q + sum_k (1-r)_k q^k / (k k!)`` for
  ``p = 1``; this diverges properly (to ``+inf``) when ``p <= 1``.

For ``p >= 2`` and ``p + r > 20`` the ``2F1`` series cancels
catastrophically (at ``p = r = 50`` it has lost every digit); there
``G = (p + r - 1) / (p - 1) * I_y(r, p - 1)`` with the regularized
incomplete beta function ``I`` (``scipy.special.betainc``), accurate to a
few ulps against 40-digit references, is used instead. Near ``p = 1`` the
``2F1`` route is the accurate one (``betainc`` loses up to 7 digits at
``p = 1.2``).

The closed forms of eqs. 12-15 of N. Brümmer and G. Doddington,
"Likelihood-ratio calibration using prior-weighted proper scoring rules"
(Interspeech 2013), are used directly for ``(1/2, 1/2)``, ``(1, 1)``,
``(2, 2)`` and ``(2, 1)`` (and its mirror ``(1, 2)``).

One kernel, :func:`rule_terms`, holds every form: ``G``, ``G'`` and ``G''``
per sample. The metrics (:func:`beta_rule_costs`,
:func:`prior_weighted_objective`, :func:`cllr_sums` through
:func:`log1pexp`) take ``G`` from it, the objectives of the affine, fusion
and Beta calibrators all three.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import betainc, betaln, expit, hyp2f1, log_expit, logit

from ..utils._docstrings import REFERENCES, fill_doc
from ..utils._numpy_compat import count_nonzero
from ..utils._numpy_compat import einsum as _einsum
from ..utils._stats import class_totals, drop_zero_weights

__all__ = [
    "check_rule_params",
    "log1pexp",
    "rule_terms",
    "rule_cost",
    "beta_rule_costs",
    "prior_weighted_objective",
    "uninformative_objective",
    "cllr_bits_sorted",
    "cllr_sums",
    "scaled_affine",
]

_LOG2 = math.log(2.0)


def check_rule_params(alpha, beta, prior=0.5):
    """Validate the parameters of a Beta-family rule.

    Returns ``(alpha, beta, prior)`` as Python floats; raises a ``ValueError``
    naming the argument otherwise.
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if (
            not isinstance(value, numbers.Real)
            or isinstance(value, bool)
            or not (math.isfinite(value) and value > 0)
        ):
            raise ValueError(f"`{name}` must be a finite number > 0; got {value!r}.")
    if (
        not isinstance(prior, numbers.Real)
        or isinstance(prior, bool)
        or not 0.0 < prior < 1.0
    ):
        raise ValueError(f"`prior` must be in (0, 1); got {prior!r}.")
    return float(alpha), float(beta), float(prior)


# --------------------------------------------------------------------------
# G(z; p, r) of the rules without a closed form


def _series_p1(q, r):
    """``S(q) = sum_{k>=1} (1-r)_k q^k / (k k!)`` for ``0 <= q <= 1/2``."""
    q = np.asarray(q, dtype=np.float64)
    total = np.zeros_like(q)
    coef = 1.0
    power = np.ones_like(q)
    for k in range(1, 400):
        coef *= (k - r) / k
        if coef == 0.0:  # integer r: the series terminates exactly
            break
        power = power * q
        term = coef * power / k
        total += term
        if np.all(np.abs(term) <= 1e-17 * np.maximum(np.abs(total), 1e-300)):
            break
    return total


def _tail_general(z, p, r):
    """``G(z; p, r)`` for any ``p, r > 0`` through ``2F1`` (see module doc)."""
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    lbeta = betaln(p, r)
    log_norm = -math.log(r) - lbeta  # log(1 / (r B(p, r)))
    g0 = math.exp(-r * _LOG2 + log_norm) * hyp2f1(r, 2.0 - p, r + 1.0, 0.5)
    pos = z >= 0
    zp = z[pos]
    # y = sigmoid(-z) <= 1/2 and its log, both accurate for huge z
    out[pos] = np.exp(r * log_expit(-zp) + log_norm) * hyp2f1(
        r, 2.0 - p, r + 1.0, expit(-zp)
    )
    neg = ~pos
    if np.any(neg):
        zn = z[neg]
        q = expit(zn)
        logq = log_expit(zn)
        if p == 1.0:
            s_half = float(_series_p1(np.array([0.5]), r)[0])
            # B(1, r) = 1 / r
            out[neg] = g0 + r * (-_LOG2 - logq + s_half - _series_p1(q, r))
        else:
            inv_b = math.exp(-lbeta)
            f_half = (
                math.exp(-(p - 1.0) * _LOG2)
                / (p - 1.0)
                * hyp2f1(p - 1.0, 1.0 - r, p, 0.5)
            )
            # q^(p-1) overflows to +inf for p < 1 and q -> 0: the right limit
            with np.errstate(over="ignore"):
                fq = (
                    np.exp((p - 1.0) * logq)
                    / (p - 1.0)
                    * hyp2f1(p - 1.0, 1.0 - r, p, q)
                )
            out[neg] = g0 + (f_half - fq) * inv_b
    return out


def _tail_betainc(z, p, r):
    """``G(z; p, r)`` for ``p > 1`` through the regularized incomplete beta.

    ``G = (p + r - 1) / (p - 1) * I_y(r, p - 1)`` with ``y = sigmoid(-z)``:
    accurate where the ``2F1`` series cancels catastrophically (large ``p``
    or ``r``; at ``p = r = 1000`` even ``1 / B(p, r)`` overflows), less so
    than ``2F1`` for ``p`` near 1.
    """
    return (p + r - 1.0) / (p - 1.0) * betainc(r, p - 1.0, expit(-z))


def _tail_deriv(z, p, r):
    """``dG/dz = -sigmoid(z)^(p-1) sigmoid(-z)^r / B(p, r)``."""
    z = np.asarray(z, dtype=np.float64)
    log_arg = r * log_expit(-z) - betaln(p, r)
    if p != 1.0:  # skip 0 * log(0) at z = -inf
        log_arg = log_arg + (p - 1.0) * log_expit(z)
    with np.errstate(over="ignore"):
        return -np.exp(log_arg)


# --------------------------------------------------------------------------
# The kernel: G, G' and G'' per sample, closed forms where they exist

#: Length from which numpy's ufuncs in place beat one call of a composite
#: ufunc (``np.logaddexp``, scipy's ``expit``); below it the cost is per
#: call (measured crossover: about 1000 values).
_STEPS_MIN_SIZE = 1024


def log1pexp(x, out=None, *, overwrite_x=False):
    """``log(1 + e^x) = log1p(e^-|x|) + max(x, 0)``, exact at +/-inf.

    The logarithmic rule's cost (``G(z; 1, 1) = log1pexp(-z)``). On long
    arrays it is written out in place, which is faster than
    ``np.logaddexp(0, x)`` (1.3x at the solver's chunks of 8192 values, and
    the (2, 1) rule's fit on 1e6 scores took 1.5x as long with
    ``np.logaddexp``); on short ones, where the cost is per call, it is that
    one ufunc call. Both compute the same expression.

    Parameters
    ----------
    x : ndarray
        Float64 values; not changed unless ``overwrite_x``.
    out : ndarray, default=None
        Where to write the result (not ``x``); a new array by default.
    overwrite_x : bool, default=False
        Whether ``x`` may serve as scratch space (its values are then lost):
        one temporary array less.

    Returns
    -------
    ndarray
        ``out``, or a new array of the shape of ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._special import log1pexp
    >>> log1pexp(np.array([-np.inf, 0.0, 1000.0])).tolist()
    [0.0, 0.6931471805599453, 1000.0]
    """
    if x.size < _STEPS_MIN_SIZE:
        return np.logaddexp(0.0, x, out=out)
    e = _exp_minus_abs(x, out=out)
    np.log1p(e, out=e)
    e += np.maximum(x, 0.0, out=x if overwrite_x else None)
    return e


def _exp_minus_abs(x, out=None):
    """``e^-|x|``, which never overflows: the one exponential of
    :func:`log1pexp` and of the logistic terms."""
    e = np.abs(x, out=out)
    np.negative(e, out=e)
    return np.exp(e, out=e)


def _sigmoid(z, sign):
    """``sigmoid(sign * z) = 1 / (1 + e^(-sign z))`` as a new array.

    One ``expit`` call on short arrays; on long ones numpy's ``exp`` in
    place, which is faster (1.4x at 8192 values). ``e^(-sign z)`` may
    overflow to ``inf``, the exact limit.
    """
    if z.size < _STEPS_MIN_SIZE:
        return expit(z if sign > 0 else np.negative(z))
    with np.errstate(over="ignore"):
        if sign > 0:
            e = np.negative(z)
            np.exp(e, out=e)
        else:
            e = np.exp(z)
    e += 1.0
    # np.divide gives np.reciprocal's correctly rounded quotient, 1.7x
    # faster (numpy has no SIMD loop of reciprocal)
    return np.divide(1.0, e, out=e)


def rule_terms(z, p, r, order=2, *, value=True):
    """Per-sample ``G(z; p, r)`` and, for ``order >= 1``, ``G'`` and ``G''``.

    ``G`` is the target cost of the Beta rule ``(p, r)`` at posterior
    log-odds ``z`` (module docstring; a non-target's cost is
    ``G(-x; beta, alpha)``), with the closed forms of the logarithmic,
    Brier, ``(2, 1)``, ``(1, 2)`` and boosting rules and the ``2F1`` or
    incomplete-beta routes otherwise. The one kernel of the rule: the
    metrics take ``G``, the objectives of the calibrators all three.
    ``G`` keeps full relative accuracy as it goes to 0; the derivatives have
    the absolute accuracy the optimizer needs.

    Parameters
    ----------
    z : ndarray of shape (n,)
        Float64 log-odds, +/-inf allowed; not changed.
    p, r : float
        Rule parameters, ``(alpha, beta)`` for targets.
    order : {0, 1, 2}, default=2
        Highest derivative computed.
    value : bool, default=True
        Whether ``G`` is needed when ``order > 0``; without it the
        logarithmic rule on long arrays skips it (``g`` is None; the
        logarithm is a third of the cost), the others compute it anyway.

    Returns
    -------
    g, d1, d2 : ndarray of shape (n,) or None
        ``G``, ``G'`` and ``G''``; ``None`` beyond ``order`` (and ``g``
        possibly without ``value``).

    Notes
    -----
    No overflow warning: every ``exp`` that may overflow to ``inf`` (the
    exact limit there) runs under ``np.errstate``.
    """
    if p == 1.0 and r == 1.0:
        if order > 0 and z.size >= _STEPS_MIN_SIZE:
            return _logistic_terms(z, value)
        loss = log1pexp(np.negative(z), overwrite_x=True)
        if order == 0:
            return loss, None, None
        sm = _sigmoid(z, -1)
        # G'' = sigmoid(z) sigmoid(-z); absolute accuracy suffices here
        d2 = 1.0 - sm
        d2 *= sm
        return loss, np.negative(sm, out=sm), d2
    if (p, r) in _CLOSED:
        return _closed_terms(z, p, r, order)
    with np.errstate(over="ignore", invalid="ignore"):
        if p >= 2.0 and p + r > 20.0:
            g = _tail_betainc(z, p, r)
        else:
            g = _tail_general(z, p, r)
    if order == 0:
        return g, None, None
    d1 = _tail_deriv(z, p, r)
    factor = (p - 1.0) * expit(-z)
    factor -= r * expit(z)
    with np.errstate(invalid="ignore"):
        d2 = d1 * factor
    return g, d1, d2


def _logistic_terms(z, value=True):
    """``G`` (None without ``value``), ``G'``, ``G''`` of the logarithmic
    rule from one ``exp``.

    With ``e = exp(-|z|)`` (never overflows) and ``m = e / (1 + e)``
    (``sigmoid(-|z|)``): ``G = log1p(e) + max(-z, 0)`` (the expression of
    :func:`log1pexp`), ``G' = -sigmoid(-z)``, which is ``-m`` for ``z >= 0``
    and ``-1 / (1 + e)`` otherwise, and ``G'' = sigmoid(z) sigmoid(-z) =
    m / (1 + e)``. The exponential and the logarithm are most of the cost of
    a pass over long arrays; this takes one of each (two exponentials
    before).
    """
    e = _exp_minus_abs(z)
    loss = None
    if value:
        loss = np.log1p(e)
        loss += np.maximum(np.negative(z), 0.0)
    inv = e + 1.0
    np.divide(1.0, inv, out=inv)  # 1 / (1 + e), as in _sigmoid
    m = np.multiply(e, inv, out=e)
    d1 = np.where(z >= 0, m, inv)
    np.negative(d1, out=d1)
    d2 = np.multiply(m, inv, out=inv)
    return loss, d1, d2


_CLOSED = {(2.0, 2.0), (2.0, 1.0), (1.0, 2.0), (0.5, 0.5)}


def _closed_terms(z, p, r, order):
    """``G``, ``G'``, ``G''`` of the closed-form rules from two sigmoids."""
    if p == 0.5:  # boosting: G = 2/pi e^(-z/2), G' = -G/2, G'' = G/4
        g = np.multiply(z, -0.5)
        with np.errstate(over="ignore"):
            np.exp(g, out=g)
        g *= 2.0 / math.pi
        if order == 0:
            return g, None, None
        return g, g * -0.5, g * 0.25
    sm = _sigmoid(z, -1)
    if p == 1.0:  # (1, 2): G = 2 (softplus(-z) - sigmoid(-z)), the mirror of (2, 1)
        g = log1pexp(np.negative(z), overwrite_x=True)
        g -= sm
        small = sm < 1e-3
        if small.any():
            # -log(1 - y) - y cancels (relative error ~ eps / y): its series
            y = sm[small]
            g[small] = y * y * (0.5 + y * (1 / 3 + y * (0.25 + y * (0.2 + y / 6))))
        g *= 2.0
    elif r == 2.0:  # Brier: G = 3 sigmoid(-z)^2
        g = sm * 3.0
        g *= sm
    else:  # (2, 1): G = 2 sigmoid(-z)
        g = sm * 2.0
    if order == 0:
        return g, None, None
    sp = _sigmoid(z, 1)
    # G' = -sigmoid(z)^(p-1) sigmoid(-z)^r / B(p, r);
    # G'' = G' [(p - 1) sigmoid(-z) - r sigmoid(z)]
    if p == 1.0:  # B(1, 2) = 1/2
        d1 = sm * sm
        d1 *= -2.0
        factor = sp * -2.0
    elif r == 2.0:  # B(2, 2) = 1/6
        d1 = sm * sm
        d1 *= sp
        d1 *= -6.0
        factor = sm - 2.0 * sp
    else:  # B(2, 1) = 1/2
        d1 = sm * sp
        d1 *= -2.0
        factor = sm - sp
    factor *= d1
    return g, d1, factor


def rule_cost(z, p, r):
    """``G(z; p, r)``, the cost of a target trial at posterior log-odds ``z``.

    :func:`rule_terms` without derivatives, for any shape of ``z`` (a
    scalar too).
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim:
        return rule_terms(z, p, r, 0)[0]
    return rule_terms(z[None], p, r, 0)[0][0]


def _posterior_log_odds(llr, prior):
    return np.asarray(llr, dtype=np.float64) + logit(prior)


@fill_doc(REFERENCES)
def beta_rule_costs(llr, *, alpha, beta, prior=0.5):
    """Per-trial costs ``C(q, tar)`` and ``C(q, non)`` of a Beta-family rule.

    Parameters
    ----------
    llr : array-like
        Natural-log likelihood ratios; +/-inf allowed.
    alpha, beta : float
        Rule parameters, both > 0 (the Beta family, see References).
    prior : float, default=0.5
        Target prior; the posterior is ``q = sigmoid(llr + logit(prior))``.

    Returns
    -------
    c_tar, c_non : ndarray
        Cost of each LLR if the trial is a target / a non-target, shape of
        ``llr``. A confidently right LLR costs 0; a confidently wrong one costs
        ``+inf`` under unbounded rules (``alpha <= 1`` for targets,
        ``beta <= 1`` for non-targets) and the finite limit
        ``(alpha + beta - 1) / (alpha - 1)`` (resp. ``/(beta - 1)``) otherwise.

    Notes
    -----
    .. math::

        C(q, \\mathrm{tar}) = \\frac{1}{B(\\alpha, \\beta)}
            \\int_q^1 c^{\\alpha-2} (1-c)^{\\beta-1} dc, \\quad
        C(q, \\mathrm{non}) = \\frac{1}{B(\\alpha, \\beta)}
            \\int_0^q c^{\\alpha-1} (1-c)^{\\beta-2} dc.

    {brummer_doddington_references}

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> from skcalib._kernel._special import beta_rule_costs
    >>> c_tar, c_non = beta_rule_costs([0.0, np.inf, -np.inf], alpha=2, beta=2)
    >>> [float(c) for c in c_tar]  # Brier: 3 (1 - q)^2
    [0.75, 0.0, 3.0]
    >>> c_tar, c_non = beta_rule_costs([0.0, -np.inf], alpha=1, beta=1)
    >>> float(c_tar[0]) == math.log(2), float(c_tar[1])
    (True, inf)
    """
    alpha, beta, prior = check_rule_params(alpha, beta, prior)
    x = _posterior_log_odds(llr, prior)
    return rule_cost(x, alpha, beta), rule_cost(-x, beta, alpha)


def prior_weighted_objective(
    llr, is_target, sample_weight=None, *, alpha, beta, prior=0.5
):
    """Prior-weighted expected cost ``Cbar`` of a Beta-family rule (unnormalized).

    Parameters
    ----------
    llr : ndarray of shape (n_samples,)
        Natural-log LLRs, float64; +/-inf allowed.
    is_target : ndarray of shape (n_samples,), dtype=bool
        Whether each trial is a target trial.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative weights. Zero-weight trials are dropped before any cost
        is computed, so an infinite cost times a zero weight never occurs.
    alpha, beta : float
        Rule parameters, both > 0.
    prior : float, default=0.5
        Synthetic target prior of the objective.

    Returns
    -------
    float
        ``prior/N_tar * sum_tar w C(q, tar) + (1-prior)/N_non * sum_non w C(q, non)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._special import prior_weighted_objective
    >>> llr = np.array([2.0, -1.0, np.inf, -3.0])
    >>> is_target = np.array([True, True, False, False])
    >>> w = np.array([1.0, 1.0, 0.0, 1.0])  # the infinite LLR has no weight
    >>> round(prior_weighted_objective(llr, is_target, w, alpha=1, beta=1), 4)
    0.3843
    """
    alpha, beta, prior = check_rule_params(alpha, beta, prior)
    llr = np.asarray(llr, dtype=np.float64)
    is_target = np.asarray(is_target, dtype=bool)
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        llr, is_target, sample_weight = drop_zero_weights(sample_weight, llr, is_target)
    n_tar, n_non = class_totals(is_target, sample_weight)
    if n_tar <= 0 or n_non <= 0:
        raise ValueError(
            "Both target and non-target trials (with non-zero weight) are "
            "required to compute a prior-weighted objective."
        )
    x = _posterior_log_odds(llr, prior)
    c_tar = rule_cost(x[is_target], alpha, beta)
    c_non = rule_cost(-x[~is_target], beta, alpha)
    if sample_weight is None:
        s_tar, s_non = c_tar.sum(), c_non.sum()
    else:
        s_tar = c_tar @ sample_weight[is_target]
        s_non = c_non @ sample_weight[~is_target]
    return float(prior / n_tar * s_tar + (1.0 - prior) / n_non * s_non)


def uninformative_objective(alpha, beta, prior=0.5):
    """``Cbar`` of the uninformative system ``llr = 0`` (the normalizer).

    Equals ``prior * C(prior, tar) + (1 - prior) * C(prior, non)``.

    Examples
    --------
    >>> import math
    >>> from skcalib._kernel._special import uninformative_objective
    >>> round(uninformative_objective(1, 1, 0.5), 12) == round(math.log(2), 12)
    True
    >>> float(uninformative_objective(2, 2, 0.5))  # 3/4
    0.75
    """
    alpha, beta, prior = check_rule_params(alpha, beta, prior)
    x = np.array([logit(prior)])
    c_tar = rule_cost(x, alpha, beta)[0]
    c_non = rule_cost(-x, beta, alpha)[0]
    return float(prior * c_tar + (1.0 - prior) * c_non)


# --------------------------------------------------------------------------
# Cllr sums

# Samples per chunk of the Cllr loop: small enough that the few temporaries
# stay in the CPU cache, large enough that the per-chunk Python overhead is
# negligible.
_CHUNK = 16384


def _dot(a, b):
    return _einsum("i,i->", a, b)


def cllr_sums(llr, is_target, w):
    """Per-class weighted log-loss (bits) and weight totals, in one chunked pass.

    Returns ``(loss_tar, loss_non, n_tar, n_non)`` with
    ``loss_tar = sum_tar w log2(1 + e^-l)``, ``loss_non = sum_non w log2(1 + e^l)``.
    ``w`` may be None; zero weights contribute nothing (also at infinite
    losses). Empty inputs give zeros.
    """
    n = llr.shape[0]
    if n <= _CHUNK:  # one chunk: no slicing, one scratch allocation
        sums = _cllr_chunk(llr, is_target, w, np.empty((4, n)))
    else:
        scratch = np.empty((4, _CHUNK))
        sums = [0.0, 0.0, 0.0, 0.0]
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            part = _cllr_chunk(
                llr[start:stop],
                is_target[start:stop],
                None if w is None else w[start:stop],
                scratch[:, : stop - start],
            )
            for i in range(4):
                sums[i] += part[i]
    loss_tar, loss_non, n_tar, n_non = sums
    if w is None:  # not summed by the chunks
        n_tar = float(count_nonzero(is_target))
        n_non = float(n) - n_tar
    return loss_tar, loss_non, n_tar, n_non


def _cllr_chunk(llr, is_target, w, scratch):
    """:func:`cllr_sums` of one chunk, in the four rows ``(z, loss, t, u)``
    of ``scratch``; the weight totals are 0 when ``w`` is None."""
    zz, vv, tt, uu = scratch
    np.copyto(tt, is_target)  # 1.0 for targets
    np.subtract(1.0, tt, out=uu)  # 1.0 for non-targets
    np.subtract(uu, tt, out=zz)
    np.multiply(llr, zz, out=zz)  # -l for targets, l otherwise
    if w is not None:
        tt *= w
        uu *= w
    # the logarithmic rule's cost log(1 + e^z): the exact limits 0
    # (z = -inf, confidently right) and inf (z = +inf, wrong)
    loss = log1pexp(zz, out=vv, overwrite_x=True)
    # The class sums and the totals as dot products with the weight rows,
    # the totals by the same products as the losses (a system of all-zero
    # LLRs then gets exactly 1.0 per class). einsum, not np.dot: BLAS may
    # hand each short dot product to a thread pool, which costs
    # milliseconds per chunk on a busy machine.
    nt = nn = 0.0
    # A loss above 1.2e308 nats is inf in bits: the answer; an infinite
    # loss meets a weight of 0 (inf * 0 = nan, redone below).
    with np.errstate(invalid="ignore", over="ignore"):
        # In bits per trial, so that l = 0 costs exactly 1.0 and an all-zero
        # system has a Cllr of exactly 1.
        loss /= _LOG2
        if zz.shape[0] <= _FUSED_MAX:
            zz.fill(1.0)
            sums = _einsum("kj,ij->ki", scratch[:2], scratch[2:])
            (nt, nn), (lt, ln) = sums.tolist()
        else:
            lt, ln = float(_dot(loss, tt)), float(_dot(loss, uu))
            if w is not None:
                zz.fill(1.0)
                nt, nn = float(_dot(zz, tt)), float(_dot(zz, uu))
    if math.isnan(lt) or math.isnan(ln):
        # an infinite loss met a 0 of the other class's mask: boolean masks
        b = is_target
        if w is None:
            lt, ln = float(loss[b].sum()), float(loss[~b].sum())
        else:  # zero weights count for nothing, even at an infinite loss
            pos = w > 0
            tb, nb = b & pos, ~b & pos
            lt, ln = float(_dot(loss[tb], w[tb])), float(_dot(loss[nb], w[nb]))
    return lt, ln, nt, nn


#: Factors ``1 + e^-|l|`` (each in (1, 2]) multiplied before one logarithm
#: in :func:`cllr_bits_sorted`: their product is below ``2**64``.
_GROUP = 64

#: Values per step of :func:`cllr_bits_sorted` (a multiple of ``_GROUP``).
_GROUPED_CHUNK = 1 << 15

#: The smallest Cllr (bits) that :func:`cllr_bits_sorted` gives: below it,
#: the rounding of the products would matter (None: per-trial logarithms).
_GROUPED_MIN_CLLR = 1e-2


def cllr_bits_sorted(tar, non):
    """Cllr in bits of each class's LLRs sorted, one logarithm per 64 trials.

    The cost of a target is ``log(1 + e^-l) = max(-l, 0) + log1p(e)`` and of
    a non-target ``max(l, 0) + log1p(e)``, with ``e = e^-|l|``. The
    ``max`` terms of sorted LLRs are the sum of a prefix (suffix); the
    ``log1p`` terms are summed as ``log2`` of products of up to 64 factors
    ``1 + e`` in (1, 2], which cannot overflow: a logarithm per 64 trials
    instead of one per trial. Each term is then off by about ``2**-52``
    absolutely (the rounding of ``1 + e`` and of the products), below
    ``1e-13`` of a Cllr of at least ``1e-2``.

    Parameters
    ----------
    tar, non : ndarray of shape (n_tar,) and (n_non,), float64
        The target and the non-target LLRs, each increasing; not modified.

    Returns
    -------
    cllr : float or None
        ``(mean target cost + mean non-target cost) / 2`` in bits, as
        :func:`cllr_sums` gives it to within ``1e-13`` relative; None if a
        class is empty, an LLR is infinite (or so large that a sum of them
        could overflow) or the Cllr is below ``1e-2`` (then the per-trial
        logarithms of :func:`cllr_sums` are due).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._kernel._special import cllr_bits_sorted
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(100_000) < 0.3
    >>> llr = np.where(y, 2.0, -2.0) + 2.0 * rng.standard_normal(y.size)
    >>> lt, ln, nt, nn = cllr_sums(llr, y, None)
    >>> value = cllr_bits_sorted(np.sort(llr[y]), np.sort(llr[~y]))
    >>> bool(abs(value - (lt / nt + ln / nn) / 2) < 1e-14)
    True
    """
    if not (tar.shape[0] and non.shape[0]):
        return None
    # infinite LLRs, or sums of LLRs that could overflow: per trial
    top = max(abs(float(v)) for v in (tar[0], tar[-1], non[0], non[-1]))
    if not top * (tar.shape[0] + non.shape[0]) < 1e300:
        return None
    # the max terms: minus the sum of the negative target LLRs, the sum of
    # the positive non-target LLRs (nats)
    relu_tar = -float(np.add.reduce(tar[: np.searchsorted(tar, 0.0)]))
    relu_non = float(np.add.reduce(non[np.searchsorted(non, 0.0, side="right") :]))
    loss_tar = relu_tar / _LOG2 + _log1p_exp_bits(tar)
    loss_non = relu_non / _LOG2 + _log1p_exp_bits(non)
    value = 0.5 * (loss_tar / tar.shape[0] + loss_non / non.shape[0])
    return value if value >= _GROUPED_MIN_CLLR else None


def _log1p_exp_bits(x):
    """``sum(log2(1 + e^-|x|))`` as ``log2`` of products of 64 factors."""
    size = min(_GROUPED_CHUNK, x.shape[0])
    f = np.empty(size)
    prod = np.empty(size // _GROUP + 1)
    total = 0.0
    for start in range(0, x.shape[0], _GROUPED_CHUNK):
        xc = x[start : start + _GROUPED_CHUNK]
        m = xc.shape[0]
        fc = f[:m]
        np.abs(xc, out=fc)
        np.negative(fc, out=fc)
        np.exp(fc, out=fc)
        fc += 1.0
        whole = m - m % _GROUP
        if whole:
            rows = fc[:whole].reshape(_GROUP, -1)  # strided groups: elementwise
            p = np.multiply.reduce(rows, axis=0, out=prod[: whole // _GROUP])
            total += float(np.add.reduce(np.log2(p, out=p)))
        if whole < m:
            rest = np.log2(fc[whole:], out=fc[whole:])
            total += float(np.add.reduce(rest))
    return total


#: Up to this many trials, the four dot products of :func:`_cllr_chunk` are
#: one einsum call, which then runs the same loop over each pair of rows as
#: four calls (the same sums, bit for bit); above NumPy's iterator buffer
#: (8192 values) it would split the rows, and so the sums, differently.
_FUSED_MAX = 4096


def scaled_affine(X, W, b):
    """``X @ W.T + b`` as ``(Z, s)``, row ``i`` being ``ldexp(Z[i], s[i])``.

    Scores near the float maximum (1.7e308) make the products of ``X @ W.T``
    overflow (a warning, and ``inf - inf`` in a softmax) even where the
    result is finite or only its differences matter. Rows where a product
    could overflow are computed with ``X[i]`` and ``W`` scaled by powers of
    two (exact) and ``s[i]`` the exponent taken out; every other row has
    ``s[i] = 0`` and ``Z[i]`` exactly ``X[i] @ W.T + b``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite scores.
    W : ndarray of shape (n_outputs, n_features)
    b : ndarray of shape (n_outputs,)

    Returns
    -------
    Z : ndarray of shape (n_samples, n_outputs)
    s : ndarray of int of shape (n_samples,)
    """
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ex = np.frexp(np.abs(X).max(axis=1, initial=0.0))[1]
    ew = int(np.frexp(np.abs(W).max(initial=0.0))[1])
    # |X[i] @ W.T| <= n_features * 2**(ex + ew): overflow needs ex + ew near 1024
    limit = np.finfo(np.float64).maxexp - 1 - int(X.shape[1]).bit_length()
    big = ex + ew >= limit
    s = np.zeros(X.shape[0], dtype=ex.dtype)
    if big.any():
        # the bound column by column (the largest |x| and the largest |w|
        # may be in different columns: scores of 1e-200 weighted by 1e200
        # and of 1e200 by 1e-200 are no overflow)
        ewk = np.frexp(np.abs(W).max(axis=0, initial=0.0))[1]
        exk = np.frexp(X[big])[1]
        exk += ewk
        s[big] = exk.max(axis=1, initial=np.iinfo(exk.dtype).min)
        big[big] = s[big] >= limit
        s[~big] = 0
    Z = np.empty((X.shape[0], W.shape[0]))
    small = ~big
    Z[small] = X[small] @ W.T + b
    if big.any():
        # X[i, k] W[o, k] 2**-s[i], each factor scaled to at most 1, exactly
        # (but for terms below 2**-1022 of the bound, which do not count)
        Xs = np.ldexp(X[big], ewk - s[big, None])
        Z[big] = Xs @ np.ldexp(W, -ewk).T + np.ldexp(b, -s[big, None])
    return Z, s
