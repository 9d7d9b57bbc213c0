"""Tests of the PAV kernel (skcalib._kernel._pav) against the papers and brute force."""

from fractions import Fraction

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import isotonic_regression as sk_isotonic

from skcalib._kernel._pav import (
    BlockSummary,
    block_llr,
    block_proba,
    pav_blocks,
    pav_merge,
    pav_points,
    pav_points_and_classes,
    rocch_from_blocks,
)

HYP = settings(derandomize=True, database=None, deadline=None, max_examples=60)

# Fawcett & Niculescu-Mizil, "PAV and the ROC convex hull" (2007), Table I
TABLE1_S = np.array(
    [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.27, 0.2, 0.18, 0.1, 0.02]
)
TABLE1_Y = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0], dtype=bool)
TABLE1_P = ["1", "1", "3/4", "3/4", "3/4", "3/4", "2/3", "2/3", "2/3", "1/2", "1/2"]
TABLE1_P += ["1/3", "1/3", "1/3", "0"]


def _expand(blocks, scores):
    """Per-sample block value, looked up by score range."""
    idx = np.searchsorted(blocks.lo, scores, side="right") - 1
    assert np.all(scores <= blocks.hi[idx])
    return idx


#: scores tied (one decimal), both classes among the first two trials
TIED = {"both_first": True, "decimals": 1, "labels": bool}


def _reference_fit(s, y, w):
    """Isotonic fit per unique score by scikit-learn's own solver."""
    w = np.ones_like(s) if w is None else w
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    u, inv = np.unique(s, return_inverse=True)
    tw = np.bincount(inv, weights=w * y)
    aw = np.bincount(inv, weights=w)
    return u, sk_isotonic(tw / aw, sample_weight=aw)


def test_table1_exact():
    blocks = pav_blocks(TABLE1_S, TABLE1_Y)
    got = [
        Fraction(int(t), int(t + n))
        for t, n in zip(blocks.tar, blocks.non, strict=True)
    ]
    idx = _expand(blocks, TABLE1_S)
    assert [got[i] for i in idx] == [Fraction(p) for p in TABLE1_P]
    assert blocks.tar.sum() == 9 and blocks.non.sum() == 6


def test_table1_rocch_relation():
    """001: block value = slope * skew / (1 + slope * skew) on the hull."""
    blocks = pav_blocks(TABLE1_S, TABLE1_Y)
    pmiss, pfa = rocch_from_blocks(blocks)
    n_tar, n_non = blocks.tar.sum(), blocks.non.sum()
    dtpr = np.diff(pmiss)  # target fraction per block, low to high
    dfpr = -np.diff(pfa)
    with np.errstate(divide="ignore"):
        slope = dtpr / dfpr
    skew = n_tar / n_non
    with np.errstate(invalid="ignore"):
        p = np.where(np.isinf(slope), 1.0, slope * skew / (1 + slope * skew))
    np.testing.assert_allclose(p, block_proba(blocks), rtol=1e-12)
    assert pmiss[0] == 0 and pfa[0] == 1 and pmiss[-1] == 1 and pfa[-1] == 0


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_matches_sklearn_isotonic(seed, weights):
    rng = np.random.default_rng(seed)
    s, y, w = make_scores(
        int(rng.integers(2, 400)),
        seed=rng,
        prior=rng.uniform(0.2, 0.8),
        weights=weights,
        **TIED,
    )
    blocks = pav_blocks(s, y, w)
    u, ref = _reference_fit(s, y, w)
    idx = _expand(blocks, u)
    np.testing.assert_allclose(block_proba(blocks)[idx], ref, rtol=0, atol=1e-12)
    assert np.all(np.diff(block_proba(blocks)) > 0)


