"""The displays' shared plumbing: from_estimator -> from_predictions ->
from_trials hand every argument on, and the constructor stores them."""

import inspect

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from skcalib import PAVLLRCalibrator, metrics  # noqa: E402
from skcalib.datasets import make_gaussian_scores  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    BayesErrorDisplay,
    DETDisplay,
    ECEDisplay,
    ROCConvexHullDisplay,
    TippettDisplay,
)

# display, arguments of its own, the array attributes it stores
SINGLE_SYSTEM = [
    (BayesErrorDisplay, {"prior_log_odds": [-1.0, 0.0, 2.0], "normalize": False}),
    (ECEDisplay, {"prior_log_odds": [-1.0, 0.0, 2.0], "log10": True}),
    (TippettDisplay, {"log10": True}),
    (ROCConvexHullDisplay, {"response_method": "decision_function"}),
    (DETDisplay, {"llr": True, "p_target": [0.1, 0.5]}),
]


@pytest.fixture(scope="module")
def data():
    scores, y, _ = make_gaussian_scores(200, random_state=3)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=y.shape[0])
    return scores, y, w, PAVLLRCalibrator().fit(scores, y)


def _arrays(disp):
    out = {}
    for key, value in vars(disp).items():
        if not key.endswith("_") and not isinstance(value, str | bool | type(None)):
            out[key] = value
    return out


def _assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], list | tuple):
            assert repr(a[key]) == repr(b[key]), key
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("display, own", SINGLE_SYSTEM, ids=lambda d: str(d)[:20])
def test_from_estimator_is_from_predictions_of_its_scores(data, display, own):
    scores, y, w, cal = data
    est = display.from_estimator(cal, scores, y, sample_weight=w, color="red", **own)
    pred_own = {k: v for k, v in own.items() if k != "response_method"}
    pred = display.from_predictions(
        y,
        cal.decision_function(scores),
        sample_weight=w,
        name="PAVLLRCalibrator",
        color="red",
        **pred_own,
    )
    _assert_same(_arrays(est), _arrays(pred))
    assert est.name == "PAVLLRCalibrator"
    line = est.line_ if est.line_ is not None else est.hull_line_
    assert line.get_color() == "red"  # **kwargs reach plot
    assert [t.get_text() for t in est.ax_.get_legend().get_texts()] == [
        t.get_text() for t in pred.ax_.get_legend().get_texts()
    ]
    plt.close("all")


#: Every public display, from the package's own list.
DISPLAYS = [getattr(metrics, n) for n in metrics.__all__ if n.endswith("Display")]


@pytest.mark.parametrize("display", DISPLAYS, ids=lambda d: d.__name__)
def test_constructor_stores_its_arguments(display):
    names = list(inspect.signature(display).parameters)
    disp = display(**{name: object() for name in names})
    assert list(vars(disp)) == names
