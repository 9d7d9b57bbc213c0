"""Tests of the binned calibration errors (skcalib.metrics._ece)."""

import tracemalloc

import numpy as np
import pytest
from _scores import make_scores
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve

from skcalib.metrics import classwise_calibration_error as classwise_ece
from skcalib.metrics import expected_calibration_error as ece
from skcalib.metrics import top_label_calibration_error as top_label_ece
from skcalib.metrics._ece import _bin_ids_by_bisection, _bin_ids_from_edges

#: probabilities ``p`` and labels of ``P(y=1) = p ** 1.5``: miscalibrated
MISCALIBRATED = {"kind": "probability", "power": 1.5}
#: softmax posteriors and labels drawn from tempered (``0.5`` times the
#: logits) ones: over-confident
OVERCONFIDENT = {"kind": "probability", "power": 0.5}


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
    p, y, _ = make_scores(500, seed=0, **MISCALIBRATED)
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
    p, y, _ = make_scores(300, seed=1, **MISCALIBRATED)
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
    p, y, _ = make_scores(500, seed=3, **MISCALIBRATED)
    assert ece(y, p, norm="l1") <= ece(y, p, norm="l2") <= ece(y, p, norm="max")


def test_pos_label():
    p, y, _ = make_scores(500, seed=2, **MISCALIBRATED)
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


# ------------------------------------------------------ multiclass: helpers
def _brute_binned(outcome, p, edges, w, norm):
    """The binned error by a loop over bins and samples (no numpy binning)."""
    gaps, weights = [], []
    for b in range(len(edges) - 1):
        lo, hi = edges[b], edges[b + 1]
        # calibration_curve's rule: interior edges belong to the lower bin
        members = [
            i
            for i in range(len(p))
            if (b == 0 or p[i] > lo) and (b == len(edges) - 2 or p[i] <= hi)
        ]
        total = sum(w[i] for i in members)
        if total > 0:
            acc = sum(w[i] * outcome[i] for i in members) / total
            conf = sum(w[i] * p[i] for i in members) / total
            gaps.append(abs(acc - conf))
            weights.append(total)
    weights = np.array(weights) / np.sum(weights)
    gaps = np.array(gaps)
    return {
        "l1": float(np.dot(weights, gaps)),
        "l2": float(np.sqrt(np.dot(weights, gaps**2))),
        "max": float(gaps.max()),
    }[norm]


def _brute_top_label(y, q, n_bins, w=None, norm="l1"):
    w = np.ones(len(y)) if w is None else w
    top = [int(np.argmax(row)) for row in q]
    conf = [float(q[i][top[i]]) for i in range(len(y))]
    correct = [float(top[i] == y[i]) for i in range(len(y))]
    edges = np.linspace(0.0, 1.0, n_bins + 1)  # calibration_curve's edges
    return _brute_binned(correct, conf, edges, w, norm)


def _brute_classwise(y, q, n_bins, w=None, norm="l1"):
    w = np.ones(len(y)) if w is None else w
    edges = np.linspace(0.0, 1.0, n_bins + 1)  # calibration_curve's edges
    per_class = [
        _brute_binned(
            [float(y[i] == k) for i in range(len(y))], q[:, k], edges, w, norm
        )
        for k in range(q.shape[1])
    ]
    if norm == "l1":
        return float(np.mean(per_class))
    if norm == "l2":
        return float(np.sqrt(np.mean(np.square(per_class))))
    return float(np.max(per_class))


