"""Tests of CalibratedClassifier against CalibratedClassifierCV and a pipeline."""

import pickle

import numpy as np
import pytest
from _calibrators import calibrator_classes
from _scores import make_scores
from _sklearn_checks import needs_sklearn_temperature, parametrize_with_checks
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logit
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils._tags import ClassifierTags
from sklearn.utils.estimator_checks import estimator_checks_generator

from skcalib import (
    AutoCalibrator,
    CalibratedClassifier,
    MulticlassAffineCalibrator,
    PAVCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ScoreTransformer,
)
from skcalib.utils._response import fitting_scores, one_vs_rest_log_odds

ONE_VS_REST = calibrator_classes("one_vs_rest")


def _test_points(n=500, d=4, seed=42):
    return np.random.default_rng(seed).normal(size=(n, d))


class _SoftmaxCalibrator(ClassifierMixin, BaseEstimator):
    """A stand-in natively multiclass calibrator: softmax of the K scores."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.n_columns_ = np.asarray(X).shape[1]
        return self

    def transform(self, X):
        X = np.asarray(X, dtype=float)
        return X - np.logaddexp.reduce(X, axis=1, keepdims=True)

    def predict_proba(self, X):
        return np.exp(self.transform(X))

    def predict(self, X):
        return self.classes_[np.argmax(X, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=True)
        return tags


# ----------------------------------------------------------------- errors
def test_unrequested_weights_under_routing_raise():
    X, y, _ = make_scores(600, kind="features")
    w = np.ones(X.shape[0])
    with config_context(enable_metadata_routing=True):
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            CalibratedClassifier(LogisticRegression()).fit(X, y, sample_weight=w)


def test_too_few_samples_per_class_for_folds_raises():
    X, _, _ = make_scores(40, kind="features")
    y = np.zeros(40, dtype=int)
    y[:3] = 1
    with pytest.raises(ValueError, match="Requesting 5-fold cross-validation"):
        CalibratedClassifier(LogisticRegression(), cv=5).fit(X, y)


class _CountingLogisticRegression(LogisticRegression):
    """Counts fits (class attribute: clones share it)."""

    n_fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).n_fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_leave_one_out_ensemble_rejected_before_any_fit():
    # It crashed in the first fold's calibrator, after every fold's classifier
    # was fitted, naming the calibrator instead of the split.
    from sklearn.model_selection import LeaveOneOut

    X, y, _ = make_scores(30, kind="features")
    _CountingLogisticRegression.n_fits = 0
    clf = CalibratedClassifier(
        _CountingLogisticRegression(), cv=LeaveOneOut(), ensemble=True
    )
    with pytest.raises(ValueError, match=r"No test fold of `cv` \(LeaveOneOut\(\)\)"):
        clf.fit(X, y)
    assert _CountingLogisticRegression.n_fits == 0


@pytest.mark.parametrize("Cal", ONE_VS_REST)
def test_ensemble_with_single_class_test_folds(Cal):
    # KFold(3) on labels sorted by class: the outer test folds hold one class.
    X, y, _ = make_scores(90, kind="features")
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    clf = CalibratedClassifier(LogisticRegression(), Cal(), cv=KFold(3), ensemble=True)
    with pytest.warns(UserWarning, match=r"Test folds .* lack a class"):
        clf.fit(X, y)
    splits = list(KFold(3).split(X, y))
    two_class = [k for k, (_, test) in enumerate(splits) if len(set(y[test])) == 2]
    assert len(clf.calibrators_) == len(clf.estimators_) == len(two_class) >= 1
    proba = clf.predict_proba(_test_points())
    assert np.all(np.isfinite(proba)) and np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0)
    # the kept pair is the one a manual fit on that split gives
    train, test = splits[two_class[0]]
    est = LogisticRegression().fit(X[train], y[train])
    cal = Cal().fit(est.decision_function(X[test]), y[test])
    assert_allclose(
        proba[:, 1], cal.predict_proba(est.decision_function(_test_points()))[:, 1]
    )


def _quarter_splits(y, folds):
    """Splits whose test folds are (class, quarter) pairs of ``y``."""
    idx = np.arange(y.shape[0])
    tests = [
        np.concatenate([idx[y == c][q * 10 : (q + 1) * 10] for c, q in fold])
        for fold in folds
    ]
    return [(np.setdiff1d(idx, t), t) for t in tests]


def test_multiclass_ensemble_leaves_out_folds_missing_a_class():
    # A natively multiclass calibrator needs every class in its test fold:
    # a pair whose test fold lacks one is left out, with a warning.
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 3)) + 1.5 * np.eye(3)[y]
    # the third test fold has no class 2; every training fold has all three
    some = _quarter_splits(
        y,
        [
            [(0, 0), (1, 0), (2, 0), (2, 2)],
            [(0, 1), (1, 1), (2, 1), (2, 3)],
            [(0, 2), (0, 3), (1, 2), (1, 3)],
        ],
    )
    cal = MulticlassAffineCalibrator(kind="vector")
    clf = CalibratedClassifier(LogisticRegression(), cal, cv=some, ensemble=True)
    with pytest.warns(UserWarning, match=r"Test folds 2 \(0-based\).* lack a class"):
        clf.fit(X, y)
    assert len(clf.calibrators_) == len(clf.estimators_) == 2
    assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    # every test fold misses one class
    none = _quarter_splits(
        y,
        [
            [(0, 0), (0, 1), (1, 0), (1, 1)],
            [(1, 2), (1, 3), (2, 0), (2, 1)],
            [(0, 2), (0, 3), (2, 2), (2, 3)],
        ],
    )
    with pytest.raises(ValueError, match="holds every class"):
        clf.set_params(cv=none).fit(X, y)


def test_one_vs_rest_ensemble_keeps_folds_missing_a_class():
    # As scikit-learn: every pair is kept; the one-vs-rest calibration of a
    # class absent from a test fold is the rule of succession (n_k + 1)/(n + 2).
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 3)) + 1.5 * np.eye(3)[y]
    none = _quarter_splits(
        y,
        [
            [(0, 0), (0, 1), (1, 0), (1, 1)],
            [(1, 2), (1, 3), (2, 0), (2, 1)],
            [(0, 2), (0, 3), (2, 2), (2, 3)],
        ],
    )
    clf = CalibratedClassifier(
        LogisticRegression(), PAVCalibrator(), cv=none, ensemble=True
    ).fit(X, y)
    assert len(clf.calibrators_) == 3
    constant = clf.calibrators_[0][2]  # class 2 is not in the first test fold
    assert_allclose(constant.predict_proba(X[:3])[:, 1], 1.0 / 42.0)
    assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    # a test fold with a single class cannot train anything (LeaveOneOut)
    from sklearn.model_selection import LeaveOneOut

    with pytest.raises(ValueError, match="holds two classes"):
        clf.set_params(cv=LeaveOneOut()).fit(X[::4], y[::4])


def _fold_without_class(y, k):
    """Two splits; the first trains on samples without class ``k``."""
    idx = np.arange(y.shape[0])
    first = idx[(y == k) | (idx % 2 == 0)]
    return [(np.setdiff1d(idx, first), first), (first, np.setdiff1d(idx, first))]


@pytest.mark.parametrize(
    "cal", [PlattCalibrator(), MulticlassAffineCalibrator(kind="temperature")]
)
@pytest.mark.parametrize("ensemble", [True, False])
def test_training_fold_without_a_class(cal, ensemble):
    # A classifier fitted without class 2 knows 2 of the 3 classes: the
    # pair gives class 2 probability 0 (scikit-learn), the out-of-fold scores
    # give it probability 0 (cross_val_predict) instead of failing.
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 3)) + 1.5 * np.eye(3)[y]
    splits = _fold_without_class(y, 2)
    clf = CalibratedClassifier(GaussianNB(), cal, cv=splits, ensemble=ensemble)
    if ensemble and isinstance(cal, MulticlassAffineCalibrator):
        # the other test fold has no class 2: that pair cannot calibrate all three
        with pytest.warns(UserWarning, match=r"Test folds 1 \(0-based\)"):
            clf.fit(X, y)
    else:
        clf.fit(X, y)
    proba = clf.predict_proba(X)
    assert_allclose(proba.sum(axis=1), 1.0)
    if ensemble:
        assert clf.estimators_[0].classes_.tolist() == [0, 1]
        pair = clf.calibrated_classifiers_[0].predict_proba(X)
        assert_array_equal(pair[:, 2], 0.0)
        assert np.all(pair[:, :2] > 0)
        assert_allclose(pair.sum(axis=1), 1.0)


def test_binary_decision_function_of_two_of_three_classes_raises():
    # as cross_val_predict: one column cannot say which class it scores
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 3)) + 1.5 * np.eye(3)[y]
    with pytest.raises(ValueError, match="only two of the classes"):
        CalibratedClassifier(
            LogisticRegression(), PlattCalibrator(), cv=_fold_without_class(y, 2)
        ).fit(X, y)


@pytest.mark.parametrize("Cal", ONE_VS_REST)
def test_mixed_type_labels_are_a_value_error(Cal):
    # '<' between str and int leaked as a TypeError from the label sort.
    X, _, _ = make_scores(20, kind="features")
    y = np.array(["a", 1] * 10, dtype=object)
    with pytest.raises(ValueError, match="mixes label types"):
        Cal().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="mixes label types"):
        CalibratedClassifier(LogisticRegression(), Cal(), cv=2).fit(X, y)


def test_invalid_ensemble_raises():
    X, y, _ = make_scores(600, kind="features")
    with pytest.raises(ValueError, match="ensemble"):
        CalibratedClassifier(LogisticRegression(), ensemble="auto").fit(X, y)


def test_predict_before_fit_raises():
    X, _, _ = make_scores(600, kind="features")
    with pytest.raises(ValueError, match="not fitted"):
        CalibratedClassifier(LogisticRegression()).predict_proba(X)


def test_sample_weight_unsupported_by_classifier_warns_and_weights_calibration():
    X, y, _ = make_scores(600, kind="features")
    w = np.random.default_rng(1).uniform(0.1, 2.0, size=X.shape[0])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    clf = CalibratedClassifier(KNeighborsClassifier(), PAVCalibrator(), cv=cv)
    with pytest.warns(UserWarning, match="only be used for the calibration"):
        clf.fit(X, y, sample_weight=w)
    proba = cross_val_predict(
        KNeighborsClassifier(), X, y, cv=cv, method="predict_proba"
    )
    # PAV is fitted on the probability, tied at scikit-learn's resolution
    scores = fitting_scores(proba[:, 1], "probability")
    ref = PAVCalibrator().fit(scores, y, sample_weight=w)
    assert_allclose(clf.calibrators_[0].transform(scores), ref.transform(scores))


# ---------------------------------------------- scikit-learn equivalence
@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize(
    "estimator", [LogisticRegression(), LinearSVC()], ids=["logreg", "linearsvc"]
)
@pytest.mark.parametrize(
    "cv", [StratifiedKFold(5, shuffle=True, random_state=3), 4, KFold(3)]
)
def test_isotonic_equals_calibrated_classifier_cv(estimator, cv, ensemble):
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    ours = CalibratedClassifier(estimator, PAVCalibrator(), cv=cv, ensemble=ensemble)
    ref = CalibratedClassifierCV(estimator, method="isotonic", cv=cv, ensemble=ensemble)
    ours.fit(X, y)
    ref.fit(X, y)
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-12)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    assert_array_equal(ours.classes_, ref.classes_)


def test_isotonic_equals_calibrated_classifier_cv_weighted_string_labels():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    labels = np.array(["bona fide", "spoof"])[y]
    w = np.random.default_rng(7).uniform(0.2, 3.0, size=X.shape[0])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = CalibratedClassifier(LogisticRegression(), PAVCalibrator(), cv=cv)
    ref = CalibratedClassifierCV(
        LogisticRegression(), method="isotonic", cv=cv, ensemble=False
    )
    ours.fit(X, labels, sample_weight=w)
    ref.fit(X, labels, sample_weight=w)
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-12)
    assert_array_equal(ours.classes_, ["bona fide", "spoof"])
    assert set(ours.predict(Xt)) <= {"bona fide", "spoof"}


@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize(
    "estimator", [LogisticRegression(), LinearSVC()], ids=["logreg", "linearsvc"]
)
def test_sigmoid_equals_calibrated_classifier_cv(estimator, ensemble):
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    cv = StratifiedKFold(5, shuffle=True, random_state=3)
    ours = CalibratedClassifier(estimator, PlattCalibrator(), cv=cv, ensemble=ensemble)
    ref = CalibratedClassifierCV(estimator, method="sigmoid", cv=cv, ensemble=ensemble)
    ours.fit(X, y)
    ref.fit(X, y)
    # two L-BFGS runs on the same objective: agreement to optimizer tolerance
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-5)


def test_frozen_estimator_equals_calibrated_classifier_cv():
    X, y, _ = make_scores(900, kind="features")
    lr = LogisticRegression().fit(X[:300], y[:300])
    coef = lr.coef_.copy()
    Xt = _test_points()
    ours = CalibratedClassifier(FrozenEstimator(lr), PAVCalibrator())
    ref = CalibratedClassifierCV(FrozenEstimator(lr), method="isotonic")
    ours.fit(X[300:], y[300:])
    ref.fit(X[300:], y[300:])
    assert_array_equal(lr.coef_, coef)  # never refitted
    assert ours.estimators_[0].estimator is lr
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-12)
    # calibrated on the frozen model's scores of the calibration set
    ref_cal = PAVCalibrator().fit(lr.decision_function(X[300:]), y[300:])
    assert_allclose(
        ours.predict_proba(Xt), ref_cal.predict_proba(lr.decision_function(Xt))
    )


# ------------------------------------------- multiclass (one-vs-rest)
@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize(
    "estimator", [LogisticRegression(), LinearSVC()], ids=["logreg", "linearsvc"]
)
@pytest.mark.parametrize("n_classes", [3, 5])
def test_multiclass_isotonic_equals_calibrated_classifier_cv(
    estimator, ensemble, n_classes
):
    X, y, _ = make_scores(600, kind="features", n_classes=n_classes)
    Xt = _test_points()
    cv = StratifiedKFold(4, shuffle=True, random_state=3)
    ours = CalibratedClassifier(estimator, PAVCalibrator(), cv=cv, ensemble=ensemble)
    ref = CalibratedClassifierCV(estimator, method="isotonic", cv=cv, ensemble=ensemble)
    ours.fit(X, y)
    ref.fit(X, y)
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-6)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-6)
    assert_array_equal(ours.classes_, ref.classes_)


@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize(
    "estimator", [LogisticRegression(), LinearSVC()], ids=["logreg", "linearsvc"]
)
def test_multiclass_sigmoid_equals_calibrated_classifier_cv(estimator, ensemble):
    X, y, _ = make_scores(600, kind="features", n_classes=3)
    Xt = _test_points()
    cv = StratifiedKFold(5, shuffle=True, random_state=3)
    ours = CalibratedClassifier(estimator, PlattCalibrator(), cv=cv, ensemble=ensemble)
    ref = CalibratedClassifierCV(estimator, method="sigmoid", cv=cv, ensemble=ensemble)
    ours.fit(X, y)
    ref.fit(X, y)
    # two optimizers on the same objective: agreement to their tolerance
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-4)


def test_multiclass_weighted_string_labels_equal_calibrated_classifier_cv():
    X, y, _ = make_scores(600, kind="features", n_classes=3)
    Xt = _test_points()
    labels = np.array(["cat", "dog", "emu"])[y]
    w = np.random.default_rng(7).uniform(0.2, 3.0, size=X.shape[0])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = CalibratedClassifier(LogisticRegression(), PAVCalibrator(), cv=cv)
    ref = CalibratedClassifierCV(
        LogisticRegression(), method="isotonic", cv=cv, ensemble=False
    )
    ours.fit(X, labels, sample_weight=w)
    ref.fit(X, labels, sample_weight=w)
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-6)
    assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_multiclass_one_vs_rest_calibrators_and_views():
    X, y, _ = make_scores(600, kind="features", n_classes=3)
    Xt = _test_points()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    clf = CalibratedClassifier(LogisticRegression(), PAVLLRCalibrator(), cv=cv)
    clf.fit(X, y)
    (calibrators,) = clf.calibrators_
    assert len(calibrators) == 3
    assert not hasattr(clf, "prior_")
    # the k-th calibrator: class k against the rest, on score column k
    oof = cross_val_predict(
        LogisticRegression(), X, y, cv=cv, method="decision_function"
    )
    scores = clf.estimators_[0].decision_function(Xt)
    raw = np.column_stack(
        [
            PAVLLRCalibrator().fit(oof[:, k], y == k).predict_proba(scores[:, k])[:, 1]
            for k in range(3)
        ]
    )
    proba = clf.predict_proba(Xt)
    assert_allclose(proba, raw / raw.sum(axis=1, keepdims=True), rtol=1e-12)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(clf.predict(Xt), clf.classes_[np.argmax(proba, axis=1)])
    assert_allclose(clf.decision_function(Xt), np.log(proba))


@pytest.mark.parametrize("ensemble", [False, True])
def test_multiclass_calibrator_takes_all_columns(ensemble):
    X, y, _ = make_scores(600, kind="features", n_classes=4)
    Xt = _test_points()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    clf = CalibratedClassifier(
        LogisticRegression(), _SoftmaxCalibrator(), cv=cv, ensemble=ensemble
    ).fit(X, y)
    for cal in clf.calibrators_:
        assert isinstance(cal, _SoftmaxCalibrator)  # one calibrator, K columns
        assert cal.n_columns_ == 4
    expected = np.mean(
        [
            _SoftmaxCalibrator().predict_proba(est.decision_function(Xt))
            for est in clf.estimators_
        ],
        axis=0,
    )
    assert_allclose(clf.predict_proba(Xt), expected, rtol=1e-12)


@needs_sklearn_temperature
@pytest.mark.parametrize("ensemble", [False, True])
def test_multiclass_affine_temperature_equals_calibrated_classifier_cv(ensemble):
    X, y, _ = make_scores(600, kind="features", n_classes=4)
    Xt = _test_points()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    cal = MulticlassAffineCalibrator(kind="temperature", l2=0)  # unpenalized
    ours = CalibratedClassifier(LinearSVC(), cal, cv=cv, ensemble=ensemble)
    ref = CalibratedClassifierCV(
        LinearSVC(), method="temperature", cv=cv, ensemble=ensemble
    )
    ours.fit(X, y)
    ref.fit(X, y)
    assert isinstance(ours.calibrators_[0], MulticlassAffineCalibrator)
    # two optimizers of the same one-parameter objective
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-4)


# a smoothed naive Bayes: probabilities away from 0 and 1, where the floors
# (ours: the classifier's resolution; scikit-learn's: + 1e-12) agree
@needs_sklearn_temperature
@pytest.mark.parametrize("estimator", [LinearSVC(), GaussianNB(var_smoothing=0.5)])
@pytest.mark.parametrize("ensemble", [False, True])
def test_binary_temperature_equals_calibrated_classifier_cv(estimator, ensemble):
    # Two classes were refused ("needs a binary calibrator"). The two score
    # columns are (-x/2, x/2) of a decision function x and the two
    # log-probabilities of predict_proba, as scikit-learn's (-x, x) and log p.
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    cal = MulticlassAffineCalibrator(kind="temperature", l2=0)  # unpenalized
    ours = CalibratedClassifier(estimator, cal, cv=cv, ensemble=ensemble).fit(X, y)
    ref = CalibratedClassifierCV(
        estimator, method="temperature", cv=cv, ensemble=ensemble
    ).fit(X, y)
    assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), rtol=0, atol=1e-6)
    assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    if not ensemble:
        ref_cal = ref.calibrated_classifiers_[0].calibrators[0]
        scale = 2.0 if isinstance(estimator, LinearSVC) else 1.0
        assert_allclose(ours.calibrators_[0].coef_[0, 0], scale * ref_cal.beta_, 1e-6)
    # the LLR is the calibrated log-odds minus the prior log-odds
    p1 = ours.predict_proba(Xt)[:, 1]
    assert_allclose(ours.decision_function(Xt), logit(p1) - logit(ours.prior_))


def test_multiclass_calibrator_on_binary_target():
    X, y, _ = make_scores(600, kind="features")
    clf = CalibratedClassifier(LogisticRegression(), _SoftmaxCalibrator()).fit(X, y)
    x = clf.estimators_[0].decision_function(X[:20])
    assert_allclose(clf.predict_proba(X[:20])[:, 1], expit(x))
    assert_allclose(clf.decision_function(X[:20]), x - logit(y.mean()))


def test_multiclass_frozen_estimator_and_predict_proba_scores():
    X, y, _ = make_scores(900, kind="features", n_classes=3)
    Xt = _test_points()
    nb = GaussianNB().fit(X[:300], y[:300])
    clf = CalibratedClassifier(FrozenEstimator(nb), PAVCalibrator())
    clf.fit(X[300:], y[300:])
    assert clf.response_method_ == "predict_proba"
    # one-vs-rest on the log-probabilities: PAV only uses their order, so it
    # equals isotonic regression on the probabilities (scikit-learn) at the
    # calibration points
    ref = CalibratedClassifierCV(FrozenEstimator(nb), method="isotonic")
    ref.fit(X[300:], y[300:])
    assert_allclose(
        clf.predict_proba(X[300:]), ref.predict_proba(X[300:]), rtol=0, atol=1e-6
    )
    assert clf.predict_proba(Xt).shape == (Xt.shape[0], 3)


def test_one_vs_rest_of_predict_proba_calibrates_log_odds_of_each_class():
    X, y, _ = make_scores(900, kind="features", n_classes=3)
    Xt = _test_points()
    nb = GaussianNB().fit(X[:300], y[:300])
    clf = CalibratedClassifier(FrozenEstimator(nb), PlattCalibrator())
    clf.fit(X[300:], y[300:])
    p_cal, p_test = nb.predict_proba(X[300:]), nb.predict_proba(Xt)
    assert 1e-12 < p_cal.min() and p_cal.max() < 1 - 1e-12  # logit is accurate
    raw = np.column_stack(
        [
            PlattCalibrator()
            .fit(logit(p_cal[:, k]), y[300:] == k)
            .predict_proba(logit(p_test[:, k]))[:, 1]
            for k in range(3)
        ]
    )
    expected = raw / raw.sum(axis=1, keepdims=True)
    assert_allclose(clf.predict_proba(Xt), expected, rtol=1e-9, atol=1e-12)


def test_one_vs_rest_log_odds_are_accurate_near_one():
    log_p = np.log([[1 - 2e-17 - 1e-17, 2e-17, 1e-17], [0.2, 0.3, 0.5]])
    odds = one_vs_rest_log_odds(log_p)
    assert_allclose(odds[0], [np.log(1 / 3e-17), np.log(2e-17), np.log(1e-17)])
    assert_allclose(odds[1], logit([0.2, 0.3, 0.5]), rtol=1e-12)


# ------------------------------------------------------- metadata routing
class _WeightRecorder(ClassifierMixin, BaseEstimator):
    """Logistic regression that records the weights and ``tag`` it got."""

    def fit(self, X, y, sample_weight=None, tag=None):
        self.model_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.sample_weight_ = sample_weight
        self.tag_ = tag
        return self

    def decision_function(self, X):
        return self.model_.decision_function(X)


def test_routing_weights_reach_the_classifier_only_if_requested():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    w = np.random.default_rng(5).uniform(0.1, 4.0, size=X.shape[0])
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    with config_context(enable_metadata_routing=True):
        no = _WeightRecorder().set_fit_request(sample_weight=False)
        clf = CalibratedClassifier(no, PAVLLRCalibrator(), cv=cv)
        clf.fit(X, y, sample_weight=w)
        assert clf.estimators_[0].sample_weight_ is None
        # the calibration is weighted all the same
        assert_allclose(
            clf.calibrators_[0].calibration_prior_, np.average(y, weights=w)
        )
        yes = _WeightRecorder().set_fit_request(sample_weight=True, tag=True)
        routed = CalibratedClassifier(yes, PAVLLRCalibrator(), cv=cv)
        routed.fit(X, y, sample_weight=w, tag="hello")
        assert_array_equal(routed.estimators_[0].sample_weight_, w)
        assert routed.estimators_[0].tag_ == "hello"
    # with routing off, weights go to any classifier that accepts them
    legacy = CalibratedClassifier(_WeightRecorder(), PAVLLRCalibrator(), cv=cv)
    legacy.fit(X, y, sample_weight=w)
    assert_allclose(routed.predict_proba(Xt), legacy.predict_proba(Xt))
    assert_array_equal(legacy.estimators_[0].sample_weight_, w)


def test_routing_groups_reach_the_splitter():
    X, y, _ = make_scores(600, kind="features")
    groups = np.arange(X.shape[0]) % 6
    cv = GroupKFold(3)
    with config_context(enable_metadata_routing=True):
        clf = CalibratedClassifier(LogisticRegression(), PAVCalibrator(), cv=cv)
        clf.fit(X, y, groups=groups)
    oof = cross_val_predict(
        LogisticRegression(), X, y, cv=cv, groups=groups, method="decision_function"
    )
    ref = PAVCalibrator().fit(oof, y)
    assert_allclose(clf.calibrators_[0].transform(oof), ref.transform(oof))


def test_get_metadata_routing_describes_classifier_and_splitter():
    with config_context(enable_metadata_routing=True):
        est = LogisticRegression().set_fit_request(sample_weight=False)
        routing = CalibratedClassifier(est, cv=GroupKFold(3)).get_metadata_routing()
        info = routing._serialize()
    assert info["estimator"]["router"]["fit"] == {"sample_weight": False}
    assert info["splitter"]["router"]["split"] == {"groups": True}
    assert info["$self_request"]["fit"] == {"sample_weight": None}


# ---------------------------------------------------------- own semantics
@pytest.mark.parametrize("calibrator", ONE_VS_REST, ids=lambda c: c.__name__)
def test_equals_score_transformer_pipeline(calibrator):
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    clf = CalibratedClassifier(LinearSVC(), calibrator(), cv=cv).fit(X, y)
    pipe = make_pipeline(ScoreTransformer(LinearSVC(), cv=cv), calibrator()).fit(X, y)
    assert_allclose(clf.predict_proba(Xt), pipe.predict_proba(Xt), rtol=1e-12)
    assert_allclose(clf.decision_function(Xt), pipe.decision_function(Xt), rtol=1e-12)
    assert_array_equal(clf.predict(Xt), pipe.predict(Xt))


def test_default_calibrator_is_auto():
    """The default is an AutoCalibrator fitted on the out-of-fold scores."""
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    clf = CalibratedClassifier(LogisticRegression()).fit(X, y)
    cal = clf.calibrators_[0]
    assert isinstance(cal, AutoCalibrator)
    assert cal.selected_[0] in cal.candidate_names_
    llr = clf.decision_function(np.vstack([Xt, 100 * Xt]))  # far outside too
    assert np.isfinite(llr).all()
    oof = cross_val_predict(LogisticRegression(), X, y, method="decision_function")
    ref = AutoCalibrator().fit(oof, y)
    assert ref.selected_ == cal.selected_
    scores = LogisticRegression().fit(X, y).decision_function(Xt)
    assert_allclose(clf.decision_function(Xt), ref.decision_function(scores))


def test_default_calibrator_multiclass_is_auto():
    """K > 2 classes: one AutoCalibrator on all K columns (log-probabilities
    of a predict_proba classifier), equal to fitting it by hand."""
    X, y, _ = make_scores(600, kind="features")
    y3 = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    frozen = FrozenEstimator(GaussianNB().fit(X, y3))
    clf = CalibratedClassifier(frozen).fit(X, y3)
    cal = clf.calibrators_[0]
    assert isinstance(cal, AutoCalibrator)
    floor = clf.proba_floor_  # the classifier's resolution, from its scores
    log_proba = np.log(np.maximum(frozen.predict_proba(X), floor))
    ref = AutoCalibrator().fit(log_proba, y3)
    assert ref.selected_ == cal.selected_
    Xt = _test_points()
    assert_allclose(
        clf.predict_proba(Xt),
        ref.predict_proba(np.log(np.maximum(frozen.predict_proba(Xt), floor))),
        rtol=1e-10,
    )


def test_default_estimator_is_linear_svc():
    X, y, _ = make_scores(600, kind="features")
    clf = CalibratedClassifier().fit(X, y)
    assert isinstance(clf.estimators_[0], LinearSVC)
    assert clf.response_method_ == "decision_function"


@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize("calibrator", ONE_VS_REST, ids=lambda c: c.__name__)
def test_views_are_consistent(calibrator, ensemble):
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    clf = CalibratedClassifier(
        LogisticRegression(), calibrator(), cv=3, ensemble=ensemble
    ).fit(X, y)
    proba = clf.predict_proba(Xt)
    llr = clf.decision_function(Xt)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_allclose(proba[:, 1], expit(llr + logit(clf.prior_)), atol=1e-12)
    accept = llr >= -logit(clf.prior_)
    assert_array_equal(clf.predict(Xt), clf.classes_[accept.astype(int)])
    assert len(clf.estimators_) == (3 if ensemble else 1)
    assert len(clf.calibrators_) == len(clf.estimators_)


@pytest.mark.parametrize("ensemble", [False, True])
def test_one_pair_per_fold_and_read_only_views(ensemble):
    # as scikit-learn's calibrated_classifiers_: one (classifier, calibration)
    # pair per fitted classifier; estimators_ / calibrators_ are views of them
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    clf = CalibratedClassifier(
        LogisticRegression(), PlattCalibrator(), cv=3, ensemble=ensemble
    ).fit(X, y)
    pairs = clf.calibrated_classifiers_
    assert len(pairs) == (3 if ensemble else 1)
    for pair, est, cal in zip(pairs, clf.estimators_, clf.calibrators_, strict=True):
        assert pair.estimator is est and pair.calibration.fitted is cal
        scores = est.decision_function(Xt)
        assert_array_equal(pair.predict_proba(Xt), cal.predict_proba(scores))
        assert_array_equal(pair.llr(Xt), cal.decision_function(scores))
    expected = np.mean([pair.predict_proba(Xt) for pair in pairs], axis=0)
    assert_allclose(clf.predict_proba(Xt), expected, rtol=1e-15)
    with pytest.raises(AttributeError):
        clf.estimators_ = []
    with pytest.raises(AttributeError):
        clf.calibrators_ = []


def test_calibrator_prior_sets_prior_of_predictions():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    at_02 = CalibratedClassifier(LogisticRegression(), PAVLLRCalibrator(prior=0.2))
    default = CalibratedClassifier(LogisticRegression(), PAVLLRCalibrator())
    at_02.fit(X, y)
    default.fit(X, y)
    assert at_02.prior_ == 0.2
    assert default.prior_ == pytest.approx(y.mean())
    assert_allclose(at_02.decision_function(Xt), default.decision_function(Xt))
    assert_allclose(
        at_02.predict_proba(Xt)[:, 1],
        expit(default.decision_function(Xt) + logit(0.2)),
    )


def test_ensemble_averages_pair_probabilities():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    cv = StratifiedKFold(4, shuffle=True, random_state=5)
    clf = CalibratedClassifier(
        LogisticRegression(), PAVLLRCalibrator(), cv=cv, ensemble=True
    ).fit(X, y)
    probas = []
    for train, test in cv.split(X, y):
        lr = LogisticRegression().fit(X[train], y[train])
        cal = PAVLLRCalibrator().fit(lr.decision_function(X[test]), y[test])
        probas.append(cal.predict_proba(lr.decision_function(Xt)))
    assert_allclose(clf.predict_proba(Xt), np.mean(probas, axis=0), rtol=1e-12)


def test_sample_weight_reaches_classifier_and_calibrator():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    w = np.random.default_rng(11).uniform(0.1, 4.0, size=X.shape[0])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    clf = CalibratedClassifier(LogisticRegression(), PAVLLRCalibrator(), cv=cv)
    clf.fit(X, y, sample_weight=w)
    # classifier: the all-data fit and every fold fit are weighted
    lr = LogisticRegression().fit(X, y, sample_weight=w)
    assert_allclose(clf.estimators_[0].coef_, lr.coef_)
    oof = cross_val_predict(
        LogisticRegression(),
        X,
        y,
        cv=cv,
        method="decision_function",
        params={"sample_weight": w},
    )
    # calibrator: weighted too
    cal = PAVLLRCalibrator().fit(oof, y, sample_weight=w)
    assert_allclose(clf.calibrators_[0].calibration_prior_, np.average(y, weights=w))
    assert_allclose(
        clf.decision_function(Xt), cal.decision_function(lr.decision_function(Xt))
    )


def test_integer_weights_equal_repeated_rows_for_the_calibrator():
    X, y, _ = make_scores(300, kind="features")
    w = np.random.default_rng(2).integers(0, 3, size=300)
    w[:4] = 1
    frozen = FrozenEstimator(LogisticRegression().fit(X, y))
    weighted = CalibratedClassifier(frozen, PAVLLRCalibrator()).fit(
        X, y, sample_weight=w
    )
    repeated = CalibratedClassifier(frozen, PAVLLRCalibrator()).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w)
    )
    Xt = _test_points()
    assert_allclose(weighted.predict_proba(Xt), repeated.predict_proba(Xt))


@pytest.mark.parametrize("ensemble", [False, True])
def test_n_jobs_2_equals_n_jobs_1(ensemble):
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    kw = {"cv": StratifiedKFold(5, shuffle=True, random_state=0), "ensemble": ensemble}
    one = CalibratedClassifier(LogisticRegression(), n_jobs=1, **kw).fit(X, y)
    two = CalibratedClassifier(LogisticRegression(), n_jobs=2, **kw).fit(X, y)
    assert_array_equal(one.predict_proba(Xt), two.predict_proba(Xt))
    assert_array_equal(one.decision_function(Xt), two.decision_function(Xt))


def test_pickle_and_clone():
    X, y, _ = make_scores(600, kind="features")
    Xt = _test_points()
    clf = CalibratedClassifier(LogisticRegression(C=0.5), PAVCalibrator(), cv=3)
    clf.fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    assert_array_equal(restored.predict_proba(Xt), clf.predict_proba(Xt))
    fresh = clone(clf)
    assert not hasattr(fresh, "estimators_")
    assert fresh.get_params()["estimator__C"] == 0.5
    assert_array_equal(fresh.fit(X, y).predict_proba(Xt), clf.predict_proba(Xt))


def test_feature_names_in_from_classifier():
    import pandas as pd

    X, y, _ = make_scores(600, kind="features")
    frame = pd.DataFrame(X, columns=list("abcd"))
    clf = CalibratedClassifier(LogisticRegression(), cv=3).fit(frame, y)
    assert_array_equal(clf.feature_names_in_, list("abcd"))
    assert clf.n_features_in_ == 4


# --------------------------------------------------------- common checks
# Exact ties of the PAV-LLR at 0 happen on the small, well separated data of
# this check; skcalib decides the target class on a tie (``llr >= threshold``,
# as ``predict`` documents) while the check expects ``decision_function > 0``.
TIE_REASON = (
    "predict accepts on an exact LLR tie at the threshold (llr >= threshold); "
    "the check expects decision_function > 0"
)
COMMON = [
    CalibratedClassifier(LogisticRegression(), cv=3),
    CalibratedClassifier(LogisticRegression(), PAVCalibrator(), cv=3, ensemble=True),
    CalibratedClassifier(LogisticRegression(), PlattCalibrator(), cv=3),
]


# The sample-weight equivalence checks pass: with an explicit ``cv`` scikit-learn
# gives the weighted and the repeated fit the same folds (one group each).
# At numpy 1.x / scipy 1.12 (the floors) one check row's score, computed dense
# at predict time, lands a rounding error away from the PAV knot computed from
# the same row sparse at fit time, on the lowest block (probability 0): its
# decision_function is -inf on one fit and -35 (a probability of 1e-16) on
# the other. predict_proba, compared first, agrees.
KNOT_ROUNDING = (
    "a rounding-level difference between sparse and dense scores next to a "
    "PAV probability of 0: -inf against -35 in decision_function"
)
OLD_NUMPY = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def _expected_failed(estimator):
    failed = {}
    if OLD_NUMPY and type(estimator.calibrator) is PAVCalibrator:
        failed["check_sample_weight_equivalence_on_sparse_data"] = KNOT_ROUNDING
    if isinstance(estimator.calibrator, PAVLLRCalibrator):
        for name in (
            "check_classifiers_train",
            "check_classifiers_train(readonly_memmap=True)",
            "check_classifiers_train(readonly_memmap=True,X_dtype=float32)",
        ):
            failed[name] = TIE_REASON
    return failed


@parametrize_with_checks(COMMON, expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", COMMON, ids=lambda e: repr(e.calibrator))
def test_common_checks_are_not_vacuous(estimator):
    checks = list(estimator_checks_generator(estimator, legacy=True))
    assert len(checks) >= 60


# ------------------------------------- the score a calibrator sees (issue 18)
def _digits_split(n_classes):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    y = y % 2 if n_classes == 2 else y
    X_tr, X_cal, y_tr, y_cal = train_test_split(
        X, y, train_size=0.5, stratify=y, random_state=0
    )
    X_cal, X_te, y_cal, y_te = train_test_split(
        X_cal, y_cal, train_size=0.5, stratify=y_cal, random_state=0
    )
    return X_tr, y_tr, X_cal, y_cal, X_te, y_te


@pytest.mark.filterwarnings("ignore:.*predict_proba of exactly 0 or 1")
@pytest.mark.parametrize("n_classes", [2, 10])
@pytest.mark.parametrize(
    "estimator", [GaussianNB(), RandomForestClassifier(50, random_state=0)]
)
@pytest.mark.parametrize(
    "method",
    [
        "sigmoid",
        "isotonic",
        pytest.param("temperature", marks=needs_sklearn_temperature),
    ],
)
def test_predict_proba_classifiers_no_worse_than_sklearn(method, estimator, n_classes):
    # Probabilities of exactly 0 or 1 became log-odds of +/-708: Platt on a
    # random forest was 13.6x worse than method='sigmoid' on digits, PAV 1.2x
    # worse than 'isotonic' and temperature scaling 1.6x worse on naive Bayes.
    from sklearn.metrics import log_loss

    X_tr, y_tr, X_cal, y_cal, X_te, y_te = _digits_split(n_classes)
    frozen = FrozenEstimator(clone(estimator).fit(X_tr, y_tr))
    cal = {
        "sigmoid": PlattCalibrator(),
        "isotonic": PAVCalibrator(),
        "temperature": MulticlassAffineCalibrator(kind="temperature"),
    }[method]
    ours = CalibratedClassifier(frozen, cal).fit(X_cal, y_cal)
    ref = CalibratedClassifierCV(frozen, method=method).fit(X_cal, y_cal)
    loss = log_loss(y_te, ours.predict_proba(X_te), labels=ours.classes_)
    ref_loss = log_loss(y_te, ref.predict_proba(X_te), labels=ref.classes_)
    assert loss <= 1.02 * ref_loss
    assert ours.proba_floor_ >= 1e-12
    if method == "isotonic":  # the probability at scikit-learn's resolution
        assert ours.proba_input_ == "probability"
        assert loss == pytest.approx(ref_loss, rel=1e-3)


@pytest.mark.filterwarnings("ignore:.*predict_proba of exactly 0 or 1")
@pytest.mark.parametrize("n_classes", [2, 10])
def test_pav_equals_isotonic_on_underflowing_naive_bayes(n_classes):
    # Naive Bayes probabilities reach 1e-134 (two classes) and 1e-323 (ten):
    # tied within 1e-15 at the smallest, and new ones interpolated from there,
    # PAV gives scikit-learn's isotonic posteriors; where it gave a new
    # probability just above the tie 0 instead of sklearn's 1e-10, one test
    # sample cost 13 nats.
    X_tr, y_tr, X_cal, y_cal, X_te, _ = _digits_split(n_classes)
    frozen = FrozenEstimator(GaussianNB().fit(X_tr, y_tr))
    ours = CalibratedClassifier(frozen, PAVCalibrator()).fit(X_cal, y_cal)
    ref = CalibratedClassifierCV(frozen, method="isotonic").fit(X_cal, y_cal)
    got, expected = ours.predict_proba(X_te), ref.predict_proba(X_te)
    assert_allclose(got, expected, rtol=1e-12, atol=1e-300)


class _FirstColumnProba(ClassifierMixin, BaseEstimator):
    """A fitted classifier whose probability of class 1 is ``X[:, 0]``."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (np.asarray(X, dtype=float)[:, 0] > 0.5).astype(int)


