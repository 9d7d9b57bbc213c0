"""Per-call latency of the calibrators and metrics, from n = 10 upwards.

Measured in one run on the same data, as CPU time per call
(``time.process_time``, less sensitive than the wall clock to other load on
a shared machine): each timing is a batch of calls long enough (about
``--batch-ms``) for the clock, divided by the number of calls; the best of
``--repeats`` batches is reported (the median is in the JSON output). The
pairs are timed interleaved, so a changing load hits both alike:

- ``PAVCalibrator().fit`` against
  ``sklearn.isotonic.IsotonicRegression(out_of_bounds='clip').fit``, and
  ``transform`` against its ``predict``, on the same scores;
- ``PlattCalibrator().fit`` against ``sklearn.calibration._SigmoidCalibration
  ().fit``, and ``transform`` against its ``predict``. ``_SigmoidCalibration``
  is the calibrator that ``CalibratedClassifierCV(method='sigmoid')`` fits on
  the scores of its (frozen) classifier: like ``PlattCalibrator`` it takes a
  vector of scores and the labels and fits Platt's smoothed-target sigmoid,
  without the classifier's ``decision_function`` and the cross-validation
  plumbing around it, so it is the like-for-like peer (private API, used
  here only to measure);
- the metrics ``min_dcf``, ``eer``, ``min_cllr``, ``cllr``, ``actual_dcf``
  in microseconds per call, beside scikit-learn's ``roc_curve`` and
  ``log_loss`` on the same data for scale.

A ratio above 1 means skcalib is slower. BLAS and OpenMP run on
``--threads`` threads (default 1, through ``threadpoolctl``): on a hundred
samples a thread pool only adds overhead, and on a loaded machine
``_SigmoidCalibration``'s L-BFGS-B took 20 ms per fit with 2 threads against
3 ms with one. The load average of the machine is printed and stored with
the results.

Data: Gaussian scores (30% targets, targets shifted by 2), and a tie-heavy
variant rounded to 2 decimals (``--kinds``).

Usage::

    python benchmarks/bench_latency.py                   # n = 10 ... 1e5
    python benchmarks/bench_latency.py --large           # ... up to 1e7
    python benchmarks/bench_latency.py --sizes 100 --repeats 21 --json out.json
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from scipy.special import expit
from sklearn.calibration import _SigmoidCalibration
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import log_loss, roc_curve
from threadpoolctl import threadpool_limits

from skcalib import PAVCalibrator, PlattCalibrator
from skcalib.metrics import actual_dcf, cllr, eer, min_cllr, min_dcf

#: (skcalib name, peer name) pairs of the ratio table
PAIRS = [
    ("PAV fit", "Isotonic fit"),
    ("PAV transform", "Isotonic predict"),
    ("Platt fit", "Sigmoid fit"),
    ("Platt transform", "Sigmoid predict"),
]
METRICS = ["min_dcf", "eer", "min_cllr", "cllr", "actual_dcf"]
METRIC_PEERS = ["sk roc_curve", "sk log_loss"]


def _data(n, kind, rng):
    y = (rng.random(n) < 0.3).astype(np.int64)
    y[:2] = [0, 1]  # both classes at n = 10 too
    s = rng.normal(size=n) + 2.0 * y - 1.0
    if kind == "rounded":
        s = np.round(s, 2)
    return s, y


def cases(s, y, s_test):
    pav = PAVCalibrator().fit(s, y)
    iso = IsotonicRegression(out_of_bounds="clip").fit(s, y)
    platt = PlattCalibrator().fit(s, y)
    sig = _SigmoidCalibration().fit(s, y)
    q = expit(s)
    return {
        "PAV fit": lambda: PAVCalibrator().fit(s, y),
        "Isotonic fit": lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y),
        "PAV transform": lambda: pav.transform(s_test),
        "Isotonic predict": lambda: iso.predict(s_test),
        "Platt fit": lambda: PlattCalibrator().fit(s, y),
        "Sigmoid fit": lambda: _SigmoidCalibration().fit(s, y),
        "Platt transform": lambda: platt.transform(s_test),
        "Sigmoid predict": lambda: sig.predict(s_test),
        "min_dcf": lambda: min_dcf(y, s, p_target=0.01),
        "eer": lambda: eer(y, s),
        "min_cllr": lambda: min_cllr(y, s),
        "cllr": lambda: cllr(y, s),
        "actual_dcf": lambda: actual_dcf(y, s, p_target=0.01),
        "sk roc_curve": lambda: roc_curve(y, s),
        "sk log_loss": lambda: log_loss(y, q),
    }


def _calls_per_batch(fn, batch_s):
    """How many calls of ``fn`` take about ``batch_s`` CPU seconds."""
    calls = 1
    while True:
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        elapsed = time.process_time() - t0
        if elapsed >= batch_s / 4 or calls >= 10**6:
            return max(1, int(calls * batch_s / max(elapsed, 1e-9)))
        calls *= 4


def time_interleaved(funcs, repeats, batch_s):
    """Best and median CPU seconds per call of each function.

    Batches of every function are interleaved in rotating order, so that a
    change of machine load during the run hits all of them alike.
    """
    names = list(funcs)
    calls = {name: _calls_per_batch(funcs[name], batch_s) for name in names}
    times = {name: [] for name in names}
    for r in range(repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn, m = funcs[name], calls[name]
            t0 = time.process_time()
            for _ in range(m):
                fn()
            times[name].append((time.process_time() - t0) / m)
    return {name: (float(np.min(v)), float(np.median(v))) for name, v in times.items()}


def run(sizes, kinds, repeats, batch_s, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for kind in kinds:
        for n in sizes:
            s, y = _data(n, kind, rng)
            s_test = _data(n, kind, rng)[0]
            with warnings.catch_warnings():
                # all-tied or separable small samples: the timings still count
                warnings.simplefilter("ignore")
                t = time_interleaved(cases(s, y, s_test), repeats, batch_s)
            rows.append(
                {
                    "kind": kind,
                    "n": n,
                    "best_s": {k: v[0] for k, v in t.items()},
                    "median_s": {k: v[1] for k, v in t.items()},
                }
            )
            _print_row(rows[-1])
    return rows


def _print_row(row):
    best = row["best_s"]
    print(f"\n== {row['kind']}, n = {row['n']:.0e} ==")
    print(f"{'skcalib':<16}{'us':>11}  {'peer':<17}{'us':>11}{'ratio':>8}")
    for ours, peer in PAIRS:
        print(
            f"{ours:<16}{best[ours] * 1e6:11.1f}  {peer:<17}"
            f"{best[peer] * 1e6:11.1f}{best[ours] / best[peer]:8.2f}"
        )
    print("  ".join(f"{m} {best[m] * 1e6:.1f}" for m in METRICS) + "  (us)")
    print("  ".join(f"{m} {best[m] * 1e6:.1f}" for m in METRIC_PEERS) + "  (us)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=float,
        default=None,
        help="numbers of scores (default 10 100 1e3 1e4 1e5; with --large "
        "also 1e6 1e7)",
    )
    parser.add_argument(
        "--large", action="store_true", help="add n = 1e6 and 1e7 to the sizes"
    )
    parser.add_argument(
        "--kinds",
        nargs="+",
        default=["gaussian"],
        help="score data: gaussian, rounded (to 2 decimals, ties) (default gaussian)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=7,
        help="timed batches per function, best and median (default 7)",
    )
    parser.add_argument(
        "--batch-ms",
        type=float,
        default=20.0,
        help="CPU time of one batch of calls, in ms (default 20)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS/OpenMP threads (default 1)",
    )
    parser.add_argument(
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    sizes = args.sizes or [10, 100, 1e3, 1e4, 1e5] + ([1e6, 1e7] if args.large else [])
    load = os.getloadavg()
    print(
        f"CPU time per call, best of {args.repeats} batches of ~{args.batch_ms:g} "
        "ms; load average "
        + " ".join(f"{x:.2f}" for x in load)
        + f" on {os.cpu_count()} CPUs"
    )
    with threadpool_limits(args.threads):
        rows = run(
            [int(n) for n in sizes], args.kinds, args.repeats, args.batch_ms / 1e3
        )
    if args.json:
        commit = git_commit(short=True)
        meta = {
            "commit": commit,
            "date": utc_now(),
            "timer": "process_time per call, best of repeats",
            "load_average": load,
            "threads": args.threads,
            "cpus": os.cpu_count(),
        }
        write_json(args.json, {"meta": meta, "rows": rows})
    return 0


if __name__ == "__main__":
    run_script(main)
