"""What the commands write: results as text, JSON and plots, and files whole.

The commands compute their results as data (``_commands.Evaluation``); the
functions here only render them: the text table, the JSON document, the
plot images. Output files are written whole or not at all, and never over
an input.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._common import InputError, json_number


def _cannot_write(path: str, exc: OSError) -> InputError:
    return InputError(f"{path}: cannot write: {exc.strerror or exc}.")


def _new_file_mode(target: str) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_output(path: str, mode: str = "w"):
    """Open ``path`` for writing so that it is replaced only by a complete file.

    The data go to a temporary file in the same folder, which is renamed over
    ``path`` once the block has finished writing it; on any failure (disk full,
    file-size limit, an exception in the block) the temporary file is removed
    and a previous ``path`` is left as it was. Special files such as
    ``/dev/null`` are written directly.
    """
    target = os.path.realpath(path)  # replace a symlink's target, not the link
    if os.path.exists(target) and not os.path.isfile(target):
        if os.path.isdir(target):
            raise InputError(f"{path}: is a directory.")
        try:
            with open(target, mode) as f:
                yield f
        except OSError as exc:
            raise _cannot_write(path, exc) from None
        return
    folder = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder
        )
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_file_mode(target))
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise _cannot_write(path, exc) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def check_outputs(outputs: dict, inputs: dict, *, figures=()) -> None:
    """Refuse, before any work, an output that cannot be written.

    ``outputs`` and ``inputs`` map option names (``-o``, ``--train``, ...) to
    paths (``None`` and ``-`` are skipped); the options in ``figures`` write
    images, whose format is read from the file's extension. An output is
    refused if it is one of the inputs or another output, a directory, in a
    folder that does not exist or cannot be written, or (a figure) of an
    unknown format: a typo costs one line, not the work before the write.
    """
    seen: list = []
    for out_opt, out in outputs.items():
        if out in (None, "-"):
            continue
        for in_opt, inp in inputs.items():
            if inp in (None, "-"):
                continue
            if _same_file(out, inp):
                raise InputError(
                    f"{out}: the output file ({out_opt}) is also an input "
                    f"({in_opt}); writing it would destroy the input: choose "
                    "another name."
                )
        for other_opt, other in seen:
            if _same_file(out, other):
                raise InputError(
                    f"{out}: the same file is given to {other_opt} and {out_opt}."
                )
        seen.append((out_opt, out))
        _check_writable(out, out_opt)
        if out_opt in figures:
            figure_format(out, out_opt)


def _check_writable(path: str, option: str) -> None:
    """Refuse ``path`` unless :func:`atomic_output` can write it."""
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise InputError(f"{path}: is a directory ({option} names a file to write).")
    if os.path.exists(target) and not os.path.isfile(target):
        # a special file (/dev/null, a FIFO) is written directly
        if not os.access(target, os.W_OK):
            raise InputError(f"{path}: cannot write ({option}): permission denied.")
        return
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        shown = os.path.dirname(path) or "."
        why = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise InputError(f"{path}: cannot write ({option}): {shown!r} {why}.")
    # the one sure test of a folder (permissions, ACLs, a read-only mount):
    # create the temporary file atomic_output would, and remove it
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder
        )
    except OSError as exc:
        raise InputError(
            f"{path}: cannot write ({option}): {exc.strerror or exc}."
        ) from None
    os.close(fd)
    _remove(tmp)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


# ----------------------------------------------------------------------- text
class Metric(NamedTuple):
    """A metric of ``evaluate``: its label in the text, its key in the JSON,
    its text format, ``method(trials, app)``, how a ``ScoredTrials``
    computes it at the command's ``Application`` (a number, or a pair of
    numbers printed as ``[low, high]``), the reports that print it, and
    whether ``--ci`` bootstraps it (on every resample alike)."""

    label: str
    key: str
    format: str
    method: Callable
    reports: tuple = ("standard",)
    bootstrap: bool = True


def _eer(trials, app):
    return trials.eer()


def _min_dcf(trials, app):
    return trials.min_dcf(app)


def _actual_dcf(trials, app):
    return trials.actual_dcf(app)


def _cllr(trials, app):
    return trials.cllr()


def _min_cllr(trials, app):
    return trials.min_cllr()


def _cllr_cal(trials, app):
    return trials.cllr_cal()


def _devpav(trials, app):
    return trials.devpav()


def _elub(trials, app):
    return trials.elub_bounds()


def _elub_lr(trials, app):
    return _lr(trials.elub_bounds())


def _invariance(trials, app):
    return trials.invariance_bounds()


def _invariance_lr(trials, app):
    return _lr(trials.invariance_bounds())


def _lr(llrs):
    """Natural-log LLRs as likelihood ratios (``inf`` beyond the floats)."""
    with np.errstate(over="ignore"):
        return tuple(float(v) for v in np.exp(llrs))


def _misleading_h1(trials, app):
    return trials.misleading_evidence_rates()[0]


def _misleading_h2(trials, app):
    return trials.misleading_evidence_rates()[1]


def _inverse_lr_h1(trials, app):
    return trials.expected_likelihood_ratios()[0]


def _lr_h2(trials, app):
    return trials.expected_likelihood_ratios()[1]


#: The reports of ``evaluate --report``.
REPORTS = ("standard", "forensic")

_BOTH = ("standard", "forensic")
_FORENSIC = ("forensic",)

#: The metrics of ``evaluate`` and ``demo``, in the order printed; a report
#: prints those that name it. The forensic metrics other than Cllr_cal are
#: not bootstrapped: the bounds, rates and expected LRs read the trials
#: themselves, which a resample (weights over the sorted trials) does not
#: hold, and devPAV reads the LLR values of the PAV blocks.
METRICS = (
    Metric("EER", "eer", "{:.2%}", _eer, _BOTH),
    Metric("min DCF", "min_dcf", "{:.4f}", _min_dcf),
    Metric("actual DCF", "actual_dcf", "{:.4f}", _actual_dcf),
    Metric("Cllr (bits)", "cllr", "{:.4f}", _cllr, _BOTH),
    Metric("min Cllr (bits)", "min_cllr", "{:.4f}", _min_cllr, _BOTH),
    Metric("Cllr_cal (bits)", "cllr_cal", "{:.4f}", _cllr_cal, _FORENSIC),
    Metric("devPAV (LLR)", "devpav", "{:.4f}", _devpav, _FORENSIC, False),
    Metric("ELUB bounds (LLR)", "elub_llr", "{:.4f}", _elub, _FORENSIC, False),
    Metric("ELUB bounds (LR)", "elub_lr", "{:.4g}", _elub_lr, _FORENSIC, False),
    Metric(
        "invariance bounds (LLR)",
        "invariance_llr",
        "{:.4f}",
        _invariance,
        _FORENSIC,
        False,
    ),
    Metric(
        "invariance bounds (LR)",
        "invariance_lr",
        "{:.4g}",
        _invariance_lr,
        _FORENSIC,
        False,
    ),
    Metric(
        "misleading evidence, H1 (LR < 1)",
        "misleading_h1",
        "{:.2%}",
        _misleading_h1,
        _FORENSIC,
        False,
    ),
    Metric(
        "misleading evidence, H2 (LR > 1)",
        "misleading_h2",
        "{:.2%}",
        _misleading_h2,
        _FORENSIC,
        False,
    ),
    Metric(
        "E[1/LR | H1]",
        "expected_inverse_lr_h1",
        "{:.4g}",
        _inverse_lr_h1,
        _FORENSIC,
        False,
    ),
    Metric("E[LR | H2]", "expected_lr_h2", "{:.4g}", _lr_h2, _FORENSIC, False),
)


def report_metrics(report: str = "standard") -> tuple:
    """The metrics of ``report``, in the order printed."""
    return tuple(m for m in METRICS if report in m.reports)


#: The plot options of ``evaluate`` (dest) and what each writes.
PLOTS = (
    ("plot", "Bayes error plot"),
    ("det", "DET plot"),
    ("tippett", "Tippett plot"),
    ("ece_plot", "ECE plot"),
    ("reliability", "reliability diagram"),
)


def fmt(template: str, value) -> str:
    """``value`` in ``template``; a pair as ``[low, high]``."""
    if isinstance(value, tuple):
        return f"[{', '.join(fmt(template, v) for v in value)}]"
    # + 0.0 turns a negative zero into 0.0, so a zero never prints as "-0.00%"
    return template.format(value + 0.0) if math.isfinite(value) else str(value)


def json_value(value):
    """A metric's value in the JSON: a number, or a pair as a list."""
    if isinstance(value, tuple):
        return [json_number(v) for v in value]
    return json_number(value)


