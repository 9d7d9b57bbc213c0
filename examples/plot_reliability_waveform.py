"""
Reliability diagrams before and after calibration (waveform data)
=================================================================

Rakotomalala's course notes on score normalization use Breiman's waveform
data without its third class: 500 samples to train classifiers, 500
("tuning set") to calibrate their scores, 10000 to test. Logistic regression
is well calibrated out of the box; naive Bayes, an RBF SVM and boosting are
not. We draw scikit-learn's reliability diagrams
(:class:`sklearn.calibration.CalibrationDisplay`, reused rather than
rewritten) of the raw outputs, then after Platt scaling
(:class:`~skcalib.PlattCalibrator`) and after isotonic regression
(:class:`~skcalib.PAVCalibrator`) fitted on the tuning set, and print the
expected calibration error.

As in the notes, the SVM's raw decision values are mapped to [0, 1] by
min-max scaling for its "before" diagram, which shows that rescaling is not
calibration.

The figure is also saved into the folder named by ``$SKCALIB_EXAMPLES_OUT``
(by default ``skcalib-examples`` in the system's temporary folder).
"""

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibrationDisplay
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC

from skcalib import PAVCalibrator, PlattCalibrator
from skcalib.datasets import make_waveform
from skcalib.metrics import expected_calibration_error

OUT = Path(
    os.environ.get("SKCALIB_EXAMPLES_OUT")
    or Path(tempfile.gettempdir()) / "skcalib-examples"
)
OUT.mkdir(parents=True, exist_ok=True)

# %%
# Data and classifiers
# --------------------
# 500 samples to train, 500 to calibrate ("tune"), 10000 to test.
X, y = make_waveform(11000, random_state=0)
train, tune, test = slice(0, 500), slice(500, 1000), slice(1000, None)

classifiers = {
    "logistic regression": LogisticRegression(),
    "naive Bayes": GaussianNB(),
    "SVM (RBF)": SVC(),
    "boosting": AdaBoostClassifier(n_estimators=100, random_state=0),
}


def raw_score(clf, X):
    """The score a calibrator sees: decision function, else log-odds."""
    if hasattr(clf, "decision_function"):
        return clf.decision_function(X)
    log_proba = clf.predict_log_proba(X)
    return log_proba[:, 1] - log_proba[:, 0]


def raw_proba(clf, X):
    """The classifier's own probability (min-max scaled decision for the SVM)."""
    if hasattr(clf, "predict_proba"):
        return clf.predict_proba(X)[:, 1]
    s = clf.decision_function(X)
    return (s - s.min()) / (s.max() - s.min())


# %%
# Reliability diagrams and ECE
# ----------------------------
# Each classifier is trained, its scores on the tuning set calibrate a Platt
# and a PAV calibrator, and the test set gives one reliability curve per
# classifier and method (quantile bins: equal numbers of test samples) and
# the expected calibration error. Platt and PAV bring every classifier close
# to the diagonal; the raw boosting and (min-max scaled) SVM outputs are the
# furthest from it, with an ECE ten times that of their calibrated versions.
# The three reliability diagrams and a bar chart of the ECEs share a 2 x 2
# grid, so that the figure keeps a readable size on the page.
fig, grid = plt.subplots(2, 2, figsize=(10, 9.5))
axes = [grid[0, 0], grid[0, 1], grid[1, 0]]
titles = ["raw outputs", "Platt scaling", "isotonic (PAV)"]
print(f"{'ECE (test)':22s} {'raw':>7s} {'Platt':>7s} {'PAV':>7s}")
all_eces = {}
for name, clf in classifiers.items():
    clf.fit(X[train], y[train])
    s_tune, s_test = raw_score(clf, X[tune]), raw_score(clf, X[test])
    probas = [
        raw_proba(clf, X[test]),
        PlattCalibrator().fit(s_tune, y[tune]).transform(s_test),
        PAVCalibrator().fit(s_tune, y[tune]).transform(s_test),
    ]
    eces = [expected_calibration_error(y[test], p, n_bins=10) for p in probas]
    all_eces[name] = eces
    print(f"{name:22s} " + " ".join(f"{e:7.4f}" for e in eces))
    for ax, p in zip(axes, probas, strict=True):
        CalibrationDisplay.from_predictions(
            y[test], p, n_bins=10, strategy="quantile", name=name, ax=ax
        )
for ax, title in zip(axes, titles, strict=True):
    ax.set_title(title)
    ax.set_xlabel("mean predicted probability (quantile bins)")
    ax.set_ylabel("fraction of positives")
    ax.legend(fontsize="small", loc="upper left")

ax = grid[1, 1]
pos = np.arange(len(classifiers))
for j, method in enumerate(titles):
    values = [all_eces[name][j] for name in classifiers]
    ax.bar(pos + (j - 1) * 0.27, values, width=0.27, label=method)
ax.set_xticks(pos, [n.replace(" ", "\n", 1) for n in classifiers], fontsize="small")
ax.set_ylabel("ECE (l1, 10 bins of equal width)")
ax.set_title("expected calibration error (lower is better)")
ax.legend(fontsize="small")
fig.suptitle("Two-class waveform: reliability diagrams on 10000 test samples")
fig.tight_layout()
fig.savefig(OUT / "reliability_waveform.png", dpi=70)
# sphinx_gallery_start_ignore
assert np.isfinite(list(all_eces.values())).all()
# sphinx_gallery_end_ignore
