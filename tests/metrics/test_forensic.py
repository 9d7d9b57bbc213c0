"""Tests of the forensic validation metrics (skcalib.metrics._forensic).

Each metric is checked three ways: against the values published in lir's
own test suite (lir 1.3.1: tests/test_elub.py, tests/test_invariance_bounds.py
and tests/test_metrics.py of github.com/NetherlandsForensicInstitute/lir,
tag v1.3.1), hard-coded here so they run without lir; against lir itself
where it is installed (``pytest.importorskip``), on lir's test cases, the
cartridge-case data and random data; and against a brute-force evaluation of
its definition (a dense scan or quadrature) on small data.
"""

import math
import warnings

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from skcalib.datasets import load_cartridge_case
from skcalib.metrics import (
    ScoredTrials,
    cllr,
    cllr_cal,
    devpav,
    elub_bounds,
    expected_likelihood_ratios,
    invariance_bounds,
    min_cllr,
    misleading_evidence_rates,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=60)
LN10 = math.log(10.0)
FUNCS = [
    cllr_cal,
    devpav,
    elub_bounds,
    invariance_bounds,
    misleading_evidence_rates,
    expected_likelihood_ratios,
]


def _llr(lrs):
    """Natural-log LLRs of LRs (0 and inf allowed)."""
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(lrs, dtype=float))


#: LLRs ``N(-1, 4)`` of non-targets and ``N(1, 4)`` of targets
LLRS = {"prior": 0.4, "loc": (-1.0, 1.0), "scale": 2.0}


# lir 1.3.1, tests/test_elub.py: (LRs, labels, published LR bounds)
SYSTEM01 = [0.01, 0.1, 1, 10, 100]
LIR_ELUB = {
    "extreme_smallset": ([np.inf, 0], [1, 0], (1, 1)),
    "extreme": ([np.inf] * 3 + [0] * 3, [1, 1, 1, 0, 0, 0], (0.3388442, 2.9512092)),
    "system01_bad": (SYSTEM01, [1, 1, 1, 0, 0], (1, 1)),
    "system01_good1": (SYSTEM01, [0, 0, 1, 1, 1], (0.3801894, 1.4791084)),
    "system01_good2": (SYSTEM01, [0, 0, 0, 1, 1], (0.6760830, 2.6302680)),
    "neutral_smallset": ([1, 1], [1, 0], (1, 1)),
    "bias1": ([10] * 10, [1] * 9 + [0], (1, 1)),
    "bias2": ([10] * 10 + [1], [1] * 10 + [0], (1, 1.7782794)),
    "bias3": ([1000] * 10 + [1.1], [1] * 10 + [0], (1, 1)),
}
# lir 1.3.1, tests/test_invariance_bounds.py
LIR_INVARIANCE = {
    "extreme_smallset": ([np.inf, 0], [1, 0], (0.3335112, 2.9999248)),
    "extreme": ([np.inf] * 3 + [0] * 3, [1, 1, 1, 0, 0, 0], (0.1429257, 6.9840986)),
    "system01_bad": (SYSTEM01, [1, 1, 1, 0, 0], (1, 1)),
    "system01_good1": (SYSTEM01, [0, 0, 1, 1, 1], (0.1503142, 3.74973)),
    "system01_good2": (SYSTEM01, [0, 0, 0, 1, 1], (0.2666859, 6.6527316)),
    "neutral_smallset": ([1, 1], [1, 0], (1, 1)),
    "bias1": ([10] * 10, [1] * 9 + [0], (1, 1.2647363)),
    "bias2": ([10] * 10 + [1], [1] * 10 + [0], (1, 3.8106582)),
    "bias3": ([1000] * 10 + [1.1], [1] * 10 + [0], (1, 3.8106582)),
}
# lir 1.3.1, tests/test_metrics.py (TestDevPAV.test_devpav): base-10 values
LIR_DEVPAV = {
    "naive": ([1] * 10, [1] * 5 + [0] * 5, 0.0),
    "badly_calibrated_naive": ([2] * 10, [1] * 5 + [0] * 5, math.log10(2)),
    "infinitely_bad": ([5, 5, 5, 0.2, 0.2, 0.2, np.inf], [1] * 3 + [0] * 4, np.inf),
    "binary": (
        [5, 5, 5, 0.2, 5, 0.2, 0.2, 0.2],
        [1] * 4 + [0] * 4,
        (math.log10(5) - math.log10(3)) / 2,
    ),
    "somewhat_normal": (
        [6, 5, 5, 0.2, 5, 0.2, 0.2, 0.1],
        [1] * 4 + [0] * 4,
        (math.log10(5) - math.log10(2)) / 2,
    ),
    "dummy3": ([10**-2, 10, 0.1, 100], [0, 0, 1, 1], 0.5),
}


