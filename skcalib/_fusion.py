"""Linear fusion of several systems' scores into one calibrated LLR.

The objective (:class:`FusionObjective`) is the prior-weighted Beta-family
rule of the fused LLR ``X @ coef + intercept``; the solver is the package's
one Newton solver, which knows neither this objective nor where the data
live.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._affine import (
    RULE_CONSTRAINTS,
    SOLVER_CONSTRAINTS,
)
from ._base import BaseCalibrator
from ._dask import blockwise
from ._kernel._linear_rule import (
    RuleObjective,
    chunk_class_extremes,
    penalty_variance,
)
from ._kernel._solver import (
    DEFAULT_L2,
    MAX_LLR_RANGE,
    fit_standardizer,
    minimize,
    row_blocks,
    warn_convergence,
)
from ._kernel._special import logit, rule_terms, scaled_affine, uninformative_objective
from .utils._calibrator_docs import newton_docs
from .utils._docstrings import fill_doc
from .utils._stats import class_totals

__all__ = ["ProperScoringFusion"]


def _chunk_class_totals(chunk):
    return np.array(class_totals(chunk[1], chunk[2]))


def _llr_class_extremes(coef, intercept, chunk):
    X, t = chunk[:2]
    return chunk_class_extremes((X @ coef + intercept, t))


def _separating_bound(data, coef, intercept):
    """The documented bound if the fused LLR separates the classes, else None.

    Newton's iterates on separable data grow only slowly towards the
    infimum (a step at the gap), so a fit that ran out of iterations is
    checked with one pass: if its LLR already separates the classes, every
    rule's cost decreases along that direction without end. The map is then
    scaled until the LLRs span ``MAX_LLR_RANGE`` nats, with the threshold
    in the middle of the gap, as the one-column calibrators do.
    """
    neg_lo_tar, hi_tar, neg_lo_non, hi_non = data.reduce(
        partial(_llr_class_extremes, coef, intercept), np.maximum
    )
    lo_tar, lo_non = -neg_lo_tar, -neg_lo_non
    if not hi_non < lo_tar:
        return None
    scale = MAX_LLR_RANGE / (max(hi_tar, hi_non) - min(lo_tar, lo_non))
    mid = 0.5 * (hi_non + lo_tar)
    return coef * scale, float((intercept - mid) * scale)


def _weighted_gram(U, h):
    """``U^T diag(h) U`` from one matrix-vector product per row of its upper
    triangle (BLAS's matrix product of the strided ``(k, n)`` and ``(n, k)``
    blocks takes a third longer at ``k = 5``)."""
    W = U * h[:, None]
    k = U.shape[1]
    out = np.empty((k, k))
    for i in range(k):
        out[i, i:] = out[i:, i] = U[:, i] @ W[:, i:]
    return out


class FusionObjective(RuleObjective):
    """Prior-weighted Beta-rule objective of a fused LLR ``X @ coef + intercept``.

    With ``u_i`` the standardized scores of trial ``i`` (one column per
    system, see :class:`skcalib._kernel._solver.Standardizer`) and
    ``theta = (c_1, ..., c_k, b)`` it computes

    .. math::

        f(\\theta) = \\sum_{i \\in tar} v_i\\, G(x_i; \\alpha, \\beta)
            + \\sum_{i \\in non} v_i\\, G(-x_i; \\beta, \\alpha)
            + \\lambda \\sum_j (coef_j \\sigma_j)^2,
        \\qquad x_i = u_i \\cdot c + b + \\tau,

    with ``G`` the target cost of the Beta family in the log-odds domain
    (:mod:`skcalib._kernel._special`), ``v_i = w_i \\pi / N_{tar}`` for targets and
    ``w_i (1 - \\pi) / N_{non}`` for non-targets, ``tau = logit(pi)``,
    ``coef`` the weights in the units of the raw scores and ``sigma_j`` 1 or,
    with ``l2_variance``, the standard deviation of column ``j``
    (:func:`skcalib._kernel._linear_rule.penalty_variance`). With
    ``U~ = [U, 1]`` the gradient is ``U~^T (v s G')`` (``s = +1`` for
    targets, ``-1`` for non-targets) and the Hessian ``U~^T diag(v G'') U~``.

    Raw chunks are ``(X, is_target, sample_weight)``: float64 of shape
    ``(n, k)``, bool of shape ``(n,)``, float64 of shape ``(n,)`` or None.

    Parameters
    ----------
    standardizer : Standardizer
        Units of the ``k`` score columns.
    class_factors : tuple of float
        ``(pi / N_tar, (1 - pi) / N_non)``.
    alpha, beta : float, default=1.0
        Rule parameters.
    tau : float, default=0.0
        ``logit(pi)``.
    l2 : float, default=0.0
        ``lambda``.
    l2_variance : ndarray of shape (k,), default=None
        ``None``: the penalty is on the raw weights (``sigma_j = 1``). Else
        the variance of each standardized column: the penalty is on the
        weights per standard deviation of their column, and the fit does not
        depend on the units of any column.
    """

    # Larger blocks than one column's: a block's numpy calls (a few dozen,
    # with the Hessian's products per column) cost as much as its
    # arithmetic at 1 << 13 rows; at 1 << 15 a fit of four systems took 8 %
    # less time at 1e5 and 1e6 trials and the same at 1e7.
    chunk_size = 1 << 15

    def __init__(self, **params):
        super().__init__(**params)
        self.n_params = self.standardizer.scale.shape[0] + 1

    def prepare(self, chunk):
        """``s [U, 1]`` (the standardized scores and a column of ones, times
        the class sign ``s``), the target mask and the weights times the
        class factors.

        With the signs in the rows, ``s [U, 1] (c, b + tau)`` is the
        argument of ``G`` (:meth:`terms`), and the products need no sign
        array (a pass reads 8 bytes less per trial). The array is
        column-major: the columns are standardized into contiguous vectors
        (``X`` in any memory order, a row-major one in blocks of rows,
        :func:`~skcalib._kernel._solver.row_blocks`), and the products with blocks
        of its rows are as fast as with row-major blocks.
        """
        X, t, w = chunk[:3]
        n = X.shape[0]
        X = X.reshape(n, -1)
        Us = np.empty((n, self.n_params), order="F")
        v = np.empty(n)
        for rows in row_blocks(X):  # element-wise: the same in any blocks
            wr = None if w is None else w[rows]
            self._prepare_rows(X[rows], t[rows], wr, Us[rows], v[rows])
        return Us, t, v

    def _prepare_rows(self, X, t, w, Us, v):
        sign = Us[:, -1]
        # 2 t - 1: the +1 and -1 of np.where(t, 1.0, -1.0), without its
        # temporary (2.3x faster)
        np.subtract(np.multiply(t, 2.0, out=sign), 1.0, out=sign)
        for j in range(self.n_params - 1):
            u = self.standardizer.transform(X[:, j], column=j, out=Us[:, j])
            u *= sign
        np.copyto(v, np.where(t, self.class_factors[0], self.class_factors[1]))
        if w is not None:
            v *= w

    @property
    def hessian_growth(self):
        """With the logarithmic rule, ``R(step)``: along ``theta + t step``
        the second derivative grows at most as ``exp(R t)`` (None for the
        other rules).

        Each trial's ``G''(z) = sigmoid(z) sigmoid(-z)`` is at least the
        absolute value of its derivative, and ``z`` moves by at most
        ``R = sum_j |step_j| reach_j + |step_b|`` over the data (``reach``:
        the largest ``|u|`` of each standardized column), so ``G''`` grows at most as
        ``exp(R t)``, and so does their weighted sum (the penalty's part is
        constant). The solver certifies its Newton steps with it and skips
        the values (:meth:`terms` with ``value=False``): the logarithm is a
        third of a pass.
        """
        if not self.alpha == self.beta == 1.0:
            return None
        return self._logistic_growth

    def _logistic_growth(self, step):
        return float(np.abs(step) @ np.append(self.standardizer.reach, 1.0))

    def terms(self, theta, chunk, order, value=True):
        """Sums over one prepared chunk: value and, up to ``order``, derivatives.

        With ``value=False`` (``order > 0``, the logarithmic rule) the value
        is not computed (0.0; see :attr:`hessian_growth`).
        """
        Us = chunk[0]
        # z = s (U c + b + tau) = s [U, 1] (c, b + tau): +x for targets, -x
        # for non-targets, the argument of G
        shifted = np.array(theta, dtype=np.float64)
        shifted[-1] += self.tau
        out = [0.0, np.zeros(self.n_params), np.zeros((self.n_params,) * 2)]
        # Blocks of rows keep every temporary in cache (see RuleObjective);
        # one errstate for all of them (a tenth of a block's time each).
        with np.errstate(over="ignore"):
            for start in range(0, Us.shape[0], self.chunk_size):
                rows = slice(start, start + self.chunk_size)
                parts = self._block(shifted, *(a[rows] for a in chunk), order, value)
                for j in range(order + 1):
                    out[j] += parts[j]
        return out[0] if order == 0 else tuple(out[: order + 1])

    def _block(self, shifted, Us, t, v, order, value):
        z = Us @ shifted
        if self.alpha == self.beta:
            g, d1, d2 = rule_terms(z, self.alpha, self.beta, order, value=value)
        else:
            n = z.shape[0]
            g = np.empty(n)
            d1 = None if order < 1 else np.empty(n)
            d2 = None if order < 2 else np.empty(n)
            rules = ((t, self.alpha, self.beta), (~t, self.beta, self.alpha))
            for mask, p, r in rules:
                parts = rule_terms(z[mask], p, r, order)
                for out, part in zip((g, d1, d2), parts, strict=True):
                    if out is not None:
                        out[mask] = part
        total = 0.0 if g is None else float(g @ v)
        if order == 0:
            return (total,)
        # d/dtheta G(s (U~ theta + tau)) = G' s U~, d2/dtheta2 = G'' U~ U~^T
        # (s^2 = 1)
        grad = np.multiply(d1, v, out=d1) @ Us
        if order == 1:
            return total, grad
        h = np.multiply(d2, v, out=d2)
        return total, grad, _weighted_gram(Us, h)

    def penalty(self, theta, order):
        """``lambda sum_j (coef_j sigma_j)^2`` and, up to ``order``, derivatives."""
        lam = np.zeros(self.n_params)
        if self.l2 > 0:
            lam[:-1] = self._l2_std()
        value = float(lam @ (theta * theta))
        if order == 0:
            return value
        grad = 2.0 * lam * theta
        if order == 1:
            return value, grad
        return value, grad, np.diag(2.0 * lam)

    def span(self, theta):
        """A bound on the spread of the fused LLRs over the training scores."""
        return float(np.abs(theta[:-1]) @ self.standardizer.width)


def fit_linear_rule(data, *, alpha, beta, p_target, l2, tol, max_iter, l2_units="raw"):
    """The fused LLR ``X @ coef + intercept`` minimizing :class:`FusionObjective`.

    ``data`` is a source of ``(X, is_target, sample_weight)`` chunks (in
    memory or on Dask). ``l2_units``: ``'raw'`` penalizes the weights in the
    units of the inputs (inputs with units of their own, as Beta
    calibration's log-probabilities), ``'std'`` per standard deviation of
    each input (scores in any units) and on the normalized objective (the
    same at every ``p_target``). Returns ``(coef, intercept, result)``
    with the :class:`~skcalib._kernel._solver.SolverResult` (its ``status``
    says whether the
    caller should warn; ``"unbounded"`` once the separating bound was
    applied). Shared by :class:`ProperScoringFusion` and
    :class:`~skcalib.BetaCalibrator`.
    """
    w_tar, w_non = data.reduce(_chunk_class_totals)
    std = fit_standardizer(data)
    p = float(p_target)
    class_factors = (p / w_tar, (1.0 - p) / w_non)
    variance = None
    if l2_units == "std" and l2 > 0:
        normalizer = uninformative_objective(alpha, beta, p)
        variance = penalty_variance(data, std, class_factors, normalizer)
    objective = FusionObjective(
        standardizer=std,
        class_factors=class_factors,
        alpha=float(alpha),
        beta=float(beta),
        tau=logit(p),
        l2=float(l2),
        l2_variance=variance,
    )
    res = minimize(
        objective,
        data,
        np.zeros(objective.n_params),
        tol=tol,
        max_iter=max_iter,
        presolve=objective.presolve(),
    )
    theta = res.theta.copy()
    theta[:-1][std.constant] = 0.0  # an all-equal column carries nothing
    coef, intercept = std.to_raw(theta[:-1], theta[-1])
    if res.status == "max_iter" and l2 == 0:
        bound = _separating_bound(data, coef, intercept)
        if bound is not None:
            coef, intercept = bound
            res.status = "unbounded"
    return coef, float(intercept), res


@fill_doc(newton_docs())
class ProperScoringFusion(BaseCalibrator):
    """Linear fusion of several systems' scores into one calibrated LLR.

    Maps the scores ``x = (x_1, ..., x_k)`` of ``k`` systems for the same
    trial to the natural-log likelihood ratio

    .. math::

        l = \\sum_j w_j x_j + b,

    with the weights ``w`` (``coef_``) and offset ``b`` (``intercept_``)
    minimizing the prior-weighted expected cost of a Beta-family proper
    scoring rule at the target prior ``p_target`` plus an L2 penalty:

    .. math::

        \\bar C = \\frac{\\pi}{N_{tar}} \\sum_{i \\in tar} w_i C(q_i, tar)
        + \\frac{1-\\pi}{N_{non}} \\sum_{i \\in non} w_i C(q_i, non) \\\\
        + \\lambda \\bar C_0 \\sum_j (w_j \\sigma_j)^2,
        \\qquad q_i = \\sigma(l_i + \\operatorname{logit}\\pi),

    with ``pi = p_target``, ``C`` the rule with parameters
    ``(alpha, beta)``, ``sigma_j`` the standard deviation of system
    ``j``'s training scores, each class weighted as in the objective
    (``pi / N_tar`` and ``(1 - pi) / N_non`` times the sample weights), and
    ``Cbar_0`` the objective of the uninformative system ``l = 0``: the
    penalty is on the normalized objective.
    ``alpha = beta = 1`` is the logistic-regression fusion of the
    speaker-recognition toolkits (prior-weighted logistic regression); with
    one system it is :class:`ProperScoringAffineCalibrator`.

    Parameters
    ----------
    alpha : float, default=1.0
        Left-tail parameter of the rule (> 0).
    beta : float, default=1.0
        Right-tail parameter of the rule (> 0).
    p_target : float in (0, 1), default=0.5
        Target prior of the application the objective is tuned for.
    l2 : float, default=1e-5
        Penalty ``lambda`` on the squared weights per standard deviation of
        their system's scores, relative to the normalized objective,
        ``lambda Cbar_0 sum_j (w_j sigma_j)^2`` (the offset is not
        penalized): the fit does not depend on the units of any system, and
        ``lambda`` weighs the same at every ``p_target`` and rule. The small
        default keeps the fit finite when a weighted sum of the scores
        separates the classes (few trials), where the unpenalized fit gives
        posteriors of 0 and 1, at a negligible cost elsewhere; ``l2=0`` gives
        the exact unpenalized fit.
    prior : float in (0, 1), default=None
        Target prior of ``predict_proba`` and ``predict``; ``None`` means the
        weighted target proportion of the training data.
    {newton_parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (n_systems,)
        Fusion weights ``w``.
    intercept_ : float
        Offset ``b``.
    n_iter_ : int
        Number of Newton iterations on the full data.
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the target.
    n_features_in_ : int
        Number of systems (score columns) seen in ``fit``.
    calibration_prior_ : float
        Weighted target proportion of the training data.
    prior_ : float
        ``prior`` if given, else ``calibration_prior_``.

    See Also
    --------
    ProperScoringAffineCalibrator : The same objective for each column
        separately.
    sklearn.linear_model.LogisticRegression : With ``alpha = beta = 1``,
        class weights ``p_target / N_tar`` and ``(1 - p_target) / N_non``
        and no penalty it minimizes the objective of ``l2=0`` (shifted by
        ``logit(p_target)`` in the intercept).

    Notes
    -----
    Scores from a classifier's ``predict_proba`` should be log-odds: in
    :class:`CalibratedClassifier` (and :class:`ScoreTransformer`) they are
    ``log p_1 - log p_0`` with the probabilities floored at the classifier's
    resolution (user guide: :ref:`The score a calibrator sees <proba_inputs>`).

    The objective, its gradient and Hessian are sums over the trials, so the
    fit is Newton's method over data in memory or on Dask alike. Rules other
    than the logarithmic one start from the logistic solution.

    References
    ----------
    .. [1] N. Brümmer and G. Doddington, "Likelihood-ratio calibration using
       prior-weighted proper scoring rules", Interspeech 2013.
    .. [2] N. Brümmer and J. du Preez, "Application-independent evaluation of
       speaker detection", Computer Speech and Language 20(2-3), 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib import ProperScoringFusion
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(2000), np.zeros(2000)]
    >>> X = np.c_[rng.normal(y, 1.0), rng.normal(2 * y, 2.0)]  # two systems
    >>> fusion = ProperScoringFusion().fit(X, y)
    >>> [round(float(w), 1) for w in fusion.coef_]  # true LLR: x1 + x2/2 - 1
    [1.0, 0.5]
    >>> round(float(fusion.intercept_), 1)
    -1.0
    >>> fusion.decision_function([[2.0, 2.0]]).round(1).tolist()  # truth: 2.0
    [1.9]
    >>> fusion.transform([[2.0, 2.0]]).shape  # one column: the fused LLR
    (1, 1)
    """

    _output = "llr"
    # The columns are read once, where prepare standardizes them (one copy
    # of them in any case): a column-major copy of the scores first would
    # cost a second copy and its page faults.
    _fit_order = None

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,  # prior
        # the rule and the solver's controls, as for one column
        **RULE_CONSTRAINTS,
        **SOLVER_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        beta=1.0,
        p_target=0.5,
        l2=DEFAULT_L2,
        prior=None,
        tol=1e-8,
        max_iter=100,
    ):
        self._store(locals())

    def _fit(self, data):
        # one model of all the columns: one source of them side by side
        coef, intercept, res = fit_linear_rule(
            data.stacked(),
            alpha=self.alpha,
            beta=self.beta,
            p_target=self.p_target,
            l2=self.l2,
            tol=self.tol,
            max_iter=self.max_iter,
            l2_units="std",
        )
        if res.status != "converged":
            warn_convergence(self, None, res, self.max_iter)
        self.coef_ = coef
        self.intercept_ = intercept
        self.n_iter_ = int(res.n_iter)
        self._n_evals, self._n_sub_evals = res.n_evals, res.n_sub_evals
        return self

    def _transform(self, X):
        Z, e = scaled_affine(X, self.coef_[None, :], np.array([self.intercept_]))
        with np.errstate(over="ignore"):  # an LLR past 1.8e308 is infinite
            return np.ldexp(Z, e[:, None])

    @blockwise(n_out=1)
    def transform(self, X):
        """Fused log-likelihood-ratios as one column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_systems)
            Scores of the systems, one column each (a vector for one system).

        Returns
        -------
        llr : ndarray of shape (n_samples, 1)
            ``X @ coef_ + intercept_`` (natural log).
        """
        X, _ = self._validate_X(X)
        return self._transform(X)

    @blockwise
    def decision_function(self, X):
        """Fused log-likelihood-ratios (natural log).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_systems)
            Scores of the systems, one column each.

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        X, _ = self._validate_X(X)
        return self._transform(X)[:, 0]

    # The base class's posterior and decision views, without its
    # one-column requirement: a fusion has one output whatever its inputs.
    predict_proba = BaseCalibrator.predict_proba
    predict = BaseCalibrator.predict

    def get_feature_names_out(self, input_features=None):
        """The one output column's name, ``["llr"]``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored; present for API consistency.

        Returns
        -------
        feature_names_out : ndarray of str objects
            ``["llr"]``.
        """
        check_is_fitted(self)
        return np.asarray(["llr"], dtype=object)
