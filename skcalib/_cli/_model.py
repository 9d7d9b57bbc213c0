"""Saved models of ``calibrate`` and ``fuse``: joblib pickles, written atomically."""

from __future__ import annotations

import os
import sys

from ._common import InputError
from ._output import atomic_output

#: What each command saves and loads, and the command that uses the other kind.
_KINDS = {
    "calibrate": ("calibrator", "fuse"),
    "fuse": ("fusion (ProperScoringFusion)", "calibrate"),
}


def _is_fusion(model) -> bool:
    from .. import ProperScoringFusion

    return isinstance(model, ProperScoringFusion)


def load_model(path: str, command: str):
    """The fitted model saved by ``skcalib <command> --save-model`` at ``path``."""
    import joblib

    from .. import BaseCalibrator

    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a saved model.")
    try:
        model = joblib.load(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except MemoryError:
        raise InputError(f"{path}: not a saved skcalib model (too large).") from None
    except Exception as exc:  # any unreadable file: zlib, lzma, pickle, EOF, ...
        raise InputError(
            f"{path}: not a saved skcalib model (reading it failed with "
            f"{type(exc).__name__})."
        ) from None
    what, other = _KINDS[command]
    if not isinstance(model, BaseCalibrator):
        raise InputError(
            f"{path}: not a saved skcalib {what.split()[0]} (found "
            f"{type(model).__name__})."
        )
    if _is_fusion(model) != (command == "fuse"):
        found = _KINDS["fuse" if _is_fusion(model) else "calibrate"][0]
        raise InputError(
            f"{path}: a saved {found.split()[0]}, not a {what.split()[0]}: load "
            f"it with 'skcalib {other} --load-model'."
        )
    return model


def save_model(model, path: str, *, quiet: bool) -> None:
    """Write ``model`` to ``path`` (joblib), atomically; confirm on stderr."""
    import joblib

    with atomic_output(path, "wb") as f:
        joblib.dump(model, f)
    if not quiet:
        print(f"{type(model).__name__}: model saved to {path}", file=sys.stderr)


def check_model_source(args, command: str, options, many: bool = False) -> None:
    """The rules ``calibrate`` and ``fuse`` share: a model from ``--train``
    or from ``--load-model`` (not both), something to do with it
    (``--apply`` or ``--save-model``), and no training ``options`` with a
    loaded model. ``many``: the command takes several files per option."""
    files = " ..." if many else ""
    if args.load_model is None and args.train is None:
        raise InputError(
            f"{command} needs --train TRAIN{files} (or --load-model FILE)."
        )
    if args.load_model is not None and args.train is not None:
        raise InputError("give either --train or --load-model, not both.")
    if args.apply is None and args.save_model is None:
        raise InputError(
            f"nothing to do: give --apply SCORES{files} and/or --save-model."
        )
    if args.load_model is not None:
        refuse_training_options(args, options)


def refuse_training_options(args, options) -> None:
    """With ``--load-model``, refuse the options that only shape a training."""
    given = [flag for dest, flag in options if getattr(args, dest) is not None]
    if args.train_key is not None:
        given.append("--train-key")
    if given:
        raise InputError(
            f"{', '.join(given)}: only for training; the model from "
            f"--load-model {args.load_model} is already fitted."
        )
    if args.save_model is not None:
        raise InputError("--save-model: the model from --load-model is already saved.")
