"""What the benchmarks share: what every ``--json`` records about its run
(commit and date), the CPU-time and peak-memory probes, and how a script
ends (:func:`run_script`).

The benchmarks are run as scripts (``python benchmarks/bench_x.py``), so this
module is imported from the script's own folder.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import time
import tracemalloc


def run_script(main) -> None:
    """Run a benchmark's ``main()`` as a script and exit with its status.

    A standard output closed by its reader (``bench_x.py --list | head``)
    ends the run quietly with status 141, as a program stopped by SIGPIPE,
    instead of a traceback.
    """
    from skcalib._cli import _silence_stdout

    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        status = 141
    raise SystemExit(status)


def git_commit(short: bool = False) -> str:
    """The checkout's commit hash (``''`` outside a git checkout)."""
    cmd = ["git", "rev-parse", *(["--short"] if short else []), "HEAD"]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            check=False,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        )
    except OSError:
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def utc_now() -> str:
    """The current time, UTC, ISO 8601."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def write_json(path: str, record) -> None:
    """Write ``record`` as indented JSON to ``path``, whole or not at all.

    The text goes to a temporary file in the same folder, renamed over
    ``path`` once complete; NumPy scalars are written as floats.
    """
    import json
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(record, fh, indent=2, default=float)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def best_cpu_times(fns, repeats):
    """Best CPU time of each function, the functions timed in turn (so that
    a changing machine load hits all alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - t0)
    return best


def peak_bytes(fn):
    """Peak memory ``fn`` allocates through Python's allocators, in bytes."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base
