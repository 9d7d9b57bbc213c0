"""Tests of bayes_decisions and empirical_bayes_risk (Cumani, 004)."""

import numpy as np
import pytest
from scipy.special import expit, logit

from skcalib.metrics import actual_dcf, bayes_decisions, empirical_bayes_risk

COST = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
PRIORS = [0.3, 0.4, 0.3]
CONFUSION = np.array([[205, 111, 56], [145, 199, 121], [50, 92, 225]])


def _from_confusion(m):
    a, c = np.indices(m.shape)
    return np.repeat(c.ravel(), m.ravel()), np.repeat(a.ravel(), m.ravel())


# ------------------------------------------------------------------- errors
def test_errors():
    y_true, y_pred = _from_confusion(CONFUSION)
    with pytest.raises(ValueError, match="priors"):
        empirical_bayes_risk(y_true, y_pred, COST, [0.3, 0.3, 0.3])
    with pytest.raises(ValueError, match="priors"):
        empirical_bayes_risk(y_true, y_pred, COST, [1.2, -0.2, 0.0])
    with pytest.raises(ValueError, match="cost_matrix"):
        empirical_bayes_risk(y_true, y_pred, COST[:2], PRIORS)
    with pytest.raises(ValueError, match="cost_matrix"):
        empirical_bayes_risk(y_true, y_pred, np.eye(2), PRIORS)
    with pytest.raises(ValueError, match="y_pred"):
        empirical_bayes_risk(y_true, y_pred + 1, COST, PRIORS)
    with pytest.raises(ValueError, match="y_true"):
        empirical_bayes_risk(["a", "b"], [0, 1], np.eye(2), [0.5, 0.5])
    with pytest.raises(ValueError, match="class 2"):
        empirical_bayes_risk([0, 1], [0, 1], COST, PRIORS)
    with pytest.raises(ValueError, match="not in `labels`"):
        empirical_bayes_risk(
            ["a", "c"], ["a", "b"], np.eye(2), [0.5, 0.5], labels=["a", "b"]
        )
    with pytest.raises(ValueError, match="normalize"):
        empirical_bayes_risk(
            [0, 1], [0, 1], np.zeros((2, 2)), [0.5, 0.5], normalize=True
        )
    with pytest.raises(ValueError, match="posteriors"):
        bayes_decisions([[np.nan, 0.5, 0.5]], COST)
    with pytest.raises(ValueError, match="posteriors"):
        bayes_decisions([[-1.0, -0.5, -2.0]], COST)  # log-probabilities
    with pytest.raises(ValueError, match="cost_matrix"):
        bayes_decisions([[0.5, 0.5]], COST)


# --------------------------------------------------------------- correctness
def test_cumani_worked_example():
    y_true, y_pred = _from_confusion(CONFUSION)
    risk = empirical_bayes_risk(y_true, y_pred, COST, PRIORS)
    assert round(risk, 5) == 0.55962
    per_class = np.array([0.3 / 400 * 245, 0.4 / 402 * 203, 0.3 / 402 * 233])
    assert risk == pytest.approx(per_class.sum(), rel=1e-14)
    # Normalized by the best dummy system (always class 1: 0.3 + 0.3 = 0.6).
    assert empirical_bayes_risk(
        y_true, y_pred, COST, PRIORS, normalize=True
    ) == pytest.approx(risk / 0.6)


def test_cumani_decision_example():
    d, costs = bayes_decisions([0.40, 0.25, 0.35], COST, return_costs=True)
    np.testing.assert_allclose(costs, [0.95, 0.75, 1.05])
    assert d == 1  # the second class ("decision 2" in 1-based numbering)
    d2 = bayes_decisions([[0.40, 0.25, 0.35], [0.9, 0.05, 0.05]], COST)
    np.testing.assert_array_equal(d2, [1, 0])


def test_decisions_brute_force():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=50)
    cost = rng.random((4, 4))
    ref = [
        np.argmin([sum(cost[a, c] * row[c] for c in range(4)) for a in range(4)])
        for row in p
    ]
    np.testing.assert_array_equal(bayes_decisions(p, cost), ref)


