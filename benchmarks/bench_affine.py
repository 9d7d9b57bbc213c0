"""Benchmark the parametric calibrators against scikit-learn, in one run.

Measured on the same 1-D scores (median of ``--repeats``; the scikit-learn
peers, which take seconds at n = 1e7, at most ``--peer-repeats`` times):

- ``ProperScoringAffineCalibrator.fit`` for the rules (1,1), (2,1), (2,2)
  and (1/2,1/2) against ``LogisticRegression(penalty=None, solver='lbfgs')``
  fitted on the scores as one feature, and against one ``np.argsort``;
  (1,1) is run at the empirical target proportion as ``prior``, where it is
  the same problem as plain logistic regression, and the parameter
  differences to scikit-learn are reported (``|dA|``, ``|dB|``);
- ``PlattCalibrator.fit`` against scikit-learn's sigmoid calibration
  (``sklearn.calibration._sigmoid_calibration``, the function
  ``CalibratedClassifierCV(method='sigmoid')`` calls; private, used here
  only as the reference), with the parameter differences;
- the number of objective evaluations (fused value/gradient/Hessian passes)
  of every fit, as ``full+sub``: passes over the full data plus passes over
  the warm-start subsamples of about 2**14 and 2**16 samples (each of those
  costs ``2**14 / n`` or ``2**16 / n`` of a full pass);
- for (1,1), ``obj(LR) - obj``: the prior-weighted log-loss of scikit-learn's
  parameters minus that of ours (>= 0 when ours is the better optimum; the
  parameter differences are lbfgs' default tolerance, not ours);
- the solver itself against ``scipy.optimize.minimize(method="trust-exact")``
  on the same objective (``skcalib._kernel._linear_rule.AffineRuleObjective``
  on the same standardized, prepared data; one fused pass gives value, gradient and
  Hessian, cached between scipy's three callbacks) for the rules (1,1) and
  (2,2) at prior 0.01: seconds, full passes, and the objective difference
  (scipy's minus ours; ``gtol=1e-10``). Ours includes its warm start on a
  subsample and, for (2,2), the logistic presolve; scipy starts at 0.

Data: 10% targets, target scores N(2, 1.5^2), non-target scores N(0, 1) (an
affine map cannot be right everywhere), and a tie-heavy variant with the
scores rounded to 2 decimals.

Usage::

    python benchmarks/bench_affine.py --sizes 1e6 1e7 --repeats 3 [--json out.json]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from scipy.optimize import minimize as scipy_minimize
from scipy.special import logit
from sklearn.calibration import _sigmoid_calibration
from sklearn.linear_model import LogisticRegression

from skcalib._affine import ProperScoringAffineCalibrator
from skcalib._kernel._linear_rule import AffineRuleObjective, binary_summary
from skcalib._kernel._solver import ArrayData, _Passes, fit_standardizer, minimize
from skcalib._kernel._special import prior_weighted_objective
from skcalib._platt import PlattCalibrator

RULES = [(1.0, 1.0), (2.0, 1.0), (2.0, 2.0), (0.5, 0.5)]


def _timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def _data(n, variant, rng):
    y = rng.random(n) < 0.1
    s = np.where(y, rng.normal(2.0, 1.5, n), rng.normal(0.0, 1.0, n))
    if variant == "ties":
        s = np.round(s, 2)
    return s, y.astype(np.int64)


def _objective(s, y, rule, prior):
    data = ArrayData(s, y == 1, None)
    summary = binary_summary(data)
    std = fit_standardizer(data, summary.lo, summary.hi)
    obj = AffineRuleObjective(
        standardizer=std,
        class_factors=(prior / summary.w_tar, (1.0 - prior) / summary.w_non),
        alpha=rule[0],
        beta=rule[1],
        tau=logit(prior),
    )
    return data, obj


def _ours(s, y, rule, prior):
    data, obj = _objective(s, y, rule, prior)
    res = minimize(obj, data, [0.0, 0.0], presolve=obj.presolve())
    fun = _Passes(obj, data.map(obj.prepare))
    return res.n_evals, fun(res.theta, 0)


def _trust_exact(s, y, rule, prior):
    data, obj = _objective(s, y, rule, prior)
    fun = _Passes(obj, data.map(obj.prepare))
    cache = {}

    def passes(x):
        key = x.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = fun(x)
        return cache[key]

    res = scipy_minimize(
        lambda x: passes(x)[0],
        np.zeros(2),
        jac=lambda x: passes(x)[1],
        hess=lambda x: passes(x)[2],
        method="trust-exact",
        options={"gtol": 1e-10},
    )
    return fun.n_evals, fun(res.x, 0)


def run_solvers(sizes, repeats, seed=0):
    """Our Newton solver against scipy's trust-exact on the same objective."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        s, y = _data(n, "gaussian", rng)
        for rule in [(1.0, 1.0), (2.0, 2.0)]:
            t_ours, (ev_ours, f_ours) = _timed(
                lambda r=rule, s=s, y=y: _ours(s, y, r, 0.01), repeats
            )
            t_te, (ev_te, f_te) = _timed(
                lambda r=rule, s=s, y=y: _trust_exact(s, y, r, 0.01), repeats
            )
            rows.append(
                {
                    "n": n,
                    "rule": f"({rule[0]:g},{rule[1]:g})",
                    "ours_s": t_ours,
                    "ours_passes": ev_ours,
                    "trust_exact_s": t_te,
                    "trust_exact_passes": ev_te,
                    "trust_exact/ours": t_te / t_ours,
                    "obj_gap": f_te - f_ours,
                }
            )
    return rows


