"""Sphinx configuration of the skcalib documentation.

Build with ``python -m sphinx -W --keep-going -b html docs docs/_build/html``
from the repository root. Nothing is fetched from the network at build time
(no intersphinx inventories); the gallery executes ``examples/*.py``.
"""

import os
import re
import sys
from pathlib import Path

import skcalib

HERE = Path(__file__).resolve().parent
os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, str(HERE / "sphinxext"))  # the site's own extensions

project = "skcalib"
author = "skcalib developers"
copyright = "skcalib developers"
release = skcalib.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "mathtext_svg",
    "argparse_reference",
]

# Formulas are SVG files rendered at build time (docs/sphinxext/mathtext_svg.py),
# not MathJax from a CDN: the site reads the same without a network.
html_math_renderer = "mathtext"

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "**/sg_execution_times.rst"]
root_doc = "index"
default_role = "literal"
nitpicky = False

# autosummary + numpydoc: one page per public object, methods listed on the
# class page by autodoc (numpydoc's own member tables would need stub pages).
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "plot_gallery": "True",
    "remove_config_comments": True,
    "within_subsection_order": "gallery_order.example_order",
    "write_computation_times": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "doc_module": ("skcalib",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"skcalib": None},
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"skcalib {release}"
html_static_path = ["_static"]
html_css_files = ["skcalib.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "install": []}
html_show_sourcelink = False
# "On this page" of a class lists ``fit()``, not ``PAVCalibrator.fit()``: the
# side bar is narrow, and the class is the page's title.
toc_object_entries_show_parents = "hide"


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Document skcalib's own methods; leave scikit-learn's inherited API
    (get_params, set_output, metadata requests, ...) to scikit-learn's docs."""
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("sklearn."):
        return True
    return None


# "N. Brümmer and ..." opening a citation or a list item reads to reST as an
# enumerated list lettered from N (an upper-alpha list starting at 14).
_INITIAL = re.compile(r"^(\s*(?:\.\. \[[^\]]+\]|-)\s+[A-Z])\. ")


def _escape_initials(app, what, name, obj, options, lines):
    """Keep an author's initial at the start of a reference a plain letter."""
    lines[:] = [_INITIAL.sub(r"\1\\. ", line) for line in lines]


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
    app.connect("autodoc-process-docstring", _escape_initials)