def _bounding_example4():
    """lir's BoundingExample4 (tests/data/datasets/lr_bounding.py): base-10
    LLRs from normal distributions, NumPy's legacy seed 42."""
    state = np.random.RandomState(42)
    h1 = np.log10(np.exp(state.normal(1, 1, 100)))
    h2 = np.log10(np.exp(state.normal(0, 1, 1000)))
    return np.r_[np.ones(100), np.zeros(1000)], np.r_[h1, h2] * LN10


# ------------------------------------------------- lir's published values
@pytest.mark.parametrize("case", sorted(LIR_ELUB))
def test_elub_lir_published_values(case):
    lrs, y, expected = LIR_ELUB[case]
    bounds = elub_bounds(y, _llr(lrs), grid=0.01)
    np.testing.assert_almost_equal(np.exp(bounds), expected)


@pytest.mark.parametrize("case", sorted(LIR_INVARIANCE))
def test_invariance_lir_published_values(case):
    lrs, y, expected = LIR_INVARIANCE[case]
    bounds = invariance_bounds(y, _llr(lrs), grid=0.001)
    np.testing.assert_almost_equal(np.exp(bounds), expected)


def test_invariance_lir_published_paper_examples():
    # lir 1.3.1 test_iv_paper_examples: Alberink et al.'s examples 4 and 5
    # (example 5 is the cartridge-case data) on thresholds arange(-2, 3, 0.001)
    thresholds = np.arange(-2, 3, 0.001)
    y, llr = _bounding_example4()
    bounds = invariance_bounds(y, llr, grid=thresholds)
    np.testing.assert_almost_equal(np.exp(bounds), (0.2382319, 2.7861212))
    data = load_cartridge_case()
    bounds = invariance_bounds(data.target, data.llr, grid=thresholds)
    np.testing.assert_almost_equal(np.exp(bounds), (0.1412538, 38.1944271))


@pytest.mark.parametrize("case", sorted(LIR_DEVPAV))
def test_devpav_lir_published_values(case):
    lrs, y, expected = LIR_DEVPAV[case]
    value = devpav(y, _llr(lrs))
    if math.isinf(expected):
        assert value == np.inf
    else:  # natural-log units: lir's base-10 value times ln 10
        assert value == pytest.approx(expected * LN10, abs=1e-12)


def test_devpav_separated_classes_is_inf():
    # lir returns NaN (its PAV curve is a vertical step, no finite point);
    # every deviation from that step is infinite
    assert devpav([0, 0, 1, 1], [-1.0, 0.0, 1.0, 2.0]) == np.inf
    # one tied block of PAV-LLR 0 held at LLR +inf (lir: inf too)
    assert devpav([0, 1], [np.inf, np.inf]) == np.inf


# -------------------------------------- exact values beside lir's grid values
def test_exact_beside_grid_on_lir_cases():
    y = [0, 0, 1, 1, 1]
    llr = _llr(SYSTEM01)
    # exact: LR 3/8 and 3/2 (the roots of the utility condition); lir's grid
    # rounds them to 10**-0.42 and 10**0.17
    np.testing.assert_allclose(np.exp(elub_bounds(y, llr)), (3 / 8, 3 / 2))
    y = [1, 1, 1, 0, 0, 0]
    llr = _llr([np.inf] * 3 + [0] * 3)
    np.testing.assert_allclose(np.exp(elub_bounds(y, llr)), (1 / 3, 3))
    np.testing.assert_allclose(np.exp(invariance_bounds(y, llr)), (1 / 7, 7))


