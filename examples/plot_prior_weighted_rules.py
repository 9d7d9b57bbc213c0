"""
Prior-weighted proper scoring rules for affine calibration
==========================================================

Brümmer & Doddington (Interspeech 2013) calibrate the scores of a speaker
recognizer with an affine map ``l = A s + B`` trained on different members
of the Beta family of proper scoring rules, and evaluate NIST SRE'12's
``C_primary``, the mean of the normalized actual DCF at ``p_target = 0.01``
and ``0.001`` (``c_miss = c_fa = 1``, Bayes thresholds ``l >= 4.60`` and
``l >= 6.91``). Their finding: rules with ``alpha = 2`` (Brier ``(2,2)`` and
``(2,1)``), which put more weight on high LLR thresholds, give lower and
wider minima of ``C_primary`` over the training prior log-odds ``tau`` than
logistic regression ``(1,1)``; the boosting rule ``(1/2,1/2)`` does poorly
(0.65).

The SRE'12 scores are not public, so this example simulates the situation
that makes the choice of rule matter: target scores ``N(4, 2^2)`` and
non-target scores ``N(0, 1)``. With unequal variances the true LLR is
quadratic in the score, so no affine map is right everywhere; the rule
decides where it is right.

What the simulation shows (fixed random state; the numbers printed below): the paper's
finding holds in its robust form, *wider* minima. Logistic regression is
near its best (``C_primary`` 0.475) only at the most negative ``tau`` (-9 to
-7) and degrades steadily towards ``tau = 0`` (0.634). The ``alpha = 2``
rules stay within about 0.01 of their minima over a much wider range,
``(2,1)`` from ``tau = -9`` to ``-2`` (minimum 0.475) and Brier ``(2,2)``
from -9 to -4 (minimum 0.473), and at ``tau = 0`` they are at 0.512 and
0.587. The *lowest* values of the three rules (0.473-0.475) are within the
sampling noise of each other and of the true LLR (0.474; PAV oracle 0.471):
a few hundred false alarms decide the DCF at ``p_target = 0.001``, so
"lower" is not established here. The boosting rule is invariant to ``tau``
(as the paper predicts for ``alpha = beta = 1/2``) and poor (0.666; 0.65 in
the paper).

The figures are also saved into the folder named by
``$SKCALIB_EXAMPLES_OUT`` (by default ``skcalib-examples`` in the system's
temporary folder).
"""

import os
import tempfile
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit
from scipy.stats import norm
from sklearn.exceptions import ConvergenceWarning

from skcalib import PAVLLRCalibrator, ProperScoringAffineCalibrator
from skcalib.metrics import actual_dcf

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

RULES = {
    (1.0, 1.0): ("logarithmic (1,1)", "tab:blue", "^"),
    (2.0, 1.0): ("(2,1)", "tab:red", "o"),
    (2.0, 2.0): ("Brier (2,2)", "tab:green", "*"),
    (0.5, 0.5): ("boosting (1/2,1/2)", "tab:gray", "s"),
}
# Below tau = -9 the (2,1) rule has no finite minimizer on these data: its
# target cost is bounded, so with targets weighted by ~1e-4 a step above every
# non-target beats any finite slope (the fit would stop with a warning).
TAUS = np.arange(-9.0, 0.5, 1.0)
P_TARGETS = (0.01, 0.001)
TARGET_MEAN, TARGET_STD = 4.0, 2.0


def simulate(n_tar, n_non, rng):
    """Scores, labels and the true LLR of the unequal-variance simulation."""
    s = np.r_[rng.normal(TARGET_MEAN, TARGET_STD, n_tar), rng.normal(0, 1, n_non)]
    y = np.r_[np.ones(n_tar, dtype=int), np.zeros(n_non, dtype=int)]
    true_llr = norm.logpdf(s, TARGET_MEAN, TARGET_STD) - norm.logpdf(s, 0.0, 1.0)
    return s, y, true_llr


def c_primary(y, llr):
    """Mean normalized actual DCF at p_target 0.01 and 0.001 (SRE'12)."""
    return float(np.mean([actual_dcf(y, llr, p_target=p) for p in P_TARGETS]))


# %%
# Calibration and evaluation sets
# -------------------------------
# 20 000 targets and 300 000 non-targets each, from the same simulation.
rng = np.random.default_rng(2013)
s_cal, y_cal, _ = simulate(20_000, 300_000, rng)
s_eval, y_eval, true_eval = simulate(20_000, 300_000, rng)

