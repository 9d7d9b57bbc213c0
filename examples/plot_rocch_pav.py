"""
The ROC convex hull is PAV
==========================

Fawcett & Niculescu-Mizil (2007) show that the pool-adjacent-violators
algorithm and the ROC convex hull find the same groups of instances: each
hull segment covers one PAV group, and the group's calibrated probability is
``slope * skew / (1 + slope * skew)`` with ``skew = N_pos / N_neg``. We redo
their 15-instance example (Table I and Fig. 2), then draw the hull of a
larger problem in ROC space and on a DET plot
(:class:`~skcalib.metrics.DETDisplay`).
"""

import os
import tempfile
from fractions import Fraction
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression

from skcalib import PAVCalibrator
from skcalib.datasets import make_waveform
from skcalib.metrics import DETDisplay, ROCConvexHullDisplay, eer, rocch

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# The 15 instances
# ----------------
# Table I of the paper: scores, classes and the PAV probabilities. PAV pools
# the scores into six blocks with probabilities 1, 3/4, 2/3, 1/2, 1/3, 0.
scores = np.array(
    [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.27, 0.2, 0.18, 0.1, 0.02]
)
y = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0])
proba = PAVCalibrator().fit(scores, y).transform(scores)
print(" #  score  class  PAV")
for i, (s, c, p) in enumerate(zip(scores, y, proba, strict=True)):
    print(f"{i:2d}  {s:5.2f}  {c:5d}  {Fraction(p).limit_denominator(20)}")

# %%
# The hull and its PAV probabilities
# ----------------------------------
# Fig. 2 of the paper: the ROC curve, its convex hull, and each hull segment
# labelled with the PAV probability of the group it covers (the first,
# vertical segment is the block of probability 1, the last, horizontal one
# the block of probability 0). The probability is a function of the
# segment's slope alone, which is the slope-to-probability formula above.
fig, ax = plt.subplots(figsize=(5, 5))
disp = ROCConvexHullDisplay.from_predictions(y, scores, plot_chance_level=True, ax=ax)
slopes = np.diff(disp.hull_tpr) / np.where(
    np.diff(disp.hull_fpr) > 0, np.diff(disp.hull_fpr), np.nan
)
skew = y.sum() / (len(y) - y.sum())
print(
    "hull segment PAV probabilities:",
    [str(Fraction(p).limit_denominator(20)) for p in disp.pav_proba],
)
print(
    "slope * skew / (1 + slope * skew):",
    np.round(slopes * skew / (1 + slopes * skew), 4),
    "(first segment: vertical)",
)
disp.ax_.set_title("Fawcett & Niculescu-Mizil, Fig. 2")
disp.figure_.tight_layout()
disp.figure_.savefig(OUT / "rocch_pav.png", dpi=80)

# %%
# A larger problem
# ----------------
# Logistic regression on the two-class waveform data: the hull of 2000 test
# scores, its EER (the ROCCH-EER, where the hull crosses the line
# :math:`P_{miss} = P_{fa}`), and the DET plot of the same scores: the steppy
# curve of every threshold (scikit-learn's ``det_curve``) with the same hull,
# dashed, and its EER and minimum-DCF points.
X, yw = make_waveform(3000, random_state=0)
clf = LogisticRegression().fit(X[:1000], yw[:1000])
s_test, y_test = clf.decision_function(X[1000:]), yw[1000:]
pmiss, pfa = rocch(y_test, s_test)
print(
    f"waveform: {len(pmiss) - 1} hull segments, ROCCH-EER = {eer(y_test, s_test):.4f}"
)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 5.5))
ROCConvexHullDisplay.from_estimator(clf, X[1000:], y_test, ax=ax1)
DETDisplay.from_predictions(y_test, s_test, ax=ax2, name="LogisticRegression")
ax1.set_title("ROC and its convex hull")
ax2.set_title("DET curve")
fig.tight_layout()
fig.savefig(OUT / "rocch_det_waveform.png", dpi=80)
