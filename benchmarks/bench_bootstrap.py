"""Benchmark of bootstrap_ci on min_dcf against resampling rows and recomputing.

What is measured against what, in the same run:

* ``bootstrap_ci(min_dcf, ...)`` with ``--n-resamples`` replicates (default
  1000): the scores are sorted once and each replicate reweights the sorted
  points (one gather of the drawn trials' point codes, one count, one
  cumulative sum);
* the naive bootstrap a user would write: draw row indices, resample the
  labels and scores, call ``min_dcf`` (which sorts) -- timed on
  ``--naive-resamples`` replicates (default 50; half just before and half
  just after the fast call, so that load changes hit both alike) and
  extrapolated linearly to ``--n-resamples`` (each naive replicate costs the
  same; the report says so);
* one ``np.argsort`` of the scores, as the unit of a sort;
* peak memory on top of the inputs (``tracemalloc``, which sees numpy's
  allocations) of ``bootstrap_ci`` with 20 replicates (the peak is reached
  inside one replicate, so more replicates do not raise it), in bytes per
  trial (target: < 64).

Targets: the fast path at least 5x faster than the naive one.

Data: Gaussian scores (30 % targets, d' = 1.33), and a pathological variant
with scores rounded to 2 decimals (massive ties).

Usage::

    python benchmarks/bench_bootstrap.py                       # n = 1e6
    python benchmarks/bench_bootstrap.py --n 100000 --json out.json
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from _meta import git_commit, utc_now, write_json

from skcalib.metrics import bootstrap_ci, min_dcf

P_TARGET = 0.01


def make_data(n, kind, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.normal(size=n) * 1.5 + 2.0 * y - 1.0
    if kind == "rounded":
        s = np.round(s, 2)
    return y, s


def naive_replicates(y, s, n_resamples, seed=0):
    rng = np.random.default_rng(seed)
    n = y.shape[0]
    out = np.empty(n_resamples)
    for k in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        out[k] = min_dcf(y[idx], s[idx], p_target=P_TARGET)
    return out


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def peak_bytes(f):
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def run(y, s, args):
    """Time the fast and the naive bootstrap on one data set.

    The naive replicates are timed half before and half after the fast call,
    so that a change of machine load during the run hits both alike.
    """
    n = y.shape[0]
    t_sort = min(timed(lambda: np.argsort(s))[0] for _ in range(3))
    half = max(args.naive_resamples // 2, 1)
    t_before, _ = timed(lambda: naive_replicates(y, s, half, seed=1))
    t_fast, res = timed(
        lambda: bootstrap_ci(
            min_dcf,
            y,
            s,
            p_target=P_TARGET,
            n_resamples=args.n_resamples,
            random_state=0,
        )
    )
    t_after, _ = timed(lambda: naive_replicates(y, s, half, seed=2))
    per_naive = (t_before + t_after) / (2 * half)
    t_naive = per_naive * args.n_resamples
    peak = peak_bytes(
        lambda: bootstrap_ci(
            min_dcf, y, s, p_target=P_TARGET, n_resamples=20, random_state=0
        )
    )
    row = {
        "n": n,
        "n_resamples": args.n_resamples,
        "naive_resamples_timed": 2 * half,
        "argsort_s": t_sort,
        "fast_s": t_fast,
        "fast_per_replicate_s": t_fast / args.n_resamples,
        "naive_s_extrapolated": t_naive,
        "naive_per_replicate_s": per_naive,
        "speedup": t_naive / t_fast,
        "fast_per_replicate_in_argsorts": t_fast / args.n_resamples / t_sort,
        "peak_bytes_per_trial": peak / n,
        "ci": [float(v) for v in res.confidence_interval],
    }
    return row, res


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--n", type=int, default=1_000_000, help="trials (default: 1000000)"
    )
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=1000,
        help="bootstrap replicates of the fast path (default: 1000)",
    )
    parser.add_argument(
        "--naive-resamples",
        type=int,
        default=50,
        help="naive replicates timed, then extrapolated (default: 50)",
    )
    parser.add_argument(
        "--data",
        nargs="+",
        default=["gaussian", "rounded"],
        choices=["gaussian", "rounded"],
        help="data sets (default: gaussian rounded)",
    )
    parser.add_argument(
        "--json", help="write the results to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    results = []
    print(f"load before: {os.getloadavg()}")
    for kind in args.data:
        y, s = make_data(args.n, kind)
        row, res = run(y, s, args)
        row["data"] = kind
        results.append(row)
        print(
            f"{kind:>9} n={args.n:.0e}: bootstrap_ci {row['fast_s']:7.2f} s "
            f"({row['fast_per_replicate_s'] * 1e3:.1f} ms/replicate = "
            f"{row['fast_per_replicate_in_argsorts']:.2f} argsort) | naive "
            f"{row['naive_s_extrapolated']:7.2f} s (extrapolated from "
            f"{args.naive_resamples}; {row['naive_per_replicate_s'] * 1e3:.1f} "
            f"ms/replicate) | speedup {row['speedup']:.1f}x | peak "
            f"{row['peak_bytes_per_trial']:.1f} B/trial"
        )
    load = os.getloadavg()
    print(f"load after: {load}")
    if args.json:
        commit = git_commit()
        write_json(
            args.json,
            {
                "commit": commit,
                "date": utc_now(),
                "load": load,
                "results": results,
            },
        )


if __name__ == "__main__":
    main()
