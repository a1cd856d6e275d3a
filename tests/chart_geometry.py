"""Read a chart back from its SVG: every text's estimated box, every bar's rectangle.

The geometry here is the test's own (it parses transforms and anchors from the SVG); only the
width of a string comes from the estimator, which tests/test_chart_layout.py checks against
the real font and tests/test_report_browser.py against a browser."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from pytest_mlab.report.text_size import ASCENT, DESCENT, text_width

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Box:
    text: str
    left: float
    top: float
    right: float
    bottom: float


def parse(svg: str) -> ET.Element:
    if "xmlns=" not in svg[:200]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    return ET.fromstring(svg)


def view_box(root: ET.Element) -> tuple[float, float, float, float]:
    x, y, width, height = map(float, root.attrib["viewBox"].split())
    return x, y, x + width, y + height


def _transform(text: ET.Element) -> tuple[float, float, float]:
    transform = text.get("transform", "")
    moved = re.search(r"translate\(([-\d.]+)[ ,]+([-\d.]+)\)", transform)
    turned = re.search(r"rotate\(([-\d.]+)\)", transform)
    x = float(text.get("x", "0")) + (float(moved.group(1)) if moved else 0.0)
    y = float(text.get("y", "0")) + (float(moved.group(2)) if moved else 0.0)
    return x, y, float(turned.group(1)) if turned else 0.0


def text_boxes(root: ET.Element) -> list[Box]:
    """Boxes of every <text>, with the font size and weight it inherits."""
    boxes = []
    size = float(root.get("font-size", "16"))
    for text in root.iter(f"{SVG}text"):
        words = (text.text or "") + "".join(child.tail or "" for child in text)
        own = float(text.get("font-size", size))
        width = text_width(words, own, bold=text.get("font-weight") == "bold")
        start = {"start": 0.0, "middle": -width / 2, "end": -width}[
            text.get("text-anchor", "start")]
        x, y, angle = _transform(text)
        turn = math.radians(angle)
        corners = [(dx, dy) for dx in (start, start + width)
                   for dy in (-ASCENT * own, DESCENT * own)]
        xs = [x + dx * math.cos(turn) - dy * math.sin(turn) for dx, dy in corners]
        ys = [y + dx * math.sin(turn) + dy * math.cos(turn) for dx, dy in corners]
        boxes.append(Box(words, min(xs), min(ys), max(xs), max(ys)))
    return boxes


def bars(root: ET.Element) -> dict[str, tuple[float, float, float, float, str]]:
    """Bars by their tooltip: (x, y, width, height, fill)."""
    found = {}
    for rect in root.iter(f"{SVG}rect"):
        title = rect.find(f"{SVG}title")
        if title is not None:
            found[title.text or ""] = (
                float(rect.attrib["x"]), float(rect.attrib["y"]),
                float(rect.attrib["width"]), float(rect.attrib["height"]), rect.attrib["fill"])
    return found


def thresholds(root: ET.Element) -> dict[str, float]:
    """Threshold lines by their tooltip: their y."""
    found = {}
    for path in root.iter(f"{SVG}path"):
        title = path.find(f"{SVG}title")
        if title is not None and "threshold" in (title.text or ""):
            found[title.text or ""] = float(path.attrib["d"].split()[1].split("H")[0])
    return found
