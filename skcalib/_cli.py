"""The ``skcalib`` command line: evaluate and calibrate score files, run a demo.

::

    skcalib evaluate SCORES [--key KEY] [--p-target P --c-miss C --c-fa C]
                            [--plot FILE.png] [--json]
    skcalib calibrate --method {pav-llr,pav,platt,affine} --train TRAIN
                      [--train-key KEY] --apply SCORES [-o OUT]
                      [--save-model FILE | --load-model FILE]
    skcalib demo [--plot FILE.png] [--json]

Score files are text, comma- or whitespace-separated, one trial per line
(blank lines and lines starting with ``#`` are ignored; a first line naming
its columns, e.g. ``score label``, is a header):

- two columns ``score label``, the label one of ``1/0``, ``target/nontarget``
  (also ``tar/non``, ``true/false``, ``+1/-1``), or
- three columns ``model segment score`` (BOSARIS style) with a key file of
  ``model segment target|nontarget`` lines.

Malformed input exits with status 2 and a one-line message naming the file
and the line; nothing in this module prints a traceback for bad input.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["main"]

PROG = "skcalib"

_TARGET_LABELS = frozenset({"1", "+1", "target", "tar", "true", "t", "yes"})
_NONTARGET_LABELS = frozenset(
    {"0", "-1", "nontarget", "non-target", "non", "false", "f", "no", "impostor"}
)
_LABEL_HELP = "1/0, target/nontarget, tar/non, true/false, +1/-1"

_METHODS = ("pav-llr", "pav", "platt", "affine")


class InputError(Exception):
    """Bad user input: reported as one line, exit status 2."""


# --------------------------------------------------------------------- progress
class Progress:
    """A progress line on stderr, shown only once work takes over ``delay`` s."""

    def __init__(
        self, quiet: bool, *, delay: float = 2.0, interval: float = 0.5, stream=None
    ):
        self.quiet = quiet
        self.delay = delay
        self.interval = interval
        self.stream = sys.stderr if stream is None else stream
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def update(
        self, message: str, *, force: bool = False, throttle: bool = False
    ) -> None:
        """Show ``message`` once past ``delay``; ``throttle`` limits repeats."""
        if self.quiet:
            return
        now = time.monotonic()
        if not force and now - self.start < self.delay:
            return
        if throttle and not force and now - self.last < self.interval:
            return
        self.last = now
        self.shown = True
        self.stream.write(f"{PROG}: {message} [{now - self.start:.1f} s]\n")
        self.stream.flush()

    def done(self, message: str = "done") -> None:
        if self.shown:
            self.update(message, force=True)


# ------------------------------------------------------------------ file input
@dataclass
class ScoreFile:
    """Parsed score file: one entry per trial, with source line numbers."""

    path: str
    kind: str  # "labelled" (score label), "trials" (model segment score), "plain"
    delimiter: str | None  # "," for CSV, None for whitespace
    header: list | None
    scores: np.ndarray
    lines: np.ndarray  # 1-based line number of each trial
    rows: list = field(repr=False)  # the raw fields of each trial
    labels: np.ndarray | None = None  # bool, True for target
    n_lines: int = 0


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a score file.") from None
    except UnicodeDecodeError as exc:
        line = 1 + _count_newlines(path, exc.start)
        raise InputError(
            f"{path}, line {line}: not UTF-8 text (is this a score file?)."
        ) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}.") from None


def _count_newlines(path: str, upto: int) -> int:
    with open(path, "rb") as f:
        return f.read(upto).count(b"\n")


def _split_lines(text: str, path: str, progress: Progress):
    """Non-blank, non-comment lines as (line numbers, field lists, delimiter)."""
    raw = text.splitlines()
    numbers = []
    kept = []
    for i, line in enumerate(raw, start=1):
        s = line.strip()
        if s and not s.startswith("#"):
            numbers.append(i)
            kept.append(s)
    if not kept:
        raise InputError(f"{path}, line {len(raw) + 1}: empty file (no trials found).")
    delimiter = "," if "," in kept[0] else None
    rows = []
    chunk = 200_000
    for start in range(0, len(kept), chunk):
        block = kept[start : start + chunk]
        if delimiter == ",":
            rows.extend(
                [f.strip() for f in r]
                for r in csv.reader(io.StringIO("\n".join(block)))
            )
        else:
            rows.extend(s.split() for s in block)
        progress.update(f"reading {path}: {start + len(block):,} lines", throttle=True)
    return np.asarray(numbers, dtype=np.int64), rows, delimiter, len(raw)


#: A first line whose score field is not a number and that contains one of
#: these words is a header (``score label``, ``llr,label`` as written by
#: ``calibrate``, ``model segment score``, ...), not a malformed trial.
_HEADER_WORDS = ("score", "llr", "prob", "label", "class", "model", "seg", "trial")


def _is_header(fields: list, score_col: int) -> bool:
    if score_col >= len(fields):
        return False
    try:
        float(fields[score_col])
        return False
    except ValueError:
        return any(w in f.lower() for f in fields for w in _HEADER_WORDS)


def _parse_floats(values: list, numbers: np.ndarray, path: str, what: str):
    try:
        out = np.array(values, dtype=np.float64)
    except ValueError:
        out = None
    if out is None or np.isnan(out).any():
        for v, n in zip(values, numbers, strict=True):
            try:
                x = float(v)
            except ValueError:
                raise InputError(
                    f"{path}, line {n}: {what} {v!r} is not a number."
                ) from None
            if math.isnan(x):
                raise InputError(f"{path}, line {n}: {what} is NaN.")
    return out


def _parse_labels(values: list, numbers: np.ndarray, path: str) -> np.ndarray:
    lowered = np.char.lower(np.asarray(values, dtype=str))
    uniq, inverse = np.unique(lowered, return_inverse=True)
    is_tar = np.zeros(uniq.shape[0], dtype=bool)
    for j, u in enumerate(uniq.tolist()):
        if u in _TARGET_LABELS:
            is_tar[j] = True
        elif u not in _NONTARGET_LABELS:
            n = numbers[np.flatnonzero(inverse == j)[0]]
            original = values[int(np.flatnonzero(inverse == j)[0])]
            raise InputError(
                f"{path}, line {n}: unknown label {original!r} "
                f"(expected one of {_LABEL_HELP})."
            )
    return is_tar[inverse.reshape(-1)]


def _check_columns(rows, numbers, expected: int, path: str, layout: str):
    counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    bad = np.flatnonzero(counts != expected)
    if bad.size:
        i = int(bad[0])
        found = int(counts[i])
        problem = "missing column" if found < expected else "extra column"
        raise InputError(
            f"{path}, line {numbers[i]}: {problem}: expected {expected} columns "
            f"({layout}), found {found}."
        )


def read_scores(
    path: str,
    progress: Progress,
    *,
    key: str | None = None,
    need_labels: bool = True,
    allow_inf: bool = True,
) -> ScoreFile:
    """Read a score file (and its key file), validating every line."""
    text = _read_text(path)
    numbers, rows, delimiter, n_lines = _split_lines(text, path, progress)
    width = len(rows[0])
    if key is not None or width == 3:
        kind, score_col, layout = "trials", 2, "model segment score"
        expected = 3
    elif width == 1 and not need_labels:
        kind, score_col, layout, expected = "plain", 0, "score", 1
    else:
        kind, score_col, layout, expected = "labelled", 0, "score label", 2
    header = None
    if _is_header(rows[0], score_col):
        header, rows, numbers = rows[0], rows[1:], numbers[1:]
        if not rows:
            raise InputError(
                f"{path}, line {n_lines + 1}: no trials after the header line."
            )
    _check_columns(rows, numbers, expected, path, layout)
    scores = _parse_floats([r[score_col] for r in rows], numbers, path, "score")
    if not allow_inf:
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                f"{path}, line {numbers[i]}: score {rows[i][score_col]!r} must be "
                "finite to train a calibrator."
            )
    out = ScoreFile(
        path, kind, delimiter, header, scores, numbers, rows, n_lines=n_lines
    )
    if kind == "labelled":
        out.labels = _parse_labels([r[1] for r in rows], numbers, path)
    elif kind == "trials" and need_labels:
        if key is None:
            raise InputError(
                f"{path}, line {numbers[0]}: three columns (model segment score) "
                "need a key file: pass --key KEY."
            )
        out.labels = _match_key(out, key, progress)
    progress.update(f"read {path}: {len(rows):,} trials")
    return out


def _match_key(scores: ScoreFile, key_path: str, progress: Progress) -> np.ndarray:
    """Labels of the scored trials from a ``model segment target|nontarget`` key."""
    text = _read_text(key_path)
    numbers, rows, _, n_lines = _split_lines(text, key_path, progress)
    first = rows[0]
    if (
        len(first) == 3
        and first[2].lower() not in _TARGET_LABELS | _NONTARGET_LABELS
        and any(w in " ".join(first).lower() for w in ("model", "segment", "label"))
    ):
        rows, numbers = rows[1:], numbers[1:]
    if not rows:
        raise InputError(f"{key_path}, line {n_lines + 1}: no trials in key file.")
    _check_columns(rows, numbers, 3, key_path, "model segment target|nontarget")
    labels = _parse_labels([r[2] for r in rows], numbers, key_path)
    table: dict = {}
    for r, n, lab in zip(rows, numbers, labels.tolist(), strict=True):
        trial = (r[0], r[1])
        if trial in table:
            raise InputError(
                f"{key_path}, line {n}: duplicate trial ({r[0]}, {r[1]}) "
                f"(first on line {table[trial][1]})."
            )
        table[trial] = (lab, int(n))
    out = np.empty(len(scores.rows), dtype=bool)
    seen: dict = {}
    for i, (r, n) in enumerate(zip(scores.rows, scores.lines, strict=True)):
        trial = (r[0], r[1])
        hit = table.get(trial)
        if hit is None:
            raise InputError(
                f"{scores.path}, line {n}: trial ({r[0]}, {r[1]}) is not in the "
                f"key file {key_path} (key/score mismatch)."
            )
        if trial in seen:
            raise InputError(
                f"{scores.path}, line {n}: duplicate trial ({r[0]}, {r[1]}) "
                f"(first on line {seen[trial]})."
            )
        seen[trial] = int(n)
        out[i] = hit[0]
    if len(seen) != len(table):
        missing = next(t for t in table if t not in seen)
        raise InputError(
            f"{key_path}, line {table[missing][1]}: trial ({missing[0]}, "
            f"{missing[1]}) has no score in {scores.path} (key/score mismatch)."
        )
    return out


def _require_both_classes(sf: ScoreFile) -> None:
    n_tar = int(np.count_nonzero(sf.labels))
    if n_tar == 0 or n_tar == sf.labels.shape[0]:
        missing = "target" if n_tar == 0 else "non-target"
        first, last = int(sf.lines[0]), int(sf.lines[-1])
        raise InputError(
            f"{sf.path}, lines {first}-{last}: no {missing} trials; both target "
            "and non-target trials are needed."
        )


def _format_value(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)  # shortest string that reads back to the same double


def write_scores(
    sf: ScoreFile, values: np.ndarray, out_path: str | None, column_name: str
) -> None:
    """Write ``values`` in place of the score column, in the input's format."""
    col = {"trials": 2, "labelled": 0, "plain": 0}[sf.kind]
    formatted = [_format_value(v) for v in values.tolist()]
    buf = io.StringIO()
    if sf.delimiter == ",":
        writer = csv.writer(buf, lineterminator="\n")
        if sf.header is not None:
            header = list(sf.header)
            header[col] = column_name
            writer.writerow(header)
        for r, v in zip(sf.rows, formatted, strict=True):
            row = list(r)
            row[col] = v
            writer.writerow(row)
    else:
        if sf.header is not None:
            header = list(sf.header)
            header[col] = column_name
            buf.write(" ".join(header) + "\n")
        for r, v in zip(sf.rows, formatted, strict=True):
            row = list(r)
            row[col] = v
            buf.write(" ".join(row) + "\n")
    text = buf.getvalue()
    if out_path is None or out_path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise InputError(f"{out_path}: cannot write: {exc.strerror or exc}.") from None


