"""
Bayes error plots of calibrated and uncalibrated scores
========================================================

A Bayes error-rate plot (Cumani's notes; Brümmer & du Preez) shows, for every
application summarized by its prior log-odds, the normalized actual DCF of
the Bayes decisions taken with the LLRs and the minimum DCF reachable with
the best threshold on the same scores. The gap is the cost of
miscalibration; 1.0 is the cost of ignoring the scores.

The scores here are synthetic (:func:`skcalib.datasets.make_gaussian_scores`)
with unequal class variances, so the true LLR is quadratic in the score and
known exactly. We calibrate on one set and evaluate on another with:

* Platt scaling (:class:`~skcalib.PlattCalibrator`),
* prior-weighted logistic regression and the Brier rule
  (:class:`~skcalib.ProperScoringAffineCalibrator`, alpha = beta = 1 and 2),
* PAV-LLR (:class:`~skcalib.PAVLLRCalibrator`, non-parametric).

A second figure draws each calibrator's score-to-LLR map over the PAV
reference (Brümmer & Doddington 2013, Fig. 3): an affine map can match the
ideal only over part of the score range, and the scoring rule chooses which.
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from skcalib import PAVLLRCalibrator, PlattCalibrator, ProperScoringAffineCalibrator
from skcalib.datasets import make_gaussian_scores
from skcalib.metrics import BayesErrorDisplay, CalibrationTransformDisplay, cllr

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# Data and calibrators
# --------------------
# 2000 scores to calibrate on, 20000 to evaluate on; the evaluation scores
# come with their true LLR.
params = {"target_mean": 3.0, "target_std": 2.0, "nontarget_std": 1.0}
s_cal, y_cal, _ = make_gaussian_scores(2000, random_state=0, **params)
s_test, y_test, llr_test = make_gaussian_scores(20000, random_state=1, **params)

calibrators = {
    "Platt": PlattCalibrator(),
    "logistic (alpha=beta=1)": ProperScoringAffineCalibrator(),
    "Brier (alpha=beta=2)": ProperScoringAffineCalibrator(alpha=2.0, beta=2.0),
    "PAV-LLR": PAVLLRCalibrator(),
}
llrs = {"raw scores": s_test}
for name, cal in calibrators.items():
    llrs[name] = cal.fit(s_cal, y_cal).decision_function(s_test)
llrs["true LLR"] = llr_test

for name, llr in llrs.items():
    print(f"{name:26s} Cllr = {cllr(y_test, llr):.4f} bits")

# %%
# Normalized Bayes error plot
# ---------------------------
# The minimum DCF (dashed) is drawn for the raw scores only: every monotone
# calibrator shares it (PAV up to its ties). The raw scores are not LLRs at
# all, so their actual DCF is far above it; the affine calibrators follow it
# near prior log-odds 0 and drift away at the extremes, where the true LLR
# (quadratic in the score) bends away from any straight line. The minimum is
# drawn thick, black and on top so that the calibrated curves cannot hide it.
# Above prior log-odds of about 2 every curve reaches 1.0: the target scores
# are spread wider than the non-target ones, so the true LLR never falls
# below about -2 and no trial carries enough evidence to be rejected when
# targets are that likely. The affine maps, which extrapolate a straight
# line, claim such evidence anyway and pay for it (above 1.0).
# Platt scaling and the logistic affine calibrator give the same map here
# (balanced classes, equal Cllr above), and the true LLR reaches the minimum
# DCF almost everywhere: curves that coincide with another are drawn wide and
# pale underneath it (and say so in the legend), so that both stay visible.
MIN_STYLE = {"color": "black", "linewidth": 2.5, "dashes": (2, 2), "zorder": 3}
UNDER = {"linewidth": 6, "alpha": 0.35, "zorder": 1, "solid_capstyle": "butt"}
styles = {
    "Platt": UNDER | {"label": "Platt: actual DCF (= logistic, under it)"},
    "true LLR": UNDER | {"label": "true LLR: actual DCF (on the minimum)"},
}
fig, ax = plt.subplots(figsize=(8, 4.5))
for i, (name, llr) in enumerate(llrs.items()):
    BayesErrorDisplay.from_predictions(
        y_test,
        llr,
        name=name,
        ax=ax,
        plot_min_dcf=i == 0,
        min_dcf_kwargs=MIN_STYLE | {"label": "minimum DCF (any monotone map)"},
        prior_log_odds=[x / 10 for x in range(-60, 61)],
        **styles.get(name, {}),
    )
ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
ax.set_title("Gaussian scores, unequal variances")
fig.tight_layout()
fig.savefig(OUT / "bayes_error.png", dpi=80)

# %%
# Bayes error rates
# -----------------
# The same curves without normalization: the vertical axis is now the Bayes
# error rate itself (the probability of a wrong decision at each prior), and
# the uninformative reference is :math:`\min(\pi, 1 - \pi)`. The minimum
# error rate of the scores is drawn dashed and black, on top: PAV-LLR and the
# true LLR follow it so closely that PAV-LLR is drawn thin on top of it and
# the true LLR wide and pale under it.
fig, ax = plt.subplots(figsize=(8, 4.5))
for name in ("raw scores", "PAV-LLR", "true LLR"):
    BayesErrorDisplay.from_predictions(
        y_test,
        llrs[name],
        name=name,
        ax=ax,
        normalize=False,
        plot_min_dcf=name == "raw scores",
        min_dcf_kwargs=MIN_STYLE | {"label": "minimum error rate (any monotone map)"},
        **{"PAV-LLR": {"zorder": 4}, "true LLR": UNDER}.get(name, {}),
    )
ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
ax.set_title("Gaussian scores, unequal variances: error rates")
fig.tight_layout()
fig.savefig(OUT / "bayes_error_rate.png", dpi=80)

# %%
# Score-to-LLR maps
# -----------------
# Each calibrator's map over the PAV reference of the test data and the true
# LLR: an affine map can match the curved ideal only over part of the score
# range, and the scoring rule decides which part.
disp = CalibrationTransformDisplay.from_estimator(
    list(calibrators.values()), s_test, y_test, names=list(calibrators)
)
disp.ax_.plot(
    sorted(s_test),
    llr_test[s_test.argsort()],
    color="grey",
    linestyle=":",
    label="true LLR",
)
disp.ax_.legend(fontsize="small", loc="upper left")
disp.ax_.set_title("Score-to-LLR maps vs the PAV reference")
disp.figure_.tight_layout()
disp.figure_.savefig(OUT / "calibration_transform.png", dpi=80)
