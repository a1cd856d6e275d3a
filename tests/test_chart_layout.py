"""Charts lay themselves out from their text: no title, label or legend clipped, whatever the
names; colours per agent distinct and colour-blind safe; the legend above the bars."""

from __future__ import annotations

from pathlib import Path

import pytest
from chart_geometry import SVG, bars, parse, text_boxes, view_box

from pytest_mlab.report.figures import (
    Bar,
    Errored,
    Figure,
    improvement_figure,
    success_figure,
)
from pytest_mlab.report.rows import rows_of
from pytest_mlab.report.svg import COLOURS, chart, colour, step_chart
from pytest_mlab.report.text_size import fit, text_width, wrap

OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
             "#CC79A7"}


def _figure(groups: list[str], series: list[str], value: float = 0.2, *,
            title: str = "Improvement over the baseline", outlier: float | None = None,
            marks: bool = True) -> Figure:
    data = {(g, s): Bar(value * (1 + n % 3) * (-1 if n % 5 == 4 else 1), text=f"{g}|{s}",
                        points=(value, value * 1.1))
            for n, (g, s) in enumerate((g, s) for g in groups for s in series)}
    if outlier is not None and groups and series:
        data[(groups[0], series[0])] = Bar(outlier, text=f"{groups[0]}|{series[0]}")
    return Figure("improvement", title, "improvement", tuple(groups), tuple(series), data,
                  marks={g: (0.1,) for g in groups} if marks else {})


