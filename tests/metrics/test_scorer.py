"""Tests of the model-selection scorers (skcalib.metrics._scorer)."""

import pickle

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import LinearSVC

from skcalib._pav_calibrators import PAVLLRCalibrator
from skcalib._score_transformer import ScoreTransformer
from skcalib.metrics import (
    actual_dcf,
    beta_rule_loss,
    brier_loss,
    classwise_calibration_error,
    cllr,
    cllr_cal,
    devpav,
    eer,
    empirical_bayes_risk,
    expected_calibration_error,
    get_scorer,
    get_scorer_names,
    min_cllr,
    min_dcf,
    multiclass_brier_loss,
    multiclass_cllr,
    top_label_calibration_error,
)

PARAMS = {
    "neg_cllr": {},
    "neg_min_cllr": {},
    "neg_cllr_cal": {},
    "neg_devpav": {},
    "neg_brier_loss": {"p_target": 0.3},
    "neg_beta_rule_loss": {"alpha": 2.0, "beta": 1.0},
    "neg_actual_dcf": {"p_target": 0.1},
    "neg_min_dcf": {"p_target": 0.1, "c_fa": 2.0},
    "neg_eer": {},
    "neg_expected_calibration_error": {"n_bins": 5},
}
METRICS = {
    "neg_cllr": (cllr, "llr"),
    "neg_min_cllr": (min_cllr, "llr"),
    "neg_cllr_cal": (cllr_cal, "llr"),
    "neg_devpav": (devpav, "llr"),
    "neg_brier_loss": (brier_loss, "llr"),
    "neg_beta_rule_loss": (beta_rule_loss, "llr"),
    "neg_actual_dcf": (actual_dcf, "llr"),
    "neg_min_dcf": (min_dcf, "llr"),
    "neg_eer": (eer, "llr"),
    "neg_expected_calibration_error": (expected_calibration_error, "proba"),
}


