"""The suite's shared fixtures: the factory of test data (tests/_scores.py)
and the list of calibrators (tests/_calibrators.py)."""

import numpy as np
import pytest
from _calibrators import CALIBRATORS, calibrator_classes, calibrators, sklearn_method
from _scores import make_scores as imported

import skcalib
from skcalib import MulticlassAffineCalibrator, PAVCalibrator, PAVLLRCalibrator


def test_the_fixture_is_the_factory(make_scores):
    assert make_scores is imported


@pytest.mark.parametrize(
    "kind, n_classes, shape",
    [
        ("binary", 2, (60,)),
        ("multiclass", 3, (60, 3)),
        ("features", 2, (60, 4)),
        ("features", 3, (60, 4)),
        ("probability", 2, (60,)),
        ("probability", 4, (60, 4)),
    ],
)
def test_kinds_are_reproducible(make_scores, kind, n_classes, shape):
    X, y, w = make_scores(60, seed=3, kind=kind, n_classes=n_classes, weights=True)
    assert X.shape == shape and y.shape == w.shape == (60,)
    assert set(np.unique(y)) <= set(range(n_classes))
    again = make_scores(60, seed=3, kind=kind, n_classes=n_classes, weights=True)
    for a, b in zip((X, y, w), again, strict=True):
        np.testing.assert_array_equal(a, b)
    if kind == "probability":
        assert ((X >= 0) & (X <= 1)).all()
        if X.ndim == 2:
            np.testing.assert_allclose(X.sum(axis=1), 1.0, rtol=1e-12)


def test_binary_scores_have_the_asked_class_distributions(make_scores):
    X, y, _ = make_scores(40_000, seed=0, prior=0.3, loc=(-1.0, 2.0), scale=(1.0, 2.0))
    assert y.mean() == pytest.approx(0.3, abs=0.01)
    assert X[y == 0].mean() == pytest.approx(-1.0, abs=0.03)
    assert X[y == 1].mean() == pytest.approx(2.0, abs=0.05)
    assert X[y == 1].std() == pytest.approx(2.0, abs=0.05)


def test_systems_share_a_component_and_spread(make_scores):
    X, y, _ = make_scores(
        40_000, n_columns=3, shared=0.5, loc=(0.0, 1.0), spread=(0.4, 1.0)
    )
    non = X[y == 0]
    np.testing.assert_allclose(non.std(axis=0) ** 2, 0.25 + np.r_[1, 4, 9], rtol=0.05)
    assert np.corrcoef(non[:, 0], non[:, 1])[0, 1] == pytest.approx(
        0.25 / np.sqrt(1.25 * 4.25), abs=0.02
    )
    gap = X[y == 1].mean(axis=0) - non.mean(axis=0)
    np.testing.assert_allclose(gap, [1.0, 1.4, 1.8], atol=0.08)


def test_ties_infinities_and_weights_that_keep_both_classes(make_scores):
    for seed in range(30):
        X, y, w = make_scores(
            6, seed=seed, both_first=True, decimals=1, inf=0.2, weights=True
        )
        assert np.all(np.isinf(X) | (np.round(X, 1) == X))
        assert (w >= 0).all() and w[y == 1].sum() > 0 and w[y == 0].sum() > 0


def test_the_list_holds_every_public_calibrator_once(calibrator):
    assert type(calibrator).__name__ in skcalib.__all__
    assert sum(repr(e) == repr(calibrator) for e in CALIBRATORS) == 1


def test_the_list_answers_by_tag():
    assert calibrator_classes("pav") == [PAVCalibrator, PAVLLRCalibrator]
    assert all(
        isinstance(c, MulticlassAffineCalibrator) for c in calibrators("multiclass")
    )
    assert type(sklearn_method("isotonic")) is PAVCalibrator
    first, second = calibrators("pav"), calibrators("pav")
    assert all(a is not b for a, b in zip(first, second, strict=True))
