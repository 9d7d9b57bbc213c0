"""Benchmark ``skcalib evaluate`` on large score files against the metrics alone.

Measured in one run, each in a fresh subprocess (wall time, median of
``--repeats``; peak resident memory from ``os.wait4``'s ``ru_maxrss``):

- ``skcalib -q evaluate FILE --json`` on a two-column ``score label`` file of
  ``n`` trials: reading, validating and the five metrics, end to end;
- the metric computation alone: the same five metrics on the same scores and
  labels loaded from ``.npy`` files (the reference: the target is evaluate
  within 10x of it, and evaluate's peak memory under 100 bytes per trial);
- ``np.loadtxt(FILE, usecols=0)``, NumPy's compiled text parser on the score
  column, and ``np.argsort`` of the scores, as yardsticks of parsing and
  sorting speed;
- ``python -c "import skcalib.metrics"``: the interpreter's own footprint,
  included in every peak above;
- a BOSARIS ``model segment score`` file with its key file (``n_trials``
  trials, shuffled key): evaluate end to end.

Data: target scores N(2, 1), non-target N(0, 1), 10% targets, written with
``repr`` (17 significant digits); ``--rounded`` writes scores rounded to 2
decimals (many ties, short lines).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from _meta import git_commit, run_script, utc_now, write_json

_METRICS = """
import sys, time
import numpy as np
from skcalib.metrics import actual_dcf, cllr, eer, min_cllr, min_dcf
s = np.load(sys.argv[1]); y = np.load(sys.argv[2])
t = time.perf_counter()
with np.errstate(all="ignore"):
    eer(y, s); min_dcf(y, s, p_target=0.5); actual_dcf(y, s, p_target=0.5)
    cllr(y, s); min_cllr(y, s)
print(time.perf_counter() - t)
"""

_LOADTXT = """
import sys, time
import numpy as np
t = time.perf_counter()
np.loadtxt(sys.argv[1], usecols=0)
print(time.perf_counter() - t)
"""

_ARGSORT = """
import sys, time
import numpy as np
s = np.load(sys.argv[1])
t = time.perf_counter()
np.argsort(s)
print(time.perf_counter() - t)
"""


def _run(argv) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in bytes, stdout) of one subprocess.

    The peak is measured by ``/usr/bin/time``: a child forked or spawned from
    this (larger) process would report this process's peak as its own.
    """
    env = dict(os.environ, MPLBACKEND="Agg")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        start = time.perf_counter()
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv],
            stdout=subprocess.PIPE,
            env=env,
        )
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} failed with status {proc.returncode}")
        peak_kib = float(rss.read().split()[-1])
    return wall, peak_kib * 1024.0, proc.stdout.decode()


def _median(argv, repeats: int, inner: bool = False):
    """Median wall (or the time printed by the process) and the largest peak."""
    times, peaks = [], []
    for _ in range(repeats):
        wall, peak, out = _run(argv)
        times.append(float(out.split()[-1]) if inner else wall)
        peaks.append(peak)
    return float(np.median(times)), max(peaks)


def _write_two_column(path, s, y, rounded: bool) -> None:
    labels = np.where(y, "1", "0")
    with open(path, "w") as f:
        step = 1_000_000
        for i in range(0, s.shape[0], step):
            values = (
                [f"{v:.2f}" for v in s[i : i + step].tolist()]
                if rounded
                else [repr(v) for v in s[i : i + step].tolist()]
            )
            f.write(
                "".join(
                    f"{v} {lab}\n"
                    for v, lab in zip(values, labels[i : i + step], strict=True)
                )
            )


def _write_bosaris(folder, s, y, rng):
    n = s.shape[0]
    models = [f"spk{i % 1000:04d}" for i in range(n)]
    segs = [f"seg{i // 1000:07d}" for i in range(n)]
    scores = os.path.join(folder, "trials.txt")
    key = os.path.join(folder, "key.txt")
    with open(scores, "w") as f:
        f.writelines(
            f"{m} {g} {v!r}\n" for m, g, v in zip(models, segs, s.tolist(), strict=True)
        )
    with open(key, "w") as f:
        f.writelines(
            f"{models[i]} {segs[i]} {'target' if y[i] else 'nontarget'}\n"
            for i in rng.permutation(n).tolist()
        )
    return scores, key


def _data(n, rng):
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + 2.0 * y
    return s, y


