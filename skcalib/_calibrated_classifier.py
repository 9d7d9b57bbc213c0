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
from ._score_transformer import _binary_scores, _cross_fit
from .utils._response import resolve_response_method
from .utils._sklearn_compat import HasMethods, _fit_context
from .utils._validation import check_binary_y, check_weights

__all__ = ["CalibratedClassifier"]


def _check_class_counts(cv, is_target: np.ndarray) -> None:
    """Each class must be able to appear in every fold (as scikit-learn asks)."""
    if isinstance(cv, Integral):
        n_folds = int(cv)
    else:
        n_folds = getattr(cv, "n_splits", None)
        n_folds = n_folds if isinstance(n_folds, Integral) else None
    n_tar = int(np.count_nonzero(is_target))
    if n_folds and min(n_tar, is_target.shape[0] - n_tar) < n_folds:
        raise ValueError(
            f"Requesting {n_folds}-fold cross-validation but provided less than "
            f"{n_folds} examples for at least one class."
        )


def _splits_with_both_classes(cv, is_target: np.ndarray):
    """The splits whose test fold can train a calibrator (``ensemble=True``).

    A calibrator needs both classes: a test fold of one class (``KFold`` on
    labels sorted by class) cannot train one, so its (classifier, calibrator)
    pair is left out of the ensemble, with a warning. When no test fold holds
    both classes (``LeaveOneOut``), the split is rejected before any
    classifier is fitted, as scikit-learn's ``CalibratedClassifierCV`` does.
    """

    def select(splits):
        n_tar = np.array([np.count_nonzero(is_target[test]) for _, test in splits])
        sizes = np.array([test.shape[0] for _, test in splits])
        both = (n_tar > 0) & (n_tar < sizes)
        name = getattr(cv, "cv", cv)  # check_cv wraps iterables
        if not both.any():
            raise ValueError(
                f"No test fold of `cv` ({name!r}) holds both classes, and "
                "ensemble=True fits a calibrator on each test fold, which needs "
                "both. Use a cross-validation generator whose test folds hold "
                "both classes (e.g. StratifiedKFold) or ensemble=False."
            )
        if not both.all():
            left_out = ", ".join(str(k) for k in np.flatnonzero(~both))
            warnings.warn(
                f"Test folds {left_out} (0-based) of `cv` ({name!r}) hold a "
                "single class and cannot train a calibrator: their (classifier, "
                f"calibrator) pairs are left out of the ensemble; "
                f"{int(both.sum())} of {both.shape[0]} remain. A stratified "
                "splitter keeps both classes in every test fold.",
                UserWarning,
                stacklevel=4,
            )
        return [split for split, keep in zip(splits, both, strict=True) if keep]

    return select


class CalibratedClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A binary classifier calibrated with any skcalib calibrator.

    ``fit`` computes out-of-fold scores of ``estimator`` over the splits of
    ``cv`` (fitted in parallel), trains ``calibrator`` on them and fits
    ``estimator`` on all the data; predictions chain the two. This is
    ``make_pipeline(ScoreTransformer(estimator, cv=cv), calibrator)`` as one
    classifier, and the alternative to scikit-learn's
    ``CalibratedClassifierCV(ensemble=False)``: with
    ``calibrator=PAVCalibrator()`` it gives the probabilities of
    ``method='isotonic'``, with ``PlattCalibrator()`` those of
    ``method='sigmoid'``, with the same folds.

    Parameters
    ----------
    estimator : classifier object, default=None
        A binary classifier with ``decision_function`` or ``predict_proba``
        (the former is preferred, as in ``CalibratedClassifierCV``); with
        ``predict_proba`` only, the score is the log-odds of
        :class:`ScoreTransformer`. ``None`` means ``LinearSVC()``, the default
        of ``CalibratedClassifierCV``. An already fitted classifier wrapped in
        ``sklearn.frozen.FrozenEstimator`` is not refitted: the calibrator is
        then trained on its scores of all of ``X`` (the calibration set), and
        ``cv`` and ``ensemble`` are ignored.
    calibrator : skcalib calibrator, default=None
        Cloned and fitted on the out-of-fold scores (one column). ``None``
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
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the target class.
    estimators_ : list of estimator objects
        The fitted classifiers: one fitted on all the data, or with
        ``ensemble=True`` one per split.
    calibrators_ : list of calibrator objects
        The fitted calibrators, aligned with ``estimators_``; they are fitted
        on labels 0 / 1 meaning ``classes_[0]`` / ``classes_[1]``.
    prior_ : float
        The target prior of ``predict_proba`` and ``predict``: the
        calibrator's ``prior_`` (its ``prior``, or by default the weighted
        target proportion of the training data), averaged over the pairs with
        ``ensemble=True``.
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
    """

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
        return LinearSVC() if self.estimator is None else self.estimator

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
            Binary target (any two labels; ``classes_[1]`` is the target).
        sample_weight : array-like of shape (n_samples,), default=None
            Used by the calibrator and, if its ``fit`` accepts them, by the
            classifier (otherwise a warning says that only the calibration is
            weighted, as in scikit-learn).
        **fit_params : dict
            Other parameters of the classifier's ``fit``; arrays of length
            ``n_samples`` are restricted to each training fold.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = indexable(X, y)
        y, classes, _ = check_binary_y(y, owner=type(self).__name__)
        check_consistent_length(X, y)
        sample_weight = check_weights(sample_weight, y.shape[0])
        estimator = self._get_estimator()
        calibrator = self._get_calibrator()
        estimator_weight = sample_weight
        frozen = isinstance(estimator, FrozenEstimator)
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
        is_target = y == classes[1]
        labels = is_target.astype(np.intp)
        self.classes_ = classes

        if frozen:
            method = resolve_response_method(estimator, "auto")
            scores = _binary_scores(estimator, X, method)
            estimators = [estimator]
            calibrators = [clone(calibrator).fit(scores, labels, sample_weight)]
        else:
            _check_class_counts(self.cv, is_target)
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
                select_splits=(
                    _splits_with_both_classes(cv, is_target) if self.ensemble else None
                ),
            )
            if self.ensemble:
                estimators = fold_estimators
                calibrators = [
                    clone(calibrator).fit(
                        scores[test],
                        labels[test],
                        None if sample_weight is None else sample_weight[test],
                    )
                    for _, test in splits
                ]
            else:
                estimators = [full_estimator]
                calibrators = [clone(calibrator).fit(scores, labels, sample_weight)]

        self.estimators_ = estimators
        self.calibrators_ = calibrators
        self.response_method_ = method
        self.prior_ = float(np.mean([cal.prior_ for cal in calibrators]))
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimators[0], name):
                setattr(self, name, getattr(estimators[0], name))
            elif name in self.__dict__:  # left over from an earlier fit
                delattr(self, name)
        return self

    def _scores(self, estimator, X):
        return _binary_scores(estimator, X, self.response_method_)

    def predict_proba(self, X):
        """Calibrated posterior probabilities at ``prior_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        if len(self.calibrators_) == 1:
            est, cal = self.estimators_[0], self.calibrators_[0]
            return cal.predict_proba(self._scores(est, X))
        total = sum(
            cal.predict_proba(self._scores(est, X))
            for est, cal in zip(self.estimators_, self.calibrators_, strict=True)
        )
        return total / len(self.calibrators_)

    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (natural log).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data, in any form the classifier accepts.

        Returns
        -------
        llr : ndarray of shape (n_samples,)
            Evidence for ``classes_[1]``; may be infinite with a calibrator
            that allows it (e.g. ``PAVCalibrator`` with ``extremes='raw'``).
        """
        check_is_fitted(self)
        if len(self.calibrators_) == 1:
            est, cal = self.estimators_[0], self.calibrators_[0]
            return cal.decision_function(self._scores(est, X))
        p1 = self.predict_proba(X)[:, 1]
        with np.errstate(divide="ignore"):
            return _logit(p1) - _logit(self.prior_)

    def predict(self, X):
        """Bayes decisions at ``prior_`` (equal costs).

        ``classes_[1]`` is decided iff ``llr >= -logit(prior_)``, ties
        included.

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
        if len(self.calibrators_) == 1:
            est, cal = self.estimators_[0], self.calibrators_[0]
            accept = cal.predict(self._scores(est, X)).astype(np.intp)
        else:
            accept = (self.decision_function(X) >= -_logit(self.prior_)).astype(np.intp)
        return self.classes_[accept]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._get_estimator())
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        tags.input_tags.categorical = inner.input_tags.categorical
        tags.input_tags.string = inner.input_tags.string
        tags.classifier_tags.multi_class = False
        return tags