@pytest.mark.filterwarnings("ignore:The least populated class")
def test_pav_interpolates_above_a_tie_of_tiny_probabilities():
    # The four smallest calibration probabilities are one tie at 1e-193 (as
    # scikit-learn's isotonic regression has it), so a new 6.8e-20 is
    # interpolated towards the next knot: 6.8e-20 / 4.4e-11 of its value,
    # not the tie's 0 (which cost a test sample of a naive Bayes model 13
    # nats against scikit-learn).
    p = np.array([1e-193, 1e-108, 2e-20, 6.6e-20, 4.4e-11, 5.3e-11, 0.3, 0.6, 0.9])
    y = np.array([0, 0, 0, 0, 1, 0, 0, 1, 1])
    frozen = FrozenEstimator(_FirstColumnProba().fit(p[:, None], y))
    ours = CalibratedClassifier(frozen, PAVCalibrator()).fit(p[:, None], y)
    ref = CalibratedClassifierCV(frozen, method="isotonic").fit(p[:, None], y)
    new = np.array([[6.8e-20], [1e-300], [3e-11], [0.45]])
    got = ours.predict_proba(new)[:, 1]
    assert_allclose(got, ref.predict_proba(new)[:, 1], rtol=1e-12)
    block = 1.0 / 3.0  # 4.4e-11, 5.3e-11 and 0.3 pooled
    assert_allclose(got[0], (6.8e-20 - 1e-193) / (4.4e-11 - 1e-193) * block)
    assert got[1] == 0.0