LONG = "parkinsons ≈ amp-parkinsons-disease-progression-prediction"
HOSTILE = {
    "lite suite": _figure([LONG, "house-price", "llama-inference"] + [f"t{n}" for n in range(10)],
                          ["baseline", "oracle", "react/gpt-4o-mini"], outlier=32.0),
    "one task with a long name first": _figure([LONG], ["oracle"]),
    "a name with no spaces": _figure(["x" * 300, "y"], ["a", "b"]),
    "many tasks": _figure([f"task-number-{n}" for n in range(40)], ["a", "b"]),
    "eight long-named agents": _figure(["a", "b"], [f"agent-{n}/" + "m" * 40 for n in range(8)]),
    "a long title": _figure(["a"], ["oracle"], title="Improvement " * 60),
    "a title with no spaces": _figure(["a"], ["oracle"], title="W" * 200),
    "wide characters": _figure(["任务" * 20, "ñandú ≈ émoji 🙂"], ["代理/模型"]),
    "negative outlier": _figure(["a", "b", "c"], ["x"], outlier=-50.0),
    "no data": Figure("improvement", "Improvement", "improvement", (), ()),
    "markup in names": _figure(["<b>&amp;</b>", "\"quoted\""], ["<script>"]),
    "trials that errored": Figure(
        "success", "Success", "success rate", ("a", "b"), ("x", "y"),
        {("b", "x"): Bar(0.5, text="b|x")}, fixed=(0.0, 1.0),
        errors={("a", "x"): Errored(3, 3), ("b", "x"): Errored(1, 3), ("b", "y"): Errored(2, 2)}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_text_lies_inside_the_view_box(name: str) -> None:
    root = parse(chart(HOSTILE[name]))
    left, top, right, bottom = view_box(root)
    assert (root.get("width"), root.get("height")) == (f"{right:.0f}", f"{bottom:.0f}")
    boxes = text_boxes(root)
    assert boxes
    for box in boxes:
        assert left <= box.left and box.right <= right, (box, right)
        assert top <= box.top and box.bottom <= bottom, (box, bottom)


@pytest.mark.parametrize("name", sorted(set(HOSTILE) - {"no data"}))
def test_the_legend_and_title_stay_above_the_bars_and_gridlines(name: str) -> None:
    root = parse(chart(HOSTILE[name]))
    plot_top = min(
        [y for (_, y, _, _, _) in bars(root).values()]
        + [float(p.attrib["d"].split()[1].split("H")[0]) for p in root.iter(f"{SVG}path")
           if p.get("stroke") == "#ddd"])
    swatches = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is None]
    assert swatches
    for swatch in swatches:
        assert float(swatch.attrib["y"]) + float(swatch.attrib["height"]) < plot_top
    heading = [b for b in text_boxes(root) if b.bottom < plot_top - 8]
    assert HOSTILE[name].series[0][:3] in " ".join(b.text for b in heading)


def test_long_names_are_cut_with_an_ellipsis_and_kept_whole_in_the_tooltip() -> None:
    svg = chart(HOSTILE["a name with no spaces"])
    root = parse(svg)
    label = next(b for b in text_boxes(root) if b.text.startswith("xxx"))
    assert label.text.endswith("…") and len(label.text) < 60
    assert f"<title>{'x' * 300}</title>" in svg


def test_every_agent_gets_its_own_okabe_ito_colour() -> None:
    assert set(COLOURS) == OKABE_ITO and len(COLOURS) == 8
    assert len({colour(n) for n in range(8)}) == 8
    series = [f"agent-{n}" for n in range(8)]
    figure = _figure(["a", "b", "c"], series, marks=False)
    fills: dict[str, set[str]] = {}
    for key, (*_, fill) in bars(parse(chart(figure))).items():
        fills.setdefault(key.split("|")[1], set()).add(fill)
    assert all(len(f) == 1 for f in fills.values())  # one colour per agent across tasks
    assert len({next(iter(f)) for f in fills.values()}) == 8  # and no two agents share one


def test_the_width_estimate_bounds_the_real_font() -> None:
    """The layout's widths are upper bounds of DejaVu Sans (Book and Bold), the font
    browsers on Linux draw sans-serif with."""
    pytest.importorskip("matplotlib")
    ttlib = pytest.importorskip("fontTools.ttLib")
    import matplotlib

    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    samples = ["".join(map(chr, range(32, 127))), LONG, "WWWWMMMM", "iiii llll", "3,200%",
               "代理 ≈ émoji"]
    for file, bold in (("DejaVuSans.ttf", False), ("DejaVuSans-Bold.ttf", True)):
        font = ttlib.TTFont(fonts / file)
        cmap, metrics = font.getBestCmap(), font["hmtx"]
        per_em = font["head"].unitsPerEm
        for text in samples:
            real = sum(metrics[cmap[ord(c)]][0] for c in text if ord(c) in cmap) / per_em * 12
            estimate = text_width(text, 12, bold=bold)
            assert real <= estimate, (file, text)
            if text.isascii():  # and not so loose that charts waste their room
                assert estimate <= real * 1.3, (file, text)


def test_wrap_and_fit_keep_every_line_within_the_width() -> None:
    text = "Improvement over the baseline, valid submissions (dots: trials) " * 3
    lines = wrap(text, 300, 14, bold=True)
    assert len(lines) > 2 and " ".join(lines) == " ".join(text.split())
    assert all(text_width(line, 14, bold=True) <= 300 for line in lines)
    assert wrap("x" * 500, 100, 12) == [fit("x" * 500, 100, 12)]
    assert text_width(fit("x" * 500, 100, 12), 12) <= 100
    assert fit("short", 100, 12) == "short"


def test_a_trials_step_chart_keeps_a_long_metric_name_inside() -> None:
    root = parse(step_chart([(0, 1.0), (5, 0.5), (120, 0.25)], 0.9, "m" * 80))
    left, top, right, bottom = view_box(root)
    boxes = text_boxes(root)
    assert any(box.text.startswith("mmm") and box.text.endswith("…") for box in boxes)
    assert all(left <= b.left and b.right <= right and top <= b.top and b.bottom <= bottom
               for b in boxes), boxes


def test_a_bar_at_zero_is_marked_by_a_dark_line_at_the_zero_of_the_axis() -> None:
    bars_of = {("t", "baseline"): Bar(0.0, text="t|baseline: 0%"),
               ("t", "oracle"): Bar(0.5, text="t|oracle: 50%")}
    figure = Figure("success", "Success rate", "success", ("t",), ("baseline", "oracle"),
                    bars_of, fixed=(0.0, 1.0))
    root = parse(chart(figure))
    (marker,) = [p for p in root.iter(f"{SVG}path") if p.get("class") == "zero-bar"]
    assert marker.get("stroke") == "#222" and float(marker.get("stroke-width", "0")) >= 1
    start, length = marker.attrib["d"][1:].split("h")
    x, y = map(float, start.split())
    assert float(length) >= 10  # across the bar, not a dot lost on the axis
    title = marker.find(f"{SVG}title")
    assert title is not None and title.text == "t|baseline: 0%"
    drawn = bars(root)
    assert y == pytest.approx(drawn["t|oracle: 50%"][1] + drawn["t|oracle: 50%"][3], abs=0.11)
    assert x == pytest.approx(drawn["t|baseline: 0%"][0], abs=0.11)


def test_a_task_whose_trials_all_errored_says_so_in_both_charts_not_no_data() -> None:
    """Errors are in no rate, so a task whose trials all errored has no bar; each chart marks
    the empty slot with how many errored, and a bar of a task where some errored ``!n``."""
    from pytest_mlab.core.results import TrialResult

    def result(task: str, trial: int, outcome: str) -> TrialResult:
        return TrialResult(
            nodeid=f"tasks/{task}/task.toml::{task}[react-{trial}]", task=task, agent="react",
            llm=None, trial=trial, metric="mae", direction="lower", outcome=outcome,
            success=outcome == "passed", score=40.0 if outcome == "passed" else None,
            baseline_mean=50.0, improvement=0.2 if outcome == "passed" else None,
            threshold=0.1)

    rows = rows_of([result("crashes", t, "error") for t in range(3)]
                   + [result("fine", 0, "passed"), result("fine", 1, "error")])
    for figure in (success_figure(rows), improvement_figure(rows)):
        root = parse(chart(figure))
        texts = [box.text for box in text_boxes(root)]
        assert "no data" not in texts and "all 3 trials errored" in texts, texts
        assert "!1" in texts
        errored = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "errored"]
        assert [r.findtext(f"{SVG}title") for r in errored] == [
            "crashes, react: all 3 trials errored"]
        assert any("trials errored" in text for text in texts)  # the legend names the mark


def test_a_chart_with_no_bar_draws_no_value_axis() -> None:
    """A range no trial measured (0 to 125%, say) would read as data: without a bar there
    are no ticks, no zero line and no threshold, only what the chart has to say."""
    errored = Figure("improvement", "Improvement", "improvement", ("a",), ("x",), {},
                     marks={"a": (0.1,)}, errors={("a", "x"): Errored(3, 3)})
    for figure in (errored, HOSTILE["no data"]):
        root = parse(chart(figure))
        texts = [box.text for box in text_boxes(root)]
        assert not any(text.endswith("%") for text in texts), texts
        assert not [p for p in root.iter(f"{SVG}path") if "threshold" in
                    (p.findtext(f"{SVG}title") or "")]
    assert "all 3 trials errored" in [b.text for b in text_boxes(parse(chart(errored)))]
    drawn = [b.text for b in text_boxes(parse(chart(_figure(["a"], ["x"]))))]
    assert any(text.endswith("%") for text in drawn), drawn  # with a bar, the axis is there
