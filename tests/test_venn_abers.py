"""Tests of VennAbersCalibrator and its kernel (skcalib._kernel._venn_abers)."""

import pickle

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import isotonic_regression
from scipy.special import logit
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression

from skcalib import PAVCalibrator, VennAbersCalibrator
from skcalib._kernel._sort import sorted_labelled
from skcalib._kernel._venn_abers import (
    merge_p0p1,
    venn_abers_lookup,
    venn_abers_tables,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=60)


def _brute_force(s, y, w, x, test_weight=1.0):
    """``(p0, p1)`` by definition: two PAV fits per test score.

    scipy's PAV on the tie groups of the augmented set; each block's value is
    then re-summed exactly from its groups.
    """
    out = np.empty((len(x), 2))
    for i, xi in enumerate(x):
        for label in (0, 1):
            ss = np.append(s, xi)
            yy = np.append(y, label).astype(float)
            ww = np.append(w, test_weight)
            keep = ww > 0
            u, inv = np.unique(ss[keep], return_inverse=True)
            W = np.bincount(inv, weights=ww[keep])
            T = np.bincount(inv, weights=(ww * yy)[keep])
            starts = isotonic_regression(T / W, weights=W).blocks[:-1]
            value = np.add.reduceat(T, starts) / np.add.reduceat(W, starts)
            block = np.searchsorted(starts, np.searchsorted(u, xi), side="right") - 1
            out[i, label] = value[block]
    return out


def _random_problem(rng):
    n = int(rng.integers(1, 14))
    s = rng.integers(0, 6, n).astype(float)  # many ties
    y = rng.random(n) < rng.random()
    kind = rng.integers(3)
    if kind == 0:
        w = None
    elif kind == 1:
        w = rng.integers(0, 4, n).astype(float)  # zeros: dropped rows
    else:
        w = rng.random(n) * 3
    return s, y, w


# --------------------------------------------------------------------- errors
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
    ],
)
def test_bad_input_is_a_clear_value_error(X, y, w, match):
    with pytest.raises(ValueError, match=match):
        VennAbersCalibrator().fit(X, y, sample_weight=w)


def test_bad_input_at_predict_time():
    cal = VennAbersCalibrator().fit([0.0, 1.0, 2.0], [0, 1, 1])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        cal.predict_interval([0.5, np.nan])
    with pytest.raises(ValueError, match="Input X contains infinity"):
        cal.transform([np.inf])
    two = VennAbersCalibrator().fit(np.c_[[0.0, 1, 2], [1.0, 0, 2]], [0, 1, 1])
    with pytest.raises(ValueError, match="exactly one column"):
        two.predict_interval(np.zeros((2, 2)))
    assert two.transform(np.zeros((2, 2))).shape == (2, 2)