# ------------------------------------------------------- multiclass: errors
@pytest.mark.parametrize("func", [top_label_ece, classwise_ece])
def test_multiclass_errors(func):
    q = [[0.2, 0.8], [0.6, 0.4]]
    with pytest.raises(ValueError, match="2-D"):
        func([0, 1], [0.2, 0.6])
    with pytest.raises(ValueError, match="sum to 1"):
        func([0, 1], [[0.2, 0.7], [0.6, 0.4]])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        func([0, 1], [[-0.2, 1.2], [0.6, 0.4]])
    with pytest.raises(ValueError, match="finite"):
        func([0, 1], [[np.nan, 0.8], [0.6, 0.4]])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        func([0, 1, 1], q)
    with pytest.raises(ValueError, match="y_true"):
        func([0, 2], q)  # not a column index
    with pytest.raises(ValueError, match="not in `labels`"):
        func(["a", "c"], q, labels=["a", "b"])
    with pytest.raises(ValueError, match="labels"):
        func([0, 1], q, labels=["a", "b", "c"])
    with pytest.raises(ValueError, match="`y_true` is empty"):
        func([], np.empty((0, 2)))
    with pytest.raises(ValueError, match="[Nn]egative"):
        func([0, 1], q, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="non-zero"):
        func([0, 1], q, sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="n_bins"):
        func([0, 1], q, n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        func([0, 1], q, strategy="kmeans")
    with pytest.raises(ValueError, match="norm"):
        func([0, 1], q, norm="l3")


# -------------------------------------------------- multiclass: correctness
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
@pytest.mark.parametrize("weighted", [False, True])
def test_top_label_equals_brute_force(norm, weighted):
    q, y, _ = make_scores(300, seed=0, n_classes=4, **OVERCONFIDENT)
    q = np.round(q, 2)  # confidences on bin edges
    q /= q.sum(axis=1, keepdims=True)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    w = w if weighted else None
    got = top_label_ece(y, q, n_bins=10, norm=norm, sample_weight=w)
    assert got == pytest.approx(_brute_top_label(y, q, 10, w, norm), rel=1e-12)


@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
@pytest.mark.parametrize("weighted", [False, True])
def test_classwise_equals_brute_force(norm, weighted):
    q, y, _ = make_scores(300, seed=1, n_classes=3, **OVERCONFIDENT)
    w = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    w = w if weighted else None
    got = classwise_ece(y, q, n_bins=8, norm=norm, sample_weight=w)
    assert got == pytest.approx(_brute_classwise(y, q, 8, w, norm), rel=1e-12)


def test_top_label_is_binary_ece_of_confidence_and_correctness():
    q, y, _ = make_scores(400, seed=2, n_classes=4, **OVERCONFIDENT)
    top = q.argmax(axis=1)
    for strategy in ("uniform", "quantile"):
        ref = ece(top == y, q.max(axis=1), n_bins=12, strategy=strategy)
        got = top_label_ece(y, q, n_bins=12, strategy=strategy)
        assert got == pytest.approx(ref, rel=1e-12)


def test_multiclass_ece_recorded_netcal_values():
    # netcal 1.4.0 on this data: ECE(bins=10).measure(q, y) (top-label:
    # np.argmax, equal-width bins) and the mean over classes k of
    # ECE(bins=10).measure(q[:, k], y == k); recorded so that the suite does
    # not need netcal (the next test compares live when it is installed).
    q, y, _ = make_scores(200, seed=3, n_classes=3, **OVERCONFIDENT)
    assert top_label_ece(y, q, n_bins=10) == pytest.approx(0.19074186503373716)
    assert classwise_ece(y, q, n_bins=10) == pytest.approx(0.12676736549841297)


def test_multiclass_ece_matches_netcal_when_installed():
    metrics = pytest.importorskip("netcal.metrics")
    q, y, _ = make_scores(500, seed=6, n_classes=4, **OVERCONFIDENT)
    assert top_label_ece(y, q, n_bins=10) == pytest.approx(
        float(metrics.ECE(bins=10).measure(q, y)), rel=1e-12
    )
    per_class = [
        float(metrics.ECE(bins=10).measure(q[:, k], (y == k).astype(int)))
        for k in range(4)
    ]
    assert classwise_ece(y, q, n_bins=10) == pytest.approx(
        np.mean(per_class), rel=1e-12
    )


def test_labels_and_two_classes():
    q, y, _ = make_scores(400, seed=4, n_classes=3, **OVERCONFIDENT)
    names = np.array(["cat", "dog", "emu"])
    for func in (top_label_ece, classwise_ece):
        assert func(names[y], q, labels=names) == func(y, q)
        # columns permuted together with the labels
        perm = [2, 0, 1]
        assert func(names[y], q[:, perm], labels=names[perm]) == pytest.approx(
            func(y, q), rel=1e-12
        )
    # two classes: classwise = the binary ECE of either column
    rng = np.random.default_rng(4)
    p = rng.random(300)
    y2 = (rng.random(300) < p**2).astype(int)
    q2 = np.column_stack([1 - p, p])
    assert classwise_ece(y2, q2, n_bins=10) == pytest.approx(
        ece(y2, p, n_bins=10), rel=1e-9
    )


def test_perfect_and_all_correct():
    # all predictions right with certainty: no error (a single class of
    # outcome, which the binary ECE of correctness alone would refuse)
    y = np.array([0, 1, 2, 1])
    assert top_label_ece(y, np.eye(3)[y]) == 0.0
    assert classwise_ece(y, np.eye(3)[y]) == 0.0
    # certain and always wrong: the worst
    assert top_label_ece(y, np.eye(3)[(y + 1) % 3]) == 1.0
    # the class proportions for everyone: calibrated (and useless)
    q = np.tile([0.25, 0.5, 0.25], (4, 1))
    assert classwise_ece(y, q) == 0.0


def test_multiclass_integer_weights_equal_repeated_rows():
    q, y, _ = make_scores(150, seed=5, n_classes=3, **OVERCONFIDENT)
    wi = np.random.default_rng(5).integers(0, 4, len(y))  # zeros drop rows
    for func in (top_label_ece, classwise_ece):
        got = func(y, q, n_bins=7, sample_weight=wi)
        ref = func(np.repeat(y, wi), np.repeat(q, wi, axis=0), n_bins=7)
        assert got == pytest.approx(ref, rel=1e-12)


# --------------------------------------------------- multiclass: properties
@settings(derandomize=True, database=None, deadline=None, max_examples=60)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 60),
    k=st.integers(2, 5),
    n_bins=st.integers(1, 20),
    norm=st.sampled_from(["l1", "l2", "max"]),
)
def test_multiclass_ece_properties(seed, n, k, n_bins, norm):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(k) * 0.5, n)
    y = rng.integers(0, k, n)
    top = top_label_ece(y, q, n_bins=n_bins, norm=norm)
    cw = classwise_ece(y, q, n_bins=n_bins, norm=norm)
    assert 0.0 <= top <= 1.0 and 0.0 <= cw <= 1.0
    assert top == pytest.approx(_brute_top_label(y, q, n_bins, norm=norm), abs=1e-12)
    assert cw == pytest.approx(_brute_classwise(y, q, n_bins, norm=norm), abs=1e-12)
    # the norms are ordered as the power means of the same gaps
    if norm == "l1":
        assert top <= top_label_ece(y, q, n_bins=n_bins, norm="l2") + 1e-12
    # shuffling the samples changes nothing
    perm = rng.permutation(n)
    assert top_label_ece(y[perm], q[perm], n_bins=n_bins, norm=norm) == pytest.approx(
        top, abs=1e-12
    )