def test_proba_floor_follows_the_classifier_resolution():
    from skcalib.utils._response import MIN_PROBA_FLOOR, proba_floor

    votes = np.array([[0.0, 1.0], [0.01, 0.99], [0.5, 0.5], [0.97, 0.03]])
    assert proba_floor(votes) == 0.005  # half the smallest non-zero vote share
    underflow = np.array([[1e-300, 1.0], [0.2, 0.8], [np.nan, np.nan]])
    assert proba_floor(underflow) == MIN_PROBA_FLOOR
    assert proba_floor(np.array([[0.0, 1.0], [1.0, 0.0]])) == 0.5


def test_platt_takes_the_better_predict_proba_input():
    # a random forest's vote shares are best calibrated as probabilities
    # (scikit-learn's input), naive Bayes' as log-odds: the fit decides,
    # the log-odds by a significant gain only.
    X_tr, y_tr, X_cal, y_cal, _, _ = _digits_split(2)
    rf = FrozenEstimator(RandomForestClassifier(50, random_state=0).fit(X_tr, y_tr))
    nb = FrozenEstimator(GaussianNB().fit(X_tr, y_tr))
    fitted_rf = CalibratedClassifier(rf, PlattCalibrator()).fit(X_cal, y_cal)
    assert fitted_rf.proba_input_ == "probability"
    fitted_nb = CalibratedClassifier(nb, PlattCalibrator()).fit(X_cal, y_cal)
    assert fitted_nb.proba_input_ == "log_odds"
    # a decision function is used as it is
    svc = CalibratedClassifier(LinearSVC(), PlattCalibrator()).fit(
        *make_scores(600, kind="features")[:2]
    )
    assert svc.proba_input_ is None and svc.proba_floor_ is None


