"""
Calibrating four classifiers: scikit-learn's and skcalib's calibrators
======================================================================

Rakotomalala's course notes on score calibration train four classifiers on
500 samples of Breiman's two-class waveform data, calibrate them on 500 other
samples and evaluate on 10000: logistic regression, an RBF support vector
machine, boosted trees and naive Bayes. We repeat that experiment and
compare, on the test set,

- the uncalibrated scores (``predict_proba``, or the sigmoid of
  ``decision_function`` for the SVM; as LLRs, the log-odds minus the training
  prior log-odds),
- scikit-learn's ``CalibratedClassifierCV`` with ``method='sigmoid'`` and
  ``method='isotonic'``,
- skcalib's :class:`~skcalib.CalibratedClassifier` with each of the four
  calibrators: :class:`~skcalib.PAVCalibrator` (isotonic),
  :class:`~skcalib.PAVLLRCalibrator` (PAV-LLR, rule-of-succession extremes),
  :class:`~skcalib.PlattCalibrator` and
  :class:`~skcalib.ProperScoringAffineCalibrator` (prior-weighted logistic
  regression).

Every calibrator is fitted on the calibration set only: the classifier,
already fitted on the training set, is wrapped in scikit-learn's
``FrozenEstimator`` so that it is not refitted.

Metrics (lower is better): the Brier score and log-loss of the posterior
probabilities (scikit-learn), Cllr and its minimum over monotone
recalibrations (bits; ``min Cllr`` measures discrimination only, ``Cllr -
min Cllr`` the calibration loss), and the actual and minimum normalized
detection cost at ``P_TARGET``.

The reliability diagrams are also saved into the folder named by
``$SKCALIB_EXAMPLES_OUT`` (by default ``skcalib-examples`` in the system's
temporary folder). ``SKCALIB_EXAMPLES_FAST=1`` uses a 2000-sample test set.
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit, logit
from sklearn.calibration import CalibratedClassifierCV, CalibrationDisplay
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC

from skcalib import (
    CalibratedClassifier,
    PAVCalibrator,
    PAVLLRCalibrator,
    PlattCalibrator,
    ProperScoringAffineCalibrator,
    ScoreTransformer,
)
from skcalib.datasets import make_waveform
from skcalib.metrics import actual_dcf, cllr, min_cllr, min_dcf

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

P_TARGET = 0.5  # the classes of the waveform data are balanced
FAST = os.environ.get("SKCALIB_EXAMPLES_FAST", "") not in ("", "0")
N_TRAIN, N_CAL, N_TEST = 500, 500, 2000 if FAST else 10000


# %%
# Data: the 500 / 500 / 10000 split of the course notes.
X, y = make_waveform(N_TRAIN + N_CAL + N_TEST, random_state=0)
X_train, y_train = X[:N_TRAIN], y[:N_TRAIN]
X_cal, y_cal = X[N_TRAIN : N_TRAIN + N_CAL], y[N_TRAIN : N_TRAIN + N_CAL]
X_test, y_test = X[N_TRAIN + N_CAL :], y[N_TRAIN + N_CAL :]

classifiers = {
    "logistic regression": LogisticRegression(max_iter=1000),
    "RBF SVM": SVC(kernel="rbf", gamma="scale"),
    "boosted trees": GradientBoostingClassifier(random_state=0),
    "naive Bayes": GaussianNB(),
}


# %%
# Posterior probabilities and LLRs of every method on the test set.
def uncalibrated(clf):
    """The classifier's own probability (or sigmoid of its margin) and LLR."""
    score = ScoreTransformer(FrozenEstimator(clf), cv=None)
    log_odds = score.fit(X_cal, y_cal).transform(X_test)[:, 0]
    return expit(log_odds), log_odds - logit(np.mean(y_train))


def sklearn_calibrated(clf, method):
    model = CalibratedClassifierCV(FrozenEstimator(clf), method=method)
    p = model.fit(X_cal, y_cal).predict_proba(X_test)[:, 1]
    with np.errstate(divide="ignore"):  # isotonic gives exact 0 and 1
        return p, logit(p) - logit(np.mean(y_cal))


def skcalib_calibrated(clf, calibrator):
    model = CalibratedClassifier(FrozenEstimator(clf), calibrator)
    model.fit(X_cal, y_cal)
    # predict_proba at the calibration prior, decision_function is the LLR
    return model.predict_proba(X_test)[:, 1], model.decision_function(X_test)


methods = {
    "uncalibrated": uncalibrated,
    "sklearn sigmoid": lambda clf: sklearn_calibrated(clf, "sigmoid"),
    "sklearn isotonic": lambda clf: sklearn_calibrated(clf, "isotonic"),
    "PAV": lambda clf: skcalib_calibrated(clf, PAVCalibrator()),
    "PAV-LLR": lambda clf: skcalib_calibrated(clf, PAVLLRCalibrator()),
    "Platt": lambda clf: skcalib_calibrated(clf, PlattCalibrator()),
    "affine": lambda clf: skcalib_calibrated(
        clf, ProperScoringAffineCalibrator(p_target=P_TARGET)
    ),
}


