"""Tests of rocch and eer (skcalib.metrics._roc)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from skcalib.metrics import ScoredTrials, eer, min_dcf, rocch

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=40)

# Fawcett & Niculescu-Mizil, "PAV and the ROC convex hull" (2007), Table I
TABLE1_S = [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.27, 0.2, 0.18]
TABLE1_S += [0.1, 0.02]
TABLE1_Y = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0]


def _roc_points(y, s, w=None):
    """All empirical operating points (thresholds at distinct scores)."""
    y = np.asarray(y, bool)
    s = np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    pts = [(0.0, 1.0), (1.0, 0.0)]  # accept all, reject all
    for t in np.unique(s):
        acc = s >= t
        pts.append((w[y & ~acc].sum() / w[y].sum(), w[~y & acc].sum() / w[~y].sum()))
    return np.array(sorted(set(pts)))


def _lower_hull(points):
    """Monotone-chain lower hull of (pmiss, pfa) points, collinear removed.

    Points with equal pmiss are visited from the highest pfa down, so that the
    hull starts at accept-all ``(0, 1)`` as a ROC convex hull does.
    """
    hull = []
    for p in sorted(map(tuple, points), key=lambda q: (q[0], -q[1])):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            cross = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
            if cross <= 1e-15:
                hull.pop()
            else:
                break
        hull.append(p)
    return np.array(hull)


def _lp_eer(points):
    """min over convex combinations of max(pmiss, pfa): the ROCCH-EER, by LP."""
    k = len(points)
    c = np.zeros(k + 1)
    c[-1] = 1.0  # minimize e
    a_ub = np.zeros((2, k + 1))
    a_ub[0, :k], a_ub[1, :k] = points[:, 0], points[:, 1]
    a_ub[:, -1] = -1.0
    a_eq = np.zeros((1, k + 1))
    a_eq[0, :k] = 1.0
    res = linprog(c, A_ub=a_ub, b_ub=[0, 0], A_eq=a_eq, b_eq=[1], bounds=(0, None))
    assert res.success
    return res.fun


#: both classes among the first two trials (and weighing 1), scores tied
TRIALS = {
    "prior": 0.5,
    "both_first": True,
    "loc": (0.0, 1.0),
    "decimals": 1,
    "labels": bool,
}


# ------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="y_score"):
        eer([0, 1], [np.nan, 0.0])
    with pytest.raises(ValueError, match="y_score"):
        rocch([0, 1], [0.0, np.nan])
    with pytest.raises(ValueError, match="pos_label"):
        eer(["x", "y"], [0.0, 1.0])
    with pytest.raises(ValueError, match="target"):
        rocch([0, 0], [0.0, 1.0])


# --------------------------------------------------------------- correctness
def test_table1_hull():
    pmiss, pfa = rocch(TABLE1_Y, TABLE1_S)
    # PAV blocks of Table I: probabilities 1, 3/4, 2/3, 1/2, 1/3, 0 with
    # (tar, non) = (2,0), (3,1), (2,1), (1,1), (1,2), (0,1); 9 targets, 6 non.
    cum_tar = np.cumsum([0, 0, 1, 1, 2, 3, 2])
    cum_non = np.cumsum([0, 1, 2, 1, 1, 1, 0])
    np.testing.assert_allclose(pmiss, cum_tar / 9)
    np.testing.assert_allclose(pfa, 1 - cum_non / 6)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("inf", [False, True])
def test_rocch_equals_brute_force_hull(seed, weights, inf):
    s, y, w = make_scores(
        50, seed=seed, inf=0.15 if inf else 0.0, weights=weights, **TRIALS
    )
    pmiss, pfa = rocch(y, s, sample_weight=w)
    ref = _lower_hull(_roc_points(y, s, w))
    np.testing.assert_allclose(np.column_stack([pmiss, pfa]), ref, atol=1e-12)
    assert (pmiss[0], pfa[0], pmiss[-1], pfa[-1]) == (0.0, 1.0, 1.0, 0.0)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("inf", [False, True])
def test_eer_equals_lp_rocch_eer(seed, weights, inf):
    s, y, w = make_scores(
        50, seed=seed, inf=0.15 if inf else 0.0, weights=weights, **TRIALS
    )
    e = eer(y, s, sample_weight=w)
    assert e == pytest.approx(_lp_eer(_roc_points(y, s, w)), abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_eer_between_hull_rates_at_crossing(seed):
    s, y, w = make_scores(50, seed=seed, weights=True, **TRIALS)
    e = eer(y, s, sample_weight=w)
    pmiss, pfa = rocch(y, s, sample_weight=w)
    k = np.flatnonzero(pmiss >= pfa)[0]  # first vertex past the crossing
    assert pmiss[k - 1] <= e <= pmiss[k]
    assert pfa[k] <= e <= pfa[k - 1]
    # ROCCH-EER = max over priors of the unnormalized min DCF.
    grid = np.linspace(0.005, 0.995, 199)
    best = max(
        min_dcf(y, s, p_target=p, sample_weight=w, normalize=False) for p in grid
    )
    assert best <= e + 1e-12
    assert best == pytest.approx(e, abs=1e-2)


def test_eer_edge_cases():
    assert eer([0, 1, 0, 1], [0.0, 1.0, 0.0, 1.0]) == 0.0  # separated
    assert eer([0, 1, 0, 1], [1.0, 0.0, 1.0, 0.0]) == 0.5  # reversed: hull = chance
    assert eer([0, 1], [3.0, 3.0]) == 0.5
    assert eer([0, 1, 0, 1], [-np.inf, np.inf, -np.inf, np.inf]) == 0.0
    assert eer([0, 1, 1], [-1e4, 1e4, -1e4]) == pytest.approx(1 / 3)


def test_eer_of_separated_classes_is_positive_zero():
    # The crossing of a segment through the origin was 0 / negative = -0.0.
    for y, s in (([0, 0, 1, 1], [0.0, 1.0, 2.0, 3.0]), ([0, 1], [-np.inf, np.inf])):
        e = eer(y, s)
        assert e == 0.0 and math.copysign(1.0, e) == 1.0


def test_eer_with_blocks_negligible_against_the_class_totals():
    # A block of weight 3 next to 1e300 is a segment of length 0 after
    # rounding: its crossing was 0 / 0 (NaN and a RuntimeWarning).
    y = np.array([0, 1, 0, 1])
    s = np.array([0.0, 1.0, 2.0, 2.0])
    w = np.array([3.0, 3.0, 1e300, 1e300])
    assert eer(y, s, sample_weight=w) == 0.5  # one heavy tied block: chance


def test_weights_and_pos_label():
    s, y, _ = make_scores(50, seed=4, **TRIALS)
    rep = np.arange(len(y)) % 4
    assert eer(y, s, sample_weight=rep) == pytest.approx(
        eer(np.repeat(y, rep), np.repeat(s, rep)), rel=1e-12
    )
    labels = np.where(y, "tar", "non")
    assert eer(labels, s, pos_label="tar") == eer(y, s)
    # The other class as target with negated scores: the same EER.
    assert eer(labels, -s, pos_label="non") == pytest.approx(eer(y, s), rel=1e-12)


# ---------------------------------------------------------------- properties
@st.composite
def _trials(draw):
    n = draw(st.integers(2, 30))
    s = np.array(draw(st.lists(st.integers(-15, 15), min_size=n, max_size=n)), float)
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    return y, s


@HYP
@given(_trials())
def test_eer_invariant_and_bounded(data):
    y, s = data
    e = eer(y, s)
    assert 0.0 <= e <= 0.5
    assert eer(y, np.exp(s / 4) - 3) == pytest.approx(e, rel=1e-12, abs=1e-15)
    pmiss, pfa = rocch(y, s)
    dm, df = np.diff(pmiss), np.diff(pfa)
    assert np.all(dm >= 0) and np.all(df <= 0) and np.all(dm - df > 0)
    # Convex: segment slopes -dpfa/dpmiss strictly decrease along the hull.
    with np.errstate(divide="ignore"):
        slope = -df / dm
    assert np.all(np.diff(slope) < 0)


def _brute_eer_threshold(y, s, w):
    """ROCCH-EER and its threshold by brute force: every threshold's ROC point,
    the lower convex hull by the monotone chain, then the convention."""
    # exact rational arithmetic: a point collinear with a hull segment must
    # not turn into a vertex by rounding
    y, s = np.asarray(y), np.asarray(s)
    w = [Fraction(float(v)) for v in w]
    thresholds = np.r_[np.unique(s), np.inf]
    tar = sum(wi for wi, yi in zip(w, y, strict=True) if yi == 1)
    non = sum(wi for wi, yi in zip(w, y, strict=True) if yi == 0)

    def point(t):
        fa = sum(wi for wi, yi, si in zip(w, y, s, strict=True) if yi == 0 and si >= t)
        miss = sum(wi for wi, yi, si in zip(w, y, s, strict=True) if yi == 1 and si < t)
        return fa / non, miss / tar, t

    pts = [point(t) for t in thresholds]
    pts.sort(key=lambda p: (p[0], p[1]))  # by pfa, then pmiss
    # at one false-alarm rate only the lowest miss rate can be on the hull
    pts = [p for i, p in enumerate(pts) if i == 0 or p[0] != pts[i - 1][0]]
    hull = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1, _), (x2, y2, _) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()  # not a left turn: not a lower-hull vertex
            else:
                break
        hull.append(p)
    hull = hull[::-1]  # accept all (pfa 1) first
    d = [pm - pf for pf, pm, _ in hull]
    v = next(i for i, di in enumerate(d) if di >= 0)
    (xa, ya, _), (xb, yb, _) = hull[v - 1], hull[v]
    value = (xa * yb - ya * xb) / ((yb - ya) - (xb - xa))
    if d[v] > 0 and -d[v - 1] <= d[v]:
        v -= 1
    return float(value), hull[v][2]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_eer_threshold_brute_force(seed, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.normal(size=n) + y * rng.uniform(0, 2), 1)  # ties
    w = rng.uniform(0.1, 2.0, n) if weighted else np.ones(n)
    value, threshold = eer(y, s, sample_weight=w, return_threshold=True)
    want_value, want_threshold = _brute_eer_threshold(y, s, w)
    assert value == pytest.approx(want_value, abs=1e-12)
    assert threshold == want_threshold
    assert threshold in s
    # the error rates at the threshold straddle the EER
    pmiss = w[(y == 1) & (s < threshold)].sum() / w[y == 1].sum()
    pfa = w[(y == 0) & (s >= threshold)].sum() / w[y == 0].sum()
    assert min(pmiss, pfa) <= value + 1e-12 <= max(pmiss, pfa) + 2e-12
    trials = ScoredTrials(y, s, sample_weight=w)
    assert trials.eer(return_threshold=True) == (value, threshold)
    assert trials.eer() == value


def test_eer_threshold_edge_cases():
    # one tied block: accept all, at the only score
    assert eer([0, 1], [0.0, 0.0], return_threshold=True) == (0.5, 0.0)
    # separated classes: the lowest target score
    assert eer([0, 0, 1, 1], [-1.0, 0.0, 2.0, 3.0], return_threshold=True) == (0.0, 2.0)
    # infinite scores are thresholds too
    value, threshold = eer([0, 1, 1], [-np.inf, np.inf, np.inf], return_threshold=True)
    assert (value, threshold) == (0.0, np.inf)
    y, s = np.array([0, 1, 0, 1]), np.array([0.5, 0.2, 0.1, 0.9])
    copies = y.copy(), s.copy()
    eer(y, s, return_threshold=True)
    np.testing.assert_array_equal(y, copies[0])
    np.testing.assert_array_equal(s, copies[1])
    with pytest.raises(ValueError, match="return_threshold"):
        eer([0, 1], [0.0, 1.0], return_threshold="yes")
    with pytest.raises(ValueError, match="return_threshold"):
        ScoredTrials([0, 1], [0.0, 1.0]).eer(return_threshold=1)
