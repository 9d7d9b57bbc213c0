"""Benchmark CalibratedClassifier against scikit-learn's CalibratedClassifierCV.

Measured in one run, on the same data, the same estimator and the same folds
(``StratifiedKFold(cv, shuffle=True, random_state=0)``), ``n_jobs=1``
(median of ``--repeats``):

- ``fit`` of ``CalibratedClassifier(est, PAVCalibrator())`` against
  ``CalibratedClassifierCV(est, method='isotonic', ensemble=False)`` (the
  same probabilities), of the default ``CalibratedClassifier(est)``
  (PAV-LLR), and, if ``PlattCalibrator`` is importable, of the sigmoid pair;
- the *classifier work* alone: ``cross_val_predict(est, cv=...,
  method='decision_function')`` plus ``clone(est).fit(X, y)``, which is
  exactly the classifier part of both meta-estimators;
- *calibration overhead* = fit time minus that classifier work, two ways:
  (a) minus the standalone classifier-work time measured in the same run;
  (b) minus the time spent inside the classifier's own ``fit`` and
  ``decision_function`` during this very fit (instrumented), so what is left
  is slicing the folds, splitting, validation and the calibrator;
  (c) *calibration-only*: (b) minus the same non-classifier time of the
  plain classifier work (``cross_val_predict`` + fit: slicing and
  splitting, identical for both libraries), i.e. what the meta-estimator
  adds on top of ``cross_val_predict``. (a) is at the mercy of timing noise
  of the classifier fits (it can come out negative on a busy machine);
  (b) and (c) subtract the classifier time measured inside the same fit.
- ``predict_proba`` on ``--n-test`` new rows, and the calibrator fit alone
  (``PAVCalibrator.fit`` vs ``IsotonicRegression.fit`` on the same
  out-of-fold scores).

Estimator: a fast linear model, ``SGDClassifier(loss='log_loss',
max_iter=5, tol=None)``, so that the calibration part is as visible as it
gets. Data: ``d`` Gaussian features with a linear signal (``gauss``), and a
tie-heavy variant whose features are rounded to integers so that the scores
take few distinct values (``ties``).

Usage::

    python benchmarks/bench_calibrated_classifier.py --n 1e6 --repeats 3 \
        [--variants gauss ties] [--json out.json]
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from skcalib._calibrated_classifier import CalibratedClassifier
from skcalib._pav_calibrators import PAVCalibrator

try:
    from skcalib._platt import PlattCalibrator
except ImportError:  # pragma: no cover - written in parallel
    PlattCalibrator = None

#: Seconds spent inside the classifier's fit / decision_function (n_jobs=1).
_INSIDE = [0.0]


class TimedSGD(SGDClassifier):
    """SGDClassifier that adds the time of its fit and scoring to ``_INSIDE``."""

    def fit(self, X, y, sample_weight=None, **kw):
        t0 = time.perf_counter()
        try:
            return super().fit(X, y, sample_weight=sample_weight, **kw)
        finally:
            _INSIDE[0] += time.perf_counter() - t0

    def decision_function(self, X):
        t0 = time.perf_counter()
        try:
            return super().decision_function(X)
        finally:
            _INSIDE[0] += time.perf_counter() - t0


def _data(n, d, variant, rng):
    X = rng.normal(size=(n, d))
    if variant == "ties":
        X = np.round(X)
    w = rng.normal(size=d) / np.sqrt(d)
    y = (X @ w + 0.7 * rng.normal(size=n) > 0.5).astype(np.int64)
    return X, y


def _timed(fn, repeats):
    """Median wall time, median inside-classifier time, last result."""
    walls, insides, out = [], [], None
    for _ in range(repeats):
        _INSIDE[0] = 0.0
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        insides.append(_INSIDE[0])
    return float(np.median(walls)), float(np.median(insides)), out


def run(n, d, n_test, cv, repeats, variants, seed=0):
    rows = []
    for variant in variants:
        rng = np.random.default_rng(seed)
        X, y = _data(n, d, variant, rng)
        Xt, _ = _data(n_test, d, variant, rng)
        folds = StratifiedKFold(cv, shuffle=True, random_state=0)
        est = TimedSGD(loss="log_loss", max_iter=5, tol=None, random_state=0)

        def clf_work(est=est, X=X, y=y, folds=folds):
            oof = cross_val_predict(est, X, y, cv=folds, method="decision_function")
            return oof, clone(est).fit(X, y)

        configs = {
            "sklearn isotonic": (
                CalibratedClassifierCV,
                {"method": "isotonic", "ensemble": False},
            ),
            "skcalib PAV": (CalibratedClassifier, {"calibrator": PAVCalibrator()}),
            "skcalib default (PAV-LLR)": (CalibratedClassifier, {}),
        }
        if PlattCalibrator is not None:
            configs["sklearn sigmoid"] = (
                CalibratedClassifierCV,
                {"method": "sigmoid", "ensemble": False},
            )
            configs["skcalib Platt"] = (
                CalibratedClassifier,
                {"calibrator": PlattCalibrator()},
            )
        fitted = {name: cls(est, cv=folds, **kw) for name, (cls, kw) in configs.items()}
        jobs = {"classifier work": clf_work}
        jobs.update({name: partial(m.fit, X, y) for name, m in fitted.items()})
        # Round-robin over the jobs in each repeat, so that every job sees the
        # same machine load; per run, "outside" = wall - time inside the
        # classifier's own methods (robust to slow classifier fits).
        wall = {name: [] for name in jobs}
        outside = {name: [] for name in jobs}
        results = {}
        for _ in range(repeats):
            for name, job in jobs.items():
                t, inside, results[name] = _timed(job, 1)
                wall[name].append(t)
                outside[name].append(t - inside)
        oof = results["classifier work"][0]
        t_clf = float(np.median(wall["classifier work"]))
        out_clf = float(np.median(outside["classifier work"]))
        for name, model in fitted.items():
            t_fit = float(np.median(wall[name]))
            out_fit = float(np.median(outside[name]))
            t_pred, _, _ = _timed(partial(model.predict_proba, Xt), repeats)
            rows.append(
                {
                    "variant": variant,
                    "n": n,
                    "d": d,
                    "cv": cv,
                    "method": name,
                    "fit_s": t_fit,
                    "classifier_work_s": t_clf,
                    "overhead_a_s": t_fit - t_clf,
                    "overhead_b_s": out_fit,
                    "overhead_c_s": out_fit - out_clf,
                    "predict_proba_s": t_pred,
                }
            )
        diff = np.abs(
            fitted["skcalib PAV"].predict_proba(Xt)
            - fitted["sklearn isotonic"].predict_proba(Xt)
        ).max()
        iso = IsotonicRegression(out_of_bounds="clip")
        t_iso, _, _ = _timed(partial(iso.fit, oof, y), repeats)
        t_pav, _, _ = _timed(partial(PAVCalibrator().fit, oof, y), repeats)
        rows.append(
            {
                "variant": variant,
                "n": n,
                "method": "calibrator fit only",
                "isotonic_fit_s": t_iso,
                "pav_fit_s": t_pav,
                "max_abs_proba_diff_pav_vs_isotonic": float(diff),
                "classifier_work_outside_s": out_clf,
            }
        )
    return rows


def _print_table(rows):
    head = (
        f"{'variant':7} {'method':26} {'fit s':>8} {'clf s':>8} {'ratio':>6} "
        f"{'ovh(b) s':>9} {'ovh(c) s':>9} {'pred s':>7}"
    )
    print(head)
    print("-" * len(head))
    ref = {}
    for r in rows:
        if r["method"] == "sklearn isotonic":
            ref[r["variant"], "iso"] = r
        if r["method"] == "sklearn sigmoid":
            ref[r["variant"], "sig"] = r
    for r in rows:
        if "fit_s" not in r:
            continue
        base = ref.get((r["variant"], "sig" if "latt" in r["method"] else "iso"))
        ratio = r["fit_s"] / base["fit_s"] if base else float("nan")
        print(
            f"{r['variant']:7} {r['method']:26} {r['fit_s']:8.3f} "
            f"{r['classifier_work_s']:8.3f} {ratio:6.3f} {r['overhead_b_s']:9.3f} "
            f"{r['overhead_c_s']:9.3f} {r['predict_proba_s']:7.3f}"
        )
    print()
    for r in rows:
        if "fit_s" in r and r["method"].startswith("skcalib"):
            base = ref.get((r["variant"], "sig" if "latt" in r["method"] else "iso"))
            if base:
                parts = []
                for key in ("b", "c"):
                    ours, theirs = r[f"overhead_{key}_s"], base[f"overhead_{key}_s"]
                    if ours > 0 and theirs > 0:
                        parts.append(f"({key}) {theirs / ours:6.2f}")
                    else:
                        parts.append(
                            f"({key}) ours {ours:+.3f} s, sklearn {theirs:+.3f} s"
                        )
                print(
                    f"{r['variant']:7} {r['method']:26} overhead sklearn/ours: "
                    + "  ".join(parts)
                )
    for r in rows:
        if r["method"] == "calibrator fit only":
            print(
                f"{r['variant']:7} calibrator fit only: IsotonicRegression "
                f"{r['isotonic_fit_s']:.3f} s, PAVCalibrator {r['pav_fit_s']:.3f} s "
                f"(ratio {r['isotonic_fit_s'] / r['pav_fit_s']:.2f}); max |proba "
                f"diff| {r['max_abs_proba_diff_pav_vs_isotonic']:.1e}"
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n", type=float, default=1e6, help="training samples (default 1e6)"
    )
    parser.add_argument("--d", type=int, default=20, help="features (default 20)")
    parser.add_argument(
        "--n-test", type=float, default=1e5, help="test samples (default 1e5)"
    )
    parser.add_argument("--cv", type=int, default=5, help="folds (default 5)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs, median (default 3)"
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        default=["gauss", "ties"],
        help="data: gauss (linear signal), ties (few distinct values) "
        "(default gauss ties)",
    )
    parser.add_argument(
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    rows = run(
        int(args.n), args.d, int(args.n_test), args.cv, args.repeats, args.variants
    )
    _print_table(rows)
    if args.json:
        commit = git_commit()
        meta = {
            "commit": commit,
            "date": utc_now(),
            "args": vars(args),
        }
        write_json(args.json, {"meta": meta, "rows": rows})
    return 0


if __name__ == "__main__":
    run_script(main)
