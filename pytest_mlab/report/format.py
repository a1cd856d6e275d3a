"""How numbers read, shared by the HTML report, the terminal summary and the charts."""

from __future__ import annotations

DASH = "-"


def percent(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return DASH
    return f"{value:+.1%}" if signed else f"{value:.0%}"


def interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return DASH
    return f"[{low:.0%}, {high:.0%}]"


def number(value: float | None) -> str:
    return DASH if value is None else f"{value:.6g}"


def seconds(value: float | None) -> str:
    if value is None:
        return DASH
    if value < 60:
        return f"{value:.1f}s"
    minutes, secs = divmod(round(value), 60)
    return f"{minutes}m{secs:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


def count(value: float | None) -> str:
    """Steps and tokens: whole numbers, with a thousands separator."""
    if value is None:
        return DASH
    return f"{value:,.0f}" if value >= 100 or value == int(value) else f"{value:.1f}"


def money(value: float | None) -> str:
    if value is None:
        return DASH
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def normalised(value: float | None) -> str:
    """A normalised score: 0 at the baseline, 1 at the reference solution."""
    return DASH if value is None else f"{value:.2f}"
