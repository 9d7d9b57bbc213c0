"""The documentation site: API coverage, runnable guide pages, the build.

- every public name (each ``__all__``) has an entry in ``docs/api/index.rst``
  and a docstring with an Examples section;
- every ``>>>`` example of the user guide and the other hand-written pages
  runs and prints what the page says (doctest);
- the site builds with warnings as errors (slow: it executes the gallery).
"""

import doctest
import importlib
import importlib.util
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


def test_readme_figures_come_from_a_script():
    """Every figure the README shows is drawn by docs/images/make_figures.py
    (so it can be regenerated, not left stale), and the README says so."""
    spec = importlib.util.spec_from_file_location(
        "make_figures", DOCS / "images" / "make_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pngs = set(re.findall(r"docs/images/([\w-]+\.png)", readme))
    assert pngs and pngs <= set(module.FIGURES)
    assert "docs/images/make_figures.py" in (ROOT / "README.md").read_text()


def test_readme_states_each_speed_up_once():
    """The PAV fit speed-up is stated in the Speed table only (it was 5x in
    one place and 15x in another)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    claims = re.findall(r"(\d+(?:\.\d+)?)x faster[^|\n]*IsotonicRegression", readme)
    claims += re.findall(r"PAVCalibrator`[^|\n]*?(\d+(?:\.\d+)?)x faster", readme)
    assert len(claims) == 1, claims


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The README's build command, on a copy of docs/ and examples/.

    The build executes every gallery example (sphinx-gallery), so the tests
    that use this fixture also run the examples; tests/test_examples.py only
    checks them as plain scripts statically and runs one of them. Returns
    the output folder, or fails every test that uses it when the build
    fails.
    """
    tmp_path = tmp_path_factory.mktemp("site")
    shutil.copytree(
        DOCS,
        tmp_path / "docs",
        ignore=shutil.ignore_patterns(
            "_build", "generated", "auto_examples", "sg_execution_times.rst"
        ),
    )
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    out = tmp_path / "html"
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        SKCALIB_EXAMPLES_OUT=str(tmp_path / "figures"),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(tmp_path / "doctrees"),
            str(tmp_path / "docs"),
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    if proc.returncode != 0:
        pytest.fail((proc.stdout + proc.stderr)[-5000:])
    return out


def _html_pages(site):
    return sorted(site.rglob("*.html"))


@pytest.mark.slow
def test_site_builds_without_warnings(site):
    out = site
    index = re.sub(r"<[^>]+>", "", (out / "index.html").read_text())
    assert (
        "pip install" in index
        and "images/bayes_error.png" in (out / "index.html").read_text()
    )
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


def _public_methods(cls):
    """Public methods of a class that skcalib defines (on the class or a
    skcalib base), not those inherited from scikit-learn."""
    names = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("skcalib"):
            continue
        names |= {
            n
            for n in vars(klass)
            if not n.startswith("_")
            and not re.fullmatch(r"set_\w+_request", n)  # scikit-learn's
            and callable(getattr(cls, n, None))  # methods, available_if too
        }
    return sorted(names)


@pytest.mark.slow
@pytest.mark.parametrize(
    "modname, name, cls",
    [(m, n, o) for m, n, o in PUBLIC if isinstance(o, type)],
    ids=[n for _, n, o in PUBLIC if isinstance(o, type)],
)
def test_class_page_documents_its_methods(site, modname, name, cls):
    """Each class page documents the public methods the class defines
    (``fit``, ``predict_proba``, ``from_predictions``, ...)."""
    page = (site / "api" / "generated" / f"{modname}.{name}.html").read_text()
    methods = _public_methods(cls)
    assert methods, f"{name} defines no public method?"
    for method in methods:
        assert f'id="{modname}.{name}.{method}"' in page, (
            f"{name}.{method} is not documented on its API page"
        )


@pytest.mark.slow
def test_function_and_class_pages_link_their_gallery_examples(site):
    for page, example in [
        ("skcalib.PAVLLRCalibrator", "plot_quick_start"),
        ("skcalib.metrics.DETDisplay", "plot_confidence_intervals"),
        ("skcalib.metrics.cllr", "plot_quick_start"),
    ]:
        html = (site / "api" / "generated" / f"{page}.html").read_text()
        assert "Gallery examples using" in html, page
        assert f"auto_examples/{example}.html" in html, (page, example)


_REMOTE = re.compile(
    r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*["']"""
    r"""(?:https?:)?//""",
    re.I,
)
_REMOTE_CSS = re.compile(r"""(?:@import|url\()\s*["']?(?:https?:)?//""", re.I)


@pytest.mark.slow
def test_no_page_loads_anything_from_the_network(site):
    """Scripts, stylesheets, fonts and images all come from the built site
    (links a reader clicks may point anywhere)."""
    offenders = []
    for page in _html_pages(site):
        for m in _REMOTE.finditer(page.read_text(encoding="utf-8")):
            offenders.append(f"{page.relative_to(site)}: {m.group(0)}")
    for css in sorted(site.rglob("*.css")):
        for m in _REMOTE_CSS.finditer(css.read_text(encoding="utf-8")):
            offenders.append(f"{css.relative_to(site)}: {m.group(0)}")
    assert not offenders, "\n".join(offenders[:20])


@pytest.mark.slow
def test_math_is_rendered_at_build_time(site):
    """Formulas are images of the site, not LaTeX left to a script."""
    pages_with_math = 0
    for page in _html_pages(site):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]*mathjax", html, re.I), page
        srcs = re.findall(r'<img class="math(?:-line)?" src="([^"]+)"', html)
        if srcs:
            pages_with_math += 1
        for src in srcs:
            svg = (page.parent / src).resolve()
            assert svg.is_file(), (page, src)
            assert "<svg" in svg.read_text()[:500], svg
        assert '<span class="math">' not in html, f"unrendered formula in {page}"
    assert pages_with_math >= 30  # the guide, the metrics' Notes, the gallery


@pytest.mark.slow
def test_command_line_reference_follows_the_parser(site):
    """Every command and option of the live parser is on the page."""
    from skcalib._cli import build_parser

    sys.path.insert(0, str(DOCS / "sphinxext"))
    try:
        from argparse_reference import documented_actions, subcommands
    finally:
        sys.path.remove(str(DOCS / "sphinxext"))
    html = (site / "user_guide" / "command_line.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    commands = subcommands(build_parser())
    assert {"evaluate", "calibrate", "fuse", "demo"} <= set(commands)
    for name, sub in commands.items():
        assert f"skcalib {name}" in text, name
        for _, actions in documented_actions(sub):
            for action in actions:
                for flag in action.option_strings or [action.metavar or action.dest]:
                    assert flag in text, f"skcalib {name} {flag} missing"
    for flag in ["--ci", "--groups", "--n-resamples", "--seed", "--det", "--tippett"]:
        assert flag in text


@pytest.mark.slow
def test_gallery_pages_are_clean(site):
    """Quick start comes first; no build-machine paths, no test lines."""
    index = (site / "auto_examples" / "index.html").read_text(encoding="utf-8")
    order = re.findall(r'href="(plot_\w+)\.html"', index)
    assert order and order[0] == "plot_quick_start", order
    for page in sorted((site / "auto_examples").glob("plot_*.html")):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        assert str(site.parent) not in text, f"{page.name} prints a build path"
        assert not re.search(r"^\s*assert ", text, re.M), f"{page.name} shows assert"


@pytest.mark.slow
def test_references_are_not_lettered_lists(site):
    """ "- S. Cumani, ..." or ".. [1] N. Brümmer ..." read to reST as a list
    lettered from S or N; the site has no lettered or roman-numbered list."""
    for page in _html_pages(site):
        html = page.read_text(encoding="utf-8")
        found = re.search(r'<ol class="(?:upper|lower)(?:alpha|roman)[^>]*>', html)
        assert not found, f"{page.relative_to(site)}: {found.group(0)}"


def test_readme_api_table_names_real_parameters():
    """Each ``Name(param=...)`` of README's API table is a skcalib object whose
    signature has those parameters (a renamed parameter left the table
    behind once: ``AutoCalibrator(cv=5)`` for ``n_folds``)."""
    import inspect

    import skcalib
    import skcalib.metrics

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)\(([^`]*)\)`", text, flags=re.MULTILINE)
    assert len(rows) >= 10
    for name, args in rows:
        obj = getattr(skcalib, name, None) or getattr(skcalib.metrics, name)
        params = inspect.signature(obj).parameters
        for param in re.findall(r"(\w+)=", args):
            assert param in params, f"README: {name} has no parameter {param!r}"


#: Words of a development log, not of user documentation: "issue 18",
#: "previous code", "the panel of round 3", "as before".
_DEV_LOG = re.compile(
    r"\bissue \d|\bprevious code\b|\bround \d|\bsession\b|\bused to be\b"
    r"|\bas before\b|\(before\)",
    re.I,
)


def test_guide_and_readme_read_as_documentation():
    """The site and the README say what the package does, not its history."""
    for path in [*PAGES, ROOT / "README.md"]:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not _DEV_LOG.search(line), f"{path.relative_to(ROOT)}:{i}: {line}"


def test_home_page_and_readme_list_every_calibrator():
    """Every public calibrator is named on the home page and in the README's
    opening list (the home page once listed four of nine)."""
    import skcalib

    not_calibrators = {"BaseCalibrator", "CalibratedClassifier", "ScoreTransformer"}
    calibrators = [
        name
        for name in skcalib.__all__
        if isinstance(getattr(skcalib, name), type) and name not in not_calibrators
    ]
    assert len(calibrators) >= 9
    home = (DOCS / "index.rst").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    opening = readme.split("## ", 1)[0]
    for name in calibrators:
        assert f"skcalib.{name}`" in home, f"docs/index.rst does not list {name}"
        assert f"`{name}`" in opening, f"README.md's opening does not list {name}"


def test_what_a_calibrator_sees_is_stated_once():
    """What a calibrator gets from ``predict_proba`` is described on one page
    (the user guide's *The score a calibrator sees*); the other pages and the
    docstrings link to it instead of repeating it (three versions disagreed
    once)."""
    import skcalib

    guide = (DOCS / "user_guide" / "classifier.rst").read_text(encoding="utf-8")
    assert ".. _proba_inputs:" in guide
    for page in [
        "coming_from.rst",
        "user_guide/multiclass.rst",
        "user_guide/affine.rst",
    ]:
        assert ":ref:`proba_inputs`" in (DOCS / page).read_text(encoding="utf-8")
    for obj in (skcalib.CalibratedClassifier, skcalib.PlattCalibrator):
        assert "<proba_inputs>`" in obj.__doc__, obj  # a link to the page
    # the one statement names every calibrator class that declares its input
    for name in ("PAVCalibrator", "PAVLLRCalibrator", "PlattCalibrator"):
        assert f":class:`{name}`" in guide.split(".. _proba_inputs:")[1][:3000]


@pytest.mark.slow
def test_display_formulas_fit_the_text_column(site):
    """No display formula is wider than the narrowest text column it sits in
    (an API page's Notes, about 40em at a 1920-pixel screen); longer ones are
    broken into lines with ``\\\\``."""
    too_wide = []
    for page in _html_pages(site):
        html = page.read_text(encoding="utf-8")
        for m in re.finditer(r'<img class="math-line"[^>]*>', html):
            width = float(re.search(r"width:([0-9.]+)em", m.group(0)).group(1))
            if width > 40:
                alt = re.search(r'alt="([^"]*)"', m.group(0)).group(1)[:60]
                too_wide.append(f"{page.relative_to(site)}: {width}em {alt}")
    assert not too_wide, "\n".join(too_wide)


def test_wide_tables_fit_a_wide_screen():
    """The quality tables (17 columns) show every column at 1920 pixels: the
    site's stylesheet compacts tables of ten columns or more and widens
    their text column on wide screens, instead of a scroll bar that hid
    skcalib's columns."""
    css = (DOCS / "_static" / "skcalib.css").read_text(encoding="utf-8")
    assert "table:has(tr > :nth-child(10))" in css
    assert ".bd-article-container:has(table tr > :nth-child(10))" in css
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "skcalib.css" in conf
