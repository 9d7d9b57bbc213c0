"""
Validating a forensic LR system
===============================

A forensic laboratory that reports likelihood ratios (LRs) validates its
system before using it in casework, following the guideline of Meuwly,
Ramos and Haraksim (Forensic Science International, 2017): it measures the
*accuracy* of the LRs (Cllr), their *discriminating power* (minimum Cllr,
EER), their *calibration* (Cllr_cal, devPAV, the ECE plot, the rates of
misleading evidence, a reliability diagram), the range the data supports
(ELUB bounds), and shows a Tippett plot and an empirical cross-entropy (ECE)
plot.

This example validates a real system this way: the LRs of an automated
comparison of firearm marks on cartridge case primers (Baiker-Sørensen et
al., Forensic Science International 353, 2023), 188 same-source and 477
different-source comparisons, loaded with
:func:`~skcalib.datasets.load_cartridge_case`. One
:class:`~skcalib.metrics.ScoredTrials` holds the trials, sorted once, and
answers every metric and every display.

skcalib works with natural-log LRs (LLRs); the forensic literature and the
``lir`` package use base-10 logarithms. The loader gives both (``llr`` and
``llr10``); the displays draw either axis (``log10=True``). The user guide
page :ref:`validating_lr_systems` maps each guideline metric to skcalib.

The figures are also saved into the folder named by ``$SKCALIB_EXAMPLES_OUT``
(by default ``skcalib-examples`` in the system's temporary folder).
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from skcalib.datasets import load_cartridge_case
from skcalib.metrics import (
    ECEDisplay,
    ReliabilityDisplay,
    ScoredTrials,
    TippettDisplay,
    empirical_cross_entropy,
)

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# The trials, evaluated once
# --------------------------
# ``target`` is 1 for a same-source comparison (the prosecution's
# hypothesis H1) and 0 for a different-source one (H2). Some LRs are
# extreme: up to 10 to the power 76 for same-source comparisons and 10 to
# the power 15.9 for different-source ones, which is what makes the
# calibration of this system interesting.
data = load_cartridge_case()
trials = ScoredTrials(data.target, data.llr)
print(
    f"{int((data.target == 1).sum())} same-source, "
    f"{int((data.target == 0).sum())} different-source comparisons; "
    f"log10 LR from {data.llr10.min():.2f} to {data.llr10.max():.2f}"
)

# %%
# Accuracy, discrimination and calibration in numbers
# ---------------------------------------------------
# Cllr (in bits) is the accuracy: 0 for a perfect system, 1 for a system
# that always reports LR = 1. Minimum Cllr is the Cllr of the same
# comparisons after the best order-preserving recalibration (PAV), so it
# measures discrimination alone; the difference, Cllr_cal, is the loss due
# to calibration. The EER is the other discrimination figure of the
# guideline; ``return_threshold=True`` gives the LLR at which it is reached.
#
# devPAV (Vergeer et al., 2021) is a second calibration figure: the area
# between the PAV-transformed LLRs and the identity, per unit of LLR range.
# skcalib gives it in natural-log units; divide by ln 10 for lir's value.
cllr = trials.cllr()
min_cllr = trials.min_cllr()
cllr_cal = trials.cllr_cal()
eer, eer_llr = trials.eer(return_threshold=True)
devpav = trials.devpav()
print(f"Cllr      {cllr:.4f} bits   (accuracy)")
print(f"min Cllr  {min_cllr:.4f} bits   (discrimination)")
print(f"Cllr_cal  {cllr_cal:.4f} bits   (calibration loss)")
print(f"devPAV    {devpav / np.log(10):.3f} (log10 units)")
print(f"EER       {eer:.2%} at log10 LR {eer_llr / np.log(10):.2f}")

# %%
# Misleading evidence and the expected LRs
# ----------------------------------------
# The rates of misleading evidence are the proportion of same-source
# comparisons with LR < 1 and of different-source comparisons with LR > 1.
# For a calibrated system the LR has expectation 1 under H2 and 1/LR has
# expectation 1 under H1 (Good, 1985): a mean far from 1 flags LRs that
# overstate the evidence. Here a single different-source comparison with
# an LR of 10 to the power 15.9 makes the mean LR under H2 astronomic.
rate_h1, rate_h2 = trials.misleading_evidence_rates()
inv_lr_h1, lr_h2 = trials.expected_likelihood_ratios()
print(f"misleading evidence: P(LR < 1 | H1) = {rate_h1:.1%}, ", end="")
print(f"P(LR > 1 | H2) = {rate_h2:.1%}")
print(f"E[1/LR | H1] = {inv_lr_h1:.3g}, E[LR | H2] = {lr_h2:.3g}")

# %%
# Bounds on the LRs
# -----------------
# Empirical lower and upper bounds (ELUB, Vergeer et al., Science & Justice
# 2016) and the invariance bounds (Alberink et al., 2025) say how far the
# validation data supports the LRs: LRs beyond the bounds are not backed by
# these 665 comparisons, and a laboratory reports them at the bound. skcalib
# computes both exactly, with no threshold grid, as natural-log LLRs.
for label, bounds in [
    ("ELUB", trials.elub_bounds()),
    ("invariance", trials.invariance_bounds()),
]:
    lo10, hi10 = np.asarray(bounds) / np.log(10)
    print(f"{label:>10} bounds: log10 LR in [{lo10:.3f}, {hi10:.3f}]")

# %%
# Tippett plot and rates of misleading evidence
# ---------------------------------------------
# For every value x of the log10 LR, the proportion of same-source and of
# different-source comparisons whose LR is at least 10 to the power x. The
# rates of misleading evidence are the curves' heights at 0, given in the
# legend.
tippett = TippettDisplay.from_trials(trials, log10=True, name="cartridge cases")
tippett.ax_.set_title("Tippett plot of the cartridge-case LRs (665 comparisons)")
tippett.figure_.savefig(OUT / "forensic_tippett.png", dpi=70)

# %%
# ECE plot
# --------
# The empirical cross-entropy plot (Ramos et al., Journal of Forensic
# Sciences, 2013) shows, for every prior log-odds, how much information
# the LRs lose, in bits: the system (solid), the same comparisons after PAV
# (dashed: the loss that no recalibration removes) and the reference LR = 1
# (dotted). At prior log-odds 0 the three curves are Cllr, minimum Cllr and
# 1. Where the solid curve rises above the dotted one, the LRs would mislead
# a fact finder with those prior odds more than no evidence at all: here for
# prior odds below about 1 to 10, because of the different-source
# comparisons with very large LRs.
ece = ECEDisplay.from_trials(trials, log10=True, name="cartridge cases")
ece.ax_.set_title("ECE plot of the cartridge-case LRs (665 comparisons)")
ece.figure_.savefig(OUT / "forensic_ece.png", dpi=70)
plo, ece_sys, ece_pav, ece_ref = empirical_cross_entropy(
    data.target, data.llr, prior_log_odds=np.log(10.0) * np.arange(-3, 4)
)
print("prior log10 odds   ECE     ECE after PAV   reference")
for row in zip(plo / np.log(10), ece_sys, ece_pav, ece_ref, strict=True):
    print("{:>10.0f}       {:.4f}    {:.4f}          {:.4f}".format(*row))

# %%
# Reliability diagram
# -------------------
# The LRs, turned into posterior probabilities of "same source" at the
# proportion of same-source comparisons (0.28), against the observed
# frequency in 10 bins, with 95% Clopper-Pearson intervals and the
# histogram below. Above 0.9 the same-source comparisons are less frequent
# than the LRs claim: the largest LRs overstate the evidence.
rel = ReliabilityDisplay.from_trials(trials, n_bins=10, name="cartridge cases")
rel.ax_.set_title("Reliability of the cartridge-case LRs at prior 0.28")
rel.figure_.savefig(OUT / "forensic_reliability.png", dpi=70)
plt.show()

# sphinx_gallery_start_ignore
assert abs(ece_sys[3] - cllr) < 1e-12 and abs(ece_pav[3] - min_cllr) < 1e-12
assert ece_ref[3] == 1.0
assert 0.0 <= eer <= 0.5 and eer_llr in data.llr
assert (rate_h1, rate_h2) == (tippett.misleading_target, tippett.misleading_nontarget)
assert abs(cllr_cal - (cllr - min_cllr)) < 1e-12
# sphinx_gallery_end_ignore
