"""Benchmark the PAV calibrators against numpy primitives and scikit-learn.

Measured, in one run on the same data (median of ``--repeats``):

- ``PAVCalibrator.fit`` (scores of shape (n,), 10% targets, unweighted and
  weighted) against one ``np.argsort`` and one ``np.sort`` of the same scores
  and against ``sklearn.isotonic.IsotonicRegression(out_of_bounds='clip').fit``;
- ``PAVCalibrator.transform`` on unsorted new scores against one
  ``np.searchsorted`` of those scores into the fitted knots and against
  ``IsotonicRegression.predict``;
- peak extra memory of ``fit`` (tracemalloc, bytes per sample);
- the kernel step that holds the sorts, ``skcalib._kernel._pav.pav_points``
  (unweighted),
  against one ``np.sort`` of the same scores: CPU time (``time.process_time``,
  less sensitive than the wall clock to other load), best of ``--repeats``,
  the two timed alternately so that a changing load hits both alike.

Data: Gaussian scores (targets shifted by 2), and a tie-heavy variant with
scores rounded to 2 decimals.

Usage::

    python benchmarks/bench_pav.py --sizes 1e5 1e6 1e7 --repeats 5 [--json out.json]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _meta import (
    best_cpu_times,
    git_commit,
    peak_bytes,
    run_script,
    utc_now,
    write_json,
)
from sklearn.isotonic import IsotonicRegression

from skcalib import PAVCalibrator
from skcalib._kernel._pav import pav_points


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _data(n, variant, rng):
    y = (rng.random(n) < 0.1).astype(np.int64)
    s = rng.normal(size=n) + 2.0 * y
    if variant == "ties":
        s = np.round(s, 2)
    return s, y


def run(sizes, repeats, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for variant in ("gaussian", "ties"):
            s, y = _data(n, variant, rng)
            w = rng.uniform(0.5, 1.5, size=n)
            new = rng.normal(size=n) + 0.2
            t_argsort = _median_time(lambda s=s: np.argsort(s), repeats)
            t_sort = _median_time(lambda s=s: np.sort(s), repeats)
            is_target = y.astype(bool)
            t_sort_cpu, t_points_cpu = best_cpu_times(
                [lambda s=s: np.sort(s), lambda s=s, t=is_target: pav_points(s, t)],
                repeats,
            )
            t_fit = _median_time(lambda s=s, y=y: PAVCalibrator().fit(s, y), repeats)
            t_fit_w = _median_time(
                lambda s=s, y=y, w=w: PAVCalibrator().fit(s, y, sample_weight=w),
                repeats,
            )
            iso_repeats = max(1, min(repeats, 3))
            t_iso = _median_time(
                lambda s=s, y=y: IsotonicRegression(out_of_bounds="clip").fit(s, y),
                iso_repeats,
            )
            cal = PAVCalibrator().fit(s, y)
            iso = IsotonicRegression(out_of_bounds="clip").fit(s, y)
            knots = cal.X_thresholds_[0]
            t_search = _median_time(
                lambda new=new, k=knots: np.searchsorted(k, new), repeats
            )
            t_transform = _median_time(
                lambda new=new, cal=cal: cal.transform(new), repeats
            )
            t_iso_pred = _median_time(
                lambda new=new, iso=iso: iso.predict(new), iso_repeats
            )
            peak = peak_bytes(lambda s=s, y=y: PAVCalibrator().fit(s, y))
            rows.append(
                {
                    "n": n,
                    "data": variant,
                    "n_knots": int(knots.shape[0]),
                    "argsort_s": t_argsort,
                    "sort_s": t_sort,
                    "fit_s": t_fit,
                    "fit_weighted_s": t_fit_w,
                    "isotonic_fit_s": t_iso,
                    "fit/argsort": t_fit / t_argsort,
                    "fit_weighted/argsort": t_fit_w / t_argsort,
                    "isotonic_fit/fit": t_iso / t_fit,
                    "searchsorted_s": t_search,
                    "transform_s": t_transform,
                    "isotonic_predict_s": t_iso_pred,
                    "transform/searchsorted": t_transform / t_search,
                    "isotonic_predict/transform": t_iso_pred / t_transform,
                    "fit_peak_bytes_per_sample": peak / n,
                    "sort_cpu_s": t_sort_cpu,
                    "pav_points_cpu_s": t_points_cpu,
                    "pav_points/sort": t_points_cpu / t_sort_cpu,
                }
            )
    return rows


def _print_table(rows):
    cols = [
        ("n", "{:>9.0e}"),
        ("data", "{:>9}"),
        ("argsort_s", "{:>9.3f}"),
        ("fit_s", "{:>8.3f}"),
        ("fit/argsort", "{:>11.2f}"),
        ("fit_weighted/argsort", "{:>11.2f}"),
        ("isotonic_fit/fit", "{:>11.1f}"),
        ("transform/searchsorted", "{:>10.2f}"),
        ("isotonic_predict/transform", "{:>10.2f}"),
        ("fit_peak_bytes_per_sample", "{:>9.1f}"),
        ("pav_points/sort", "{:>11.2f}"),
    ]
    heads = [
        "n",
        "data",
        "argsort",
        "fit",
        "fit/argsort",
        "w-fit/argsort",
        "sk-fit/fit",
        "tr/search",
        "sk-pred/tr",
        "B/sample",
        "points/sort",
    ]
    widths = [len(f.format(rows[0][c])) for c, f in cols]
    print("  ".join(h.rjust(w) for h, w in zip(heads, widths, strict=True)))
    for r in rows:
        print("  ".join(f.format(r[c]) for c, f in cols))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=float,
        default=[1e5, 1e6, 1e7],
        help="numbers of scores (default 1e5 1e6 1e7)",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed runs, median (default 5)"
    )
    parser.add_argument(
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    rows = run([int(n) for n in args.sizes], args.repeats)
    _print_table(rows)
    if args.json:
        commit = git_commit(short=True)
        meta = {
            "commit": commit,
            "date": utc_now(),
        }
        write_json(args.json, {"meta": meta, "rows": rows})
    return 0


if __name__ == "__main__":
    run_script(main)
