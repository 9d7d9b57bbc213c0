"""The argument parser of the ``skcalib`` command line.

Only the standard library and :mod:`._common` are imported here: ``--help``
and ``--version`` build this parser and nothing else. Each subcommand names,
through ``command_module`` and ``command_func``, the module and function
that :func:`skcalib._cli.main` imports and runs.
"""

from __future__ import annotations

import argparse
import math

from ._common import JSON_INFINITY_HELP, PROG

__all__ = ["build_parser"]

_LABEL_HELP = "1/0, target/nontarget, tar/non, true/false, +1/-1"
_METHODS = ("pav-llr", "pav", "platt", "affine", "beta", "venn-abers", "auto")
_DEMO_MIN_SAMPLES = 2  # one sample of each class


def _number(text: str, kind=float):
    """``text`` read as a ``kind`` (float or int), or argparse's usage error."""
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None


def _probability(text: str) -> float:
    v = _number(text)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1); got {text}")
    return v


def _level(text: str) -> float:
    """A confidence level in (0, 1); a percentage gets a suggestion."""
    v = _number(text)
    if not 0 < v < 1:
        hint = f" (for {text}%, write {v / 100:g})" if 1 < v < 100 else ""
        raise argparse.ArgumentTypeError(f"must be in (0, 1); got {text}{hint}")
    return v


def _count(text: str) -> int:
    v = _number(text, int)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {text}")
    return v


def _positive(text: str) -> float:
    v = _number(text)
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number; got {text}")
    return v


def _non_negative(text: str) -> float:
    v = _number(text)
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a number >= 0; got {text}")
    return v


def _sample_count(text: str) -> int:
    v = _number(text, int)
    if v < _DEMO_MIN_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"must be at least {_DEMO_MIN_SAMPLES} (one sample of each class); "
            f"got {text}"
        )
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


def _add_output_and_model_options(
    p, *, model, llrs, rule="", alpha_default="1", refused, **helps
) -> None:
    """The options ``calibrate`` and ``fuse`` share, in this order.

    Their help texts name the ``model`` the command fits (``"calibrator"``)
    and the LLRs it writes (``"calibrated"``); ``rule`` prefixes the help of
    the rule's options, ``refused`` lists the training options
    ``--load-model`` refuses; ``helps`` gives the rest (``output``, ``l2``).
    """
    helps = {
        "alpha": f"{rule}Beta-family rule parameter alpha (default {alpha_default})",
        "beta": f"{rule}Beta-family rule parameter beta (default 1)",
        "p_target": f"{rule}target prior of the application the objective is "
        "tuned for (default 0.5)",
        "prior": f"prior that turns {llrs} LLRs into probabilities for --output "
        "proba (default: the training proportion of targets)",
        "save_model": f"save the fitted {model} (joblib pickle)",
        "load_model": f"use a {model} saved with --save-model instead of training "
        "(only load files you trust: it is a pickle); the training options "
        f"{refused} are refused",
        **helps,
    }
    p.add_argument(
        "-o",
        "--out",
        metavar="OUT",
        help="output file (default: standard output); must not be an input file",
    )
    p.add_argument(
        "--output", choices=("llr", "proba"), default="llr", help=helps["output"]
    )
    # None: not given (refused with --load-model); the command fills the defaults
    for flag, kwargs in (
        ("--alpha", {"type": _positive}),
        ("--beta", {"type": _positive}),
        ("--p-target", {"type": _probability, "metavar": "P"}),
        ("--l2", {"type": _non_negative}),
        ("--prior", {"type": _probability}),
    ):
        dest = flag.removeprefix("--").replace("-", "_")
        p.add_argument(flag, default=None, help=helps[dest], **kwargs)
    for flag in ("--save-model", "--load-model"):
        dest = flag.removeprefix("--").replace("-", "_")
        p.add_argument(flag, metavar="FILE", help=helps[dest])


