"""A classifier calibrated on its own out-of-fold scores.

:class:`CalibratedClassifier` is the skcalib counterpart of scikit-learn's
``CalibratedClassifierCV``: any skcalib calibrator, trained on the
cross-fitted scores of :func:`~skcalib._score_transformer._cross_fit`, with a
calibrated log-likelihood-ratio as ``decision_function``.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy.special import expit
from scipy.special import logit as _logit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    clone,
)
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import check_cv
from sklearn.svm import LinearSVC
from sklearn.utils import get_tags, indexable
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    has_fit_parameter,
)

from ._auto import AutoCalibrator, normalize_one_vs_rest, takes_all_classes
from ._base import BaseCalibrator
from ._score_transformer import (
    _cross_fit,
    _estimator_router,
    _routed_fit_params,
    _routing_enabled,
)
from ._venn_abers import cross_interval, has_interval, warn_small_folds
from .utils._response import (
    choose_proba_input,
    class_response,
    proba_floor,
    proba_inputs,
    resolve_response_method,
    response_scores,
)
from .utils._sklearn_compat import HasMethods, _fit_context
from .utils._validation import check_class_y, check_weights

__all__ = ["CalibratedClassifier"]


def _check_class_counts(cv, y_index: np.ndarray, n_classes: int) -> None:
    """Each class must be able to appear in every fold (as scikit-learn asks)."""
    if isinstance(cv, Integral):
        n_folds = int(cv)
    else:
        n_folds = getattr(cv, "n_splits", None)
        n_folds = n_folds if isinstance(n_folds, Integral) else None
    if n_folds and np.bincount(y_index, minlength=n_classes).min() < n_folds:
        raise ValueError(
            f"Requesting {n_folds}-fold cross-validation but provided less than "
            f"{n_folds} examples for at least one class."
        )


def _takes_all_classes(calibrator) -> bool:
    """Whether ``calibrator`` is natively multiclass (fits K score columns)."""
    return takes_all_classes(calibrator)


def _layout(n_classes: int, per_class: bool) -> str:
    """How classifier output becomes calibrator input (see ``response_scores``)."""
    if per_class:
        return "classes"
    return "binary" if n_classes == 2 else "one_vs_rest"


class _ConstantCalibration:
    """A fitted one-vs-rest calibration that gives one probability everywhere.

    Stands in for the binary calibrator of a class that a (classifier,
    calibrator) pair of ``ensemble=True`` cannot calibrate: probability 0 for
    a class its classifier never saw (as scikit-learn), and the rule of
    succession ``(n_k + 1) / (n + 2)`` (Platt's smoothed target) for a class
    that is absent from, or is all of, its calibration fold.
    """

    def __init__(self, proba: float):
        self.proba = float(proba)

    def predict_proba(self, X):
        n = np.asarray(X).shape[0]
        return np.column_stack([np.full(n, 1.0 - self.proba), np.full(n, self.proba)])

    def __repr__(self):
        return f"_ConstantCalibration(proba={self.proba!r})"


def _known_classes(estimator, classes):
    """Boolean mask of the ``classes`` that a fitted classifier knows.

    A classifier fitted on a cross-validation fold without some of the
    classes knows only those of its fold; ``None`` if it knows them all.
    """
    own = getattr(estimator, "classes_", None)
    if own is None or len(own) == len(classes):
        return None
    return np.isin(classes, own)


def _fit_calibration(calibrator, scores, y_index, n_classes, sample_weight, known):
    """Fitted calibration of ``scores`` (see ``CalibratedClassifier.calibrators_``).

    Binary, or a natively multiclass calibrator: one clone fitted on the
    scores and the class indices (for a classifier that does not know every
    class, on the columns and samples of the classes it knows). Otherwise a
    list of ``n_classes`` clones, the ``k``-th fitted one-vs-rest on column
    ``k``, or a :class:`_ConstantCalibration` where that is impossible.
    """
    if n_classes == 2 or _takes_all_classes(calibrator):
        if known is None:
            return clone(calibrator).fit(scores, y_index, sample_weight)
        cols = np.flatnonzero(known)
        rows = known[y_index]
        return clone(calibrator).fit(
            scores[rows][:, cols],
            np.searchsorted(cols, y_index[rows]),
            None if sample_weight is None else sample_weight[rows],
        )
    weight = np.ones(y_index.shape[0]) if sample_weight is None else sample_weight
    class_weight = np.bincount(y_index, weights=weight, minlength=n_classes)
    total = weight.sum()
    calibrations = []
    for k in range(n_classes):
        if known is not None and not known[k]:
            calibrations.append(_ConstantCalibration(0.0))
        elif class_weight[k] <= 0 or class_weight[k] >= total:
            calibrations.append(
                _ConstantCalibration((class_weight[k] + 1.0) / (total + 2.0))
            )
        else:
            calibrations.append(
                clone(calibrator).fit(
                    scores[:, k], (y_index == k).astype(np.intp), sample_weight
                )
            )
    return calibrations


def _normalize_one_vs_rest(proba: np.ndarray) -> np.ndarray:
    """Rows divided by their sums; a row of zeros becomes uniform (scikit-learn)."""
    return normalize_one_vs_rest(proba)


def _calibrated_proba(calibration, scores, known=None) -> np.ndarray:
    if isinstance(calibration, list):  # one-vs-rest binary calibrators
        proba = np.column_stack(
            [cal.predict_proba(scores[:, k])[:, 1] for k, cal in enumerate(calibration)]
        )
        return _normalize_one_vs_rest(proba)
    if known is None:
        return calibration.predict_proba(scores)
    cols = np.flatnonzero(known)
    proba = np.zeros((scores.shape[0], known.shape[0]))
    proba[:, cols] = calibration.predict_proba(scores[:, cols])
    return proba


def _binary_llr(calibration, scores, prior) -> np.ndarray:
    """Calibrated LLRs of a binary calibration (one or two score columns)."""
    if hasattr(calibration, "decision_function"):
        return calibration.decision_function(scores)
    # a natively multiclass calibrator: log-posterior ratio minus prior log-odds
    log_proba = np.log(calibration.predict_proba(scores))
    return log_proba[:, 1] - log_proba[:, 0] - _logit(prior)


def _move_prior(p, old_prior, new_prior):
    """Posteriors ``p`` at ``old_prior`` moved to ``new_prior`` (same LLR)."""
    if new_prior == old_prior:
        return p
    with np.errstate(divide="ignore"):  # p = 0 or 1 stays so
        return expit(_logit(p) - _logit(old_prior) + _logit(new_prior))


def _calibration_prior(calibration, default) -> float:
    """The prior of ``classes_[1]`` of a fitted binary calibration.

    A binary calibrator's ``prior_``, a multiclass one's ``p_classes_[1]``,
    else ``default`` (the weighted proportion of ``classes_[1]``).
    """
    if hasattr(calibration, "prior_"):
        return float(calibration.prior_)
    if hasattr(calibration, "p_classes_"):
        return float(calibration.p_classes_[1])
    return float(default)


def _training_loss(calibration, scores, y_index, sample_weight, rows, known):
    """Total (weighted) log-loss of a fitted calibration on its training data."""
    proba = _calibrated_proba(calibration, scores, known)
    picked = proba[np.arange(y_index.shape[0]), y_index]
    loss = -np.log(np.maximum(picked, np.finfo(np.float64).tiny))
    return float(loss.sum() if sample_weight is None else sample_weight[rows] @ loss)


#: Share of calibration samples with a probability of exactly 0 or 1 above
#: which :class:`CalibratedClassifier` warns (two thirds: a naive Bayes model
#: on digits has about half, a fully grown decision tree all).
SATURATED_SHARE = 2.0 / 3.0


def _warn_saturated(raw, parts, calibrator):
    """Warn when most calibration probabilities are exactly 0 or 1.

    Such samples are ties for every calibrator (one calibrated value per
    class), whatever the classifier's resolution elsewhere.
    """
    rows = np.concatenate([r for r, _ in parts])
    proba = raw[rows]
    saturated = float(np.mean((proba == 1.0).any(axis=1)))
    if saturated > SATURATED_SHARE:
        warnings.warn(
            f"{saturated:.0%} of the calibration samples have a predict_proba "
            "of exactly 0 or 1: the calibrator cannot rank them and gives each "
            f"class one probability there ({type(calibrator).__name__}). Use a "
            "classifier with smoother probabilities (more trees, a larger "
            "min_samples_leaf, fewer features for naive Bayes) or one with a "
            "decision_function.",
            UserWarning,
            stacklevel=4,
        )


def _splits_with_both_classes(cv, y_index: np.ndarray, n_classes: int, one_vs_rest):
    """The splits whose test fold can train a calibrator (``ensemble=True``).

    A binary or natively multiclass calibrator needs every class: a test fold
    without one of them (``KFold`` on labels sorted by class) cannot train
    one, so its (classifier, calibrator) pair is left out of the ensemble,
    with a warning. One-vs-rest calibrators are kept for every split, as in
    scikit-learn: a class absent from a test fold gets the rule-of-succession
    probability there (see :class:`_ConstantCalibration`). When no test fold
    can train a calibrator (``LeaveOneOut``: one class per test fold), the
    split is rejected before any classifier is fitted, as scikit-learn's
    ``CalibratedClassifierCV`` does.
    """

    def select(splits):
        counts = [np.bincount(y_index[test], minlength=n_classes) for _, test in splits]
        if one_vs_rest:
            usable = np.array([(c > 0).sum() >= 2 for c in counts])
        else:
            usable = np.array([c.min() > 0 for c in counts])
        name = getattr(cv, "cv", cv)  # check_cv wraps iterables
        # a splitter by its repr; an iterable of splits by its length
        name = repr(name) if hasattr(name, "split") else f"{len(splits)} given splits"
        if not usable.any():
            need = "two classes" if one_vs_rest else "them all"
            raise ValueError(
                f"No test fold of `cv` ({name}) holds "
                f"{'two classes' if one_vs_rest else 'every class'}, and "
                "ensemble=True fits a calibrator on each test fold, which needs "
                f"{need}. Use a cross-validation generator whose test folds hold "
                "every class (e.g. StratifiedKFold) or ensemble=False."
            )
        if one_vs_rest:
            return splits
        if not usable.all():
            left_out = ", ".join(str(k) for k in np.flatnonzero(~usable))
            warnings.warn(
                f"Test folds {left_out} (0-based) of `cv` ({name}) lack a "
                "class and cannot train a calibrator: their (classifier, "
                f"calibrator) pairs are left out of the ensemble; "
                f"{int(usable.sum())} of {usable.shape[0]} remain. A stratified "
                "splitter keeps every class in every test fold.",
                UserWarning,
                stacklevel=4,
            )
        return [split for split, keep in zip(splits, usable, strict=True) if keep]

    return select


class CalibratedClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A classifier calibrated with any skcalib calibrator.

    ``fit`` computes out-of-fold scores of ``estimator`` over the splits of
    ``cv`` (fitted in parallel), trains ``calibrator`` on them and fits
    ``estimator`` on all the data; predictions chain the two. This is
    ``make_pipeline(ScoreTransformer(estimator, cv=cv), calibrator)`` as one
    classifier, and the alternative to scikit-learn's
    ``CalibratedClassifierCV(ensemble=False)``. With the same folds,
    ``calibrator=PAVCalibrator()`` gives the probabilities of
    ``method='isotonic'``, and ``PlattCalibrator()`` those of
    ``method='sigmoid'`` for a classifier with a ``decision_function``
    (from ``predict_proba`` it may calibrate the log-odds instead: user
    guide, :ref:`Reproducing CalibratedClassifierCV <reproduce_sklearn>`).

    For ``y`` with K > 2 classes, a binary calibrator is cloned and fitted
    one-vs-rest on each class's score column, and the K probabilities are
    normalized to sum to 1 as scikit-learn does (a row of zeros becomes
    uniform); a natively multiclass calibrator (classifier tag
    ``multi_class=True``) is fitted once on all K columns and used as is. A
    natively multiclass calibrator also works on a binary problem, on two
    score columns: ``(-x/2, x/2)`` from a decision function ``x``, the two
    log-probabilities from ``predict_proba``; so
    ``MulticlassAffineCalibrator(kind='temperature')`` is the temperature
    scaling of ``method='temperature'`` for any number of classes.

    Parameters
    ----------
    estimator : classifier object, default=None
        A classifier with ``decision_function`` or ``predict_proba``
        (the former is preferred, as in ``CalibratedClassifierCV``). With
        ``predict_proba`` only, each calibrator gets the input that suits
        it (``proba_input_``): the probability, the log-odds or the
        log-probabilities, the logarithms taken of probabilities raised to
        ``proba_floor_``; the user guide's :ref:`The score a calibrator
        sees <proba_inputs>` says which calibrator gets which. ``None``
        means ``LinearSVC()``, the default of ``CalibratedClassifierCV``. An
        already fitted classifier wrapped in
        ``sklearn.frozen.FrozenEstimator`` is not refitted: the calibrator is
        then trained on its scores of all of ``X`` (the calibration set), and
        ``cv`` and ``ensemble`` are ignored.
    calibrator : skcalib calibrator, default=None
        Cloned and fitted on the out-of-fold scores (one column; one clone
        per class with K > 2 classes, unless it is multiclass). ``None``
        means ``AutoCalibrator()``: a few candidates stacked with the weights
        of least cross-validated log loss on the calibration scores (see
        Notes for why).
    cv : int, cross-validation generator or iterable, default=5
        Splits for the out-of-fold scores, as in ``CalibratedClassifierCV``:
        an int is the number of folds of a ``StratifiedKFold``; a splitter or
        an iterable of ``(train, test)`` index arrays is used as given (test
        folds must partition the samples).
    ensemble : bool, default=False
        If False, one classifier fitted on all the data and one calibrator
        fitted on all the out-of-fold scores. If True, keep one (classifier,
        calibrator) pair per split, each calibrator fitted on its test fold,
        and average their probabilities, like ``CalibratedClassifierCV``'s
        ``ensemble=True`` (no all-data fit). With a
        :class:`VennAbersCalibrator` this is cross Venn-Abers: the pairs'
        ``(p0, p1)`` are merged by geometric means instead (see
        ``predict_interval``). Each fold calibrates on its own test fold
        only, so more folds make it more conservative: a fold with ``t``
        samples of a class gives it a probability of at most
        ``(t + 1) / (t + 2)``, and ``fit`` warns below 20.
    n_jobs : int, default=None
        Number of jobs for the classifier fits (folds and all-data fit, run
        as one joblib batch). ``None`` means 1 unless in a
        ``joblib.parallel_backend`` context; ``-1`` means all processors.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels; for binary problems ``classes_[1]`` is the target
        class.
    estimators_ : list of estimator objects
        The fitted classifiers: one fitted on all the data, or with
        ``ensemble=True`` one per split.
    calibrators_ : list of calibrator objects
        The fitted calibrators, aligned with ``estimators_``; they are fitted
        on labels 0 / 1 meaning ``classes_[0]`` / ``classes_[1]``. With
        K > 2 classes each entry is a list of K binary calibrators, the
        ``k``-th fitted on labels 1 for ``classes_[k]`` and 0 for the rest,
        or one multiclass calibrator fitted on labels ``0..K-1``.
    prior_ : float
        The target prior of ``predict_proba`` and ``predict``: the
        calibrator's ``prior_`` (its ``prior``, or by default the weighted
        target proportion of the training data), averaged over the pairs with
        ``ensemble=True``. Binary problems only.
    response_method_ : str
        The classifier's method that gives the scores.
    proba_floor_ : float or None
        With ``predict_proba``: the floor of the probabilities before their
        logarithm, half the smallest non-zero probability in the calibration
        data but at least 1e-12; ``None`` for a decision function.
    proba_input_ : {'probability', 'log_odds'} or None
        With ``predict_proba`` and a binary (or one-vs-rest) calibrator: the
        input it was fitted on; ``None`` otherwise.
    n_features_in_ : int
        Number of features seen by the classifier, if it records it.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen by the classifier, if it records them.

    See Also
    --------
    ScoreTransformer : The out-of-fold scores as a pipeline step.
    AutoCalibrator : The default calibrator.
    sklearn.calibration.CalibratedClassifierCV : scikit-learn's version
        (sigmoid, isotonic or temperature calibration).

    Notes
    -----
    Why :class:`AutoCalibrator` by default: no single method is best for
    every classifier and calibration set size. PAV-LLR corrects any monotone
    distortion but needs data; Platt's sigmoid of the probability copes with
    saturated probabilities (forests); temperature scaling is the robust
    choice with many classes and few samples. The default scores each by
    the log loss of its out-of-fold posteriors on the calibration scores
    (fixed folds) and mixes their posteriors with the weights of least
    out-of-fold log loss (stacking); ``calibrators_[0].weights_`` gives
    them. On the user guide's panel of real data sets it is better on
    average than the best of scikit-learn's sigmoid, isotonic and
    temperature calibration, and within 5 % of it in all but a few cells
    with calibration sets of a few dozen samples (user guide:
    :ref:`which_calibrator`).

    The decision function is the calibrated LLR :math:`\\ell`, and
    ``predict_proba`` is the posterior at ``prior_``:

    .. math::

        P(\\text{classes\\_[1]} \\mid x) = \\sigma(\\ell + \\operatorname{logit}
        \\pi), \\qquad \\text{predict: accept iff } \\ell \\ge
        -\\operatorname{logit}\\pi.

    With ``ensemble=True`` the probability is the mean of the pairs'
    probabilities and :math:`\\ell` is ``logit(mean) - logit(prior_)``.

    One-vs-rest with K classes, :math:`f_k` the calibrated probability of
    class :math:`k` against the rest and :math:`s_k` its score:

    .. math::

        P(\\text{classes\\_[k]} \\mid x) = \\frac{f_k(s_k(x))}
        {\\sum_{j} f_j(s_j(x))};

    ``predict`` is the most probable class and ``decision_function`` the log
    of ``predict_proba``.

    Classes missing from a fold are handled as in scikit-learn. A classifier
    fitted on a training fold without class ``k`` gives it probability 0 in
    the out-of-fold scores (as ``cross_val_predict``), and its pair of
    ``ensemble=True`` gives class ``k`` probability 0. A one-vs-rest
    calibration whose test fold lacks class ``k`` (or has nothing else)
    gives ``k`` the constant rule-of-succession probability
    :math:`(n_k + 1) / (n + 2)`. With ``sklearn.set_config(enable_metadata_routing=
    True)``, ``sample_weight`` and the other fit parameters reach the
    classifier only as it requests them (``set_fit_request``), as in
    ``CalibratedClassifierCV``; the calibrator always gets ``sample_weight``.

    References
    ----------
    .. [1] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
       proper scoring rules", 2013.
    .. [2] R. Rakotomalala, "Normalisation des scores" (Platt and isotonic
       calibration, reliability diagrams), course notes.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcalib import CalibratedClassifier, PAVCalibrator
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    >>> clf = CalibratedClassifier(LogisticRegression()).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> llr = clf.decision_function(X[:2])  # calibrated LLRs (natural log)
    >>> bool(np.isfinite(llr).all())
    True
    >>> iso = CalibratedClassifier(LogisticRegression(), PAVCalibrator()).fit(X, y)
    >>> p = iso.predict_proba(X)[:, 1]
    >>> bool(p.min() >= 0 and p.max() <= 1)
    True

    Three classes: one calibrator per class, probabilities summing to 1.

    >>> y3 = np.digitize(X[:, 0] + rng.normal(size=400), [-0.5, 0.5])
    >>> clf3 = CalibratedClassifier(LogisticRegression(), PAVCalibrator()).fit(X, y3)
    >>> len(clf3.calibrators_[0])
    3
    >>> bool(np.allclose(clf3.predict_proba(X).sum(axis=1), 1.0))
    True
    """

    #: binary ``decision_function`` is the calibrated natural-log LLR
    _decision_function_is_llr = True

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"]), None],
        "calibrator": [HasMethods(["fit", "transform"]), None],
        "cv": ["cv_object"],
        "ensemble": ["boolean"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self, estimator=None, calibrator=None, *, cv=5, ensemble=False, n_jobs=None
    ):
        self.estimator = estimator
        self.calibrator = calibrator
        self.cv = cv
        self.ensemble = ensemble
        self.n_jobs = n_jobs

    def _get_estimator(self):
        if self.estimator is not None:
            return self.estimator
        estimator = LinearSVC()
        if _routing_enabled():  # the default classifier takes the weights
            estimator.set_fit_request(sample_weight=True)
        return estimator

    def _get_calibrator(self):
        return AutoCalibrator() if self.calibrator is None else self.calibrator

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and the calibrator on its out-of-fold scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, in any form the classifier accepts.
        y : array-like of shape (n_samples,)
            Target of 2 or more classes (binary: ``classes_[1]`` is the
            target).
        sample_weight : array-like of shape (n_samples,), default=None
            Used by the calibrator and, if its ``fit`` accepts them, by the
            classifier (otherwise a warning says that only the calibration is
            weighted, as in scikit-learn). With metadata routing enabled, the
            classifier gets them only if it requests them.
        **fit_params : dict
            Other parameters of the classifier's ``fit``; arrays of length
            ``n_samples`` are restricted to each training fold. With metadata
            routing enabled, the classifier gets those it requests and the
            splitter those it requests (e.g. ``groups``).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = indexable(X, y)
        y, classes, y_index = check_class_y(y, owner=type(self).__name__)
        check_consistent_length(X, y)
        sample_weight = check_weights(sample_weight, y.shape[0])
        estimator = self._get_estimator()
        calibrator = self._get_calibrator()
        n_classes = classes.shape[0]
        # an AutoCalibrator is binary too (a BaseCalibrator): one score column
        per_class = _takes_all_classes(calibrator) and not (
            n_classes == 2 and isinstance(calibrator, BaseCalibrator)
        )
        one_vs_rest = n_classes > 2 and not per_class
        layout = _layout(n_classes, per_class)
        frozen = isinstance(estimator, FrozenEstimator)
        split_params = {}
        if _routing_enabled():
            fit_params, split_params = _routed_fit_params(
                self, "fit", sample_weight, fit_params
            )
            estimator_weight = None  # in fit_params if the classifier requests it
        else:
            estimator_weight = sample_weight
            if (
                sample_weight is not None
                and not frozen  # a frozen model is not fitted: nothing to weight
                and not has_fit_parameter(estimator, "sample_weight")
            ):
                warnings.warn(
                    f"Since {type(estimator).__name__} does not appear to accept "
                    "sample_weight, sample weights will only be used for the "
                    "calibration itself.",
                    UserWarning,
                    stacklevel=2,
                )
                estimator_weight = None
        self.classes_ = classes

        if frozen:
            method = resolve_response_method(estimator, "auto")
            if n_classes > 2 and not np.array_equal(estimator.classes_, classes):
                raise ValueError(
                    f"The frozen classifier's classes {estimator.classes_.tolist()} "
                    f"differ from those of `y` {classes.tolist()}."
                )
            raw = class_response(estimator, X, method, classes)
            estimators = [estimator]
            parts = [(np.arange(y.shape[0]), None)]
        else:
            _check_class_counts(self.cv, y_index, n_classes)
            cv = check_cv(self.cv, y, classifier=True)
            raw, splits, fold_estimators, full_estimator, method = _cross_fit(
                estimator,
                X,
                y,
                cv=cv,
                response_method="auto",
                sample_weight=estimator_weight,
                fit_params=fit_params,
                n_jobs=self.n_jobs,
                fit_full=not self.ensemble,
                classes=classes,
                split_params=split_params,
                select_splits=(
                    _splits_with_both_classes(cv, y_index, n_classes, one_vs_rest)
                    if self.ensemble
                    else None
                ),
            )
            if self.ensemble:
                estimators = fold_estimators
                parts = [
                    (test, _known_classes(est, classes))
                    for (_, test), est in zip(splits, fold_estimators, strict=True)
                ]
            else:
                estimators = [full_estimator]
                parts = [(np.arange(y.shape[0]), None)]

        def calibrate(scores):
            """One calibration per part (rows, known classes) of the data."""
            return [
                _fit_calibration(
                    calibrator,
                    scores[rows],
                    y_index[rows],
                    n_classes,
                    None if sample_weight is None else sample_weight[rows],
                    known,
                )
                for rows, known in parts
            ]

        floor, proba_input = None, None
        if method == "predict_proba":
            floor = proba_floor(raw[np.concatenate([rows for rows, _ in parts])])
            _warn_saturated(raw, parts, calibrator)
            candidates = proba_inputs(calibrator) if layout != "classes" else ()
            if len(candidates) == 1:
                proba_input = candidates[0]
        if method == "predict_proba" and len(candidates) > 1:
            fits, losses = {}, {}
            for candidate in candidates:
                scores = response_scores(raw, method, layout, floor, candidate)
                fits[candidate] = calibrate(scores)
                losses[candidate] = sum(
                    _training_loss(
                        cal, scores[rows], y_index[rows], sample_weight, rows, known
                    )
                    for cal, (rows, known) in zip(fits[candidate], parts, strict=True)
                )
            proba_input = choose_proba_input(losses)
            calibrations = fits[proba_input]
        else:
            calibrations = calibrate(
                response_scores(raw, method, layout, floor, proba_input)
            )

        if self.ensemble and has_interval(calibrations[0]):
            positive = np.ones(y.shape[0])
            if sample_weight is not None:
                positive = sample_weight > 0
            warn_small_folds(
                [
                    np.bincount(y_index[rows], positive[rows], minlength=n_classes)
                    for rows, _ in parts
                ],
                classes,
            )
        self.estimators_ = estimators
        self.calibrators_ = calibrations
        self.response_method_ = method
        self.proba_floor_ = floor
        self.proba_input_ = proba_input
        if n_classes == 2:
            weight = np.ones(y.shape[0]) if sample_weight is None else sample_weight
            target = weight[y_index == 1].sum() / weight.sum()
            self.prior_ = float(
                np.mean([_calibration_prior(c, target) for c in calibrations])
            )
        elif "prior_" in self.__dict__:  # left over from an earlier binary fit
            del self.prior_
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimators[0], name):
                setattr(self, name, getattr(estimators[0], name))
            elif name in self.__dict__:  # left over from an earlier fit
                delattr(self, name)
        return self

    def _scores(self, estimator, X):
        calibration = self.calibrators_[0]
        one_vs_rest = isinstance(calibration, list)
        per_class = (
            not one_vs_rest
            and _takes_all_classes(calibration)
            and not (
                self.classes_.shape[0] == 2 and isinstance(calibration, BaseCalibrator)
            )
        )
        raw = class_response(estimator, X, self.response_method_, self.classes_)
        layout = _layout(self.classes_.shape[0], per_class)
        return response_scores(
            raw, self.response_method_, layout, self.proba_floor_, self.proba_input_
        )

    def _pair_proba(self, estimator, calibration, X):
        known = _known_classes(estimator, self.classes_)
        return _calibrated_proba(calibration, self._scores(estimator, X), known)

    def predict_proba(self, X):
        """Calibrated posterior probabilities.

        Binary: the posteriors at ``prior_``. Multiclass: the one-vs-rest
        probabilities normalized to sum to 1 (a row of zeros becomes uniform,
        as in scikit-learn), or those of a multiclass calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        if len(self.calibrators_) == 1:
            return self._pair_proba(self.estimators_[0], self.calibrators_[0], X)
        if has_interval(self.calibrators_[0]):  # cross Venn-Abers
            return self._cross_venn_abers_proba(X)
        total = sum(
            self._pair_proba(est, cal, X)
            for est, cal in zip(self.estimators_, self.calibrators_, strict=True)
        )
        return total / len(self.calibrators_)

    def _merged_interval(self, X):
        return cross_interval(
            self.calibrators_,
            lambda i: self._scores(self.estimators_[i], X),
        )

    def _cross_venn_abers_proba(self, X):
        p = self._merged_interval(X)[0]
        if p.ndim == 2:
            # each class's merged probability is at its folds' calibration
            # priors: move it to their prior_ (the calibrator's prior), as
            # one fold's predict_proba does, then normalize
            for k in range(p.shape[1]):
                fitted = [c[k] for c in self.calibrators_ if hasattr(c[k], "prior_")]
                if fitted:
                    p[:, k] = _move_prior(
                        p[:, k],
                        np.mean([c.calibration_prior_ for c in fitted]),
                        np.mean([c.prior_ for c in fitted]),
                    )
            return _normalize_one_vs_rest(p)
        calibration_prior = np.mean([c.calibration_prior_ for c in self.calibrators_])
        proba = np.empty((p.shape[0], 2))
        proba[:, 1] = _move_prior(p, calibration_prior, self.prior_)
        proba[:, 0] = 1.0 - proba[:, 1]
        return proba

    @available_if(lambda self: has_interval(self._get_calibrator()))
    def predict_interval(self, X):
        """Venn-Abers interval ``(p0, p1)`` of a Venn-Abers calibrator.

        With ``ensemble=True`` (cross Venn-Abers) the folds' pairs are merged
        by geometric means into ``(1 - GM(1 - p0), GM(p1))``, the pair whose
        log-loss merge is ``predict_proba`` (Vovk, Petej and Fedorova, 2015).
        Unlike one fold's pair, the merged pair may be inverted: folds that
        disagree by more than their own widths (too little calibration data
        per fold) give ``p0 > p1``. ``predict_proba`` always lies between
        the two.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        interval : ndarray of shape (n_samples, 2) or (n_samples, n_classes, 2)
            ``(p0, p1)`` of ``classes_[1]`` at the calibration prior; with
            K > 2 classes, of each class against the rest (not normalized).
        """
        check_is_fitted(self)
        _, p0, p1 = self._merged_interval(X)
        return np.stack([p0, p1], axis=-1)

    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (binary) or log-posteriors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        llr : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: the natural-log LLR in favour of ``classes_[1]``; may be
            infinite with a calibrator that allows it (e.g.
            ``PAVCalibrator`` with ``extremes='raw'``). Multiclass: the log of
            ``predict_proba`` (``-inf`` for a probability of 0).
        """
        check_is_fitted(self)
        if self.classes_.shape[0] > 2:
            with np.errstate(divide="ignore"):
                return np.log(self.predict_proba(X))
        if len(self.calibrators_) == 1:
            est, cal = self.estimators_[0], self.calibrators_[0]
            return _binary_llr(cal, self._scores(est, X), self.prior_)
        p1 = self.predict_proba(X)[:, 1]
        with np.errstate(divide="ignore"):
            return _logit(p1) - _logit(self.prior_)

    def predict(self, X):
        """Bayes decisions at ``prior_`` (binary) or the most probable class.

        Binary: ``classes_[1]`` is decided iff ``llr >= -logit(prior_)``,
        ties included. Multiclass: the class of highest ``predict_proba``
        (the first one on a tie), as in scikit-learn.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        if self.classes_.shape[0] > 2:
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        if len(self.calibrators_) == 1 and hasattr(self.calibrators_[0], "prior_"):
            est, cal = self.estimators_[0], self.calibrators_[0]
            accept = cal.predict(self._scores(est, X)).astype(np.intp)
        else:
            accept = (self.decision_function(X) >= -_logit(self.prior_)).astype(np.intp)
        return self.classes_[accept]

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        As in ``CalibratedClassifierCV``: ``fit`` routes fit parameters to the
        classifier's ``fit`` and to the splitter's ``split`` (see
        scikit-learn's metadata routing user guide).

        Returns
        -------
        routing : MetadataRouter
            The routing information.
        """
        return _estimator_router(
            self,
            self._get_estimator(),
            {"fit": not isinstance(self._get_estimator(), FrozenEstimator)},
            consumes_weights=True,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._get_estimator())
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        tags.input_tags.categorical = inner.input_tags.categorical
        tags.input_tags.string = inner.input_tags.string
        tags.classifier_tags.multi_class = True
        return tags
