"""Tests of the Display classes (Agg backend): they render and hold the right data."""

import subprocess
import sys

import matplotlib as mpl
import numpy as np
import pytest
from scipy.integrate import trapezoid
from scipy.special import expit, logit

mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.isotonic import IsotonicRegression  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402

from skcalib import PAVCalibrator, PAVLLRCalibrator  # noqa: E402
from skcalib.datasets import make_gaussian_scores, make_waveform  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    actual_dcf,
    bayes_error_curve,
    cllr,
    min_cllr,
    min_dcf,
    rocch,
)
from skcalib.metrics._plot import (  # noqa: E402
    BayesErrorDisplay,
    CalibrationTransformDisplay,
    ROCConvexHullDisplay,
)

# Table I of Fawcett & Niculescu-Mizil: scores, labels, PAV probabilities.
S001 = np.array(
    [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.27, 0.2, 0.18, 0.1, 0.02]
)
Y001 = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0])
P001 = (
    [1, 1, 3 / 4, 3 / 4, 3 / 4, 3 / 4, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2]
    + [1 / 3] * 3
    + [0]
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def gaussian():
    return make_gaussian_scores(400, target_std=1.7, random_state=0)


# --- import hygiene and errors -----------------------------------------------


def test_import_skcalib_does_not_import_matplotlib():
    code = (
        "import sys, skcalib, skcalib.metrics, skcalib.datasets, skcalib._cli, "
        "skcalib.metrics._plot; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'matplotlib']; "
        "assert not bad, bad"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


def test_missing_matplotlib_message(monkeypatch, gaussian):
    s, y, llr = gaussian
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"requires matplotlib.*`plot` extra"):
        BayesErrorDisplay.from_predictions(y, llr)


def test_input_errors(gaussian):
    s, y, llr = gaussian
    with pytest.raises(ValueError, match="NaN"):
        ROCConvexHullDisplay.from_predictions(y, np.full_like(s, np.nan))
    with pytest.raises(ValueError, match="pos_label"):
        ROCConvexHullDisplay.from_predictions(np.where(y, "a", "b"), s)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        CalibrationTransformDisplay.from_predictions(y, s, llr[:-1])
    with pytest.raises(ValueError, match="`names` has 1 entries for 2 curves"):
        CalibrationTransformDisplay.from_predictions(y, s, [llr, s], names=["x"])
    with pytest.raises(ValueError, match="response_method"):
        ROCConvexHullDisplay.from_estimator(
            PAVCalibrator().fit(s, y), s, y, response_method="predict"
        )
    with pytest.raises(ValueError, match="'decision_function' is not available"):
        BayesErrorDisplay.from_estimator(object(), s, y)


# --- BayesErrorDisplay -------------------------------------------------------


def _brute_dcf(y, llr, x):
    """Normalized actual and minimum DCF at prior log-odds x, by brute force."""
    t = y.astype(bool)
    pe = expit(x)

    def dcf(thr):
        acc = llr >= thr
        pm = np.mean(~acc[t])
        pf = np.mean(acc[~t])
        return (pe * pm + (1 - pe) * pf) / min(pe, 1 - pe)

    thresholds = np.concatenate([[-np.inf], np.unique(llr), [np.inf]])
    return dcf(-x), min(dcf(th) for th in thresholds)


def test_bayes_error_display_data(gaussian):
    s, y, llr = gaussian
    grid = np.linspace(-4, 4, 17)
    disp = BayesErrorDisplay.from_predictions(y, s, prior_log_odds=grid, name="raw")
    actual, minimum = bayes_error_curve(y, s, grid)
    np.testing.assert_array_equal(disp.prior_log_odds, grid)
    np.testing.assert_allclose(disp.actual_dcf, actual)
    np.testing.assert_allclose(disp.min_dcf, minimum)
    for x, a, m in zip(grid, disp.actual_dcf, disp.min_dcf, strict=True):
        ref_a, ref_m = _brute_dcf(y, s, x)
        assert a == pytest.approx(ref_a, abs=1e-12)
        assert m == pytest.approx(ref_m, abs=1e-12)
        assert a == pytest.approx(actual_dcf(y, s, p_target=expit(x)), abs=1e-12)
        assert m == pytest.approx(min_dcf(y, s, p_target=expit(x)), abs=1e-12)
    # what is drawn is what is stored
    np.testing.assert_array_equal(disp.line_.get_xdata(), grid)
    np.testing.assert_array_equal(disp.line_.get_ydata(), disp.actual_dcf)
    np.testing.assert_array_equal(disp.min_line_.get_ydata(), disp.min_dcf)
    np.testing.assert_array_equal(disp.reference_line_.get_ydata(), np.ones(17))
    assert disp.line_.get_label() == "raw: actual DCF"
    assert disp.min_line_.get_color() == disp.line_.get_color()
    assert disp.ax_.get_ylabel() == "Normalized DCF"
    assert disp.figure_ is disp.ax_.figure


def test_bayes_error_display_default_grid_and_true_llr(gaussian):
    s, y, llr = gaussian
    disp = BayesErrorDisplay.from_predictions(y, llr)
    assert disp.prior_log_odds.shape == (121,)
    assert disp.prior_log_odds[0] == -6 and disp.prior_log_odds[-1] == 6
    assert (disp.min_dcf <= disp.actual_dcf + 1e-12).all()
    assert (disp.min_dcf <= 1 + 1e-12).all()


def test_bayes_error_display_several_systems_one_reference(gaussian):
    s, y, llr = gaussian
    d1 = BayesErrorDisplay.from_predictions(y, llr, name="true LLR")
    d2 = BayesErrorDisplay.from_predictions(y, s, name="raw", ax=d1.ax_)
    d3 = BayesErrorDisplay.from_predictions(
        y, 2 * s, name="x2", ax=d1.ax_, plot_min_dcf=False
    )
    assert d1.ax_ is d2.ax_ is d3.ax_
    assert d2.reference_line_ is None and d3.min_line_ is None
    labels = [line.get_label() for line in d1.ax_.get_lines()]
    assert labels.count("uninformative") == 1
    assert len(labels) == 6
    assert d2.line_.get_color() != d1.line_.get_color()


def test_bayes_error_display_unnormalized(gaussian):
    s, y, llr = gaussian
    grid = np.array([-2.0, 0.0, 1.5])
    d = BayesErrorDisplay.from_predictions(y, llr, prior_log_odds=grid, normalize=False)
    for x, a, m in zip(grid, d.actual_dcf, d.min_dcf, strict=True):
        pe = expit(x)
        assert a == pytest.approx(actual_dcf(y, llr, p_target=pe, normalize=False))
        assert m == pytest.approx(min_dcf(y, llr, p_target=pe, normalize=False))
    pe = expit(grid)
    np.testing.assert_allclose(d.reference_line_.get_ydata(), np.minimum(pe, 1 - pe))
    assert d.ax_.get_ylabel() == "Bayes error rate"


def test_bayes_error_display_from_estimator(gaussian):
    s, y, _ = gaussian
    cal = PAVLLRCalibrator().fit(s[:200], y[:200])
    d1 = BayesErrorDisplay.from_estimator(cal, s[200:], y[200:])
    d2 = BayesErrorDisplay.from_predictions(
        y[200:], cal.decision_function(s[200:]), name="PAVLLRCalibrator"
    )
    np.testing.assert_array_equal(d1.actual_dcf, d2.actual_dcf)
    np.testing.assert_array_equal(d1.min_dcf, d2.min_dcf)
    assert d1.name == "PAVLLRCalibrator"


def test_bayes_error_display_weights_and_pos_label(gaussian):
    s, y, llr = gaussian
    w = np.random.RandomState(0).randint(0, 3, size=s.shape[0])
    grid = np.linspace(-3, 3, 7)
    d_w = BayesErrorDisplay.from_predictions(
        y, llr, prior_log_odds=grid, sample_weight=w
    )
    rep = np.repeat(np.arange(s.shape[0]), w)
    d_rep = BayesErrorDisplay.from_predictions(y[rep], llr[rep], prior_log_odds=grid)
    np.testing.assert_allclose(d_w.actual_dcf, d_rep.actual_dcf)
    np.testing.assert_allclose(d_w.min_dcf, d_rep.min_dcf)
    labels = np.where(y == 1, "tar", "non")
    d_lab = BayesErrorDisplay.from_predictions(
        labels, llr, prior_log_odds=grid, pos_label="tar"
    )
    d_num = BayesErrorDisplay.from_predictions(y, llr, prior_log_odds=grid)
    np.testing.assert_allclose(d_lab.actual_dcf, d_num.actual_dcf)


def test_bayes_error_display_infinite_llr():
    y = np.array([1, 1, 0, 0, 1])
    llr = np.array([np.inf, 1.0, -np.inf, 0.5, -np.inf])
    d = BayesErrorDisplay.from_predictions(y, llr, prior_log_odds=[-1.0, 0.0, 1.0])
    for x, a, m in zip([-1.0, 0.0, 1.0], d.actual_dcf, d.min_dcf, strict=True):
        ref_a, ref_m = _brute_dcf(y, llr, x)
        assert a == pytest.approx(ref_a) and m == pytest.approx(ref_m)


# --- ROCConvexHullDisplay ----------------------------------------------------


def test_rocch_display_001_example():
    disp = ROCConvexHullDisplay.from_predictions(Y001, S001, name="001")
    # hull vertices (Fawcett & Niculescu-Mizil, Fig. 2), from (0, 0) to (1, 1)
    n_tar, n_non = 9, 6
    expected_tpr = np.array([0, 2, 5, 7, 8, 9, 9]) / n_tar
    expected_fpr = np.array([0, 0, 1, 2, 3, 5, 6]) / n_non
    np.testing.assert_allclose(disp.hull_tpr, expected_tpr)
    np.testing.assert_allclose(disp.hull_fpr, expected_fpr)
    # each hull segment is one PAV group, labelled with its PAV probability
    np.testing.assert_allclose(disp.pav_proba, [1, 3 / 4, 2 / 3, 1 / 2, 1 / 3, 0])
    texts = [t.get_text() for t in disp.annotations_]
    assert texts == ["1", "3/4", "2/3", "1/2", "1/3", "0"]
    # 001's theorem: p = slope * skew / (1 + slope * skew), skew = N_tar / N_non
    with np.errstate(divide="ignore"):
        slope = np.diff(disp.hull_tpr) / np.diff(disp.hull_fpr)
    skew = n_tar / n_non
    with np.errstate(invalid="ignore"):
        p = np.where(np.isinf(slope), 1.0, slope * skew / (1 + slope * skew))
    np.testing.assert_allclose(p, disp.pav_proba)
    # and PAV-calibrated probabilities of the instances are those of Table I
    np.testing.assert_allclose(PAVCalibrator().fit(S001, Y001).transform(S001), P001)


@pytest.mark.parametrize("weighted", [False, True])
def test_rocch_display_draws_one_scored_trials(gaussian, weighted):
    """The empirical ROC, the hull and the PAV groups are those of one
    ScoredTrials (one sort: the kernel's points, and PAV on them)."""
    from skcalib.metrics import ScoredTrials

    s, y, _ = gaussian
    w = np.linspace(0.5, 2.0, s.shape[0]) if weighted else None
    trials = ScoredTrials(y, s, sample_weight=w)
    disp = ROCConvexHullDisplay.from_trials(trials)
    pmiss, pfa = rocch(y, s, sample_weight=w)
    np.testing.assert_array_equal(disp.hull_fpr, pfa[::-1])
    np.testing.assert_array_equal(disp.hull_tpr, 1 - pmiss[::-1])
    fpr, tpr = trials.roc_curve()
    np.testing.assert_array_equal(disp.fpr, fpr)
    np.testing.assert_array_equal(disp.tpr, tpr)
    np.testing.assert_array_equal(disp.pav_proba, trials.pav_proba()[::-1])
    assert disp.pav_proba.shape[0] == disp.hull_fpr.shape[0] - 1
    # from_predictions draws the same from the trials it validates
    again = ROCConvexHullDisplay.from_predictions(y, s, sample_weight=w)
    for name in ("fpr", "tpr", "hull_fpr", "hull_tpr", "pav_proba"):
        np.testing.assert_array_equal(getattr(again, name), getattr(disp, name))


def test_rocch_display_matches_rocch_and_roc(gaussian):
    s, y, _ = gaussian
    s = np.round(s, 1)  # ties: diagonal ROC segments
    disp = ROCConvexHullDisplay.from_predictions(y, s, plot_chance_level=True)
    pmiss, pfa = rocch(y, s)
    np.testing.assert_allclose(disp.hull_fpr, pfa[::-1])
    np.testing.assert_allclose(disp.hull_tpr, 1 - pmiss[::-1])
    np.testing.assert_array_equal(disp.hull_line_.get_xdata(), disp.hull_fpr)
    np.testing.assert_array_equal(disp.line_.get_ydata(), disp.tpr)
    # the empirical ROC: its vertices are points of scikit-learn's ROC curve
    # and its area is the AUC
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    sk = set(zip(np.round(fpr, 12), np.round(tpr, 12), strict=True))
    ours = set(zip(np.round(disp.fpr, 12), np.round(disp.tpr, 12), strict=True))
    assert ours <= sk
    assert trapezoid(disp.tpr, disp.fpr) == pytest.approx(roc_auc_score(y, s))
    # the hull lies on or above the ROC curve
    inner = disp.fpr > 0
    hull_at = np.interp(disp.fpr[inner], disp.hull_fpr, disp.hull_tpr)
    assert (disp.tpr[inner] <= hull_at + 1e-12).all()
    # PAV probabilities of the segments = isotonic regression values
    iso = IsotonicRegression().fit(s, y).predict(np.unique(s))
    np.testing.assert_allclose(np.sort(disp.pav_proba), np.unique(iso))
    assert disp.chance_level_ is not None
    # many segments: no annotations by default
    assert len(disp.pav_proba) > 20 or len(disp.annotations_) == len(disp.pav_proba)


def test_rocch_display_annotate_switch():
    d = ROCConvexHullDisplay.from_predictions(Y001, S001, annotate=False)
    assert d.annotations_ == []
    s, y, _ = make_gaussian_scores(3000, random_state=0)
    d = ROCConvexHullDisplay.from_predictions(y, s)
    assert len(d.pav_proba) > 20 and d.annotations_ == []


def test_rocch_display_from_estimator():
    X, y = make_waveform(300, random_state=0)
    clf = LogisticRegression().fit(X, y)
    d1 = ROCConvexHullDisplay.from_estimator(clf, X, y)
    d2 = ROCConvexHullDisplay.from_predictions(y, clf.decision_function(X))
    np.testing.assert_array_equal(d1.hull_tpr, d2.hull_tpr)
    assert d1.name == "LogisticRegression"
    assert d1.hull_line_.get_label() == "LogisticRegression: ROC convex hull"
    # pos_label = classes_[0] flips the score and the labels consistently
    d3 = ROCConvexHullDisplay.from_estimator(
        clf, X, y, pos_label=0, response_method="decision_function"
    )
    d4 = ROCConvexHullDisplay.from_predictions(1 - y, -clf.decision_function(X))
    np.testing.assert_allclose(d3.hull_tpr, d4.hull_tpr)
    d5 = ROCConvexHullDisplay.from_estimator(clf, X, y, response_method="predict_proba")
    assert d5.hull_fpr[0] == 0 and d5.hull_tpr[-1] == 1


def test_rocch_display_weights_equal_repeats():
    w = np.array([1, 2, 0, 1, 3, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1])
    d_w = ROCConvexHullDisplay.from_predictions(Y001, S001, sample_weight=w)
    rep = np.repeat(np.arange(15), w)
    d_r = ROCConvexHullDisplay.from_predictions(Y001[rep], S001[rep])
    np.testing.assert_allclose(d_w.hull_fpr, d_r.hull_fpr)
    np.testing.assert_allclose(d_w.hull_tpr, d_r.hull_tpr)
    np.testing.assert_allclose(d_w.pav_proba, d_r.pav_proba)


def test_rocch_display_infinite_scores():
    y = np.array([1, 0, 1, 0, 1])
    s = np.array([np.inf, -np.inf, 0.3, 0.1, -np.inf])
    d = ROCConvexHullDisplay.from_predictions(y, s)
    assert d.hull_fpr[0] == 0 and d.hull_tpr[0] == 0
    assert d.hull_fpr[-1] == 1 and d.hull_tpr[-1] == 1
    assert np.isfinite(d.fpr).all() and np.isfinite(d.tpr).all()


# --- CalibrationTransformDisplay ---------------------------------------------


def _per_sample_pav_llr(disp, scores):
    """Expand the block knots of the display back to one LLR per sample."""
    lo, hi = disp.pav_scores[0::2], disp.pav_scores[1::2]
    idx = np.searchsorted(lo, scores, side="right") - 1
    assert (scores <= hi[idx]).all()
    return disp.pav_llr[0::2][idx]


def test_calibration_transform_pav_reference(gaussian):
    s, y, llr = gaussian
    disp = CalibrationTransformDisplay.from_predictions(y, s, llr, names=["true"])
    per_sample = _per_sample_pav_llr(disp, s)
    # the PAV reference reaches the minimum Cllr: it is the PAV-LLR
    assert cllr(y, per_sample) == pytest.approx(min_cllr(y, s), rel=1e-12)
    assert disp.pav_llr[0] == -np.inf and disp.pav_llr[-1] == np.inf
    # against scikit-learn: block LLR = logit(isotonic p) - logit(prior)
    iso = IsotonicRegression().fit(s, y).predict(s)
    with np.errstate(divide="ignore"):
        expected = logit(iso) - logit(y.mean())
    np.testing.assert_allclose(per_sample, expected, rtol=1e-10, atol=1e-10)
    # the true LLR curve is drawn in score order; infinite reference clipped
    order = np.argsort(s)
    np.testing.assert_array_equal(disp.lines_[0].get_xdata(), s[order])
    np.testing.assert_allclose(disp.lines_[0].get_ydata(), llr[order])
    drawn = disp.pav_line_.get_ydata()
    assert np.isfinite(drawn).all()
    assert drawn[-1] > disp.ax_.get_ylim()[1]  # leaves the axes upwards
    assert disp.lines_[0].get_label() == "true"


def test_calibration_transform_from_trials(gaussian):
    from skcalib.metrics import ScoredTrials

    s, y, llr = gaussian
    w = np.r_[np.zeros(5), np.ones(s.shape[0] - 5)]
    trials = ScoredTrials(y, s, sample_weight=w)
    ref = CalibrationTransformDisplay.from_predictions(
        y, s, llr, names=["true"], sample_weight=w
    )
    # the LLRs of the trials' own scores: those of positive weight
    disp = CalibrationTransformDisplay.from_trials(trials, llr[5:], names=["true"])
    np.testing.assert_array_equal(disp.pav_scores, ref.pav_scores)
    np.testing.assert_array_equal(disp.pav_llr, ref.pav_llr)
    order = np.argsort(s[5:], kind="stable")
    np.testing.assert_array_equal(disp.scores[0], s[5:][order])
    np.testing.assert_array_equal(disp.llrs[0], llr[5:][order])
    alone = CalibrationTransformDisplay.from_trials(trials)  # the reference only
    assert alone.lines_ == [] and alone.pav_line_ is not None
    with pytest.raises(ValueError, match="`llr` has 400 values for 395 trials"):
        CalibrationTransformDisplay.from_trials(trials, llr)


def test_calibration_transform_from_estimator(gaussian):
    s, y, _ = gaussian
    cals = [PAVLLRCalibrator().fit(s, y), PAVCalibrator().fit(s, y)]
    disp = CalibrationTransformDisplay.from_estimator(cals, s, y, n_points=50)
    assert disp.names == ["PAVLLRCalibrator", "PAVCalibrator"]
    grid = disp.scores[0]
    assert grid.shape == (50,) and grid[0] == s.min() and grid[-1] == s.max()
    for cal, v, line in zip(cals, disp.llrs, disp.lines_, strict=True):
        np.testing.assert_allclose(v, cal.decision_function(grid))
        assert line.get_label() == type(cal).__name__
    # PAVLLRCalibrator(extremes='raw') interpolates exactly the reference knots
    raw = PAVLLRCalibrator(extremes="raw").fit(s, y)
    finite = np.isfinite(disp.pav_llr)
    np.testing.assert_allclose(
        raw.decision_function(disp.pav_scores[finite]), disp.pav_llr[finite]
    )
    single = CalibrationTransformDisplay.from_estimator(cals[0], s[:, None], y)
    assert single.names == ["PAVLLRCalibrator"] and len(single.lines_) == 1


def test_calibration_transform_without_reference_or_names(gaussian):
    s, y, llr = gaussian
    fig, ax = plt.subplots()
    disp = CalibrationTransformDisplay.from_predictions(
        y, s, [llr, 2 * s - 2], plot_pav=False, ax=ax
    )
    assert disp.ax_ is ax and disp.pav_line_ is None and len(disp.lines_) == 2
    assert ax.get_legend() is None  # nothing labelled: no empty-legend warning


def test_displays_save_png(tmp_path, gaussian):
    s, y, llr = gaussian
    for disp in (
        BayesErrorDisplay.from_predictions(y, llr),
        ROCConvexHullDisplay.from_predictions(y, s),
        CalibrationTransformDisplay.from_predictions(y, s, llr),
    ):
        path = tmp_path / f"{type(disp).__name__}.png"
        disp.figure_.savefig(path)
        assert path.read_bytes()[:4] == b"\x89PNG"


# --- properties ---------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_trials = st.lists(
    st.tuples(st.integers(-3, 3), st.booleans()), min_size=2, max_size=30
).filter(lambda rows: 0 < sum(t for _, t in rows) < len(rows))


