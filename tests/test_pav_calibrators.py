"""Tests of PAVCalibrator and PAVLLRCalibrator (and the shared base class)."""

import pickle

import numpy as np
import pytest
from _calibrators import calibrator_classes
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score
from sklearn.utils._param_validation import InvalidParameterError

from skcalib import PAVCalibrator, PAVLLRCalibrator
from skcalib._kernel._pav import block_llr, pav_blocks

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=50)
PAV = calibrator_classes("pav")


def _cllr(llr, y):
    """Cllr in bits, independent of skcalib.metrics."""
    tar = np.logaddexp(0, -llr[y == 1]).mean()
    non = np.logaddexp(0, llr[y == 0]).mean()
    return (tar + non) / (2 * np.log(2))


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize("Cal", PAV)
@pytest.mark.parametrize(
    "X, y, w, match",
    [
        ([0.0, np.nan, 1.0], [0, 1, 1], None, "Input X contains NaN"),
        ([0.0, np.inf, 1.0], [0, 1, 1], None, "Input X contains infinity"),
        ([0.0, 1.0, 2.0], [1, 1, 1], None, "got 1 class"),
        ([0.0, 1.0, 2.0], [0, 1, 2], None, "got 3 classes"),
        ([0.0, 1.0, 2.0], [0, 1], None, "inconsistent numbers of samples"),
        ([0.0, 1.0, 2.0], [0, 1, 1], [1.0, -1.0, 1.0], "Negative values"),
        ([0.0, 1.0, 2.0], [0, 1, 1], [0.0, 0.0, 0.0], "at least one non-zero"),
        ([0.0, 1.0, 2.0], [0, 1, 1], [1.0, 0.0, 0.0], "only one class"),
        ([0.0, 1.0, 2.0], [0, 1, 1], [1.0, 1.0], "sample_weight"),
        ([0.0, 1.0, 2.0], [0.5, 1.5, 2.5], None, "Unknown label type"),
    ],
)
def test_bad_input_is_a_clear_value_error(Cal, X, y, w, match):
    with pytest.raises(ValueError, match=match):
        Cal().fit(X, y, sample_weight=w)


@pytest.mark.parametrize("Cal", PAV)
def test_empty_input(Cal):
    with pytest.raises(ValueError, match="0 sample"):
        Cal().fit(np.empty(0), np.empty(0))


@pytest.mark.parametrize("Cal", PAV)
@pytest.mark.parametrize(
    "params",
    [
        {"interpolation": "cubic"},
        {"out_of_bounds": "extrapolate"},
        {"extremes": "laplace"},
        {"max_abs_llr": -1.0},
        {"max_abs_llr": 0.0},
        {"strict": "yes"},
        {"prior": 1.5},
        {"prior": 0.0},
    ],
)
def test_bad_parameters(Cal, params):
    s, y, _ = make_scores(500, decimals=1)
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        Cal(**params).fit(s, y)


@pytest.mark.parametrize("Cal", PAV)
def test_positional_or_unknown_arguments_name_the_public_class(Cal):
    """PAVCalibrator("linear") names PAVCalibrator and the parameter meant,
    not the private base class."""
    name = Cal.__name__
    with pytest.raises(TypeError) as info:
        Cal("linear")
    assert str(info.value) == (
        f"{name} takes keyword arguments only; got 'linear' by position: write "
        f"{name}(interpolation='linear') if that is what you meant."
    )
    with pytest.raises(TypeError, match=f"^{name}.__init__.. got an unexpected"):
        Cal(interp="linear")
    cal = pickle.loads(pickle.dumps(Cal(interpolation="step")))  # unaffected
    assert cal.get_params()["interpolation"] == "step"