def test_cartridge_case_exact_and_grid():
    data = load_cartridge_case()
    y, llr = data.target, data.llr
    # base-10 values: exact ELUB (-0.84837, 1.55295) vs lir's (-0.84, 1.55);
    # exact invariance (-0.85036, 1.58290) vs lir's (-0.84947, 1.58253);
    # devPAV 6.08384 (base 10, as lir) times ln 10
    exact = np.array(elub_bounds(y, llr)) / LN10
    grid = np.array(elub_bounds(y, llr, grid=0.01)) / LN10
    np.testing.assert_allclose(grid, (-0.84, 1.55), atol=1e-12)
    np.testing.assert_allclose(exact, (-0.8483682, 1.5529546), atol=1e-7)
    assert np.all(np.abs(exact - grid) < 0.01)
    exact = np.array(invariance_bounds(y, llr)) / LN10
    grid = np.array(invariance_bounds(y, llr, grid=0.001)) / LN10
    np.testing.assert_allclose(grid, (-0.8494743, 1.5825257), atol=1e-7)
    np.testing.assert_allclose(exact, (-0.8503616, 1.5829007), atol=1e-7)
    assert np.all(np.abs(exact - grid) < 0.001)
    assert devpav(y, llr) / LN10 == pytest.approx(6.0838368, abs=1e-7)


# ----------------------------------------------------------- against lir
def _lir_cases():
    cases = {f"elub_{k}": v[:2] for k, v in LIR_ELUB.items()}
    cases.update({f"devpav_{k}": v[:2] for k, v in LIR_DEVPAV.items()})
    data = load_cartridge_case()
    cases["cartridge"] = (10.0**data.llr10, data.target)
    rng = np.random.default_rng(1)
    for i in range(40):
        n = int(rng.integers(2, 60))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        llr10 = np.round(rng.normal(size=n) * 2 + y * rng.uniform(0, 3), i % 3)
        cases[f"random{i}"] = (10.0**llr10, y)
    return cases


LIR_CASES = _lir_cases()