def percent(level: float) -> str:
    """A confidence level as a percentage, to 4 digits (99.5%, not 100%)."""
    return f"{100 * level:.4g}%"


def resample_unit(args) -> str:
    """What the bootstrap resamples: trials, or the ``--groups`` named."""
    return "trials" if args.groups is None else f"{args.groups}s"


def app_line(args, app) -> str:
    """The application line; ``app`` is the ``Application`` of ``args``."""
    return (
        f"application: p_target={args.p_target:g} c_miss={args.c_miss:g} "
        f"c_fa={args.c_fa:g} "
        f"(effective prior {app.effective_prior:.4g})"
    )


def infinite_cllr_note(n_tar_wrong: int, n_non_wrong: int) -> str:
    """Why Cllr is infinite: a note for stderr (the count is in the JSON)."""
    return (
        f"Cllr is infinite: {n_tar_wrong + n_non_wrong} trials are confidently "
        f"wrong ({n_tar_wrong} target trials at LLR -inf, {n_non_wrong} "
        "non-target trials at +inf); each costs infinitely many bits. Such "
        "LLRs come from a calibrator that gives probability 0 or 1 (e.g. PAV "
        "with extremes='raw'); PAVLLRCalibrator's default "
        "extremes='succession' keeps them finite."
    )


