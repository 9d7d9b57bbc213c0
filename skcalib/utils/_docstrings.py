"""Docstrings that share their parameter blocks.

A docstring names a shared block by a line that holds only ``{key}``;
:func:`fill_doc` puts the block there, each of its lines indented as that
line. The rendered docstring is plain numpydoc: ``help``, Sphinx, numpydoc's
validation and the doctests read the filled text.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["doc_blocks", "fill_doc", "fill_docstring"]

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


def fill_doc(*block_dicts: dict[str, str]):
    """Decorator filling the function's docstring from ``block_dicts`` (later
    ones win); put it below ``validate_params``, which copies the docstring."""
    blocks = {key: text for d in block_dicts for key, text in d.items()}

    def decorate(func):
        func.__doc__ = fill_docstring(func.__doc__, blocks)
        return func

    return decorate
