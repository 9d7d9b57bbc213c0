"""The documentation site: API coverage, runnable guide pages, the build.

- every public name (each ``__all__``) has an entry in ``docs/api/index.rst``
  and a docstring with an Examples section;
- every ``>>>`` example of the user guide and the other hand-written pages
  runs and prints what the page says (doctest);
- the site builds with warnings as errors (slow: it executes the gallery).
"""

import doctest
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PUBLIC_MODULES = ["skcalib", "skcalib.metrics", "skcalib.datasets"]
PAGES = sorted(
    p
    for p in DOCS.rglob("*.rst")
    if not {"_build", "generated", "auto_examples", "_templates"} & set(p.parts)
)


def _public_names():
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            if not name.startswith("__"):
                yield modname, name, getattr(module, name)


PUBLIC = list(_public_names())


def _api_entries():
    """(module, name) of every autosummary entry of the API page."""
    entries, module = set(), None
    in_summary = False
    for line in (DOCS / "api" / "index.rst").read_text().splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
            continue
        if line.startswith(".. autosummary::"):
            in_summary = True
            continue
        if in_summary:
            if line.strip() and not line.startswith(" "):
                in_summary = False
            elif line.strip() and not line.strip().startswith(":"):
                entries.add((module, line.strip()))
    return entries


def test_pages_found():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"index.rst", "api/index.rst", "coming_from.rst"} <= names
    assert any(n.startswith("user_guide/") for n in names)


@pytest.mark.parametrize(
    "modname, name", [(m, n) for m, n, _ in PUBLIC], ids=[n for _, n, _ in PUBLIC]
)
def test_public_name_has_api_page(modname, name):
    assert (modname, name) in _api_entries(), (
        f"{modname}.{name} is public (in __all__) but has no entry in "
        "docs/api/index.rst"
    )


def test_api_page_lists_only_public_names():
    public = {(m, n) for m, n, _ in PUBLIC}
    assert _api_entries() <= public, _api_entries() - public


@pytest.mark.parametrize(
    "obj", [o for _, _, o in PUBLIC], ids=[n for _, n, _ in PUBLIC]
)
def test_public_docstring_has_examples(obj):
    doc = obj.__doc__ or ""
    assert re.search(r"^\s*Examples\n\s*--------", doc, re.M), obj
    assert ">>>" in doc.split("Examples", 1)[1]


@pytest.mark.parametrize(
    "page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES]
)
def test_page_examples_run(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # pages that write files write them here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} failing example(s) in {page.name}"


def test_no_reference_to_internal_documents():
    """The site cites papers, not the project's numbered source notes."""
    pattern = re.compile(r"SPEC ?§|\(00\d\)|\b00\d §|seed 00\d")
    for page in PAGES:
        for i, line in enumerate(page.read_text().splitlines(), 1):
            assert not pattern.search(line), f"{page.name}:{i}: {line}"


def test_product_cites_no_internal_documents():
    """Code, docstrings, README and examples cite papers, not internal notes."""
    pattern = re.compile(r"SPEC ?§|\(00\d\)|\b00\d §|seed 00\d")
    files = [ROOT / "README.md", *sorted((ROOT / "examples").glob("*.py"))]
    files += sorted((ROOT / "skcalib").rglob("*.py"))
    for path in files:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not pattern.search(line), f"{path.relative_to(ROOT)}:{i}: {line}"


@pytest.mark.slow
def test_site_builds_without_warnings(tmp_path):
    """The README's build command, on a copy of docs/ and examples/.

    The build executes every gallery example (sphinx-gallery), so this test
    also runs the examples; tests/test_examples.py only checks them as
    plain scripts statically and runs one of them.
    """
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns(
        "_build", "generated", "auto_examples", "sg_execution_times.rst"
    ))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    out = tmp_path / "html"
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        SKCALIB_EXAMPLES_OUT=str(tmp_path / "figures"),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(tmp_path / "docs"), str(out)],
        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-5000:]
    index = re.sub(r"<[^>]+>", "", (out / "index.html").read_text())
    assert "pip install" in index and "images/bayes_error.png" in (
        out / "index.html"
    ).read_text()
    assert 'href="user_guide/index.html"' in (out / "index.html").read_text()
    examples = sorted(p.stem for p in (ROOT / "examples").glob("plot_*.py"))
    for name in examples:
        page = out / "auto_examples" / f"{name}.html"
        assert page.exists(), name
        assert "sphx-glr-single-img" in page.read_text() or (
            "sphx-glr-multi-img" in page.read_text()
        ), f"{name}: no figure on its gallery page"
    for modname, name, _ in PUBLIC:
        assert (out / "api" / "generated" / f"{modname}.{name}.html").exists(), name
