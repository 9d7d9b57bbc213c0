"""The fitted calibrations of skcalib._calibrations, each against an
independent computation."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit, logit
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

from skcalib import (
    AutoCalibrator,
    MulticlassAffineCalibrator,
    PAVCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from skcalib._calibrations import (
    BinaryCalibration,
    CalibratedPair,
    ConstantCalibration,
    MixtureCalibration,
    MulticlassCalibration,
    OneVsRestCalibration,
    PosteriorBinaryCalibration,
    Response,
    VennAbersCalibration,
    calibration_layout,
    fit_calibration,
    merged_interval,
    normalize_one_vs_rest,
)


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return rng.normal(size=n) + 1.5 * y, y


def _classes(n=600, K=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    return rng.normal(size=(n, K)) + 1.5 * np.eye(K)[y], y


def test_one_vs_rest_rows_of_zeros_become_uniform():
    proba = np.array([[0.2, 0.2, 0.6], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    assert_allclose(
        normalize_one_vs_rest(proba),
        [[0.2, 0.2, 0.6], [1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0]],
    )


def test_constant_calibration():
    c = ConstantCalibration(0.3)
    assert_array_equal(c.predict_proba(np.zeros(4)), np.tile([0.7, 0.3], (4, 1)))
    p0, p1 = c.interval(np.zeros(4))
    assert_array_equal(p0, 0.3)
    assert_array_equal(p1, 0.3)
    assert not c.has_interval and c.priors is None and c.fitted is c


def test_layout_of_each_calibrator():
    assert calibration_layout(PAVCalibrator(), 2) == "binary"
    assert calibration_layout(PAVCalibrator(), 3) == "one_vs_rest"
    temperature = MulticlassAffineCalibrator(kind="temperature")
    assert calibration_layout(temperature, 2) == "classes"
    assert calibration_layout(temperature, 3) == "classes"
    # AutoCalibrator is binary too: one column of a binary problem
    assert calibration_layout(AutoCalibrator(), 2) == "binary"
    assert calibration_layout(AutoCalibrator(), 3) == "classes"


def test_binary_calibration_is_its_calibrator():
    s, y = _binary()
    cal = fit_calibration(PlattCalibrator(), "binary", s, y, 2, default_prior=0.9)
    assert type(cal) is BinaryCalibration and not cal.has_interval
    ref = PlattCalibrator().fit(s, y)
    assert_array_equal(cal.predict_proba(s), ref.predict_proba(s))
    assert_array_equal(cal.llr(s), ref.decision_function(s))
    assert cal.prior == ref.prior_ == np.mean(y)  # its own prior, not the default
    assert cal.fitted is cal.calibrator
    # the posteriors at the prior are sigmoid(llr + logit(prior))
    assert_allclose(cal.predict_proba(s)[:, 1], expit(cal.llr(s) + logit(cal.prior)))


class _ProbabilityOnly(BaseEstimator):
    """A binary calibrator with posteriors only (no decision_function, no
    prior): the proportion of targets above and below the median score."""

    def fit(self, X, y, sample_weight=None):
        self.cut_ = np.median(X)
        self.p_ = [np.mean(y[X < self.cut_]), np.mean(y[X >= self.cut_])]
        return self

    def transform(self, X):
        return self.predict_proba(X)[:, 1]

    def predict_proba(self, X):
        p = np.where(np.asarray(X) >= self.cut_, self.p_[1], self.p_[0])
        return np.column_stack([1 - p, p])


def test_binary_calibration_without_decision_function():
    s, y = _binary()
    cal = fit_calibration(_ProbabilityOnly(), "binary", s, y, 2, default_prior=0.4)
    assert type(cal) is PosteriorBinaryCalibration and cal.layout == "binary"
    assert cal.prior == 0.4  # the default: the calibrator has no prior
    p = cal.fitted.predict_proba(s)[:, 1]
    assert_allclose(cal.llr(s), logit(p) - logit(0.4), rtol=1e-12)


def test_multiclass_calibration_llr_and_unknown_classes():
    S, y = _classes(K=2)
    temperature = MulticlassAffineCalibrator(kind="temperature")
    cal = fit_calibration(temperature, "classes", S, y, 2, default_prior=0.5)
    assert type(cal) is MulticlassCalibration
    ref = MulticlassAffineCalibrator(kind="temperature").fit(S, y)
    p = ref.predict_proba(S)
    assert cal.prior == ref.p_classes_[1]
    assert_allclose(cal.llr(S), np.log(p[:, 1] / p[:, 0]) - logit(cal.prior))
    # a fold's classifier that knows classes 0 and 2 of 3
    S, y = _classes(K=3)
    known = np.array([True, False, True])
    cal = fit_calibration(temperature, "classes", S, y, 3, known=known)
    rows = y != 1
    ref = MulticlassAffineCalibrator(kind="temperature").fit(
        S[rows][:, [0, 2]], y[rows] // 2
    )
    proba = cal.predict_proba(S)
    assert_array_equal(proba[:, 1], 0.0)
    assert_allclose(proba[:, [0, 2]], ref.predict_proba(S[:, [0, 2]]))
    assert cal.prior is None  # no prior of one class with K > 2


def test_one_vs_rest_calibration_against_its_binary_fits():
    S, y = _classes(K=3)
    cal = fit_calibration(PAVCalibrator(), "one_vs_rest", S, y, 3)
    assert type(cal) is OneVsRestCalibration and len(cal.fitted) == 3
    raw = np.column_stack(
        [
            PAVCalibrator().fit(S[:, k], y == k).predict_proba(S[:, k])[:, 1]
            for k in range(3)
        ]
    )
    assert_allclose(cal.predict_proba(S), raw / raw.sum(1, keepdims=True))
    assert_array_equal(
        OneVsRestCalibration.fit(PAVCalibrator(), S, y, 3).predict_proba(S),
        cal.predict_proba(S),
    )


def test_one_vs_rest_stand_ins():
    S, y = _classes(K=3)
    y = np.where(y == 2, 0, y)  # class 2 absent from this fold
    w = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    known = np.array([True, False, True])  # class 1 unknown to the classifier
    cal = OneVsRestCalibration.fit_fold(PlattCalibrator(), S, y, 3, w, known)
    zero, absent = cal.calibrators[1], cal.calibrators[2]
    assert zero.proba == 0.0
    assert absent.proba == pytest.approx(1.0 / (w.sum() + 2.0))
    assert type(cal.calibrators[0]) is BinaryCalibration
    assert_allclose(cal.predict_proba(S).sum(axis=1), 1.0)


def test_venn_abers_calibration_interval_and_merge():
    s, y = _binary()
    cal = fit_calibration(VennAbersCalibrator(), "binary", s, y, 2)
    assert type(cal) is VennAbersCalibration and cal.has_interval
    ref = VennAbersCalibrator().fit(s, y)
    p0, p1 = cal.interval(s)
    assert_array_equal(np.c_[p0, p1], ref.predict_interval(s))
    assert cal.priors == (ref.calibration_prior_, ref.prior_)
    # one fold: the merge is Venn-Abers' own p1 / (1 - p0 + p1)
    merged = VennAbersCalibration.merged_proba([cal], p1 / (1 - p0 + p1))
    assert_allclose(merged, ref.predict_proba(s), rtol=1e-12)
    # a one-vs-rest calibration of Venn-Abers members has intervals too
    S, y3 = _classes(K=3)
    ovr = fit_calibration(VennAbersCalibrator(), "one_vs_rest", S, y3, 3)
    assert ovr.has_interval
    p0, p1 = ovr.interval(S)
    for k in range(3):
        pair = VennAbersCalibrator().fit(S[:, k], y3 == k).predict_interval(S[:, k])
        assert_array_equal(np.c_[p0[:, k], p1[:, k]], pair)


def test_merged_interval_by_geometric_means():
    class _Pair:
        def __init__(self, p0, p1):
            self.pair = (np.array([p0]), np.array([p1]))

        def interval(self, X):
            return self.pair

    p, p0, p1 = merged_interval([_Pair(0.2, 0.4), _Pair(0.5, 0.9)], None)
    gm1 = np.sqrt(0.4 * 0.9)
    gm0 = np.sqrt(0.8 * 0.5)
    assert_allclose([p0[0], p1[0], p[0]], [1 - gm0, gm1, gm1 / (gm0 + gm1)])


def test_mixture_of_binary_calibrators_mixes_posteriors():
    s, y = _binary()
    a, b = PlattCalibrator().fit(s, y), PAVCalibrator().fit(s, y)
    mix = MixtureCalibration([a, b], [0.3, 0.7], uninformative_weight=0.1)
    prior = a.calibration_prior_
    post = [expit(c.decision_function(s) + logit(prior)) for c in (a, b)]
    p = 0.9 * (0.3 * post[0] + 0.7 * post[1]) + 0.1 * prior
    assert_allclose(mix.decision_function(s), logit(p) - logit(prior), rtol=1e-10)
    # K classes: the mixed posteriors of each calibrator
    three = MixtureCalibration([0, 1], [0.25, 0.75], 0.2, np.array([0.5, 0.3, 0.2]))
    rows = {0: np.array([[1.0, 0.0, 0.0]]), 1: np.array([[0.0, 0.0, 1.0]])}
    assert_allclose(
        three.predict_proba(rows.get), [[0.3, 0.06, 0.04 + 0.6]], rtol=1e-12
    )


def test_calibrated_pair_scores_its_classifier():
    s, y = _binary()
    X = np.c_[s, np.random.default_rng(2).normal(size=s.shape[0])]
    lr = LogisticRegression().fit(X, y)
    cal = fit_calibration(PlattCalibrator(), "binary", lr.decision_function(X), y, 2)
    pair = CalibratedPair(lr, cal, Response(lr.classes_, "decision_function"))
    assert_array_equal(
        pair.predict_proba(X), cal.predict_proba(lr.decision_function(X))
    )
    assert_array_equal(pair.llr(X), cal.llr(lr.decision_function(X)))
