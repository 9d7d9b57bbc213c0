"""Distributed PAV on Dask: fit ``PAVLLRCalibrator`` and compute ``min_dcf``.

What is measured against what
-----------------------------
* Dask: ``n`` scores (default 1e8) written as Parquet partitions, read with
  ``dask.dataframe.read_parquet`` on a 2-worker ``LocalCluster`` (one thread
  each, loopback); wall time of ``PAVLLRCalibrator().fit`` plus
  ``min_dcf(p_target=0.01)`` on one ``ScoredTrials`` of the Dask columns
  (the metric reads the fit's range blocks off it), and the peak resident
  memory of every worker process (``ru_maxrss``; workers start empty, the
  data are generated and written by this process before the cluster starts).
* In memory: the same two calls on NumPy arrays of ``n_memory`` scores
  (default 1e7), median of ``--repeat`` runs, and ``np.sort`` of those
  scores for scale.
* Targets (issue 7): per-worker peak memory under 3 GiB, and Dask wall time
  within 2x of ``(in-memory time at n_memory) * n / n_memory``.
* The two results are also checked against each other at ``n_memory``
  (Dask on the in-memory data, same knots and ``min_dcf`` to 1e-9).

Data: Gaussian class-conditional scores (targets ~ N(2, 1), non-targets
~ N(0, 1), 10 % targets); ``--decimals 2`` rounds the scores (the
pathological all-ties case of the other benchmarks).

Usage::

    python benchmarks/bench_dask.py --n 1e7 --n-memory 1e6   # quick
    python benchmarks/bench_dask.py                           # 1e8 vs 1e7
    python benchmarks/bench_dask.py --json out.json
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from _meta import git_commit, run_script, utc_now, write_json


def make_scores(n, rng, decimals=None):
    y = rng.random(n) < 0.1
    s = rng.standard_normal(n)
    s[y] += 2.0
    if decimals is not None:
        s = np.round(s, decimals)
    return s, y


def write_parquet(path, n, n_partitions, seed, decimals):
    os.makedirs(path, exist_ok=True)
    sizes = np.full(n_partitions, n // n_partitions)
    sizes[: n % n_partitions] += 1
    for i, size in enumerate(sizes):
        s, y = make_scores(int(size), np.random.default_rng([seed, i]), decimals)
        table = pa.table({"score": s, "y": y})
        pq.write_table(table, os.path.join(path, f"part.{i:04d}.parquet"))


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def in_memory(n, repeat, seed, decimals):
    from skcalib import PAVLLRCalibrator
    from skcalib.metrics import min_dcf

    s, y = make_scores(n, np.random.default_rng(seed), decimals)
    times, sort_times = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        cal = PAVLLRCalibrator().fit(s, y)
        dcf = min_dcf(y, s, p_target=0.01)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        np.sort(s)
        sort_times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.median(sort_times)), cal, dcf, s, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--n", type=float, default=1e8, help="Dask data size (default 1e8)"
    )
    parser.add_argument(
        "--n-memory",
        type=float,
        default=1e7,
        help="in-memory data size for the reference timing (default 1e7)",
    )
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="Parquet files (default: one per 5e6 scores)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="Dask worker processes (default 2)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="in-memory repeats, median (default 3)"
    )
    parser.add_argument(
        "--decimals",
        type=int,
        default=None,
        help="round the scores to this many decimals, for ties (default: not rounded)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--dir",
        default=None,
        help="where to write the Parquet data (default: a temporary folder, "
        "removed afterwards)",
    )
    parser.add_argument(
        "--json", default=None, help="write the results here (default: not written)"
    )
    args = parser.parse_args(argv)
    n, n_mem = int(args.n), int(args.n_memory)
    n_partitions = args.partitions or max(2, n // 5_000_000)

    # In memory first (this process), then free it before the cluster runs.
    t_mem, t_sort, cal_mem, dcf_mem, s_mem, y_mem = in_memory(
        n_mem, args.repeat, args.seed, args.decimals
    )

    tmp = args.dir or tempfile.mkdtemp(prefix="skcalib-bench-dask-")
    path = os.path.join(tmp, "scores")
    t0 = time.perf_counter()
    write_parquet(path, n, n_partitions, args.seed, args.decimals)
    t_write = time.perf_counter() - t0
    warm_path = os.path.join(tmp, "warm-up")
    check_path = os.path.join(tmp, "check")
    os.makedirs(check_path, exist_ok=True)
    for i, part in enumerate(np.array_split(np.arange(n_mem), 4)):
        pq.write_table(
            pa.table({"score": s_mem[part], "y": y_mem[part]}),
            os.path.join(check_path, f"part.{i}.parquet"),
        )
    write_parquet(warm_path, 100_000, 2, args.seed + 1, args.decimals)

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from skcalib import PAVLLRCalibrator
    from skcalib.metrics import ScoredTrials, min_dcf

    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = Client(cluster)
    try:
        # Exactness at n_memory: Dask on the very same scores, as Parquet.
        check = dd.read_parquet(check_path)
        ds, dy = check["score"], check["y"]
        cal_check = PAVLLRCalibrator().fit(ds, dy)
        same = all(
            np.allclose(a, b, rtol=1e-9, atol=0)
            for a, b in zip(
                cal_check.y_thresholds_ + cal_check.X_thresholds_,
                cal_mem.y_thresholds_ + cal_mem.X_thresholds_,
                strict=True,
            )
        ) and np.isclose(min_dcf(dy, ds, p_target=0.01), dcf_mem, rtol=1e-9)
        del ds, dy, s_mem, y_mem
        client.restart()  # fresh workers: their peak memory is this run's
        # Warm-up on a small Parquet set: worker imports (skcalib, pyarrow,
        # pandas) and first-call costs are not part of the timing.
        warm = dd.read_parquet(warm_path)
        PAVLLRCalibrator().fit(warm["score"], warm["y"])
        min_dcf(warm["y"], warm["score"], p_target=0.01)

        ddf = dd.read_parquet(path)
        t0 = time.perf_counter()
        # one handle: the fit computes the range blocks, min_dcf reads them
        trials = ScoredTrials(ddf["y"], ddf["score"])
        cal = PAVLLRCalibrator().fit(trials)
        t_fit = time.perf_counter() - t0
        dcf = trials.min_dcf(0.01)
        t_dask = time.perf_counter() - t0
        peaks = sorted(client.run(peak_rss_bytes).values())
    finally:
        client.close()
        cluster.close()
        if args.dir is None:
            shutil.rmtree(tmp, ignore_errors=True)

    budget = 2.0 * t_mem * n / n_mem
    gib = 2.0**30
    rows = [
        ("in-memory fit + min_dcf", n_mem, t_mem),
        ("in-memory np.sort", n_mem, t_sort),
        ("write Parquet (not timed below)", n, t_write),
        ("Dask fit PAVLLRCalibrator", n, t_fit),
        ("Dask fit + min_dcf", n, t_dask),
    ]
    print(f"{'what':34s} {'n':>12s} {'seconds':>9s}")
    for what, size, sec in rows:
        print(f"{what:34s} {size:12.3g} {sec:9.2f}")
    print(
        f"Dask / (in-memory x {n / n_mem:g}): {t_dask / (t_mem * n / n_mem):.2f} "
        f"(target <= 2, i.e. <= {budget:.1f} s)"
    )
    print(
        "peak RSS per worker (GiB): "
        + ", ".join(f"{p / gib:.2f}" for p in peaks)
        + " (target < 3)"
    )
    print(
        f"blocks: {len(cal.blocks_[0])}, min_dcf: {dcf:.6f}; "
        f"Dask equals in-memory at n={n_mem:g}: {bool(same)}"
    )
    if args.json:
        commit = git_commit()
        result = {
            "n": n,
            "n_memory": n_mem,
            "partitions": n_partitions,
            "workers": args.workers,
            "decimals": args.decimals,
            "seconds_in_memory": t_mem,
            "seconds_sort_in_memory": t_sort,
            "seconds_dask_fit": t_fit,
            "seconds_dask_total": t_dask,
            "ratio_to_scaled_in_memory": t_dask / (t_mem * n / n_mem),
            "peak_rss_worker_bytes": peaks,
            "equal_to_in_memory": bool(same),
            "commit": commit,
            "date": utc_now(),
        }
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    run_script(main)