@pytest.mark.parametrize("Cal", PAV)
def test_out_of_bounds_options(Cal):
    s, y, _ = make_scores(500, decimals=1)
    cal = Cal(out_of_bounds="raise").fit(s, y)
    cal.transform([s.min(), s.max()])
    with pytest.raises(ValueError, match="outside the training range"):
        cal.transform([s.max() + 1])
    out = Cal(out_of_bounds="nan").fit(s, y).transform([s.min() - 1, 0.0, s.max() + 1])
    assert np.isnan(out[0]) and np.isfinite(out[1]) and np.isnan(out[2])
    clipped = Cal().fit(s, y)
    assert clipped.transform([s.max() + 100])[0] == clipped.transform([s.max()])[0]


@pytest.mark.parametrize("Cal", PAV)
def test_llr_views_need_one_column(Cal):
    s, y, _ = make_scores(500, decimals=1)
    X = np.column_stack([s, -s, 2 * s])
    cal = Cal().fit(X, y)
    assert cal.transform(X).shape == X.shape
    for method in ("decision_function", "predict_proba", "predict"):
        assert not hasattr(cal, method)
        with pytest.raises(ValueError, match="exactly one column"):
            getattr(cal, method)(X)
    with pytest.raises(ValueError, match="Reshape your data"):
        cal.transform(s)
    with pytest.raises(ValueError, match="3 features"):
        cal.transform(X[:, :2])


# ------------------------------------------------------------- correctness
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_pav_calibrator_equals_isotonic_regression(seed, weights):
    s, y, w = make_scores(300, seed=seed, decimals=1, weights=weights)
    ours = PAVCalibrator().fit(s, y, sample_weight=w)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w)
    grid = np.r_[np.linspace(s.min() - 1, s.max() + 1, 1000), s]
    np.testing.assert_allclose(ours.transform(grid), ref.predict(grid), atol=1e-12)


def test_table1_calibrator():
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.27, 0.2])
    s = np.r_[s, 0.18, 0.1, 0.02]
    y = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0]
    p = PAVCalibrator().fit(s, y).transform(s)
    ref = [1, 1, 3 / 4, 3 / 4, 3 / 4, 3 / 4, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2]
    np.testing.assert_allclose(p, ref + [1 / 3, 1 / 3, 1 / 3, 0], rtol=1e-15)


def test_step_interpolation():
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0, 1, 0, 1])
    cal = PAVCalibrator(interpolation="step").fit(s, y)
    # blocks: {0}: 0, {1, 2}: 1/2, {3}: 1
    out = cal.transform([-1.0, 0.0, 0.5, 1.0, 1.5, 2.5, 2.99, 3.0, 9.0])
    np.testing.assert_array_equal(out, [0, 0, 0, 0.5, 0.5, 0.5, 0.5, 1, 1])
    lin = PAVCalibrator().fit(s, y).transform([0.5, 2.5])
    np.testing.assert_allclose(lin, [0.25, 0.75])


@pytest.mark.parametrize("Cal", PAV)
def test_integer_weights_equal_repeated_rows(Cal):
    s, y, w = make_scores(200, seed=3, decimals=1, weights=True)
    reps = w.astype(int)
    a = Cal().fit(s, y, sample_weight=w)
    b = Cal().fit(np.repeat(s, reps), np.repeat(y, reps))
    grid = np.linspace(s.min() - 1, s.max() + 1, 500)
    np.testing.assert_allclose(a.transform(grid), b.transform(grid), rtol=1e-12)


def test_pav_llr_raw_values_and_prior_independence():
    s, y, _ = make_scores(500, seed=4, decimals=1)
    cal = PAVLLRCalibrator(extremes="raw").fit(s, y)
    blocks = pav_blocks(s.astype(float), y.astype(bool))
    expected = block_llr(blocks, y.sum(), (1 - y).sum())
    np.testing.assert_allclose(cal.transform(blocks.lo), expected)
    for factor in (0.1, 7.0):
        w = np.where(y == 1, factor, 1.0)
        other = PAVLLRCalibrator(extremes="raw").fit(s, y, sample_weight=w)
        np.testing.assert_allclose(other.transform(s), cal.transform(s), atol=1e-12)