def test_labels_and_weights():
    y_true, y_pred = _from_confusion(CONFUSION)
    names = np.array(["cat", "dog", "emu"])
    risk = empirical_bayes_risk(
        names[y_true], names[y_pred], COST, PRIORS, labels=["cat", "dog", "emu"]
    )
    assert risk == pytest.approx(empirical_bayes_risk(y_true, y_pred, COST, PRIORS))
    # Labels in a non-sorted order permute the classes.
    perm = [2, 0, 1]
    risk_p = empirical_bayes_risk(
        names[y_true],
        names[y_pred],
        COST[np.ix_(perm, perm)],
        np.array(PRIORS)[perm],
        labels=names[perm],
    )
    assert risk_p == pytest.approx(risk)
    # Weights equal repeated rows; a class with prior 0 may be absent.
    w = np.arange(len(y_true)) % 3
    assert empirical_bayes_risk(y_true, y_pred, COST, PRIORS, sample_weight=w) == (
        pytest.approx(
            empirical_bayes_risk(
                np.repeat(y_true, w), np.repeat(y_pred, w), COST, PRIORS
            )
        )
    )
    keep = y_true < 2
    r = empirical_bayes_risk(y_true[keep], y_pred[keep], COST, [0.5, 0.5, 0.0])
    assert r == pytest.approx(0.5 * 245 / 400 + 0.5 * 203 / 402)


@pytest.mark.parametrize("p, cm, cf", [(0.5, 1, 1), (0.1, 1, 1), (0.3, 4, 1)])
def test_binary_case_equals_actual_dcf(p, cm, cf):
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.4).astype(int)
    llr = 2 * rng.normal(size=300) + 2 * y - 1
    pe = p * cm / (p * cm + (1 - p) * cf)
    # classes (non, tar); cost[a, c]: deciding tar on a non costs c_fa.
    cost = np.array([[0.0, cm], [cf, 0.0]])
    post = expit(llr + logit(p))
    decisions = bayes_decisions(np.column_stack([1 - post, post]), cost)
    np.testing.assert_array_equal(decisions, (llr >= -logit(pe)).astype(int))
    risk = empirical_bayes_risk(y, decisions, cost, [1 - p, p], normalize=True)
    assert risk == pytest.approx(
        actual_dcf(y, llr, p_target=p, c_miss=cm, c_fa=cf), rel=1e-12
    )


# ------------------------------------------- risk of posteriors' decisions
def test_risk_of_posteriors_is_risk_of_their_bayes_decisions():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=300)
    post = rng.dirichlet([1.0, 1.0, 1.0], size=300) + np.eye(3)[y]
    post /= post.sum(axis=1, keepdims=True)
    w = rng.uniform(0.1, 2.0, size=300)
    decisions = bayes_decisions(post, COST)
    for normalize in (False, True):
        assert empirical_bayes_risk(
            y, post, COST, PRIORS, normalize=normalize, sample_weight=w
        ) == empirical_bayes_risk(
            y, decisions, COST, PRIORS, normalize=normalize, sample_weight=w
        )
    # brute force, with string labels
    names = np.array(["a", "b", "c"])
    pi = np.array(PRIORS)
    ref = sum(
        pi[c] * np.sum(w[y == c] * COST[decisions[y == c], c]) / np.sum(w[y == c])
        for c in range(3)
    )
    got = empirical_bayes_risk(
        names[y], post, COST, PRIORS, labels=names, sample_weight=w
    )
    assert got == pytest.approx(ref, rel=1e-12)


def test_default_priors_are_the_class_proportions():
    y_true, y_pred = _from_confusion(CONFUSION)
    # plain average cost of the decisions
    ref = np.mean(COST[y_pred, y_true])
    assert empirical_bayes_risk(y_true, y_pred, COST) == pytest.approx(ref, rel=1e-12)
    pi = CONFUSION.sum(axis=0) / CONFUSION.sum()
    assert empirical_bayes_risk(y_true, y_pred, COST, normalize=True) == pytest.approx(
        ref / np.min(COST @ pi), rel=1e-12
    )
