"""
Quick start: calibrate a classifier's scores and look at the result
====================================================================

A naive Bayes classifier separates the two-class waveform data well, but its
scores are badly calibrated (Rakotomalala's course notes). We put a PAV-LLR
calibrator after it in a ``Pipeline``: :class:`~skcalib.ScoreTransformer`
turns the classifier into a one-column score transformer whose
``fit_transform`` returns out-of-fold scores, so the calibrator is trained on
honest scores. Then we compare raw and calibrated scores with the metrics of
:mod:`skcalib.metrics` and a Bayes error plot.

Figures are written to the directory in ``$SKCALIB_EXAMPLES_OUT`` (a fresh
temporary directory if unset).
"""

import os
import tempfile
from pathlib import Path

import matplotlib

if "MPLBACKEND" not in os.environ:
    matplotlib.use("Agg")  # headless by default; set MPLBACKEND to show windows
import matplotlib.pyplot as plt
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from skcalib import PAVLLRCalibrator, ScoreTransformer
from skcalib.datasets import make_waveform
from skcalib.metrics import (
    BayesErrorDisplay,
    actual_dcf,
    cllr,
    eer,
    min_cllr,
    min_dcf,
)

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or tempfile.mkdtemp(prefix="skcalib-examples-")
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# Data: 1000 samples to train on, 5000 to test on.
X, y = make_waveform(6000, random_state=0)
X_train, y_train, X_test, y_test = X[:1000], y[:1000], X[1000:], y[1000:]

# %%
# The raw classifier score is its log-odds; the pipeline calibrates it.
raw = ScoreTransformer(GaussianNB()).fit(X_train, y_train)
calibrated = make_pipeline(ScoreTransformer(GaussianNB()), PAVLLRCalibrator()).fit(
    X_train, y_train
)

raw_scores = raw.transform(X_test).ravel()
llr = calibrated.decision_function(X_test)

# %%
# Discrimination (EER, minimum DCF, minimum Cllr) is the same up to PAV's
# ties; calibration (actual DCF, Cllr) improves.
print(
    f"{'':12s} {'EER':>7s} {'minDCF':>7s} {'actDCF':>7s} {'Cllr':>7s} {'minCllr':>7s}"
)
for name, s in [("raw", raw_scores), ("calibrated", llr)]:
    print(
        f"{name:12s} {eer(y_test, s):7.3f} {min_dcf(y_test, s, p_target=0.5):7.3f} "
        f"{actual_dcf(y_test, s, p_target=0.5):7.3f} {cllr(y_test, s):7.3f} "
        f"{min_cllr(y_test, s):7.3f}"
    )

# %%
# Bayes error plot: actual DCF (solid) close to the minimum (dashed) over a
# wide range of priors means well-calibrated LLRs.
disp = BayesErrorDisplay.from_predictions(y_test, raw_scores, name="raw")
BayesErrorDisplay.from_predictions(y_test, llr, name="PAV-LLR", ax=disp.ax_)
disp.ax_.set_title("Naive Bayes on the waveform data")
disp.figure_.tight_layout()
disp.figure_.savefig(OUT / "quick_start_bayes_error.png", dpi=80)
plt.close("all")
print(f"figure written to {OUT / 'quick_start_bayes_error.png'}")