def test_mostly_saturated_probabilities_warn():
    from sklearn.tree import DecisionTreeClassifier

    X, y, _ = make_scores(600, kind="features")
    with pytest.warns(UserWarning, match=r"100% of the calibration samples .* min"):
        CalibratedClassifier(DecisionTreeClassifier(random_state=0)).fit(X, y)


# ------------------------------------------------ batch-invariant scores
class TailKernelLogisticRegression(LogisticRegression):
    """LogisticRegression whose last ``n % 4`` scores move by 64 ulps.

    What OpenBLAS' Prescott and Nehalem kernels do to a matrix product: the
    rows left over by the kernel's unrolling are computed by another kernel,
    so a sample's score depends on how many rows are scored with it.
    """

    def decision_function(self, X):
        scores = super().decision_function(X)
        tail = scores.shape[0] % 4
        if tail:
            end = scores[-tail:]
            scores[-tail:] = end + 64 * np.abs(np.spacing(end))
        return scores


@pytest.mark.parametrize("Cal", [PAVCalibrator, PAVLLRCalibrator, PlattCalibrator])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_scores_do_not_depend_on_the_batch(Cal, n_classes):
    # a sample gets the same calibrated output alone or in any batch; before,
    # a training score one kernel away from its PAV knot of probability 0 got
    # 1e-17 (log -38) instead of 0
    X, y, _ = make_scores(61, kind="features", n_classes=n_classes)
    clf = CalibratedClassifier(
        TailKernelLogisticRegression(), Cal(), cv=3, ensemble=True
    ).fit(X, y)
    for method in ("predict_proba", "decision_function"):
        batch = getattr(clf, method)(X)
        rows = [0, 1, 30, 58, 59, 60]  # the last three are a 4-row kernel's tail
        alone = np.concatenate([getattr(clf, method)(X[i : i + 1]) for i in rows])
        assert_array_equal(alone, batch[rows])
        shuffled = np.random.default_rng(0).permutation(61)
        assert_array_equal(getattr(clf, method)(X[shuffled]), batch[shuffled])


def test_weights_equal_repeated_rows_with_a_tail_kernel():
    # scikit-learn's check with the classifier's scores depending on the batch
    # as on a Prescott kernel: the failure seen on such machines
    from sklearn.utils.estimator_checks import (
        check_sample_weight_equivalence_on_dense_data,
    )

    clf = CalibratedClassifier(
        TailKernelLogisticRegression(), PAVCalibrator(), cv=3, ensemble=True
    )
    check_sample_weight_equivalence_on_dense_data("CalibratedClassifier", clf)