def test_extremes_policies():
    rng = np.random.default_rng(8)
    y = rng.random(400) < 0.5
    s = rng.normal(size=400) + 3 * y
    raw = PAVLLRCalibrator(extremes="raw").fit(s, y).transform(s)
    assert np.isneginf(raw.min()) and np.isposinf(raw.max())
    bound = PAVLLRCalibrator(extremes="bound", max_abs_llr=5.0).fit(s, y)
    np.testing.assert_array_equal(bound.transform(s), np.clip(raw, -5, 5))
    succ = PAVLLRCalibrator().fit(s, y)
    out = succ.transform(s)
    assert np.isfinite(out).all()
    # rule of succession by hand: four virtual trials at the ends
    s_aug = np.r_[-1e6, -1e6, s, 1e6, 1e6]
    y_aug = np.r_[True, False, y, True, False]
    blocks = pav_blocks(s_aug, y_aug)
    by_hand = block_llr(blocks, y.sum(), (~y).sum())
    idx = np.searchsorted(blocks.lo, s, side="right") - 1
    step = PAVLLRCalibrator(interpolation="step").fit(s, y).transform(s)
    np.testing.assert_allclose(step, by_hand[idx], rtol=1e-12)
    # PAVCalibrator under succession: sigmoid(llr + logit(pi_cal))
    p = PAVCalibrator(extremes="succession").fit(s, y).transform(s)
    np.testing.assert_allclose(p, expit(out + logit(y.mean())), rtol=1e-12)
    assert 0 < p.min() and p.max() < 1


def test_interpolation_with_infinite_llr_knots():
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 1, 1])
    cal = PAVLLRCalibrator(extremes="raw").fit(s, y)
    out = cal.transform([0.5, 1.0, 1.4, 1.5, 1.6, 2.0, 2.5])
    assert out.tolist() == [-np.inf, -np.inf, -np.inf, 0.0, np.inf, np.inf, np.inf]


def test_predict_proba_and_predict_at_prior():
    s, y, _ = make_scores(500, seed=5, decimals=1)
    cal = PAVLLRCalibrator(prior=0.2).fit(s, y)
    llr = cal.decision_function(s)
    proba = cal.predict_proba(s)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[:, 1], expit(llr + logit(0.2)))
    np.testing.assert_array_equal(cal.predict(s), (llr >= -logit(0.2)).astype(int))
    # PAVCalibrator: prior=None gives back its own probabilities
    pav = PAVCalibrator().fit(s, y)
    np.testing.assert_allclose(pav.predict_proba(s)[:, 1], pav.transform(s))
    assert pav.prior_ == pytest.approx(y.mean())


def test_predict_accepts_on_exact_tie():
    # one block at LLR exactly 0 (target ratio equals prior odds)
    s = np.array([0.0, 0.0, 1.0, 1.0])
    y = np.array([0, 1, 0, 1])
    cal = PAVLLRCalibrator(extremes="raw", prior=0.5).fit(s, y)
    assert cal.decision_function([0.5])[0] == 0.0
    assert cal.predict([0.5])[0] == 1


@pytest.mark.parametrize(
    "labels", [("no", "yes"), (False, True), (-1, 1), (3, 7), ("a", "b")]
)
def test_any_two_labels(labels):
    s, y, _ = make_scores(500, seed=6, decimals=1)
    yy = np.where(y == 1, labels[1], labels[0])
    cal = PAVLLRCalibrator().fit(s, yy)
    assert list(cal.classes_) == sorted(labels)
    assert set(cal.predict(s)) <= set(labels)
    ref = PAVLLRCalibrator().fit(s, y).transform(s)
    np.testing.assert_allclose(cal.transform(s), ref)


@pytest.mark.parametrize("Cal", PAV)
def test_columns_are_calibrated_independently(Cal):
    s, y, _ = make_scores(500, seed=7, decimals=1)
    rng = np.random.default_rng(0)
    other = s + rng.normal(size=s.shape)
    X = np.column_stack([s, other])
    both = Cal().fit(X, y).transform(X)
    np.testing.assert_allclose(both[:, 0], Cal().fit(s, y).transform(s))
    np.testing.assert_allclose(both[:, 1], Cal().fit(other, y).transform(other))


