"""Inline SVG plots, drawn in Python: no JavaScript library, nothing from the network.

Every mark carries a ``<title>`` (the browser shows it on hover) and may link to a page.
"""

from __future__ import annotations

import math
from html import escape
from typing import Optional, Sequence

from judges.core.vocabulary import MAIN_STATUSES as STATUSES  # plotted and tabled (not cross_language)
from judges.core.vocabulary import STATUS_COLOUR as COLORS

FONT = 'font-family="system-ui,sans-serif" font-size="11"'


def _f(x: float) -> str:
    return f"{x:.1f}"


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg class="plot" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}" {FONT}>' + "".join(body) + "</svg>"
    )


def _link(href: Optional[str], inner: str) -> str:
    return f'<a href="{escape(href)}">{inner}</a>' if href else inner


def _short(text: str, n: int = 38) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def status_bars(rows: Sequence[tuple[str, dict, Optional[str]]], width: int = 760) -> str:
    """One horizontal bar per run: the share of its citations in each status."""
    label_w, bar_h, gap = 250, 14, 4
    plot_w = width - label_w - 60
    height = 24 + len(rows) * (bar_h + gap) + 10
    body = []
    x: float = label_w
    for s in STATUSES:  # legend
        body.append(
            f'<rect x="{x}" y="4" width="10" height="10" fill="{COLORS[s]}"/><text x="{x + 14}" y="13">{s}</text>'
        )
        x += 95
    for i, (name, counts, href) in enumerate(rows):
        y = 24 + i * (bar_h + gap)
        total = sum(counts.get(s, 0) for s in STATUSES)
        body.append(
            f'<text x="{label_w - 6}" y="{y + bar_h - 3}" text-anchor="end">'
            f"{_link(href, escape(_short(name)))}<title>{escape(name)}</title></text>"
        )
        x = float(label_w)
        for s in STATUSES:
            n = counts.get(s, 0)
            if not n or not total:
                continue
            w = plot_w * n / total
            body.append(
                f'<rect x="{_f(x)}" y="{y}" width="{_f(w)}" height="{bar_h}" fill="{COLORS[s]}">'
                f"<title>{escape(name)}: {n} {s} ({100 * n / total:.1f}%)</title></rect>"
            )
            x += w
        body.append(f'<text x="{label_w + plot_w + 4}" y="{y + bar_h - 3}">{total}</text>')
    return _svg(width, height, body, "status mix per run")


