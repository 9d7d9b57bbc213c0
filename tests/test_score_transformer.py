"""Tests of ScoreTransformer: out-of-fold scores as a pipeline step."""

import pickle

import numpy as np
import pytest
from _calibrators import calibrator_classes
from _scores import make_scores
from _sklearn_checks import parametrize_with_checks
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyRegressor
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import estimator_checks_generator

from skcalib import (
    PAVLLRCalibrator,
    PlattCalibrator,
    ScoreTransformer,
)
from skcalib._score_transformer import cross_fit

ONE_VS_REST = calibrator_classes("one_vs_rest")


class _Memorizer(ClassifierMixin, BaseEstimator):
    """Scores 1 for rows it was trained on (by the id in column 0), else 0.

    Also records the extra fit parameter ``tag`` it received, to test routing.
    """

    def fit(self, X, y, sample_weight=None, tag=None):
        self.seen_ = np.asarray(X)[:, 0].astype(int)
        self.classes_ = np.unique(y)
        self.tag_ = None if tag is None else np.asarray(tag)
        self.sample_weight_ = sample_weight
        return self

    def decision_function(self, X):
        return np.isin(np.asarray(X)[:, 0].astype(int), self.seen_).astype(float)


# ----------------------------------------------------------------- errors
def test_fold_missing_a_class_raises():
    X, _, _ = make_scores(90, kind="features")
    y = np.repeat([0, 1, 2], 30)  # KFold(3) without shuffling: one class per fold
    with pytest.raises(ValueError, match="one column per class"):
        ScoreTransformer(LogisticRegression(), cv=KFold(3)).fit_transform(X, y)


def test_unrouted_weights_raise_under_routing():
    X, y, _ = make_scores(300, kind="features")
    w = np.ones(X.shape[0])
    with config_context(enable_metadata_routing=True):
        est = LogisticRegression().set_fit_request(sample_weight=False)
        with pytest.raises(TypeError, match="not routed to any object"):
            ScoreTransformer(est).fit(X, y, sample_weight=w)


def test_single_class_raises():
    X, _, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="2 classes"):
        ScoreTransformer(LogisticRegression()).fit(X, np.ones(X.shape[0]))


def test_mixed_label_types_raise():
    X, _, _ = make_scores(4, kind="features")
    y = np.array(["a", 1, "a", 1], dtype=object)
    with pytest.raises(ValueError, match="mixes label types"):
        ScoreTransformer(LogisticRegression()).fit(X, y)


def test_continuous_target_raises():
    X, _, _ = make_scores(4, kind="features")
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        ScoreTransformer(LogisticRegression()).fit(X, [0.5, 1.5, 0.5, 1.5])


def test_response_method_not_available_raises():
    X, y, _ = make_scores(300, kind="features")
    st = ScoreTransformer(GaussianNB(), response_method="decision_function")
    with pytest.raises(ValueError, match="`response_method`='decision_function'"):
        st.fit(X, y)


def test_estimator_without_scores_raises():
    X, y, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="neither `decision_function` nor"):
        ScoreTransformer(DummyRegressor()).fit(X, y)


def test_invalid_response_method_raises():
    X, y, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="response_method"):
        ScoreTransformer(LogisticRegression(), response_method="predict").fit(X, y)


def test_sample_weight_unsupported_raises():
    X, y, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="does not accept `sample_weight`"):
        ScoreTransformer(KNeighborsClassifier()).fit_transform(
            X, y, sample_weight=np.ones(X.shape[0])
        )


def test_bad_sample_weight_raises():
    X, y, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ScoreTransformer(LogisticRegression()).fit(X, y, sample_weight=np.ones(3))


def test_cv_not_a_partition_raises():
    X, y, _ = make_scores(300, kind="features")
    st = ScoreTransformer(LogisticRegression(), cv=ShuffleSplit(3, random_state=0))
    with pytest.raises(ValueError, match="partition the samples"):
        st.fit_transform(X, y)


