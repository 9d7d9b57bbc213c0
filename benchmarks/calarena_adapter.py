"""skcalib's calibrators as CalArena custom calibrators, and skcalib's rank on
CalArena's published leaderboard.

CalArena (Berta, Holzmüller, Bach and Jordan, arXiv 2605.30188, 2026) runs any
object with ``fit(p_cal, y_cal)`` and ``predict_proba(p_test)`` on a
classifier's probabilities: ``p`` is ``(n, K)`` (binary: ``(n, 2)`` or the
positive class's ``(n,)``), ``predict_proba`` returns ``(n, K)``.
``SkcalibCalArena(method)`` is that object for every skcalib method of
``bench_quality.build_methods()`` (``'default'`` is ``CalibratedClassifier()``
with its default calibrator) and for scikit-learn's three: the
probabilities are the outputs of a frozen stand-in classifier, and the
method calibrates them exactly as it calibrates a classifier that has only
``predict_proba`` in ``bench_quality.py`` and ``bench_arena.py``.

Two ways to rank skcalib on the leaderboard, given CalArena's data files
(``calibration_benchmarks/{benchmark}.h5`` and
``{benchmark}-experiments.csv``) in a CalArena checkout:

1. one command, no CalArena code needed (``h5py`` and ``pandas``)::

       python benchmarks/calarena_adapter.py run --calarena PATH/TO/CalArena \\
           --benchmark tabrepo-binary

   runs skcalib's methods (``--methods``, default: ``default``) on every
   experiment of the benchmark, writes
   ``PATH/TO/CalArena/results/tabrepo-binary/skcalib-default.csv`` in
   CalArena's format and prints the leaderboard of every CSV in that folder
   (the published ones and skcalib's) with ``bench_arena``'s statistics;

2. with CalArena's own runner: put ``from calarena_adapter import
   CUSTOM_CALIBRATORS`` in CalArena's ``custom_calibrators.py``, run
   ``PYTHONPATH=PATH/TO/skcalib/benchmarks python run_benchmark.py
   --benchmark tabrepo-binary --calibrator skcalib-default``, then
   ``python benchmarks/calarena_adapter.py rank
   PATH/TO/CalArena/results/tabrepo-binary``.

In the leaderboard, TS is CalArena's ``TS`` and the sk3 oracle the best of
``Platt-probs``, ``Isotonic`` and ``TS`` (multiclass: of ``Isotonic`` and
``TS``, CalArena has no multiclass sigmoid).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_quality as bq  # noqa: E402
from _meta import run_script  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.frozen import FrozenEstimator  # noqa: E402


class ProbabilityClassifier(ClassifierMixin, BaseEstimator):
    """A fitted stand-in classifier whose inputs are its probabilities:
    ``predict_proba(P)`` returns ``P`` (rows renormalized to sum to 1)."""

    def __init__(self, n_classes=2):
        self.n_classes = n_classes

    def fit(self, X, y):  # never called: the classifier is frozen
        raise NotImplementedError

    def __sklearn_is_fitted__(self):
        return True

    @property
    def classes_(self):
        return np.arange(self.n_classes)

    def predict_proba(self, X):
        P = np.asarray(X, dtype=float)
        return P / P.sum(axis=1, keepdims=True)

    def predict(self, X):
        return np.asarray(X).argmax(axis=1)


def _as_2d(p):
    p = np.asarray(p, dtype=float)
    if p.ndim == 1:
        return np.column_stack([1.0 - p, p])
    if p.shape[1] == 1:
        return np.concatenate([1.0 - p, p], axis=1)
    return p


def methods():
    """skcalib's and scikit-learn's methods of the registry, by name."""
    return {
        name: m
        for name, m in bq.build_methods().items()
        if m.build is not None and m.family in ("skcalib", "sklearn")
    }


class SkcalibCalArena:
    """One skcalib (or scikit-learn) method as a CalArena calibrator.

    Parameters
    ----------
    method : str
        A name of ``bench_quality.build_methods()``: ``'default'``,
        ``'platt'``, ``'beta'``, ..., or scikit-learn's ``'sigmoid'``,
        ``'isotonic'``, ``'temperature'``.
    """

    def __init__(self, method="default"):
        self.method = method

    def fit(self, p_cal, y_cal):
        p = _as_2d(p_cal)
        y = np.asarray(y_cal).astype(np.int64)
        clf = ProbabilityClassifier(p.shape[1])
        self.model_ = methods()[self.method].build(FrozenEstimator(clf))
        self.model_.fit(p, y)
        return self

    def predict_proba(self, p_test):
        return np.asarray(self.model_.predict_proba(_as_2d(p_test)), dtype=float)


def _display_name(name):
    return f"{'sklearn' if methods()[name].family == 'sklearn' else 'skcalib'}-{name}"


CUSTOM_CALIBRATORS = {
    _display_name(name): (lambda name=name: SkcalibCalArena(name)) for name in methods()
}


# --------------------------------------------------------------------------
# the leaderboard


def load_results(folder):
    """Cells of ``bench_arena.statistics`` from CalArena's result CSVs (one per
    calibrator, columns ``{name}_logloss`` and ``{name}_time``)."""
    import pandas as pd

    cells = {}
    names = []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        name = os.path.splitext(os.path.basename(path))[0]
        df = pd.read_csv(path)
        col = f"{name}_logloss"
        if col not in df.columns:
            continue
        names.append(name)
        for row in df.to_dict("records"):
            key = (row["dataset"], row["model"])
            cell = cells.setdefault(
                key,
                {
                    "task": row["dataset"],
                    "classifier": row["model"],
                    "n_cal": int(row["cal_size"]),
                    "methods": {},
                },
            )
            ll = row.get(col)
            t = row.get(f"{name}_time", np.nan)
            ok = ll is not None and np.isfinite(ll)
            cell["methods"][name] = {
                "status": "ok" if ok else "error",
                "log_loss": float(ll) if ok else None,
                "times": [float(t)] if np.isfinite(t) else [],
            }
    for cell in cells.values():
        for name in names:
            cell["methods"].setdefault(
                name, {"status": "error", "log_loss": None, "times": []}
            )
    return list(cells.values()), names


def rank(folder, out=None):
    """Print the leaderboard of every calibrator with results in ``folder``."""
    out = sys.stdout if out is None else out
    import bench_arena as ba

    cells, names = load_results(folder)
    if not cells:
        raise SystemExit(f"no CalArena result CSVs in {folder}")
    multiclass = folder.rstrip("/").endswith("multiclass")
    sk3 = ("Isotonic", "TS") if multiclass else ("Platt-probs", "Isotonic", "TS")
    sk3 = tuple(m for m in sk3 if m in names)
    stats = ba.statistics(cells, names, ts="TS", sk3=sk3)
    block = {"stats": stats, "n_cells": len(cells)}
    ncal = sorted(c["n_cal"] for c in cells)
    print(
        f"{os.path.basename(folder.rstrip('/'))}: {len(cells)} experiments, "
        f"calibration sets {ncal[0]}-{ncal[-1]} (median {ncal[len(ncal) // 2]}); "
        f"TS = TS, sk3 oracle = best of {', '.join(sk3)}",
        file=out,
    )
    ba.print_table(block, out=out)
    return stats


# --------------------------------------------------------------------------
# running skcalib on CalArena's data files


def run(calarena, benchmark, method_names, results_dir=None):
    """Run ``method_names`` on every experiment of ``benchmark``; write one
    CalArena-format CSV per method; return the results folder."""
    import h5py
    import pandas as pd
    from sklearn.metrics import log_loss

    bench_dir = os.path.join(calarena, "calibration_benchmarks")
    experiments = pd.read_csv(os.path.join(bench_dir, f"{benchmark}-experiments.csv"))
    results = results_dir or os.path.join(calarena, "results", benchmark)
    os.makedirs(results, exist_ok=True)
    with h5py.File(os.path.join(bench_dir, f"{benchmark}.h5"), "r") as h5:
        for method in method_names:
            name = _display_name(method)
            rows = []
            for i, (dataset, model) in enumerate(
                zip(experiments["dataset"], experiments["model"], strict=True)
            ):
                grp = h5[f"{dataset}/{model}"]
                p_cal, y_cal = grp["probas_cal"][:], grp["labels_cal"][:]
                p_test, y_test = grp["probas_test"][:], grp["labels_test"][:]
                cal = CUSTOM_CALIBRATORS[name]()
                t0 = time.perf_counter()
                cal.fit(p_cal, y_cal)
                proba = cal.predict_proba(p_test)
                seconds = time.perf_counter() - t0
                K = proba.shape[1]
                y = np.asarray(y_test).astype(np.int64)
                rows.append(
                    {
                        "dataset": dataset,
                        "model": model,
                        "cal_size": len(y_cal),
                        "test_size": len(y),
                        f"{name}_brier": float(
                            np.mean(np.sum((proba - np.eye(K)[y]) ** 2, axis=1))
                        ),
                        f"{name}_logloss": float(
                            log_loss(y, proba, labels=np.arange(K))
                        ),
                        f"{name}_accuracy": float(np.mean(proba.argmax(1) == y)),
                        f"{name}_time": seconds,
                    }
                )
                print(
                    f"\r{name}: {i + 1}/{len(experiments)}",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
            print(file=sys.stderr)
            pd.DataFrame(rows).to_csv(os.path.join(results, f"{name}.csv"), index=False)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run skcalib on a benchmark, then rank")
    p_run.add_argument("--calarena", required=True, help="a CalArena checkout")
    p_run.add_argument("--benchmark", required=True, help="e.g. tabrepo-binary")
    p_run.add_argument(
        "--methods", nargs="+", default=["default"], help="default: default"
    )
    p_run.add_argument("--results-dir", help="default: CALARENA/results/BENCHMARK")
    p_rank = sub.add_parser("rank", help="the leaderboard of a results folder")
    p_rank.add_argument("folder", help="e.g. CalArena/results/tabrepo-binary")
    sub.add_parser("list", help="the calibrators' names")
    args = parser.parse_args(argv)
    if args.command == "list":
        print("\n".join(CUSTOM_CALIBRATORS))
        return 0
    if args.command == "run":
        unknown = set(args.methods) - set(methods())
        if unknown:
            raise SystemExit(f"unknown method(s) {sorted(unknown)}; see 'list'")
        folder = run(args.calarena, args.benchmark, args.methods, args.results_dir)
    else:
        folder = args.folder
    rank(folder)
    return 0


if __name__ == "__main__":
    run_script(main)
