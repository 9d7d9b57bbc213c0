"""Calibration quality on real data: skcalib against scikit-learn, cell by cell.

The panel: data sets that ship with scikit-learn (``breast_cancer``; ``digits``
as even/odd, ``digits_parity``, and as 10 classes, ``digits``; ``wine`` and
``iris``, 3 classes) and a synthetic imbalanced binary problem
(``make_classification(6000, 20, n_informative=6, weights=[0.75],
flip_y=0.03, random_state=0)``), crossed with five classifiers (scaled
``LogisticRegression``, ``GaussianNB``, ``RandomForestClassifier(100)``, scaled
``LinearSVC``, ``HistGradientBoostingClassifier``). A *cell* is one (data set,
classifier) pair.

Protocol, per cell and repeat ``r`` (``--repeats``, default 5): a stratified
50/25/25 train/calibration/test split seeded with ``r``; the classifier is
fitted once on the train part and frozen (``sklearn.frozen.FrozenEstimator``);
every method is then calibrated on the same calibration part and scored on
the test part:

- scikit-learn: ``CalibratedClassifierCV(FrozenEstimator(clf), method=m)``
  for ``m`` in 'sigmoid', 'isotonic', 'temperature' (with a frozen
  classifier scikit-learn trains one calibrator on the whole calibration
  part);
- skcalib: ``CalibratedClassifier(FrozenEstimator(clf), calibrator)``, whose
  frozen path does the same, for each calibrator of the registry ``METHODS``
  (new skcalib calibrators such as ``BetaCalibrator`` or
  ``VennAbersCalibrator`` are picked up when the package has them) and for
  the default ``CalibratedClassifier()`` (``calibrator=None``);
- ``uncalibrated``: the classifier's own ``predict_proba`` (n/a for
  ``LinearSVC``);
- with ``--peers``: betacal, venn-abers, netcal, probmetrics and ml-insights,
  those installed (``pip install skcalib[bench]``), fitted on the frozen
  classifier's calibration-part probabilities (``predict_proba``; for
  ``LinearSVC`` the sigmoid / softmax of ``decision_function``). A binary
  peer on a multiclass cell is n/a.

Scores (means over the repeats): test log-loss (``sklearn.metrics.log_loss``,
multiclass for K > 2), Brier score (binary: mean squared error of the
positive-class probability; K > 2: the multiclass Brier score, the sum over
classes, in [0, 2]) and ECE with 15 equal-width bins (binary: of the
positive-class probability; K > 2: top-label, the confidence of the predicted
class against its accuracy). A method that raises on a cell is reported as
``refused`` (a ``ValueError``: the method declines the problem, e.g. a
multiclass calibrator on two classes) or ``error`` (anything else) and the
run goes on.

Printed: each cell's table (log-loss, Brier, ECE, fit warnings; the ratio of
each skcalib method's log-loss to its scikit-learn namesake, Platt/sigmoid,
PAV/isotonic, temperature/temperature, and of the default to the best of
scikit-learn's three); the pairs' ratios across cells with a ``!`` where a
pair is above 1.02x (the default: 1.05x); their geometric means, binary and
multiclass separately; and a rank summary (mean rank of each method's
log-loss over the cells, wins).

Usage::

    python benchmarks/bench_quality.py                 # the full panel
    python benchmarks/bench_quality.py --quick         # well under a minute
    python benchmarks/bench_quality.py --datasets wine iris --classifiers rf \\
        --methods sigmoid platt default --repeats 3
    python benchmarks/bench_quality.py --datasets heldout   # other data sets
    python benchmarks/bench_quality.py --markdown      # the README tables
    python benchmarks/bench_quality.py --update-docs   # rewrite README + docs
    python benchmarks/bench_quality.py --peers --json quality.json
    python benchmarks/bench_quality.py --from-json quality.json --markdown

``--update-docs`` replaces the generated blocks of ``README.md`` and
``docs/user_guide/quality.rst`` (between the ``quality-table:begin`` and
``quality-table:end`` markers) with the tables of this run.

``--datasets`` takes names or groups (``panel``, the default; ``heldout``,
data sets kept out of the panel for checking that improvements generalize;
``all``); ``--list`` shows every name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json
from joblib import Parallel, delayed
from scipy.special import expit, softmax
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
    make_gaussian_quantiles,
    make_hastie_10_2,
    make_moons,
)
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import skcalib
from skcalib.metrics import expected_calibration_error, top_label_calibration_error

N_BINS = 15
PAIR_LIMIT = 1.02  # a skcalib method against its scikit-learn namesake
DEFAULT_LIMIT = 1.05  # the default against the best of scikit-learn's three
SKLEARN_METHODS = ("sigmoid", "isotonic", "temperature")


# --------------------------------------------------------------------------
# data sets: name -> loader returning (X, y); y holds labels 0..K-1


def _digits_parity():
    X, y = load_digits(return_X_y=True)
    return X, y % 2


def _digits_low_high():
    X, y = load_digits(return_X_y=True)
    return X, (y >= 5).astype(int)


def _iris_versicolor():
    X, y = load_iris(return_X_y=True)
    return X, (y == 1).astype(int)


def _hastie():
    X, y = make_hastie_10_2(n_samples=4000, random_state=1)
    return X, (y > 0).astype(int)


def _moons():
    X, y = make_moons(n_samples=3000, noise=0.35, random_state=2)
    return X, y


def _gauss_quantiles():
    return make_gaussian_quantiles(
        n_samples=3000, n_features=4, n_classes=3, random_state=3
    )


def _imbalanced_binary():
    return make_classification(
        6000, 20, n_informative=6, weights=[0.75], flip_y=0.03, random_state=0
    )


def _multiclass4():
    return make_classification(
        4000,
        20,
        n_informative=8,
        n_classes=4,
        n_clusters_per_class=2,
        flip_y=0.05,
        random_state=1,
    )


def _rare_binary():
    return make_classification(
        5000, 10, n_informative=4, weights=[0.93], flip_y=0.01, random_state=4
    )


DATASETS: dict[str, Callable] = {
    # the panel
    "breast_cancer": partial(load_breast_cancer, return_X_y=True),
    "digits_parity": _digits_parity,
    "digits": partial(load_digits, return_X_y=True),
    "wine": partial(load_wine, return_X_y=True),
    "iris": partial(load_iris, return_X_y=True),
    "make_classification": _imbalanced_binary,
    # held out: not used to tune anything, to check that results generalize
    "digits_low_high": _digits_low_high,
    "iris_versicolor": _iris_versicolor,
    "hastie": _hastie,
    "moons": _moons,
    "rare_binary": _rare_binary,
    "gauss_quantiles": _gauss_quantiles,
    "multiclass4": _multiclass4,
}
DATASET_GROUPS = {
    "panel": [
        "breast_cancer",
        "digits_parity",
        "digits",
        "wine",
        "iris",
        "make_classification",
    ],
    "heldout": [
        "digits_low_high",
        "iris_versicolor",
        "hastie",
        "moons",
        "rare_binary",
        "gauss_quantiles",
        "multiclass4",
    ],
    "quick": ["breast_cancer", "wine"],
}
DATASET_GROUPS["all"] = DATASET_GROUPS["panel"] + DATASET_GROUPS["heldout"]


# --------------------------------------------------------------------------
# classifiers: name -> factory of an unfitted classifier


def _scaled(model):
    return make_pipeline(StandardScaler(), model)


CLASSIFIERS: dict[str, Callable] = {
    "logreg": lambda: _scaled(LogisticRegression(max_iter=1000)),
    "gnb": GaussianNB,
    "rf": lambda: RandomForestClassifier(100, random_state=0),
    "linsvc": lambda: _scaled(LinearSVC()),
    "hgb": lambda: HistGradientBoostingClassifier(random_state=0),
}


# --------------------------------------------------------------------------
# methods


class NotApplicable(Exception):
    """The method does not apply to the cell (reported as ``n/a``)."""


@dataclass
class Context:
    """What a method sees: the frozen classifier and the two data parts."""

    clf: object
    X_cal: np.ndarray
    y_cal: np.ndarray
    X_test: np.ndarray
    n_classes: int
    _proba: dict = field(default_factory=dict)

    def probabilities(self, part):
        """The classifier's probabilities (a sigmoid/softmax of its scores
        when it has no ``predict_proba``) on ``'cal'`` or ``'test'``."""
        if part not in self._proba:
            X = self.X_cal if part == "cal" else self.X_test
            if hasattr(self.clf, "predict_proba"):
                p = self.clf.predict_proba(X)
            else:
                d = self.clf.decision_function(X)
                p = (
                    np.column_stack([1 - expit(d), expit(d)])
                    if d.ndim == 1
                    else softmax(d, axis=1)
                )
            self._proba[part] = p
        return self._proba[part]


@dataclass
class Method:
    """A calibration method of the panel.

    ``run(ctx)`` returns the test probabilities, shape (n_test, K).
    ``family`` is 'sklearn', 'skcalib', 'peer' or 'none'; ``namesake`` the
    scikit-learn method it is compared with (``'best'``: the best of the
    three). ``build(frozen_clf)``, where there is one, returns the unfitted
    estimator ``run`` fits (``calarena_adapter.py`` uses it).
    """

    run: Callable
    family: str
    namesake: str | None = None
    build: Callable | None = None


def _estimator_method(build):
    """A method from ``build(frozen_clf) -> unfitted classifier``."""

    def run(ctx):
        model = build(FrozenEstimator(ctx.clf))
        model.fit(ctx.X_cal, ctx.y_cal)
        return model.predict_proba(ctx.X_test)

    return run


def _sklearn(method):
    def build(frozen):
        return CalibratedClassifierCV(frozen, method=method)

    return Method(_estimator_method(build), "sklearn", build=build)


def _skcalib(calibrator_factory, namesake=None):
    def build(frozen):
        cal = None if calibrator_factory is None else calibrator_factory()
        return skcalib.CalibratedClassifier(frozen, cal)

    return Method(_estimator_method(build), "skcalib", namesake, build)


def _uncalibrated(ctx):
    if not hasattr(ctx.clf, "predict_proba"):
        raise NotApplicable("no predict_proba")
    return ctx.clf.predict_proba(ctx.X_test)


def _skcalib_class(name):
    """A factory of ``skcalib.<name>()``, an instance with default parameters."""

    def factory():
        return getattr(skcalib, name)()

    return factory


def build_methods():
    """The registry: name -> Method, in the order of the tables."""
    methods = {"uncalibrated": Method(_uncalibrated, "none")}
    for m in SKLEARN_METHODS:
        methods[m] = _sklearn(m)
    methods["default"] = _skcalib(None, "best")
    methods["platt"] = _skcalib(skcalib.PlattCalibrator, "sigmoid")
    methods["pav"] = _skcalib(skcalib.PAVCalibrator, "isotonic")
    methods["pavllr"] = _skcalib(skcalib.PAVLLRCalibrator)
    methods["affine"] = _skcalib(skcalib.ProperScoringAffineCalibrator)
    mca = skcalib.MulticlassAffineCalibrator
    methods["temp"] = _skcalib(partial(mca, kind="temperature"), "temperature")
    methods["vector"] = _skcalib(partial(mca, kind="vector"))
    methods["matrix"] = _skcalib(partial(mca, kind="matrix"))
    # the leaderboard's methods (namesakes: their probmetrics reference)
    for kind in ("ts-mix", "svs", "sms"):
        short = kind.replace("-", "")
        methods[short] = _skcalib(partial(mca, kind=kind), f"probmetrics_{short}")
    if hasattr(skcalib, "QuadraticCalibrator"):
        methods["quadratic"] = _skcalib(
            skcalib.QuadraticCalibrator, "probmetrics_quadratic"
        )
    # calibrators being written: in the panel as soon as skcalib has them
    for short, name in (("beta", "BetaCalibrator"), ("venn", "VennAbersCalibrator")):
        if hasattr(skcalib, name):
            methods[short] = _skcalib(_skcalib_class(name))
    # cross-fitting of fewer folds (the default's at large n)
    for k in (2, 3, 5):
        methods[f"auto-f{k}"] = _skcalib(partial(skcalib.AutoCalibrator, n_folds=k))
    for short, (binary, multiclass) in _AUTO_VARIANTS.items():
        methods[short] = _skcalib(partial(_auto_variant, binary, multiclass))
    methods["auto-stack"] = _skcalib(_auto_stack)
    return methods


#: Candidate sets tried for AutoCalibrator's default: name -> (binary
#: candidates, K-class candidates), each a list of the default's names
#: (``_auto``'s default lists) and new ones; Platt's sigmoid stays second
#: (the default's fallback).
_AUTO_VARIANTS = {
    # the default before quadratic (binary) and SMS (K classes) joined it
    "auto-prev": (
        ["temperature", "sigmoid", "sigmoid-p", "pav"],
        ["temperature", "ovr-sigmoid", "ovr-sigmoid-p", "ovr-pav"],
    ),
    "auto-b+quad": (["temperature", "sigmoid", "sigmoid-p", "pav", "quadratic"], None),
    "auto-b-beta": (["temperature", "sigmoid", "beta", "pav"], None),
    "auto-b-quad": (["temperature", "sigmoid", "quadratic", "pav"], None),
    "auto-b+qb": (["temperature", "sigmoid", "quadratic", "beta", "pav"], None),
    "auto-b+beta": (
        ["temperature", "sigmoid", "sigmoid-p", "pav", "quadratic", "beta"],
        None,
    ),
    "auto-m+sms": (
        None,
        ["temperature", "ovr-sigmoid", "ovr-sigmoid-p", "ovr-pav", "sms"],
    ),
    "auto-m+svs": (
        None,
        ["temperature", "ovr-sigmoid", "ovr-sigmoid-p", "ovr-pav", "svs"],
    ),
    "auto-m-sms": (None, ["temperature", "ovr-sigmoid", "sms", "ovr-pav"]),
    "auto-m-sms2": (None, ["temperature", "ovr-sigmoid", "sms"]),
    "auto-m-svsms": (None, ["temperature", "ovr-sigmoid", "svs", "sms"]),
    "auto-m-tsmix": (None, ["temperature", "ovr-sigmoid", "ts-mix", "sms", "ovr-pav"]),
    "auto-m+vec": (None, ["temperature", "ovr-sigmoid", "sms", "ovr-pav", "vector"]),
    "auto-m+mat": (None, ["temperature", "ovr-sigmoid", "sms", "ovr-pav", "matrix"]),
}


def _auto_stack():
    """The default's candidates, stacked wherever the weights say: without
    the rule that keeps SMS alone unless the stack beats it."""

    class Stack(skcalib.AutoCalibrator):
        def _anchor(self, candidates):
            return None

    return Stack()


def _auto_variant(binary, multiclass):
    """An AutoCalibrator whose default candidates are the named ones (the
    other problem's defaults unchanged when ``None``)."""
    from skcalib import _auto

    extra = {
        "quadratic": getattr(skcalib, "QuadraticCalibrator", None),
        "beta": getattr(skcalib, "BetaCalibrator", None),
        "sms": partial(skcalib.MulticlassAffineCalibrator, kind="sms"),
        "svs": partial(skcalib.MulticlassAffineCalibrator, kind="svs"),
        "ts-mix": partial(skcalib.MulticlassAffineCalibrator, kind="ts-mix"),
        "vector": partial(skcalib.MulticlassAffineCalibrator, kind="vector"),
        "matrix": partial(skcalib.MulticlassAffineCalibrator, kind="matrix"),
        "sigmoid-p": _auto._ProbabilitySigmoid,
        "ovr-sigmoid-p": _auto._ProbabilitySigmoid,
    }

    def pick(defaults, names):
        if names is None:
            return defaults
        known = dict(defaults)
        return [(n, known[n] if n in known else extra[n]()) for n in names]

    class Variant(skcalib.AutoCalibrator):
        def _candidates(self, multiclass_, n_samples, n_classes=2):
            if multiclass_:
                defaults = _auto._default_multiclass_candidates(n_samples, n_classes)
                return pick(defaults, multiclass)
            return pick(_auto._default_binary_candidates(n_samples), binary)

    return Variant()


# peers: they calibrate probabilities. Each adapter takes the calibration
# probabilities (n, K), labels, and test probabilities and returns (n_test, K).


def _binary_only(fn):
    def run(ctx):
        if ctx.n_classes != 2:
            raise NotApplicable("binary only")
        p1 = fn(
            ctx.probabilities("cal")[:, 1],
            ctx.y_cal,
            ctx.probabilities("test")[:, 1],
        )
        p1 = np.clip(np.asarray(p1, dtype=float).ravel(), 0.0, 1.0)
        return np.column_stack([1 - p1, p1])

    return run


def _betacal(p_cal, y_cal, p_test):
    from betacal import BetaCalibration

    return BetaCalibration(parameters="abm").fit(p_cal, y_cal).predict(p_test)


def _venn_abers(ctx):
    from venn_abers import VennAbersCalibrator

    # the package's "manual" inductive Venn-ABERS on given probabilities
    # (one-vs-one for K > 2), its log-loss merging of the two probabilities
    return VennAbersCalibrator().predict_proba(
        p_cal=ctx.probabilities("cal"),
        y_cal=ctx.y_cal,
        p_test=ctx.probabilities("test"),
    )


def _netcal(name, binary_only=False):
    def run(ctx):
        import netcal.scaling

        model = getattr(netcal.scaling, name)()
        p_cal, p_test = ctx.probabilities("cal"), ctx.probabilities("test")
        if ctx.n_classes == 2 or binary_only:
            if ctx.n_classes != 2:
                raise NotApplicable("binary only")
            model.fit(p_cal[:, 1], ctx.y_cal)
            p1 = np.asarray(model.transform(p_test[:, 1]), dtype=float).ravel()
            return np.column_stack([1 - p1, p1])
        model.fit(p_cal, ctx.y_cal)
        p = np.asarray(model.transform(p_test), dtype=float)
        return p / p.sum(axis=1, keepdims=True)

    return run


def _probmetrics(name, binary_only=False):
    def run(ctx):
        from probmetrics.calibrators import get_calibrator

        if binary_only and ctx.n_classes != 2:
            raise NotApplicable("binary only")

        cal = get_calibrator(name)
        cal.fit(ctx.probabilities("cal"), np.asarray(ctx.y_cal))
        return np.asarray(cal.predict_proba(ctx.probabilities("test")), dtype=float)

    return run


def _spline_calib(p_cal, y_cal, p_test):
    from ml_insights import SplineCalib

    sc = SplineCalib()
    sc.fit(p_cal, y_cal)
    return sc.calibrate(p_test)


PEERS = {
    # name: (module to import, Method)
    "betacal": ("betacal", Method(_binary_only(_betacal), "peer")),
    "venn_abers": ("venn_abers", Method(_venn_abers, "peer")),
    "netcal_temp": ("netcal", Method(_netcal("TemperatureScaling"), "peer")),
    "netcal_beta": (
        "netcal",
        Method(_netcal("BetaCalibration", binary_only=True), "peer"),
    ),
    "probmetrics_ts": ("probmetrics", Method(_probmetrics("temp-scaling"), "peer")),
    "probmetrics_logistic": ("probmetrics", Method(_probmetrics("logistic"), "peer")),
    "probmetrics_quadratic": (
        "probmetrics",
        Method(_probmetrics("quadratic-scaling", binary_only=True), "peer"),
    ),
    "probmetrics_tsmix": ("probmetrics", Method(_probmetrics("ts-mix"), "peer")),
    "probmetrics_svs": ("probmetrics", Method(_probmetrics("svs"), "peer")),
    "probmetrics_sms": ("probmetrics", Method(_probmetrics("sms"), "peer")),
    "ml_insights": ("ml_insights", Method(_binary_only(_spline_calib), "peer")),
}


def available_peers():
    """Installed peers and the names of those that are not."""
    import importlib.util

    found, missing = {}, []
    for name, (module, method) in PEERS.items():
        if importlib.util.find_spec(module) is None:
            missing.append(name)
        else:
            found[name] = method
    return found, missing


# --------------------------------------------------------------------------
# scores


def scores(y, proba, n_classes):
    """(log-loss, Brier, ECE) of test probabilities ``proba`` (n, K)."""
    proba = np.asarray(proba, dtype=float)
    if proba.shape != (y.shape[0], n_classes) or not np.isfinite(proba).all():
        raise ValueError(f"bad probabilities: shape {proba.shape} or not finite")
    ll = log_loss(y, proba, labels=np.arange(n_classes))
    if n_classes == 2:
        brier = float(np.mean((proba[:, 1] - y) ** 2))
        ece = expected_calibration_error(y, proba[:, 1], n_bins=N_BINS)
    else:
        onehot = np.eye(n_classes)[y]
        brier = float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))
        ece = top_label_calibration_error(y, proba, n_bins=N_BINS)
    return float(ll), brier, float(ece)