# ---------------------------------------------------------------- exactness
def test_equals_brute_force_on_random_small_problems():
    rng = np.random.default_rng(0)
    x = np.arange(-1.0, 6.5, 0.5)  # every calibration score, every gap, outside
    for _ in range(400):
        s, y, w = _random_problem(rng)
        ww = np.ones(s.shape[0]) if w is None else w
        if ww.sum() == 0:
            continue
        tw = 1.0 if rng.random() < 0.7 else float(rng.random() * 3)
        p0, p1 = venn_abers_lookup(venn_abers_tables(s, y, w, tw), x)
        expected = _brute_force(s, y, ww, x, tw)
        np.testing.assert_allclose(p0, expected[:, 0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(p1, expected[:, 1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_estimator_equals_sklearn_isotonic_twice_per_point(seed):
    # the definition with scikit-learn's own isotonic regression
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(size=n) + y, 1)
    w = rng.integers(1, 4, n).astype(float)
    x = np.concatenate([s[:10], rng.normal(size=10), [-9.0, 9.0]])
    cal = VennAbersCalibrator().fit(s, y, sample_weight=w)
    got = cal.predict_interval(x)
    for i, xi in enumerate(x):
        for label in (0, 1):
            iso = IsotonicRegression(out_of_bounds="clip").fit(
                np.append(s, xi), np.append(y, label), sample_weight=np.append(w, 1)
            )
            assert got[i, label] == pytest.approx(iso.predict([xi])[0], abs=1e-12)


def test_weights_are_repeated_rows():
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=40), 1)
    y = rng.random(40) < 0.5
    w = rng.integers(0, 4, 40)
    x = np.linspace(-3, 3, 41)
    weighted = VennAbersCalibrator().fit(s, y, sample_weight=w.astype(float))
    repeated = VennAbersCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(
        weighted.predict_interval(x), repeated.predict_interval(x), atol=1e-14
    )


def test_kernel_handles_infinite_scores():
    s = np.array([-np.inf, -1.0, 0.0, 0.0, 2.0, np.inf])
    y = np.array([0, 0, 1, 0, 1, 1], dtype=bool)
    x = np.array([-np.inf, -2.0, 0.0, 1.0, np.inf])
    p0, p1 = venn_abers_lookup(venn_abers_tables(s, y), x)
    expected = _brute_force(s, y, np.ones(6), x)
    np.testing.assert_allclose(np.c_[p0, p1], expected, atol=1e-12)


def test_worked_example():
    # 0 | 1 | {0, 1} | 1 and a test score 0.3 (tied with the pair)
    s = np.array([0.1, 0.2, 0.3, 0.3, 0.4])
    y = np.array([0, 1, 0, 1, 1])
    cal = VennAbersCalibrator().fit(s, y)
    # label 0: 0 | 1 | {0, 1, 0} | 1 -> (1 + 1) / 4 pooled = 0.5
    # label 1: 0 | 1 | {0, 1, 1} | 1 -> 0.2 and the tie pool at 3/4
    np.testing.assert_allclose(cal.predict_interval([0.3]), [[0.5, 0.75]])
    # below every score: (s, 1) first, pooled with the 0 after it -> 1/2
    np.testing.assert_allclose(cal.predict_interval([0.0]), [[0.0, 0.5]])


# Reference values from the `venn-abers` package (1.5.4, VennAbers on the
# probability columns [1 - p, p]); its conventions match ours on unweighted
# data: a test score tied with calibration scores joins their group.
REF_P_CAL = [0.05, 0.1, 0.2, 0.2, 0.3, 0.35, 0.4, 0.4, 0.5, 0.55, 0.6, 0.7, 0.7]
REF_P_CAL += [0.8, 0.9, 0.95]
REF_Y_CAL = [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1]
REF_P_TEST = [0.0, 0.05, 0.15, 0.2, 0.33, 0.4, 0.45, 0.7, 0.85, 0.95, 1.0]
REF_P0_P1 = [
    [0.0, 0.2857142857142857],
    [0.0, 0.2857142857142857],
    [0.0, 0.4],
    [0.2, 0.4],
    [0.2, 0.5],
    [0.3333333333333333, 0.6],
    [0.3333333333333333, 0.6666666666666666],
    [0.5, 0.75],
    [0.6, 1.0],
    [0.75, 1.0],
    [0.75, 1.0],
]
REF_P = [0.22222222222222224, 0.22222222222222224, 0.28571428571428575]
REF_P += [0.3333333333333333, 0.3846153846153846, 0.4736842105263158]
REF_P += [0.49999999999999994, 0.6, 0.7142857142857143, 0.8, 0.8]


def test_matches_recorded_venn_abers_package_values():
    cal = VennAbersCalibrator().fit(REF_P_CAL, REF_Y_CAL)
    np.testing.assert_allclose(cal.predict_interval(REF_P_TEST), REF_P0_P1, atol=1e-15)
    np.testing.assert_allclose(cal.transform(REF_P_TEST), REF_P, atol=1e-15)


def test_matches_venn_abers_package_when_installed():
    venn_abers = pytest.importorskip("venn_abers")
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.4).astype(int)
    p = np.round(1 / (1 + np.exp(-(rng.normal(size=300) + 1.2 * y))), 2)
    p_test = np.concatenate([rng.random(50), p[:20], [0.0, 1.0]])
    with np.errstate(all="ignore"):  # the package computes 0/0 slopes
        va = venn_abers.VennAbers().fit(np.c_[1 - p, p], y)
        p_prime, p0_p1 = va.predict_proba(np.c_[1 - p_test, p_test])
    cal = VennAbersCalibrator().fit(p, y)
    np.testing.assert_allclose(cal.predict_interval(p_test), p0_p1, atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(p_test), p_prime, atol=1e-12)