def test_cv_leaking_split_raises():
    X, y, _ = make_scores(20, kind="features")
    idx = np.arange(20)
    leaky = [(idx, idx[:10]), (idx[10:], idx[:10] + 10)]
    with pytest.raises(ValueError, match="overlaps its training fold"):
        ScoreTransformer(LogisticRegression(), cv=leaky).fit_transform(X, y)


def test_transform_before_fit_raises():
    X, _, _ = make_scores(300, kind="features")
    with pytest.raises(ValueError, match="not fitted"):
        ScoreTransformer(LogisticRegression()).transform(X)


# ------------------------------------------------------------ correctness
@pytest.mark.parametrize(
    "cv",
    [
        StratifiedKFold(5, shuffle=True, random_state=1),
        KFold(4, shuffle=True, random_state=2),
        3,
    ],
)
@pytest.mark.parametrize("estimator", [LogisticRegression(), LinearSVC()])
def test_fit_transform_equals_cross_val_predict(estimator, cv):
    X, y, _ = make_scores(300, kind="features")
    st = ScoreTransformer(estimator, cv=cv)
    oof = st.fit_transform(X, y)
    ref = cross_val_predict(estimator, X, y, cv=cv, method="decision_function")
    assert oof.shape == (X.shape[0], 1)
    assert_array_equal(oof[:, 0], ref)
    # ... and deliberately not the in-sample scores of the all-data model
    in_sample = st.transform(X)
    assert_allclose(in_sample[:, 0], clone(estimator).fit(X, y).decision_function(X))
    assert not np.allclose(oof, in_sample)


def test_fit_transform_predict_proba_is_log_odds_of_cross_val_predict():
    X, y, _ = make_scores(300, kind="features")
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    st = ScoreTransformer(GaussianNB(), cv=cv)
    oof = st.fit_transform(X, y)[:, 0]
    assert st.response_method_ == "predict_proba"
    proba = cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")
    assert_allclose(oof, np.log(proba[:, 1]) - np.log(proba[:, 0]), rtol=1e-12)


@pytest.mark.parametrize("estimator", [LogisticRegression(), LinearSVC()])
def test_multiclass_fit_transform_equals_cross_val_predict(estimator):
    X, y, _ = make_scores(300, kind="features", n_classes=3)
    labels = np.array(["a", "b", "c"])[y]
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    st = ScoreTransformer(estimator, cv=cv)
    oof = st.fit_transform(X, labels)
    ref = cross_val_predict(estimator, X, labels, cv=cv, method="decision_function")
    assert oof.shape == (X.shape[0], 3)
    assert_array_equal(oof, ref)
    assert_array_equal(st.classes_, ["a", "b", "c"])
    assert_allclose(
        st.transform(X), clone(estimator).fit(X, labels).decision_function(X)
    )
    assert st.get_feature_names_out().tolist() == [
        "scoretransformer0",
        "scoretransformer1",
        "scoretransformer2",
    ]


def test_multiclass_predict_proba_scores_are_log_probabilities():
    X, y, _ = make_scores(300, kind="features", n_classes=3)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    st = ScoreTransformer(GaussianNB(), cv=cv)
    oof = st.fit_transform(X, y)
    proba = cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")
    floor = np.finfo(np.float64).tiny
    assert_allclose(oof, np.log(np.maximum(proba, floor)), rtol=1e-12)
    assert np.isfinite(st.transform(100 * X)).all()  # saturated, still finite


