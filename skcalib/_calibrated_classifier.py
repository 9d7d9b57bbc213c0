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
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    has_fit_parameter,
)

from ._pav_calibrators import PAVLLRCalibrator
from ._score_transformer import (
    _class_scores,
    _cross_fit,
    _estimator_router,
    _routed_fit_params,
    _routing_enabled,
)
from .utils._response import one_vs_rest_log_odds, resolve_response_method
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
    """Whether ``calibrator`` is natively multiclass (fits K score columns).

    Such a calibrator says so with scikit-learn's classifier tag
    ``multi_class=True``; skcalib's binary calibrators say ``False``.
    """
    tags = get_tags(calibrator).classifier_tags
    return tags is not None and bool(tags.multi_class)


def _calibration_scores(scores, method, one_vs_rest):
    """The scores a calibration sees: log-odds of each class for one-vs-rest.

    A binary calibrator of class ``k`` against the rest gets, from a
    ``predict_proba``-only classifier, the log-odds ``log p_k - log(1 - p_k)``
    (as in the binary case) rather than the log-probability.
    """
    if one_vs_rest and method == "predict_proba":
        return one_vs_rest_log_odds(scores)
    return scores


def _fit_calibration(calibrator, scores, y_index, n_classes, sample_weight):
    """Fitted calibration of ``scores`` (see ``CalibratedClassifier.calibrators_``).

    Binary, or a natively multiclass calibrator: one clone fitted on the
    scores and the class indices. Otherwise a list of ``n_classes`` clones,
    the ``k``-th fitted one-vs-rest on column ``k``.
    """
    if n_classes == 2 or _takes_all_classes(calibrator):
        return clone(calibrator).fit(scores, y_index, sample_weight)
    return [
        clone(calibrator).fit(
            scores[:, k], (y_index == k).astype(np.intp), sample_weight
        )
        for k in range(n_classes)
    ]


def _normalize_one_vs_rest(proba: np.ndarray) -> np.ndarray:
    """Rows divided by their sums; a row of zeros becomes uniform (scikit-learn)."""
    total = proba.sum(axis=1, keepdims=True)
    uniform = np.full_like(proba, 1.0 / proba.shape[1])
    return np.divide(proba, total, out=uniform, where=total != 0)


def _calibrated_proba(calibration, scores) -> np.ndarray:
    if isinstance(calibration, list):  # one-vs-rest binary calibrators
        proba = np.column_stack(
            [cal.predict_proba(scores[:, k])[:, 1] for k, cal in enumerate(calibration)]
        )
        return _normalize_one_vs_rest(proba)
    return calibration.predict_proba(scores)


def _splits_with_both_classes(cv, y_index: np.ndarray, n_classes: int):
    """The splits whose test fold can train a calibrator (``ensemble=True``).

    A calibrator needs every class (both, for a binary problem; with K > 2
    classes each one-vs-rest calibrator needs its class and the rest): a test
    fold without one of them (``KFold`` on labels sorted by class) cannot
    train one, so its (classifier, calibrator) pair is left out of the
    ensemble, with a warning. When no test fold holds every class
    (``LeaveOneOut``), the split is rejected before any classifier is
    fitted, as scikit-learn's ``CalibratedClassifierCV`` does.
    """

    def select(splits):
        has_all = np.array(
            [
                np.bincount(y_index[test], minlength=n_classes).min() > 0
                for _, test in splits
            ]
        )
        name = getattr(cv, "cv", cv)  # check_cv wraps iterables
        # a splitter by its repr; an iterable of splits by its length
        name = repr(name) if hasattr(name, "split") else f"{len(splits)} given splits"
        if not has_all.any():
            raise ValueError(
                f"No test fold of `cv` ({name}) holds every class, and "
                "ensemble=True fits a calibrator on each test fold, which needs "
                "them all. Use a cross-validation generator whose test folds hold "
                "every class (e.g. StratifiedKFold) or ensemble=False."
            )
        if not has_all.all():
            left_out = ", ".join(str(k) for k in np.flatnonzero(~has_all))
            warnings.warn(
                f"Test folds {left_out} (0-based) of `cv` ({name}) lack a "
                "class and cannot train a calibrator: their (classifier, "
                f"calibrator) pairs are left out of the ensemble; "
                f"{int(has_all.sum())} of {has_all.shape[0]} remain. A stratified "
                "splitter keeps every class in every test fold.",
                UserWarning,
                stacklevel=4,
            )
        return [split for split, keep in zip(splits, has_all, strict=True) if keep]

    return select


class CalibratedClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A classifier calibrated with any skcalib calibrator.

    ``fit`` computes out-of-fold scores of ``estimator`` over the splits of
    ``cv`` (fitted in parallel), trains ``calibrator`` on them and fits
    ``estimator`` on all the data; predictions chain the two. This is
    ``make_pipeline(ScoreTransformer(estimator, cv=cv), calibrator)`` as one
    classifier, and the alternative to scikit-learn's
    ``CalibratedClassifierCV(ensemble=False)``: with
    ``calibrator=PAVCalibrator()`` it gives the probabilities of
    ``method='isotonic'``, with ``PlattCalibrator()`` those of
    ``method='sigmoid'``, with the same folds.

    For ``y`` with K > 2 classes, a binary calibrator is cloned and fitted
    one-vs-rest on each class's score column, and the K probabilities are
    normalized to sum to 1 as scikit-learn does (a row of zeros becomes
    uniform); a natively multiclass calibrator (classifier tag
    ``multi_class=True``) is fitted once on all K columns and used as is.

    Parameters
    ----------
    estimator : classifier object, default=None
        A classifier with ``decision_function`` or ``predict_proba``
        (the former is preferred, as in ``CalibratedClassifierCV``); with
        ``predict_proba`` only, the score is the log-odds of
        :class:`ScoreTransformer` (multiclass: the log-odds of each class
        against the rest for one-vs-rest calibration, the log-probabilities
        for a multiclass calibrator). ``None`` means ``LinearSVC()``, the default
        of ``CalibratedClassifierCV``. An already fitted classifier wrapped in
        ``sklearn.frozen.FrozenEstimator`` is not refitted: the calibrator is
        then trained on its scores of all of ``X`` (the calibration set), and
        ``cv`` and ``ensemble`` are ignored.
    calibrator : skcalib calibrator, default=None
        Cloned and fitted on the out-of-fold scores (one column; one clone
        per class with K > 2 classes, unless it is multiclass). ``None``
        means ``PAVLLRCalibrator()``, i.e. PAV-LLR with the rule-of-succession
        extremes (see Notes for why).
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
        ``ensemble=True`` (no all-data fit).
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
    n_features_in_ : int
        Number of features seen by the classifier, if it records it.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen by the classifier, if it records them.

    See Also
    --------
    ScoreTransformer : The out-of-fold scores as a pipeline step.
    sklearn.calibration.CalibratedClassifierCV : scikit-learn's version
        (sigmoid, isotonic or temperature calibration).

    Notes
    -----
    Why PAV-LLR with the rule of succession by default: the calibrator is
    trained on the out-of-fold scores of *all* the training data, so the
    calibration set is as large as the training set, and there a
    non-parametric map is affordable. PAV is the monotone map that is optimal
    for every proper scoring rule at once on the calibration data (Brümmer &
    du Preez), so it corrects any monotone distortion, including the
    non-sigmoid ones of boosted trees and naive Bayes, where a sigmoid
    (Platt) cannot; the LLR output makes ``decision_function`` a calibrated
    log-likelihood-ratio usable at any prior; and the rule of succession (one
    virtual sample of each class at each end, as in BOSARIS ``opt_loglr``)
    keeps LLRs finite on new data, where raw PAV would give certainty.
    For small calibration sets (a few hundred samples or a few dozen of
    the rarer class) prefer a two-parameter calibrator (``PlattCalibrator``
    or ``ProperScoringAffineCalibrator``), which overfits less.

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
    of ``predict_proba``. With ``sklearn.set_config(enable_metadata_routing=
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
        return PAVLLRCalibrator() if self.calibrator is None else self.calibrator

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
        if n_classes == 2 and _takes_all_classes(calibrator):
            raise ValueError(
                f"`calibrator` {type(calibrator).__name__} is a multiclass "
                "calibrator; `y` has 2 classes, which need a binary calibrator."
            )
        one_vs_rest = n_classes > 2 and not _takes_all_classes(calibrator)
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
            scores = _class_scores(estimator, X, method, n_classes)
            scores = _calibration_scores(scores, method, one_vs_rest)
            estimators = [estimator]
            calibrations = [
                _fit_calibration(calibrator, scores, y_index, n_classes, sample_weight)
            ]
        else:
            _check_class_counts(self.cv, y_index, n_classes)
            cv = check_cv(self.cv, y, classifier=True)
            scores, splits, fold_estimators, full_estimator, method = _cross_fit(
                estimator,
                X,
                y,
                cv=cv,
                response_method="auto",
                sample_weight=estimator_weight,
                fit_params=fit_params,
                n_jobs=self.n_jobs,
                fit_full=not self.ensemble,
                n_classes=n_classes,
                split_params=split_params,
                select_splits=(
                    _splits_with_both_classes(cv, y_index, n_classes)
                    if self.ensemble
                    else None
                ),
            )
            scores = _calibration_scores(scores, method, one_vs_rest)
            if self.ensemble:
                estimators = fold_estimators
                calibrations = [
                    _fit_calibration(
                        calibrator,
                        scores[test],
                        y_index[test],
                        n_classes,
                        None if sample_weight is None else sample_weight[test],
                    )
                    for _, test in splits
                ]
            else:
                estimators = [full_estimator]
                calibrations = [
                    _fit_calibration(
                        calibrator, scores, y_index, n_classes, sample_weight
                    )
                ]

        self.estimators_ = estimators
        self.calibrators_ = calibrations
        self.response_method_ = method
        if n_classes == 2:
            self.prior_ = float(np.mean([cal.prior_ for cal in calibrations]))
        elif "prior_" in self.__dict__:  # left over from an earlier binary fit
            del self.prior_
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimators[0], name):
                setattr(self, name, getattr(estimators[0], name))
            elif name in self.__dict__:  # left over from an earlier fit
                delattr(self, name)
        return self

    def _scores(self, estimator, X):
        scores = _class_scores(
            estimator, X, self.response_method_, self.classes_.shape[0]
        )
        one_vs_rest = isinstance(self.calibrators_[0], list)
        return _calibration_scores(scores, self.response_method_, one_vs_rest)

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
            est, cal = self.estimators_[0], self.calibrators_[0]
            return _calibrated_proba(cal, self._scores(est, X))
        total = sum(
            _calibrated_proba(cal, self._scores(est, X))
            for est, cal in zip(self.estimators_, self.calibrators_, strict=True)
        )
        return total / len(self.calibrators_)

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
            return cal.decision_function(self._scores(est, X))
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
        if len(self.calibrators_) == 1:
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