# --------------------------------------------------------------------------
# the run


def split(X, y, seed):
    """Stratified 50/25/25 train/calibration/test split seeded with ``seed``."""
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=seed
    )
    X_cal, X_te, y_cal, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=seed
    )
    return X_tr, y_tr, X_cal, y_cal, X_te, y_te


def run_task(dataset, classifier, repeat, method_names, peers):
    """One (cell, repeat): fit the classifier, run every method; a dict of
    method -> {'status', 'scores', 'time', 'warnings'}."""
    from threadpoolctl import threadpool_limits

    # parallelism is over tasks: OpenMP/BLAS threads inside a task
    # oversubscribe the cores (HistGradientBoosting's predict slows down
    # tenfold on a loaded machine)
    with threadpool_limits(1):
        return _run_task(dataset, classifier, repeat, method_names, peers)


def _run_task(dataset, classifier, repeat, method_names, peers):
    from sklearn.preprocessing import LabelEncoder

    X, y = DATASETS[dataset]()
    y = LabelEncoder().fit_transform(y)
    n_classes = int(y.max()) + 1
    X_tr, y_tr, X_cal, y_cal, X_te, y_te = split(X, y, repeat)
    clf = CLASSIFIERS[classifier]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the classifier's own convergence
        clf.fit(X_tr, y_tr)
    ctx = Context(clf, X_cal, y_cal, X_te, n_classes)
    methods = build_methods()
    methods.update({name: PEERS[name][1] for name in peers})
    out = {}
    for name in method_names:
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                proba = methods[name].run(ctx)
            except NotApplicable as exc:
                res = {"status": "n/a", "message": str(exc)}
            except ValueError as exc:
                res = {"status": "refused", "message": str(exc)[:200]}
            except Exception as exc:  # noqa: BLE001  (reported, run goes on)
                res = {"status": "error", "message": f"{type(exc).__name__}: {exc}"}
            else:
                try:
                    res = {"status": "ok", "scores": scores(y_te, proba, n_classes)}
                except ValueError as exc:  # e.g. rows not summing to 1
                    res = {"status": "error", "message": f"invalid output: {exc}"}
        res["time"] = time.perf_counter() - t0
        res["warnings"] = sorted(
            {f"{w.category.__name__}: {str(w.message)[:120]}" for w in caught}
        )
        out[name] = res
    return {
        "dataset": dataset,
        "classifier": classifier,
        "repeat": repeat,
        "n_classes": n_classes,
        "n_cal": int(y_cal.shape[0]),
        "n_test": int(y_te.shape[0]),
        "methods": out,
    }