# %%
# Train every rule at every training prior
# ----------------------------------------
# ``prior`` is the synthetic target prior of the training objective (its
# log-odds is the paper's :math:`\tau`). The PAV-LLR of the evaluation
# scores is an oracle reference: it sees the evaluation labels.
results = {rule: [] for rule in RULES}
fitted = {}
for rule in RULES:
    for tau in TAUS:
        cal = ProperScoringAffineCalibrator(
            alpha=rule[0], beta=rule[1], p_target=float(expit(tau))
        )
        with warnings.catch_warnings():
            # none on this grid: fail loudly if that changes
            warnings.simplefilter("error", ConvergenceWarning)
            cal.fit(s_cal, y_cal)
        results[rule].append(c_primary(y_eval, cal.transform(s_eval)))
    fitted[rule] = ProperScoringAffineCalibrator(
        alpha=rule[0], beta=rule[1], p_target=0.01
    ).fit(s_cal, y_cal)
pav_eval = PAVLLRCalibrator().fit(s_eval, y_eval).transform(s_eval)
ref_true = c_primary(y_eval, true_eval)
ref_pav = c_primary(y_eval, pav_eval)

print("C_primary on the evaluation set against tau (training prior log-odds)")
print("tau      " + " ".join(f"{t:>6.0f}" for t in TAUS))
for rule in RULES:
    label = f"({rule[0]:g},{rule[1]:g})"
    print(f"{label:<9}" + " ".join(f"{v:>6.3f}" for v in results[rule]))
print(f"true LLR {ref_true:.3f}   PAV oracle {ref_pav:.3f}")

# %%
# C_primary against the training prior
# ------------------------------------
# The paper's Fig. 2. Logistic regression is near its best only at the most
# negative :math:`\tau`; the ``alpha = 2`` rules stay near their minima over
# a much wider range; the boosting rule is flat (invariant to :math:`\tau`)
# and poor.
fig, ax = plt.subplots(figsize=(6.4, 4.4))
for rule, (name, color, marker) in RULES.items():
    ax.plot(TAUS, results[rule], marker=marker, color=color, label=name)
ax.axhline(ref_true, color="k", ls="--", lw=1, label="true LLR")
ax.axhline(ref_pav, color="k", ls=":", lw=1, label="PAV oracle (eval labels)")
ax.set_xlabel(r"training prior log-odds $\tau$")
ax.set_ylabel(r"$C_{primary}$ (normalized, SRE'12)")
ax.set_title("Affine calibration on prior-weighted proper scoring rules")
ax.legend(fontsize=8)
fig.tight_layout()
path1 = OUT / "prior_weighted_rules_cprimary.png"
fig.savefig(path1, dpi=100)

# %%
# The PAV reference against the affine LLRs
# -----------------------------------------
# The paper's Fig. 3, for rules trained at :math:`\tau = \operatorname{logit}
# 0.01`. The logistic map lies closer to the PAV reference at low LLRs and
# bends away from it around the two C_primary thresholds (dotted), where the
# Brier map follows it more closely: an affine map has to choose.
order = np.argsort(s_eval)
step = max(1, order.shape[0] // 4000)
idx = order[::step]
fig, ax = plt.subplots(figsize=(5.2, 5.2))
for rule in [(1.0, 1.0), (2.0, 2.0)]:
    name, color, _ = RULES[rule]
    ax.plot(fitted[rule].transform(s_eval[idx]), pav_eval[idx], color=color, label=name)
lim = (-12, 14)
ax.plot(lim, lim, color="k", lw=1, label="identity")
for thr in (-np.log(0.01 / 0.99), -np.log(0.001 / 0.999)):
    ax.axvline(thr, color="k", ls=":", lw=0.8)
    ax.axhline(thr, color="k", ls=":", lw=0.8)
ax.set_xlim(lim)
ax.set_ylim(lim)
ax.set_xlabel(r"affine calibrated LLR ($\tau = $logit 0.01)")
ax.set_ylabel("PAV reference LLR")
ax.set_title("PAV reference vs affine calibration")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
path2 = OUT / "prior_weighted_rules_pav_reference.png"
fig.savefig(path2, dpi=100)
