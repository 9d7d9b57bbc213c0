"""Benchmark of skcalib.metrics against the kernel, np.argsort and scikit-learn.

What is measured against what (median wall time of ``--repeats`` runs,
interleaved round-robin so that a changing machine load hits all alike):

* the minimum metrics ``min_dcf``, ``eer``, ``min_cllr`` (and ``rocch``,
  ``bayes_error_curve`` on a 41-point grid) against the PAV kernel
  ``skcalib._kernel._pav.pav_blocks`` on the same, already clean, data (target: within
  1.2x), against one ``np.argsort`` of the scores, and against what a user
  would otherwise run: scikit-learn's ``roc_curve`` alone, and ``roc_curve``
  followed by a numpy sweep for min DCF and EER (target: min metrics at
  least 4x faster than ``roc_curve`` alone);
* one ``ScoredTrials`` asked for the five numbers of ``skcalib evaluate``
  (EER, min DCF, actual DCF, Cllr, min Cllr: one validation, one sort)
  against the five metric functions called one after the other;
* the actual metrics ``actual_dcf``, ``cllr``, ``brier_loss`` against one
  ``np.log1p`` pass over the scores (target: ``actual_dcf`` and ``cllr``
  within 3x) and against scikit-learn's ``log_loss`` / ``brier_score_loss``
  on the corresponding probabilities;
* peak memory (``tracemalloc``, which sees numpy's allocations) of every
  metric at the largest size, on top of the inputs (target: < 400 MiB).

Data: Gaussian target/non-target scores (30% targets) used as LLRs, and a
pathological variant with scores rounded to 2 decimals (massive ties).

Usage::

    python benchmarks/bench_metrics.py                    # n = 1e5, 1e6, 1e7
    python benchmarks/bench_metrics.py --sizes 100000 --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from scipy.special import expit
from sklearn.metrics import brier_score_loss, log_loss, roc_curve

from skcalib._kernel._pav import pav_blocks
from skcalib.metrics import (
    ScoredTrials,
    actual_dcf,
    bayes_error_curve,
    brier_loss,
    cllr,
    eer,
    min_cllr,
    min_dcf,
    rocch,
)

GRID = np.linspace(-10, 10, 41)


def make_data(n, kind, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.normal(size=n) * 1.5 + 2.0 * y - 1.0
    if kind == "rounded":
        s = np.round(s, 2)
    return y, s


def sklearn_min_dcf_eer(y, s, p_target=0.01):
    """What a user would write with scikit-learn: roc_curve + a numpy sweep."""
    fpr, tpr, _ = roc_curve(y, s)
    pmiss = 1.0 - tpr
    dcf = p_target * pmiss + (1 - p_target) * fpr
    min_norm = min(dcf.min(), p_target, 1 - p_target) / min(p_target, 1 - p_target)
    k = np.flatnonzero(pmiss <= fpr)  # first crossing, linear interpolation
    i = k[-1] if k.size else 0
    return min_norm, 0.5 * (pmiss[i] + fpr[i])


def five_metrics(y, s):
    """EER, min DCF, actual DCF, Cllr, min Cllr: five function calls."""
    return (
        eer(y, s),
        min_dcf(y, s, p_target=0.01),
        actual_dcf(y, s, p_target=0.01),
        cllr(y, s),
        min_cllr(y, s),
    )


def five_from_trials(y, s):
    """The same five numbers from one ScoredTrials."""
    trials = ScoredTrials(y, s)
    return (
        trials.eer(),
        trials.min_dcf(0.01),
        trials.actual_dcf(0.01),
        trials.cllr(),
        trials.min_cllr(),
    )


def cases(y, s):
    yb = y == 1
    q = expit(s)
    return {
        # references
        "np.argsort": lambda: np.argsort(s),
        "np.log1p": lambda: np.log1p(np.abs(s)),
        "pav_blocks (kernel)": lambda: pav_blocks(s, yb),
        "sk roc_curve": lambda: roc_curve(y, s),
        "sk roc_curve+sweep": lambda: sklearn_min_dcf_eer(y, s),
        "sk log_loss": lambda: log_loss(y, q),
        "sk brier_score_loss": lambda: brier_score_loss(y, q),
        # skcalib
        "min_dcf": lambda: min_dcf(y, s, p_target=0.01),
        "eer": lambda: eer(y, s),
        "min_cllr": lambda: min_cllr(y, s),
        "rocch": lambda: rocch(y, s),
        "bayes_error_curve": lambda: bayes_error_curve(y, s, GRID),
        "actual_dcf": lambda: actual_dcf(y, s, p_target=0.01),
        "cllr": lambda: cllr(y, s),
        "brier_loss": lambda: brier_loss(y, s),
        "5 metric functions": lambda: five_metrics(y, s),
        "ScoredTrials (same 5)": lambda: five_from_trials(y, s),
    }


MEMORY = [
    "pav_blocks (kernel)",
    "min_dcf",
    "eer",
    "min_cllr",
    "rocch",
    "bayes_error_curve",
    "actual_dcf",
    "cllr",
    "brier_loss",
]


def time_round_robin(funcs, repeats):
    """Median seconds of each function, repeats interleaved in rotating order.

    On a shared machine the load changes during a run; interleaving (rather
    than timing one function's repeats back to back) makes the ratios fair.
    """
    names = list(funcs)
    for name in names:
        funcs[name]()  # warm-up
    times = {name: [] for name in names}
    for r in range(repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            t0 = time.perf_counter()
            funcs[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: float(np.median(v)) for name, v in times.items()}


def peak_mib(f):
    tracemalloc.start()
    try:
        f()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[10**5, 10**6, 10**7],
        help="numbers of scores (default 100000 1000000 10000000)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs, median (default 3)"
    )
    parser.add_argument(
        "--kinds",
        nargs="+",
        default=["gaussian", "rounded"],
        help="score data: gaussian, rounded (to 2 decimals, ties) "
        "(default gaussian rounded)",
    )
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="skip the peak-memory measurements (default: measured)",
    )
    parser.add_argument(
        "--json", help="write the results to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)

    results = []
    for kind in args.kinds:
        for n in args.sizes:
            y, s = make_data(n, kind)
            c = cases(y, s)
            t = time_round_robin(c, args.repeats)
            mem = {}
            if not args.no_memory and n == max(args.sizes):
                mem = {name: peak_mib(c[name]) for name in MEMORY}
            results.append({"kind": kind, "n": n, "seconds": t, "peak_mib": mem})
            print(f"\n== {kind}, n = {n:.0e} ==")
            print(
                f"{'function':<22}{'seconds':>10}{'/argsort':>10}{'/kernel':>10}"
                f"{'/log1p':>9}{'roc/this':>10}{'peak MiB':>10}"
            )
            for name, sec in t.items():
                m = f"{mem[name]:10.1f}" if name in mem else f"{'':>10}"
                print(
                    f"{name:<22}{sec:10.4f}{sec / t['np.argsort']:10.2f}"
                    f"{sec / t['pav_blocks (kernel)']:10.2f}"
                    f"{sec / t['np.log1p']:9.2f}"
                    f"{t['sk roc_curve'] / sec:10.2f}{m}"
                )
    if args.json:
        commit = git_commit()
        write_json(
            args.json,
            {
                "date": utc_now(),
                "commit": commit,
                "python": sys.version.split()[0],
                "numpy": np.__version__,
                "results": results,
            },
        )
    return 0


if __name__ == "__main__":
    run_script(main)