def histogram(
    values: dict[str, Sequence[float]],
    lines: Sequence[tuple[float, str]],
    xlabel: str,
    bins: int = 40,
    width: int = 760,
    height: int = 240,
) -> str:
    """Stacked histogram on [0, 1] of ``values`` per status, with vertical lines at thresholds."""
    left, right, top, bottom = 45, 15, 20, 40
    pw, ph = width - left - right, height - top - bottom
    counts = {s: [0] * bins for s in values}
    for s, vs in values.items():
        for v in vs:
            if v is None or v != v:
                continue
            counts[s][min(bins - 1, max(0, int(v * bins)))] += 1
    peak = max([sum(counts[s][b] for s in counts) for b in range(bins)] + [1])
    body = [
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#444"/>',
    ]
    for k in range(0, 11, 2):
        x = left + pw * k / 10
        body.append(f'<text x="{_f(x)}" y="{top + ph + 14}" text-anchor="middle">{k / 10:.1f}</text>')
    for share in (0.5, 1.0):
        y = top + ph - ph * share
        body.append(f'<text x="{left - 4}" y="{_f(y + 4)}" text-anchor="end">{round(peak * share)}</text>')
    body.append(f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">{escape(xlabel)}</text>')
    bw = pw / bins
    for b in range(bins):
        y = top + ph
        for s in STATUSES:
            n = counts.get(s, [0] * bins)[b]
            if not n:
                continue
            h = ph * n / peak
            y -= h
            body.append(
                f'<rect x="{_f(left + b * bw)}" y="{_f(y)}" width="{_f(bw - 1)}" height="{_f(h)}" fill="{COLORS[s]}">'
                f"<title>{b / bins:.3f}–{(b + 1) / bins:.3f}: {n} {s}</title></rect>"
            )
    for i, (x, name) in enumerate(lines):
        px = left + pw * min(max(x, 0), 1)
        body.append(
            f'<line x1="{_f(px)}" y1="{top - 4}" x2="{_f(px)}" y2="{top + ph}" stroke="#000" stroke-dasharray="4 3"/>'
            f'<text x="{_f(px + 3)}" y="{top + 8 + 12 * i}">{escape(name)} {x:.3g}</text>'
        )
    return _svg(width, height, body, f"distribution of {xlabel}")


def scatter(
    points: Sequence[tuple[str, float, float, Optional[str]]],
    xlabel: str,
    ylabel: str,
    width: int = 420,
    height: int = 380,
) -> str:
    """Runs as points: x the truth, y the judge; the diagonal where they would agree."""
    left, right, top, bottom = 50, 15, 15, 45
    pw, ph = width - left - right, height - top - bottom
    vals = [v for _, x, y, _ in points for v in (x, y) if v == v]
    lo, hi = (min(vals + [0.0]), max(vals + [1.0])) if vals else (0.0, 1.0)
    span = hi - lo or 1.0

    def px(v):
        return left + pw * (v - lo) / span

    def py(v):
        return top + ph - ph * (v - lo) / span

    body = [
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>',
        f'<line x1="{_f(px(lo))}" y1="{_f(py(lo))}" '
        f'x2="{_f(px(hi))}" y2="{_f(py(hi))}" stroke="#bbb" stroke-dasharray="4 3"/>',
    ]
    for k in range(5):
        v = lo + span * k / 4
        body.append(
            f'<text x="{_f(px(v))}" y="{top + ph + 14}" text-anchor="middle">{v:.2f}</text>'
            f'<text x="{left - 4}" y="{_f(py(v) + 4)}" text-anchor="end">{v:.2f}</text>'
        )
    body.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    body.append(
        f'<text x="12" y="{top + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + ph / 2})">{escape(ylabel)}</text>'
    )
    for name, x, y, href in points:
        if x != x or y != y:
            continue
        body.append(
            _link(
                href,
                f'<circle cx="{_f(px(x))}" cy="{_f(py(y))}" r="4" fill="#1565c0" fill-opacity="0.7">'
                f"<title>{escape(name)}: truth {x:.3f}, judge {y:.3f}</title></circle>",
            )
        )
    return _svg(width, height, body, "judge against truth per run")


def _heat(v: float) -> str:
    """White (0) to dark green (1); grey when undefined."""
    if v is None or v != v:
        return "#eee"
    v = min(max(v, 0.0), 1.0)
    r, g, b = (int(255 + (c - 255) * v) for c in (27, 94, 32))
    return f"#{r:02x}{g:02x}{b:02x}"


NOT_ANSWERED = "cj-not-answered"  # the heatmap's hatching of a topic a run did not answer (an SVG pattern id)
_HATCH = (
    f'<defs><pattern id="{NOT_ANSWERED}" width="4" height="4" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="4" height="4" fill="#fff"/>'
    '<rect width="1.5" height="4" fill="#9e9e9e"/></pattern></defs>'
)


def heatmap(
    rows: Sequence[str],
    cols: Sequence[str],
    value,
    href,
    measure: str,
    cell: int = 14,
    note=lambda r, c: "",
    unanswered=lambda r, c: False,
) -> str:
    """Runs x topics, each cell the measure's value (``value(r, c)``, NaN: no row), linked to
    ``href(r, c)`` (None: no page, no link); ``note(r, c)`` is added to the cell's title. A topic
    the run did not answer (``unanswered(r, c)``: scored by ``leaderboard.on_missing``) is hatched
    grey, apart from a topic scored 0 (white); a legend under the cells says so."""
    label_w, top = 250, 90
    # the topic labels lean right at 60 degrees: room for the last one's width (6.5 px a character, at most 14)
    room = max([len(_short(c, 14)) for c in cols] + [0]) * 6.5 * math.cos(math.radians(60))
    legend_y = top + len(rows) * cell + 12
    width = max(label_w + len(cols) * cell + 10 + math.ceil(room), label_w + 340)
    height = legend_y + cell + 8
    body = [_HATCH]
    for j, c in enumerate(cols):
        x = label_w + j * cell + cell / 2
        body.append(
            f'<text x="{_f(x)}" y="{top - 4}" transform="rotate(-60 {_f(x)} {top - 4})">'
            f"{escape(_short(c, 14))}<title>{escape(c)}</title></text>"
        )
    for i, r in enumerate(rows):
        y = top + i * cell
        body.append(
            f'<text x="{label_w - 6}" y="{y + cell - 3}" text-anchor="end">'
            f"{escape(_short(r))}<title>{escape(r)}</title></text>"
        )
        for j, c in enumerate(cols):
            v = value(r, c)
            shown = "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"
            why = note(r, c)
            why = f" ({why})" if why else ""
            fill = f"url(#{NOT_ANSWERED})" if unanswered(r, c) else _heat(v)
            rect = (
                f'<rect x="{label_w + j * cell}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{fill}">'
                f"<title>{escape(r)} / {escape(c)}: {measure} {shown}{escape(why)}</title></rect>"
            )
            body.append(_link(href(r, c), rect))
    body.append(_heat_legend(label_w, legend_y, cell, measure))
    return _svg(width, height, body, f"{measure} per run and topic")


def _heat_legend(x: int, y: int, cell: int, measure: str) -> str:
    """The heatmap's colours: the measure from 0 to 1, and the hatching of a topic not answered."""
    out = [f'<g class="legend"><text x="{x - 6}" y="{y + cell - 3}" text-anchor="end">{escape(measure)}</text>']
    for k, v in enumerate((0.0, 0.25, 0.5, 0.75, 1.0)):
        out.append(
            f'<rect x="{x + k * 46}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{_heat(v)}" '
            f'stroke="#bbb" stroke-width="0.5"><title>{v:g}</title></rect>'
            f'<text x="{x + k * 46 + cell + 2}" y="{y + cell - 3}">{v:g}</text>'
        )
    na = x + 5 * 46 + 4
    out.append(
        f'<rect x="{na}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="url(#{NOT_ANSWERED})" '
        f'stroke="#bbb" stroke-width="0.5"><title>not answered</title></rect>'
        f'<text x="{na + cell + 2}" y="{y + cell - 3}">not answered</text></g>'
    )
    return "".join(out)
