"""
Confidence intervals, DET and Tippett plots
===========================================

A minimum DCF of 0.31 on one evaluation set means little without its
uncertainty: another draw of trials would give another value. This example
compares three systems on synthetic speaker-verification trials
(:func:`skcalib.datasets.make_gaussian_scores`, natural-log LLRs):

* **A** and **B** differ a little in discrimination: their bootstrap
  intervals of the minimum DCF overlap, so this evaluation set cannot tell
  them apart;
* **C** discriminates much better (its interval is far from A's), but its
  LLRs are miscalibrated (too confident and shifted), so its actual DCF is
  well above its minimum.

:func:`~skcalib.metrics.bootstrap_ci` gives each interval. Trials come from
100 speakers, some easier to verify than others, so the trials of one
speaker are not independent: the ``groups`` argument resamples whole
speakers (a cluster bootstrap), which accounts for that; resampling single
trials would pretend to more information than there is. The systems are then
drawn on a DET plot (:class:`~skcalib.metrics.DETDisplay`), a Tippett plot
(:class:`~skcalib.metrics.TippettDisplay`) and a Bayes error plot with
bootstrap bands (:class:`~skcalib.metrics.BayesErrorDisplay`).
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from skcalib.datasets import make_gaussian_scores
from skcalib.metrics import (
    BayesErrorDisplay,
    DETDisplay,
    TippettDisplay,
    actual_dcf,
    bootstrap_ci,
    min_dcf,
)

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# Trials from 100 speakers
# ------------------------
# 3000 trials per system, 30 % targets. Some speakers are easier to verify
# than others: each speaker shifts the LLRs of its target trials by its own
# amount, the same for the three systems.
n = 3000
speaker = np.random.default_rng(0).integers(0, 100, size=n)
effect = np.random.default_rng(1).normal(scale=0.8, size=100)[speaker]
COLORS = {"A": "C0", "B": "C1", "C": "C2"}
systems = {}
for name, target_mean, seed in (("A", 2.0, 2), ("B", 2.1, 3), ("C", 3.2, 4)):
    _, y, llr = make_gaussian_scores(
        n, prior=0.3, target_mean=target_mean, shuffle=False, random_state=seed
    )
    systems[name] = (y, llr + effect * y)
y_c, llr_c = systems["C"]
systems["C"] = (y_c, 1.8 * llr_c + 1.0)  # miscalibrated: too confident, shifted

# %%
# Bootstrap intervals of the minimum and actual DCF
# -------------------------------------------------
# The minimum metrics pick their threshold on the very trials they are
# measured on, so they are optimistic, and their bootstrap replicates more
# so; the ``'basic'`` interval corrects for that bias (the percentile
# interval tends to sit too low). The actual DCF is an average over trials
# and takes the default percentile interval.
P_TARGET = 0.1
print(f"p_target = {P_TARGET}: 95% intervals, 1000 resamples of speakers")
intervals = {}
for name, (y, llr) in systems.items():
    mini = bootstrap_ci(
        min_dcf,
        y,
        llr,
        p_target=P_TARGET,
        groups=speaker,
        method="basic",
        random_state=0,
    )
    act = bootstrap_ci(
        actual_dcf, y, llr, p_target=P_TARGET, groups=speaker, random_state=0
    )
    trials = bootstrap_ci(min_dcf, y, llr, p_target=P_TARGET, method="basic")
    intervals[name] = mini.confidence_interval
    lo, hi = mini.confidence_interval
    tlo, thi = trials.confidence_interval
    alo, ahi = act.confidence_interval
    print(
        f"  {name}: min DCF {mini.statistic:.3f} [{lo:.3f}, {hi:.3f}] "
        f"(resampling trials: [{tlo:.3f}, {thi:.3f}]); "
        f"actual DCF {act.statistic:.3f} [{alo:.3f}, {ahi:.3f}]"
    )


def overlap(a, b):
    return max(a.low, b.low) <= min(a.high, b.high)


print("A and B intervals overlap:", overlap(intervals["A"], intervals["B"]))
print("A and C intervals overlap:", overlap(intervals["A"], intervals["C"]))

# %%
# DET plot
# --------
# Miss against false-alarm probability on probit axes: the steppy curve of
# all thresholds, the ROC convex hull (dashed), the EER (circle), the
# minimum-DCF point at p_target = 0.1 (square) and, because the scores are
# LLRs, the operating point of their own Bayes decisions (cross). C's cross
# lies away from its square: the cost of its miscalibration. The first
# display makes the figure (square axes, the legend beside them); the other
# systems are drawn on its axes.
ax = None
for name, (y, llr) in systems.items():
    disp = DETDisplay.from_predictions(
        y, llr, llr=True, p_target=P_TARGET, name=name, ax=ax
    )
    ax = disp.ax_
ax.set_title("DET plot of systems A, B and C (3000 trials each)")
disp.figure_.savefig(OUT / "confidence_det.png", dpi=100)

# %%
# Tippett plot
# ------------
# For every LLR value x, the proportion of targets (solid) and of
# non-targets (dashed) whose LLR is at least x; the legend gives the rates
# of misleading evidence (targets below 0, non-targets above 0). C's curves
# spread far beyond A's: its LLRs claim more than they should.
fig, ax = plt.subplots(figsize=(10, 4.5))
for name in ("A", "C"):
    TippettDisplay.from_predictions(
        *systems[name], name=name, ax=ax, color=COLORS[name]
    )
ax.set_title("Tippett plot of systems A and C")
fig.tight_layout()
fig.savefig(OUT / "confidence_tippett.png", dpi=100)

# %%
# Bayes error plot with bootstrap bands
# -------------------------------------
# Actual (solid) and minimum (dashed) normalized DCF over the prior
# log-odds, each with its 95 % bootstrap band (resampling speakers). A's and
# B's bands overlap everywhere; C's minimum-DCF band lies below them, while
# its actual DCF band rises above them away from the centre.
# The legend names each system once, by its colour, and shows the four
# line and band styles once, in grey, rather than four entries per system.
fig, ax = plt.subplots(figsize=(10, 5))
for name, (y, llr) in systems.items():
    BayesErrorDisplay.from_predictions(
        y,
        llr,
        name=name,
        ax=ax,
        confidence_level=0.95,
        n_resamples=200,
        groups=speaker,
        random_state=0,
        color=COLORS[name],
    )
ax.set_ylim(0, 1.4)
handles = [Patch(color=COLORS[name], label=f"system {name}") for name in systems]
handles += [
    Line2D([], [], color="grey", label="actual DCF"),
    Line2D([], [], color="grey", linestyle="--", label="minimum DCF"),
    Patch(color="grey", alpha=0.25, linewidth=0, label="95% interval, actual"),
    Patch(
        facecolor="grey",
        alpha=0.12,
        hatch="///",
        linewidth=0,
        label="95% interval, minimum",
    ),
    Line2D([], [], color="black", linestyle=":", label="uninformative"),
]
ax.legend(
    handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0)
)
ax.set_title("Bayes error plot with 95 % bootstrap bands")
fig.tight_layout()
fig.savefig(OUT / "confidence_bayes_error.png", dpi=100)
