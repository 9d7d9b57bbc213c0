"""A classifier calibrated on its own out-of-fold scores.

:class:`CalibratedClassifier` is the skcalib counterpart of scikit-learn's
``CalibratedClassifierCV``: any skcalib calibrator, trained on the
cross-fitted scores of :func:`~skcalib._score_transformer.cross_fit`, with a
calibrated log-likelihood-ratio as ``decision_function``. It keeps one
(classifier, calibration) pair per fold (:mod:`skcalib._calibrations`).
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

from ._auto import AutoCalibrator
from ._calibrations import (
    CalibratedPair,
    Response,
    calibration_layout,
    fit_calibration,
    merged_interval,
)
from ._score_transformer import (
    cross_fit,
    estimator_router,
    routed_fit_params,
    routing_enabled,
    wrapper_docs,
)
from ._venn_abers import VennAbersCalibrator, warn_small_folds
from .utils._arguments import store_arguments
from .utils._docstrings import fill_doc
from .utils._response import (
    choose_proba_input,
    class_response,
    fitting_scores,
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


def _known_classes(estimator, classes):
    """Boolean mask of the ``classes`` that a fitted classifier knows.

    A classifier fitted on a cross-validation fold without some of the
    classes knows only those of its fold; ``None`` if it knows them all.
    """
    own = getattr(estimator, "classes_", None)
    if own is None or len(own) == len(classes):
        return None
    return np.isin(classes, own)


def _training_losses(calibration, scores, y_index):
    """Per-sample log-loss of a fitted calibration on its training data."""
    proba = calibration.predict_proba(scores)
    picked = proba[np.arange(y_index.shape[0]), y_index]
    return -np.log(np.maximum(picked, np.finfo(np.float64).tiny))


def _calibrate(calibrator, layout, raw, method, parts, y_index, sample_weight, classes):
    """The response the calibrations take, and one calibration per part.

    ``parts``: the (rows, known classes) of the out-of-fold ``raw`` output
    of ``method`` that each calibration is fitted on (disjoint). From
    ``predict_proba`` a binary (or one-vs-rest) calibrator with several
    possible inputs (``proba_inputs``) is fitted on each, and the input is
    chosen by the training log losses (``choose_proba_input``).
    """
    n_classes = classes.shape[0]
    default_prior = None
    if n_classes == 2:  # the weighted proportion of classes_[1]
        weight = np.ones(y_index.shape[0]) if sample_weight is None else sample_weight
        default_prior = weight[y_index == 1].sum() / weight.sum()

    def calibrate(scores, proba_input=None):
        """The calibrations, and the scores each was fitted on."""
        fitted = [fitting_scores(scores[rows], proba_input) for rows, _ in parts]
        calibrations = [
            fit_calibration(
                calibrator,
                layout,
                part,
                y_index[rows],
                n_classes,
                None if sample_weight is None else sample_weight[rows],
                known=known,
                default_prior=default_prior,
            )
            for part, (rows, known) in zip(fitted, parts, strict=True)
        ]
        return calibrations, fitted

    if method != "predict_proba":
        response = Response(classes, method)
        return response, calibrate(response.scores_of(raw, layout))[0]
    all_rows = np.concatenate([rows for rows, _ in parts])
    floor = proba_floor(raw[all_rows])
    _warn_saturated(raw, parts, calibrator)
    candidates = proba_inputs(calibrator) if layout != "classes" else ()
    if len(candidates) <= 1:
        response = Response(classes, method, floor, (*candidates, None)[0])
        scores = response.scores_of(raw, layout)
        return response, calibrate(scores, response.proba_input)[0]
    fits, losses = {}, {}
    for candidate in candidates:
        scores = response_scores(raw, method, layout, floor, candidate)
        fits[candidate], fitted = calibrate(scores, candidate)
        pairs = zip(fits[candidate], fitted, parts, strict=True)
        losses[candidate] = np.concatenate(
            [_training_losses(cal, s, y_index[rows]) for cal, s, (rows, _) in pairs]
        )
    weights = None if sample_weight is None else sample_weight[all_rows]
    proba_input = choose_proba_input(losses, weights)
    return Response(classes, method, floor, proba_input), fits[proba_input]


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
            stacklevel=5,
        )


def _splits_with_both_classes(cv, y_index: np.ndarray, n_classes: int, one_vs_rest):
    """The splits whose test fold can train a calibrator (``ensemble=True``).

    A binary or natively multiclass calibrator needs every class: a test fold
    without one of them (``KFold`` on labels sorted by class) cannot train
    one, so its (classifier, calibrator) pair is left out of the ensemble,
    with a warning. One-vs-rest calibrators are kept for every split, as in
    scikit-learn: a class absent from a test fold gets the rule-of-succession
    probability there (a ``ConstantCalibration``). When no test fold can
    train a calibrator (``LeaveOneOut``: one class per test fold), the
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
                stacklevel=6,
            )
        return [split for split, keep in zip(splits, usable, strict=True) if keep]

    return select


