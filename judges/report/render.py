"""Drawing the report's pages: Jinja2 templates (``templates/*.html``, autoescaped) filled with
the page data of :mod:`judges.report.pages`, the data files the pages load (``window.CJ_...``),
and the stylesheet and script (``static/``), all read as package data."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from judges.core.vocabulary import STATUS_COLOUR, STATUS_TINT, STATUSES


def breakable(text: str) -> Markup:
    """``text`` escaped, with a line-break opportunity after each underscore (long measure names)."""
    return Markup(str(escape(text)).replace("_", "_<wbr>"))


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("judges.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["breakable"] = breakable
    env.globals["STATUSES"] = STATUSES
    return env


def page(template: str, depth: int, title: str, scripts: tuple[str, ...] = (), **context) -> str:
    """A page ``depth`` directories below the report's root (its links go ``../`` up that often)."""
    html = environment().get_template(template).render(up="../" * depth, title=title, scripts=scripts, **context)
    return html.strip() + "\n"


def js(var: str, obj) -> str:
    """``window.VAR = obj`` with every ``/`` escaped: no ``</script>`` and no URL appears literally."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return f"window.{var}=" + text.replace("/", "\\/") + ";\n"


def documents(docs: dict) -> str:
    """A topic's documents, added to ``window.CJ_DOCS`` (``docs/tJ.js``)."""
    if not docs:
        return "window.CJ_DOCS=window.CJ_DOCS||{};\n"
    return (
        "window.CJ_DOCS=window.CJ_DOCS||{};Object.assign(window.CJ_DOCS,"
        + js("X", docs)[len("window.X=") : -2]
        + ");\n"
    )


def status_css() -> str:
    """The status classes, in the vocabulary's colours: ``.st-S`` the tint (sentences, table rows),
    ``.b-S`` and ``button.s-S`` the colour (badges, citation buttons)."""
    return "".join(
        f".st-{s}{{background:{STATUS_TINT[s]}}}\n.b-{s},button.s-{s}{{background:{STATUS_COLOUR[s]}}}\n"
        for s in STATUSES
    )


def static(name: str) -> str:
    return files("judges.report").joinpath("static", name).read_text(encoding="utf-8")


def stylesheet() -> str:
    return static("report.css") + "/* statuses: judges.core.vocabulary STATUS_TINT, STATUS_COLOUR */\n" + status_css()


def script() -> str:
    return static("report.js")
