"""Benchmark fusion and matrix scaling against LogisticRegression, in one run.

Measured on the same features (median, or with ``--stat min`` the best, of
``--repeats``; the scikit-learn peers, which take many seconds at the
largest sizes, ``--peer-repeats`` times), with one ``np.argsort`` of one
score column as the yardstick:

- ``ProperScoringFusion(l2=0).fit`` (logistic rule, ``p_target`` 0.5) of ``k``
  systems' scores against ``LogisticRegression(C=inf, solver='lbfgs')``
  with the matching class weights ``0.5 / N_tar`` and ``0.5 / N_non``, the
  same problem; ``obj(LR) - obj``: scikit-learn's objective at its answer
  minus ours (>= 0 when ours is the better optimum), computed by the
  package's prior-weighted rule on both answers;
- ``MulticlassAffineCalibrator(kind='matrix').fit`` of ``K`` log-scores
  against multinomial ``LogisticRegression(C=inf)`` on the same log-scores
  (the same model), with the difference of their mean log losses.

scikit-learn runs at ``--peer-tol`` (default 1e-10; its default 1e-4 stops
far from the optimum at these sizes), so both reach the same objective.
Fusion data (``--fusion-data``): ``gaussian``, 30% targets, ``k``
correlated Gaussian systems of different accuracy; ``ties``, the same
rounded to 2 decimals; ``shared``, 10% targets and
``X = N(0, 1) + (2y - 1) * [1, 0.8, 0.5, 0.3] + 0.3 * a shared N(0, 1)``
(the separations repeat for ``k > 4``), an easy problem on which
LogisticRegression needs about 9 iterations. Multiclass data:
over-confident, biased log-scores of ``K`` classes.

With ``--leaders``, the fit times of the calibrators that lead CalArena,
at its scale (on log-probabilities of ``--classes`` over-confident classes):
``MulticlassAffineCalibrator`` of every kind (``ts-mix``, ``svs``, ``sms``,
``matrix``, ``vector``, ``temperature``) at ``--leader-sizes`` (default
5,000 and 50,000 samples) and ``QuadraticCalibrator`` on 6,500 binary
log-odds, each as a ratio to ``kind='temperature'`` on the same data and,
when probmetrics is installed, to its namesake (``temp-scaling``,
``ts-mix``, ``svs``, ``sms``, ``quadratic-scaling``, on the probabilities).
``--baseline DIR:PACKAGE`` also times another version of skcalib, a copy
of the package importable as ``PACKAGE`` from ``DIR`` (e.g. ``git
worktree add /tmp/base main``, then ``cp -r /tmp/base/skcalib
/tmp/old/skcalib_main`` and ``--baseline /tmp/old:skcalib_main``), its
runs alternating with ours in the same process (a loaded machine slows
both alike), with the ratio ``base/ours``.

Usage::

    python benchmarks/bench_multiclass.py --fusion-sizes 1e6 1e7 \\
        --matrix-sizes 1e5 1e6 [--json out.json]
    python benchmarks/bench_multiclass.py --leaders --fusion-sizes \\
        --matrix-sizes [--baseline /tmp/old:skcalib_main]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time
import warnings

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression

import skcalib
from skcalib import MulticlassAffineCalibrator, ProperScoringFusion
from skcalib._kernel._special import prior_weighted_objective

_STAT = np.median  # of the repeated timings; --stat min gives the best
_WARMUP = 1  # untimed calls before the timed ones (--warmup)


def _timed(fn, repeats):
    times, out = [], None
    for _ in range(_WARMUP):
        fn()  # first-call costs (fresh pages, caches), the same for every side
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(_STAT(times)), out


def _fusion_data(n, k, variant, rng):
    if variant == "shared":
        y = rng.random(n) < 0.1
        sep = np.resize([1.0, 0.8, 0.5, 0.3], k)
        X = rng.normal(size=(n, k)) + np.where(y, 1.0, -1.0)[:, None] * sep
        X += 0.3 * rng.normal(size=n)[:, None]
        return X, y
    y = rng.random(n) < 0.3
    common = rng.normal(0.0, 1.0, n)
    X = np.column_stack(
        [
            np.where(y, 1.0 + 0.5 * j, 0.0) + 0.5 * common + rng.normal(0, 1 + j, n)
            for j in range(k)
        ]
    )
    if variant == "ties":
        X = np.round(X, 2)
    return X, y


def _matrix_data(n, K, rng):
    y = rng.integers(0, K, n)
    S = 3.0 * (np.eye(K)[y] + rng.normal(0, 0.8, (n, K))) + np.arange(K) * 0.2
    return S, y


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        # lbfgs may stop on max_iter at the tight tolerance
        warnings.simplefilter("ignore")
        return model.fit(X, y)


def run_fusion(
    sizes, k, repeats, peer_repeats, peer_tol, variants=("gaussian", "ties"), seed=0
):
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for variant in variants:
            X, y = _fusion_data(n, k, variant, rng)
            n_tar = float(np.count_nonzero(y))
            n_non = n - n_tar
            t_argsort, _ = _timed(lambda X=X: np.argsort(X[:, 0]), repeats)
            t_ours, ours = _timed(
                lambda X=X, y=y: ProperScoringFusion(l2=0).fit(X, y), repeats
            )
            lr = LogisticRegression(
                C=np.inf,
                class_weight={True: 0.5 / n_tar, False: 0.5 / n_non},
                tol=peer_tol,
                max_iter=10_000,
            )
            t_lr, lr = _timed(
                lambda X=X, y=y, lr=lr: _quiet_fit(lr, X, y), peer_repeats
            )

            def objective(llr, y=y):
                return prior_weighted_objective(llr, y, alpha=1, beta=1, prior=0.5)

            rows.append(
                {
                    "n": n,
                    "k": k,
                    "data": variant,
                    "argsort_s": t_argsort,
                    "fusion_s": t_ours,
                    "logreg_s": t_lr,
                    "logreg/fusion": t_lr / t_ours,
                    "fusion/argsort": t_ours / t_argsort,
                    "fusion_evals": int(ours._n_evals),
                    "fusion_sub_evals": int(ours._n_sub_evals),
                    "logreg_iter": int(lr.n_iter_[0]),
                    "obj_gap": objective(X @ lr.coef_[0] + lr.intercept_[0])
                    - objective(ours.decision_function(X)),
                }
            )
    return rows


def run_matrix(sizes, K, repeats, peer_repeats, peer_tol, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        S, y = _matrix_data(n, K, rng)
        t_argsort, _ = _timed(lambda S=S: np.argsort(S[:, 0]), repeats)
        t_ours, ours = _timed(
            lambda S=S, y=y: MulticlassAffineCalibrator().fit(S, y), repeats
        )
        lr = LogisticRegression(C=np.inf, tol=peer_tol, max_iter=10_000)
        t_lr, lr = _timed(lambda S=S, y=y, lr=lr: _quiet_fit(lr, S, y), peer_repeats)
        rows_idx = np.arange(n)
        loss_ours = -ours.transform(S)[rows_idx, y].mean()
        loss_lr = -log_softmax(lr.decision_function(S), axis=1)[rows_idx, y].mean()
        rows.append(
            {
                "n": n,
                "K": K,
                "argsort_s": t_argsort,
                "matrix_s": t_ours,
                "logreg_s": t_lr,
                "logreg/matrix": t_lr / t_ours,
                "matrix/argsort": t_ours / t_argsort,
                "matrix_evals": int(ours._n_evals),
                "matrix_sub_evals": int(ours._n_sub_evals),
                "logreg_iter": int(lr.n_iter_[0]),
                "loss_gap": float(loss_lr - loss_ours),
            }
        )
    return rows


#: The multiclass kinds timed by --leaders, with their probmetrics namesakes.
LEADER_KINDS = {
    "ts-mix": "ts-mix",
    "svs": "svs",
    "sms": "sms",
    "matrix": None,
    "vector": None,
    "temperature": "temp-scaling",
}


def _probmetrics_fit(name, P, y):
    from probmetrics.calibrators import get_calibrator

    cal = get_calibrator(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cal.fit(P, y)


def _alternating(fns, repeats):
    """Median (or best) time of each of ``fns``, their runs interleaved.

    The order rotates from one round to the next: a call that runs after
    another library's (a peer's OpenMP threads spin for a while after it
    returns) is not always the same one.
    """
    for _ in range(_WARMUP):
        for fn in fns:
            fn()
    times = [[] for _ in fns]
    for r in range(repeats):
        for i in range(len(fns)):
            j = (i + r) % len(fns)
            t0 = time.perf_counter()
            fns[j]()
            times[j].append(time.perf_counter() - t0)
    return [float(_STAT(t)) for t in times]


def _baseline_package(spec):
    """The package of ``DIR:PACKAGE`` (another version of skcalib), or None."""
    if not spec:
        return None
    folder, _, name = spec.rpartition(":")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(folder)


def run_leaders(sizes, K, repeats, baseline=None, binary_size=6500, seed=2):
    """Fit times of the leaderboard's calibrators (module docstring)."""
    rng = np.random.default_rng(seed)
    peers = importlib.util.find_spec("probmetrics") is not None
    packages = [skcalib] + ([baseline] if baseline is not None else [])
    rows = []

    def add(name, n, classes, fits, peer, reference):
        # fits: one per package; reference: the temperature row's times
        out = _alternating(fits + ([peer] if peer else []), repeats)
        row = {"method": name, "n": n, "K": classes, "ours_s": out[0]}
        row["ours/TS"] = out[0] / reference if reference else 1.0
        if baseline is not None:
            row["base_s"] = out[1]
            row["base/ours"] = out[1] / out[0]
        if peer:
            row["peer_s"] = out[-1]
            row["ours/peer"] = out[0] / out[-1]
        rows.append(row)
        return out[0]

    for n in sizes:
        S, y = _matrix_data(n, K, rng)
        L = log_softmax(S, axis=1)
        P = np.exp(L)
        t_ts = None
        for kind in sorted(LEADER_KINDS, key=lambda k: k != "temperature"):
            fits = [
                lambda pkg=pkg, kind=kind, L=L, y=y: pkg.MulticlassAffineCalibrator(
                    kind=kind
                ).fit(L, y)
                for pkg in packages
            ]
            name = LEADER_KINDS[kind]
            peer = (
                (lambda name=name, P=P, y=y: _probmetrics_fit(name, P, y))
                if peers and name
                else None
            )
            t = add(kind, n, K, fits, peer, t_ts)
            t_ts = t if kind == "temperature" else t_ts
    # binary: log-odds of over-confident probabilities
    S, y = _matrix_data(binary_size, 2, rng)
    L = log_softmax(S, axis=1)
    z = L[:, 1] - L[:, 0]
    P = np.exp(L)
    t_ts = _alternating(
        [lambda: skcalib.MulticlassAffineCalibrator(kind="temperature").fit(L, y)],
        repeats,
    )[0]
    fits = [lambda pkg=pkg: pkg.QuadraticCalibrator().fit(z, y) for pkg in packages]
    peer = (lambda: _probmetrics_fit("quadratic-scaling", P, y)) if peers else None
    add("quadratic", binary_size, 2, fits, peer, t_ts)
    return rows


