"""The docstring-block helper and the docstrings it fills."""

import inspect
import re

import pytest

import skcalib
import skcalib.datasets
import skcalib.metrics
from skcalib.utils._docstrings import doc_blocks, fill_doc, fill_docstring

_LEFT_OVER = re.compile(r"^ *\{\w+\}$", re.MULTILINE)


def test_unknown_block_raises():
    with pytest.raises(KeyError, match="nope"):
        fill_docstring("Summary.\n\n    {nope}\n", {})


def test_block_takes_the_placeholder_indent():
    blocks = doc_blocks(
        x="""
            x : int
                The x.

                Second paragraph.
            """
    )

    @fill_doc(blocks)
    def f(x):
        """Summary.

        Parameters
        ----------
        {x}
        """

    assert f.__doc__ == (
        "Summary.\n\n        Parameters\n        ----------\n"
        "        x : int\n            The x.\n\n            Second paragraph.\n"
        "        "
    )
    # braces inside a line (math, sets) are text, not placeholders
    assert (
        fill_docstring("a {0, 1} b\n    {\\min}\n", {}) == "a {0, 1} b\n    {\\min}\n"
    )
    assert fill_docstring(None, blocks) is None


def test_a_class_and_the_members_it_defines_are_filled():
    import functools

    from sklearn.utils.metaestimators import available_if

    blocks = doc_blocks(x="x : int")

    def wrapped(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        return wrapper

    @fill_doc(blocks)
    class A:
        """A.

        {x}
        """

        @wrapped
        def method(self):
            """M.

            {x}
            """

        @classmethod
        def build(cls):
            """B.

            {x}
            """

        @property
        def value(self):
            """V.

            {x}
            """

        @available_if(lambda self: True)
        def maybe(self):
            """P.

            {x}
            """

        no_doc = None

    for doc in (
        A.__doc__,
        A.method.__doc__,
        A.method.__wrapped__.__doc__,
        A.build.__doc__,
        vars(A)["build"].__doc__,
        A.value.__doc__,
        A.maybe.__doc__,
        A().maybe.__doc__,
    ):
        assert "x : int" in doc and not _LEFT_OVER.search(doc)


def _documented():
    for module in (skcalib, skcalib.metrics, skcalib.datasets):
        for name in module.__all__:
            obj = getattr(module, name)
            yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    func = getattr(member, "__func__", member)
                    if callable(func) and not attr.startswith("__"):
                        yield f"{module.__name__}.{name}.{attr}", func


@pytest.mark.parametrize("name, obj", list(_documented()))
def test_no_placeholder_left(name, obj):
    assert not _LEFT_OVER.search(obj.__doc__ or ""), name
