"""The value axis: linear unless one value dwarfs the rest, then symmetric-log with readable
ticks, so that a +3200% task leaves a dozen tasks near +10% distinguishable."""

from __future__ import annotations

import itertools
import math

import pytest
from chart_geometry import bars, parse, text_boxes, thresholds

from pytest_mlab.report.chart_layout import layout
from pytest_mlab.report.figures import Bar, Figure, scale_of
from pytest_mlab.report.scale import (
    MAX_DECADES,
    SYMLOG_RATIO,
    choose_scale,
    tick_label,
    wants_symlog,
)
from pytest_mlab.report.svg import chart

SMALL = [0.05, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.21, 0.25, 0.3, 0.45]
"""Twelve tasks' mean improvements, as in the lite suite; llama-inference adds +3200%."""


def _figure(values: dict[str, float], marks: dict[str, tuple[float, ...]] | None = None
            ) -> Figure:
    bars_ = {(task, "oracle"): Bar(value, text=f"{task}: {value}")
             for task, value in values.items()}
    return Figure("improvement", "Improvement", "improvement", tuple(values), ("oracle",),
                  bars_, marks=marks or {})


def test_the_rule_is_the_largest_magnitude_over_the_median_of_the_non_zero_ones() -> None:
    assert not wants_symlog([0.1, 0.1, 0.1 * SYMLOG_RATIO])  # exactly the ratio: linear
    assert wants_symlog([0.1, 0.1, 0.1 * SYMLOG_RATIO * 1.01])
    assert wants_symlog([*SMALL, 32.0])
    assert not wants_symlog(SMALL)
    # Zeros (the baseline agent) neither trigger it nor hide an outlier.
    assert not wants_symlog([0.0] * 20 + [0.05])
    assert wants_symlog([0.0] * 5 + [0.01, 0.02, 0.01, 5.0])
    assert wants_symlog([0.1, 0.12, 0.09, -4.0])  # a collapse dwarfs too
    assert not wants_symlog([]) and not wants_symlog([0.0, math.nan, math.inf])


def test_a_linear_axis_keeps_round_ticks_covering_data_and_thresholds() -> None:
    scale = choose_scale(SMALL, marks=[0.9])
    assert scale.kind == "linear" and scale.note == ""
    assert scale.low == 0.0 and scale.high >= 0.9
    assert scale.ticks[0] == 0.0 and scale.ticks[-1] >= 0.9
    steps = {round(b - a, 9) for a, b in zip(scale.ticks, scale.ticks[1:], strict=False)}
    assert len(steps) == 1 and 3 <= len(scale.ticks) <= 8
    assert [tick_label(t) for t in scale.ticks] == ["0%", "20%", "40%", "60%", "80%", "100%"]


def test_a_3200pct_outlier_gets_a_symlog_axis_with_one_labelled_tick_per_decade() -> None:
    scale = choose_scale([*SMALL, 32.0], marks=[3.0])
    assert scale.kind == "symlog"
    assert scale.linear_within == 0.1  # the power of ten at or below the median (0.15)
    assert scale.ticks == (0.0, 0.1, 1.0, 10.0, 100.0)
    assert [tick_label(t) for t in scale.ticks] == ["0%", "10%", "100%", "1,000%", "10,000%"]
    assert scale.low == 0.0 and scale.high == 100.0
    assert set(scale.minor) == {0.2, 0.5, 2.0, 5.0, 20.0, 50.0}
    assert "±10%" in scale.note and f"over {SYMLOG_RATIO:g}x the median" in scale.note
    # Each decade gets the height of the linear part: equal steps between labelled ticks.
    places = [scale.fraction(t) for t in scale.ticks]
    assert places == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_a_negative_outlier_gets_negative_decades() -> None:
    scale = choose_scale([0.1, 0.12, 0.09, 0.11, -4.0])
    assert scale.kind == "symlog" and scale.low == -10.0 and scale.high == 1.0
    assert scale.ticks == (-10.0, -1.0, -0.1, 0.0, 0.1, 1.0)
    assert scale.fraction(-4.0) < scale.fraction(-1.0) < scale.fraction(0.0)


def test_a_tiny_median_does_not_stack_decades_without_end() -> None:
    scale = choose_scale([1e-9, 2e-9, 3e-9, 32.0])
    assert scale.kind == "symlog" and scale.linear_within == pytest.approx(0.001)
    assert scale.high == 100.0 and len(scale.ticks) == 1 + MAX_DECADES + 1


@pytest.mark.parametrize(("value", "label"), [
    (0.0, "0%"), (0.25, "25%"), (0.001, "0.1%"), (-0.1, "-10%"), (32.0, "3,200%"),
    (0.125, "12.5%"), (1000.0, "100,000%"),
])
def test_tick_labels(value: float, label: str) -> None:
    assert tick_label(value) == label


def test_symlog_keeps_small_bars_apart_next_to_a_3200pct_outlier() -> None:
    values = {f"task-{n:02d}": v for n, v in enumerate(SMALL)} | {"llama-inference": 32.0}
    figure = _figure(values)
    root = parse(chart(figure))
    drawn = bars(root)
    heights = {float(key.split(": ")[1]): h for key, (_, _, _, h, _) in drawn.items()}
    # The axis says what it is.
    words = " ".join(box.text for box in text_boxes(root))
    assert "improvement (symmetric log)" in words and "linear within ±10%" in words
    # Tick labels never overlap one another.
    ticks = sorted((b for b in text_boxes(root) if b.text.endswith("%")), key=lambda b: b.top)
    assert [b.text for b in ticks] == ["10,000%", "1,000%", "100%", "10%", "0%"]
    assert all(a.bottom + 4 <= b.top for a, b in itertools.pairwise(ticks))
    # Every small bar is clearly visible, in order, and neighbours differ by pixels.
    ordered = [heights[v] for v in sorted(heights)]
    assert min(heights[v] for v in SMALL) >= 20
    assert all(b - a >= 3 for a, b in itertools.pairwise(ordered))
    # The linear part is linear: 5% is half of 10%.
    assert heights[0.05] == pytest.approx(heights[0.1] / 2, abs=0.2)
    plot = layout(figure, scale_of(figure)).plot_height
    assert heights[32.0] == pytest.approx(plot * scale_of(figure).fraction(32.0), abs=0.2)
    # On a linear axis to 3200% the 5% bar would have been a third of a pixel.
    assert plot * 0.05 / 32 < 0.5


def test_each_task_threshold_is_drawn_at_its_value_on_the_axis() -> None:
    figure = _figure({"review-sentiment": 0.08, "house-price": 0.3, "llama-inference": 32.0},
                     marks={"review-sentiment": (0.05,), "house-price": (0.1,),
                            "llama-inference": (3.0,)})
    scale = scale_of(figure)
    assert scale.kind == "symlog"  # 32 over a median of 0.3: over 10x
    root = parse(chart(figure))
    lines = thresholds(root)
    assert set(lines) == {"review-sentiment: threshold 5%", "house-price: threshold 10%",
                          "llama-inference: threshold 300%"}
    ticks = {box.text: box.bottom for box in text_boxes(root) if box.text.endswith("%")}
    # The 10% line sits on the 10% gridline (its label's baseline is 4 px below the line).
    assert lines["house-price: threshold 10%"] == pytest.approx(
        ticks["10%"] - 4 - 0.24 * 12, abs=0.2)
    assert (lines["review-sentiment: threshold 5%"] > lines["house-price: threshold 10%"]
            > lines["llama-inference: threshold 300%"])