# ---------------------------------------------------------------- evaluation
def _metrics_table(y: np.ndarray, llr: np.ndarray, args) -> dict:
    from .metrics import actual_dcf, cllr, eer, min_cllr, min_dcf

    app = {"p_target": args.p_target, "c_miss": args.c_miss, "c_fa": args.c_fa}
    with np.errstate(all="ignore"):
        return {
            "eer": float(eer(y, llr)),
            "min_dcf": float(min_dcf(y, llr, **app)),
            "actual_dcf": float(actual_dcf(y, llr, **app)),
            "cllr": float(cllr(y, llr)),
            "min_cllr": float(min_cllr(y, llr)),
        }


_ROWS = [
    ("EER", "eer", "{:.2%}"),
    ("min DCF", "min_dcf", "{:.4f}"),
    ("actual DCF", "actual_dcf", "{:.4f}"),
    ("Cllr (bits)", "cllr", "{:.4f}"),
    ("min Cllr (bits)", "min_cllr", "{:.4f}"),
]


def _fmt(template: str, value: float) -> str:
    return template.format(value) if math.isfinite(value) else str(value)


def _json_number(x: float):
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _effective_prior(args) -> float:
    num = args.p_target * args.c_miss
    return num / (num + (1 - args.p_target) * args.c_fa)


