"""Tests of the multiclass Cllr and Brier loss (skcalib.metrics._multiclass)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit, logit
from sklearn.metrics import brier_score_loss, log_loss

from skcalib.metrics import (
    brier_loss,
    cllr,
    multiclass_brier_loss,
    multiclass_cllr,
)

METRICS = [multiclass_cllr, multiclass_brier_loss]


def _posteriors(n=400, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    logits = rng.normal(size=(n, k)) + 2.0 * np.eye(k)[y]
    q = np.exp(logits - logits.max(axis=1, keepdims=True))
    return y, q / q.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------- errors
@pytest.mark.parametrize("metric", METRICS)
def test_errors(metric):
    y, q = _posteriors(n=20, k=3)
    with pytest.raises(ValueError, match="y_prob"):
        metric(y, q[:, 0])
    with pytest.raises(ValueError, match="sum to 1"):
        metric(y, q * 0.9)
    with pytest.raises(ValueError, match="y_prob"):
        metric(y, np.where(q > 0.5, np.nan, q))
    with pytest.raises(ValueError, match="p_classes"):
        metric(y, q, p_classes=[0.5, 0.6, -0.1])
    with pytest.raises(ValueError, match="p_classes"):
        metric(y, q, p_classes=[0.5, 0.5])
    with pytest.raises(ValueError, match="y_true"):
        metric(y + 1, q)  # index 3 for 3 columns
    with pytest.raises(ValueError, match="not in `labels`"):
        metric(np.array(["a", "b", "z"])[y], q, labels=["a", "b", "c"])
    with pytest.raises(ValueError, match="labels"):
        metric(y, q, labels=["a", "a", "b"])
    with pytest.raises(ValueError, match="no samples"):
        metric(np.minimum(y, 1), q, p_classes=[0.3, 0.3, 0.4])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        metric(y[:-1], q)
    with pytest.raises(ValueError, match="Cannot normalize"):
        metric(np.zeros(20, dtype=int), q)  # one class: nothing to predict


# -------------------------------------------------------------- correctness
def test_cllr_is_normalized_log_loss_in_bits():
    y, q = _posteriors()
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=y.shape[0])
    counts = np.bincount(y, weights=w)
    pi = counts / counts.sum()
    entropy_nats = -np.sum(pi * np.log(pi))
    ref = log_loss(y, q, sample_weight=w) / entropy_nats
    assert multiclass_cllr(y, q, sample_weight=w) == pytest.approx(ref, rel=1e-12)
    raw = multiclass_cllr(y, q, sample_weight=w, normalize=False)
    assert raw == pytest.approx(log_loss(y, q, sample_weight=w) / np.log(2), rel=1e-12)


def test_prior_weighting_brute_force():
    y, q = _posteriors(n=200, k=3, seed=2)
    pi = np.array([0.6, 0.3, 0.1])
    xe = -sum(pi[c] * np.mean(np.log2(q[y == c, c])) for c in range(3))
    h = -np.sum(pi * np.log2(pi))
    assert multiclass_cllr(y, q, p_classes=pi) == pytest.approx(xe / h, rel=1e-12)
    onehot = np.eye(3)[y]
    b = sum(
        pi[c] * np.mean(np.sum((q[y == c] - onehot[y == c]) ** 2, axis=1))
        for c in range(3)
    )
    got = multiclass_brier_loss(y, q, p_classes=pi, normalize=False)
    assert got == pytest.approx(b, rel=1e-12)
    got = multiclass_brier_loss(y, q, p_classes=pi)
    assert got == pytest.approx(b / (1 - np.sum(pi**2)), rel=1e-12)


def test_brier_equals_scikit_learn():
    y, q = _posteriors(k=5, seed=3)
    w = np.random.default_rng(4).integers(0, 4, size=y.shape[0]).astype(float)
    ref = brier_score_loss(y, q, sample_weight=w, labels=np.arange(5))
    got = multiclass_brier_loss(y, q, sample_weight=w, normalize=False)
    assert got == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("p_target", [0.5, 0.2, 0.9])
def test_two_classes_equal_the_binary_metrics(p_target):
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.3).astype(int)
    llr = 2.0 * rng.normal(size=300) + 1.5 * (2 * y - 1)
    q1 = expit(llr + logit(p_target))  # posterior at the application prior
    q = np.column_stack([1 - q1, q1])
    pi = [1 - p_target, p_target]
    assert multiclass_cllr(y, q, p_classes=pi) == pytest.approx(
        cllr(y, llr, p_target=p_target), rel=1e-9
    )
    assert multiclass_brier_loss(y, q, p_classes=pi) == pytest.approx(
        brier_loss(y, llr, p_target=p_target), rel=1e-9
    )


@pytest.mark.parametrize("metric", METRICS)
def test_uninformative_system_scores_one(metric):
    y, _ = _posteriors(n=300, k=4, seed=6)
    pi = np.array([0.1, 0.2, 0.3, 0.4])
    assert metric(y, np.tile(pi, (300, 1)), p_classes=pi) == pytest.approx(1.0)
    counts = np.bincount(y) / 300
    assert metric(y, np.tile(counts, (300, 1))) == pytest.approx(1.0)


@pytest.mark.parametrize("metric", METRICS)
def test_perfect_system_scores_zero(metric):
    y, _ = _posteriors(n=50, k=3)
    assert metric(y, np.eye(3)[y]) == 0.0


def test_labels_weights_and_zero_weights():
    y, q = _posteriors(n=120, k=3, seed=7)
    names = np.array(["cat", "dog", "emu"])
    for metric in METRICS:
        assert metric(names[y], q, labels=names) == metric(y, q)
        # labels in another order: the columns follow them
        order = [2, 0, 1]
        assert metric(names[y], q[:, order], labels=names[order]) == pytest.approx(
            metric(y, q)
        )
    # a zero-weight sample that is certain and wrong is ignored (no 0 * inf)
    q2 = np.vstack([q, [1.0, 0.0, 0.0]])
    y2 = np.append(y, 2)
    w2 = np.append(np.ones(120), 0.0)
    assert multiclass_cllr(y2, q2, sample_weight=w2) == pytest.approx(
        multiclass_cllr(y, q)
    )
    assert multiclass_cllr(y2, q2) == np.inf
    # integer weights equal repeated rows
    w = np.random.default_rng(8).integers(1, 4, size=120)
    for metric in METRICS:
        assert metric(y, q, sample_weight=w) == pytest.approx(
            metric(np.repeat(y, w), np.repeat(q, w, axis=0))
        )


def test_class_with_zero_prior_may_be_absent():
    y, q = _posteriors(n=90, k=3, seed=9)
    keep = y != 2
    got = multiclass_cllr(y[keep], q[keep], p_classes=[0.5, 0.5, 0.0])
    xe = -0.5 * sum(np.mean(np.log2(q[keep][y[keep] == c, c])) for c in (0, 1))
    assert_allclose(got, xe / 1.0)  # entropy of (1/2, 1/2) is 1 bit


MIXED = np.array([0, "a", 2.5], dtype=object)


@pytest.mark.parametrize(
    "metric", [multiclass_cllr, multiclass_brier_loss, "empirical_bayes_risk"]
)
def test_mixed_type_labels_are_a_value_error(metric):
    # np.unique / np.argsort of (0, 'a', 2.5) raised an internal TypeError
    p = np.full((3, 3), 1 / 3)
    if metric == "empirical_bayes_risk":
        from skcalib.metrics import empirical_bayes_risk

        def metric(y, p, labels):
            return empirical_bayes_risk(y, p, 1 - np.eye(3), labels=labels)

    with pytest.raises(ValueError, match="`labels` mixes label types"):
        metric(MIXED, p, labels=MIXED)


@pytest.mark.parametrize("metric", [multiclass_cllr, multiclass_brier_loss])
def test_perfect_posteriors_and_empty_input(metric):
    value = metric([0, 1, 2], np.eye(3))
    assert value == 0.0 and not np.signbit(value)  # was -0.0 for Cllr
    with pytest.raises(ValueError, match="`y_true` is empty"):
        metric([], np.zeros((0, 3)))


def test_empirical_bayes_risk_of_empty_input():
    from skcalib.metrics import empirical_bayes_risk

    with pytest.raises(ValueError, match="`y_true` is empty"):
        empirical_bayes_risk([], np.zeros((0, 3)), 1 - np.eye(3))


@pytest.mark.parametrize("metric", [multiclass_cllr, multiclass_brier_loss])
def test_missing_column_is_named_as_a_shape_problem(metric):
    # 2 columns for 3 classes blamed the row sums
    y = np.array([0, 1, 2, 1, 0])
    p = np.tile([0.5, 0.3, 0.2], (5, 1))
    with pytest.raises(
        ValueError, match="has 2 columns, but `y_true` holds class index 2"
    ):
        metric(y, p[:, :2])
    with pytest.raises(ValueError, match="2 columns for the 3 classes of `labels`"):
        metric(y, p[:, :2], labels=[0, 1, 2])