#: The second line of each report (the standard report's is the application).
_FORENSIC_LINE = (
    "forensic validation: H1 = target (same source), H2 = non-target "
    "(different source); LR = exp(LLR)"
)


def _uses_application(args) -> bool:
    """Whether the output of ``evaluate`` depends on the application: the
    standard report's DCFs, or a Bayes error or DET plot."""
    return args.report == "standard" or bool(args.plot or args.det)


def _interval_note(metrics, intervals) -> str:
    """Which metrics have intervals, when not all of them do."""
    if len(intervals) == len(metrics):
        return ""
    names = [m.label.removesuffix(" (bits)") for m in metrics if m.key in intervals]
    return f" of {', '.join(names[:-1])} and {names[-1]}"


def evaluation_text(result, args) -> str:
    """The report of ``evaluate`` on one score file (``result``: an
    ``Evaluation``)."""
    n_tar, n_non = result.n_target, result.n_nontarget
    metrics = report_metrics(args.report)
    lines = [
        f"{result.scores.path}: {n_tar + n_non} trials ({n_tar} target, {n_non} "
        "non-target); scores read as natural-log LLRs"
    ]
    if args.report == "forensic":
        lines.append(_FORENSIC_LINE)
    if _uses_application(args):
        lines.append(app_line(args, result.app))
    intervals = result.intervals
    if intervals is not None:
        lines.append(
            f"{percent(args.ci)} bootstrap intervals ({args.ci_method}, "
            f"{args.n_resamples} resamples of {resample_unit(args)}, "
            f"seed {args.seed}){_interval_note(metrics, intervals)}"
        )
    width = max(len(m.label) for m in metrics)
    values = {m.key: fmt(m.format, result.metrics[m.key]) for m in metrics}
    value_width = max(10, *(len(v) for v in values.values()))
    for m in metrics:
        line = f"  {m.label:<{width}}  {values[m.key]:>{value_width}}"
        if intervals is not None and m.key in intervals:
            line += f"  {fmt(m.format, intervals[m.key])}"
        lines.append(line)
    for option, what in PLOTS:
        if getattr(args, option):
            lines.append(f"{what} written to {getattr(args, option)}")
    return "\n".join(lines)


def evaluation_json(result, args) -> str:
    """The JSON document of ``evaluate --json`` (``result``: an
    ``Evaluation``)."""
    out = {
        "scores": args.scores,
        "key": args.key,
        "report": args.report,
        "n_target": result.n_target,
        "n_nontarget": result.n_nontarget,
    }
    if _uses_application(args):
        out.update(
            p_target=args.p_target,
            c_miss=args.c_miss,
            c_fa=args.c_fa,
            effective_prior=result.app.effective_prior,
        )
    out.update(
        {k: json_value(v) for k, v in result.metrics.items()},
        n_confidently_wrong=sum(result.confidently_wrong),
        n_key_trials_unscored=result.scores.n_unscored,
    )
    if result.intervals is not None:
        out["ci"] = {
            "confidence_level": args.ci,
            "method": args.ci_method,
            "n_resamples": args.n_resamples,
            "resampled": args.groups or "trial",
            "seed": args.seed,
            **{k: json_value(lh) for k, lh in result.intervals.items()},
        }
    for option, _ in PLOTS:
        if getattr(args, option):
            out[option] = getattr(args, option)
    return json.dumps(out, indent=2, allow_nan=False)


