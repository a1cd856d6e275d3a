"""Reading workspace text for the agent without holding more of a file than is shown.

A file a few times the shown limit or smaller is read whole, as before. From a larger
one only its head and tail (Read File) or the lines asked for (Inspect Script Lines)
are read, so a gigabyte file costs the harness what a small one does.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from pytest_mlab.core.text import clip

MAX_CHAR_BYTES = 4
"""UTF-8 spends at most this many bytes on a character."""
WHOLE_LINES_BYTES = 1 << 20
"""Up to this size Inspect Script Lines reads the whole file (and counts its lines)."""
LONG_LINE_BYTES = 8_000
"""Of a line of a larger file, at most this much is shown."""
_CHUNK = 1 << 20
_ESCAPED = re.compile("[\udc80-\udcff]")


def _shown(text: str, errors: str) -> str:
    """``text`` decoded with surrogateescape, as ``errors`` would have decoded it."""
    if _ESCAPED.search(text):
        if errors == "strict":
            raise UnicodeDecodeError("utf-8", b"", 0, 1, "invalid UTF-8 in the shown part")
        text = _ESCAPED.sub("\ufffd", text)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def clipped_text(path: Path, limit: int, *, errors: str = "strict") -> str:
    """The file's text clipped to ``limit`` characters as ``clip`` clips it; of a large
    file only the shown head and tail are read, with one sentence on what was left out.
    Raises UnicodeDecodeError (with ``errors='strict'``) for text that is not UTF-8."""
    size = path.stat().st_size
    if size <= 2 * MAX_CHAR_BYTES * limit:
        return clip(path.read_text(encoding="utf-8", errors=errors), limit)
    half = limit // 2
    span = MAX_CHAR_BYTES * (half + 1)
    with path.open("rb") as handle:
        head_bytes = handle.read(span)
        handle.seek(size - span)
        tail_bytes = handle.read(span)
    head = head_bytes.decode("utf-8", "surrogateescape")[:half]
    tail = tail_bytes.decode("utf-8", "surrogateescape")[-half:]
    elided = size - len(head.encode("utf-8", "surrogateescape")) \
        - len(tail.encode("utf-8", "surrogateescape"))
    note = f"[... {elided:,} of the file's {size:,} bytes are not shown ...]"
    return f"{_shown(head, errors)}\n{note}\n{_shown(tail, errors)}"


def _line_text(raw: bytes) -> str:
    text = codecs.getincrementaldecoder("utf-8")().decode(raw, final=len(raw) < LONG_LINE_BYTES)
    text = text.removesuffix("\r")
    return text if len(raw) < LONG_LINE_BYTES else f"{text} [... rest of the line not shown]"


def lines_between(path: Path, first: int, last: int) -> tuple[list[str], int | None]:
    """Lines ``first`` to ``last`` (counting from 1) and how many lines the file has;
    None for the count where the file is too large to read whole."""
    if path.stat().st_size <= WHOLE_LINES_BYTES:
        lines = path.read_text(encoding="utf-8").splitlines()
        return lines[first - 1 : last], len(lines)
    return [_line_text(raw) for raw in _scan_lines(path, first, last)], None


def _scan_lines(path: Path, first: int, last: int) -> list[bytes]:
    """The raw lines ``first`` to ``last``, each cut at LONG_LINE_BYTES."""
    found: list[bytes] = []
    number, line = 1, bytearray()
    with path.open("rb") as handle:
        while number <= last and (chunk := handle.read(_CHUNK)):
            newlines = chunk.count(b"\n")
            if number + newlines < first:
                number += newlines  # none of the wanted lines starts here
                continue
            at = 0
            while number <= last:
                end = chunk.find(b"\n", at)
                stop = len(chunk) if end < 0 else end
                if number >= first:
                    line += chunk[at : min(stop, at + LONG_LINE_BYTES - len(line))]
                if end < 0:
                    break
                if number >= first:
                    found.append(bytes(line))
                    line.clear()
                number, at = number + 1, end + 1
    if line and number <= last:
        found.append(bytes(line))  # the last line, without a newline
    return found
