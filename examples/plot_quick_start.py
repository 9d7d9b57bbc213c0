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

Figures are also saved into the folder named by ``$SKCALIB_EXAMPLES_OUT``
(by default ``skcalib-examples`` in the system's temporary folder).
"""

import os
import tempfile
from pathlib import Path

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
    or Path(tempfile.gettempdir()) / "skcalib-examples"
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
# The calibrated LLRs are bounded: PAV-LLR with the rule of succession
# (``extremes='succession'``) never claims more evidence than the 1000
# calibration samples can support.
pav = calibrated[-1]
llr_min, llr_max = pav.y_thresholds_[0][0], pav.y_thresholds_[0][-1]
print(f"PAV-LLR range: [{llr_min:.2f}, {llr_max:.2f}] nats")

# %%
# Bayes error plot
# ----------------
# Each point on the horizontal axis is an application, summarized by its
# prior log-odds; the solid curves are the normalized actual DCF of Bayes
# decisions made with the scores, the dashed ones the minimum DCF reachable
# with the best threshold on the same scores. Solid close to dashed over a
# wide range means well-calibrated LLRs. The raw naive Bayes log-odds are
# over-confident: their actual DCF leaves the plot (worse than the
# uninformative system, 1.0) for priors below about -2.
#
# Why does the PAV-LLR curve climb back to exactly 1.0 at the extreme
# priors? An application with prior log-odds :math:`x` accepts a trial when
# its LLR exceeds :math:`-x`. Beyond the range of the calibrated LLRs printed
# above, no trial has enough evidence to change the decision the prior alone
# dictates, so every trial gets the same decision and the cost is that of the
# uninformative system: exactly 1.0. This is the honest answer of a
# calibrator trained on 1000 samples; its minimum DCF rises there too,
# because PAV pooled the most extreme scores into tied blocks.
disp = BayesErrorDisplay.from_predictions(y_test, raw_scores, name="raw")
BayesErrorDisplay.from_predictions(y_test, llr, name="PAV-LLR", ax=disp.ax_)
for bound in (llr_min, llr_max):
    disp.ax_.axvline(-bound, color="grey", lw=0.8, ls="-.")
disp.ax_.text(-llr_max, 1.05, " -max LLR", color="grey", fontsize="small", ha="left")
disp.ax_.text(-llr_min, 1.05, "-min LLR ", color="grey", fontsize="small", ha="right")
disp.ax_.set_title("Naive Bayes on the waveform data")
disp.figure_.tight_layout()
disp.figure_.savefig(OUT / "quick_start_bayes_error.png", dpi=80)