def run(sizes, repeats, peer_repeats, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for variant in ("gaussian", "ties"):
            s, y = _data(n, variant, rng)
            X = s[:, None]
            pi = float(y.mean())
            t_argsort, _ = _timed(lambda s=s: np.argsort(s), repeats)
            with warnings.catch_warnings():
                # lbfgs at its default tol may stop on max_iter at 1e7
                warnings.simplefilter("ignore")
                t_lr, lr = _timed(
                    lambda X=X, y=y: LogisticRegression(penalty=None).fit(X, y),
                    peer_repeats,
                )
            t_sig, (sa, sb) = _timed(
                lambda s=s, y=y: _sigmoid_calibration(s, y), peer_repeats
            )
            t_platt, platt = _timed(
                lambda s=s, y=y: PlattCalibrator().fit(s, y), repeats
            )
            row = {
                "n": n,
                "data": variant,
                "argsort_s": t_argsort,
                "logreg_s": t_lr,
                "logreg/argsort": t_lr / t_argsort,
                "sigmoid_s": t_sig,
                "sigmoid/argsort": t_sig / t_argsort,
                "platt_s": t_platt,
                "sigmoid/platt": t_sig / t_platt,
                "platt_evals": int(platt._n_evals[0]),
                "platt_sub_evals": int(platt._n_sub_evals[0]),
                "platt_dA": abs(platt.coef_[0] + sa),
                "platt_dB": abs(platt.intercept_[0] + sb),
            }
            for a, b in RULES:
                prior = pi if (a, b) == (1.0, 1.0) else 0.01
                t_fit, cal = _timed(
                    lambda s=s, y=y, a=a, b=b, p=prior: ProperScoringAffineCalibrator(
                        alpha=a, beta=b, p_target=p, l2=0
                    ).fit(s, y),
                    repeats,
                )
                key = f"({a:g},{b:g})"
                row[f"{key}_s"] = t_fit
                row[f"logreg/{key}"] = t_lr / t_fit
                row[f"{key}_evals"] = int(cal._n_evals[0])
                row[f"{key}_sub_evals"] = int(cal._n_sub_evals[0])
                if (a, b) == (1.0, 1.0):
                    row["logreg_dA"] = abs(cal.coef_[0] - lr.coef_[0, 0])
                    row["logreg_dB"] = abs(
                        cal.intercept_[0] - (lr.intercept_[0] - logit(prior))
                    )
                    # objective of scikit-learn's answer minus ours (>= 0: ours
                    # is the better optimum; the gap is lbfgs' tolerance)
                    is_target = y == 1
                    row["logreg_obj_gap"] = prior_weighted_objective(
                        lr.coef_[0, 0] * s + lr.intercept_[0] - logit(prior),
                        is_target,
                        alpha=1,
                        beta=1,
                        prior=prior,
                    ) - prior_weighted_objective(
                        cal.transform(s), is_target, alpha=1, beta=1, prior=prior
                    )
            rows.append(row)
    return rows


def _print_table(rows):
    head = (
        f"{'n':>7} {'data':>8} {'argsort':>8} {'LR':>7} {'LR/as':>6} "
        f"{'sig':>7} {'sig/as':>6} {'platt':>7} {'sig/platt':>9} {'evals':>5} "
        f"{'|dA|,|dB| vs sk':>17}"
    )
    print("Platt and logistic regression peers (seconds, ratios)")
    print(head)
    for r in rows:
        print(
            f"{r['n']:>7.0e} {r['data']:>8} {r['argsort_s']:>8.3f} "
            f"{r['logreg_s']:>7.3f} {r['logreg/argsort']:>6.2f} "
            f"{r['sigmoid_s']:>7.3f} {r['sigmoid/argsort']:>6.2f} "
            f"{r['platt_s']:>7.3f} {r['sigmoid/platt']:>9.1f} "
            f"{r['platt_evals']:>2d}+{r['platt_sub_evals']:>2d} "
            f"{r['platt_dA']:>8.1e},{r['platt_dB']:>8.1e}"
        )
    print()
    print("ProperScoringAffineCalibrator.fit: seconds, LR time / fit time, evals")
    print(
        f"{'n':>7} {'data':>8} "
        + " ".join(f"{f'({a:g},{b:g})':>22}" for a, b in RULES)
        + f" {'(1,1) |dA|,|dB| vs LR':>22} {'obj(LR)-obj':>11}"
    )
    for r in rows:
        cells = []
        for a, b in RULES:
            k = f"({a:g},{b:g})"
            t, ratio = r[f"{k}_s"], r[f"logreg/{k}"]
            ev, sub = r[f"{k}_evals"], r[f"{k}_sub_evals"]
            cells.append(f"{t:>7.3f}s {ratio:>5.1f}x {ev:>2d}+{sub:>2d}ev")
        print(
            f"{r['n']:>7.0e} {r['data']:>8} "
            + " ".join(f"{c:>22}" for c in cells)
            + f" {r['logreg_dA']:>10.1e},{r['logreg_dB']:>10.1e}"
            + f" {r['logreg_obj_gap']:>11.1e}"
        )


def _print_solvers(rows):
    print()
    print("Solver: ours (Newton, warm start) vs scipy trust-exact, same objective")
    print(
        f"{'n':>7} {'rule':>6} {'ours':>8} {'passes':>6} {'trust-ex':>8} "
        f"{'passes':>6} {'te/ours':>7} {'f(te)-f(ours)':>13}"
    )
    for r in rows:
        print(
            f"{r['n']:>7.0e} {r['rule']:>6} {r['ours_s']:>8.3f} "
            f"{r['ours_passes']:>6d} {r['trust_exact_s']:>8.3f} "
            f"{r['trust_exact_passes']:>6d} {r['trust_exact/ours']:>7.2f} "
            f"{r['obj_gap']:>13.1e}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=float,
        default=[1e6, 1e7],
        help="numbers of scores (default 1e6 1e7)",
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
        "--json", help="write the rows to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes]
    rows = run(sizes, args.repeats, args.peer_repeats)
    _print_table(rows)
    solver_rows = run_solvers(sizes, args.repeats)
    _print_solvers(solver_rows)
    if args.json:
        commit = git_commit(short=True)
        meta = {
            "commit": commit,
            "date": utc_now(),
        }
        write_json(args.json, {"meta": meta, "rows": rows, "solvers": solver_rows})
    return 0


if __name__ == "__main__":
    run_script(main)
