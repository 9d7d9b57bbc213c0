"""The ``fuse`` command: one calibrated LLR from several systems' score files.

The files of one set (``--train`` or ``--apply``) score the same trials:
``model segment score`` files are matched by trial (BOSARIS style, in any
order), ``score label`` and one-column files by row order. The output
follows the first ``--apply`` file (its trial order and format).
"""

from __future__ import annotations

import sys

import numpy as np

from ._common import InputError, Progress, note, warnings_as_notes
from ._model import check_model_source, load_model, save_model
from ._output import check_outputs
from ._reader import (
    ScoreFile,
    check_inputs,
    read_scores,
    require_both_classes,
    require_finite,
    trial_codes,
    unscored_note,
)
from ._writer import write_scores

_LAYOUTS = {
    "trials": "'model segment score'",
    "labelled": "'score label'",
    "plain": "one-column 'score'",
}


def _name(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _trial(sf: ScoreFile, i: int) -> str:
    return f"({_name(sf.columns[0][i])}, {_name(sf.columns[1][i])})"


def _first_duplicate(sf: ScoreFile, codes: np.ndarray):
    """Raise for the first repeated trial of ``sf``; else the sort order."""
    order = np.argsort(codes, kind="stable")
    same = np.flatnonzero(codes[order][1:] == codes[order][:-1])
    if same.size:
        # the repeat that comes last in the file names the line to fix
        pairs = [(order[j + 1], order[j]) for j in same]
        again, first = min(pairs)
        raise InputError(
            f"{sf.path}, line {sf.lines[again]}: duplicate trial "
            f"{_trial(sf, again)} (first on line {sf.lines[first]})."
        )
    return order


def align_by_trial(first: ScoreFile, other: ScoreFile) -> np.ndarray:
    """Indices of ``other``'s rows in the trial order of ``first``."""
    codes_f, codes_o = trial_codes(first.columns[:2], other.columns[:2])
    _first_duplicate(first, codes_f)
    order = _first_duplicate(other, codes_o)
    sorted_o = codes_o[order]
    pos = np.minimum(np.searchsorted(sorted_o, codes_f), sorted_o.shape[0] - 1)
    missing = np.flatnonzero(sorted_o[pos] != codes_f)
    if missing.size:
        i = int(missing[0])
        raise InputError(
            f"{other.path}: no score for trial {_trial(first, i)} of {first.path}, "
            f"line {first.lines[i]}: the fused files must score the same trials."
        )
    if codes_o.shape[0] != codes_f.shape[0]:
        extra = np.flatnonzero(~np.isin(codes_o, codes_f))
        i = int(extra[0])
        raise InputError(
            f"{other.path}, line {other.lines[i]}: trial {_trial(other, i)} is "
            f"not in {first.path}: the fused files must score the same trials."
        )
    return order[pos]


def align_by_row(first: ScoreFile, other: ScoreFile) -> None:
    """Check that ``other`` lists the trials of ``first`` in the same order."""
    n_f, n_o = first.scores.shape[0], other.scores.shape[0]
    if n_f != n_o:
        raise InputError(
            f"{other.path}: {n_o} trials, but {first.path} has {n_f}: files "
            "without trial names are matched by row order, so each must list "
            "the same trials in the same order."
        )
    if first.labels is None or other.labels is None:
        return
    differ = np.flatnonzero(first.labels != other.labels)
    if differ.size:
        i = int(differ[0])

        def label(sf):
            return "a target" if sf.labels[i] else "a non-target"

        raise InputError(
            f"{other.path}, line {other.lines[i]}: trial {i + 1} is {label(other)} "
            f"trial, but {label(first)} one in {first.path}, line "
            f"{first.lines[i]}: files without trial names are matched by row "
            "order, so each must list the same trials in the same order."
        )


def stack_systems(files: list) -> np.ndarray:
    """The scores of ``files`` as columns, rows in the first file's trial order."""
    first = files[0]
    columns = [first.scores]
    for other in files[1:]:
        if (first.kind == "trials") != (other.kind == "trials"):
            raise InputError(
                f"{other.path}: {_LAYOUTS[other.kind]} lines, but {first.path} "
                f"has {_LAYOUTS[first.kind]} lines: the fused files are matched "
                "by trial names only if all of them have them."
            )
        if first.kind == "trials":
            columns.append(other.scores[align_by_trial(first, other)])
        else:
            align_by_row(first, other)
            columns.append(other.scores)
    return np.column_stack(columns)


def _read_set(paths, progress, *, key=None, need_labels):
    files = []
    for j, path in enumerate(paths):
        if j == 0 and need_labels:
            sf = read_scores(path, progress, key=key, key_option="--train-key")
        else:
            sf = read_scores(path, progress, need_labels=False)
        require_finite(sf, "to be fused")
        files.append(sf)
    return files


#: Options that only shape a fusion being trained (dest, flag).
TRAINING_OPTIONS = (
    ("alpha", "--alpha"),
    ("beta", "--beta"),
    ("p_target", "--p-target"),
    ("l2", "--l2"),
    ("prior", "--prior"),
)


def _system_name(path: str) -> str:
    return "standard input" if path == "-" else path


def _check_options(args) -> None:
    check_model_source(args, "fuse", TRAINING_OPTIONS, many=True)
    if (
        args.load_model is None
        and args.apply is not None
        and len(args.apply) != len(args.train)
    ):
        raise InputError(
            f"--apply: {len(args.apply)} files, but --train has {len(args.train)}: "
            "give one file per system to each, the systems in the same order."
        )
    inputs = {f"--train {p}": p for p in args.train or ()}
    inputs.update({f"--apply {p}": p for p in args.apply or ()})
    inputs["--train-key"] = args.train_key
    inputs["--load-model"] = args.load_model
    check_outputs({"-o": args.out, "--save-model": args.save_model}, inputs)
    if [*(args.train or ()), *(args.apply or ()), args.train_key].count("-") > 1:
        raise InputError("only one input can be standard input (-).")
    check_inputs([*(args.train or ()), args.train_key, *(args.apply or ())])


def _train(args, progress):
    from .. import ProperScoringFusion

    model = ProperScoringFusion(
        alpha=1.0 if args.alpha is None else args.alpha,
        beta=1.0 if args.beta is None else args.beta,
        p_target=0.5 if args.p_target is None else args.p_target,
        prior=args.prior,
    )
    if args.l2 is not None:
        model.set_params(l2=args.l2)
    train = _read_set(args.train, progress, key=args.train_key, need_labels=True)
    require_both_classes(train[0])
    note(unscored_note(train[0]), quiet=args.quiet)
    X_train = stack_systems(train)
    progress.update(f"fitting ProperScoringFusion on {X_train.shape[0]:,} trials")
    try:
        with warnings_as_notes():
            model.fit(X_train, train[0].labels)
    except ValueError as exc:
        raise InputError(f"{train[0].path}: cannot fuse: {exc}") from None
    return model


def cmd_fuse(args) -> int:
    _check_options(args)
    progress = Progress(args.quiet)
    if args.load_model is not None:
        model = load_model(args.load_model, "fuse")
        k = int(model.n_features_in_)
        if args.apply is not None and len(args.apply) != k:
            raise InputError(
                f"--apply: {len(args.apply)} files, but the fusion from "
                f"--load-model {args.load_model} fuses {k} systems: give one "
                "file per system, in the order it was trained with."
            )
        systems = args.apply
    else:
        model = _train(args, progress)
        systems = args.train
        if args.save_model is not None:
            save_model(model, args.save_model, quiet=args.quiet)
    if args.apply is not None:
        apply = _read_set(args.apply, progress, need_labels=False)
        X_apply = stack_systems(apply)
        progress.update(f"fusing {X_apply.shape[0]:,} trials")
        with warnings_as_notes():
            if args.output == "llr":
                values = model.decision_function(X_apply)
            else:
                values = model.predict_proba(X_apply)[:, 1]
        write_scores(
            apply[0],
            np.asarray(values, dtype=float),
            args.out,
            "llr" if args.output == "llr" else "probability",
        )
    progress.done()
    if not args.quiet:
        terms = " + ".join(
            f"{w:.6g} * {_system_name(path)}"
            for path, w in zip(systems, model.coef_, strict=True)
        )
        b = model.intercept_
        where = "" if args.out in (None, "-") else f"; written to {args.out}"
        print(
            f"ProperScoringFusion: fused llr = {terms} {'-' if b < 0 else '+'} "
            f"{abs(b):.6g}{where}",
            file=sys.stderr,
        )
    return 0