@pytest.mark.parametrize("decimals", [None, 2, 0])
@pytest.mark.parametrize("minority", [0.01, 0.05, 0.5, 0.95])
def test_unweighted_and_unit_weight_paths_agree(minority, decimals):
    """The value-sort path (sparse ties, run merging) equals the argsort path."""
    rng = np.random.default_rng(3)
    for n in (2, 3, 17, 3000):
        y = rng.random(n) < minority
        s = rng.normal(size=n) + 1.5 * y
        if decimals is not None:
            s = np.round(s, decimals)
        a = pav_blocks(s, y)
        b = pav_blocks(s, y, np.ones_like(s))
        for x1, x2 in zip(a, b, strict=True):
            np.testing.assert_array_equal(x1, x2)


@pytest.mark.parametrize("seed", range(4))
def test_small_tied_blocks_equal_merged_points(seed):
    """Below ``_SMALL_N``, PAV on the groups of tied scores (weighted by
    their sizes) gives the blocks of PAV on the pooled points, to the bit
    and to the sign of a zero score, with and without the score ranges."""
    import skcalib._kernel._pav as kernel

    rng = np.random.default_rng(seed)
    for _ in range(300):
        n = int(rng.integers(1, 300))
        y = rng.random(n) < rng.choice([0.0, 0.1, 0.5, 0.9, 1.0])
        s = np.round(rng.normal(size=n) + rng.uniform(0, 3) * y, rng.integers(-1, 3))
        special = rng.integers(0, n, size=rng.integers(0, 3))
        s[special] = rng.choice([-np.inf, np.inf, 0.0, -0.0], size=special.shape[0])
        if np.unique(s).shape[0] == n:
            continue  # no ties: the other path
        ref = pav_merge(pav_points(s, y))
        got = kernel._blocks_small(s, y)
        for a, b in zip(got, ref, strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
        bare = kernel._blocks_small(s, y, ranges=False)
        assert bare.lo is None and bare.hi is None
        np.testing.assert_array_equal(bare.tar, ref.tar)
        np.testing.assert_array_equal(bare.non, ref.non)


def _brute_force_points(s, y):
    """pav_points by definition: one point per distinct score (stable
    argsort), then adjacent points that hold one class only pooled."""
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order]
    points = []  # [lo, hi, tar, non]
    for value, label in zip(s.tolist(), y.tolist(), strict=True):
        if points and points[-1][1] == value:
            points[-1][2 + (not label)] += 1
        else:
            points.append([value, value, float(label), float(not label)])
    pooled = [points[0]]
    for p in points[1:]:
        last = pooled[-1]
        if (p[2] == 0 and last[2] == 0) or (p[3] == 0 and last[3] == 0):
            last[1], last[2], last[3] = p[1], last[2] + p[2], last[3] + p[3]
        else:
            pooled.append(p)
    return BlockSummary(*(np.array(c, dtype=float) for c in zip(*pooled, strict=True)))