@settings(derandomize=True, database=None, deadline=None, max_examples=40)
@given(_trials)
def test_rocch_display_properties(rows):
    s = np.array([r[0] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows])
    d = ROCConvexHullDisplay.from_predictions(y, s, annotate=False)
    plt.close(d.figure_)
    assert (d.hull_fpr[0], d.hull_tpr[0]) == (0.0, 0.0)
    assert (d.hull_fpr[-1], d.hull_tpr[-1]) == (1.0, 1.0)
    # PAV probabilities strictly decrease along the hull (increasing fpr)
    assert (np.diff(d.pav_proba) < 0).all()
    assert len(d.pav_proba) == len(d.hull_fpr) - 1
    # each segment's PAV probability from its slope (Fawcett & Niculescu-Mizil)
    dx, dy = np.diff(d.hull_fpr), np.diff(d.hull_tpr)
    skew = y.sum() / (~y).sum()
    # p = slope*skew / (1 + slope*skew) = dy*skew / (dx + dy*skew)
    np.testing.assert_allclose(d.pav_proba, dy * skew / (dx + dy * skew))
    # the empirical ROC never rises above the hull
    for fx, ty in zip(d.fpr, d.tpr, strict=True):
        if fx > 0:
            assert ty <= np.interp(fx, d.hull_fpr, d.hull_tpr) + 1e-12


@settings(derandomize=True, database=None, deadline=None, max_examples=25)
@given(_trials, st.floats(-3, 3))
def test_bayes_error_display_properties(rows, shift):
    llr = np.array([r[0] for r in rows], dtype=float) + shift
    y = np.array([r[1] for r in rows])
    grid = np.linspace(-3, 3, 13)
    d = BayesErrorDisplay.from_predictions(y, llr, prior_log_odds=grid)
    plt.close(d.figure_)
    assert (d.min_dcf <= d.actual_dcf + 1e-12).all()
    assert (d.min_dcf <= 1 + 1e-12).all() and (d.min_dcf >= 0).all()
    for x, a, m in zip(grid[::4], d.actual_dcf[::4], d.min_dcf[::4], strict=True):
        ref_a, ref_m = _brute_dcf(y, llr, x)
        assert a == pytest.approx(ref_a, abs=1e-12)
        assert m == pytest.approx(ref_m, abs=1e-12)