def aggregate(tasks, method_names):
    """Per cell: mean scores over repeats; a method is ok only if every
    repeat is ok (otherwise the first non-ok status is kept)."""
    cells = {}
    for t in tasks:
        key = (t["dataset"], t["classifier"])
        cell = cells.setdefault(
            key,
            {
                "dataset": t["dataset"],
                "classifier": t["classifier"],
                "n_classes": t["n_classes"],
                "n_cal": t["n_cal"],
                "n_test": t["n_test"],
                "repeats": [],
            },
        )
        cell["repeats"].append(t["methods"])
    for cell in cells.values():
        methods = {}
        for name in method_names:
            runs = [rep[name] for rep in cell["repeats"]]
            bad = [r for r in runs if r["status"] != "ok"]
            warns = sorted({w for r in runs for w in r["warnings"]})
            entry = {"warnings": warns, "time": float(sum(r["time"] for r in runs))}
            if bad:
                entry.update(
                    status=bad[0]["status"],
                    message=bad[0].get("message", ""),
                    n_failed=len(bad),
                )
            else:
                s = np.array([r["scores"] for r in runs])
                entry.update(
                    status="ok",
                    log_loss=float(s[:, 0].mean()),
                    brier=float(s[:, 1].mean()),
                    ece=float(s[:, 2].mean()),
                    log_loss_per_repeat=s[:, 0].tolist(),
                )
            methods[name] = entry
        cell["methods"] = methods
        del cell["repeats"]
        sk = [methods[m]["log_loss"] for m in SKLEARN_METHODS if _ok(methods, m)]
        cell["best_sklearn"] = min(sk) if sk else None
    return [cells[k] for k in sorted(cells, key=_cell_order)]