# ------------------------------------------------------------ the LLR views
def test_views_are_the_merged_probability():
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.3
    s = rng.normal(size=200) + 2 * y
    x = rng.normal(size=50)
    cal = VennAbersCalibrator().fit(s, y)
    p0, p1 = cal.predict_interval(x).T
    p = p1 / (1 - p0 + p1)
    np.testing.assert_allclose(cal.transform(x), p, rtol=1e-15)
    np.testing.assert_allclose(cal.predict_proba(x)[:, 1], p, rtol=1e-12)
    llr = cal.decision_function(x)
    np.testing.assert_allclose(llr, logit(p) - logit(y.mean()), rtol=1e-12)
    assert np.isfinite(llr).all()
    np.testing.assert_array_equal(cal.predict(x), (p >= 0.5).astype(int))
    shifted = VennAbersCalibrator(prior=0.5).fit(s, y)
    np.testing.assert_allclose(
        shifted.predict_proba(x)[:, 1],
        1 / (1 + np.exp(-llr)),
        rtol=1e-12,
    )


def test_interval_brackets_the_plain_isotonic_fit():
    rng = np.random.default_rng(6)
    y = rng.random(300) < 0.5
    s = np.round(rng.normal(size=300) + y, 1)
    x = np.linspace(-3, 4, 71)
    p0, p1 = VennAbersCalibrator().fit(s, y).predict_interval(x).T
    iso = PAVCalibrator(interpolation="step").fit(s, y).transform(x)
    on_score = np.isin(x, s)
    assert (p0[on_score] <= iso[on_score] + 1e-15).all()
    assert (iso[on_score] <= p1[on_score] + 1e-15).all()


def test_merge_rule_of_several_folds():
    p0 = np.array([[0.2, 0.3, 0.25]])
    p1 = np.array([[0.4, 0.5, 0.45]])
    p, lo, hi = merge_p0p1(p0, p1, axis=1)
    gm1 = np.prod(p1) ** (1 / 3)
    gm0 = np.prod(1 - p0) ** (1 / 3)
    assert p[0] == pytest.approx(gm1 / (gm0 + gm1), rel=1e-14)
    assert (lo[0], hi[0]) == pytest.approx((1 - gm0, gm1), rel=1e-14)
    # one fold: the inductive merge
    p_one, _, _ = merge_p0p1(p0[:, :1], p1[:, :1], axis=1)
    assert p_one[0] == pytest.approx(0.4 / (1 - 0.2 + 0.4), rel=1e-14)


def test_pickle_clone_set_output():
    pd = pytest.importorskip("pandas")
    s = np.array([0.1, 0.2, 0.3, 0.3, 0.4, 0.8])
    y = np.array([0, 1, 0, 1, 1, 1])
    cal = VennAbersCalibrator(prior=0.3).fit(s, y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.predict_interval(s), cal.predict_interval(s))
    assert clone(cal).get_params() == {"prior": 0.3}
    frame = pd.DataFrame({"score": s})
    out = VennAbersCalibrator().set_output(transform="pandas").fit(frame, y)
    assert list(out.transform(frame).columns) == ["score"]


