"""Tests of expected_calibration_error (skcalib.metrics._ece)."""

import tracemalloc

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from skcalib.metrics import expected_calibration_error as ece
from skcalib.metrics._ece import _bin_ids_by_bisection, _bin_ids_from_edges


def _data(seed, n=500):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**1.5).astype(int)  # miscalibrated on purpose
    return y, p


def _loop_ece(y, p, edges, w=None):
    """Per-bin loop, calibration_curve's bin rule (interior edges go down)."""
    w = np.ones(len(y)) if w is None else w
    ids = np.searchsorted(edges[1:-1], p)
    gaps, weights = [], []
    for b in range(len(edges) - 1):
        m = ids == b
        if w[m].sum() > 0:
            gaps.append(
                abs(np.average(y[m], weights=w[m]) - np.average(p[m], weights=w[m]))
            )
            weights.append(w[m].sum())
    gaps, weights = np.array(gaps), np.array(weights) / np.sum(weights)
    return {
        "l1": np.dot(weights, gaps),
        "l2": np.sqrt(np.dot(weights, gaps**2)),
        "max": gaps.max(),
    }


# ------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="y_prob"):
        ece([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match="y_prob"):
        ece([0, 1], [0.5, np.nan])
    with pytest.raises(ValueError, match="strategy"):
        ece([0, 1], [0.5, 0.5], strategy="kmeans")
    with pytest.raises(ValueError, match="norm"):
        ece([0, 1], [0.5, 0.5], norm="l3")
    with pytest.raises(ValueError, match="n_bins"):
        ece([0, 1], [0.5, 0.5], n_bins=0)
    with pytest.raises(ValueError, match="pos_label"):
        ece(["a", "b"], [0.5, 0.5])


# --------------------------------------------------------------- correctness
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 5, 15])
def test_matches_sklearn_calibration_curve(strategy, n_bins):
    y, p = _data(0)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    if strategy == "uniform":
        edges = np.linspace(0, 1, n_bins + 1)
    else:
        edges = np.percentile(p, np.linspace(0, 100, n_bins + 1))
    counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=n_bins)
    counts = counts[counts > 0]
    ref = np.dot(counts / counts.sum(), np.abs(prob_true - prob_pred))
    assert ece(y, p, n_bins=n_bins, strategy=strategy) == pytest.approx(ref, rel=1e-12)
    assert ece(y, p, n_bins=n_bins, strategy=strategy, norm="max") == pytest.approx(
        np.max(np.abs(prob_true - prob_pred)), rel=1e-12
    )


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_weighted_loop_reference(norm):
    y, p = _data(1, n=300)
    p = np.round(p, 2)  # values on bin edges
    w = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    edges = np.linspace(0, 1, 11)
    ref = _loop_ece(y, p, edges, w)[norm]
    assert ece(y, p, n_bins=10, norm=norm, sample_weight=w) == pytest.approx(ref)
    # Integer weights equal repeated rows (uniform and quantile bins).
    wi = w.astype(int)
    for strategy in ("uniform", "quantile"):
        got = ece(y, p, n_bins=7, norm=norm, strategy=strategy, sample_weight=w)
        if strategy == "uniform":
            ref = ece(np.repeat(y, wi), np.repeat(p, wi), n_bins=7, norm=norm)
            assert got == pytest.approx(ref, rel=1e-12)
        else:  # weighted inverted-CDF quantiles = those of the repeated rows
            q = np.linspace(0, 1, 8)
            edges = np.quantile(np.repeat(p, wi), q, method="inverted_cdf")
            assert got == pytest.approx(_loop_ece(y, p, edges, w)[norm], rel=1e-12)


def test_perfectly_calibrated_and_worst_cases():
    assert ece([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]) == 0.0
    assert ece([0, 0, 1, 1], [0.0, 0.0, 1.0, 1.0]) == 0.0
    assert ece([1, 1, 0, 0], [0.0, 0.0, 1.0, 1.0]) == 1.0
    y, p = _data(3)
    assert ece(y, p, norm="l1") <= ece(y, p, norm="l2") <= ece(y, p, norm="max")


def test_pos_label():
    y, p = _data(2)
    labels = np.where(y == 1, "yes", "no")
    assert ece(labels, p, pos_label="yes") == ece(y, p)
    # The other class with 1 - p: uniform bins mirror (no p on an edge here).
    assert ece(labels, 1 - p, pos_label="no", n_bins=10) == pytest.approx(
        ece(y, p, n_bins=10), rel=1e-9
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_bins", [1, 2, 3, 7, 10, 97, 1000, 12345])
def test_bisection_bins_equal_materialized_edges(strategy, weighted, n_bins):
    # The path for n_bins >> n_samples must bin exactly like the edges do,
    # also for probabilities lying exactly on an edge.
    rng = np.random.default_rng(n_bins)
    p = np.concatenate(
        [rng.random(300), np.arange(n_bins + 1) / n_bins, [0.0, 1.0, 0.5]]
    )[:700]
    p = np.clip(np.concatenate([p, np.linspace(0, 1, n_bins + 1)[:200]]), 0, 1)
    w = rng.integers(1, 4, p.shape[0]).astype(float) if weighted else None
    np.testing.assert_array_equal(
        _bin_ids_by_bisection(p, w, n_bins, strategy),
        _bin_ids_from_edges(p, w, n_bins, strategy),
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_huge_n_bins_memory_bounded_by_samples(strategy):
    # n_bins=10**9 allocated per bin (edges and totals: several GiB).
    rng = np.random.default_rng(0)
    p = rng.random(2000)
    y = rng.random(2000) < p
    tracemalloc.start()
    try:
        got = ece(y, p, n_bins=10**9, strategy=strategy)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    # every sample alone in its bin: the mean |y - p|
    assert got == pytest.approx(np.mean(np.abs(y - p)), rel=1e-12)
    # just past the switch to bisection: the per-bin loop on the real edges
    n_bins = 2 * p.shape[0] + 1025
    q = np.linspace(0, 1, n_bins + 1)
    edges = q if strategy == "uniform" else np.quantile(p, q)
    assert ece(y, p, n_bins=n_bins, strategy=strategy, norm="l2") == pytest.approx(
        _loop_ece(y, p, edges)["l2"], rel=1e-12
    )
