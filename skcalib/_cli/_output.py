"""Writing output files whole or not at all, and refusing to overwrite inputs."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from ._common import InputError


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


def check_outputs(outputs: dict, inputs: dict) -> None:
    """Refuse an output file that is one of the inputs or another output.

    ``outputs`` and ``inputs`` map option names (``-o``, ``--train``, ...) to
    paths (``None`` and ``-`` are skipped).
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


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)
