"""Tests of DETDisplay."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import norm  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import det_curve  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from skcalib import (  # noqa: E402
    CalibratedClassifier,
    PAVLLRCalibrator,
    PlattCalibrator,
    ScoreTransformer,
)
from skcalib.datasets import make_gaussian_scores  # noqa: E402
from skcalib.metrics import DETDisplay, actual_dcf, eer, min_dcf, rocch  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_bad_labels():
    with pytest.raises(ValueError, match="pos_label"):
        DETDisplay.from_predictions(["a", "b"], [0.0, 1.0])


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_steppy_curve_is_sklearn_det_curve(ties, weighted):
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    if ties:
        s = np.round(s, 1)
    w = np.random.default_rng(0).uniform(0.5, 2, y.shape[0]) if weighted else None
    disp = DETDisplay.from_predictions(y, s, sample_weight=w)
    fpr, fnr, _ = det_curve(y, s, sample_weight=w)
    np.testing.assert_array_equal(disp.fpr, fpr)
    np.testing.assert_array_equal(disp.fnr, fnr)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(disp.line_.get_xdata(), norm.ppf(fpr))
        np.testing.assert_allclose(disp.line_.get_ydata(), norm.ppf(fnr))


def test_hull_and_markers():
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    disp = DETDisplay.from_predictions(y, llr, llr=True, p_target=[0.1, 0.5])
    pmiss, pfa = rocch(y, llr)
    np.testing.assert_array_equal(disp.hull_pmiss, pmiss)
    np.testing.assert_array_equal(disp.hull_pfa, pfa)
    assert disp.eer == eer(y, llr)
    for (p, fa, miss, value), (_p2, fa2, miss2, act) in zip(
        disp.min_dcf_points, disp.actual_dcf_points, strict=True
    ):
        norm_ = min(p, 1 - p)
        assert value == min_dcf(y, llr, p_target=p)
        assert (p * miss + (1 - p) * fa) / norm_ == pytest.approx(value)
        assert act == actual_dcf(y, llr, p_target=p)
        assert (p * miss2 + (1 - p) * fa2) / norm_ == pytest.approx(act)
    # EER + two min-DCF + two actual-DCF markers
    assert len(disp.markers_) == 5
    z = norm.ppf(disp.eer)
    assert disp.markers_[0].get_xdata()[0] == pytest.approx(z)


def test_scores_not_llr_have_no_actual_point():
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    disp = DETDisplay.from_predictions(y, s, p_target=None)
    assert disp.actual_dcf_points is None and disp.min_dcf_points == []
    assert len(disp.markers_) == 1


def test_several_systems_share_axes_and_labels():
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    a = DETDisplay.from_predictions(y, llr, name="A", llr=True)
    b = DETDisplay.from_predictions(y, 2 * s, name="B", ax=a.ax_)
    assert b.ax_ is a.ax_
    labels = [t.get_text() for t in a.ax_.get_legend().get_texts()]
    assert any(t.startswith("A: EER") for t in labels)
    assert any(t.startswith("B: EER") for t in labels)
    assert a.ax_.get_xlabel() == "False-alarm probability (%)"
    assert a.ax_.get_ylabel() == "Miss probability (%)"
    assert a.ax_.get_title() == "DET curve"


def test_from_estimator_knows_a_calibrators_scores_are_llrs():
    # llr='auto': the decision function of a skcalib calibrator (alone, at
    # the end of a Pipeline, or inside CalibratedClassifier) is an LLR, so
    # the actual-DCF point is marked; a plain classifier's score is not.
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    X = s.reshape(-1, 1)
    cal = PlattCalibrator().fit(s, y)
    pipe = make_pipeline(ScoreTransformer(LogisticRegression()), PlattCalibrator()).fit(
        X, y
    )
    clf = CalibratedClassifier(LogisticRegression(), PlattCalibrator()).fit(X, y)
    for est, data in ((cal, s), (pipe, X), (clf, X)):
        disp = DETDisplay.from_estimator(est, data, y, p_target=0.2)
        assert disp.actual_dcf_points is not None
        assert disp.actual_dcf_points[0][3] == pytest.approx(
            actual_dcf(y, est.decision_function(data), p_target=0.2)
        )
    lr = LogisticRegression().fit(X, y)
    assert DETDisplay.from_estimator(lr, X, y).actual_dcf_points is None
    # probabilities are not LLRs, and an explicit llr=False is obeyed
    for kwargs in ({"response_method": "predict_proba"}, {"llr": False}):
        disp = DETDisplay.from_estimator(cal, s, y, **kwargs)
        assert disp.actual_dcf_points is None


def test_from_estimator():
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    cal = PAVLLRCalibrator().fit(s, y)
    disp = DETDisplay.from_estimator(cal, s, y, llr=True, p_target=0.2)
    assert disp.name == "PAVLLRCalibrator"
    assert disp.min_dcf_points[0][3] == pytest.approx(
        min_dcf(y, cal.decision_function(s), p_target=0.2)
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_from_predictions_runs_the_kernel_once(weighted):
    """The hull, the EER and every minimum DCF come from one ScoredTrials,
    sorted once: drawn from the trials, they leave its PAV blocks the same
    object, and from_predictions draws the same display."""
    from skcalib.metrics import ScoredTrials

    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    w = np.linspace(0.5, 2.0, s.shape[0]) if weighted else None
    kw = {"llr": True, "p_target": [0.01, 0.1, 0.5]}
    trials = ScoredTrials(y, llr, sample_weight=w)
    _, lo, hi = trials.pav_llr()
    disp = DETDisplay.from_trials(trials, **kw)
    _, lo_after, hi_after = trials.pav_llr()
    assert lo_after is lo and hi_after is hi
    ref = DETDisplay.from_predictions(y, llr, sample_weight=w, **kw)
    assert disp.eer == ref.eer == eer(y, llr, sample_weight=w)
    np.testing.assert_array_equal(disp.min_dcf_points, ref.min_dcf_points)
    for p, _, _, value in ref.min_dcf_points:
        assert value == min_dcf(y, llr, p_target=p, sample_weight=w)


def _inside(inner, outer):
    return (
        inner.x0 >= outer.x0 - 1
        and inner.y0 >= outer.y0 - 1
        and inner.x1 <= outer.x1 + 1
        and inner.y1 <= outer.y1 + 1
    )


@pytest.mark.parametrize("p_target", [0.01, [0.001, 0.01, 0.5]])
def test_default_figure_holds_legend_and_tick_labels_apart(p_target):
    """The legend of the display's own figure is inside the figure, and no
    two tick labels overlap (0.5 and 1 collided)."""
    s, y, llr = make_gaussian_scores(3000, prior=0.3, random_state=0)
    disp = DETDisplay.from_predictions(y, llr, llr=True, p_target=p_target, name="x")
    fig = disp.figure_
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert _inside(disp.ax_.get_legend().get_window_extent(renderer), fig.bbox)
    assert _inside(disp.ax_.get_tightbbox(renderer), fig.bbox)
    for labels in (disp.ax_.get_xticklabels(), disp.ax_.get_yticklabels()):
        boxes = [t.get_window_extent(renderer) for t in labels if t.get_text()]
        assert len(boxes) >= 5
        for a, b in zip(boxes, boxes[1:], strict=False):
            assert not a.overlaps(b), [t.get_text() for t in labels]


def test_markers_at_zero_false_alarm_rate_are_marked_off_scale():
    """A rate of 0 has no place on a probit axis: the marker sits on the
    edge, an arrow points off the scale and the legend says P_fa = 0;
    markers at the same point (two p_targets on one hull vertex) differ in
    size so that neither hides the other."""
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(200), np.zeros(2000)].astype(bool)
    s = np.r_[rng.normal(6, 1, 200), rng.normal(0, 1, 2000)]
    disp = DETDisplay.from_predictions(y, s, llr=True, p_target=[0.001, 0.01])
    zero = [p for p in disp.min_dcf_points + disp.actual_dcf_points if p[1] == 0]
    assert len(zero) == 4
    labels = [m.get_label() for m in disp.markers_[1:]]
    assert all(label.endswith("[P_fa = 0]") for label in labels), labels
    arrows = [a for a in disp.ax_.texts if getattr(a, "arrow_patch", None)]
    assert len(arrows) == 4
    left = disp.ax_.get_xlim()[0]
    for m in disp.markers_[1:]:
        assert m.get_xdata()[0] == pytest.approx(left / 1.0, rel=0.2)
    squares = [m for m in disp.markers_ if m.get_marker() == "s"]
    assert squares[0].get_xydata().tolist() == squares[1].get_xydata().tolist()
    assert squares[0].get_markersize() < squares[1].get_markersize()
    assert all(m.get_markerfacecolor() == "none" for m in disp.markers_)


def test_markers_on_scale_have_no_arrow():
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    disp = DETDisplay.from_predictions(y, llr, llr=True, p_target=0.5)
    assert not [a for a in disp.ax_.texts if getattr(a, "arrow_patch", None)]
    assert not any("[" in m.get_label() for m in disp.markers_)


def test_legend_inside_axes_given_by_the_caller():
    """On someone else's axes (their layout, maybe tight_layout, which
    ignores an outside legend of fixed-aspect axes) the legend stays inside."""
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 5.5))
    disp = DETDisplay.from_predictions(y, llr, llr=True, ax=ax2, name="x")
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = disp.ax_.get_legend().get_window_extent(renderer)
    assert _inside(legend, disp.ax_.get_window_extent(renderer))
    for labels in (ax2.get_xticklabels(), ax2.get_yticklabels()):
        boxes = [t.get_window_extent(renderer) for t in labels if t.get_text()]
        for a, b in zip(boxes, boxes[1:], strict=False):
            assert not a.overlaps(b), [t.get_text() for t in labels]


def _hidden_by_legend(ax, renderer):
    """The lines of ``ax`` with a point under its legend or crossing it
    (where they are drawn: inside the axes)."""
    from matplotlib.transforms import Bbox

    box = Bbox.intersection(
        ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    )
    if box is None:  # the legend is beside the axes
        return []
    hidden = []
    for line in ax.get_lines():
        xy = line.get_transform().transform(line.get_xydata())
        path = line.get_transform().transform_path(line.get_path())
        inside = (
            (xy[:, 0] >= box.x0)
            & (xy[:, 0] <= box.x1)
            & (xy[:, 1] >= box.y0)
            & (xy[:, 1] <= box.y1)
        )
        if inside.any() or path.intersects_bbox(box, filled=False):
            hidden.append(line.get_label())
    return hidden


@pytest.mark.parametrize("layout", ["tight", "constrained"])
@pytest.mark.parametrize("n_systems", [1, 2])
def test_legend_on_the_callers_axes_hides_no_curve(n_systems, layout):
    """The legend was put in the upper right corner whatever lay there: with
    a second system it hid one's curve and markers. Now it goes where it
    hides nothing: inside when there is such a place, else beside the axes,
    where the caller's layout makes room for it."""
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots(
        figsize=(6, 6), layout="constrained" if layout == "constrained" else None
    )
    for name, shift, spread in (("A", 2.0, 1.0), ("C", 1.2, 1.5))[:n_systems]:
        y = rng.random(3000) < 0.3
        llr = rng.normal(size=3000) * spread + shift * y - 1
        DETDisplay.from_predictions(
            y, llr, llr=True, p_target=[0.01, 0.1], name=name, ax=ax
        )
    if layout == "tight":
        fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert _hidden_by_legend(ax, renderer) == []
    legend = ax.get_legend().get_window_extent(renderer)
    assert _inside(legend, fig.bbox)
    if n_systems == 1:  # room enough inside the axes
        assert _inside(legend, ax.get_window_extent(renderer))
    plt.close(fig)


