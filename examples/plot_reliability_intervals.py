"""
Reliability diagrams with confidence intervals
==============================================

A reliability diagram compares, bin by bin, the observed frequency of an
outcome with the mean predicted probability. scikit-learn's
:class:`sklearn.calibration.CalibrationDisplay` draws the points alone, so a
bin of three samples looks as trustworthy as one of three hundred.
:class:`~skcalib.metrics.ReliabilityDisplay` draws the same points (the same
bins) with a Clopper-Pearson confidence interval for each frequency and the
histogram of the predictions below; :func:`~skcalib.metrics.reliability_curve`
gives the numbers without a figure.

Two real data sets: scikit-learn's breast cancer data with a naive Bayes
classifier (a small test set, where most bins hold few samples), and the
likelihood ratios of a forensic comparison system for cartridge cases
(:func:`~skcalib.datasets.load_cartridge_case`), read as posterior
probabilities at the proportion of same-source comparisons.

The figures are also saved into the folder named by ``$SKCALIB_EXAMPLES_OUT``
(by default ``skcalib-examples`` in the system's temporary folder).
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibrationDisplay
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from skcalib.datasets import load_cartridge_case
from skcalib.metrics import ReliabilityDisplay, ScoredTrials, reliability_curve

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# Naive Bayes on the breast cancer data
# -------------------------------------
# Gaussian naive Bayes is trained on half of the 569 samples and its
# probabilities of the benign class are evaluated on the other half (285
# samples). It is overconfident: nearly every probability is below 0.1 or
# above 0.9, so the eight bins between hold a handful of samples each.
X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
clf = GaussianNB().fit(X_train, y_train)
prob = clf.predict_proba(X_test)[:, 1]

curve = reliability_curve(y_test, prob, n_bins=10)
print("bin  samples  mean prob  frequency  95% interval     diagonal inside")
for row in range(curve.bin.shape[0]):
    lo, hi = curve.lower[row], curve.upper[row]
    inside = lo <= curve.mean_predicted[row] <= hi
    print(
        f"{curve.bin[row]:3d}  {curve.count[row]:7d}  {curve.mean_predicted[row]:9.3f}"
        f"  {curve.frequency[row]:9.3f}  [{lo:.3f}, {hi:.3f}]   {inside}"
    )

# %%
# The two diagrams side by side
# -----------------------------
# On the left, scikit-learn's diagram: the middle points swing far from the
# diagonal, which reads as badly miscalibrated probabilities between 0.1 and
# 0.9. On the right, the same points with their 95 % intervals: most of those
# bins hold one to five samples and their intervals cover most of [0, 1], so
# the data say little about them; the histogram shows where the evidence is.
fig = plt.figure(figsize=(12.5, 6.2), layout="constrained")
grid = fig.add_gridspec(2, 2, height_ratios=[3, 1])
ax_sklearn = fig.add_subplot(grid[:, 0])
ax_ours = fig.add_subplot(grid[0, 1])
ax_hist = fig.add_subplot(grid[1, 1], sharex=ax_ours)
CalibrationDisplay.from_predictions(
    y_test, prob, n_bins=10, name="GaussianNB", ax=ax_sklearn
)
ax_sklearn.set_title("scikit-learn's CalibrationDisplay")
ax_sklearn.legend(loc="upper left")  # its default corner hides a point here
ax_sklearn.set_xlim(-0.02, 1.02)
ax_sklearn.set_ylim(-0.02, 1.02)
ReliabilityDisplay.from_predictions(
    y_test, prob, n_bins=10, pos_label=1, name="GaussianNB", ax=ax_ours, hist_ax=ax_hist
)
ax_ours.set_title("skcalib's ReliabilityDisplay (95% intervals)")
fig.suptitle(
    f"Breast cancer data, naive Bayes: {y_test.shape[0]} test samples, "
    "10 bins of equal width"
)
fig.savefig(OUT / "reliability_intervals.png", dpi=70)

# %%
# A forensic LR system
# --------------------
# The cartridge-case likelihood ratios (188 same-source and 477
# different-source comparisons, Baiker-Sørensen et al., 2023) are natural-log
# LLRs; :meth:`~skcalib.metrics.ReliabilityDisplay.from_trials` turns each into
# the posterior probability of "same source" at the prior equal to the
# proportion of same-source comparisons (0.28), where calibrated LLRs give
# calibrated posteriors. Most different-source comparisons get a posterior
# near 0.05 and fill the first bin. Two bins have the diagonal outside their
# interval: between 0.1 and 0.2 same-source comparisons are more frequent
# than the LRs say (0.30 for a mean posterior of 0.14), and above 0.9 less
# frequent (0.94 for 0.996): the largest LRs (up to 10 to the power 76)
# overstate the evidence, which is what bounds on LRs address. The middle
# bins hold 4 to 12 comparisons each; their intervals cover half of [0, 1].
llr, same_source = load_cartridge_case(return_X_y=True)
trials = ScoredTrials(same_source, llr)
disp = ReliabilityDisplay.from_trials(trials, n_bins=10, name="cartridge-case LRs")
disp.ax_.set_title(
    "Cartridge-case LRs (665 comparisons), 10 bins,\n95% Clopper-Pearson intervals"
)
disp.figure_.savefig(OUT / "reliability_cartridge_case.png", dpi=70)
off = (disp.mean_predicted < disp.lower) | (disp.mean_predicted > disp.upper)
print(
    f"cartridge case: prior {disp.p_target:.3f}; {int(off.sum())} of "
    f"{off.shape[0]} bins with the diagonal outside the interval"
)
# sphinx_gallery_start_ignore
assert curve.count.sum() == y_test.shape[0]
assert np.all((curve.lower <= curve.frequency) & (curve.frequency <= curve.upper))
assert disp.count.sum() == 665
# sphinx_gallery_end_ignore
