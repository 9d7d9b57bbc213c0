"""Every script in ``examples/`` runs headless and writes its figures.

Each example is run as a subprocess with the Agg backend and
``SKCALIB_EXAMPLES_OUT`` pointing to a temporary directory; it must exit 0,
write at least one PNG there and nothing into its working directory.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))


def test_examples_found():
    names = {p.name for p in EXAMPLES}
    assert {
        "plot_quick_start.py",
        "plot_bayes_error.py",
        "plot_rocch_pav.py",
        "plot_reliability_waveform.py",
    } <= names


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    out = tmp_path / "out"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        SKCALIB_EXAMPLES_OUT=str(out),
        # smaller test sets where an example offers them (CI time)
        SKCALIB_EXAMPLES_FAST="1",
    )
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    pngs = list(out.glob("*.png"))
    assert pngs, f"{script.name} wrote no PNG into $SKCALIB_EXAMPLES_OUT"
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list(cwd.iterdir()) == [], "examples must not write to the working dir"
