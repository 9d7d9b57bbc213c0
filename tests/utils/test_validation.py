"""Tests of the shared input validation (skcalib.utils._validation)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skcalib
from skcalib import metrics
from skcalib.utils._validation import check_weights

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=30)


def _message(call) -> str:
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    "call, shown",
    [
        (lambda: skcalib.PAVLLRCalibrator().fit(np.arange(4.0), np.ones(4)), "(1.0)"),
        (lambda: skcalib.PlattCalibrator().fit(np.arange(4.0), np.full(4, 2)), "(2)"),
        (
            lambda: skcalib.MulticlassAffineCalibrator().fit(
                np.zeros((3, 2)), np.ones(3)
            ),
            "(1.0)",
        ),
        (
            lambda: metrics.min_dcf(
                [0, 1, 0, 1], np.arange(4.0), p_target=0.5, pos_label=np.int64(2)
            ),
            "`pos_label`=2 ",
        ),
        (
            lambda: metrics.empirical_bayes_risk(
                [0, 1],
                [0, 1],
                np.ones((2, 2)) - np.eye(2),
                np.array([0.3, 0.3]),
            ),
            "got 0.6",
        ),
        (
            lambda: metrics.multiclass_cllr(
                np.array([0, 1]), np.array([[0.5, 0.4], [0.5, 0.5]])
            ),
            "summing to 0.9",
        ),
        (
            lambda: (
                skcalib.PAVCalibrator(out_of_bounds="raise")
                .fit(np.arange(4.0), [0, 1, 0, 1])
                .predict_proba([9.0])
            ),
            "[0.0, 3.0]",
        ),
    ],
)
def test_messages_show_plain_python_values_not_numpy_reprs(call, shown):
    # repr(np.float64(1.0)) is "np.float64(1.0)" since NumPy 2.
    message = _message(call)
    assert "np." not in message
    assert shown in message


def test_weights_rescaled_exactly_only_when_their_total_could_overflow():
    w = np.array([1.0, 3.0, 0.5])
    assert check_weights(w, 3) is not None
    out, e = check_weights(w, 3, return_exponent=True)
    assert e == 0 and np.array_equal(out, w)
    big = np.array([1e308, 1.7e308, 0.0, 3e307])
    out, e = check_weights(big, 4, return_exponent=True)
    assert e > 0 and np.isfinite(out.sum()) and out.sum() < 2.0**970
    np.testing.assert_array_equal(np.ldexp(out, e), big)  # a power of two: exact
    assert check_weights(None, 3, return_exponent=True) == (None, 0)


def _metric_values(y, s, p, w):
    """Every binary metric of skcalib on one data set (a flat vector)."""
    ys = np.where(y == 1, "tar", "non")
    return np.concatenate(
        [
            [
                metrics.cllr(y, s, sample_weight=w),
                metrics.cllr(y, s, p_target=0.2, sample_weight=w),
                metrics.min_cllr(y, s, sample_weight=w),
                metrics.brier_loss(y, s, sample_weight=w),
                metrics.beta_rule_loss(y, s, alpha=2, beta=0.5, sample_weight=w),
                metrics.actual_dcf(y, s, p_target=0.1, c_fa=2, sample_weight=w),
                metrics.min_dcf(y, s, p_target=0.1, sample_weight=w),
                metrics.eer(ys, s, pos_label="tar", sample_weight=w),
                metrics.expected_calibration_error(y, p, n_bins=5, sample_weight=w),
                metrics.expected_calibration_error(
                    y, p, n_bins=4, strategy="quantile", sample_weight=w
                ),
                metrics.empirical_bayes_risk(
                    y,
                    (s > 0).astype(int),
                    [[0, 1], [2, 0]],
                    [0.3, 0.7],
                    normalize=True,
                    sample_weight=w,
                ),
            ],
            *metrics.bayes_error_curve(y, s, [-800.0, -2.0, 0.0, 3.0], sample_weight=w),
            *metrics.rocch(y, s, sample_weight=w),
        ]
    )


@HYP
@given(
    st.integers(0, 2**32 - 1),
    st.one_of(st.integers(-300, 300).map(lambda k: 10.0**k), st.just(1.7e308)),
)
def test_every_metric_invariant_to_scaling_all_weights(seed, scale):
    # Weights near the float maximum overflowed their sums (NaN, or "no
    # target samples"); any common factor must leave every metric unchanged.
    rng = np.random.default_rng(seed)
    n = 40
    y = (rng.random(n) < 0.4).astype(int)
    y[:2] = [0, 1]
    s = np.round(rng.normal(size=n) + y, 1)
    p = 1 / (1 + np.exp(-s))
    w = rng.uniform(0.05, 1.0, n)
    ref = _metric_values(y, s, p, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _metric_values(y, s, p, w * scale)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


def test_equal_huge_weights_equal_unit_weights():
    rng = np.random.default_rng(1)
    y = (rng.random(30) < 0.5).astype(int)
    s = rng.normal(size=30) + y
    p = 1 / (1 + np.exp(-s))
    np.testing.assert_allclose(
        _metric_values(y, s, p, np.full(30, 1e308)),
        _metric_values(y, s, p, np.ones(30)),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize(
    "w, missing",
    [([0.0, 1.0, 1.0, 0.0], "target"), ([1.0, 0.0, 0.0, 2.0], "non-target")],
)
def test_check_metric_inputs_needs_each_class_with_positive_weight(w, missing):
    from skcalib.utils._validation import check_metric_inputs

    y, s = [1, 0, 0, 1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match=f"no {missing} samples"):
        check_metric_inputs(y, s, w)
    # a zero weight elsewhere is fine, and the weights are not modified
    w = np.array([1.0, 0.0, 1.0, 1.0])
    before = w.copy()
    _, _, got = check_metric_inputs(y, s, w)
    np.testing.assert_array_equal(got, before)
    np.testing.assert_array_equal(w, before)


def test_many_classes_warn_only_where_scikit_learn_would():
    """The target check runs on the distinct labels; scikit-learn's warning
    that more than half the samples have distinct labels is tested on ``y``
    itself: none for 30 classes of 3,000 samples, as for scikit-learn's
    check of the whole ``y``, and the same warning for 30 of 40."""
    from sklearn.utils.multiclass import check_classification_targets

    from skcalib.utils._validation import check_class_y

    y = np.arange(3000) % 30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_classification_targets(y)
        _, classes, _ = check_class_y(y, owner="X")
    assert classes.shape == (30,)
    few = np.arange(40) % 30
    with pytest.warns(UserWarning, match="unique classes is greater than 50%"):
        check_classification_targets(few)
    with pytest.warns(UserWarning, match="unique classes is greater than 50%"):
        check_class_y(few, owner="X")