@pytest.mark.parametrize("case", sorted(LIR_CASES))
def test_equal_to_lir(case):
    pytest.importorskip("lir")
    from lir.algorithms.bayeserror import elub
    from lir.algorithms.invariance_bounds import calculate_invariance_bounds
    from lir.metrics.devpav import devpav as lir_devpav

    lrs, y = LIR_CASES[case]
    lrs, y = np.asarray(lrs, dtype=float), np.asarray(y)
    with np.errstate(divide="ignore"):
        llr10 = np.log10(lrs)
    llr = _llr(lrs)
    expected = elub(llr10.copy(), y.astype(float), add_misleading=1)
    got = np.array(elub_bounds(y, llr, grid=0.01)) / LN10
    np.testing.assert_allclose(got, expected, atol=1e-12)
    expected = np.log10(calculate_invariance_bounds(lrs.copy(), y)[:2])
    got = np.array(invariance_bounds(y, llr, grid=0.001)) / LN10
    np.testing.assert_allclose(got, expected, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lir's own log10(0)
        expected = float(np.squeeze(lir_devpav(llr10.copy(), y)))
    got = devpav(y, llr) / LN10
    if np.isnan(expected):  # lir: classes separated by the PAV
        assert got == np.inf
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------- brute force
_LLRS = st.lists(st.integers(-8, 8).map(lambda k: k / 2), min_size=2, max_size=14)


def _labelled(llrs, data):
    n = len(llrs)
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    return y, np.array(llrs, dtype=float)


def _elub_worse(t, y, x):
    """lir's condition at threshold LLR t (a number or an array of them): the
    system (one misleading trial added to each class) has a higher expected
    cost than LR 1."""
    t = np.asarray(t, dtype=float)
    above = x > t[..., None]
    n1, n2 = y.sum(), (~y).sum()
    a1, a2 = np.sum(y & above, axis=-1), np.sum(~y & above, axis=-1)
    eu = 1 - a1 / (n1 + 1) + np.exp(t) * (a2 + 1) / (n2 + 1)
    return eu > np.minimum(np.exp(t), 1.0)


@HYP
@given(_LLRS, st.data())
def test_elub_brute_force_scan(llrs, data):
    y, x = _labelled(llrs, data)
    lower, upper = elub_bounds(y, x)
    assert lower <= 0 <= upper
    # no threshold strictly between the bounds is worse than neutral, and
    # the condition holds at or just outside each (a bound where it turns)
    if lower < upper:
        scan = np.linspace(lower, upper, 2001)[1:-1]
        assert not _elub_worse(scan, y, x).any()
    assert _elub_worse(lower - 1e-9, y, x) or _elub_worse(lower, y, x)
    assert _elub_worse(upper + 1e-9, y, x) or _elub_worse(upper, y, x)


def _deltas(t, y, x):
    t = np.asarray(t, dtype=float)
    above = np.clip(x, -20, 20) >= t[..., None]
    n1, n2 = y.sum(), (~y).sum()
    p1 = (np.sum(y & above, axis=-1) + 0.5) / (n1 + 1)
    p2 = (np.sum(~y & above, axis=-1) + 0.5) / (n2 + 1)
    high = np.log(p1) - np.log(p2) - t
    low = t - np.log(1 - p1) + np.log(1 - p2)
    return low, high


@HYP
@given(_LLRS, st.data())
def test_invariance_brute_force_scan(llrs, data):
    y, x = _labelled(llrs, data)
    lower, upper = invariance_bounds(y, x)
    t_start, t_end = min(0.0, x.min()), max(0.0, x.max())
    scan = np.linspace(t_start, t_end, 4001)
    low, high = _deltas(scan, y, x)
    below = scan[(high < 0)]
    if below.size:  # the first negative delta_high, to the scan's resolution
        step = scan[1] - scan[0]
        assert max(upper, 0) == pytest.approx(max(below[0], 0), abs=step + 1e-9)
        assert _deltas(upper + 1e-9, y, x)[1] < 0 or upper == 0
    else:
        assert upper == max(x[y].max(), 0)
    neg = scan[low < 0]
    if neg.size:
        step = scan[1] - scan[0]
        assert min(lower, 0) == pytest.approx(min(neg[-1], 0), abs=step + 1e-9)
    else:
        assert lower == min(x[~y].min(), 0)


def _pav_curve(y, x):
    """The PAV-LLR of each trial, from scikit-learn's isotonic regression."""
    n1, n0 = y.sum(), (~y).sum()
    w = np.where(y, n0, n1).astype(float)  # the classes weighted equally
    p = IsotonicRegression().fit_transform(x, y.astype(float), sample_weight=w)
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-p)


@HYP
@given(_LLRS, st.data())
def test_devpav_against_quadrature(llrs, data):
    y, x = _labelled(llrs, data)
    value = devpav(y, x)
    pav = _pav_curve(y, x)
    finite = np.isfinite(pav)
    if not finite.any():
        assert value == np.inf
        return
    xs, ys = x[finite], pav[finite]
    order = np.lexsort((ys, xs))
    xs, ys = xs[order], ys[order]
    if xs[0] == xs[-1]:
        assert value == pytest.approx(abs(xs[0] - ys[0]))
        return
    grid = np.linspace(xs[0], xs[-1], 200_001)
    curve = np.interp(grid, xs, ys)
    dev = np.abs(curve - grid)
    area = np.sum((dev[1:] + dev[:-1]) / 2 * np.diff(grid))
    assert value == pytest.approx(area / (xs[-1] - xs[0]), rel=1e-6, abs=1e-6)


# -------------------------------------------------- the simpler metrics
def test_cllr_cal_is_cllr_minus_min_cllr():
    x, y, _ = make_scores(300, **LLRS)
    assert cllr_cal(y, x) == pytest.approx(cllr(y, x) - min_cllr(y, x), abs=1e-12)
    assert cllr_cal(y, x) > 0
    # the PAV-LLRs are their own optimal recalibration
    llr, lo, hi = ScoredTrials(y, x).pav_llr()
    pav = llr[np.searchsorted(hi, x)]
    assert cllr_cal(y, pav) == pytest.approx(0, abs=1e-12)
    assert cllr_cal([0, 1], [np.inf, 0.0]) == np.inf