@pytest.mark.parametrize("Cal", PAV)
def test_pickle_clone_and_pandas_output(Cal):
    import pandas as pd

    s, y, _ = make_scores(500, seed=8, decimals=1)
    cal = Cal().fit(s, y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.transform(s), cal.transform(s))
    assert clone(cal).get_params() == cal.get_params()
    df = pd.DataFrame({"svm": s, "lr": -s})
    out = Cal().set_output(transform="pandas").fit(df, y).transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["svm", "lr"]


def test_extreme_but_valid_scores_without_warnings():
    s = np.array([-1e300, -1e300, 0.0, 1e300, 1e300, 1e300])
    y = np.array([0, 1, 0, 1, 1, 0])
    with np.errstate(all="raise"):
        for Cal in PAV:
            cal = Cal(strict=True).fit(s, y)
            out = cal.transform([-1.7e308, 0.0, 1.7e308])
            assert np.all(np.isfinite(out))
    # all ties: one block, the class proportion
    p = PAVCalibrator().fit(np.zeros(4), [0, 1, 1, 1]).transform([-5.0, 0.0, 5.0])
    np.testing.assert_allclose(p, 0.75)


# -------------------------------------------------------------------- strict
@pytest.mark.parametrize("interpolation", ["linear", "step"])
@pytest.mark.parametrize("Cal", PAV)
def test_strict_is_strictly_increasing_and_keeps_ranking(Cal, interpolation):
    s, y, _ = make_scores(2000, seed=9, decimals=3)
    flat = Cal(interpolation=interpolation).fit(s, y)
    strict = Cal(strict=True, interpolation=interpolation).fit(s, y)
    grid = np.linspace(s.min() - 3, s.max() + 3, 20001)
    out = strict.transform(grid)
    if Cal is PAVCalibrator:
        # the lowest/highest blocks may be exactly 0/1, which cannot move
        inner = (out > 0) & (out < 1)
        assert np.all(np.diff(out[inner]) > 0)
    else:
        assert np.all(np.diff(out) > 0)
    train = strict.transform(s)
    # no ties on distinct scores: ranking metrics equal those of raw scores
    assert np.unique(train).shape[0] == np.unique(s).shape[0]
    assert roc_auc_score(y, train) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    # the flat map changes it (on training data, up to the ROCCH AUC)
    assert roc_auc_score(y, flat.transform(s)) != pytest.approx(roc_auc_score(y, s))
    # calibration stays within the stated tolerance of the optimum
    if Cal is PAVLLRCalibrator:
        c_flat, c_strict = _cllr(flat.transform(s), y), _cllr(train, y)
    else:
        c_flat = np.mean((flat.transform(s) - y) ** 2)
        c_strict = np.mean((train - y) ** 2)
    assert abs(c_strict - c_flat) <= 1e-5 * c_flat
    np.testing.assert_allclose(train, flat.transform(s), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- properties
data_strategy = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-4, 4), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
    )
)


@HYP
@given(data_strategy, st.sampled_from(PAV), st.booleans())
def test_ties_identical_and_output_non_decreasing(data, Cal, strict):
    s, y = (np.asarray(a) for a in data)
    s = s.astype(float) / 3
    y = y.astype(int)
    y[0], y[-1] = 1, 0
    cal = Cal(strict=strict).fit(s, y)
    out = cal.transform(s)
    for v in np.unique(s):
        assert np.unique(out[s == v]).shape[0] == 1
    grid = np.linspace(-3, 3, 301)
    g = cal.transform(grid)
    assert np.all(np.diff(g) >= 0)


_PAV_SETTINGS = [
    (Cal, {"extremes": e, "strict": strict, "interpolation": i})
    for Cal in PAV
    for e in ("raw", "succession", "bound")
    for strict in (False, True)
    for i in ("linear", "step")
]


