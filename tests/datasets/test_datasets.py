"""Tests of skcalib.datasets."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from skcalib.datasets import make_gaussian_scores, make_waveform
from skcalib.datasets._samples_generator import _base_waves, _log_ndtr_diff

# --- errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 1}, "n_samples"),
        ({"n_samples": 2.5}, "n_samples"),
        ({"prior": 0.0}, "prior"),
        ({"prior": 1.5}, "prior"),
        ({"target_std": 0.0}, "target_std"),
        ({"nontarget_std": -1.0}, "nontarget_std"),
        ({"target_mean": np.inf}, "target_mean"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_make_gaussian_scores_invalid(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_gaussian_scores(**kwargs)


def test_make_gaussian_scores_one_class_is_error():
    with pytest.raises(ValueError, match="no target samples"):
        make_gaussian_scores(10, prior=0.01)
    with pytest.raises(ValueError, match="no non-target samples"):
        make_gaussian_scores(10, prior=0.99)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_samples": 0}, "n_samples"),
        ({"noise": 0.0}, "noise"),
        ({"return_llr": "yes"}, "return_llr"),
    ],
)
def test_make_waveform_invalid(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_waveform(**kwargs)


# --- make_gaussian_scores ---------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"target_mean": 1.0, "target_std": 2.0, "nontarget_std": 0.5},
        {"target_mean": -3.0, "nontarget_mean": 4.0, "prior": 0.1},
    ],
)
def test_gaussian_llr_is_exact(params):
    s, y, llr = make_gaussian_scores(500, random_state=1, **params)
    mt, st = params.get("target_mean", 2.0), params.get("target_std", 1.0)
    mn, sn = params.get("nontarget_mean", 0.0), params.get("nontarget_std", 1.0)
    expected = stats.norm.logpdf(s, mt, st) - stats.norm.logpdf(s, mn, sn)
    np.testing.assert_allclose(llr, expected, rtol=1e-10, atol=1e-10)
    assert s.dtype == np.float64 and llr.dtype == np.float64
    assert y.dtype.kind == "i"
    assert int(y.sum()) == round(params.get("prior", 0.5) * 500)


def test_gaussian_class_conditional_moments():
    s, y, _ = make_gaussian_scores(
        20000, target_mean=1.5, target_std=2.0, nontarget_mean=-1.0, random_state=0
    )
    assert abs(s[y == 1].mean() - 1.5) < 0.1
    assert abs(s[y == 1].std() - 2.0) < 0.1
    assert abs(s[y == 0].mean() + 1.0) < 0.05
    assert abs(s[y == 0].std() - 1.0) < 0.05
    # two-sample KS against the stated distributions
    assert stats.kstest(s[y == 1], stats.norm(1.5, 2.0).cdf).pvalue > 1e-3
    assert stats.kstest(s[y == 0], stats.norm(-1.0, 1.0).cdf).pvalue > 1e-3


def test_gaussian_reproducible_and_shuffle():
    a = make_gaussian_scores(50, random_state=3)
    b = make_gaussian_scores(50, random_state=np.random.RandomState(3))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    _, y, _ = make_gaussian_scores(50, shuffle=False, random_state=3)
    assert y[:25].all() and not y[25:].any()
    _, y, _ = make_gaussian_scores(50, random_state=3)
    assert not (y[:25].all() and not y[25:].any())


def test_gaussian_true_llr_is_calibrated():
    # For a true LLR the posterior sigmoid(llr + logit(prior)) is calibrated:
    # the mean posterior in each bin matches the target fraction.
    prior = 0.3
    s, y, llr = make_gaussian_scores(40000, prior=prior, target_std=1.5, random_state=0)
    q = expit(llr + np.log(prior / (1 - prior)))
    bins = np.digitize(q, np.linspace(0, 1, 6)[1:-1])
    for b in range(5):
        m = bins == b
        assert abs(q[m].mean() - y[m].mean()) < 0.03


# --- make_waveform ----------------------------------------------------------


def test_base_waves_definition():
    h = _base_waves()
    assert h.shape == (3, 21)
    # triangles of height 6 peaking at features 7, 15 and 11 (1-based)
    assert np.argmax(h, axis=1).tolist() == [6, 14, 10]
    np.testing.assert_array_equal(h.max(axis=1), [6, 6, 6])
    np.testing.assert_array_equal(h[0, :13], [0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1, 0])
    assert (h[0, 13:] == 0).all()
    assert np.count_nonzero(h, axis=1).tolist() == [11, 11, 11]


def test_waveform_shapes_and_labels():
    X, y = make_waveform(101, random_state=0)
    assert X.shape == (101, 21) and X.dtype == np.float64
    assert sorted(np.unique(y).tolist()) == [0, 1]
    assert int((y == 0).sum()) == 50 and int((y == 1).sum()) == 51


def test_waveform_class_means_follow_definition():
    # E[x | class 0] = (h1 + h2) / 2, E[x | class 1] = (h1 + h3) / 2
    X, y = make_waveform(20000, random_state=0)
    h1, h2, h3 = _base_waves()
    np.testing.assert_allclose(X[y == 0].mean(0), (h1 + h2) / 2, atol=0.08)
    np.testing.assert_allclose(X[y == 1].mean(0), (h1 + h3) / 2, atol=0.08)
    # residual after removing the wave mixture is N(0, noise^2) per feature:
    # the variance of x_m is noise^2 + Var(u) (h1 - h_b)^2, Var(u) = 1/12.
    var0 = 1.0 + (h1 - h2) ** 2 / 12
    np.testing.assert_allclose(X[y == 0].var(0), var0, rtol=0.08)


def test_waveform_noise_scales():
    X, y = make_waveform(5000, noise=0.1, shuffle=False, random_state=0)
    h1, h2, _ = _base_waves()
    # class 0 rows lie close to the segment between h2 and h1
    r = X[y == 0] - h2
    d = h1 - h2
    u = np.clip(r @ d / (d @ d), 0, 1)
    resid = r - u[:, None] * d
    assert abs(resid.std() - 0.1) < 0.01


def _llr_by_quadrature(x, noise):
    h1, h2, h3 = _base_waves()

    def lik(hb):
        def f(u):
            mean = u * h1 + (1 - u) * hb
            return np.exp(-np.sum((x - mean) ** 2) / (2 * noise**2))

        return integrate.quad(f, 0, 1, epsabs=0, epsrel=1e-12, limit=200)[0]

    return np.log(lik(h3)) - np.log(lik(h2))


@pytest.mark.parametrize("noise", [1.0, 0.7])
def test_waveform_llr_matches_quadrature(noise):
    X, y, llr = make_waveform(12, noise=noise, return_llr=True, random_state=2)
    expected = [_llr_by_quadrature(x, noise) for x in X]
    np.testing.assert_allclose(llr, expected, rtol=1e-7, atol=1e-7)


def test_waveform_llr_is_bayes_optimal_and_calibrated():
    X, y, llr = make_waveform(20000, return_llr=True, random_state=1)
    q = expit(llr)  # equal class proportions
    bins = np.digitize(q, np.linspace(0, 1, 6)[1:-1])
    for b in range(5):
        m = bins == b
        assert abs(q[m].mean() - y[m].mean()) < 0.03
    # the Bayes decision beats a linear classifier trained on the data
    from sklearn.linear_model import LogisticRegression

    lr = LogisticRegression().fit(X[:10000], y[:10000])
    err_lr = np.mean(lr.predict(X[10000:]) != y[10000:])
    err_bayes = np.mean((llr[10000:] > 0) != y[10000:])
    assert err_bayes <= err_lr + 0.005
    assert 0.04 < err_bayes < 0.12


def test_log_ndtr_diff_tails():
    a = np.array([0.5, 40.0, -38.0, 10.0])
    b = np.array([-0.5, 39.0, -40.0, -10.0])
    got = _log_ndtr_diff(a, b)
    # mpmath-free reference: log(sf(b) - sf(a)) via logsf in the upper tail
    ref = np.array(
        [
            np.log(stats.norm.cdf(0.5) - stats.norm.cdf(-0.5)),
            stats.norm.logsf(39.0)
            + np.log1p(-np.exp(stats.norm.logsf(40.0) - stats.norm.logsf(39.0))),
            stats.norm.logcdf(-38.0)
            + np.log1p(-np.exp(stats.norm.logcdf(-40.0) - stats.norm.logcdf(-38.0))),
            np.log(stats.norm.cdf(10.0) - stats.norm.cdf(-10.0)),
        ]
    )
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-14)


def test_waveform_reproducible():
    a = make_waveform(30, return_llr=True, random_state=5)
    b = make_waveform(30, return_llr=True, random_state=5)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


# --- properties ---------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(derandomize=True, database=None, deadline=None, max_examples=30)
@given(
    st.floats(-5, 5),
    st.floats(0.2, 5),
    st.floats(-5, 5),
    st.floats(0.2, 5),
    st.floats(0.05, 0.95),
)
def test_gaussian_llr_property(mt, st_, mn, sn, prior):
    s, y, llr = make_gaussian_scores(
        40,
        prior=prior,
        target_mean=mt,
        target_std=st_,
        nontarget_mean=mn,
        nontarget_std=sn,
        random_state=0,
    )
    expected = stats.norm.logpdf(s, mt, st_) - stats.norm.logpdf(s, mn, sn)
    np.testing.assert_allclose(llr, expected, rtol=1e-9, atol=1e-9)
    assert int(y.sum()) == round(prior * 40)


@settings(derandomize=True, database=None, deadline=None, max_examples=10)
@given(st.floats(0.3, 3.0), st.integers(0, 2**31 - 1))
def test_waveform_llr_property(noise, seed):
    X, y, llr = make_waveform(3, noise=noise, return_llr=True, random_state=seed)
    assert np.isfinite(llr).all()
    expected = [_llr_by_quadrature(x, noise) for x in X]
    np.testing.assert_allclose(llr, expected, rtol=1e-6, atol=1e-6)
