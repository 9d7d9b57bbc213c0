"""Progress reports of long computations to whoever listens.

A caller that wants to know how far a long computation is (the command
line's progress line during ``bootstrap_ci``) wraps the call in
:func:`report_progress`; the computation asks :func:`progress_callback` who
is listening. A context variable carries the callback, so the public
signatures stay those of plain functions. Design note:
docs/design/shared_helpers.rst.
"""

from __future__ import annotations

import contextlib
import contextvars

__all__ = ["progress_callback", "report_progress"]

#: ``callback(stage, done, total)`` of the innermost :func:`report_progress`
#: block; None: nobody is listening.
_PROGRESS = contextvars.ContextVar("skcalib_bootstrap_progress", default=None)


@contextlib.contextmanager
def report_progress(callback):
    """Within the block, tell ``callback`` how far :func:`bootstrap_ci` is.

    ``callback(stage, done, total)`` is called after each replicate computed
    in this process: ``stage`` is ``'resamples'`` (``done`` of the
    ``n_resamples`` resamples) or ``'jackknife'`` (``done`` of the
    ``n_units`` leave-one-out samples of BCa). Long runs (a million trials,
    BCa) can then show that they are moving; a context variable, so the
    public signature stays that of a metric function.
    """
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def progress_callback():
    """The callback of the innermost :func:`report_progress` block, or None."""
    return _PROGRESS.get()
