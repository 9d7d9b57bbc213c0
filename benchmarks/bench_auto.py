"""What ``AutoCalibrator().fit`` costs against its candidates and temperature scaling.

Printed in one run, for binary scores at n = 6,500, 1e5 and 1e6 and for
5,000 samples x 10 classes (log-probabilities of an overconfident
classifier):

- ``auto``: ``AutoCalibrator().fit`` (the default of
  ``CalibratedClassifier``);
- ``candidates``: the sum of one fit of each default candidate on all the
  data (binary: temperature, sigmoid of the score and of the probability,
  PAV, quadratic scaling and SMS; K classes: temperature, SMS, matrix
  scaling, and each one-vs-rest candidate fitted on the K columns), what
  ``auto`` would cost
  if it knew the weights;
- ``temperature``: ``MulticlassAffineCalibrator(kind='temperature')`` (for
  binary scores on the two columns ``(-s/2, s/2)``) and scikit-learn's
  ``CalibratedClassifierCV(FrozenEstimator(clf), method='temperature')`` on
  a classifier whose ``decision_function`` returns the scores;

and the ratios ``auto / candidates``, ``auto / temperature`` (skcalib's)
and ``auto / sklearn temperature``. Times are CPU seconds
(``time.process_time``, less sensitive than the wall clock to other load on
a shared machine), BLAS on one thread, the best of ``--repeats``
interleaved calls of each (``--repeats-large`` at n >= 1e6); the wall time
of ``auto`` and the load average are printed beside them.

Usage::

    python benchmarks/bench_auto.py
    python benchmarks/bench_auto.py --sizes 6500 100000 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _meta import run_script
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator
from threadpoolctl import threadpool_limits

from skcalib import AutoCalibrator, MulticlassAffineCalibrator
from skcalib._auto import (
    OneVsRestCalibration,
    _default_binary_candidates,
    _default_multiclass_candidates,
    takes_all_classes,
)
from skcalib.utils._response import one_vs_rest_log_odds


class _Scores(ClassifierMixin, BaseEstimator):
    """A fitted 'classifier' whose decision function is its input."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        X = np.asarray(X)
        return X[:, 0] if len(self.classes_) == 2 else X

    def predict(self, X):
        d = self.decision_function(X)
        return self.classes_[(d > 0).astype(int) if d.ndim == 1 else d.argmax(axis=1)]


def _binary(n, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    return rng.normal(size=n) * 1.4 + 1.8 * y, y


def _multiclass(n, K, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    logits = 3.0 * (2.0 * np.eye(K)[y] + rng.normal(size=(n, K)))
    return log_softmax(logits, axis=1), y


def _timed(fn):
    """CPU time and wall time of one call."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def _candidate_fits(X, y, multiclass):
    """Fit every default candidate once on all the data."""
    if multiclass:
        K = X.shape[1]
        ovr = one_vs_rest_log_odds(X)
        for _, cal in _default_multiclass_candidates(X.shape[0], K):
            if takes_all_classes(cal):
                clone(cal).fit(X, y)
            else:
                OneVsRestCalibration.fit(cal, ovr, y, K)
    else:
        for _, cal in _default_binary_candidates(X.shape[0]):
            clone(cal).fit(X, y)


def _temperature(X, y, multiclass):
    Z = X if multiclass else np.column_stack([-0.5 * X, 0.5 * X])
    return MulticlassAffineCalibrator(kind="temperature").fit(Z, y)


def _sklearn_temperature(X, y, multiclass):
    clf = _Scores().fit(X, y)
    Z = X if multiclass else X[:, None]
    return CalibratedClassifierCV(FrozenEstimator(clf), method="temperature").fit(Z, y)


def measure(label, X, y, multiclass, repeats):
    """The four timings, interleaved (a change of load hits all alike); the
    best of ``repeats`` of each."""
    calls = {
        "auto": lambda: AutoCalibrator().fit(X, y),
        "candidates": lambda: _candidate_fits(X, y, multiclass),
        "temperature": lambda: _temperature(X, y, multiclass),
        "sklearn": lambda: _sklearn_temperature(X, y, multiclass),
    }
    cpu = dict.fromkeys(calls, np.inf)
    auto_wall = np.inf
    for _ in range(repeats):
        for name, fn in calls.items():
            c, w = _timed(fn)
            cpu[name] = min(cpu[name], c)
            if name == "auto":
                auto_wall = min(auto_wall, w)
    auto, cand, temp, sk = (cpu[k] for k in calls)
    print(
        f"{label:>16} {auto * 1e3:9.1f} {auto_wall * 1e3:9.1f} "
        f"{cand * 1e3:11.1f} {temp * 1e3:9.1f} {sk * 1e3:9.1f} "
        f"{auto / cand:8.2f} {auto / temp:8.2f} {auto / sk:8.2f}",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=float,
        nargs="+",
        default=[6500, 1e5, 1e6],
        help="binary sample sizes (default: 6500 1e5 1e6)",
    )
    parser.add_argument(
        "--multiclass",
        type=int,
        nargs=2,
        default=[5000, 10],
        help="multiclass samples and classes (default: 5000 10)",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed repeats (default: 5)"
    )
    parser.add_argument(
        "--repeats-large",
        type=int,
        default=2,
        help="timed repeats at n >= 1e6 (default: 2)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # fit warnings of the peers are not timed
    print(f"load average {os.getloadavg()[0]:.2f}; CPU ms (auto: CPU and wall)")
    print(
        f"{'data':>16} {'auto':>9} {'auto wall':>9} {'candidates':>11} "
        f"{'temp':>9} {'sk temp':>9} {'/cands':>8} {'/temp':>8} {'/sk temp':>8}"
    )
    with threadpool_limits(1):
        for n in args.sizes:
            n = int(n)
            X, y = _binary(n)
            repeats = args.repeats_large if n >= 1_000_000 else args.repeats
            measure(f"binary {n}", X, y, False, repeats)
        n, K = args.multiclass
        X, y = _multiclass(n, K)
        measure(f"{n} x {K}", X, y, True, args.repeats)


if __name__ == "__main__":
    run_script(main)
