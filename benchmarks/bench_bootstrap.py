"""Benchmark of bootstrap_ci on min_dcf against resampling rows and recomputing,
and of ``skcalib evaluate --ci`` (five metrics) with its time-left estimate.

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

``--evaluate`` (on by default; ``--no-evaluate`` skips it) also runs
``skcalib evaluate SCORES --ci 0.95`` in-process on ``--n`` Gaussian LLRs
(30 % targets) with ``--n-resamples`` resamples: the five metrics (EER, min
and actual DCF, Cllr, min Cllr) bootstrapped together from the trials
validated and sorted once. It prints the command's wall time (reading the
file included; target at 1e6 trials and 1000 resamples: 60 s on 2 cores)
and the error of the command's time-left estimate (its ``BootstrapProgress``,
recorded at every resample): ``estimate / actual - 1`` of the resampling
time left, when 10, 25, 50 and 75 % of the resamples are done (target:
within 25 %).

Data: Gaussian scores (30 % targets, d' = 1.33), and a pathological variant
with scores rounded to 2 decimals (massive ties).

Usage::

    python benchmarks/bench_bootstrap.py                       # n = 1e6
    python benchmarks/bench_bootstrap.py --n 100000 --json out.json
    python benchmarks/bench_bootstrap.py --data --evaluate  # evaluate --ci only
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time

import numpy as np
from _meta import git_commit, peak_bytes, run_script, utc_now, write_json

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


def evaluate_ci(n, n_resamples, seed=0):
    """Time ``skcalib evaluate --ci 0.95`` and record its time-left estimates."""
    from skcalib._cli import _commands, main

    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    llr = rng.normal(size=n) * 1.5 + 2.0 * y - 1.0
    estimates = []

    class Recorded(_commands.BootstrapProgress):
        def time_left(self, stage, done, total):
            left = super().time_left(stage, done, total)
            estimates.append((time.monotonic(), stage, done, total, left))
            return left

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "scores.txt")
        with open(path, "w") as f:
            f.write(
                "".join(
                    f"{v!r} {int(t)}\n" for v, t in zip(llr.tolist(), y, strict=True)
                )
            )
        original = _commands.BootstrapProgress
        _commands.BootstrapProgress = Recorded
        try:
            argv = ["-q", "evaluate", path, "--ci", "0.95", "--json"]
            argv += ["--n-resamples", str(n_resamples)]
            out = io.StringIO()
            start = time.perf_counter()
            with contextlib.redirect_stdout(out):
                status = main(argv)
            wall = time.perf_counter() - start
        finally:
            _commands.BootstrapProgress = original
    if status:
        # The command line has already said why on standard error.
        raise SystemExit(f"bench_bootstrap: skcalib evaluate exited with {status}")
    resampling = [e for e in estimates if e[1] == "resamples"]
    end = resampling[-1][0]
    errors = {}
    for fraction in (0.1, 0.25, 0.5, 0.75):
        at, _, done, total, left = next(
            e for e in resampling if e[2] >= fraction * e[3]
        )
        errors[f"{fraction:.0%}"] = left / (end - at) - 1.0
    per_resample = (end - resampling[0][0]) / max(len(resampling) - 1, 1)
    return {
        "n": n,
        "n_resamples": n_resamples,
        "evaluate_ci_s": wall,
        "per_resample_s": per_resample,
        "estimate_error": errors,
        "max_abs_estimate_error": max(abs(e) for e in errors.values()),
    }


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
        "--evaluate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time `skcalib evaluate --ci 0.95` (default: on)",
    )
    parser.add_argument(
        "--data",
        nargs="*",
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
    if args.evaluate:
        row = evaluate_ci(args.n, args.n_resamples)
        row["data"] = "evaluate --ci"
        results.append(row)
        errors = ", ".join(f"{k}: {v:+.0%}" for k, v in row["estimate_error"].items())
        print(
            f"evaluate --ci 0.95 n={args.n:.0e}, {args.n_resamples} resamples, "
            f"5 metrics: {row['evaluate_ci_s']:7.2f} s "
            f"({row['per_resample_s'] * 1e3:.1f} ms/resample) | time-left "
            f"estimate error at {errors} (max {row['max_abs_estimate_error']:.0%})"
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
    run_script(main)
