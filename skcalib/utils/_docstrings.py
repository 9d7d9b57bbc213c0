"""Docstrings that share their parameter blocks.

A docstring names a shared block by a line that holds only ``{key}``;
:func:`fill_doc` puts the block there, each of its lines indented as that
line. The rendered docstring is plain numpydoc: ``help``, Sphinx, numpydoc's
validation and the doctests read the filled text.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["REFERENCES", "doc_blocks", "fill_doc", "fill_docstring", "fill_members"]

_PLACEHOLDER = re.compile(r"^( *)\{(\w+)\}$", re.MULTILINE)


def doc_blocks(**blocks: str) -> dict[str, str]:
    """The blocks as :func:`fill_docstring` takes them: dedented, no outer
    blank lines (write each as an indented triple-quoted string)."""
    return {key: textwrap.dedent(text).strip("\n") for key, text in blocks.items()}


def fill_docstring(doc: str | None, blocks: dict[str, str]) -> str | None:
    """``doc`` with each ``{key}`` line replaced by ``blocks[key]``.

    A key missing from ``blocks`` raises ``KeyError`` (at import time, where
    the docstrings are filled): a typo never reaches the rendered text.
    """
    if doc is None:
        return None

    def block(match):
        indent, key = match.groups()
        return textwrap.indent(blocks[key], indent)

    return _PLACEHOLDER.sub(block, doc)


def _docstring_holders(member):
    """The objects whose ``__doc__`` a class member shows: the member, the
    function of a classmethod, property or method descriptor (scikit-learn's
    ``available_if``), and the functions a decorator wrapped."""
    for inner in (
        member,
        getattr(member, "__func__", None),
        getattr(member, "fget", None),
        getattr(member, "fn", None),
    ):
        while inner is not None:
            yield inner
            inner = getattr(inner, "__wrapped__", None)


def fill_members(cls: type, blocks: dict[str, str]) -> type:
    """Fill the docstring of ``cls`` and of every member it defines."""
    cls.__doc__ = fill_docstring(cls.__doc__, blocks)
    for member in vars(cls).values():
        if not callable(member) and not hasattr(member, "__get__"):
            continue
        for holder in _docstring_holders(member):
            doc = getattr(holder, "__doc__", None)
            if isinstance(doc, str) and _PLACEHOLDER.search(doc):
                holder.__doc__ = fill_docstring(doc, blocks)
    return cls


def fill_doc(*block_dicts: dict[str, str]):
    """Decorator filling the docstring from ``block_dicts`` (later ones win).

    On a function, put it below ``validate_params``, which copies the
    docstring. On a class it fills the class's docstring and those of the
    methods, properties and descriptors the class defines, whatever
    decorators wrap them (:func:`fill_members`).
    """
    blocks = {key: text for d in block_dicts for key, text in d.items()}

    def decorate(obj):
        if isinstance(obj, type):
            return fill_members(obj, blocks)
        obj.__doc__ = fill_docstring(obj.__doc__, blocks)
        return obj

    return decorate


#: References sections that several docstrings give alike.
REFERENCES = doc_blocks(
    brummer_doddington_references="""
        References
        ----------
        .. [1] N. Brümmer and G. Doddington, "Likelihood-ratio calibration using
           prior-weighted proper scoring rules", Interspeech 2013.
        """,
    fawcett_references="""
        References
        ----------
        .. [1] T. Fawcett and A. Niculescu-Mizil, "PAV and the ROC convex hull",
           Machine Learning 68, 2007.
        """,
    brummer_du_preez_references="""
        References
        ----------
        .. [1] N. Brümmer and J. du Preez, "Application-independent evaluation of
           speaker detection", Computer Speech and Language 20, 2006.
        """,
    pav_references="""
        References
        ----------
        .. [1] N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary
           proper scoring rules".
        """,
)