def _app_line(args) -> str:
    return (
        f"application: p_target={args.p_target:g} c_miss={args.c_miss:g} "
        f"c_fa={args.c_fa:g} (effective prior {_effective_prior(args):.4g})"
    )


def _bayes_error_plot(systems, path: str, args, title: str) -> None:
    """Write a Bayes error plot of ``[(name, y, llr, plot_min)]`` to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.special import logit

    from .metrics._plot import BayesErrorDisplay

    fig, ax = plt.subplots(figsize=(9, 4.5))
    try:
        for name, y, llr, plot_min in systems:
            BayesErrorDisplay.from_predictions(
                y, llr, name=name, ax=ax, plot_min_dcf=plot_min
            )
        ax.axvline(
            float(logit(_effective_prior(args))),
            color="grey",
            linewidth=0.8,
            linestyle="-.",
            label="application",
        )
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        ax.set_title(title, fontsize="medium")
        fig.tight_layout()
        try:
            fig.savefig(path, dpi=100)
        except OSError as exc:
            raise InputError(f"{path}: cannot write: {exc.strerror or exc}.") from None
        except ValueError as exc:  # unknown image format
            raise InputError(f"{path}: cannot write the plot: {exc}") from None
    finally:
        plt.close(fig)


def cmd_evaluate(args) -> int:
    progress = Progress(args.quiet)
    sf = read_scores(args.scores, progress, key=args.key)
    _require_both_classes(sf)
    progress.update("computing metrics")
    metrics = _metrics_table(sf.labels, sf.scores, args)
    n_tar = int(np.count_nonzero(sf.labels))
    n_non = int(sf.labels.shape[0] - n_tar)
    if args.plot:
        progress.update(f"writing {args.plot}")
        _bayes_error_plot(
            [(os.path.basename(args.scores), sf.labels, sf.scores, True)],
            args.plot,
            args,
            f"Bayes error plot: {os.path.basename(args.scores)}",
        )
    progress.done()
    if args.json:
        out = {
            "scores": args.scores,
            "key": args.key,
            "n_target": n_tar,
            "n_nontarget": n_non,
            "p_target": args.p_target,
            "c_miss": args.c_miss,
            "c_fa": args.c_fa,
            "effective_prior": _effective_prior(args),
            **{k: _json_number(v) for k, v in metrics.items()},
        }
        if args.plot:
            out["plot"] = args.plot
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{args.scores}: {n_tar + n_non} trials ({n_tar} target, {n_non} "
        "non-target); scores read as natural-log LLRs"
    )
    print(_app_line(args))
    width = max(len(r[0]) for r in _ROWS)
    for label, key, template in _ROWS:
        print(f"  {label:<{width}}  {_fmt(template, metrics[key]):>10}")
    if args.plot:
        print(f"Bayes error plot written to {args.plot}")
    return 0


# --------------------------------------------------------------- calibration
def _make_calibrator(args):
    import skcalib

    prior = args.prior
    if args.method == "pav-llr":
        return skcalib.PAVLLRCalibrator(prior=prior)
    if args.method == "pav":
        return skcalib.PAVCalibrator(prior=prior)
    if args.method == "platt":
        return _get_class("PlattCalibrator")(prior=prior)
    return _get_class("ProperScoringAffineCalibrator")(
        alpha=args.alpha, beta=args.beta, prior=0.5 if prior is None else prior
    )


def _get_class(name: str):
    import skcalib

    cls = getattr(skcalib, name, None)
    if cls is None:
        raise InputError(f"this skcalib build has no {name}.")
    return cls


def _load_model(path: str):
    import pickle

    import joblib

    from ._base import BaseCalibrator

    try:
        model = joblib.load(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except (
        OSError,
        EOFError,
        pickle.UnpicklingError,
        ValueError,
        KeyError,
        AttributeError,
        ImportError,
        IndexError,
        TypeError,
    ) as exc:
        raise InputError(
            f"{path}, line 1: not a saved skcalib model ({type(exc).__name__})."
        ) from None
    if not isinstance(model, BaseCalibrator):
        raise InputError(
            f"{path}, line 1: not a saved skcalib calibrator (found "
            f"{type(model).__name__})."
        )
    return model


def cmd_calibrate(args) -> int:
    progress = Progress(args.quiet)
    if args.load_model is None and args.train is None:
        raise InputError("calibrate needs --train TRAIN (or --load-model FILE).")
    if args.load_model is not None and args.train is not None:
        raise InputError("give either --train or --load-model, not both.")
    if args.apply is None and args.save_model is None:
        raise InputError("nothing to do: give --apply SCORES and/or --save-model.")
    if args.load_model is not None:
        model = _load_model(args.load_model)
    else:
        if args.method is None:
            raise InputError("--method is required with --train.")
        train = read_scores(args.train, progress, key=args.train_key, allow_inf=False)
        _require_both_classes(train)
        model = _make_calibrator(args)
        progress.update(f"fitting {type(model).__name__}")
        try:
            model.fit(train.scores, train.labels)
        except ValueError as exc:
            raise InputError(f"{args.train}: cannot fit: {exc}") from None
        if args.save_model is not None:
            import joblib

            try:
                joblib.dump(model, args.save_model)
            except OSError as exc:
                raise InputError(
                    f"{args.save_model}: cannot write: {exc.strerror or exc}."
                ) from None
    if args.apply is not None:
        sf = read_scores(
            args.apply, progress, key=None, need_labels=False, allow_inf=False
        )
        progress.update(f"calibrating {sf.scores.shape[0]:,} scores")
        try:
            if args.output == "llr":
                values = model.decision_function(sf.scores)
            else:
                values = model.predict_proba(sf.scores)[:, 1]
        except ValueError as exc:
            raise InputError(f"{args.apply}: cannot calibrate: {exc}") from None
        write_scores(
            sf,
            np.asarray(values, dtype=float),
            args.out,
            "llr" if args.output == "llr" else "probability",
        )
    progress.done()
    if args.out not in (None, "-") and not args.quiet:
        print(
            f"{type(model).__name__}: calibrated scores written to {args.out}",
            file=sys.stderr,
        )
    return 0


# ---------------------------------------------------------------------- demo
_DEMO_CALIBRATORS = (
    "PAVCalibrator",
    "PAVLLRCalibrator",
    "PlattCalibrator",
    "ProperScoringAffineCalibrator",
)


def cmd_demo(args) -> int:
    from sklearn.naive_bayes import GaussianNB

    import skcalib

    from .datasets import make_waveform

    progress = Progress(args.quiet)
    # Rakotomalala's protocol: train / tuning (calibration) / test sets from the
    # two-class waveform data; naive Bayes gives badly calibrated scores.
    n_train, n_cal = args.n_train, args.n_calibration
    X, y, true_llr = make_waveform(
        n_train + n_cal + args.n_test, return_llr=True, random_state=args.random_state
    )
    tr, cal, te = (
        slice(0, n_train),
        slice(n_train, n_train + n_cal),
        slice(n_train + n_cal, None),
    )
    clf = GaussianNB().fit(X[tr], y[tr])
    progress.update("classifier trained")
    with np.errstate(divide="ignore"):
        log_proba = clf.predict_log_proba(X)
    raw = log_proba[:, 1] - log_proba[:, 0]
    systems = [("raw naive Bayes log-odds", raw[te])]
    for name in _DEMO_CALIBRATORS:
        cls = getattr(skcalib, name, None)
        if cls is None:
            continue
        cal_model = cls().fit(raw[cal], y[cal])
        systems.append((name, cal_model.decision_function(raw[te])))
        progress.update(f"{name} fitted")
    systems.append(("true LLR (Bayes, reference)", true_llr[te]))
    y_te = y[te]
    results = {name: _metrics_table(y_te, llr, args) for name, llr in systems}

    plotted = [(name, y_te, llr, i == 0) for i, (name, llr) in enumerate(systems[:-1])]
    progress.update(f"writing {args.plot}")
    _bayes_error_plot(
        plotted,
        args.plot,
        args,
        "Two-class waveform, naive Bayes: calibrated vs raw scores",
    )
    progress.done()
    if args.json:
        print(
            json.dumps(
                {
                    "data": "make_waveform (Breiman), classes 0/1",
                    "n_train": n_train,
                    "n_calibration": n_cal,
                    "n_test": args.n_test,
                    "classifier": "GaussianNB",
                    "p_target": args.p_target,
                    "c_miss": args.c_miss,
                    "c_fa": args.c_fa,
                    "systems": {
                        name: {k: _json_number(v) for k, v in m.items()}
                        for name, m in results.items()
                    },
                    "plot": args.plot,
                },
                indent=2,
            )
        )
        return 0
    print(
        f"skcalib demo: two-class waveform data (Breiman), GaussianNB trained on "
        f"{n_train}, calibrated on {n_cal}, tested on {args.n_test} samples"
    )
    print(_app_line(args))
    name_width = max(len(n) for n in results)
    head = "  ".join(f"{label:>15}" for label, _, _ in _ROWS)
    print(f"{'system':<{name_width}}  {head}")
    for name, m in results.items():
        cells = "  ".join(f"{_fmt(t, m[k]):>15}" for _, k, t in _ROWS)
        print(f"{name:<{name_width}}  {cells}")
    if any(math.isinf(m["cllr"]) for m in results.values()):
        print(
            "(inf: a calibrator gave probability 0 or 1, an infinite LLR, to a "
            "trial of the other class; PAVLLRCalibrator's default "
            "extremes='succession' avoids it)"
        )
    print(f"Bayes error plot written to {args.plot}")
    return 0


# -------------------------------------------------------------------- parser
def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1); got {text}")
    return v


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number; got {text}")
    return v


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2; got {text}")
    return v


def _add_application(p) -> None:
    g = p.add_argument_group("application (cost model of the DCF)")
    g.add_argument(
        "--p-target",
        type=_probability,
        default=0.5,
        metavar="P",
        help="target prior of the application (default 0.5)",
    )
    g.add_argument(
        "--c-miss",
        type=_positive,
        default=1.0,
        metavar="C",
        help="cost of a miss (default 1)",
    )
    g.add_argument(
        "--c-fa",
        type=_positive,
        default=1.0,
        metavar="C",
        help="cost of a false alarm (default 1)",
    )


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    quiet = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a subcommand's default must not undo ``skcalib -q COMMAND``.
    quiet.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="no progress messages on stderr",
    )
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Calibrate binary classifier scores and evaluate their "
        "calibration (EER, min/actual DCF, Cllr).",
        epilog="Score files: 'score label' (label "
        f"{_LABEL_HELP}) or 'model segment score' with a key file of "
        "'model segment target|nontarget'; comma- or whitespace-separated.",
        parents=[quiet],
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = sub.add_parser(
        "evaluate",
        parents=[quiet],
        help="EER, min/actual DCF, Cllr and min Cllr of a score file",
        description="Evaluate scores read as natural-log LLRs: EER and min "
        "DCF/min Cllr (discrimination) and actual DCF/Cllr (calibration).",
    )
    ev.add_argument(
        "scores",
        metavar="SCORES",
        help="score file: 'score label' or 'model segment score'",
    )
    ev.add_argument(
        "--key",
        metavar="KEY",
        help="key file 'model segment target|nontarget' for a three-column score file",
    )
    _add_application(ev)
    ev.add_argument(
        "--plot",
        metavar="FILE.png",
        help="also write a Bayes error plot to this image file",
    )
    ev.add_argument("--json", action="store_true", help="print the results as JSON")
    ev.set_defaults(func=cmd_evaluate)

    ca = sub.add_parser(
        "calibrate",
        parents=[quiet],
        help="train a calibrator on one score file, apply it to another",
        description="Fit a calibrator on labelled training scores and write "
        "calibrated scores of another file, in that file's format.",
    )
    ca.add_argument(
        "--method",
        choices=_METHODS,
        help="pav-llr (PAVLLRCalibrator), pav (PAVCalibrator), "
        "platt (PlattCalibrator) or affine "
        "(ProperScoringAffineCalibrator)",
    )
    ca.add_argument("--train", metavar="TRAIN", help="labelled training scores")
    ca.add_argument(
        "--train-key", metavar="KEY", help="key file for a three-column training file"
    )
    ca.add_argument(
        "--apply",
        metavar="SCORES",
        help="scores to calibrate ('score label', 'model segment "
        "score' or one 'score' column)",
    )
    ca.add_argument(
        "-o", "--out", metavar="OUT", help="output file (default: standard output)"
    )
    ca.add_argument(
        "--output",
        choices=("llr", "proba"),
        default="llr",
        help="write calibrated LLRs (default) or target "
        "probabilities at the calibrator's prior",
    )
    ca.add_argument(
        "--alpha",
        type=_positive,
        default=1.0,
        help="affine: Beta-family rule parameter alpha (default 1)",
    )
    ca.add_argument(
        "--beta",
        type=_positive,
        default=1.0,
        help="affine: Beta-family rule parameter beta (default 1)",
    )
    ca.add_argument(
        "--prior",
        type=_probability,
        default=None,
        help="prior of the calibrator (affine: the objective's "
        "prior weighting, default 0.5; others: default the "
        "training proportion of targets)",
    )
    ca.add_argument(
        "--save-model",
        metavar="FILE",
        help="save the fitted calibrator (joblib pickle)",
    )
    ca.add_argument(
        "--load-model",
        metavar="FILE",
        help="use a calibrator saved with --save-model instead of "
        "training (only load files you trust: it is a pickle)",
    )
    ca.set_defaults(func=cmd_calibrate)

    de = sub.add_parser(
        "demo",
        parents=[quiet],
        help="the whole job on built-in data: classifier, calibrators, "
        "metrics table and Bayes error plot",
    )
    de.add_argument(
        "--plot",
        metavar="FILE.png",
        default="skcalib_demo.png",
        help="where to write the Bayes error plot (default skcalib_demo.png)",
    )
    de.add_argument(
        "--n-train",
        type=_positive_int,
        default=500,
        help="number of classifier training samples (default 500)",
    )
    de.add_argument(
        "--n-calibration",
        type=_positive_int,
        default=500,
        help="number of calibration samples (default 500)",
    )
    de.add_argument(
        "--n-test",
        type=_positive_int,
        default=5000,
        help="number of test samples (default 5000)",
    )
    de.add_argument(
        "--random-state", type=int, default=0, help="seed of the data (default 0)"
    )
    _add_application(de)
    de.add_argument("--json", action="store_true", help="print the results as JSON")
    de.set_defaults(func=cmd_demo)
    return parser


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input).

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name; ``sys.argv[1:]`` if None.

    Returns
    -------
    status : int
        0 on success, 2 on bad input or usage (one line on stderr).

    Examples
    --------
    >>> from skcalib._cli import main
    >>> main(["--version"])
    skcalib ...
    0
    >>> main(["evaluate", "no-such-file.txt"])  # message on stderr
    2
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors (2), --help/--version (0)
        return int(exc.code or 0)
    args.quiet = bool(getattr(args, "quiet", False))
    try:
        return args.func(args)
    except InputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