def test_routing_weights_and_groups_reach_only_who_requests():
    X, y, _ = make_scores(60, kind="features")
    X = np.column_stack([np.arange(60), X])
    w = np.arange(1.0, 61.0)
    groups = np.arange(60) % 5
    cv = GroupKFold(5)
    with config_context(enable_metadata_routing=True):
        st = ScoreTransformer(
            _Memorizer().set_fit_request(sample_weight=False, tag=True), cv=cv
        )
        st.fit_transform(X, y, tag=np.arange(60), groups=groups)
        assert st.estimator_.sample_weight_ is None
        assert_array_equal(st.estimator_.tag_, np.arange(60))
        st = ScoreTransformer(_Memorizer().set_fit_request(sample_weight=True))
        st.fit(X, y, sample_weight=w)
        assert_array_equal(st.estimator_.sample_weight_, w)
        info = (
            ScoreTransformer(_Memorizer().set_fit_request(sample_weight=True), cv=cv)
            .get_metadata_routing()
            ._serialize()
        )
    assert info["estimator"]["router"]["fit"] == {
        "sample_weight": True,
        "tag": None,
    }
    assert info["splitter"]["router"]["split"] == {"groups": True}
    # the split used the groups: no group in two test folds
    _, splits, _, _, _ = cross_fit(
        _Memorizer(),
        X,
        y,
        cv=cv,
        response_method="auto",
        split_params={"groups": groups},
    )
    for _, test in splits:
        assert len(np.unique(groups[test])) == 1


def test_no_sample_is_scored_by_a_model_that_saw_it():
    X, y, _ = make_scores(100, kind="features")
    X = np.column_stack([np.arange(100), X])  # column 0: the row id
    st = ScoreTransformer(_Memorizer(), cv=StratifiedKFold(4))
    oof = st.fit_transform(X, y)
    assert_array_equal(oof, 0.0)  # every out-of-fold score from a blind model
    assert_array_equal(st.transform(X), 1.0)  # the all-data model saw them all


def test_cv_none_is_in_sample():
    X, y, _ = make_scores(300, kind="features")
    st = ScoreTransformer(LogisticRegression(), cv=None)
    assert_array_equal(st.fit_transform(X, y), st.fit(X, y).transform(X))


def test_frozen_estimator_is_not_refitted():
    X, y, _ = make_scores(300, kind="features")
    lr = LogisticRegression().fit(X[:150], y[:150])
    coef = lr.coef_.copy()
    st = ScoreTransformer(FrozenEstimator(lr))
    oof = st.fit_transform(X[150:], y[150:])
    assert_array_equal(lr.coef_, coef)
    assert_allclose(oof[:, 0], lr.decision_function(X[150:]))


def test_saturated_probabilities_give_finite_bounded_scores():
    X, y, _ = make_scores(300, kind="features")
    tree = DecisionTreeClassifier(random_state=0)  # leaves are pure: p in {0, 1}
    st = ScoreTransformer(tree).fit(X, y)
    scores = st.transform(X)[:, 0]
    # no probability strictly inside (0, 1): the floor is 1/2 and only the
    # sign is left (it was the smallest double: scores of +/-708)
    assert st.proba_floor_ == 0.5
    assert np.isfinite(scores).all()
    assert_allclose(np.abs(scores), np.log(2.0))  # exactly at the floor
    assert_array_equal(scores > 0, y == 1)


def test_string_labels_scores_favour_classes_1():
    X, y, _ = make_scores(300, kind="features")
    labels = np.array(["spoof", "target"])[y]  # sorted: classes_[1] = "target"
    st = ScoreTransformer(LogisticRegression())
    scores = st.fit(X, labels).transform(X)[:, 0]
    assert_array_equal(st.classes_, ["spoof", "target"])
    assert scores[labels == "target"].mean() > scores[labels == "spoof"].mean()


def test_sample_weight_and_fit_params_reach_each_fold():
    X, y, _ = make_scores(60, kind="features")
    X = np.column_stack([np.arange(60), X])
    w = np.arange(1.0, 61.0)
    tag = np.arange(60) * 10
    cv = StratifiedKFold(3)
    st = ScoreTransformer(_Memorizer(), cv=cv)
    st.fit_transform(X, y, sample_weight=w, tag=tag)
    assert_array_equal(st.estimator_.sample_weight_, w)
    assert_array_equal(st.estimator_.tag_, tag)
    # the fold models: rebuild them through the shared helper
    _, splits, folds, _, _ = cross_fit(
        _Memorizer(),
        X,
        y,
        cv=cv,
        response_method="auto",
        sample_weight=w,
        fit_params={"tag": tag},
    )
    for (train, _), est in zip(splits, folds, strict=True):
        assert_array_equal(est.sample_weight_, w[train])
        assert_array_equal(est.tag_, tag[train])