def _cell_order(key):
    names = list(DATASETS)
    return (names.index(key[0]), list(CLASSIFIERS).index(key[1]))


def _ok(methods, name):
    return name in methods and methods[name]["status"] == "ok"


def ratio(cell, name, registry):
    """Log-loss of ``name`` over its namesake's (``None`` if either failed);
    a string status if ``name`` failed while its reference ran."""
    methods = cell["methods"]
    namesake = registry[name].namesake
    if namesake == "best":
        ref = cell["best_sklearn"]
    elif namesake is not None and _ok(methods, namesake):
        ref = methods[namesake]["log_loss"]
    else:
        ref = None
    if ref is None:
        return None
    if not _ok(methods, name):
        return methods[name]["status"]
    return methods[name]["log_loss"] / ref


def _limit(registry, name):
    return DEFAULT_LIMIT if registry[name].namesake == "best" else PAIR_LIMIT


def _gmean(values):
    values = [v for v in values if isinstance(v, float)]
    return float(np.exp(np.mean(np.log(values)))) if values else None


def summarize(cells, method_names, registry):
    """Pairs' ratios per cell, their geometric means and the rank summary."""
    paired = [m for m in method_names if registry[m].namesake is not None]
    paired = [
        m
        for m in paired
        if registry[m].namesake == "best" or registry[m].namesake in method_names
    ]
    pairs = {}
    for m in paired:
        rows = [(c["dataset"], c["classifier"], ratio(c, m, registry)) for c in cells]
        is_bin = [c["n_classes"] == 2 for c in cells]
        bin_r = [r for (_, _, r), b in zip(rows, is_bin, strict=True) if b]
        mc_r = [r for (_, _, r), b in zip(rows, is_bin, strict=True) if not b]
        numeric = [(r, d, k) for d, k, r in rows if isinstance(r, float)]
        failed = [(d, k, r) for d, k, r in rows if isinstance(r, str)]
        limit = _limit(registry, m)
        pairs[m] = {
            "namesake": registry[m].namesake,
            "limit": limit,
            "ratios": {f"{d}/{k}": r for d, k, r in rows},
            "gmean_binary": _gmean(bin_r),
            "gmean_multiclass": _gmean(mc_r),
            "n_over": sum(r > limit for r, _, _ in numeric) + len(failed),
            "n_cells": sum(r is not None for _, _, r in rows),
            "worst": max(numeric) if numeric else None,
            "failed": failed,
        }
    # ranks of log-loss within each cell, among the methods that ran
    ranks = {m: [] for m in method_names}
    wins = dict.fromkeys(method_names, 0)
    for c in cells:
        ok = [m for m in method_names if _ok(c["methods"], m)]
        order = sorted(ok, key=lambda m: c["methods"][m]["log_loss"])
        for i, m in enumerate(order):
            ranks[m].append(i + 1)
        if order:
            wins[order[0]] += 1
    rank_summary = {
        m: {
            "mean_rank": float(np.mean(ranks[m])) if ranks[m] else None,
            "wins": wins[m],
            "n_cells": len(ranks[m]),
        }
        for m in method_names
    }
    return pairs, rank_summary


