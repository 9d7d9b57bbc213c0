"""Offline math for the HTML site: formulas rendered to SVG at build time.

Sphinx's default HTML math renderer loads MathJax from a CDN, so a site read
without a network shows raw LaTeX. This extension renders every ``:math:``
role and ``.. math::`` block with matplotlib's mathtext (matplotlib is
already needed for the gallery) into an SVG file under ``_images/math/``,
with the glyphs as paths: nothing is fetched when a page is read, and no
LaTeX installation is needed to build it.

mathtext covers a large subset of TeX math; a formula it cannot parse is a
build warning naming the formula (an error under ``-W``), so a docstring
cannot silently publish raw LaTeX. A few common macros outside that subset
are mapped to equivalents (``\\lVert`` -> ``\\Vert``, ``\\ge`` ->
``\\geq``, ...). In a display block, ``\\\\`` separates lines (each is
rendered on its own line, ``&`` alignment marks are dropped) and a blank line
separates equations.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

#: Size of the rendered glyphs in points; images are sized in ``em`` so that
#: a formula follows the size of the text around it (the theme's 1em = 12pt).
FONT_SIZE = 12.0
#: Display formulas are a little larger than the text, as in print.
DISPLAY_SCALE = 1.15

# TeX macros outside mathtext's subset, each mapped to an equivalent it knows.
_MACROS = [
    (r"\\[lr]Vert(?![a-zA-Z])", r"\\Vert"),
    (r"\\[lr]vert(?![a-zA-Z])", "|"),
    (r"\\ge(?![a-zA-Z])", r"\\geq"),
    (r"\\le(?![a-zA-Z])", r"\\leq"),
    (r"\\[td]frac(?![a-zA-Z])", r"\\frac"),
    (r"\\operatorname\*", r"\\operatorname"),
    (r"\\(?:[bB]ig{1,2}[lr]?|displaystyle|textstyle)(?![a-zA-Z])\s*", ""),
    (r"\\textrm(?![a-zA-Z])", r"\\mathrm"),
    (r"\\boldsymbol(?![a-zA-Z])", r"\\mathbf"),
]


def to_mathtext(latex: str) -> str:
    """One line of TeX math as mathtext source (without the dollars)."""
    # mathtext reads one line: a formula wrapped in the source is one line
    text = " ".join(latex.replace("&", " ").split())
    for pattern, repl in _MACROS:
        text = re.sub(pattern, repl, text)
    return text


def display_lines(latex: str) -> list[list[str]]:
    """The equations of a display block, each as its lines of TeX."""
    equations = []
    for part in re.split(r"\n\s*\n", latex):
        lines = [ln.strip() for ln in re.split(r"\\\\", part)]
        lines = [ln for ln in lines if ln.replace("&", "").strip()]
        if lines:
            equations.append(lines)
    return equations


def render_svg(
    latex: str, folder: Path, display: bool = False
) -> tuple[str, float, float, float]:
    """Render one formula to ``folder/<hash>.svg``.

    ``display`` renders one line of a display block: fractions in display
    style (``\\dfrac``) and glyphs ``DISPLAY_SCALE`` times larger.

    Returns the file name and the width, height and depth (below the
    baseline) of the formula in ``em``. Raises ``ValueError`` when mathtext
    cannot parse the formula.
    """
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    text = to_mathtext(latex)
    if display:
        text = re.sub(r"\\frac(?![a-zA-Z])", r"\\dfrac", text)
    source = f"${text}$"
    size = FONT_SIZE * (DISPLAY_SCALE if display else 1.0)
    rc = {"mathtext.fontset": "cm", "svg.fonttype": "path", "svg.hashsalt": "math"}
    with matplotlib.rc_context(rc):
        prop = FontProperties(size=size)
        # mathtext raises ValueError on syntax it does not know
        width, height, depth, _, _ = MathTextParser("path").parse(
            source, dpi=72, prop=prop
        )
        key = f"{size}:{source}".encode()
        name = hashlib.sha1(key).hexdigest()[:16] + ".svg"
        path = folder / name
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            fig = Figure(figsize=(width / 72, height / 72))
            fig.text(0, depth / height, source, fontproperties=prop)
            fig.savefig(
                path, dpi=72, format="svg", transparent=True, metadata={"Date": None}
            )
    return name, width / FONT_SIZE, height / FONT_SIZE, depth / FONT_SIZE


def _img(self, node, latex: str, css_class: str, inline: bool) -> str:
    folder = Path(self.builder.outdir, self.builder.imagedir, "math")
    try:
        name, width, height, depth = render_svg(latex, folder, display=not inline)
    except ValueError as exc:
        logger.warning(
            "formula %r cannot be rendered offline (matplotlib mathtext): %s",
            latex,
            str(exc).strip().splitlines()[-1],
            location=node,
        )
        return f'<span class="math">{self.encode(latex)}</span>'
    src = f"{self.builder.imgpath}/math/{name}"
    style = f"width:{width:.3f}em;height:{height:.3f}em"
    if inline:
        style += f";vertical-align:{-depth:.3f}em"
    alt = html.escape(latex.strip(), quote=True)
    return f'<img class="{css_class}" src="{src}" alt="{alt}" style="{style}"/>'


def html_visit_math(self, node: nodes.math) -> None:
    self.body.append(_img(self, node, node.astext(), "math", inline=True))
    raise nodes.SkipNode


def html_visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    for lines in display_lines(node.astext()):
        for line in lines:
            self.body.append(_img(self, node, line, "math-line", inline=False))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer(
        "mathtext",
        inline_renderers=(html_visit_math, None),
        block_renderers=(html_visit_displaymath, None),
    )
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
