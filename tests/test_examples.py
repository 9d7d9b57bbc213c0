"""The scripts in ``examples/``: gallery-ready, public API only, headless.

Every example is executed by the documentation build (sphinx-gallery; see
``tests/test_docs.py::test_site_builds_without_warnings``), so here each one
is only checked statically, and one is run as a plain script to check the
plain-script contract: headless, figures into ``$SKCALIB_EXAMPLES_OUT`` or,
when it is unset, into ``<tempdir>/skcalib-examples``, nothing written into
the working directory.
"""

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("plot_*.py"))
PUBLIC_MODULES = {"skcalib", "skcalib.metrics", "skcalib.datasets"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_examples_found():
    names = {p.name for p in EXAMPLES}
    assert {
        "plot_quick_start.py",
        "plot_bayes_error.py",
        "plot_rocch_pav.py",
        "plot_reliability_waveform.py",
    } <= names
    assert set(EXAMPLES_DIR.glob("*.py")) == set(EXAMPLES), "gallery runs plot_*.py"


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_imports_only_public_names(script):
    tree = ast.parse(script.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "skcalib"
        ):
            assert node.module in PUBLIC_MODULES, f"private module {node.module}"
            public = set(importlib.import_module(node.module).__all__)
            for alias in node.names:
                assert alias.name in public, f"{node.module}.{alias.name} is private"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("skcalib"):
                    assert alias.name in PUBLIC_MODULES, alias.name


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_is_a_gallery_script(script):
    """A docstring with an rst title, text cells, one output folder."""
    source = script.read_text()
    doc = ast.get_docstring(ast.parse(source), clean=False) or ""
    lines = list(doc.strip("\n").splitlines())
    title_at = 1 if set(lines[0]) == {"="} else 0
    assert set(lines[title_at + 1]) == {"="}, "docstring must start with a title"
    assert len(lines[title_at + 1]) >= len(lines[title_at])
    assert "# %%" in source, "explanatory text cells between code cells"
    assert 'os.environ.get("SKCALIB_EXAMPLES_OUT")' in source
    assert 'Path(tempfile.gettempdir()) / "skcalib-examples"' in source
    assert "sys.argv" not in source and "matplotlib.use(" not in source


@pytest.mark.slow
@pytest.mark.parametrize("out_set", [True, False], ids=["out-set", "default-out"])
def test_example_runs_as_plain_script(out_set, tmp_path):
    script = EXAMPLES_DIR / "plot_rocch_pav.py"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "SKCALIB_EXAMPLES_OUT"}
    env.pop("DISPLAY", None)
    env.pop("MPLBACKEND", None)  # headless without being told
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    if out_set:
        out = tmp_path / "out"
        env["SKCALIB_EXAMPLES_OUT"] = str(out)
    else:
        out = tmp_path / "tmp" / "skcalib-examples"
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
    assert pngs, f"{script.name} wrote no PNG into {out}"
    for png in pngs:
        assert png.read_bytes()[:8] == PNG_MAGIC
    assert list(cwd.iterdir()) == [], "examples must not write to the working dir"