def test_no_numpy_warnings_on_extremes():
    # the suite turns warnings into errors: one sample per class, huge and
    # tiny scores, weights spanning the float range
    cal = VennAbersCalibrator().fit([-1e308, 1e308], [0, 1])
    np.testing.assert_allclose(cal.predict_interval([0.0]), [[0.0, 1.0]])
    cal = VennAbersCalibrator().fit(
        [0.0, 5e-324, 1.0, 2.0],
        [1, 0, 1, 0],
        sample_weight=[1e300, 1e-300, 1e308, 1e308],
    )
    x = [-1.0, 0.0, 5e-324, 1.0, 2.0, 3.0]
    interval = cal.predict_interval(x)
    assert (interval[:, 0] <= interval[:, 1]).all()
    assert ((interval >= 0) & (interval <= 1)).all()
    assert not np.isnan(cal.decision_function(x)).any()


# ---------------------------------------------------------------- properties
scores_st = st.lists(st.integers(-4, 4), min_size=2, max_size=25)


@HYP
@given(
    scores_st,
    st.lists(st.booleans(), min_size=25, max_size=25),
    st.lists(st.integers(0, 3), min_size=25, max_size=25),
)
def test_properties(raw, labels, weights):
    s = np.array(raw, dtype=float)
    y = np.array(labels[: len(raw)])
    w = np.array(weights[: len(raw)], dtype=float)
    if not (w[y] > 0).any() or not (w[~y] > 0).any():
        return
    x = np.arange(-5.0, 5.5, 0.5)
    p0, p1 = VennAbersCalibrator().fit(s, y, sample_weight=w).predict_interval(x).T
    # p0 <= p1 always (isotonic regression is monotone in the labels)
    assert (p0 <= p1).all()
    assert (p0 >= 0).all() and (p1 <= 1).all() and (p1 > 0).all() and (p0 < 1).all()
    # monotone in the test score
    assert (np.diff(p0) >= 0).all() and (np.diff(p1) >= 0).all()
    # invariant to strictly increasing transforms of the scores
    f = np.exp
    q0, q1 = (
        VennAbersCalibrator().fit(f(s), y, sample_weight=w).predict_interval(f(x)).T
    )
    np.testing.assert_array_equal(q0, p0)
    np.testing.assert_array_equal(q1, p1)


# --------------------------------------------------------- cross Venn-Abers
def test_cross_venn_abers_merges_folds_by_geometric_means():
    from sklearn.linear_model import LogisticRegression

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, kind="features", n_features=3)
    clf = CalibratedClassifier(
        LogisticRegression(), VennAbersCalibrator(), cv=4, ensemble=True
    ).fit(X, y)
    assert len(clf.calibrators_) == 4
    pairs = np.stack(
        [
            cal.predict_interval(est.decision_function(X))
            for est, cal in zip(clf.estimators_, clf.calibrators_, strict=True)
        ]
    )
    gm1 = np.exp(np.log(pairs[:, :, 1]).mean(axis=0))
    gm0 = np.exp(np.log(1 - pairs[:, :, 0]).mean(axis=0))
    p = gm1 / (gm0 + gm1)
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], p, rtol=1e-12)
    np.testing.assert_allclose(
        clf.predict_interval(X), np.c_[1 - gm0, gm1], rtol=1e-12, atol=1e-15
    )
    interval = clf.predict_interval(X)
    low, high = interval.min(axis=1), interval.max(axis=1)
    assert ((low <= p + 1e-15) & (p <= high + 1e-15)).all()
    prior = np.mean([c.calibration_prior_ for c in clf.calibrators_])
    np.testing.assert_allclose(
        clf.decision_function(X), logit(p) - logit(prior), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_array_equal(clf.predict(X), (p >= 0.5).astype(int))


def test_inductive_venn_abers_in_calibrated_classifier():
    from sklearn.linear_model import LogisticRegression

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, seed=1, kind="features", n_features=3)
    clf = CalibratedClassifier(LogisticRegression(), VennAbersCalibrator()).fit(X, y)
    scores = clf.estimators_[0].decision_function(X)
    np.testing.assert_array_equal(
        clf.predict_interval(X), clf.calibrators_[0].predict_interval(scores)
    )
    assert not hasattr(CalibratedClassifier(LogisticRegression()), "predict_interval")


