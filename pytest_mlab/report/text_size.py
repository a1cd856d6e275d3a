"""How wide a chart's text will be, without a font at hand: measured so layouts give it room.

The widths are DejaVu Sans's (the widest common sans-serif, and what Linux browsers use for
``sans-serif``), with a margin for Verdana and the like; Arial and Helvetica are narrower.
"""

from __future__ import annotations

import math

FONT_FAMILY = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
_ADVANCE = (  # thousandths of an em, characters 32 (space) to 126 (~)
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698,
    770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,
    525, 636, 337, 636, 838,
)
OTHER = 1.0
"""Any other character: as wide as the widest (CJK ideographs are one em)."""
MARGIN = 1.06
BOLD = 1.27
"""DejaVu Sans Bold is at most 26% wider than Book, character for character."""
ASCENT, DESCENT = 0.93, 0.24
"""Above and below the baseline, in ems."""


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """An upper bound of the text's advance width in pixels at ``size`` px."""
    ems = sum(_ADVANCE[ord(c) - 32] / 1000 if 32 <= ord(c) < 127 else OTHER for c in text)
    return ems * size * MARGIN * (BOLD if bold else 1.0)


def wrap(text: str, width: float, size: float, *, bold: bool = False) -> list[str]:
    """Lines of whole words no wider than ``width``; a single word wider than that is clipped
    with an ellipsis, since no room can be made for it."""
    lines = _break(" ".join(text.split()), width, size, bold)
    return [fit(line, width, size, bold=bold) for line in lines]


def _break(line: str, width: float, size: float, bold: bool) -> list[str]:
    """Split a line greedily on spaces until each part fits."""
    words, out, current = line.split(" "), [], ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size, bold=bold) > width:
            out.append(current)
            current = word
        else:
            current = candidate
    return [*out, current]


def fit(text: str, width: float, size: float, *, bold: bool = False) -> str:
    """The text, cut with an ellipsis where it is wider than ``width``."""
    if text_width(text, size, bold=bold) <= width:
        return text
    while text and text_width(text + "…", size, bold=bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def text_box(x: float, y: float, text: str, size: float, *, anchor: str = "start",
             angle: float = 0.0, bold: bool = False) -> tuple[float, float, float, float]:
    """The (left, top, right, bottom) bounds of ``text`` drawn at (x, y) with SVG's
    ``text-anchor`` and turned by ``angle`` degrees (SVG's rotate) about that point."""
    width = text_width(text, size, bold=bold)
    start = {"start": 0.0, "middle": -width / 2, "end": -width}[anchor]
    turn = math.radians(angle)
    corners = [(dx, dy) for dx in (start, start + width) for dy in (-ASCENT * size,
                                                                       DESCENT * size)]
    xs = [x + dx * math.cos(turn) - dy * math.sin(turn) for dx, dy in corners]
    ys = [y + dx * math.sin(turn) + dy * math.cos(turn) for dx, dy in corners]
    return min(xs), min(ys), max(xs), max(ys)