@pytest.mark.parametrize("chunk", [1, 3, None])
@pytest.mark.parametrize("seed", range(6))
def test_unweighted_points_equal_brute_force(seed, chunk, monkeypatch):
    """The value-sort path (class split, located minority, pure runs) equals
    the definition, with ties within and across classes and +/-inf, also
    below ``_SMALL_N``; small ``_SEARCH_CHUNK`` and ``_SPLIT_CHUNK`` exercise
    the chunked search and class split on small data."""
    import skcalib._kernel._pav as kernel

    if chunk is not None:
        monkeypatch.setattr(kernel, "_SEARCH_CHUNK", chunk)
        monkeypatch.setattr(kernel, "_SPLIT_CHUNK", 7 * chunk)
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 40, 600, 5000):
        y = rng.random(n) < rng.choice([0.0, 0.05, 0.3, 0.7, 0.95, 1.0])
        s = rng.normal(size=n) + rng.uniform(0, 3) * y
        decimals = rng.choice([-1, 0, 1, 3])
        if decimals >= 0:
            s = np.round(s, decimals)
        special = rng.integers(0, n, size=rng.integers(0, 4))
        s[special] = rng.choice([-np.inf, np.inf], size=special.shape[0])
        ref = _brute_force_points(s, y)
        for got in (pav_points(s, y), kernel._points_unweighted(s, y)):
            for a, b in zip(got, ref, strict=True):
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("rate", [0.0, 0.01, 0.049, 0.05, 0.098, 0.1, 0.1001, 0.3, 1.0])
@pytest.mark.parametrize("size", [1, 8191, 8192, 20000])
def test_true_positions_equal_flatnonzero(rate, size):
    """The padded route to numpy's branch-free nonzero (masks 5-10% True of
    8192 values or more) gives np.flatnonzero, also when the scratch array
    is too short for the padding."""
    from skcalib._kernel._pav import _true_positions

    rng = np.random.default_rng(size)
    mask = rng.random(size) < rate
    for flags in (np.empty(size * 9 // 8 + 2, dtype=bool), np.empty(size, dtype=bool)):
        flags.fill(False)
        np.testing.assert_array_equal(
            _true_positions(mask, flags), np.flatnonzero(mask)
        )


def test_integer_weights_equal_repeated_rows_and_zero_weights_dropped():
    rng = np.random.default_rng(4)
    s, y, _ = make_scores(300, seed=rng, prior=rng.uniform(0.2, 0.8), **TIED)
    w = rng.integers(0, 4, 300)
    w[:2] = 1
    a = pav_blocks(s, y, w.astype(float))
    b = pav_blocks(np.repeat(s, w), np.repeat(y, w))
    for x1, x2 in zip(a, b, strict=True):
        np.testing.assert_allclose(x1, x2)


def test_ties_pooled_and_infinite_scores():
    s = np.array([-np.inf, -np.inf, 0.0, 0.0, np.inf, np.inf])
    y = np.array([True, False, False, True, False, True])
    blocks = pav_blocks(s, y)
    # every tie is one point with ratio 1/2: a single block
    assert blocks.n_blocks == 1 and blocks.lo[0] == -np.inf and blocks.hi[0] == np.inf
    s = np.array([-np.inf, 0.0, 1.0, np.inf])
    y = np.array([False, False, True, True])
    blocks = pav_blocks(s, y)
    assert blocks.lo.tolist() == [-np.inf, 1.0] and blocks.hi.tolist() == [0.0, np.inf]


def test_one_class_only_gives_one_block():
    blocks = pav_blocks(np.array([3.0, 1.0, 2.0]), np.zeros(3, dtype=bool))
    assert blocks.n_blocks == 1 and blocks.non[0] == 3 and blocks.tar[0] == 0


def test_pseudo_count_is_rule_of_succession():
    """pseudo_count=1 equals adding the four virtual trials by hand."""
    rng = np.random.default_rng(5)
    s, y, _ = make_scores(200, seed=rng, prior=rng.uniform(0.2, 0.8), **TIED)
    got = pav_blocks(s, y, pseudo_count=1.0)
    s_aug = np.concatenate([[-1e9, -1e9], s, [1e9, 1e9]])
    y_aug = np.concatenate([[True, False], y, [True, False]])
    ref = pav_blocks(s_aug, y_aug)
    np.testing.assert_allclose(got.tar, ref.tar)
    np.testing.assert_allclose(got.non, ref.non)
    # real score ranges are kept where a block absorbed a virtual point
    assert got.lo[0] in (s.min(), -np.inf) and got.hi[-1] in (s.max(), np.inf)
    assert np.isfinite(block_llr(got, y.sum(), (~y).sum())).all()


def test_block_llr_signs_and_infinities():
    blocks = BlockSummary(
        np.array([0.0, 1.0, 2.0]),
        np.array([0.0, 1.0, 2.0]),
        np.array([0.0, 2.0, 3.0]),
        np.array([4.0, 2.0, 0.0]),
    )
    with np.errstate(all="raise"):
        llr = block_llr(blocks, 5.0, 6.0)
    assert llr[0] == -np.inf and llr[2] == np.inf
    assert llr[1] == pytest.approx(np.log(1.0) - np.log(5 / 6))


def test_merge_of_contiguous_ranges_equals_global_pav():
    """PAV per contiguous score range, then PAV of the blocks, is PAV of all."""
    rng = np.random.default_rng(6)
    s, y, w = make_scores(
        2000, seed=rng, prior=rng.uniform(0.2, 0.8), weights=True, **TIED
    )
    whole = pav_blocks(s, y, w)
    cuts = np.sort(rng.choice(np.unique(s), size=5, replace=False))
    parts = []
    for lo, hi in zip(np.r_[-np.inf, cuts], np.r_[cuts, np.inf], strict=True):
        m = (s >= lo) & (s < hi) & (w > 0)
        if m.any():
            parts.append(pav_merge(pav_points(s[m], y[m], w[m])))
    merged = pav_merge(
        BlockSummary(*(np.concatenate(p) for p in zip(*parts, strict=True)))
    )
    for a, b in zip(whole, merged, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# ----------------------------------------------------------------- properties
scores_and_labels = st.integers(2, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-5, 5), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )
)


def _prep(data):
    s, y, w = (np.asarray(a) for a in data)
    s = s.astype(float)
    y = y.astype(bool)
    w = w.astype(float)
    w[0] = max(w[0], 1.0)
    y[0] = True
    if len(y) > 1:
        y[-1] = False
        w[-1] = max(w[-1], 1.0)
    return s, y, w


def _losses(p, y, w):
    """Brier, logarithmic and boosting rules (Brümmer & du Preez) of p."""
    with np.errstate(divide="ignore", invalid="ignore"):
        brier = np.where(y, (1 - p) ** 2, p**2)
        log = np.where(y, -np.log(p), -np.log1p(-p))
        boost = np.where(y, np.sqrt((1 - p) / p), np.sqrt(p / (1 - p)))
    out = []
    for c in (brier, log, boost):
        c = np.where(w > 0, c, 0.0)
        out.append(float(np.sum(w * c)))
    return out


@HYP
@given(scores_and_labels, st.integers(0, 2**31 - 1))
def test_pav_optimal_for_proper_rules_among_monotone_maps(data, seed):
    """000: PAV minimizes every proper scoring rule over monotone maps."""
    s, y, w = _prep(data)
    blocks = pav_blocks(s, y, w)
    s, y, w = s[w > 0], y[w > 0], w[w > 0]  # zero-weight rows are dropped
    p_pav = block_proba(blocks)[_expand(blocks, s)]
    best = _losses(p_pav, y, w)
    rng = np.random.default_rng(seed)
    u, inv = np.unique(s, return_inverse=True)
    for _ in range(5):
        q = np.sort(rng.uniform(0.01, 0.99, size=u.shape[0]))[inv]
        # a nearby monotone competitor: PAV values perturbed monotonically
        q2 = np.clip(p_pav + 0.02 * (q - 0.5), 1e-9, 1 - 1e-9)
        q2 = np.maximum.accumulate(q2[np.argsort(s, kind="stable")])[
            np.argsort(np.argsort(s, kind="stable"))
        ]
        for cand in (q, q2):
            for got, ref in zip(best, _losses(cand, y, w), strict=True):
                assert got <= ref + 1e-9


@HYP
@given(scores_and_labels)
def test_rocch_vertices_are_the_convex_hull(data):
    """001: hull vertices from blocks equal the brute-force ROC convex hull."""
    s, y, w = _prep(data)
    blocks = pav_blocks(s, y, w)
    pmiss, pfa = rocch_from_blocks(blocks)
    # brute force: ROC points for thresholds between unique scores
    n_tar, n_non = w[y].sum(), w[~y].sum()
    thr = np.r_[np.unique(s), np.inf]
    pts = np.array(
        [(w[y & (s < t)].sum() / n_tar, w[~y & (s >= t)].sum() / n_non) for t in thr]
    )
    # lower-left convex hull in (pmiss, pfa), i.e. minimizing a*pmiss + b*pfa
    for a in np.linspace(0.01, 0.99, 25):
        best_brute = np.min(a * pts[:, 0] + (1 - a) * pts[:, 1])
        best_hull = np.min(a * pmiss + (1 - a) * pfa)
        assert best_hull == pytest.approx(best_brute, abs=1e-12)
    # vertices lie on the brute-force ROC (they are operating points)
    for pm, pf in zip(pmiss, pfa, strict=True):
        assert np.min(np.abs(pts[:, 0] - pm) + np.abs(pts[:, 1] - pf)) < 1e-12


@HYP
@given(scores_and_labels, st.floats(0.01, 100.0))
def test_pav_llr_independent_of_class_proportions(data, factor):
    """Reweighting all targets leaves the PAV-LLRs unchanged (Brümmer & du Preez)."""
    s, y, w = _prep(data)
    b1 = pav_blocks(s, y, w)
    w2 = np.where(y, w * factor, w)
    b2 = pav_blocks(s, y, w2)
    assert b1.n_blocks == b2.n_blocks
    l1 = block_llr(b1, w[y].sum(), w[~y].sum())
    l2 = block_llr(b2, w2[y].sum(), w2[~y].sum())
    np.testing.assert_allclose(l1, l2, rtol=1e-9, atol=1e-9)


@HYP
@given(scores_and_labels)
def test_blocks_partition_the_data(data):
    s, y, w = _prep(data)
    blocks = pav_blocks(s, y, w)
    assert blocks.tar.sum() == pytest.approx(w[y].sum())
    assert blocks.non.sum() == pytest.approx(w[~y].sum())
    assert np.all(blocks.lo <= blocks.hi)
    assert np.all(blocks.hi[:-1] < blocks.lo[1:])
    assert np.all(np.diff(block_proba(blocks)) > 0)


def test_public_isotonic_regression_fallback_gives_the_same_blocks(monkeypatch):
    """Without scipy's private compiled PAV (a release that moves it), the
    public ``isotonic_regression`` gives the same blocks bit for bit."""
    from skcalib._kernel import _pav

    rng = np.random.default_rng(5)
    cases = []
    for n in (1, 2, 7, 60, 3000):
        s = np.round(rng.normal(size=n), 1)
        y = rng.random(n) < 0.4
        w = rng.uniform(0.1, 2.0, n)
        cases.append((s, y, None))
        cases.append((s, y, w))
    compiled = [_pav.pav_blocks(*c) for c in cases]
    monkeypatch.setattr(_pav, "_pava", None)
    for c, expected in zip(cases, compiled, strict=True):
        got = _pav.pav_blocks(*c)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [50, 2001, 30_000])
@pytest.mark.parametrize("target_share", [0.0, 0.3, 0.7])
def test_pav_points_and_classes_gives_points_and_sorted_classes(n, target_share):
    rng = np.random.default_rng(n)
    s = np.round(rng.normal(size=n), 2)  # ties
    s[:5] = [np.inf, -np.inf, 0.0, -0.0, 1e300]
    y = rng.random(n) < target_share
    kept = s.copy(), y.copy()
    points, tar, non = pav_points_and_classes(s, y)
    for a, b in zip(points, pav_points(s, y), strict=True):
        np.testing.assert_array_equal(a, b)
    if n <= 2000:  # few scores: one labelled sort, no classes formed
        assert tar is None and non is None
    else:
        np.testing.assert_array_equal(tar, np.sort(s[y]))
        np.testing.assert_array_equal(non, np.sort(s[~y]))
    np.testing.assert_array_equal(s, kept[0])
    np.testing.assert_array_equal(y, kept[1])