def test_sample_weight_matches_cross_val_predict():
    X, y, _ = make_scores(300, kind="features")
    w = np.random.default_rng(3).uniform(0.2, 3.0, size=X.shape[0])
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    oof = ScoreTransformer(LogisticRegression(), cv=cv).fit_transform(
        X, y, sample_weight=w
    )
    ref = cross_val_predict(
        LogisticRegression(),
        X,
        y,
        cv=cv,
        method="decision_function",
        params={"sample_weight": w},
    )
    assert_array_equal(oof[:, 0], ref)


def test_n_jobs_2_equals_n_jobs_1():
    X, y, _ = make_scores(300, kind="features")
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    one = ScoreTransformer(LogisticRegression(), cv=cv, n_jobs=1)
    two = ScoreTransformer(LogisticRegression(), cv=cv, n_jobs=2)
    assert_array_equal(one.fit_transform(X, y), two.fit_transform(X, y))
    assert_array_equal(one.transform(X), two.transform(X))


def test_pickle_and_clone():
    X, y, _ = make_scores(300, kind="features")
    st = ScoreTransformer(LogisticRegression(C=0.3), cv=3).fit(X, y)
    restored = pickle.loads(pickle.dumps(st))
    assert_array_equal(restored.transform(X), st.transform(X))
    fresh = clone(st)
    assert not hasattr(fresh, "estimator_")
    assert fresh.get_params()["estimator__C"] == 0.3


def test_get_feature_names_out_and_pandas_output():
    import pandas as pd

    X, y, _ = make_scores(300, kind="features")
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    st = ScoreTransformer(LogisticRegression()).set_output(transform="pandas")
    out = st.fit_transform(frame, y)
    assert list(out.columns) == ["scoretransformer0"]
    assert_array_equal(st.get_feature_names_out(), ["scoretransformer0"])
    assert_array_equal(st.feature_names_in_, frame.columns)


# ------------------------------------------------------------- pipelines
@pytest.mark.parametrize("calibrator", ONE_VS_REST, ids=lambda c: c.__name__)
def test_pipeline_with_each_calibrator(calibrator):
    X, y, _ = make_scores(400, kind="features")
    pipe = make_pipeline(ScoreTransformer(LinearSVC(), cv=4), calibrator())
    pipe.fit(X, y)
    # the calibrator was trained on the out-of-fold scores, not in-sample ones
    oof = cross_val_predict(LinearSVC(), X, y, cv=4, method="decision_function")
    ref = calibrator().fit(oof, y)
    scores = pipe[0].transform(X)
    assert_allclose(pipe.predict_proba(X), ref.predict_proba(scores), rtol=1e-12)
    proba = pipe.predict_proba(X)
    assert proba.shape == (400, 2)
    assert_allclose(proba.sum(axis=1), 1.0)
    restored = pickle.loads(pickle.dumps(pipe))
    assert_array_equal(restored.predict_proba(X), proba)
    assert_array_equal(clone(pipe).fit(X, y).predict_proba(X), proba)


def test_grid_search_over_classifier_and_calibrator_parameters():
    X, y, _ = make_scores(300, kind="features")
    pipe = make_pipeline(ScoreTransformer(LinearSVC(), cv=3), PAVLLRCalibrator())
    grid = {
        "scoretransformer__estimator__C": [0.01, 1.0],
        "pavllrcalibrator__extremes": ["succession", "bound"],
    }

    def neg_log_loss(est, X_, y_):
        return -log_loss(y_, est.predict_proba(X_)[:, 1])

    search = GridSearchCV(pipe, grid, scoring=neg_log_loss, cv=3).fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    best = search.best_estimator_
    assert best[0].estimator_.C == search.best_params_["scoretransformer__estimator__C"]
    assert best[1].extremes == search.best_params_["pavllrcalibrator__extremes"]
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