def test_cross_venn_abers_one_vs_rest():
    from sklearn.linear_model import LogisticRegression

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, seed=2, kind="features", n_features=3, n_classes=3)
    clf = CalibratedClassifier(
        LogisticRegression(), VennAbersCalibrator(), cv=3, ensemble=True
    ).fit(X, y)
    interval = clf.predict_interval(X)
    assert interval.shape == (300, 3, 2)
    merged = interval[..., 1] / (1 - interval[..., 0] + interval[..., 1])
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba, merged / merged.sum(1, keepdims=True), rtol=1e-12)
    # folds of 100 disagree here: the merged pair of class 2 is inverted for
    # a few rows, and the merge lies between the two whatever their order
    assert (interval[..., 0] > interval[..., 1]).any()
    low, high = interval.min(axis=-1), interval.max(axis=-1)
    assert ((low <= merged + 1e-15) & (merged <= high + 1e-15)).all()


def test_negligible_last_weight():
    # the top group's weight vanishes in the running total: still a table
    # entry for every position, no warning
    cal = VennAbersCalibrator().fit(
        [0.0, 1.0, 2.0], [0, 1, 1], sample_weight=[1e300, 1e300, 1e-300]
    )
    interval = cal.predict_interval([-1.0, 0.5, 1.5, 2.0, 3.0])
    assert np.isfinite(interval).all()
    assert (np.diff(interval, axis=0) >= 0).all()


def test_many_test_scores_are_looked_up_like_few():
    # more than 1024 test scores are looked up in sorted order
    rng = np.random.default_rng(8)
    s = np.round(rng.normal(size=500), 1)
    y = rng.random(500) < 0.4
    cal = VennAbersCalibrator().fit(s, y)
    x = np.concatenate([np.round(rng.normal(size=3000), 1), s, [-np.inf, np.inf]])
    x = x[np.isfinite(x)]
    rng.shuffle(x)
    few = np.concatenate([cal.predict_interval(part) for part in np.split(x, 10)])
    np.testing.assert_array_equal(cal.predict_interval(x), few)
    np.testing.assert_array_equal(cal.predict_interval(x[:500]), few[:500])


def _scores(kind, rng, size):
    if kind == "probabilities":
        return 1 / (1 + np.exp(-rng.normal(size=size)))
    if kind == "ties":
        return np.round(rng.normal(size=size), 1)
    if kind == "heavy_tails":  # crowded buckets: the sorted fallback
        return np.exp(rng.normal(size=size) * 8)
    if kind == "infinite":
        x = rng.normal(size=size)
        x[::97], x[1::89] = np.inf, -np.inf
        return x
    if kind == "signed_zeros":
        return rng.choice([-0.0, 0.0, 1.0, -1.0, 5e-324, -5e-324], size)
    return rng.random(size) * 1e-320  # denormal: huge buckets per unit


@pytest.mark.parametrize(
    "kind",
    ["probabilities", "ties", "heavy_tails", "infinite", "signed_zeros", "denormal"],
)
def test_many_test_scores_are_looked_up_as_by_searchsorted(kind):
    # many test scores are located with a bucket index, in chunks (or, for a
    # crowded table, in sorted order); by definition a score reads p1 at its
    # np.searchsorted position (side='left') and p0 at side='right'
    rng = np.random.default_rng(10)
    s = _scores(kind, rng, 3000)
    y = rng.random(3000) < 0.3
    x = np.concatenate([_scores(kind, rng, 150_000), s, [s.min(), s.max()]])
    tables = venn_abers_tables(s, y)
    p0, p1 = venn_abers_lookup(tables, x)
    c = tables.scores
    np.testing.assert_array_equal(p1, tables.p1[np.searchsorted(c, x)])
    np.testing.assert_array_equal(p0, tables.p0[np.searchsorted(c, x, side="right")])