@HYP
@given(
    st.integers(0, 2**32 - 1),
    st.integers(-300, 300),
    st.sampled_from(_PAV_SETTINGS),
    st.booleans(),
)
def test_outputs_invariant_to_units_of_scores_and_weights(seed, k, setting, huge):
    # Scores in other units (times 10**k) give the same calibrated outputs at
    # the same points; so do all weights times 10**k (all weights 1e308
    # overflowed the class totals), except under the rule of succession,
    # whose virtual trials weigh 1 in the units of the weights.
    Cal, params = setting
    s, y, w = make_scores(60, seed=seed % 1000, decimals=1, weights=True)
    # off the scores' 0.1 lattice (by at least 2e-4): at a score itself a
    # step's value depends on how the score and the point round in the units
    grid = np.linspace(s.min() - 1, s.max() + 1, 97) + 0.0123
    ref = Cal(**params).fit(s, y, sample_weight=w).transform(grid)
    c = 10.0**k
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        got = Cal(**params).fit(s * c, y, sample_weight=w).transform(grid * c)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
        if params["extremes"] != "succession":
            wc = w * (1e308 / w.max() if huge else c)
            got = Cal(**params).fit(s, y, sample_weight=wc).transform(grid)
            np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("Cal", PAV)
def test_succession_with_huge_weights_counts_one_virtual_trial(Cal):
    # Weights 1e308 are rescaled internally; the virtual trials keep weight 1
    # in the caller's units, i.e. negligible: the raw PAV fit within 1e-300.
    s, y, _ = make_scores(80, seed=3, decimals=1)
    w = np.full(s.shape[0], 1e308)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        cal = Cal(extremes="succession").fit(s, y, sample_weight=w)
    out = cal.transform(s)
    raw = Cal(extremes="raw").fit(s, y).transform(s)
    finite = np.isfinite(raw) & (raw != 0) & (raw != 1)
    np.testing.assert_allclose(out[finite], raw[finite], rtol=1e-12)
    assert np.all(np.isfinite(out))
    if Cal is PAVLLRCalibrator:  # about log(1e308 * count): finite, large
        assert cal.transform([s.max()])[0] > 600


@pytest.mark.parametrize(
    "Cal",
    [
        "PAVCalibrator",
        "PAVLLRCalibrator",
        "PlattCalibrator",
        "ProperScoringAffineCalibrator",
    ],
)
def test_base_fit_with_weights_near_float_max(Cal):
    # The class totals overflowed: "only one class with positive weight".
    import skcalib

    s, y, _ = make_scores(50, seed=4, decimals=2)
    w = np.full(s.shape[0], 1.5e308)
    cal = getattr(skcalib, Cal)().fit(s, y, sample_weight=w)
    assert cal.calibration_prior_ == pytest.approx(y.mean(), rel=1e-15)
    assert np.all(np.isfinite(cal.predict_proba(s)))


# ------------------------------------------------------- numerics at the edges
@pytest.mark.parametrize("Cal", PAV)
def test_interpolation_between_subnormal_knots_is_finite(Cal):
    # np.interp's slope (v1 - v0) / (x1 - x0) overflowed for knots closer than
    # ~5e-309 (scikit-learn's isotonic regression has the same regression
    # test, from its issue 10903).
    X, y = [0.0, 4.1e-320, 4.4e-314, 1.0], [0, 0, 1, 1]
    new = np.array([2.1e-319, 5.4e-316])
    cal = Cal().fit(X, y)
    out = cal.transform(new)
    assert np.all(np.isfinite(out))
    assert np.all(np.isfinite(cal.predict_proba(new)))
    # linear between the knots (4.1e-320, low) and (4.4e-314, high)
    lo, hi = cal.transform([4.1e-320, 4.4e-314])
    t = (new - 4.1e-320) / (4.4e-314 - 4.1e-320)
    np.testing.assert_allclose(out, lo + t * (hi - lo), rtol=1e-12)


