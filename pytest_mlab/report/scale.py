"""A chart's value axis: linear, or symmetric-log when one value dwarfs the rest.

The rule: where the largest magnitude is more than ``SYMLOG_RATIO`` times the median of the
non-zero magnitudes, a linear axis would flatten most bars to nothing (one task's +3200% against
a dozen near +10%), so the axis is symmetric-log: linear within ±C, where C is the power of ten at
or below that median (but no more than ``MAX_DECADES`` decades below the largest), and
logarithmic beyond, one decade per C's height.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

SYMLOG_RATIO = 10.0
MAX_DECADES = 5


@dataclass(frozen=True)
class Scale:
    kind: Literal["linear", "symlog"]
    low: float
    high: float
    ticks: tuple[float, ...]
    """Labelled values, gridlines drawn."""
    minor: tuple[float, ...] = ()
    """Gridlines without labels (2x and 5x within each decade of a symlog axis)."""
    linear_within: float = 0.0
    """C of a symlog axis: values within ±C are linear."""

    def transform(self, value: float) -> float:
        if self.kind == "linear":
            return value
        magnitude = abs(value) / self.linear_within
        placed = magnitude if magnitude <= 1 else 1 + math.log10(magnitude)
        return math.copysign(placed, value)

    def fraction(self, value: float) -> float:
        """Where the value sits on the axis, 0 at ``low`` and 1 at ``high``."""
        bottom, top = self.transform(self.low), self.transform(self.high)
        return (self.transform(value) - bottom) / (top - bottom)

    @property
    def note(self) -> str:
        """What a reader needs to read a symlog axis; empty for a linear one."""
        if self.kind == "linear":
            return ""
        return (f"Symmetric log axis, as the largest value is over {SYMLOG_RATIO:g}x the median "
                f"one: linear within ±{tick_label(self.linear_within)}, a decade per step "
                f"beyond.")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round steps of 1, 2, 2.5 or 5 times a power of ten covering [low, high]."""
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks = []
    tick = first
    while tick <= high + step * 1e-9:
        ticks.append(round(tick, 12))
        tick += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def wants_symlog(values: Iterable[float]) -> bool:
    magnitudes = [abs(v) for v in values if v != 0 and math.isfinite(v)]
    if not magnitudes:
        return False
    return max(magnitudes) > SYMLOG_RATIO * statistics.median(magnitudes)


def choose_scale(data: Iterable[float], marks: Iterable[float] = (),
                 fixed: tuple[float, float] | None = None) -> Scale:
    """The axis for ``data`` (bars and dots; they decide between linear and symlog) that also
    shows ``marks`` (thresholds). ``fixed`` is a range that is always linear (a rate)."""
    if fixed is not None:
        low, high = fixed
        return Scale("linear", low, high, tuple(low + (high - low) * i / 5 for i in range(6)))
    data = [v for v in data if math.isfinite(v)]
    values = [0.0, *data, *(v for v in marks if math.isfinite(v))]
    if wants_symlog(data):
        return _symlog(values, statistics.median(abs(v) for v in data if v != 0))
    low, high = min(values), max(values)
    if high == low:
        high = low + 1.0
    pad = (high - low) * 0.08
    low, high = low - (pad if low < 0 else 0.0), high + (pad if high > 0 else 0.0)
    ticks = nice_ticks(low, high)
    return Scale("linear", min(low, ticks[0]), max(high, ticks[-1]), tuple(ticks))


def _symlog(values: list[float], median: float) -> Scale:
    widest = max(abs(v) for v in values)
    # At most MAX_DECADES decades beyond the linear part: a chart stays a page tall.
    unit = 10.0 ** max(math.floor(math.log10(median)),
                       math.ceil(math.log10(widest)) - MAX_DECADES)
    high = _decade_end(max(values), unit)
    low = -_decade_end(-min(values), unit)
    ticks, minor = [0.0], []
    decade = unit
    while decade <= max(high, -low) * (1 + 1e-9):
        for sign in (1.0, -1.0):
            if low <= sign * decade <= high:
                ticks.append(sign * decade)
            minor += [sign * decade * m for m in (2, 5) if low <= sign * decade * m <= high]
        decade *= 10
    return Scale("symlog", low, high, tuple(sorted(ticks)), tuple(sorted(minor)), unit)


def _decade_end(value: float, unit: float) -> float:
    """The end of a symlog axis past ``value`` (>= 0): a fifth of C within the linear part,
    else the next decade."""
    if value <= 0:
        return 0.0
    if value <= unit:
        step = unit / 5
        return math.ceil(value / step - 1e-9) * step
    return unit * 10.0 ** math.ceil(math.log10(value / unit) - 1e-9)


def tick_label(value: float) -> str:
    """A percentage with as few decimals as the value needs, thousands separated."""
    hundred = value * 100
    decimals = next((d for d in range(4) if abs(hundred - round(hundred, d)) < 1e-9), 4)
    return f"{hundred:,.{decimals}f}%"