def test_command_line_det_plot_is_not_cut(tmp_path):
    """``skcalib evaluate --det``: nothing is drawn across the image's edges
    (the legend beside the axes was cut off by the right edge)."""
    from matplotlib.image import imread

    from skcalib._cli import main

    s, y, llr = make_gaussian_scores(2000, random_state=0)  # P_fa = 0 at 0.01
    scores = tmp_path / "scores.txt"
    np.savetxt(scores, np.c_[llr, y], fmt=["%.6f", "%d"])
    png = tmp_path / "det.png"
    assert (
        main(["-q", "evaluate", str(scores), "--p-target", "0.01", "--det", str(png)])
        == 0
    )
    image = imread(png)[..., :3]
    for edge in (image[:, :3], image[:, -3:], image[:3], image[-3:]):
        assert (edge > 0.99).all(), "something is drawn across the image's edge"


def _extreme_scores():
    """LLRs with +/-inf or +/-1.7e308 (valid scores), and a finite stand-in
    of the same order and ties."""
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    tar, non = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    edits = {tar[0]: 1, tar[1]: -1, tar[2]: -1, non[0]: 1, non[1]: 1, non[2]: -1}
    order = np.array(list(edits))
    side = np.array(list(edits.values()), dtype=float)
    stand_in = llr.copy()
    stand_in[order] = side * 1e3
    for big in (np.inf, 1.7e308):
        x = llr.copy()
        x[order] = side * big
        yield y, x, stand_in