_DOCS = wrapper_docs("classifier")


@fill_doc(_DOCS)
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
    calibrated_classifiers_ : list of CalibratedPair
        The (classifier, calibration) pairs, as scikit-learn's
        ``calibrated_classifiers_``: one classifier fitted on all the data
        and its calibration, or with ``ensemble=True`` one pair per split.
        Each has ``estimator``, ``calibration``, ``predict_proba(X)`` and,
        binary, ``llr(X)``.
    estimators_ : list of estimator objects
        The pairs' fitted classifiers (read-only).
    calibrators_ : list of calibrator objects
        The pairs' fitted calibrators (read-only), aligned with
        ``estimators_``; they are fitted
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
        store_arguments(self, locals())

    def _get_estimator(self):
        if self.estimator is not None:
            return self.estimator
        estimator = LinearSVC()
        if routing_enabled():  # the default classifier takes the weights
            estimator.set_fit_request(sample_weight=True)
        return estimator

    def _get_calibrator(self):
        return AutoCalibrator() if self.calibrator is None else self.calibrator

    @property
    def estimators_(self):
        """The fitted classifiers (of ``calibrated_classifiers_``)."""
        return [pair.estimator for pair in self.calibrated_classifiers_]

    @property
    def calibrators_(self):
        """The fitted calibrators (of ``calibrated_classifiers_``)."""
        return [pair.calibration.fitted for pair in self.calibrated_classifiers_]

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and the calibrator on its out-of-fold scores.

        {training_parameters}
        y : array-like of shape (n_samples,)
            Target of 2 or more classes (binary: ``classes_[1]`` is the
            target).
        sample_weight : array-like of shape (n_samples,), default=None
            Used by the calibrator and, if its ``fit`` accepts them, by the
            classifier (otherwise a warning says that only the calibration is
            weighted, as in scikit-learn). With metadata routing enabled, the
            classifier gets them only if it requests them.
        {fold_fit_params}

        Returns
        -------
        self : object
            The fitted classifier.
        """
        # validate
        X, y = indexable(X, y)
        y, classes, y_index = check_class_y(y, owner=type(self).__name__)
        check_consistent_length(X, y)
        sample_weight = check_weights(sample_weight, y.shape[0])
        calibrator = self._get_calibrator()
        layout = calibration_layout(calibrator, classes.shape[0])
        self.classes_ = classes
        # out-of-fold response
        raw, method, estimators, parts = self._out_of_fold(
            X, y, y_index, layout, sample_weight, fit_params
        )
        # fit calibrations
        response, calibrations = _calibrate(
            calibrator, layout, raw, method, parts, y_index, sample_weight, classes
        )
        if self.ensemble and calibrations[0].has_interval:
            positive = (
                np.ones(y.shape[0]) if sample_weight is None else sample_weight > 0
            )
            counts = [
                np.bincount(y_index[rows], positive[rows], minlength=classes.shape[0])
                for rows, _ in parts
            ]
            warn_small_folds(counts, classes)
        # store
        self.calibrated_classifiers_ = [
            CalibratedPair(estimator, calibration, response)
            for estimator, calibration in zip(estimators, calibrations, strict=True)
        ]
        self.response_method_ = method
        self.proba_floor_ = response.floor
        self.proba_input_ = response.proba_input
        if classes.shape[0] == 2:
            self.prior_ = float(np.mean([c.prior for c in calibrations]))
        else:  # left over from an earlier binary fit
            self.__dict__.pop("prior_", None)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimators[0], name):
                setattr(self, name, getattr(estimators[0], name))
            else:  # left over from an earlier fit
                self.__dict__.pop(name, None)
        return self

    def _routed(self, estimator, sample_weight, fit_params):
        """``(classifier's fit parameters, splitter's, classifier's weights)``."""
        if routing_enabled():  # the weights are in fit_params if requested
            fit_params, split_params = routed_fit_params(
                self, "fit", sample_weight, fit_params
            )
            return fit_params, split_params, None
        if (
            sample_weight is not None
            and not isinstance(estimator, FrozenEstimator)  # not fitted: no weights
            and not has_fit_parameter(estimator, "sample_weight")
        ):
            warnings.warn(
                f"Since {type(estimator).__name__} does not appear to accept "
                "sample_weight, sample weights will only be used for the "
                "calibration itself.",
                UserWarning,
                stacklevel=5,
            )
            return fit_params, {}, None
        return fit_params, {}, sample_weight

    def _out_of_fold(self, X, y, y_index, layout, sample_weight, fit_params):
        """The classifier's out-of-fold response and fitted classifiers.

        Returns ``(raw, method, estimators, parts)``: ``raw`` the output of
        the classifier's ``method`` for every sample, scored by a model
        that never saw it (by a frozen one: its scores of ``X``), and per
        fitted classifier the part ``(rows, known classes)`` of ``raw``
        that its calibration is fitted on.
        """
        estimator, classes = self._get_estimator(), self.classes_
        fit_params, split_params, estimator_weight = self._routed(
            estimator, sample_weight, fit_params
        )
        all_rows = [(np.arange(y.shape[0]), None)]
        if isinstance(estimator, FrozenEstimator):
            method = resolve_response_method(estimator, "auto")
            if classes.shape[0] > 2 and not np.array_equal(estimator.classes_, classes):
                raise ValueError(
                    f"The frozen classifier's classes {estimator.classes_.tolist()} "
                    f"differ from those of `y` {classes.tolist()}."
                )
            raw = class_response(estimator, X, method, classes)
            return raw, method, [estimator], all_rows
        _check_class_counts(self.cv, y_index, classes.shape[0])
        cv = check_cv(self.cv, y, classifier=True)
        select = None
        if self.ensemble:
            one_vs_rest = layout == "one_vs_rest"
            select = _splits_with_both_classes(
                cv, y_index, classes.shape[0], one_vs_rest
            )
        raw, splits, fold_estimators, full_estimator, method = cross_fit(
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
            select_splits=select,
        )
        if not self.ensemble:
            return raw, method, [full_estimator], all_rows
        parts = [
            (test, _known_classes(est, classes))
            for (_, test), est in zip(splits, fold_estimators, strict=True)
        ]
        return raw, method, fold_estimators, parts

    def predict_proba(self, X):
        """Calibrated posterior probabilities.

        Binary: the posteriors at ``prior_``. Multiclass: the one-vs-rest
        probabilities normalized to sum to 1 (a row of zeros becomes uniform,
        as in scikit-learn), or those of a multiclass calibrator.

        {data_parameters}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        pairs = self.calibrated_classifiers_
        if len(pairs) == 1:
            return pairs[0].predict_proba(X)
        calibrations = [pair.calibration for pair in pairs]
        if calibrations[0].has_interval:  # cross Venn-Abers
            p = merged_interval(pairs, X)[0]
            return calibrations[0].merged_proba(calibrations, p)
        return sum(pair.predict_proba(X) for pair in pairs) / len(pairs)

    @available_if(lambda self: isinstance(self._get_calibrator(), VennAbersCalibrator))
    def predict_interval(self, X):
        """Venn-Abers interval ``(p0, p1)`` of a Venn-Abers calibrator.

        With ``ensemble=True`` (cross Venn-Abers) the folds' pairs are merged
        by geometric means into ``(1 - GM(1 - p0), GM(p1))``, the pair whose
        log-loss merge is ``predict_proba`` (Vovk, Petej and Fedorova, 2015).
        Unlike one fold's pair, the merged pair may be inverted: folds that
        disagree by more than their own widths (too little calibration data
        per fold) give ``p0 > p1``. ``predict_proba`` always lies between
        the two.

        {data_parameters}

        Returns
        -------
        interval : ndarray of shape (n_samples, 2) or (n_samples, n_classes, 2)
            ``(p0, p1)`` of ``classes_[1]`` at the calibration prior; with
            K > 2 classes, of each class against the rest (not normalized).
        """
        check_is_fitted(self)
        _, p0, p1 = merged_interval(self.calibrated_classifiers_, X)
        return np.stack([p0, p1], axis=-1)

    def decision_function(self, X):
        """Calibrated log-likelihood-ratios (binary) or log-posteriors.

        {data_parameters}

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
        if len(self.calibrated_classifiers_) == 1:
            return self.calibrated_classifiers_[0].llr(X)
        p1 = self.predict_proba(X)[:, 1]
        with np.errstate(divide="ignore"):
            return _logit(p1) - _logit(self.prior_)

    def predict(self, X):
        """Bayes decisions at ``prior_`` (binary) or the most probable class.

        Binary: ``classes_[1]`` is decided iff ``llr >= -logit(prior_)``,
        ties included. Multiclass: the class of highest ``predict_proba``
        (the first one on a tie), as in scikit-learn.

        {data_parameters}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        if self.classes_.shape[0] > 2:
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        accept = self.decision_function(X) >= -_logit(self.prior_)
        return self.classes_[accept.astype(np.intp)]

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        As in ``CalibratedClassifierCV``: ``fit`` routes fit parameters to the
        classifier's ``fit`` and to the splitter's ``split`` (see
        scikit-learn's metadata routing user guide).

        {routing_returns}
        """
        return estimator_router(
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