# --------------------------------------------------------------------------
# output


def _fmt_status(entry):
    return {"refused": "refused", "error": "ERROR", "n/a": "n/a"}[entry["status"]]


def print_report(cells, method_names, registry, pairs, rank_summary, out=None):
    out = sys.stdout if out is None else out
    p = partial(print, file=out)
    for c in cells:
        p(
            f"\n== {c['dataset']} x {c['classifier']}  (K={c['n_classes']}, "
            f"n_cal={c['n_cal']}, n_test={c['n_test']})"
        )
        p(f"   {'method':<14} {'log-loss':>9} {'Brier':>8} {'ECE':>8}  ratio  notes")
        for m in method_names:
            e = c["methods"][m]
            if e["status"] != "ok":
                msg = e.get("message", "")[:70]
                p(f"   {m:<14} {_fmt_status(e):>9}  {msg}")
                continue
            r = ratio(c, m, registry)
            rtxt = ""
            if isinstance(r, float):
                flag = "!" if r > _limit(registry, m) else " "
                rtxt = f"{r:5.2f}{flag}"
            notes = f"{len(e['warnings'])} warning(s)" if e["warnings"] else ""
            if m in SKLEARN_METHODS and e["log_loss"] == c["best_sklearn"]:
                notes = ("best sklearn " + notes).strip()
            p(
                f"   {m:<14} {e['log_loss']:9.4f} {e['brier']:8.4f} "
                f"{e['ece']:8.4f}  {rtxt:<6} {notes}"
            )
    # pair table
    names = list(pairs)
    if names:
        p("\n== log-loss ratios (skcalib / scikit-learn namesake; default / best of")
        p(f"   sklearn's three); '!' above {PAIR_LIMIT} ({DEFAULT_LIMIT} for default)")
        header = "   " + f"{'cell':<34}" + "".join(f"{n:>11}" for n in names)
        p(header)
        for c in cells:
            row = f"   {c['dataset'] + ' x ' + c['classifier']:<34}"
            for n in names:
                r = ratio(c, n, registry)
                if r is None:
                    txt = "-"
                elif isinstance(r, str):
                    txt = r + "!"
                else:
                    txt = f"{r:.3f}" + ("!" if r > _limit(registry, n) else " ")
                row += f"{txt:>11}"
            p(row)
        for label, key in (
            ("gmean binary", "gmean_binary"),
            ("gmean multi", "gmean_multiclass"),
        ):
            row = f"   {label:<34}"
            for n in names:
                g = pairs[n][key]
                row += f"{'-' if g is None else f'{g:.3f}':>11}"
            p(row)
        p("\n== per pair: cells over the limit, worst cell")
        for n, s in pairs.items():
            worst = (
                f"{s['worst'][0]:.3f}x ({s['worst'][1]} x {s['worst'][2]})"
                if s["worst"]
                else "-"
            )
            failed = f"; failed: {len(s['failed'])}" if s["failed"] else ""
            p(
                f"   {n} / {s['namesake']}: {s['n_over']} of {s['n_cells']} cells "
                f"> {s['limit']}; worst {worst}{failed}"
            )
    p("\n== rank summary (log-loss rank within each cell, 1 = best)")
    order = sorted(
        method_names,
        key=lambda m: (
            rank_summary[m]["mean_rank"] is None,
            rank_summary[m]["mean_rank"] or 0,
        ),
    )
    for m in order:
        s = rank_summary[m]
        mr = "-" if s["mean_rank"] is None else f"{s['mean_rank']:.2f}"
        p(f"   {m:<14} mean rank {mr:>5}  wins {s['wins']:>3}  cells {s['n_cells']}")


