"""Shared pieces of the command line: the input error, progress line, JSON."""

from __future__ import annotations

import contextlib
import math
import sys
import time
import warnings

PROG = "skcalib"

#: How ``--json`` writes infinite values: JSON (RFC 8259) has no infinity, so
#: they are the strings ``"Infinity"`` and ``"-Infinity"`` (what JavaScript's
#: ``String(Infinity)`` gives and Python's ``float()`` reads back).
JSON_INFINITY_HELP = (
    'infinite values are written as the JSON strings "Infinity" and "-Infinity"'
)


class InputError(Exception):
    """Bad user input: reported as one line, exit status 2."""


def json_number(x: float):
    """``x`` as a JSON value: a number, ``"Infinity"``/``"-Infinity"``, or null."""
    if math.isfinite(x):
        return x
    if math.isnan(x):
        return None
    return "Infinity" if x > 0 else "-Infinity"


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
        self, message: str, *, force: bool = False, throttle: bool | float = False
    ) -> None:
        """Show ``message`` once past ``delay``; ``throttle`` limits repeats.

        ``throttle=True`` shows at most one line per ``interval`` seconds, a
        number at most one per that many seconds (for long, steady work).
        """
        if self.quiet:
            return
        now = time.monotonic()
        if not force and now - self.start < self.delay:
            return
        gap = self.interval if throttle is True else float(throttle)
        if throttle and not force and now - self.last < gap:
            return
        self.last = now
        self.shown = True
        self.stream.write(f"{PROG}: {message} [{now - self.start:.1f} s]\n")
        self.stream.flush()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def done(self, message: str = "done") -> None:
        if self.shown:
            self.update(message, force=True)


def note(text: str | None, *, quiet: bool) -> None:
    """``text`` as one note line on stderr, unless ``quiet`` or empty."""
    if text and not quiet:
        print(f"{PROG}: note: {text}", file=sys.stderr)


def duration(seconds: float) -> str:
    """``seconds`` as a rough human duration: ``"40 s"``, ``"3 min"``, ``"2 h"``."""
    if not math.isfinite(seconds):
        return "unknown time"
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


@contextlib.contextmanager
def warnings_as_notes(stream=None):
    """Report warnings raised in the block as one line each on stderr.

    A command line user needs the message, not the source line that Python's
    default warning display adds; repeated messages are shown once.
    """
    stream = sys.stderr if stream is None else stream
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            shown = set()
            for w in caught:
                text = " ".join(str(w.message).split())
                if text not in shown:
                    shown.add(text)
                    stream.write(f"{PROG}: warning: {text}\n")