@pytest.mark.parametrize("interpolation", ["linear", "step"])
@pytest.mark.parametrize("out_of_bounds", ["clip", "nan"])
@pytest.mark.parametrize("Cal", PAV)
def test_strict_on_scores_spanning_the_float_range(Cal, out_of_bounds, interpolation):
    # Widths of the training range and of gaps between blocks overflowed.
    s = np.array([-1.7e308, -1e308, -1.0, 0.0, 1e308, 1.7e308, 1.7e308])
    y = np.array([0, 1, 0, 0, 1, 0, 1])
    grid = np.array([-1.7976931348623157e308, -1.7e308, -1.5e308, -1e308, -1.0])
    grid = np.concatenate([grid, [-0.5, 0.0, 1e300], -grid[:3][::-1]])
    cal = Cal(strict=True, out_of_bounds=out_of_bounds, interpolation=interpolation)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = cal.fit(s, y).transform(grid)
    inside = (grid >= s.min()) & (grid <= s.max())
    assert np.all(np.isfinite(out[inside]))
    assert np.all(np.diff(out[inside]) >= 0)
    # strictly increasing through the knots (where not exactly 0 or 1: the
    # lowest block holds only a non-target); between knots 1e308 apart the
    # tilt of 1e-6 is below the resolution of the values
    knots = cal.transform(cal.X_thresholds_[0])
    assert np.all(np.diff(knots[(knots > 0) & (knots < 1)]) > 0)


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(
    data_strategy,
    st.sampled_from(PAV),
    st.sampled_from(["raw", "succession", "bound"]),
    st.sampled_from([0.01, 0.5, 1.0, 3.0, 20.0]),
    st.sampled_from(["linear", "step"]),
    st.sampled_from(["clip", "nan"]),
)
def test_strict_is_strictly_increasing_for_every_parameter_combination(
    data, Cal, extremes, max_abs_llr, interpolation, out_of_bounds
):
    # extremes='bound' clipped several blocks to one value: flat runs.
    s, noise = (np.asarray(a) for a in data)
    y = (s + np.where(noise, 2, -2) > 0).astype(int)  # informative scores
    s = s.astype(float) / 3
    y[0], y[-1] = 1, 0
    cal = Cal(
        strict=True,
        extremes=extremes,
        max_abs_llr=max_abs_llr,
        interpolation=interpolation,
        out_of_bounds=out_of_bounds,
    ).fit(s, y)
    grid = np.linspace(-3, 3, 601)
    g = cal.transform(grid)
    if out_of_bounds == "nan":
        grid, g = grid[~np.isnan(g)], g[~np.isnan(g)]
    # only the exact optimum's probabilities 0, 1 and LLRs +/-inf cannot move
    movable = np.isfinite(g)
    if Cal is PAVCalibrator:
        movable &= (g != 0) & (g != 1)
    if extremes != "raw":
        assert movable.all()
    assert np.all(g[1:] >= g[:-1])
    if Cal is PAVCalibrator:
        # within 1e-6 of 1 the tilt (1e-6 of the gap to 1) spans too few
        # representable probabilities for 600 distinct values
        movable &= g < 1 - 1e-6
    assert np.all(np.diff(g[movable]) > 0)


@pytest.mark.parametrize("interpolation", ["linear", "step"])
@pytest.mark.parametrize("Cal", PAV)
def test_strict_with_a_tight_bound_has_no_flat_runs(Cal, interpolation):
    # Blocks clipped to the same bound were left tied after the tilt.
    s, y, _ = make_scores(400, seed=5, decimals=1)
    cal = Cal(extremes="bound", max_abs_llr=1.0, strict=True)
    cal.set_params(interpolation=interpolation).fit(s, y)
    out = cal.transform(np.linspace(s.min() - 1, s.max() + 1, 5001))
    assert np.all(np.diff(out) > 0)
    assert np.unique(cal.transform(s)).shape[0] == np.unique(s).shape[0]
