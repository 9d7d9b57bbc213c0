"""
Venn-Abers: a probability, an interval, and how much calibration data
=====================================================================

:class:`~skcalib.VennAbersCalibrator` fits isotonic (PAV) calibration twice
per test score, once with the test point labelled non-target and once
labelled target, and reads both fits at the score: the pair ``(p0, p1)``.
One of the two is calibrated whatever the data distribution (the validity
guarantee of Venn predictors); their merge ``p1 / (1 - p0 + p1)`` is the
probability to use, and the width ``p1 - p0`` says how much the calibration
set can tell at that score.

This example uses synthetic scores with a known true posterior
(:func:`skcalib.datasets.make_gaussian_scores`) to show

* the width of ``(p0, p1)`` shrinking as the calibration set grows: a wide
  interval is the calibrator's way of saying "too little calibration data";
* ``(p0, p1)`` and the merged probability against the score, for a small and
  a large calibration set, next to the true posterior;
* the log-loss of the merged probability against plain isotonic
  calibration, which on small calibration sets gives probabilities of
  exactly 0 or 1;
* cross Venn-Abers through :class:`~skcalib.CalibratedClassifier` with
  ``ensemble=True`` on a real data set.
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit, logit

from skcalib import PAVCalibrator, VennAbersCalibrator
from skcalib.datasets import make_gaussian_scores

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)
PRIOR = 0.3


def draw(n, seed):
    """Scores, labels and the true posterior of ``n`` trials."""
    s, y, llr = make_gaussian_scores(n, prior=PRIOR, random_state=seed)
    return s, y, expit(llr + logit(PRIOR))


s_test, y_test, post_test = draw(20_000, seed=0)

# %%
# Interval width against calibration-set size
# -------------------------------------------
# For each size, 10 calibration sets; the median over test scores of the
# width ``p1 - p0``, and its 90th percentile (the widest region, in the
# tails where few calibration scores fall). The width falls roughly like
# ``n**(-2/3)``, the rate of isotonic regression's blocks.
sizes = [30, 100, 300, 1_000, 3_000, 10_000, 30_000]
median_width, wide_width = [], []
for n in sizes:
    widths = []
    for rep in range(10):
        s, y, _ = draw(n, seed=1 + 100 * rep + n)
        interval = VennAbersCalibrator().fit(s, y).predict_interval(s_test)
        widths.append(interval[:, 1] - interval[:, 0])
    widths = np.concatenate(widths)
    median_width.append(np.median(widths))
    wide_width.append(np.quantile(widths, 0.9))
    print(
        f"n = {n:>6}: median width {median_width[-1]:.4f}, "
        f"90th percentile {wide_width[-1]:.4f}"
    )

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(sizes, median_width, "o-", label="median over test scores")
ax.loglog(sizes, wide_width, "s--", label="90th percentile")
ref = median_width[0] * (np.array(sizes) / sizes[0]) ** (-2 / 3)
ax.loglog(sizes, ref, ":", color="grey", label=r"$\propto n^{-2/3}$")
ax.set_xlabel("calibration-set size n")
ax.set_ylabel("width p1 - p0")
ax.set_title("Venn-Abers interval width against calibration data")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "venn_abers_width.png", dpi=100)

# %%
# The pair and the merge against the score
# ----------------------------------------
# With 100 calibration scores the pair is wide and steppy; with 10 000 it
# hugs the true posterior. The merged probability always lies inside.
grid = np.linspace(-2.5, 4.5, 400)
true_grid = expit(2.0 * grid - 2.0 + logit(PRIOR))  # LLR of N(2,1) vs N(0,1)
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, n in zip(axes, (100, 10_000), strict=True):
    s, y, _ = draw(n, seed=7)
    cal = VennAbersCalibrator().fit(s, y)
    p0, p1 = cal.predict_interval(grid).T
    ax.fill_between(grid, p0, p1, step="mid", alpha=0.3, label="(p0, p1)")
    ax.plot(grid, cal.predict_proba(grid)[:, 1], label="merged p")
    ax.plot(grid, true_grid, "k--", label="true posterior")
    ax.set_title(f"{n} calibration scores")
    ax.set_xlabel("score")
axes[0].set_ylabel("P(target | score)")
axes[0].legend(loc="upper left")
fig.tight_layout()
fig.savefig(OUT / "venn_abers_pair.png", dpi=100)

# %%
# Log-loss on test data: merged Venn-Abers against plain isotonic
# ---------------------------------------------------------------
# Plain PAV gives 0 or 1 at the ends of the calibration range, an infinite
# log-loss as soon as one test trial there has the other label; the merged
# Venn-Abers probability never reaches 0 or 1.


def log_loss(p, y):
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.where(y == 1, np.log(p), np.log1p(-p))))


best = log_loss(post_test, y_test)
print(f"\ntest log-loss (true posterior: {best:.4f})")
for n in (30, 300, 3_000):
    s, y, _ = draw(n, seed=11)
    va = VennAbersCalibrator().fit(s, y).predict_proba(s_test)[:, 1]
    pav = PAVCalibrator().fit(s, y).predict_proba(s_test)[:, 1]
    print(
        f"n = {n:>5}: Venn-Abers {log_loss(va, y_test):.4f}, "
        f"isotonic {log_loss(pav, y_test):.4f}"
    )

# %%
# Cross Venn-Abers on a real data set
# -----------------------------------
# ``CalibratedClassifier(..., ensemble=True)`` with a Venn-Abers calibrator
# fits one (classifier, calibrator) pair per fold and merges the folds'
# pairs by geometric means; ``predict_interval`` gives the merged pair.
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from skcalib import CalibratedClassifier  # noqa: E402

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test_bc = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
clf = CalibratedClassifier(
    make_pipeline(StandardScaler(), LogisticRegression()),
    VennAbersCalibrator(),
    cv=5,
    ensemble=True,
).fit(X_train, y_train)
interval = clf.predict_interval(X_test)
p = clf.predict_proba(X_test)[:, 1]
print(
    f"\nbreast cancer, cross Venn-Abers (5 folds): test log-loss "
    f"{log_loss(p, y_test_bc):.4f}, median width "
    f"{np.median(np.abs(interval[:, 1] - interval[:, 0])):.4f}"
)