@pytest.mark.parametrize("weighted", [False, True])
def test_infinite_and_huge_scores(weighted):
    # +/-inf were refused by scikit-learn's det_curve ("Input contains
    # infinity", or "invalid value encountered in reduce" with both signs),
    # and 1.7e308 + 1.7e308 overflowed in its finiteness check
    for y, x, stand_in in _extreme_scores():
        w = np.linspace(0.5, 2.0, y.shape[0]) if weighted else None
        p_target = [0.01, 0.3, 0.9]
        disp = DETDisplay.from_predictions(
            y, x, llr=True, p_target=p_target, sample_weight=w
        )
        # the steppy curve and the hull only depend on the order of the scores
        fpr, fnr, _ = det_curve(y, stand_in, sample_weight=w)
        np.testing.assert_array_equal(disp.fpr, fpr)
        np.testing.assert_array_equal(disp.fnr, fnr)
        pmiss, pfa = rocch(y, stand_in, sample_weight=w)
        np.testing.assert_array_equal(disp.hull_pmiss, pmiss)
        np.testing.assert_array_equal(disp.hull_pfa, pfa)
        # the markers are the metrics' values, at points that give them
        assert disp.eer == eer(y, x, sample_weight=w)
        for points, metric in (
            (disp.min_dcf_points, min_dcf),
            (disp.actual_dcf_points, actual_dcf),
        ):
            assert [p[0] for p in points] == p_target
            for p, fa, miss, value in points:
                assert value == metric(y, x, p_target=p, sample_weight=w)
                cost = (p * miss + (1 - p) * fa) / min(p, 1 - p)
                assert cost == pytest.approx(value, rel=1e-12)
        # the LLRs of +/-inf or 1.7e308 decide as their stand-ins at any threshold
        assert [p[1:] for p in disp.actual_dcf_points] == [
            p[1:]
            for p in DETDisplay.from_predictions(
                y, stand_in, llr=True, p_target=p_target, sample_weight=w
            ).actual_dcf_points
        ]
        plt.close("all")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"p_target": 1.5}, "'p_target' parameter of DETDisplay.from_predictions"),
        ({"p_target": [0.1, 1.0]}, "'p_target' parameter .* Got 1.0 instead"),
        ({"p_target": "0.1"}, "'p_target' parameter .* Got '0.1' instead"),
        ({"p_target": np.nan}, "'p_target' parameter"),
        ({"p_target": True}, "'p_target' parameter"),
        ({"c_miss": -1}, "'c_miss' parameter of DETDisplay.from_predictions"),
        ({"c_fa": 0}, "'c_fa' parameter"),
        ({"c_miss": np.inf}, "'c_miss' parameter"),
        ({"p_target": None, "c_fa": -2.0}, "'c_fa' parameter"),
        ({"p_target": [[0.1]]}, "1-D array-like"),
    ],
)
@pytest.mark.parametrize("llr", [False, True])
def test_application_is_validated_as_min_dcf_does(kwargs, match, llr):
    # p_target=1.5 marked a min DCF of -3.0, c_miss=-1 one of -9.0, and
    # p_target='0.1' was an internal TypeError
    s, y, _ = make_gaussian_scores(400, prior=0.3, random_state=0)
    with pytest.raises(ValueError, match=match):
        DETDisplay.from_predictions(y, s, llr=llr, **kwargs)
    app = {"p_target": 0.01, **kwargs}
    if app["p_target"] is not None and np.ndim(app["p_target"]) == 0:
        in_min_dcf = match.replace("DETDisplay.from_predictions", "min_dcf")
        with pytest.raises(ValueError, match=in_min_dcf):
            min_dcf(y, s, **app)


def test_extreme_applications_mark_the_metrics_values():
    # the cost weights of these applications underflow or overflow; the
    # marked point is the one whose DCF is the minimum
    s, y, llr = make_gaussian_scores(400, prior=0.3, random_state=0)
    for app in (
        {"p_target": 1e-320},
        {"p_target": 1 - 1e-16},
        {"p_target": 0.5, "c_miss": 1e308, "c_fa": 1e-308},
        {"p_target": 1e-300, "c_miss": 1e-300},
    ):
        disp = DETDisplay.from_predictions(y, llr, llr=True, **app)
        ((p, fa, miss, value),) = disp.min_dcf_points
        assert value == min_dcf(y, llr, **app)
        pmiss, pfa = rocch(y, llr)
        assert ((pfa == fa) & (pmiss == miss)).any()
        ((_, _, _, act),) = disp.actual_dcf_points
        assert act == actual_dcf(y, llr, **app)
        plt.close("all")
