"""The suite's one factory of test data: scores, labels and weights.

Every test that needs random trials asks :func:`make_scores` (or the
``make_scores`` fixture of ``conftest.py``, the same function) rather than a
private ``_data`` helper of its own. The draws are part of the contract:
tests whose expected numbers depend on the data (a recorded reference, a
threshold) keep their numbers only as long as the draws do not change, so
change the order of the draws only together with those tests.
"""

import numpy as np

__all__ = ["VALUE_KINDS", "make_scores", "make_values"]

KINDS = ("binary", "multiclass", "features", "probability")


def _pair(value):
    """``(non-target, target)`` from a pair or one value for both classes."""
    return value if isinstance(value, tuple) else (value, value)


def make_scores(
    n=400,
    *,
    seed=0,
    kind="binary",
    prior=0.3,
    loc=(0.0, 1.5),
    scale=1.0,
    n_columns=None,
    shared=0.0,
    spread=(0.0, 0.0),
    both_first=False,
    decimals=None,
    inf=0.0,
    weights=False,
    weight_range=None,
    labels=int,
    n_classes=2,
    n_features=4,
    class_prior=None,
    separation=2.0,
    power=1.0,
):
    """Random trials ``(X, y, sample_weight)`` of one of four kinds.

    Parameters
    ----------
    n : int
        Number of trials.
    seed : int or numpy Generator
        Seed of ``np.random.default_rng``; a Generator continues its stream.
    kind : {"binary", "multiclass", "features", "probability"}
        ``"binary"``: detection scores, Gaussian per class (``X`` of shape
        ``(n,)``, or ``(n, n_columns)``). ``"multiclass"``: one score per
        class, ``separation`` above the rest for the true class, plus
        standard normal noise (``X`` of shape ``(n, n_classes)``).
        ``"features"``: features of a classification problem for a
        classifier to score: ``X`` standard normal of shape
        ``(n, n_features)``, the label a threshold (two classes) or the
        quantile bin (more) of ``X[:, 0] + 0.5 X[:, 1] + noise``.
        ``"probability"``: posteriors, miscalibrated by ``power``: two
        classes, ``p`` uniform and ``P(y=1) = p ** power``; more, softmax
        posteriors of ``N(0, 2)`` logits with labels drawn from the softmax
        of ``power`` times the logits.
    prior : float
        ``"binary"``: the probability of a target.
    loc, scale : float or tuple
        ``"binary"``: mean and standard deviation of the scores, or a tuple
        (non-target, target); an item may be an array, one value per column.
    n_columns : int or None
        ``"binary"``: columns of scores (systems), drawn column after column.
    spread : tuple
        ``"binary"`` with ``n_columns``: systems of growing spread, column
        ``j``'s target mean ``loc[1] + spread[0] * j`` and standard
        deviation ``scale + spread[1] * j``.
    shared : float
        ``"binary"``: weight of a standard normal component common to the
        columns (correlated systems).
    both_first : bool
        ``"binary"``: the first two trials a target and a non-target.
    decimals : int or None
        ``"binary"``: scores rounded to this many decimals (ties).
    inf : float
        ``"binary"``: probability of a score ``+inf`` and, independently,
        of ``-inf``.
    weights : bool
        Whether to draw sample weights: integers in [0, 3] (zero weights are
        ignored trials; the first trial of each class weighs 1, so that both
        classes stay), or uniform in ``weight_range``.
    weight_range : (low, high) or None
        The range of uniform weights.
    labels : type
        dtype of ``y`` for two classes (``int`` 0 / 1 or ``bool``).
    n_classes : int
        Classes of ``"multiclass"``, ``"features"`` and ``"probability"``.
    n_features : int
        ``"features"``: columns of ``X``.
    class_prior : sequence or None
        ``"multiclass"``: class probabilities (uniform if None).
    separation : float
        ``"multiclass"``: the true class's score shift.
    power : float
        ``"probability"``: the miscalibration (1: calibrated).

    Returns
    -------
    X : ndarray
        Scores, features or probabilities.
    y : ndarray of shape (n,)
        Labels, ``0 .. n_classes - 1`` (``labels`` dtype for two classes).
    sample_weight : ndarray of shape (n,) or None
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    rng = np.random.default_rng(seed)
    if kind == "binary":
        y = rng.random(n) < prior
        if both_first:
            y[:2] = [True, False]
        yy = y if n_columns is None else y[:, None]
        (loc0, loc1), (scale0, scale1) = _pair(loc), _pair(scale)
        if n_columns is not None and spread != (0.0, 0.0):
            j = np.arange(n_columns)
            loc1 = loc1 + spread[0] * j
            scale0, scale1 = scale0 + spread[1] * j, scale1 + spread[1] * j
        centre = np.where(yy, loc1, loc0)
        if shared:
            common = rng.normal(0.0, 1.0, n)
            centre = centre + shared * (common if yy is y else common[:, None])
        if n_columns is None:
            z = rng.normal(size=n)
        else:
            z = rng.normal(size=(n_columns, n)).T
        X = centre + np.where(yy, scale1, scale0) * z
        if decimals is not None:
            X = np.round(X, decimals)
        if inf:
            X[rng.random(n) < inf] = np.inf
            X[rng.random(n) < inf] = -np.inf
        y = y.astype(labels)
    elif kind == "multiclass":
        y = rng.choice(n_classes, n, p=class_prior)
        X = separation * np.eye(n_classes)[y] + rng.normal(size=(n, n_classes))
    elif kind == "features":
        X = rng.normal(size=(n, n_features))
        latent = X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n)
        if n_classes == 2:
            y = (latent > 0.3).astype(labels)
        else:
            cuts = np.quantile(latent, np.linspace(0, 1, n_classes + 1)[1:-1])
            y = np.digitize(latent, cuts)
    else:  # probability
        if n_classes == 2:
            X = rng.random(n)
            y = (rng.random(n) < X**power).astype(labels)
        else:
            logits = rng.normal(0, 2.0, (n, n_classes))
            X = np.exp(logits - logits.max(axis=1, keepdims=True))
            X /= X.sum(axis=1, keepdims=True)
            soft = np.exp(power * logits)
            soft /= soft.sum(axis=1, keepdims=True)
            y = (rng.random(n)[:, None] > np.cumsum(soft, axis=1)).sum(axis=1)
            y = np.minimum(y, n_classes - 1)
    if not weights:
        w = None
    elif weight_range is not None:
        w = rng.uniform(*weight_range, n)
    else:
        w = rng.integers(0, 4, n).astype(float)
        if n_classes == 2 and kind in ("binary", "features"):
            w[np.argmax(y)] = w[np.argmin(y)] = 1.0
    return X, y, w


#: The value families of :func:`make_values`.
VALUE_KINDS = ("uniform", "ties", "signed", "extreme", "clustered", "constant")


def make_values(kind, n, rng):
    """``n`` unlabelled values of one family, for the kernels that order or
    bin values by their bits (order statistics, quantiles): uniform, rounded
    to ties, signed and wide, extreme (``+-inf``, ``+-0``, ``1e300``,
    ``1e-300``), two clusters far apart in the exponent, or one constant."""
    if kind == "uniform":
        return rng.random(n)
    if kind == "ties":
        return np.round(rng.random(n), 2)
    if kind == "signed":
        return rng.normal(size=n) * 1e3
    if kind == "extreme":
        return rng.choice([-np.inf, np.inf, 0.0, -0.0, 1e300, -5.0, 1e-300], n)
    if kind == "clustered":
        return np.concatenate([rng.random(n // 2) * 1e-12, 1 + rng.random(n - n // 2)])
    if kind == "constant":
        return np.full(n, 0.3)
    raise ValueError(f"kind must be one of {VALUE_KINDS}, got {kind!r}")
