"""Tests of the bootstrap bands of BayesErrorDisplay."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.special import expit  # noqa: E402

from skcalib.datasets import make_gaussian_scores  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    BayesErrorDisplay,
    actual_dcf,
    bootstrap_ci,
    min_dcf,
)

GRID = np.array([-2.0, -0.5, 0.0, 1.5])


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


#: miscalibrated LLRs: the true LLRs of Gaussian scores, scaled and shifted
_, Y, _TRUE_LLR = make_gaussian_scores(300, prior=0.4, random_state=0)
LLR = 1.3 * _TRUE_LLR + 0.4


def test_no_bands_by_default():
    y, llr = Y, LLR
    disp = BayesErrorDisplay.from_predictions(y, llr, prior_log_odds=GRID)
    assert disp.actual_dcf_band is None and disp.bands_ == []


def test_bands_are_the_bootstrap_intervals_of_each_point():
    # With groups every metric resamples the caller's rows with the same
    # seeds, so each band end is bootstrap_ci's interval at that prior.
    y, llr = Y, LLR
    groups = np.arange(y.shape[0]) % 40
    disp = BayesErrorDisplay.from_predictions(
        y,
        llr,
        prior_log_odds=GRID,
        confidence_level=0.9,
        n_resamples=60,
        groups=groups,
        random_state=3,
    )
    for j, plo in enumerate(GRID):
        common = {
            "p_target": float(expit(plo)),
            "groups": groups,
            "n_resamples": 60,
            "random_state": 3,
            "confidence_level": 0.9,
        }
        act = bootstrap_ci(actual_dcf, y, llr, **common).confidence_interval
        mini = bootstrap_ci(min_dcf, y, llr, **common).confidence_interval
        np.testing.assert_allclose(disp.actual_dcf_band[:, j], act, rtol=1e-10)
        np.testing.assert_allclose(disp.min_dcf_band[:, j], mini, rtol=1e-10)


def test_band_drawing_legend_and_error_rates():
    y, llr = Y, LLR
    disp = BayesErrorDisplay.from_predictions(
        y,
        llr,
        prior_log_odds=GRID,
        confidence_level=0.95,
        n_resamples=50,
        random_state=0,
        name="A",
    )
    assert len(disp.bands_) == 2
    assert (disp.actual_dcf_band[0] <= disp.actual_dcf_band[1]).all()
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert "A: actual DCF 95% interval" in texts
    assert "A: minimum DCF 95% interval" in texts
    raw = BayesErrorDisplay.from_predictions(
        y,
        llr,
        prior_log_odds=GRID,
        confidence_level=0.95,
        n_resamples=50,
        random_state=0,
        normalize=False,
    )
    pe = expit(GRID)
    np.testing.assert_allclose(
        raw.actual_dcf_band, disp.actual_dcf_band * np.minimum(pe, 1 - pe)
    )
    none = BayesErrorDisplay.from_predictions(
        y,
        llr,
        prior_log_odds=GRID,
        confidence_level=0.95,
        n_resamples=20,
        random_state=0,
        plot_min_dcf=False,
    )
    assert len(none.bands_) == 1


def test_bands_at_extreme_priors():
    # the normalized DCF of LLRs of +/-1000 at prior log-odds of +/-700 is
    # 1e300 (scipy's standard error overflowed when squaring it), or inf with
    # an LLR of -inf for a target (scipy formed inf - inf)
    y, llr = Y, LLR
    plo = np.linspace(-700, 700, 5)
    for x in (1000 * llr, np.r_[1000 * llr[:-1], -np.inf if y[-1] else np.inf]):
        disp = BayesErrorDisplay.from_predictions(
            y,
            x,
            prior_log_odds=plo,
            confidence_level=0.9,
            n_resamples=50,
            random_state=0,
        )
        for band in (disp.actual_dcf_band, disp.min_dcf_band):
            assert not np.isnan(band).any() and (band[0] <= band[1]).all()
        assert disp.actual_dcf_band[1, 0] > 1e250