def _print_leaders(rows):
    print(
        "Fit times of the leaderboard's calibrators, seconds; ours/TS: over "
        "MulticlassAffineCalibrator(kind='temperature') on the same data"
    )
    print(
        f"{'method':>11} {'n':>6} {'K':>3} {'ours':>8} {'ours/TS':>7} "
        f"{'peer':>8} {'ours/peer':>9} {'base':>8} {'base/ours':>9}"
    )
    for r in rows:
        peer = (
            f"{r['peer_s']:>8.4f} {r['ours/peer']:>9.3f}"
            if "peer_s" in r
            else f"{'-':>8} {'-':>9}"
        )
        base = (
            f"{r['base_s']:>8.4f} {r['base/ours']:>8.2f}x"
            if "base_s" in r
            else f"{'-':>8} {'-':>9}"
        )
        print(
            f"{r['method']:>11} {r['n']:>6d} {r['K']:>3d} {r['ours_s']:>8.4f} "
            f"{r['ours/TS']:>7.2f} {peer} {base}"
        )
    print()


def _print_tables(fusion_rows, matrix_rows):
    if fusion_rows:
        print("ProperScoringFusion.fit vs LogisticRegression(lbfgs, C=inf), seconds")
        print(
            f"{'n':>7} {'k':>2} {'data':>8} {'argsort':>8} {'fusion':>8} "
            f"{'LR':>8} {'LR/fusion':>9} {'fus/as':>6} {'evals':>6} {'LR it':>5} "
            f"{'obj(LR)-obj':>11}"
        )
        for r in fusion_rows:
            print(
                f"{r['n']:>7.0e} {r['k']:>2d} {r['data']:>8} {r['argsort_s']:>8.3f} "
                f"{r['fusion_s']:>8.3f} {r['logreg_s']:>8.3f} "
                f"{r['logreg/fusion']:>8.1f}x {r['fusion/argsort']:>6.2f} "
                f"{r['fusion_evals']:>2d}+{r['fusion_sub_evals']:>2d} "
                f"{r['logreg_iter']:>5d} {r['obj_gap']:>11.1e}"
            )
        print()
    if matrix_rows:
        print(
            "MulticlassAffineCalibrator(kind='matrix').fit vs multinomial "
            "LogisticRegression(C=inf), seconds"
        )
        print(
            f"{'n':>7} {'K':>3} {'argsort':>8} {'matrix':>8} {'LR':>8} "
            f"{'LR/matrix':>9} {'mat/as':>6} {'evals':>6} {'LR it':>5} "
            f"{'loss(LR)-loss':>13}"
        )
        for r in matrix_rows:
            print(
                f"{r['n']:>7.0e} {r['K']:>3d} {r['argsort_s']:>8.3f} "
                f"{r['matrix_s']:>8.3f} {r['logreg_s']:>8.3f} "
                f"{r['logreg/matrix']:>8.1f}x {r['matrix/argsort']:>6.2f} "
                f"{r['matrix_evals']:>2d}+{r['matrix_sub_evals']:>2d} "
                f"{r['logreg_iter']:>5d} {r['loss_gap']:>13.1e}"
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--fusion-sizes",
        nargs="*",
        type=float,
        default=[1e6, 1e7],
        help="numbers of trials of the fusion (default 1e6 1e7)",
    )
    parser.add_argument(
        "--systems", type=int, default=4, help="systems fused (default 4)"
    )
    parser.add_argument(
        "--fusion-data",
        nargs="*",
        choices=["gaussian", "ties", "shared"],
        default=["gaussian", "ties"],
        help="fusion data sets (default gaussian ties)",
    )
    parser.add_argument(
        "--matrix-sizes",
        nargs="*",
        type=float,
        default=[1e5, 1e6],
        help="numbers of samples of matrix scaling (default 1e5 1e6)",
    )
    parser.add_argument(
        "--classes", type=int, default=10, help="classes of matrix scaling (default 10)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of ours, median (default 3)"
    )
    parser.add_argument(
        "--peer-repeats",
        type=int,
        default=1,
        help="timed runs of the scikit-learn peers, median (default 1)",
    )
    parser.add_argument(
        "--peer-tol",
        type=float,
        default=1e-10,
        help="tol of scikit-learn's lbfgs (default 1e-10)",
    )
    parser.add_argument(
        "--stat",
        choices=["median", "min"],
        default="median",
        help="statistic of the repeated timings (default median; min on a "
        "machine shared with other jobs)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="untimed calls of every timed function before its timed runs (default 1)",
    )
    parser.add_argument(
        "--leaders",
        action="store_true",
        help="time the leaderboard's calibrators (ts-mix, svs, sms, quadratic, ...)",
    )
    parser.add_argument(
        "--leader-sizes",
        nargs="*",
        type=float,
        default=[5e3, 5e4],
        help="numbers of samples of --leaders (default 5e3 5e4)",
    )
    parser.add_argument(
        "--baseline",
        help="DIR:PACKAGE, another copy of skcalib to time against (--leaders; "
        "default: none)",
    )
    parser.add_argument(
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    global _STAT, _WARMUP
    _STAT = np.min if args.stat == "min" else np.median
    _WARMUP = args.warmup
    fusion_rows = run_fusion(
        [int(n) for n in args.fusion_sizes],
        args.systems,
        args.repeats,
        args.peer_repeats,
        args.peer_tol,
        args.fusion_data,
    )
    matrix_rows = run_matrix(
        [int(n) for n in args.matrix_sizes],
        args.classes,
        args.repeats,
        args.peer_repeats,
        args.peer_tol,
    )
    leader_rows = []
    if args.leaders:
        leader_rows = run_leaders(
            [int(n) for n in args.leader_sizes],
            args.classes,
            args.repeats,
            _baseline_package(args.baseline),
        )
        _print_leaders(leader_rows)
    _print_tables(fusion_rows, matrix_rows)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average (1 min) at the end: {load:.2f}")
    if args.json:
        commit = git_commit(short=True)
        meta = {
            "commit": commit,
            "date": utc_now(),
            "load_average_1min": load,
        }
        write_json(
            args.json,
            {
                "meta": meta,
                "fusion": fusion_rows,
                "matrix": matrix_rows,
                "leaders": leader_rows,
            },
        )
    return 0


if __name__ == "__main__":
    run_script(main)