@pytest.mark.parametrize("weighted", [False, True])
def test_cllr_cal_of_many_trials_is_cllr_minus_min_cllr(weighted):
    # many unweighted trials take the grouped logarithms of the Cllr
    x, y, _ = make_scores(100_000, **LLRS)
    w = np.random.default_rng(0).uniform(0.5, 2.0, x.size) if weighted else None
    before = x.copy()
    expected = cllr(y, x, sample_weight=w) - min_cllr(y, x, sample_weight=w)
    value = cllr_cal(y, x, sample_weight=w)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-14)
    np.testing.assert_array_equal(x, before)


def test_misleading_evidence_rates():
    y = [1, 1, 1, 1, 0, 0, 0]
    x = [-1.0, 0.0, 2.0, -np.inf, 0.0, 3.0, np.inf]
    assert misleading_evidence_rates(y, x) == (0.5, 2 / 3)
    w = [1, 1, 1, 3, 1, 0, 2]  # zero weight dropped
    assert misleading_evidence_rates(y, x, sample_weight=w) == (4 / 6, 2 / 3)


def test_expected_likelihood_ratios_calibrated():
    # Gaussian LLRs that are their own LLRs: N(+-s^2/2, s^2), so both are 1
    rng = np.random.default_rng(0)
    s, n = 1.0, 200_000
    y = np.r_[np.ones(n), np.zeros(n)]
    x = np.r_[rng.normal(s * s / 2, s, n), rng.normal(-s * s / 2, s, n)]
    inv_h1, lr_h2 = expected_likelihood_ratios(y, x)
    assert inv_h1 == pytest.approx(1, abs=0.02)
    assert lr_h2 == pytest.approx(1, abs=0.02)
    y, x = [1, 1, 0, 0], np.log([2.0, 4.0, 0.5, 1.0])
    assert expected_likelihood_ratios(y, x) == pytest.approx((0.375, 0.75))


def test_extreme_llrs_no_warnings():
    y = [1, 1, 0, 0]
    assert expected_likelihood_ratios(y, [1000.0, 1000.0, -1000.0, -1000.0]) == (
        0.0,
        0.0,
    )
    inv, lr = expected_likelihood_ratios(y, [-1000.0, 1000.0, 1000.0, -1000.0])
    assert inv == np.inf and lr == np.inf  # overflow: inf, no warning
    inv, lr = expected_likelihood_ratios(y, [np.inf, 1.0, -np.inf, np.inf])
    assert inv == pytest.approx(math.exp(-1) / 2) and lr == np.inf
    assert expected_likelihood_ratios(y, [np.inf, np.inf, -np.inf, -np.inf]) == (
        0.0,
        0.0,
    )
    x = [1000.0, -np.inf, np.inf, -1000.0, 3.0]
    for func in FUNCS:
        func([1, 1, 0, 0, 1], x)  # pytest turns warnings into errors
    all_ties = np.zeros(6)
    assert elub_bounds([1, 1, 1, 0, 0, 0], all_ties) == (0.0, 0.0)
    assert invariance_bounds([1, 1, 1, 0, 0, 0], all_ties) == (0.0, 0.0)
    assert devpav([1, 1, 1, 0, 0, 0], all_ties) == 0.0


# ------------------------------------------------------- shared contract
@pytest.mark.parametrize("func", FUNCS)
def test_weights_equal_repetitions(func):
    x, y, _ = make_scores(60, seed=3, **LLRS)
    x = np.round(x, 1)
    w = np.random.default_rng(3).integers(0, 4, y.shape[0])
    got = func(y, x, sample_weight=w.astype(float))
    expected = func(np.repeat(y, w), np.repeat(x, w))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("func", FUNCS)
def test_methods_equal_functions(func):
    x, y, _ = make_scores(300, seed=4, **LLRS)
    trials = ScoredTrials(y, x)
    np.testing.assert_allclose(getattr(trials, func.__name__)(), func(y, x))


@pytest.mark.parametrize("func", FUNCS)
def test_pos_label(func):
    x, y, _ = make_scores(300, seed=5, **LLRS)
    labels = np.where(y == 1, "ss", "ds")
    np.testing.assert_allclose(func(labels, x, pos_label="ss"), func(y, x))


