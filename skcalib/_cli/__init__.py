"""The ``skcalib`` command line: evaluate, calibrate and fuse score files, run a demo.

::

    skcalib evaluate SCORES [--key KEY] [--report {standard,forensic}]
                            [--p-target P --c-miss C --c-fa C]
                            [--plot FILE.png] [--det FILE.png]
                            [--tippett FILE.png] [--ece-plot FILE.png]
                            [--reliability FILE.png] [--ci LEVEL
                            [--ci-method {percentile,basic,bca}]
                            [--groups {model,segment}] [--n-resamples N]]
                            [--json]
    skcalib calibrate --method {pav-llr,pav,platt,affine,beta,venn-abers,auto}
                      --train TRAIN
                      [--train-key KEY] --apply SCORES [-o OUT]
                      [--save-model FILE | --load-model FILE]
    skcalib fuse --train TRAIN1 TRAIN2 ... [--train-key KEY]
                 --apply SCORES1 SCORES2 ... [-o OUT]
                 [--save-model FILE | --load-model FILE]
    skcalib demo [--plot FILE.png] [--json]

Score files are text, comma- or whitespace-separated (one delimiter per
file), one trial per line, possibly gzip-compressed (blank lines and lines
starting with ``#`` are ignored; a first line naming its columns, e.g.
``score label``, is a header; ``-`` reads standard input):

- two columns ``score label``, the label one of ``1/0``, ``target/nontarget``
  (also ``tar/non``, ``true/false``, ``+1/-1``), or
- three columns ``model segment score`` (BOSARIS style) with a key file of
  ``model segment target|nontarget`` lines (the key may list more trials
  than the score file; they are counted and left out).

Malformed input exits with status 2 and a one-line message naming the file
and the line; nothing in this package prints a traceback for bad input.
Every output path and input file is checked before any work; output files
are replaced only once completely written. Only this module,
the parser (:mod:`._parser`) and :mod:`._common` are imported for ``--help``
and ``--version``: the commands import NumPy, scikit-learn and matplotlib
when they run.
"""

from __future__ import annotations

import errno
import os
import sys

# Progress and build_parser are also reached here by the tests and the
# documentation's command-line reference
from ._common import PROG, InputError, Progress  # noqa: F401
from ._parser import build_parser

__all__ = ["main"]


def _run(args) -> int:
    import importlib

    module = importlib.import_module(f".{args.command_module}", __name__)
    return getattr(module, args.command_func)(args)


def _silence_stdout() -> None:
    """Point the real standard output at /dev/null (its buffer is unwritable).

    Python flushes ``sys.stdout`` once more at exit; without this a closed
    pipe or a full device would print a second error there.
    """
    if sys.stdout is not sys.__stdout__ or sys.stdout is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input).

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name; ``sys.argv[1:]`` if None.

    Returns
    -------
    status : int
        0 on success, 2 on bad input, usage or a failed write (one line on
        stderr), 141 when standard output is a pipe closed by its reader
        (nothing printed, like a program stopped by SIGPIPE).

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
        status = int(exc.code or 0)
    else:
        args.quiet = bool(getattr(args, "quiet", False))
        try:
            status = _run(args)
        except InputError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            _silence_stdout()
            return 141
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT):
                raise
            _silence_stdout()
            print(
                f"{PROG}: error: cannot write to standard output: "
                f"{exc.strerror or exc}.",
                file=sys.stderr,
            )
            return 2
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except OSError as exc:
        _silence_stdout()
        print(
            f"{PROG}: error: cannot write to standard output: {exc.strerror or exc}.",
            file=sys.stderr,
        )
        return 2
    return status