@pytest.mark.parametrize(
    "kind",
    ["probabilities", "ties", "heavy_tails", "infinite", "signed_zeros", "denormal"],
)
def test_scores_sorted_with_their_labels(kind):
    # each score and its label are sorted as one int64 key: one key range for
    # scores of one sign or a narrow range, the two signs apart otherwise
    rng = np.random.default_rng(13)
    for s in (_scores(kind, rng, 40_000), -_scores(kind, rng, 40_000)):
        y = rng.random(s.shape[0]) < 0.3
        got, labels = sorted_labelled(s, y)
        expected = np.sort(s)
        np.testing.assert_array_equal(got, expected)
        # -0.0 before 0.0, non-targets before targets among equal scores
        order = np.lexsort((labels, ~np.signbit(got), got))
        np.testing.assert_array_equal(order, np.arange(s.shape[0]))
        # the labels (and signs) of each value, counted
        for x, sorted_x in ((y, labels), (np.signbit(s), np.signbit(got))):
            inverse = np.unique(s, return_inverse=True)[1]
            sorted_inverse = np.unique(got, return_inverse=True)[1]
            np.testing.assert_array_equal(
                np.bincount(inverse, weights=x),
                np.bincount(sorted_inverse, weights=sorted_x),
            )


@pytest.mark.parametrize("kind", ["probabilities", "ties", "heavy_tails", "infinite"])
def test_unweighted_tables_equal_the_weighted_path(kind):
    # unweighted, the targets are counted per tie group by locating the
    # minority class among the sorted scores; unit weights take one argsort
    rng = np.random.default_rng(11)
    s = _scores(kind, rng, 5000)
    for share in (0.2, 0.8):
        y = rng.random(5000) < share
        plain = venn_abers_tables(s, y)
        weighted = venn_abers_tables(s, y, np.ones(5000))
        for got, expected in zip(plain, weighted, strict=True):
            np.testing.assert_array_equal(got, expected)


def test_cross_venn_abers_one_vs_rest_moves_each_class_to_the_prior():
    # as one fold's predict_proba: each class's merged probability moved
    # from its folds' calibration priors to the calibrator's prior, then
    # normalized (the prior was ignored by the cross path before)
    from sklearn.linear_model import LogisticRegression

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, seed=2, kind="features", n_features=3, n_classes=3)
    proba = {}
    for prior in (None, 0.2):
        clf = CalibratedClassifier(
            LogisticRegression(), VennAbersCalibrator(prior=prior), cv=3, ensemble=True
        ).fit(X, y)
        interval = clf.predict_interval(X)
        merged = interval[..., 1] / (1 - interval[..., 0] + interval[..., 1])
        calibration_prior = np.array(
            [
                np.mean([c[k].calibration_prior_ for c in clf.calibrators_])
                for k in range(3)
            ]
        )
        target = calibration_prior if prior is None else np.full(3, prior)
        odds = merged / (1 - merged) * (target / (1 - target))
        odds /= calibration_prior / (1 - calibration_prior)
        moved = odds / (1 + odds)
        proba[prior] = clf.predict_proba(X)
        np.testing.assert_allclose(
            proba[prior], moved / moved.sum(1, keepdims=True), rtol=1e-12
        )
    assert np.abs(proba[0.2] - proba[None]).max() > 0.05


