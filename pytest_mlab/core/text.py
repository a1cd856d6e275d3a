"""Text for people: long text clipped to its head and tail, tables in aligned columns."""

from __future__ import annotations

from collections.abc import Sequence


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    elided = len(text) - 2 * half
    return f"{text[:half]}\n[... {elided} characters elided ...]\n{text[-half:]}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 task``, ``2 tasks``: the count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def aligned(table: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as lines, each column padded to its widest cell."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in table]
