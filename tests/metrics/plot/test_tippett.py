"""Tests of TippettDisplay."""

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from skcalib import PAVLLRCalibrator  # noqa: E402
from skcalib.datasets import make_gaussian_scores  # noqa: E402
from skcalib.metrics import TippettDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_needs_both_classes():
    with pytest.raises(ValueError, match="no non-target samples"):
        TippettDisplay.from_predictions([1, 1, 1], [0.0, 1.0, 2.0])


def test_nan_is_an_error():
    with pytest.raises(ValueError, match="llr"):
        TippettDisplay.from_predictions([0, 1], [0.0, np.nan])


@pytest.mark.parametrize("weighted", [False, True])
def test_proportions_brute_force(weighted):
    s, y, llr = make_gaussian_scores(300, random_state=0)
    llr = np.round(llr, 1)  # ties
    llr[:3] = [np.inf, -np.inf, 0.0]
    w = np.random.default_rng(0).uniform(0, 2, y.shape[0]) if weighted else None
    disp = TippettDisplay.from_predictions(y, llr, sample_weight=w)
    ww = np.ones_like(llr) if w is None else w
    for cls, xs, ps in (
        (1, disp.target_llr, disp.target_proportion),
        (0, disp.nontarget_llr, disp.nontarget_proportion),
    ):
        m = (y == cls) & (ww > 0)
        for v, p in zip(xs, ps, strict=True):
            assert p == pytest.approx(ww[m & (llr >= v)].sum() / ww[m].sum())
    tar, non = (y == 1), (y == 0)
    assert disp.misleading_target == pytest.approx(
        ww[tar & (llr < 0)].sum() / ww[tar].sum()
    )
    assert disp.misleading_nontarget == pytest.approx(
        ww[non & (llr > 0)].sum() / ww[non].sum()
    )


def test_legend_axes_and_log10():
    s, y, llr = make_gaussian_scores(300, random_state=0)
    a = TippettDisplay.from_predictions(y, llr, name="A")
    b = TippettDisplay.from_predictions(y, 2 * llr, name="B", ax=a.ax_)
    texts = [t.get_text() for t in a.ax_.get_legend().get_texts()]
    assert f"A: targets ({a.misleading_target:.1%} with LLR < 0)" in texts
    assert any(t.startswith("B: non-targets") for t in texts)
    assert a.ax_.get_xlabel() == "x: LLR (natural log)"
    assert a.ax_.get_title() == "Tippett plot"
    assert b.line_.get_xdata().max() <= a.ax_.get_xlim()[1]
    c = TippettDisplay.from_predictions(y, llr, log10=True)
    assert c.ax_.get_xlabel() == "x: log10 likelihood ratio"
    finite = np.isfinite(c.target_llr)
    np.testing.assert_allclose(
        c.line_.get_xdata()[1:-1][finite], c.target_llr[finite] / math.log(10)
    )


def test_from_estimator():
    s, y, _ = make_gaussian_scores(300, random_state=0)
    cal = PAVLLRCalibrator().fit(s, y)
    disp = TippettDisplay.from_estimator(cal, s, y)
    assert disp.name == "PAVLLRCalibrator"
    llr = cal.decision_function(s)
    assert disp.misleading_target == pytest.approx(np.mean(llr[y == 1] < 0))


def test_default_figure_holds_the_legend():
    """The legend beside the axes of the display's own figure is inside it."""
    s, y, llr = make_gaussian_scores(500, random_state=0)
    disp = TippettDisplay.from_predictions(y, llr, name="a system with a long name")
    fig = disp.figure_
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = disp.ax_.get_legend().get_window_extent(renderer)
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1 + 1
    assert legend.x0 >= disp.ax_.get_window_extent(renderer).x1  # beside


@pytest.mark.parametrize("log10", [False, True])
def test_huge_finite_llrs_are_drawn_at_the_edges_as_infinite_ones(log10):
    # LLRs of +/-1.7e308 made an axis whose width overflows: LinAlgError
    # (singular matrix) from matplotlib, after overflow warnings
    s, y, llr = make_gaussian_scores(300, random_state=0)
    tar, non = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    drawn = {}
    for big in (np.inf, 1.7e308):
        x = llr.copy()
        x[[tar[0], tar[1], non[0]]] = [big, -big, big]
        disp = TippettDisplay.from_predictions(y, x, log10=log10)
        disp.figure_.canvas.draw()
        left, right = disp.ax_.get_xlim()
        # the same range as without the extreme trials
        finite = np.abs(x) < 1e300
        scale = 1 / math.log(10) if log10 else 1.0
        assert left < scale * x[finite].min() and scale * x[finite].max() < right
        assert right - left < 20
        for xs in (disp.line_.get_xdata(), disp.nontarget_line_.get_xdata()):
            assert xs.min() == left and xs.max() == right
        # the proportions count the extreme trials
        assert disp.target_llr[-1] == big and disp.target_proportion[-1] == (
            1 / tar.size
        )
        assert disp.misleading_target == np.mean(x[tar] < 0)
        drawn[big] = (disp.line_.get_xydata(), disp.nontarget_line_.get_xydata())
    for a, b in zip(drawn[np.inf], drawn[1.7e308], strict=True):
        np.testing.assert_array_equal(a, b)


def test_llrs_at_the_scale_of_the_largest_floats():
    # every LLR near 1e307: the axis spans them, nothing overflows
    s, y, llr = make_gaussian_scores(300, random_state=0)
    disp = TippettDisplay.from_predictions(y, 2e306 * llr)
    disp.figure_.canvas.draw()
    left, right = disp.ax_.get_xlim()
    assert left < 0 < right and right - left > 1e307