# ---------------------------------------------------------------------- plots
def evaluation_plots(result, args, progress) -> dict:
    """Write the plots that ``args`` asks of ``evaluate`` (``result``: an
    ``Evaluation``); return the error of each plot not written, by option."""
    name, trials = result.name, result.trials
    writers = {
        "plot": lambda path: bayes_error_plot(
            [(name, trials, True)], path, result.app, f"Bayes error plot: {name}"
        ),
        # the DET display's own figure: its square axes leave room for the
        # legend (tight_layout would not: it ignores the legend of
        # fixed-aspect axes); the operating points of the application marked
        "det": lambda path: display_plot(
            "DETDisplay",
            trials,
            path,
            f"DET plot: {name}",
            llr=True,
            **result.app.as_dict(),
            name=name,
        ),
        "tippett": lambda path: tippett_plot(
            name, trials, path, f"Tippett plot: {name}"
        ),
        "ece_plot": lambda path: display_plot(
            "ECEDisplay", trials, path, f"ECE plot: {name}", name=name
        ),
        # the LLRs read as posteriors at the proportion of targets
        "reliability": lambda path: display_plot(
            "ReliabilityDisplay",
            trials,
            path,
            f"Reliability diagram: {name}",
            name=name,
        ),
    }
    failed = {}
    for option, _ in PLOTS:
        path = getattr(args, option)
        if path:
            progress.update(f"writing {path}")
            try:
                writers[option](path)
            except InputError as exc:  # the other plots and the metrics go on
                failed[option] = exc
    return failed


def _pyplot():
    """``matplotlib.pyplot`` on the file-only Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bayes_error_plot(systems, path: str, app, title: str) -> None:
    """Write a Bayes error plot of ``[(name, trials, plot_min)]`` to ``path``.

    A system may carry a fifth element, a dict of line styles for its
    actual-DCF curve (``BayesErrorDisplay`` keyword arguments). ``app``, the
    ``Application`` of the command, is marked by a vertical line.
    """
    plt = _pyplot()
    from ..metrics import BayesErrorDisplay

    fig, ax = plt.subplots(figsize=(9, 4.5))
    try:
        for name, trials, plot_min, *style in systems:
            BayesErrorDisplay.from_trials(
                trials, name=name, ax=ax, plot_min_dcf=plot_min, **dict(*style)
            )
        ax.axvline(
            app.prior_log_odds,
            color="grey",
            linewidth=0.8,
            linestyle="-.",
            label="application",
        )
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
        ax.set_title(title, fontsize="medium")
        fig.tight_layout()
        save_figure(fig, path)
    finally:
        plt.close(fig)


def display_plot(display: str, trials, path: str, title: str, **kwargs) -> None:
    """Write the display ``skcalib.metrics.<display>`` of ``trials`` (its
    ``from_trials`` with ``kwargs``) on its own figure to ``path``."""
    plt = _pyplot()
    from .. import metrics

    disp = getattr(metrics, display).from_trials(trials, **kwargs)
    try:
        disp.ax_.set_title(title, fontsize="medium")
        save_figure(disp.figure_, path)
    finally:
        plt.close(disp.figure_)


def tippett_plot(name, trials, path: str, title: str) -> None:
    """Write a Tippett plot of the LLRs of one score file to ``path``."""
    plt = _pyplot()
    from ..metrics import TippettDisplay

    fig, ax = plt.subplots(figsize=(9, 4.5))
    try:
        TippettDisplay.from_trials(trials, name=name, ax=ax)
        ax.set_title(title, fontsize="medium")
        fig.tight_layout()
        save_figure(fig, path)
    finally:
        plt.close(fig)


def figure_format(path: str, option: str | None = None) -> str:
    """The image format of ``path``, from its extension (``png`` if none)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    what = "cannot write the plot" + (f" ({option})" if option else "")
    ext = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    known = FigureCanvasAgg.get_supported_filetypes()
    if ext not in known:
        raise InputError(
            f"{path}: {what}: unknown image format "
            f"{ext!r} (use one of " + ", ".join(sorted(known)) + ")."
        )
    if ext == "pgf":
        import shutil

        import matplotlib

        tex = matplotlib.rcParams["pgf.texsystem"]
        if shutil.which(tex) is None:
            raise InputError(
                f"{path}: {what}: the pgf format needs "
                f"{tex} (LaTeX), which is not installed; use pdf or svg."
            )
    return ext


def save_figure(fig, path: str) -> None:
    """Save ``fig`` to ``path`` (format from its extension), atomically."""
    ext = figure_format(path)
    with atomic_output(path, "wb") as f:
        try:
            fig.savefig(f, format=ext, dpi=100)
        except (RuntimeError, ValueError) as exc:  # a backend's own failure
            raise InputError(
                f"{path}: cannot write the plot: " + " ".join(str(exc).split())
            ) from None