def test_cross_venn_abers_with_a_class_absent_from_a_calibration_fold():
    # the fold's constant stand-in for that class (rule of succession) is a
    # degenerate pair (p, p) in the geometric means; it used to raise
    # AttributeError (no predict_interval)
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, seed=2, kind="features", n_features=3, n_classes=3)
    y = np.where(y == 2, 1, y)
    y[[0, 1, 2, 200, 201, 202, 298, 299]] = 2  # none in the middle fold
    with pytest.warns(UserWarning, match="only 3 samples of class 2"):
        clf = CalibratedClassifier(
            LogisticRegression(), VennAbersCalibrator(), cv=KFold(3), ensemble=True
        ).fit(X, y)
    constant = clf.calibrators_[1][2]
    assert not isinstance(constant, VennAbersCalibrator)
    interval = clf.predict_interval(X)
    pairs = [
        np.stack(
            [
                c.predict_interval(s[:, k])
                if isinstance(c, VennAbersCalibrator)
                else np.repeat(c.predict_proba(s[:, k])[:, 1:], 2, axis=1)
                for k, c in enumerate(cals)
            ],
            axis=1,
        )
        for cals, s in (
            (cals, est.decision_function(X))
            for est, cals in zip(clf.estimators_, clf.calibrators_, strict=True)
        )
    ]
    pairs = np.stack(pairs)
    gm1 = np.exp(np.log(pairs[..., 1]).mean(axis=0))
    gm0 = np.exp(np.log1p(-pairs[..., 0]).mean(axis=0))
    np.testing.assert_allclose(interval, np.stack([1 - gm0, gm1], -1), atol=1e-15)
    merged = gm1 / (gm0 + gm1)
    np.testing.assert_allclose(
        clf.predict_proba(X), merged / merged.sum(1, keepdims=True), rtol=1e-12
    )


@pytest.mark.parametrize(
    "kind", ["probabilities", "ties", "infinite", "signed_zeros", "separable"]
)
def test_fitted_tables_are_the_kernel_tables(kind):
    # the calibrator keeps the tables cut to the rows where the pair changes
    # (whole when it changes nearly everywhere, as on separable classes) and
    # gives back the whole tables, bit for bit
    rng = np.random.default_rng(12)
    s = _scores("probabilities" if kind == "separable" else kind, rng, 4000)
    s[~np.isfinite(s)] = 0.0  # the estimator takes finite scores only
    y = rng.random(4000) < 0.3
    if kind == "separable":
        y = s > np.median(s)
    cal = VennAbersCalibrator().fit(s, y)
    tables = venn_abers_tables(s, y)
    np.testing.assert_array_equal(cal.scores_[0], tables.scores)
    for got, expected in ((cal.p0_[0], tables.p0), (cal.p1_[0], tables.p1)):
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
    x = np.concatenate([_scores("probabilities", rng, 3000), s])
    p0, p1 = cal.predict_interval(x).T
    np.testing.assert_array_equal(p1, tables.p1[np.searchsorted(tables.scores, x)])
    right = np.searchsorted(tables.scores, x, side="right")
    np.testing.assert_array_equal(p0, tables.p0[right])


# ------------------------------------------- weights at any scale (issue 33)
def _issue_problem():
    rng = np.random.default_rng(0)
    y = (rng.random(80) < 0.4).astype(int)
    s = rng.normal(size=80) + 1.2 * y
    return s, y


@pytest.mark.parametrize("scale", [0.1, 1e200, 1e-200, 3.0])
def test_uniform_weights_keep_the_pair_in_the_unit_interval(scale):
    # the chord over a run of targets was the difference of two cumulative
    # totals rounded apart: p1 = 1.0000000000000022 (0.1), 1 + 5e-15 and
    # NaN probabilities (1e200)
    s, y = _issue_problem()
    cal = VennAbersCalibrator().fit(s, y, sample_weight=np.full(80, scale))
    x = np.r_[np.sort(s), np.linspace(-5, 5, 101), 10.0]
    interval = cal.predict_interval(x)
    assert ((interval >= 0) & (interval <= 1)).all()
    assert (interval[:, 0] <= interval[:, 1]).all()
    proba = cal.predict_proba(x)
    assert ((proba >= 0) & (proba <= 1)).all()
    assert not np.isnan(cal.decision_function(x)).any()
    # a uniform weight c is the unweighted set with a test point of 1/c rows
    expected = _brute_force(s, y, np.full(80, scale), x[::7])
    np.testing.assert_allclose(interval[::7], expected, rtol=1e-12, atol=1e-300)


