"""Benchmark of the forensic validation metrics against np.sort and lir.

What is measured against what (best CPU time, ``time.process_time``, of
``--repeats`` runs, interleaved round-robin so that a changing machine load
hits all alike; CPU time and the best run, as other processes share the
machine):

* each metric function (``cllr_cal``, ``devpav``, ``elub_bounds``,
  ``invariance_bounds``, ``misleading_evidence_rates``,
  ``expected_likelihood_ratios``), validation included, against one
  ``np.sort`` of the LLRs (target at 1e6 trials: at most 2x), with ``cllr``
  and ``min_cllr`` (the two parts of ``cllr_cal``) for reference;
* lir's ``elub``, ``calculate_invariance_bounds`` and ``devpav`` on the same
  trials in base 10 (if lir is importable: run with the interpreter that has
  it), at ``--lir-size`` trials only, as lir builds an (n x grid) matrix;
* peak memory of each metric (``tracemalloc``) at the largest size, as a
  multiple of the input's size (O(n): a small constant).

Data: Gaussian calibrated LLRs, ``N(+-s^2/2, s^2)`` with ``s = 2``, 30%
targets.

Usage::

    python benchmarks/bench_forensic.py                   # n = 1e5, 1e6
    /work/venv-bench/bin/python benchmarks/bench_forensic.py --lir-size 100000
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
import warnings

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json

from skcalib.metrics import (
    cllr,
    cllr_cal,
    devpav,
    elub_bounds,
    expected_likelihood_ratios,
    invariance_bounds,
    min_cllr,
    misleading_evidence_rates,
)

METRICS = {
    "cllr_cal": cllr_cal,
    "devpav": devpav,
    "elub_bounds": elub_bounds,
    "invariance_bounds": invariance_bounds,
    "misleading_evidence_rates": misleading_evidence_rates,
    "expected_likelihood_ratios": expected_likelihood_ratios,
}
#: Not new, timed for reference: cllr_cal is the one minus the other.
REFERENCE = {"cllr": cllr, "min_cllr": min_cllr}


def make_data(n, seed=0, s=2.0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    llr = rng.normal(size=n) * s + np.where(y == 1, s * s / 2, -s * s / 2)
    return y, llr


def timed(funcs, repeats):
    """Best CPU seconds of each callable, run round-robin."""
    times = {name: [] for name in funcs}
    for _ in range(repeats):
        for name, func in funcs.items():
            t0 = time.process_time()
            func()
            times[name].append(time.process_time() - t0)
    return {name: float(np.min(t)) for name, t in times.items()}


def lir_funcs(y, llr):
    try:
        from lir.algorithms.bayeserror import elub
        from lir.algorithms.invariance_bounds import calculate_invariance_bounds
        from lir.metrics.devpav import devpav as lir_devpav
    except ImportError:
        return {}
    llr10 = llr / math.log(10)
    yf = y.astype(float)

    def quiet(f):
        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return f()

        return run

    return {
        "elub_bounds": quiet(lambda: elub(llr10.copy(), yf, add_misleading=1)),
        "invariance_bounds": quiet(lambda: calculate_invariance_bounds(10.0**llr10, y)),
        "devpav": quiet(lambda: lir_devpav(llr10.copy(), y)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100_000, 1_000_000],
        help="numbers of trials (default: 100000 1000000)",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed repeats (default: 5)"
    )
    parser.add_argument(
        "--lir-size",
        type=int,
        default=100_000,
        help="trials for the comparison with lir (default: 100000)",
    )
    parser.add_argument(
        "--lir-repeats", type=int, default=1, help="lir repeats (default: 1)"
    )
    parser.add_argument(
        "--json", default=None, help="write the results here (default: none)"
    )
    args = parser.parse_args(argv)
    record = {"commit": git_commit(), "date": utc_now(), "sizes": {}}
    for n in args.sizes:
        y, llr = make_data(n)
        funcs = {"np.sort": lambda llr=llr: np.sort(llr)}
        funcs.update(
            {
                k: (lambda f=f, y=y, llr=llr: f(y, llr))
                for k, f in {**METRICS, **REFERENCE}.items()
            }
        )
        t = timed(funcs, args.repeats)
        base = t["np.sort"]
        print(f"n = {n:.0e}: np.sort {base * 1e3:.1f} ms")
        row = {"np.sort": base}
        for name in {**METRICS, **REFERENCE}:
            print(f"  {name:28s} {t[name] * 1e3:8.1f} ms  {t[name] / base:5.2f}x sort")
            row[name] = t[name]
        record["sizes"][n] = row
    n = max(args.sizes)
    y, llr = make_data(n)
    print(f"peak memory at n = {n:.0e} (multiple of the LLR array, {llr.nbytes} B):")
    record["memory"] = {}
    for name, func in METRICS.items():
        tracemalloc.start()
        func(y, llr)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  {name:28s} {peak / llr.nbytes:5.1f}x")
        record["memory"][name] = peak
    if args.lir_size:
        y, llr = make_data(args.lir_size)
        peers = lir_funcs(y, llr)
        if not peers:
            print("lir not importable: no comparison")
        else:
            ours = timed(
                {k: (lambda f=METRICS[k], y=y, llr=llr: f(y, llr)) for k in peers}, 3
            )
            theirs = timed(peers, args.lir_repeats)
            print(f"against lir at n = {args.lir_size:.0e}:")
            record["lir"] = {}
            for name in peers:
                ratio = theirs[name] / ours[name]
                print(
                    f"  {name:28s} skcalib {ours[name] * 1e3:8.1f} ms  "
                    f"lir {theirs[name] * 1e3:9.1f} ms  ({ratio:.0f}x faster)"
                )
                record["lir"][name] = {"skcalib": ours[name], "lir": theirs[name]}
    if args.json:
        write_json(args.json, record)


if __name__ == "__main__":
    run_script(main)