def _ratio_rows(cells, method_names):
    """Header and rows of the cell table: log-loss / best scikit-learn's."""
    cols = [m for m in method_names if m != "uncalibrated"]
    header = ["data set", "classifier", "K", "best sklearn log-loss", *cols]
    rows = []
    per_group = {2: {m: [] for m in cols}, 3: {m: [] for m in cols}}
    for c in cells:
        best = c["best_sklearn"]
        row = [
            c["dataset"],
            c["classifier"],
            str(c["n_classes"]),
            "-" if best is None else f"{best:.4f}",
        ]
        for m in cols:
            e = c["methods"][m]
            if e["status"] != "ok":
                row.append(e["status"])
            elif best is None:
                row.append(f"{e['log_loss']:.4f}")
            else:
                r = e["log_loss"] / best
                per_group[min(c["n_classes"], 3)][m].append(r)
                row.append(f"**{r:.2f}**" if r > DEFAULT_LIMIT else f"{r:.2f}")
        rows.append(row)
    for k, label in ((2, "binary"), (3, "multiclass")):
        if not any(per_group[k].values()):
            continue
        row = [f"geometric mean, {label}", "", "", ""]
        for m in cols:
            g = _gmean(per_group[k][m])
            row.append("-" if g is None else f"{g:.2f}")
        rows.append(row)
    return header, rows