def _scores(seed=0, n=300):
    """Two score columns: an informative one and pure noise."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    X = np.column_stack([rng.normal(size=n) + 2.5 * y, rng.normal(size=n)])
    return X, y


def _column(X, col=0):
    return X[:, [col]]


# ------------------------------------------------------------------- errors
def test_get_scorer_errors():
    with pytest.raises(ValueError, match="valid skcalib scorer"):
        get_scorer("neg_log_loss")
    with pytest.raises(ValueError, match="p_target"):
        get_scorer("neg_min_dcf")
    with pytest.raises(ValueError, match="alpha"):
        get_scorer("neg_beta_rule_loss", beta=1.0)
    with pytest.raises(ValueError, match="Unknown parameter"):
        get_scorer("neg_cllr", c_miss=2.0)
    with pytest.raises(ValueError, match="p_target"):  # checked at construction
        get_scorer("neg_actual_dcf", p_target=1.5)
    with pytest.raises(ValueError, match="alpha"):
        get_scorer("neg_beta_rule_loss", alpha=-1.0, beta=1.0)


def test_llr_scorer_needs_decision_function():
    X, y = _scores()
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="decision_function"):
        get_scorer("neg_cllr")(rf, X, y)
    # Minimum metrics fall back on predict_proba.
    score = get_scorer("neg_eer")(rf, X, y)
    p = rf.predict_proba(X)[:, 1]
    assert score == -eer(y, p)


def test_multiclass_estimator_rejected():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 2)), np.arange(60) % 3
    lr = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        get_scorer("neg_min_cllr")(lr, X, y)


# --------------------------------------------------------------- correctness
def test_names():
    assert get_scorer_names() == sorted({**PARAMS, **MULTICLASS})


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_scorer_equals_minus_metric(name):
    X, y = _scores(1)
    cal = PAVLLRCalibrator().fit(X[:, 0], y)
    scorer = get_scorer(name, **PARAMS[name])
    func, response = METRICS[name]
    if response == "llr":
        x = cal.decision_function(X[:, 0])
    else:
        x = cal.predict_proba(X[:, 0])[:, 1]
    assert scorer(cal, X[:, 0], y) == -func(y, x, **PARAMS[name])
    w = np.arange(len(y)) % 3
    assert scorer(cal, X[:, 0], y, sample_weight=w) == -func(
        y, x, sample_weight=w, **PARAMS[name]
    )
    assert pickle.loads(pickle.dumps(scorer))(cal, X[:, 0], y) == scorer(
        cal, X[:, 0], y
    )
    assert repr(scorer).startswith(f"get_scorer({name!r}")


def test_pos_label_from_classes_and_flip():
    X, y = _scores(2)
    labels = np.where(y == 1, "target", "nontarget")  # classes_[1] == "target"
    cal = PAVLLRCalibrator().fit(X[:, 0], labels)
    llr = cal.decision_function(X[:, 0])
    assert get_scorer("neg_cllr")(cal, X[:, 0], labels) == -cllr(y, llr)
    # The other class as target: its LLR is -llr.
    flipped = get_scorer("neg_cllr", pos_label="nontarget")(cal, X[:, 0], labels)
    assert flipped == -cllr(1 - y, -llr)
    dcf = get_scorer("neg_actual_dcf", p_target=0.2, pos_label="nontarget")
    assert dcf(cal, X[:, 0], labels) == -actual_dcf(1 - y, -llr, p_target=0.2)


def test_cross_validate_with_several_scorers():
    X, y = _scores(3)
    scoring = {name: get_scorer(name, **PARAMS[name]) for name in PARAMS}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    res = cross_validate(PAVLLRCalibrator(), X[:, :1], y, cv=cv, scoring=scoring)
    for name in PARAMS:
        assert np.all(np.isfinite(res[f"test_{name}"]))
        assert np.all(res[f"test_{name}"] <= 0)
    # Fold by fold, the same numbers as the metric on the held-out LLRs.
    for k, (train, test) in enumerate(cv.split(X, y)):
        cal = PAVLLRCalibrator().fit(X[train, :1], y[train])
        llr = cal.decision_function(X[test, :1])
        assert res["test_neg_cllr"][k] == -cllr(y[test], llr)
        assert res["test_neg_min_dcf"][k] == -min_dcf(
            y[test], llr, p_target=0.1, c_fa=2.0
        )


@pytest.mark.parametrize(
    "name, params", [("neg_cllr", {}), ("neg_min_dcf", {"p_target": 0.2})]
)
def test_grid_search_over_classifier_and_calibrator_pipeline(name, params):
    # A classifier's (out-of-fold) scores followed by a skcalib calibrator;
    # the search must prefer the real classifier to a constant one, and the
    # informative feature to the noise feature.
    X, y = _scores(4, n=240)
    pipe = make_pipeline(
        FunctionTransformer(_column),
        ScoreTransformer(LogisticRegression(), cv=3),
        PAVLLRCalibrator(),
    )
    grid = {
        "functiontransformer__kw_args": [{"col": 0}, {"col": 1}],
        "scoretransformer__estimator": [
            DummyClassifier(strategy="prior"),
            LogisticRegression(),
        ],
    }
    search = GridSearchCV(pipe, grid, scoring=get_scorer(name, **params), cv=3)
    search.fit(X, y)
    best = search.best_params_
    assert best["functiontransformer__kw_args"] == {"col": 0}
    assert isinstance(best["scoretransformer__estimator"], LogisticRegression)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert search.best_score_ > -0.8  # clearly better than the prior alone
    worst = scores.min()
    assert worst < -0.9  # constant or noise scores are about as bad as the prior
    # The refitted pipeline produces calibrated LLRs on new data.
    Xn, yn = _scores(5, n=400)
    assert cllr(yn, search.decision_function(Xn)) < 0.8


# scikit-learn's std of fold scores that include -inf.
@pytest.mark.filterwarnings("ignore:invalid value encountered in subtract")
def test_grid_search_prefers_finite_llrs():
    # With extremes='raw' the PAV-LLR is +/-inf beyond the calibration data,
    # so held-out trials can be confidently wrong (Cllr = inf); selecting by
    # neg_cllr must avoid it, while min-metrics (order only) cannot tell.
    X, y = _scores(6, n=150)
    grid = {"extremes": ["raw", "succession", "bound"]}
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    search = GridSearchCV(
        PAVLLRCalibrator(), grid, scoring=get_scorer("neg_cllr"), cv=cv
    )
    with pytest.warns(UserWarning, match="non-finite"):
        search.fit(X[:, :1], y)
    assert search.best_params_["extremes"] != "raw"
    assert np.isneginf(search.cv_results_["mean_test_score"][0])


# ------------------------------------------------------------- multiclass
COST3 = [[0, 1, 4], [1, 0, 1], [1, 2, 0]]
MULTICLASS = {
    "neg_multiclass_cllr": (multiclass_cllr, {"p_classes": [0.2, 0.3, 0.5]}),
    "neg_multiclass_brier_loss": (multiclass_brier_loss, {}),
    "neg_top_label_calibration_error": (top_label_calibration_error, {"n_bins": 5}),
    "neg_classwise_calibration_error": (
        classwise_calibration_error,
        {"strategy": "quantile"},
    ),
    "neg_empirical_bayes_risk": (
        empirical_bayes_risk,
        {"cost_matrix": COST3, "normalize": True},
    ),
}


def _three_classes(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    X = rng.normal(size=(n, 2)) + np.array([[0, 0], [2, 0], [0, 2]])[y]
    return X, np.array(["ant", "bee", "cow"])[y]


def test_multiclass_scorer_errors():
    with pytest.raises(ValueError, match="cost_matrix"):
        get_scorer("neg_empirical_bayes_risk")
    with pytest.raises(ValueError, match="p_classes"):  # checked at construction
        get_scorer("neg_multiclass_cllr", p_classes=[0.5, 0.6, 0.1])
    with pytest.raises(ValueError, match="Unknown parameter"):
        get_scorer("neg_multiclass_cllr", pos_label=1)
    X, y = _three_classes()
    with pytest.raises(ValueError, match="predict_proba"):
        get_scorer("neg_multiclass_cllr")(LinearSVC().fit(X, y), X, y)


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_multiclass_scorer_equals_minus_metric(name):
    X, y = _three_classes(1)
    func, params = MULTICLASS[name]
    lr = LogisticRegression().fit(X, y)
    proba = lr.predict_proba(X)
    scorer = get_scorer(name, **params)
    labels = lr.classes_
    assert scorer(lr, X, y) == -func(y, proba, labels=labels, **params)
    w = np.arange(len(y)) % 3 + 0.5
    assert scorer(lr, X, y, sample_weight=w) == -func(
        y, proba, labels=labels, sample_weight=w, **params
    )
    assert pickle.loads(pickle.dumps(scorer))(lr, X, y) == scorer(lr, X, y)
    # usable in cross_validate (greater is better)
    res = cross_validate(LogisticRegression(), X, y, scoring=scorer, cv=3)
    assert np.all(res["test_score"] <= 0)


def test_bayes_risk_scorer_decides_with_the_cost_matrix():
    X, y = _three_classes(2)
    lr = LogisticRegression().fit(X, y)
    scorer = get_scorer("neg_empirical_bayes_risk", cost_matrix=COST3)
    decisions = lr.classes_[np.argmin(lr.predict_proba(X) @ np.array(COST3).T, axis=1)]
    assert scorer(lr, X, y) == -empirical_bayes_risk(
        y, decisions, COST3, labels=lr.classes_
    )
