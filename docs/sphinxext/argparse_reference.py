"""``.. argparse-reference:: module:function``: a command line's reference.

The directive calls ``function()`` (which must return an
``argparse.ArgumentParser``) when the site is built and writes, for the
parser and each of its subcommands, the usage line, the description and one
``.. option::`` entry per argument with its help text, grouped as
``--help`` groups them. The page therefore lists exactly the options the
installed command accepts: it cannot drift from the parser.

Reading the subcommands and the argument groups uses argparse attributes
without a public accessor (``_actions``, ``_action_groups``,
``_group_actions``); they have been stable since Python 3.2 and are what
``--help`` itself reads.
"""

from __future__ import annotations

import argparse
import importlib
import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

_WIDTH = 70  # usage lines wrapped to fit the width of a code block


def load_parser(spec: str) -> argparse.ArgumentParser:
    """``'package.module:function'`` -> the parser that function builds."""
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)()


def subcommands(parser: argparse.ArgumentParser) -> dict:
    """``{name: subparser}`` in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


_FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def _escape(text: str) -> str:
    """Plain text as reST text (no markup, no references); option names
    such as ``--json`` become literals (else "--" would print as a dash)."""
    parts = _FLAG.split(text)
    return "".join(
        f"``{part}``" if i % 2 else re.sub(r"([\\*`|_])", r"\\\1", part)
        for i, part in enumerate(parts)
    )


def _metavar(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        m = action.metavar if isinstance(action.metavar, str) else action.metavar[0]
    elif action.choices is not None:
        m = "{" + ",".join(map(str, action.choices)) + "}"
    elif action.option_strings:
        m = action.dest.upper()
    else:
        m = action.dest
    if action.nargs == "+":
        return f"{m} [{m} ...]"
    if action.nargs == "*":
        return f"[{m} ...]"
    if action.nargs == "?":
        return f"[{m}]"
    if isinstance(action.nargs, int):
        return " ".join([m] * action.nargs)
    return m


def invocation(action: argparse.Action) -> str:
    """How the argument is written: ``-o OUT, --out OUT`` or ``SCORES``."""
    metavar = _metavar(action)
    if not action.option_strings:
        return metavar
    return ", ".join(f"{o} {metavar}".strip() for o in action.option_strings)


def help_text(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    params = dict(vars(action), prog=prog)
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return text % params if "%" in text else text


def documented_actions(parser: argparse.ArgumentParser):
    """``(group title, [actions])`` as ``--help`` lists them, minus ``-h``."""
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help is not argparse.SUPPRESS
            and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]
        if actions:
            yield group.title, actions


def _usage(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=_WIDTH)
    return parser.format_usage().strip()


def _describe(parser, program: str, lines: list[str]) -> None:
    lines += ["", ".. code-block:: text", ""]
    lines += ["   " + ln for ln in _usage(parser).splitlines()]
    for text in (parser.description, parser.epilog):
        if text:
            lines += ["", _escape(text)]
    lines += ["", f".. program:: {program}"]
    for title, actions in documented_actions(parser):
        lines += ["", f"**{_escape(title[:1].upper() + title[1:])}**"]
        for action in actions:
            lines += ["", f".. option:: {invocation(action)}", ""]
            help_ = _escape(help_text(action, parser.prog)) or "(no help text)"
            lines += ["   " + help_]


def reference_lines(parser: argparse.ArgumentParser) -> list[str]:
    """The reST of the whole reference: the main parser, then each command."""
    lines: list[str] = []
    _describe(parser, parser.prog, lines)
    for name, sub in subcommands(parser).items():
        title = f"``{parser.prog} {name}``"
        lines += ["", title, "-" * len(title)]
        _describe(sub, sub.prog, lines)
    return lines


class ArgparseReference(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self):
        try:
            parser = load_parser(self.arguments[0])
        except Exception as exc:  # noqa: BLE001 - reported as a build warning
            msg = f"cannot build the parser {self.arguments[0]}: {exc}"
            raise self.error(msg) from exc
        node = nodes.section()
        node.document = self.state.document
        content = StringList(reference_lines(parser), source=self.get_source_info()[0])
        nested_parse_with_titles(self.state, content, node)
        return node.children


def setup(app):
    app.add_directive("argparse-reference", ArgparseReference)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