def _pair_rows(pairs):
    """Header and rows of the pair summary."""
    header = [
        "skcalib",
        "against",
        "geometric mean, binary",
        "geometric mean, multiclass",
        "cells above the limit",
        "worst cell",
    ]
    rows = []
    for name, s in pairs.items():
        worst = "-"
        if s["worst"]:
            worst = f"{s['worst'][0]:.2f}x ({s['worst'][1]}, {s['worst'][2]})"
        over = f"{s['n_over']} of {s['n_cells']} (> {s['limit']})"
        if s["failed"]:
            over += f", {len(s['failed'])} refused/error"
        rows.append(
            [
                name,
                "best of sklearn's three" if s["namesake"] == "best" else s["namesake"],
                "-" if s["gmean_binary"] is None else f"{s['gmean_binary']:.3f}",
                "-"
                if s["gmean_multiclass"] is None
                else f"{s['gmean_multiclass']:.3f}",
                over,
                worst,
            ]
        )
    return header, rows


def _caption(n_repeats):
    return (
        f"Mean test log-loss over {n_repeats} stratified 50/25/25 splits divided "
        "by that of the best of scikit-learn's sigmoid, isotonic and temperature "
        f"on the same cell (below 1: better than all three); **bold**: above "
        f"{DEFAULT_LIMIT}. Pairs: skcalib's log-loss over its scikit-learn "
        "namesake's, geometric means over the cells."
    )


def _markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _rst(header, rows):
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        # an empty cell needs content; a lone "-" would start a bullet list
        cells = [{"": "\\", "-": "–"}.get(c, c) for c in row]
        lines.append("   * - " + cells[0])
        lines += ["     - " + c for c in cells[1:]]
    return "\n".join(lines)


def tables(cells, method_names, pairs, n_repeats, fmt="markdown"):
    """The pair summary and the cell table, in Markdown or reStructuredText."""
    render = _markdown if fmt == "markdown" else _rst
    return "\n\n".join(
        [
            render(*_pair_rows(pairs)),
            render(*_ratio_rows(cells, method_names)),
            _caption(n_repeats),
        ]
    )


def markdown_table(cells, method_names, n_repeats, pairs=None):
    """Rows = cells, columns = methods: log-loss / best scikit-learn log-loss."""
    if pairs is None:
        return "\n\n".join(
            [_markdown(*_ratio_rows(cells, method_names)), _caption(n_repeats)]
        )
    return tables(cells, method_names, pairs, n_repeats)


# The generated blocks of README.md and the user guide, between these markers.
DOC_BLOCKS = {
    "README.md": (
        "<!-- quality-table:begin -->",
        "<!-- quality-table:end -->",
        "markdown",
    ),
    "docs/user_guide/quality.rst": (
        ".. quality-table:begin",
        ".. quality-table:end",
        "rst",
    ),
}


def update_docs(root, cells, method_names, pairs, n_repeats, meta):
    """Rewrite the generated table blocks of README.md and the user guide."""
    stamp = (
        f"skcalib {meta['skcalib']} (commit {meta['commit'][:10] or '?'}), "
        f"scikit-learn {meta['sklearn']}, {meta['date'][:10]}; "
        "regenerate with ``python benchmarks/bench_quality.py --update-docs``."
    )
    for rel, (begin, end, fmt) in DOC_BLOCKS.items():
        path = os.path.join(root, rel)
        with open(path) as fh:
            text = fh.read()
        if begin not in text or end not in text:
            raise SystemExit(f"{rel}: markers {begin!r} ... {end!r} not found")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        body = tables(cells, method_names, pairs, n_repeats, fmt)
        note = stamp if fmt == "rst" else stamp.replace("``", "`")
        text = f"{head}{begin}\n\n{body}\n\n{note}\n\n{end}{tail}"
        with open(path, "w") as fh:
            fh.write(text)


# --------------------------------------------------------------------------


def _importable(fn):
    if fn.__module__ != "__main__":
        return fn
    import importlib

    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    module = importlib.import_module(os.path.splitext(os.path.basename(__file__))[0])
    return getattr(module, fn.__name__)


