"""Cross Venn-Abers against one Venn-Abers calibrator and the default.

On the data sets of ``bench_quality.py`` (same registry of data sets and
classifiers), per repeat ``r``: a stratified 75/25 train/test split seeded
with ``r``; on the train part,

- ``default``: ``CalibratedClassifier(clf)`` (5 folds);
- ``va``: ``CalibratedClassifier(clf, VennAbersCalibrator())``, one
  calibrator on all the out-of-fold scores (5 folds);
- ``cvap_K``: ``CalibratedClassifier(clf, VennAbersCalibrator(), cv=K,
  ensemble=True)``, cross Venn-Abers, for each ``K`` of ``--folds``;

printed: the mean test log-loss over the repeats. Each fold of cross
Venn-Abers calibrates on its own test fold, so more folds mean smaller
calibration sets (a fold with ``t`` samples of a class caps its probability
at ``(t + 1) / (t + 2)``).

Usage::

    python benchmarks/bench_cross_venn_abers.py --datasets wine iris \\
        --classifiers logreg gnb --repeats 3
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _meta import run_script
from bench_quality import CLASSIFIERS, DATASET_GROUPS, DATASETS
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from skcalib import CalibratedClassifier, VennAbersCalibrator


def methods(folds):
    out = {
        "default": lambda clf: CalibratedClassifier(clf),
        "va": lambda clf: CalibratedClassifier(clf, VennAbersCalibrator()),
    }
    for k in folds:
        out[f"cvap_{k}"] = lambda clf, k=k: CalibratedClassifier(
            clf, VennAbersCalibrator(), cv=k, ensemble=True
        )
    return out


def run(dataset, classifier, repeats, folds):
    X, y = DATASETS[dataset]()
    labels = np.unique(y)
    losses = {name: [] for name in methods(folds)}
    for r in range(repeats):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=r
        )
        for name, build in methods(folds).items():
            with warnings.catch_warnings():
                # the small-fold warning of cross Venn-Abers is the point
                warnings.simplefilter("ignore")
                model = build(CLASSIFIERS[classifier]()).fit(X_tr, y_tr)
                p = model.predict_proba(X_te)
            losses[name].append(log_loss(y_te, p, labels=labels))
    return {name: float(np.mean(v)) for name, v in losses.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["panel"],
        help="data sets or groups of bench_quality (default: panel)",
    )
    parser.add_argument(
        "--classifiers",
        nargs="+",
        default=["logreg", "gnb"],
        help="classifiers of bench_quality (default: logreg gnb)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="split repeats (default: 3)"
    )
    parser.add_argument(
        "--folds",
        type=int,
        nargs="+",
        default=[3, 5, 10],
        help="numbers of folds of cross Venn-Abers (default: 3 5 10)",
    )
    args = parser.parse_args(argv)
    datasets = [d for name in args.datasets for d in DATASET_GROUPS.get(name, [name])]
    names = list(methods(args.folds))
    print(f"{'cell':32s} " + " ".join(f"{n:>9s}" for n in names))
    for dataset in datasets:
        for classifier in args.classifiers:
            row = run(dataset, classifier, args.repeats, args.folds)
            cell = f"{dataset} x {classifier}"
            values = " ".join(f"{row[n]:9.4f}" for n in names)
            print(f"{cell:32s} {values}", flush=True)


if __name__ == "__main__":
    run_script(main)