@HYP
@given(
    st.lists(st.integers(-4, 4), min_size=2, max_size=40),
    st.randoms(use_true_random=False),
    st.floats(-200, 200),
    st.booleans(),
)
def test_weights_at_any_scale(raw, rand, log_scale, uniform):
    s = np.asarray(raw, dtype=float) * 0.5
    n = s.shape[0]
    y = np.array([rand.random() < 0.5 for _ in range(n)])
    y[:2] = [False, True]
    scale = 10.0**log_scale
    w = np.ones(n) if uniform else np.array([rand.uniform(0.5, 2) for _ in range(n)])
    x = np.r_[np.unique(s), np.unique(s) + 0.25, -9.0]
    tables = venn_abers_tables(s, y, w * scale, test_weight=scale)
    p0, p1 = venn_abers_lookup(tables, x)
    assert ((p0 >= 0) & (p1 <= 1) & (p0 <= p1)).all()
    # the weights' units cancel: the same pairs as at scale 1 (and, for
    # uniform weights, as unweighted)
    r0, r1 = venn_abers_lookup(venn_abers_tables(s, y, None if uniform else w), x)
    np.testing.assert_allclose(p0, r0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(p1, r1, rtol=1e-12, atol=1e-15)
    # the calibrator's test point weighs one row whatever the weights
    cal = VennAbersCalibrator().fit(s, y, sample_weight=w * scale)
    interval = cal.predict_interval(x)
    assert ((interval >= 0) & (interval <= 1)).all()
    proba = cal.predict_proba(x)
    assert ((proba >= 0) & (proba <= 1)).all()
    assert not np.isnan(cal.decision_function(x)).any()


# ----------------------------------- cross Venn-Abers on small folds (issue 33)
def test_cross_venn_abers_warns_on_small_folds_and_the_bound_holds():
    # wine, 3 classes of 48-71: 5 folds hold 9-15 samples of a class, and a
    # fold's probability of a class with t samples is at most (t+1)/(t+2)
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from skcalib import CalibratedClassifier

    X, y = load_wine(return_X_y=True)
    clf = make_pipeline(StandardScaler(), LogisticRegression())
    folds = list(StratifiedKFold(5).split(X, y))
    with pytest.warns(UserWarning, match=r"only 9 samples of class 2.* 0\.909"):
        cvap = CalibratedClassifier(
            clf, VennAbersCalibrator(), cv=folds, ensemble=True
        ).fit(X, y)
    interval = cvap.predict_interval(X)
    merged = interval[..., 1] / (1 - interval[..., 0] + interval[..., 1])
    t = np.array([np.bincount(y[test], minlength=3) for _, test in folds])
    # the geometric means of the folds' pairs of at most (t/(t+1), 1)
    bound = 1 / (1 + np.exp(np.mean(-np.log1p(t), axis=0)))
    assert (merged <= bound + 1e-12).all()
    # and nearly reaches it: the classes are nearly separable (the
    # bound, not the data, caps the probabilities)
    assert (merged.max(axis=0) > bound - 0.002).all()
    # one calibrator on all out-of-fold scores: no warning
    CalibratedClassifier(clf, VennAbersCalibrator(), cv=folds).fit(X, y)


def test_cross_venn_abers_on_large_folds_does_not_warn():
    from sklearn.linear_model import LogisticRegression

    from skcalib import CalibratedClassifier

    X, y, _ = make_scores(300, seed=2, kind="features", n_features=3, n_classes=3)
    CalibratedClassifier(
        LogisticRegression(), VennAbersCalibrator(), cv=3, ensemble=True
    ).fit(X, y)
    with pytest.warns(UserWarning, match="Cross Venn-Abers"):
        CalibratedClassifier(
            LogisticRegression(), VennAbersCalibrator(), cv=10, ensemble=True
        ).fit(X, y)