def run(n: int, n_trials: int, repeats: int, rounded: bool, folder: str) -> dict:
    py = sys.executable
    rng = np.random.default_rng(0)
    s, y = _data(n, rng)
    path = os.path.join(folder, "scores.txt")
    _write_two_column(path, s, y, rounded)
    s_path, y_path = os.path.join(folder, "s.npy"), os.path.join(folder, "y.npy")
    np.save(s_path, np.loadtxt(path, usecols=0) if rounded else s)
    np.save(y_path, y)
    del s, y
    size = os.path.getsize(path)

    base_t, base_mem = _median([py, "-c", "import skcalib.metrics"], 1)
    ev_t, ev_mem = _median(
        [py, "-m", "skcalib", "-q", "evaluate", path, "--json"], repeats
    )
    met_t, met_mem = _median([py, "-c", _METRICS, s_path, y_path], repeats, inner=True)
    met_wall, _ = _median([py, "-c", _METRICS, s_path, y_path], 1)
    lt_t, lt_mem = _median([py, "-c", _LOADTXT, path], 1, inner=True)
    sort_t, _ = _median([py, "-c", _ARGSORT, s_path], repeats, inner=True)

    s2, y2 = _data(n_trials, rng)
    trials, key = _write_bosaris(folder, s2, y2, rng)
    del s2, y2
    bo_t, bo_mem = _median(
        [py, "-m", "skcalib", "-q", "evaluate", trials, "--key", key, "--json"], 1
    )
    return {
        "n": n,
        "file_bytes": size,
        "rounded": rounded,
        "evaluate_s": ev_t,
        "evaluate_peak_bytes": ev_mem,
        "evaluate_bytes_per_trial": ev_mem / n,
        "evaluate_net_bytes_per_trial": (ev_mem - base_mem) / n,
        "metrics_s": met_t,
        "metrics_process_s": met_wall,
        "metrics_peak_bytes": met_mem,
        "evaluate_over_metrics": ev_t / met_t,
        "loadtxt_s": lt_t,
        "loadtxt_peak_bytes": lt_mem,
        "argsort_s": sort_t,
        "evaluate_over_argsort": ev_t / sort_t,
        "interpreter_peak_bytes": base_mem,
        "bosaris_n": n_trials,
        "bosaris_evaluate_s": bo_t,
        "bosaris_peak_bytes": bo_mem,
        "bosaris_bytes_per_trial": bo_mem / n_trials,
    }


def _commit() -> str:
    return git_commit(short=True) or "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n",
        type=float,
        default=1e7,
        help="trials of the two-column file (default 1e7)",
    )
    parser.add_argument(
        "--n-trials",
        type=float,
        default=1e6,
        help="trials of the BOSARIS trial and key files (default 1e6)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs, median (default 3)"
    )
    parser.add_argument(
        "--rounded",
        action="store_true",
        help="scores rounded to 2 decimals (default: full precision)",
    )
    parser.add_argument(
        "--dir",
        default=None,
        help="folder for the data files (default: a temporary folder, removed "
        "afterwards)",
    )
    parser.add_argument(
        "--json", help="write the results to this JSON file (default: not written)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skcalib-bench-cli-") as tmp:
        folder = args.dir or tmp
        r = run(int(args.n), int(args.n_trials), args.repeats, args.rounded, folder)
    load = os.getloadavg()[0]
    mib = 2.0**20
    print(f"n={r['n']:.0e} ({r['file_bytes'] / mib:.0f} MiB), load {load:.2f}")
    print(f"{'operation':<40} {'seconds':>9} {'peak MiB':>9} {'B/trial':>8}")
    rows = [
        ("skcalib evaluate (end to end)", r["evaluate_s"], r["evaluate_peak_bytes"]),
        ("metrics alone (in-memory arrays)", r["metrics_s"], r["metrics_peak_bytes"]),
        ("np.loadtxt(usecols=0)", r["loadtxt_s"], r["loadtxt_peak_bytes"]),
        ("np.argsort(scores)", r["argsort_s"], None),
        ("python -c 'import skcalib.metrics'", None, r["interpreter_peak_bytes"]),
        (
            f"evaluate BOSARIS + key (n={r['bosaris_n']:.0e})",
            r["bosaris_evaluate_s"],
            r["bosaris_peak_bytes"],
        ),
    ]
    for name, t, mem in rows:
        n_rows = r["bosaris_n"] if name.startswith("evaluate BOSARIS") else r["n"]
        cells = [
            f"{t:9.2f}" if t is not None else f"{'':>9}",
            f"{mem / mib:9.0f}" if mem is not None else f"{'':>9}",
            f"{mem / n_rows:8.1f}" if mem is not None else f"{'':>8}",
        ]
        print(f"{name:<40} {' '.join(cells)}")
    print(
        f"evaluate / metrics alone: {r['evaluate_over_metrics']:.2f}x (target <= 10); "
        f"evaluate / argsort: {r['evaluate_over_argsort']:.1f}x; evaluate peak "
        f"{r['evaluate_bytes_per_trial']:.1f} B/trial (target < 100; "
        f"{r['evaluate_net_bytes_per_trial']:.1f} net of the interpreter)"
    )
    if args.json:
        r.update(
            commit=_commit(),
            date=utc_now(),
            load=load,
        )
        write_json(args.json, r)
    return 0


if __name__ == "__main__":
    run_script(main)
