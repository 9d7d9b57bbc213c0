"""Benchmark the ECE plot's numbers against one ``np.sort`` and lir.

Measured, in one run on the same data:

- ``empirical_cross_entropy`` (validation, the PAV blocks, the three curves
  on the default grid of 141 prior log-odds), end to end, against one
  ``np.sort`` of the LLRs: CPU time (``time.process_time``), best of
  ``--repeats``, the two timed alternately so that a changing load hits
  both alike;
- the same with the system's curve forced onto the direct sums (one pass
  over the trials per prior, O(n x grid)), the method the binned Taylor
  expansion replaces, at the sizes of ``--direct-sizes``;
- lir's ``calculate_ece`` (an (n x grid) matrix, on lir's grid of 600 base-10
  prior log-odds), if lir is importable, at the sizes of ``--lir-sizes``;
- peak extra memory of ``empirical_cross_entropy`` (tracemalloc, bytes per
  trial and as a multiple of the LLR array);
- ``reliability_curve`` of ``sigmoid(llr)`` (uniform and quantile bins,
  without and with weights) against one ``np.sort`` of the probabilities,
  and its peak memory as a multiple of the input.

Data: Gaussian LLRs (calibrated, targets at +d^2/2, non-targets at -d^2/2,
d = 2), 30% targets.

Usage::

    python benchmarks/bench_forensic_display.py --sizes 1e5 1e6 --repeats 3 \\
        [--direct-sizes 1e5] [--lir-sizes 1e4 1e5] [--json out.json]
"""

from __future__ import annotations

import argparse

import numpy as np
from _meta import (
    best_cpu_times,
    git_commit,
    peak_bytes,
    run_script,
    utc_now,
    write_json,
)
from scipy.special import expit

from skcalib.metrics import empirical_cross_entropy, reliability_curve
from skcalib.metrics._plot import _cross_entropy


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    llr = np.where(y == 1, 2.0, -2.0) + 2.0 * rng.standard_normal(n)
    return y, llr


def _direct(y, llr):
    """The system's curve from the direct sums (one pass per prior)."""
    plo = _cross_entropy._default_grid(None)
    means = []
    for mask, sign in ((y == 1, -1.0), (y != 1, 1.0)):
        x = sign * llr[mask]
        means.append(_cross_entropy._softplus_sums_direct(x, None, sign * plo) / x.size)
    return plo, _cross_entropy._weighted_ece(*means, plo)


def _measure(n, args, calculate_ece):
    y, llr = _data(n)
    row = {"n": n}
    fns = [lambda: np.sort(llr), lambda: empirical_cross_entropy(y, llr)]
    row["sort_s"], row["ece_s"] = best_cpu_times(fns, args.repeats)
    row["ece_over_sort"] = row["ece_s"] / row["sort_s"]
    peak = peak_bytes(lambda: empirical_cross_entropy(y, llr))
    row["ece_bytes_per_trial"] = peak / n
    row["ece_memory_over_input"] = peak / llr.nbytes
    # the reliability curve of the probabilities sigmoid(llr): both bin
    # strategies, without and with weights
    prob = expit(llr)
    w = np.random.default_rng(1).uniform(0.1, 2.0, n)
    variants = {
        f"reliability_{strategy}{'_weighted' if weights is not None else ''}": (
            lambda strategy=strategy, weights=weights: reliability_curve(
                y, prob, strategy=strategy, sample_weight=weights
            )
        )
        for strategy in ("uniform", "quantile")
        for weights in (None, w)
    }
    times = best_cpu_times([lambda: np.sort(prob), *variants.values()], args.repeats)
    for (name, fn), t in zip(variants.items(), times[1:], strict=True):
        row[f"{name}_over_sort"] = t / times[0]
        row[f"{name}_memory_over_input"] = peak_bytes(fn) / prob.nbytes
    if n in {int(m) for m in args.direct_sizes}:
        (row["direct_s"],) = best_cpu_times([lambda: _direct(y, llr)], 1)
        row["direct_over_sort"] = row["direct_s"] / row["sort_s"]
        a, b = empirical_cross_entropy(y, llr)[1], _direct(y, llr)[1]
        row["binned_vs_direct_max_rel"] = float(np.max(np.abs(a - b) / b))
    if calculate_ece is not None and n in {int(m) for m in args.lir_sizes}:
        priors = 1.0 / (1.0 + 10.0 ** -np.arange(-3, 3, 0.01))
        lr = np.exp(llr)
        (row["lir_s"],) = best_cpu_times([lambda: calculate_ece(lr, y, priors)], 1)
        row["lir_over_ece"] = row["lir_s"] / row["ece_s"]
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=float,
        default=[1e5, 1e6],
        help="numbers of trials (default 1e5 1e6)",
    )
    parser.add_argument(
        "--direct-sizes",
        nargs="*",
        type=float,
        default=[1e5],
        help="sizes at which the direct O(n x grid) sums are timed too (default 1e5)",
    )
    parser.add_argument(
        "--lir-sizes",
        nargs="*",
        type=float,
        default=[1e4],
        help="sizes at which lir's calculate_ece is timed, if lir is "
        "importable (default 1e4; 1e5 takes 0.5 GB)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs, best (default 3)"
    )
    parser.add_argument(
        "--json",
        default=None,
        help="write the rows to this JSON file (default: not written)",
    )
    args = parser.parse_args(argv)
    try:
        from lir.plotting.expected_calibration_error import calculate_ece
    except ImportError:
        calculate_ece = None
    rows = []
    sizes = sorted({int(n) for n in [*args.sizes, *args.direct_sizes, *args.lir_sizes]})
    for n in sizes:
        row = _measure(n, args, calculate_ece)
        rows.append(row)
        print(
            "  ".join(
                f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in row.items()
            ),
            flush=True,
        )
    if args.json:
        write_json(
            args.json,
            {"commit": git_commit(), "date": utc_now(), "results": rows},
        )


if __name__ == "__main__":
    run_script(main)