# --------------------------------------------------------- common checks
EXPECTED_FAILED = {
    "check_transformer_general": (
        "fit_transform returns out-of-fold scores by design; transform uses the "
        "all-data model"
    ),
    "check_transformer_general(readonly_memmap=True)": (
        "fit_transform returns out-of-fold scores by design"
    ),
    "check_transformer_data_not_an_array": (
        "fit_transform returns out-of-fold scores by design"
    ),
}
COMMON = [
    ScoreTransformer(LogisticRegression(), cv=3),
    # the predict_proba road: naive Bayes gives the checks' well-separated
    # blobs probabilities of only 0 and 1, whose scores (at the floor 1/2) are
    # the same out of fold and in sample; a logistic model's are not
    ScoreTransformer(LogisticRegression(), response_method="predict_proba", cv=3),
]


@parametrize_with_checks(COMMON, expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", COMMON, ids=lambda e: type(e.estimator).__name__)
def test_common_checks_are_not_vacuous(estimator):
    checks = list(estimator_checks_generator(estimator, legacy=True))
    assert len(checks) >= 45


# ----------------------------------------- a Pipeline ending in a calibrator
@pytest.mark.parametrize("Calibrator", ONE_VS_REST)
def test_pipeline_ending_in_a_calibrator_is_a_classifier(Calibrator):
    # cross_val_score stratifies the folds of a classifier: on data sorted by
    # class, unstratified folds train on one class only and fail
    from sklearn.base import is_classifier
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import cross_val_score

    X, y, _ = make_scores(240, kind="features")
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    pipe = make_pipeline(ScoreTransformer(LogisticRegression()), Calibrator())
    assert is_classifier(pipe) and is_classifier(Calibrator())
    got = cross_val_score(pipe, X, y, cv=3)
    expected = [
        accuracy_score(y[test], clone(pipe).fit(X[train], y[train]).predict(X[test]))
        for train, test in StratifiedKFold(3).split(X, y)
    ]
    assert_allclose(got, expected)
    # the default score is a classifier's: the accuracy of predict
    pipe.fit(X, y)
    assert pipe.score(X, y) == accuracy_score(y, pipe.predict(X))
    w = np.linspace(0.5, 2.0, y.shape[0])
    assert pipe[-1].score(pipe[0].transform(X), y, sample_weight=w) == (
        accuracy_score(y, pipe.predict(X), sample_weight=w)
    )


def test_grid_search_without_scoring_uses_the_default_score():
    from skcalib.metrics import get_scorer

    X, y, _ = make_scores(240, kind="features")
    pipe = make_pipeline(ScoreTransformer(LogisticRegression()), PlattCalibrator())
    grid = {"scoretransformer__estimator__C": [0.01, 1.0]}
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    cv = StratifiedKFold(3)
    for C, mean in zip(
        grid["scoretransformer__estimator__C"],
        search.cv_results_["mean_test_score"],
        strict=True,
    ):
        p = clone(pipe).set_params(scoretransformer__estimator__C=C)
        scores = [
            clone(p).fit(X[tr], y[tr]).score(X[te], y[te]) for tr, te in cv.split(X, y)
        ]
        assert mean == pytest.approx(np.mean(scores))
    # a calibration-aware criterion: a scorer object from skcalib's get_scorer
    search = GridSearchCV(pipe, grid, cv=3, scoring=get_scorer("neg_cllr")).fit(X, y)
    assert np.all(search.cv_results_["mean_test_score"] < 0)


def test_calibrator_of_several_columns_has_no_score():
    # like predict, the accuracy needs one column of scores
    X, y, _ = make_scores(300, kind="features")
    cal = PlattCalibrator().fit(X[:, :2], y)
    assert not hasattr(cal, "score") and not hasattr(cal, "predict")
    with pytest.raises(ValueError, match="need exactly one column"):
        cal.score(X[:, :2], y)
