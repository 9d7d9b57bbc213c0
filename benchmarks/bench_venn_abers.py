"""Benchmark VennAbersCalibrator against np.argsort and the `venn-abers` package.

Measured, in one run on the same data, as CPU time (``time.process_time``:
what the process itself spent, less sensitive to other load on a shared
machine than the wall clock), the best of ``--repeats`` runs (the median is
in the JSON output):

- ``VennAbersCalibrator().fit`` on ``n`` calibration scores (30% targets)
  against one ``np.argsort`` of the same scores;
- ``predict_interval`` of ``m`` new scores (the exact ``(p0, p1)``) against
  one ``np.searchsorted`` of them into the distinct calibration scores;
- ``fit`` and ``predict_interval`` together against fit + predict of the
  ``venn-abers`` package (``VennAbers().fit`` and ``predict_proba``, its
  Python loop over the calibration scores), when it is installed and
  ``n <= --peer-max``: both compute ``(p0, p1)`` of every test score, and
  give the same pairs, checked on every run; both are the best of the same
  number of runs (a best of fewer runs would favour us);
- peak memory of ``fit`` (tracemalloc, bytes per calibration score).

The load average of the machine is printed and stored with the results.

Data: probabilities ``sigmoid(s)`` of Gaussian scores (targets shifted by
1.5), and a tie-heavy variant rounded to 2 decimals.

Usage::

    python benchmarks/bench_venn_abers.py --sizes 1e5 1e6 1e7 --n-test 1e5 \
        --repeats 3 [--peer-max 1e5] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import time

import numpy as np
from _meta import git_commit, peak_bytes, run_script, utc_now, write_json
from scipy.special import expit

from skcalib import VennAbersCalibrator

try:  # a peer, in the `bench` extra only
    import venn_abers
except ImportError:  # pragma: no cover - depends on the environment
    venn_abers = None


def _cpu_times(fn, repeats):
    """Best and median CPU time of ``repeats`` runs (after one warm-up run)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return float(np.min(times)), float(np.median(times))


def _data(n, variant, rng):
    y = (rng.random(n) < 0.3).astype(np.int64)
    p = expit(rng.normal(size=n) + 1.5 * y)
    if variant == "ties":
        p = np.round(p, 2)
    return p, y


def _ours(p, y, p_test):
    cal = VennAbersCalibrator().fit(p, y)
    return cal.predict_interval(p_test)


def _peer(p, y, p_test):
    with np.errstate(all="ignore"):  # its 0/0 slopes
        va = venn_abers.VennAbers().fit(np.c_[1 - p, p], y)
        return va.predict_proba(np.c_[1 - p_test, p_test])[1]


def run(sizes, n_test, repeats, peer_max, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for variant in ("gaussian", "ties"):
            p, y = _data(n, variant, rng)
            p_test = _data(n_test, variant, rng)[0]
            t_argsort, _ = _cpu_times(lambda p=p: np.argsort(p), repeats)
            t_fit, t_fit_med = _cpu_times(
                lambda p=p, y=y: VennAbersCalibrator().fit(p, y), repeats
            )
            cal = VennAbersCalibrator().fit(p, y)
            t_search, _ = _cpu_times(
                lambda c=cal.scores_[0], q=p_test: np.searchsorted(c, q), repeats
            )
            t_pred, t_pred_med = _cpu_times(
                lambda cal=cal, q=p_test: cal.predict_interval(q), repeats
            )
            t_ours, t_ours_med = _cpu_times(
                lambda p=p, y=y, q=p_test: _ours(p, y, q), repeats
            )
            row = {
                "n": n,
                "n_test": n_test,
                "data": variant,
                "argsort_s": t_argsort,
                "fit_s": t_fit,
                "fit_median_s": t_fit_med,
                "fit/argsort": t_fit / t_argsort,
                "searchsorted_s": t_search,
                "predict_interval_s": t_pred,
                "predict_interval_median_s": t_pred_med,
                "predict/searchsorted": t_pred / t_search,
                "fit_predict_s": t_ours,
                "fit_predict_median_s": t_ours_med,
                "fit_peak_bytes_per_score": peak_bytes(
                    lambda p=p, y=y: VennAbersCalibrator().fit(p, y)
                )
                / n,
                "peer_s": None,
                "peer_median_s": None,
                "peer/ours": None,
                "max_abs_diff_vs_peer": None,
            }
            if venn_abers is not None and n <= peer_max:
                t_peer, t_peer_med = _cpu_times(
                    lambda p=p, y=y, q=p_test: _peer(p, y, q), repeats
                )
                diff = np.abs(_peer(p, y, p_test) - _ours(p, y, p_test)).max()
                row.update(
                    {
                        "peer_s": t_peer,
                        "peer_median_s": t_peer_med,
                        "peer/ours": t_peer / t_ours,
                        "max_abs_diff_vs_peer": float(diff),
                    }
                )
            rows.append(row)
    return rows


def _print_table(rows):
    cols = [
        ("n", "{:>8.0e}"),
        ("n_test", "{:>8.0e}"),
        ("data", "{:>9}"),
        ("argsort_s", "{:>9.3f}"),
        ("fit_s", "{:>8.3f}"),
        ("fit/argsort", "{:>11.2f}"),
        ("predict/searchsorted", "{:>10.2f}"),
        ("fit_peak_bytes_per_score", "{:>8.1f}"),
        ("fit_predict_s", "{:>9.4f}"),
        ("peer_s", "{:>9.3f}"),
        ("peer/ours", "{:>9.0f}"),
        ("max_abs_diff_vs_peer", "{:>9.1e}"),
    ]
    heads = [
        "n",
        "n_test",
        "data",
        "argsort",
        "fit",
        "fit/argsort",
        "pred/search",
        "B/score",
        "fit+pred",
        "peer",
        "peer/ours",
        "|diff|",
    ]
    widths = [max(len(h), 9) for h in heads]
    print("  ".join(h.rjust(w) for h, w in zip(heads, widths, strict=True)))
    for r in rows:
        cells = []
        for (c, f), w in zip(cols, widths, strict=True):
            cells.append(("-" if r[c] is None else f.format(r[c])).rjust(w))
        print("  ".join(cells))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=float,
        default=[1e5, 1e6, 1e7],
        help="numbers of calibration scores (default 1e5 1e6 1e7)",
    )
    parser.add_argument(
        "--n-test", type=float, default=1e5, help="number of test scores (default 1e5)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timed runs, best and median CPU time (default 5, the peer's too)",
    )
    parser.add_argument(
        "--peer-max",
        type=float,
        default=1e5,
        help="largest n timed for the venn-abers package (default 1e5)",
    )
    parser.add_argument(
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    if venn_abers is None:
        print("venn-abers is not installed: the peer columns stay empty")
    load = os.getloadavg()
    print(
        f"CPU seconds, best of {args.repeats}; load average "
        + " ".join(f"{x:.2f}" for x in load)
        + f" on {os.cpu_count()} CPUs"
    )
    rows = run(
        [int(n) for n in args.sizes], int(args.n_test), args.repeats, args.peer_max
    )
    _print_table(rows)
    if args.json:
        commit = git_commit(short=True)
        meta = {
            "commit": commit,
            "date": utc_now(),
            "venn_abers": importlib.metadata.version("venn-abers")
            if venn_abers is not None
            else None,
            "timer": "process_time, best of repeats",
            "load_average": load,
            "cpus": os.cpu_count(),
        }
        write_json(args.json, {"meta": meta, "rows": rows})
    return 0


if __name__ == "__main__":
    run_script(main)
