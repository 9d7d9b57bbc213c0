"""The ``evaluate`` and ``calibrate`` commands (heavy imports happen here)."""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from ._common import PROG, InputError, Progress, duration, note, warnings_as_notes
from ._model import check_model_source, load_model, save_model
from ._output import (
    check_outputs,
    evaluation_json,
    evaluation_plots,
    evaluation_text,
    infinite_cllr_note,
    percent,
    report_metrics,
    resample_unit,
)
from ._reader import (
    ScoreFile,
    check_inputs,
    read_scores,
    require_both_classes,
    require_finite,
    unscored_note,
)
from ._writer import write_scores


# ---------------------------------------------------------------- evaluation
def scored_trials(y: np.ndarray, llr: np.ndarray):
    """The trials of one score file, validated once; sorted at most once,
    when the first minimum metric, plot or bootstrap needs it."""
    from ..metrics import ScoredTrials

    return ScoredTrials(y, llr)


def metrics_table(trials, app, report: str = "standard") -> dict:
    """Each metric of ``report`` (``_output.METRICS``) of ``trials`` (a
    ``ScoredTrials``) at the application ``app``, by key: a number, or a
    pair of numbers."""

    def value(m):
        v = m.method(trials, app)
        return tuple(float(x) for x in v) if isinstance(v, tuple) else float(v)

    with np.errstate(all="ignore"):
        return {m.key: value(m) for m in report_metrics(report)}


#: ``--ci-method`` choices and the names ``bootstrap_ci`` knows them by.
CI_METHODS = {"percentile": "percentile", "basic": "basic", "bca": "BCa"}


def min_resamples(level: float) -> int:
    """Fewest resamples that leave one resample beyond each end of the interval.

    Each end of a ``level`` interval is read where ``(1 - level) / 2`` of the
    resamples lie beyond it; with fewer than ``2 / (1 - level)`` resamples
    that is the smallest or largest resample itself, so the interval is the
    range of the few resamples drawn, whatever the level (one resample gives
    an "interval" of one value, which may not even hold the estimate).
    """
    return math.ceil(2.0 / (1.0 - level) - 1e-9)  # 40 for 0.95, not 41