def _add_command(sub, name, quiet, runner, **kwargs):
    """The parser of subcommand ``name``, with the shared ``-q`` option
    (``quiet``), run by ``runner``: ``"module.function"`` of ``skcalib._cli``
    (imported only when the command runs)."""
    p = sub.add_parser(name, parents=[quiet], **kwargs)
    module, func = runner.split(".")
    p.set_defaults(command_module=module, command_func=func)
    return p


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

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
        "'model segment target|nontarget' (it may hold more trials than the "
        "score file); comma- or whitespace-separated, one delimiter per file; "
        "gzip-compressed files are read as such; '-' reads standard input. "
        "Output files are replaced only once "
        f"completely written. With --json, {JSON_INFINITY_HELP}.",
        parents=[quiet],
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = _add_command(
        sub,
        "evaluate",
        quiet,
        "_commands.cmd_evaluate",
        help="EER, min/actual DCF, Cllr and min Cllr of a score file",
        description="Evaluate scores read as natural-log LLRs: EER and min "
        "DCF/min Cllr (discrimination) and actual DCF/Cllr (calibration); "
        "with --report forensic, the validation report of an LR system.",
    )
    ev.add_argument(
        "scores",
        metavar="SCORES",
        help="score file: 'score label' or 'model segment score' ('-': standard input)",
    )
    ev.add_argument(
        "--key",
        metavar="KEY",
        help="key file 'model segment target|nontarget' for a three-column score file",
    )
    ev.add_argument(
        "--report",
        choices=("standard", "forensic"),
        default="standard",
        help="standard (default): EER, min/actual DCF, Cllr and min Cllr; "
        "forensic: the validation of an LR system (Meuwly et al., 2017): "
        "Cllr, min Cllr, Cllr_cal, devPAV, ELUB and invariance bounds on the "
        "LR, rates of misleading evidence, E[1/LR | H1], E[LR | H2] and EER",
    )
    _add_application(ev)
    # None: not given; a forensic report without --plot or --det, which has
    # no DCF, refuses them (cmd_evaluate fills the defaults)
    ev.set_defaults(p_target=None, c_miss=None, c_fa=None)
    ev.add_argument(
        "--plot",
        metavar="FILE.png",
        help="also write a Bayes error plot to this image file",
    )
    ev.add_argument(
        "--det",
        metavar="FILE.png",
        help="also write a DET plot (EER and min/actual DCF points marked)",
    )
    ev.add_argument(
        "--tippett",
        metavar="FILE.png",
        help="also write a Tippett plot (LLRs in natural log)",
    )
    ev.add_argument(
        "--ece-plot",
        metavar="FILE.png",
        help="also write an empirical cross-entropy (ECE) plot: the LLRs, their "
        "PAV-LLRs and LR = 1 against the prior log-odds",
    )
    ev.add_argument(
        "--reliability",
        metavar="FILE.png",
        help="also write a reliability diagram of the LLRs' posteriors at the "
        "proportion of targets (10 bins, 95%% Clopper-Pearson intervals)",
    )
    ci = ev.add_argument_group("confidence intervals (bootstrap)")
    ci.add_argument(
        "--ci",
        metavar="LEVEL",
        type=_level,
        help="print each metric with its bootstrap confidence interval at "
        "this level, a number in (0, 1) such as 0.95 (default: no intervals)",
    )
    ci.add_argument(
        "--ci-method",
        choices=("percentile", "basic", "bca"),
        default=None,
        help="interval method (default percentile): percentile, basic (the "
        "percentile interval reflected about the estimate: better for the "
        "optimistic min DCF, EER and min Cllr) or bca (bias corrected and "
        "accelerated; evaluates each metric once more per trial, or per "
        "group with --groups: slow beyond some ten thousand)",
    )
    ci.add_argument(
        "--groups",
        choices=("model", "segment"),
        help="resample whole models or segments of a three-column trial file "
        "instead of single trials (their trials are not independent)",
    )
    ci.add_argument(
        "--n-resamples",
        metavar="N",
        type=_count,
        default=1000,
        help="bootstrap resamples (default 1000); at least 2 / (1 - LEVEL), "
        "e.g. 40 for 0.95, so that one resample lies beyond each end of the "
        "interval",
    )
    ci.add_argument(
        "--seed",
        metavar="SEED",
        type=int,
        default=0,
        help="seed of the bootstrap resamples (default 0)",
    )
    ev.add_argument(
        "--json",
        action="store_true",
        help=f"print the results as JSON ({JSON_INFINITY_HELP})",
    )

    ca = _add_command(
        sub,
        "calibrate",
        quiet,
        "_commands.cmd_calibrate",
        help="train a calibrator on one score file, apply it to another",
        description="Fit a calibrator on labelled training scores and write "
        "calibrated scores of another file, in that file's format.",
    )
    ca.add_argument(
        "--method",
        choices=_METHODS,
        help="pav-llr (PAVLLRCalibrator), pav (PAVCalibrator), "
        "platt (PlattCalibrator), affine (ProperScoringAffineCalibrator), "
        "beta (BetaCalibrator, scores read as log-odds), venn-abers "
        "(VennAbersCalibrator) or auto (AutoCalibrator: cross-validated "
        "stacking of temperature, Platt and PAV); required with --train",
    )
    ca.add_argument(
        "--train", metavar="TRAIN", help="labelled training scores ('-': stdin)"
    )
    ca.add_argument(
        "--train-key", metavar="KEY", help="key file for a three-column training file"
    )
    ca.add_argument(
        "--apply",
        metavar="SCORES",
        help="scores to calibrate ('score label', 'model segment "
        "score' or one 'score' column; '-': stdin)",
    )
    _add_output_and_model_options(
        ca,
        model="calibrator",
        llrs="calibrated",
        rule="affine, beta: ",
        refused="--method, --alpha, --beta, --p-target, --prior",
        output="write calibrated LLRs (default) or target "
        "probabilities at the calibrator's prior",
        l2="affine, beta: L2 penalty (default 1e-5; 0: the exact unpenalized "
        "fit), for affine on the slope per standard deviation of the training "
        "scores, for beta on a^2 + b^2",
    )

    fu = _add_command(
        sub,
        "fuse",
        quiet,
        "_fuse.cmd_fuse",
        help="fuse several systems' scores of the same trials into one "
        "calibrated LLR (ProperScoringFusion)",
        description="Train a linear fusion (llr = w1 s1 + ... + wk sk + b, "
        "ProperScoringFusion) on labelled scores of k systems and write the "
        "fused LLRs of other scores of the same k systems. 'model segment "
        "score' files are matched by trial, in any order; 'score label' and "
        "one-column files by row order. The output follows the first --apply "
        "file.",
    )
    fu.add_argument(
        "--train",
        nargs="+",
        metavar="TRAIN",
        help="labelled training scores, one file per system ('-': stdin); "
        "required unless --load-model",
    )
    fu.add_argument(
        "--train-key",
        metavar="KEY",
        help="key file of the training trials for 'model segment score' files",
    )
    fu.add_argument(
        "--apply",
        nargs="+",
        metavar="SCORES",
        help="scores to fuse, one file per system in the order of --train "
        "(or of the systems of --load-model)",
    )
    _add_output_and_model_options(
        fu,
        model="fusion",
        llrs="fused",
        alpha_default="1: logistic regression",
        refused="--train, --train-key, --alpha, --beta, --p-target, --l2, --prior",
        output="write fused LLRs (default) or target probabilities at --prior",
        l2="L2 penalty on each fusion weight per standard deviation of its "
        "system's training scores (default 1e-5; 0: the exact unpenalized fit)",
    )

    de = _add_command(
        sub,
        "demo",
        quiet,
        "_demo.cmd_demo",
        help="the whole job on built-in data: classifier, calibrators, "
        "metrics table and Bayes error plot",
    )
    de.add_argument(
        "--plot",
        metavar="FILE.png",
        default="skcalib_demo.png",
        help="where to write the Bayes error plot (default skcalib_demo.png)",
    )
    for flag, default, what in (
        ("--n-train", 500, "classifier training samples"),
        ("--n-calibration", 500, "calibration samples"),
        ("--n-test", 5000, "test samples"),
    ):
        de.add_argument(
            flag,
            type=_sample_count,
            default=default,
            metavar="N",
            help=f"number of {what}, half of each class, at least "
            f"{_DEMO_MIN_SAMPLES} (default {default})",
        )
    de.add_argument(
        "--random-state",
        type=int,
        default=0,
        help="random state of the data (default 0)",
    )
    _add_application(de)
    de.add_argument(
        "--json",
        action="store_true",
        help=f"print the results as JSON ({JSON_INFINITY_HELP})",
    )
    return parser