def metrics(p, llr):
    return {
        "Brier": brier_score_loss(y_test, p),
        "log-loss": log_loss(y_test, np.clip(p, 1e-15, 1 - 1e-15)),
        "Cllr": cllr(y_test, llr),
        "min Cllr": min_cllr(y_test, llr),
        "act DCF": actual_dcf(y_test, llr, p_target=P_TARGET),
        "min DCF": min_dcf(y_test, llr, p_target=P_TARGET),
    }


results, probas = {}, {}
for clf_name, clf in classifiers.items():
    clf.fit(X_train, y_train)
    for method_name, method in methods.items():
        p, llr = method(clf)
        probas[clf_name, method_name] = p
        results[clf_name, method_name] = metrics(p, llr)

# %%
# The table
# ---------
columns = ["Brier", "log-loss", "Cllr", "min Cllr", "act DCF", "min DCF"]
print(
    f"waveform, {N_TRAIN} train / {N_CAL} calibration / {N_TEST} test; "
    f"DCF at p_target={P_TARGET}"
)
header = f"{'classifier':20} {'method':17}" + "".join(f"{c:>10}" for c in columns)
print(header)
print("-" * len(header))
for (clf_name, method_name), row in results.items():
    print(
        f"{clf_name:20} {method_name:17}" + "".join(f"{row[c]:10.4f}" for c in columns)
    )

# %%
# What to look for. PAV (isotonic) and scikit-learn's isotonic give the same
# probabilities, up to interpolation: scikit-learn calibrates naive Bayes on
# its probabilities, skcalib on their log-odds. Both give some test samples
# probability exactly 0 or 1, hence an infinite log-loss/Cllr on a test error;
# PAV-LLR's rule of succession keeps every LLR finite. Platt's sigmoid is
# fitted on the log-odds of ``predict_proba`` in skcalib (the score of
# ``ScoreTransformer``), on the probability itself in scikit-learn: for the
# over-confident naive Bayes that is the difference between a good and a poor
# calibration. ``min Cllr`` and ``min DCF`` change only where a calibrator is
# not strictly monotone (PAV's flat steps): calibration cannot improve
# discrimination; ``Cllr - min Cllr`` is what it can remove.

# %%
# PAV and scikit-learn's isotonic calibration give the same probabilities up
# to the interpolation between knots (the largest difference over the four
# classifiers is printed here): drawn on one axes, one curve would hide the
# other, so they go into different rows below.
gap = max(
    np.abs(probas[c, "PAV"] - probas[c, "sklearn isotonic"]).max() for c in classifiers
)
print(f"largest |PAV - sklearn isotonic| probability difference: {gap:.2g}")

# %%
# Reliability diagrams
# --------------------
# One column per classifier; the top row shows the uncalibrated outputs and
# scikit-learn's two methods, the bottom row skcalib's calibrators. PAV is
# not drawn: its curve is scikit-learn's isotonic one (top row, see above),
# and PAV-LLR's probabilities at the calibration prior are PAV's except in
# the two extreme blocks. Platt and the logistic ``affine`` calibrator nearly
# coincide, as the table shows: the dashed line with circles lies on the
# solid one. Quantile bins hold equal numbers of
# test samples, so that PAV's steps do not leave bins almost empty. The
# over-confident naive Bayes is where the methods differ: scikit-learn's
# sigmoid, fitted on the probabilities, stays far from the diagonal; Platt
# scaling fitted on the log-odds does not.
rows = [
    ["uncalibrated", "sklearn sigmoid", "sklearn isotonic"],
    ["PAV-LLR", "Platt", "affine"],
]
styles = {"affine": {"linestyle": "--", "marker": "o", "markerfacecolor": "none"}}
colors = dict(
    zip(methods, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False)
)
fig, axes = plt.subplots(2, 4, figsize=(14, 7.6), sharex=True, sharey=True)
for i, (row, names) in enumerate(zip(axes, rows, strict=True)):
    for ax, clf_name in zip(row, classifiers, strict=True):
        for method_name in names:
            CalibrationDisplay.from_predictions(
                y_test,
                probas[clf_name, method_name],
                n_bins=10,
                strategy="quantile",
                name=method_name,
                ax=ax,
                ref_line=method_name == names[0],
                color=colors[method_name],
                **styles.get(method_name, {}),
            )
        ax.set_title(clf_name)
        ax.get_legend().remove()
        ax.set_xlabel("mean predicted probability" if i == 1 else "")
        ax.set_ylabel("fraction of targets" if ax is row[0] else "")
    handles, labels = row[0].get_legend_handles_labels()
    row[-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.03, 1.0))
fig.suptitle("Reliability diagrams on the waveform test set (quantile bins)")
fig.tight_layout()
path = OUT / "compare_calibrated_classifier_reliability.png"
fig.savefig(path, dpi=80)
