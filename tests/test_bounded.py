"""Bounded LRs: PAVLLRCalibrator(extremes='elub' / 'invariance') and
BoundedCalibrator (skcalib._bounded)."""

import math

import numpy as np
import pytest
from _scores import make_scores
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skcalib import (
    BoundedCalibrator,
    PAVCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ScoreTransformer,
)
from skcalib.datasets import load_cartridge_case
from skcalib.metrics import elub_bounds, invariance_bounds

BOUNDS = {"elub": elub_bounds, "invariance": invariance_bounds}


#: The data of lir 1.3.1's test_bounded_calibrated_scorer (tests/test_elub.py,
#: tests/test_invariance_bounds.py): 1000 scores N(-1, 1), then 1000 N(1, 1).
_rng = np.random.default_rng(seed=0)
LIR_BOUNDER_DATA = (
    np.concatenate([_rng.normal(-1, 1, size=(1000, 1)), _rng.normal(1, 1, (1000, 1))]),
    np.r_[np.zeros(1000), np.ones(1000)],
)


def test_lir_bounder_published_values():
    # lir's ELUBBounder / IVBounder after LogisticRegression: base-10 LLR
    # bounds (-1.53, 2.02) and (-1.6170015, 2.1899985); the classes are
    # balanced, so the log posterior odds are the LLRs
    X, y = LIR_BOUNDER_DATA
    llr = LogisticRegression().fit(X, y).decision_function(X)
    got = np.array(elub_bounds(y, llr, grid=0.01)) / math.log(10)
    np.testing.assert_allclose(got, (-1.53, 2.02), atol=1e-12)
    got = np.array(invariance_bounds(y, llr, grid=0.001)) / math.log(10)
    np.testing.assert_allclose(got, (-1.6170015, 2.1899985), atol=1e-7)


@pytest.mark.parametrize("kind", sorted(BOUNDS))
def test_pav_extremes_clip_to_the_bounds_of_the_pav_llrs(kind):
    data = load_cartridge_case()
    x, y = data.llr, data.target
    raw = PAVLLRCalibrator(extremes="raw").fit(x, y).transform(x)
    lower, upper = BOUNDS[kind](y, raw)
    assert -np.inf < lower < 0 < upper < np.inf
    out = PAVLLRCalibrator(extremes=kind).fit(x, y).transform(x)
    np.testing.assert_allclose(out, np.clip(raw, lower, upper), rtol=1e-12)
    assert out.min() == lower and out.max() == upper
    # the probability calibrator holds the same LLRs
    proba = PAVCalibrator(extremes=kind).fit(x, y).decision_function(x)
    np.testing.assert_allclose(proba, out, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", sorted(BOUNDS))
def test_bounded_calibrator_bounds_and_clips(kind):
    x, y, _ = make_scores(400, prior=0.4, loc=(0.0, 2.0))
    cal = BoundedCalibrator(bounds=kind).fit(x, y)
    llr = PlattCalibrator().fit(x, y).decision_function(x)
    lower, upper = BOUNDS[kind](y, llr)
    assert cal.lower_bound_.tolist() == [lower]
    assert cal.upper_bound_.tolist() == [upper]
    grid = np.linspace(-20, 20, 101)
    inner = PlattCalibrator().fit(x, y).decision_function(grid)
    np.testing.assert_allclose(
        cal.decision_function(grid), np.clip(inner, lower, upper), rtol=1e-12
    )
    np.testing.assert_allclose(cal.transform(grid), cal.decision_function(grid))


def test_bounded_calibrator_of_a_probability_calibrator():
    x, y, _ = make_scores(400, seed=1, prior=0.4, loc=(0.0, 2.0))
    cal = BoundedCalibrator(PAVCalibrator(), bounds="elub").fit(x, y)
    llr = PAVCalibrator().fit(x, y).decision_function(x)
    np.testing.assert_allclose(
        [cal.lower_bound_[0], cal.upper_bound_[0]], elub_bounds(y, llr)
    )
    np.testing.assert_allclose(
        cal.decision_function(x), np.clip(llr, *elub_bounds(y, llr)), rtol=1e-12
    )


def test_bounded_calibrator_in_a_pipeline():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    pipe = make_pipeline(
        ScoreTransformer(LogisticRegression(), cv=3), BoundedCalibrator()
    ).fit(X, y)
    cal = pipe[-1]
    llr = pipe.decision_function(X * 100)  # far beyond the calibration data
    assert llr.min() >= cal.lower_bound_[0] and llr.max() <= cal.upper_bound_[0]
    assert llr.min() == cal.lower_bound_[0] and llr.max() == cal.upper_bound_[0]
    proba = pipe.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_bounded_calibrator_weights_equal_repetitions():
    x, y, _ = make_scores(120, seed=2, prior=0.4, loc=(0.0, 2.0))
    w = np.random.default_rng(2).integers(0, 4, x.shape[0])
    inner = PAVLLRCalibrator()
    a = BoundedCalibrator(inner).fit(x, y, sample_weight=w.astype(float))
    b = BoundedCalibrator(inner).fit(np.repeat(x, w), np.repeat(y, w))
    np.testing.assert_allclose(a.lower_bound_, b.lower_bound_, rtol=1e-9)
    np.testing.assert_allclose(a.upper_bound_, b.upper_bound_, rtol=1e-9)


def test_bounded_calibrator_several_columns_and_clone():
    x, y, _ = make_scores(400, seed=3, prior=0.4, loc=(0.0, 2.0))
    X = np.column_stack([x, -x + 0.3 * np.random.default_rng(3).normal(size=x.size)])
    cal = BoundedCalibrator(PAVLLRCalibrator(), bounds="invariance").fit(X, y)
    assert cal.lower_bound_.shape == (2,)
    for j in range(2):
        col = PAVLLRCalibrator().fit(X[:, j], y).transform(X[:, j])
        np.testing.assert_allclose(
            [cal.lower_bound_[j], cal.upper_bound_[j]], invariance_bounds(y, col)
        )
    assert clone(cal).get_params()["bounds"] == "invariance"
    assert not hasattr(clone(cal), "calibrator_")


def test_inputs_not_modified():
    x, y, _ = make_scores(400, seed=4, prior=0.4, loc=(0.0, 2.0))
    w = np.ones_like(x)
    copies = x.copy(), y.copy(), w.copy()
    cal = BoundedCalibrator().fit(x, y, sample_weight=w)
    cal.transform(x)
    PAVLLRCalibrator(extremes="elub").fit(x, y, sample_weight=w).transform(x)
    for before, after in zip(copies, (x, y, w), strict=True):
        np.testing.assert_array_equal(before, after)


def test_bad_parameters():
    x, y, _ = make_scores(400, seed=5, prior=0.4, loc=(0.0, 2.0))
    with pytest.raises(ValueError, match="bounds"):
        BoundedCalibrator(bounds="grid").fit(x, y)
    with pytest.raises(ValueError, match="calibrator"):
        BoundedCalibrator(calibrator="platt").fit(x, y)
    with pytest.raises(ValueError, match="extremes"):
        PAVLLRCalibrator(extremes="elubs").fit(x, y)