def _resolve(names, known, groups, what):
    out = []
    for n in names:
        if n in groups:
            out.extend(groups[n])
        elif n in known:
            out.append(n)
        else:
            raise SystemExit(
                f"unknown {what} {n!r}; choose from {sorted(known) + sorted(groups)}"
            )
    return list(dict.fromkeys(out))


def method_names_of(named, registry, peers):
    """The methods to run: those ``named`` (``--methods``; all of the
    registry when None) and, with ``--peers``, every installed peer of
    ``peers`` not named (``--peers`` adds them to the named methods)."""
    names = _resolve(named or list(registry), registry, {}, "method")
    return names + [name for name in peers if name not in names]


def _output(args, meta, cells, pairs, rank_summary, registry):
    method_names, repeats = meta["methods"], meta["repeats"]
    if args.markdown:
        print(markdown_table(cells, method_names, repeats, pairs))
    elif registry is not None:
        print(
            f"skcalib {meta['skcalib']}: {len(cells)} cells x {repeats} repeats, "
            f"{len(method_names)} methods, {meta['seconds']:.1f} s"
        )
        print_report(cells, method_names, registry, pairs, rank_summary)
    if args.update_docs:
        # the documented tables are the panel's, whole
        datasets = sorted({cell["dataset"] for cell in cells})
        if datasets != sorted(DATASET_GROUPS["panel"]):
            raise SystemExit(
                "--update-docs writes the tables of the panel (--datasets panel); "
                f"these results are of {', '.join(datasets)}"
            )
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
        update_docs(root, cells, method_names, pairs, repeats, meta)
    if args.json:
        write_json(
            args.json,
            {"meta": meta, "cells": cells, "pairs": pairs, "ranks": rank_summary},
        )


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="2 data sets, 2 repeats")
    parser.add_argument(
        "--datasets", nargs="+", help="names or groups (default: panel)"
    )
    parser.add_argument("--classifiers", nargs="+", help="default: all")
    parser.add_argument(
        "--methods", nargs="+", help="default: all (--peers adds the peers)"
    )
    parser.add_argument("--repeats", type=int, help="default: 5 (--quick: 2)")
    parser.add_argument("--peers", action="store_true", help="add installed peers")
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=-1,
        help="joblib workers over the (cell, repeat) tasks (default: -1, all cores)",
    )
    parser.add_argument(
        "--json",
        help="write the numbers, commit and date to this JSON file (default: none)",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print only the README tables"
    )
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="rewrite the tables of README.md and docs/user_guide/quality.rst "
        "(results of the panel only)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress line on stderr"
    )
    parser.add_argument("--list", action="store_true", help="list the names and exit")
    parser.add_argument(
        "--from-json",
        help="render --markdown/--update-docs from a saved --json run instead of "
        "running the panel (default: run it)",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        with open(args.from_json) as fh:
            saved = json.load(fh)
        args.json = None
        _output(
            args, saved["meta"], saved["cells"], saved["pairs"], saved["ranks"], None
        )
        return 0

    registry = build_methods()
    missing_peers = []
    peers = {}
    if args.peers:
        peers, missing_peers = available_peers()
        registry.update(peers)
    if args.list:
        print("datasets:", ", ".join(DATASETS), "| groups:", ", ".join(DATASET_GROUPS))
        print("classifiers:", ", ".join(CLASSIFIERS))
        print("methods:", ", ".join(registry), "| peers:", ", ".join(PEERS))
        return 0
    datasets = _resolve(
        args.datasets or (["quick"] if args.quick else ["panel"]),
        DATASETS,
        DATASET_GROUPS,
        "data set",
    )
    classifiers = _resolve(
        args.classifiers or list(CLASSIFIERS), CLASSIFIERS, {}, "classifier"
    )
    method_names = method_names_of(args.methods, registry, peers)
    repeats = args.repeats or (2 if args.quick else 5)
    log = partial(print, file=sys.stderr)
    if missing_peers:
        log(f"peers not installed (skipped): {', '.join(missing_peers)}")

    commit = git_commit()
    t0 = time.perf_counter()
    jobs = [(d, k, r) for d in datasets for k in classifiers for r in range(repeats)]
    # workers import this file as a module (loky passes sys.path on), rather
    # than unpickling functions of __main__ by value
    task = _importable(run_task)
    tasks = []
    for t in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(task)(d, k, r, method_names, list(peers)) for d, k, r in jobs
    ):
        tasks.append(t)
        if not args.quiet:
            log(
                f"\r{len(tasks)}/{len(jobs)} tasks, {time.perf_counter() - t0:.0f} s",
                end="",
                flush=True,
            )
    if not args.quiet:
        log()
    elapsed = time.perf_counter() - t0
    cells = aggregate(tasks, method_names)
    pairs, rank_summary = summarize(cells, method_names, registry)

    import sklearn

    meta = {
        "commit": commit,
        "date": utc_now(),
        "skcalib": skcalib.__version__,
        "sklearn": sklearn.__version__,
        "datasets": datasets,
        "classifiers": classifiers,
        "methods": method_names,
        "repeats": repeats,
        "peers_missing": missing_peers,
        "seconds": elapsed,
    }
    _output(args, meta, cells, pairs, rank_summary, registry)
    return 0


if __name__ == "__main__":
    run_script(main)