class BootstrapProgress:
    """``callback(stage, done, total)`` of the bootstrap, as progress lines.

    Steady work of minutes: a line at most every ``10 * progress.interval``
    seconds (5 s). Every metric is computed on each resample, so the
    resamples take equal time on a steady machine: the time left is the
    mean time of the latter half of the resamples done (never the first,
    which also prepares the per-trial terms; a machine whose load changes
    is followed) times the resamples left. The BCa jackknife then runs
    metric by metric.
    """

    def __init__(self, progress: Progress, labels: list, unit: str):
        self.progress = progress
        self.every = 10 * progress.interval
        self.labels = labels
        self.unit = unit
        self.stage = None
        self.stage_start = time.monotonic()
        self.resampled = []  # when each resample was done
        self.index, self.last_done = -1, 0

    def time_left(self, stage: str, done: int, total: int) -> float:
        """Seconds left of ``stage``, estimated at ``done`` of ``total``."""
        now = time.monotonic()
        if stage != self.stage or done < self.last_done:
            # a new stage, or the jackknife of the next metric
            self.stage, self.stage_start = stage, now
            self.index += stage == "jackknife"
        self.last_done = done
        if stage == "resamples":
            self.resampled.append(now)
            if done > 1:
                since = max(1, (done - 1) // 2)  # index of a resample done
                rate = (now - self.resampled[since - 1]) / (done - since)
                return rate * (total - done)
        return (now - self.stage_start) / done * (total - done)

    def __call__(self, stage: str, done: int, total: int) -> None:
        left = self.time_left(stage, done, total)
        if stage == "resamples":
            message = (
                f"bootstrap ({len(self.labels)} metrics): {done:,} of {total:,} "
                f"resamples of {self.unit}, about {duration(left)} left"
            )
        else:
            i = min(max(self.index, 0), len(self.labels) - 1)
            message = (
                f"bootstrap {i + 1}/{len(self.labels)} ({self.labels[i]}): BCa "
                f"jackknife, {done:,} of {total:,} {self.unit} left out, about "
                f"{duration(left)} left for this metric"
            )
        self.progress.update(message, throttle=self.every)


def intervals_table(trials, app, groups, args, progress: Progress) -> dict:
    """Bootstrap interval ``(low, high)`` of each metric of ``--report`` that
    is bootstrapped, at the application ``app``, all from the same resamples
    of ``trials`` (a ``ScoredTrials``: sorted once)."""
    from ..metrics import bootstrap_ci
    from ..utils._progress import report_progress

    metrics = [m for m in report_metrics(args.report) if m.bootstrap]
    labels = [m.label.removesuffix(" (bits)") for m in metrics]
    callback = BootstrapProgress(progress, labels, resample_unit(args))
    with np.errstate(all="ignore"), report_progress(callback):
        try:
            results = bootstrap_ci(
                [functools.partial(m.method, app=app) for m in metrics],
                trials,
                n_resamples=args.n_resamples,
                confidence_level=args.ci,
                method=CI_METHODS[args.ci_method],
                groups=groups,
                random_state=args.seed,
            )
        except ValueError as exc:
            raise InputError(f"cannot bootstrap: {exc}") from None
    return {
        m.key: tuple(float(v) for v in res.confidence_interval)
        for m, res in zip(metrics, results, strict=True)
    }


def bootstrap_groups(sf, args):
    """The model or segment name of each trial, for ``--groups``."""
    if args.groups is None:
        return None
    if sf.kind != "trials":
        raise InputError(
            f"{sf.path}: --groups {args.groups} needs a three-column trial file "
            "'model segment score' (with --key); this file has no "
            f"{args.groups} column."
        )
    return sf.columns[0 if args.groups == "model" else 1]


def confidently_wrong(y: np.ndarray, llr: np.ndarray) -> tuple[int, int]:
    """Target trials at LLR -inf and non-target trials at LLR +inf."""
    return (
        int(np.count_nonzero(y & (llr == -np.inf))),
        int(np.count_nonzero(~y & (llr == np.inf))),
    )


def application(args):
    """The application of ``--p-target``, ``--c-miss`` and ``--c-fa``."""
    from ..metrics import Application

    return Application(args.p_target, c_miss=args.c_miss, c_fa=args.c_fa)


def check_ci_options(args) -> None:
    """Refuse bootstrap options without ``--ci`` and too few resamples."""
    if args.ci is None:
        for dest, flag in (("groups", "--groups"), ("ci_method", "--ci-method")):
            if getattr(args, dest) is not None:
                raise InputError(f"{flag} chooses how --ci resamples; give --ci too.")
        return
    if args.ci_method is None:
        args.ci_method = "percentile"
    least = min_resamples(args.ci)
    if args.n_resamples < least:
        tail = (1 - args.ci) / 2
        raise InputError(
            f"--n-resamples {args.n_resamples} is too few for {percent(args.ci)} "
            f"intervals: each end is read where {percent(tail)} of the resamples lie "
            f"beyond it, so at least {least} are needed for one resample to "
            "lie beyond each end (with fewer, the interval is just the range "
            "of the resamples drawn). 1000 or more give stable ends."
        )


@dataclass(frozen=True)
class Evaluation:
    """What ``evaluate`` computed from one score file, for :mod:`._output` to
    render as text, JSON and plots.

    Attributes
    ----------
    scores : ScoreFile
        The score file read (its path and key trials without a score).
    name : str
        The system's name in the plots: the file's base name.
    trials : ScoredTrials
        Its trials, validated and sorted once for the metrics and the plots.
    app : Application
        The application of ``--p-target``, ``--c-miss`` and ``--c-fa``.
    metrics : dict
        Each metric of the ``--report`` (``_output.METRICS``) by key.
    intervals : dict or None
        With ``--ci``, the bootstrap interval ``(low, high)`` of each metric
        of the report that is bootstrapped, by key.
    n_target, n_nontarget : int
        Trials of each class.
    confidently_wrong : tuple of int
        Target trials at LLR -inf and non-target trials at +inf.
    """

    scores: ScoreFile
    name: str
    trials: object
    app: object
    metrics: dict
    intervals: dict | None
    n_target: int
    n_nontarget: int
    confidently_wrong: tuple[int, int]


def evaluate(args, progress: Progress) -> Evaluation:
    """Read the score file of ``args`` and compute its metrics (and intervals)."""
    sf = read_scores(args.scores, progress, key=args.key)
    require_both_classes(sf)
    groups = bootstrap_groups(sf, args)
    progress.update("computing metrics")
    # validated once, sorted once: the metrics, the bootstrap and every plot
    # share it (the bootstrap first, whose resamples reuse the kernel's points)
    trials = scored_trials(sf.labels, sf.scores)
    app = application(args)
    intervals = None
    if args.ci is not None:
        progress.update(
            f"bootstrap: {args.n_resamples} resamples of {resample_unit(args)}"
        )
        intervals = intervals_table(trials, app, groups, args, progress)
    metrics = metrics_table(trials, app, args.report)
    n_tar = int(np.count_nonzero(sf.labels))
    return Evaluation(
        scores=sf,
        name="standard input" if args.scores == "-" else os.path.basename(args.scores),
        trials=trials,
        app=app,
        metrics=metrics,
        intervals=intervals,
        n_target=n_tar,
        n_nontarget=int(sf.labels.shape[0] - n_tar),
        confidently_wrong=confidently_wrong(sf.labels, sf.scores),
    )


#: The application options of ``evaluate`` (dest, flag, default).
_APPLICATION_OPTIONS = (
    ("p_target", "--p-target", 0.5),
    ("c_miss", "--c-miss", 1.0),
    ("c_fa", "--c-fa", 1.0),
)


def check_application_options(args) -> None:
    """Refuse an application that nothing printed or drawn depends on (a
    forensic report has no DCF), then fill the defaults of the others."""
    for dest, flag, default in _APPLICATION_OPTIONS:
        if getattr(args, dest) is None:
            setattr(args, dest, default)
        elif args.report == "forensic" and not (args.plot or args.det):
            raise InputError(
                f"{flag} sets the application of the DCF, which --report "
                "forensic does not print: leave it out, or add --plot or "
                "--det, or use --report standard."
            )


def cmd_evaluate(args) -> int:
    check_application_options(args)
    check_ci_options(args)
    check_outputs(
        {
            "--plot": args.plot,
            "--det": args.det,
            "--tippett": args.tippett,
            "--ece-plot": args.ece_plot,
            "--reliability": args.reliability,
        },
        {"SCORES": args.scores, "--key": args.key},
        figures=("--plot", "--det", "--tippett", "--ece-plot", "--reliability"),
    )
    check_inputs([args.scores, args.key])
    progress = Progress(args.quiet)
    result = evaluate(args, progress)
    failed = evaluation_plots(result, args, progress)
    progress.done()
    note(unscored_note(result.scores), quiet=args.quiet)
    if math.isinf(result.metrics["cllr"]):
        note(infinite_cllr_note(*result.confidently_wrong), quiet=args.quiet)
    # the metrics cost the work: printed even if a plot could not be written
    shown = argparse.Namespace(**{**vars(args), **dict.fromkeys(failed)})
    print(
        evaluation_json(result, shown) if args.json else evaluation_text(result, shown)
    )
    for exc in failed.values():
        print(f"{PROG}: error: {exc}", file=sys.stderr)
    return 2 if failed else 0


# --------------------------------------------------------------- calibration
_CALIBRATORS = {
    "pav-llr": "PAVLLRCalibrator",
    "pav": "PAVCalibrator",
    "platt": "PlattCalibrator",
    "affine": "ProperScoringAffineCalibrator",
    "beta": "BetaCalibrator",
    "venn-abers": "VennAbersCalibrator",
    "auto": "AutoCalibrator",
}

#: The methods trained on a proper scoring rule, which --alpha, --beta,
#: --p-target and --l2 shape.
_RULE_METHODS = ("affine", "beta")

#: Options that only shape a calibrator being trained (dest, flag).
TRAINING_OPTIONS = (
    ("method", "--method"),
    ("alpha", "--alpha"),
    ("beta", "--beta"),
    ("p_target", "--p-target"),
    ("l2", "--l2"),
    ("prior", "--prior"),
)


def make_calibrator(args):
    import skcalib

    cls = getattr(skcalib, _CALIBRATORS[args.method], None)
    if cls is None:
        raise InputError(f"this skcalib build has no {_CALIBRATORS[args.method]}.")
    kwargs = {"prior": args.prior}
    if args.method in _RULE_METHODS:
        kwargs["alpha"] = 1.0 if args.alpha is None else args.alpha
        kwargs["beta"] = 1.0 if args.beta is None else args.beta
        kwargs["p_target"] = 0.5 if args.p_target is None else args.p_target
        if args.l2 is not None:
            kwargs["l2"] = args.l2
    else:
        for dest, flag in TRAINING_OPTIONS[1:5]:
            if getattr(args, dest) is not None:
                raise InputError(
                    f"{flag} applies to --method {' and '.join(_RULE_METHODS)} "
                    f"only, not {args.method}."
                )
    return cls(**kwargs)


def cmd_calibrate(args) -> int:
    check_model_source(args, "calibrate", TRAINING_OPTIONS)
    if args.load_model is None and args.method is None:
        raise InputError("--method is required with --train.")
    check_outputs(
        {"-o": args.out, "--save-model": args.save_model},
        {
            "--train": args.train,
            "--train-key": args.train_key,
            "--apply": args.apply,
            "--load-model": args.load_model,
        },
    )
    if [args.train, args.apply].count("-") > 1:
        raise InputError("only one input can be standard input (-).")
    check_inputs([args.train, args.train_key, args.apply])
    progress = Progress(args.quiet)
    if args.load_model is not None:
        model = load_model(args.load_model, "calibrate")
    else:
        model = make_calibrator(args)
        train = read_scores(
            args.train, progress, key=args.train_key, key_option="--train-key"
        )
        require_finite(train, "to train a calibrator")
        require_both_classes(train)
        note(unscored_note(train), quiet=args.quiet)
        progress.update(f"fitting {type(model).__name__}")
        try:
            with warnings_as_notes():
                model.fit(train.scores, train.labels)
        except ValueError as exc:
            raise InputError(f"{train.path}: cannot fit: {exc}") from None
        if args.save_model is not None:
            save_model(model, args.save_model, quiet=args.quiet)
    if args.apply is not None:
        sf = read_scores(args.apply, progress, need_labels=False)
        require_finite(sf, "to be calibrated")
        progress.update(f"calibrating {sf.scores.shape[0]:,} scores")
        try:
            with warnings_as_notes():
                if args.output == "llr":
                    values = model.decision_function(sf.scores)
                else:
                    values = model.predict_proba(sf.scores)[:, 1]
        except ValueError as exc:
            raise InputError(f"{sf.path}: cannot calibrate: {exc}") from None
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