@pytest.mark.parametrize("func", FUNCS)
def test_inputs_not_modified(func):
    # lir's elub and invariance bounds clip the caller's array in place
    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    x = np.array([np.inf, 50.0, 1.0, -np.inf, -50.0, 0.5, -0.2, 2.0])
    w = np.arange(1.0, 9.0)
    copies = y.copy(), x.copy(), w.copy()
    func(y, x, sample_weight=w)
    for before, after in zip(copies, (y, x, w), strict=True):
        np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("func", FUNCS)
def test_bad_input_one_line_error_naming_the_argument(func):
    cases = [
        (([1, 1, 1], [0.0, 1.0, 2.0]), "y_true"),
        (([0, 1, 1], [0.0, np.nan, 2.0]), "llr"),
        (([], []), "llr"),
        (([0, 1], [0.0, 1.0, 2.0]), "y_true|llr|inconsistent"),
    ]
    for args, name in cases:
        with pytest.raises(ValueError, match=name) as info:
            func(*args)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="sample_weight"):
        func([0, 1], [0.0, 1.0], sample_weight=[1.0, -1.0])


@pytest.mark.parametrize("func", [elub_bounds, invariance_bounds])
def test_grid_parameter_validated(func):
    with pytest.raises(ValueError, match="grid"):
        func([0, 1], [0.0, 1.0], grid=-0.01)


def test_scorers():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from skcalib import PAVLLRCalibrator, ScoreTransformer
    from skcalib.metrics import get_scorer

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 1))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    pipe = make_pipeline(
        ScoreTransformer(LogisticRegression(), cv=3), PAVLLRCalibrator()
    ).fit(X, y)
    llr = pipe.decision_function(X)
    assert get_scorer("neg_cllr_cal")(pipe, X, y) == -cllr_cal(y, llr)
    assert get_scorer("neg_devpav")(pipe, X, y) == -devpav(y, llr)


def _devpav_exact(llr, lo, hi):
    """devPAV of PAV blocks in exact rational arithmetic (no overflow)."""
    from fractions import Fraction

    keep = np.isfinite(llr)
    xs = [Fraction(v) for a, b in zip(lo[keep], hi[keep], strict=True) for v in (a, b)]
    ys = [Fraction(v) for v in np.repeat(llr[keep], 2)]
    area = Fraction(0)
    for i in range(len(xs) - 1):
        d0, d1, dx = ys[i] - xs[i], ys[i + 1] - xs[i + 1], xs[i + 1] - xs[i]
        if (d0 >= 0) == (d1 >= 0):
            area += (abs(d0) + abs(d1)) / 2 * dx
        elif d0 or d1:
            area += (d0 * d0 + d1 * d1) / (2 * (abs(d0) + abs(d1))) * dx
    return float(area / (xs[-1] - xs[0]))


@pytest.mark.parametrize("k", [0, 600, 1020])
def test_devpav_near_the_largest_float(k):
    """LLRs up to 2**1020 give the exact devPAV (rational arithmetic on the
    same blocks), finite and with no overflow warning."""
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(40, int), np.zeros(60, int)]
    llr = rng.normal(size=100) + np.where(y == 1, 1.0, -1.0)
    llr = np.ldexp(llr / np.abs(llr).max(), k)  # in [-2**k, 2**k]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = devpav(y, llr)
    assert np.isfinite(got)
    expected = _devpav_exact(*ScoredTrials(y, llr).pav_llr())
    assert got == pytest.approx(expected, rel=1e-12)


def test_cllr_cal_of_many_trials_with_extreme_llrs():
    # +/-1000 and near the float maximum: the per-trial sums, no warning
    x, y, _ = make_scores(5000, **LLRS)
    x = x.copy()
    x[:4] = [1000.0, -1000.0, 1.7e308, -1.7e308]
    y = y.copy()
    y[:4] = [1, 0, 1, 0]
    expected = cllr(y, x) - min_cllr(y, x)
    assert cllr_cal(y, x) == pytest.approx(expected, rel=1e-12, abs=1e-14)
