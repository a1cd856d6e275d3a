"""Text an agent produced, made safe to print: no byte of it can drive a terminal.

Workspace output, file names and error texts reach the terminal, results.json and
report.html. Escape sequences in them (ANSI colours, OSC-8 links, a carriage return
that overwrites a verdict) would act on whoever reads them, and a file name that is not
valid UTF-8 (held as a lone surrogate, Python's ``surrogateescape``) cannot even be
written as UTF-8. Each such character is replaced by a visible escape. Where a text is
printed among pytest's lines (a verdict's sentence, a scorer's traceback), a line break
of its own would let it forge one of them (``PASSED``, ``=== 1 passed ===``): ``one_line``
escapes it too, and ``hanging`` indents every line after a block's first.
"""

from __future__ import annotations

import re

_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but \t and \n, DEL, C1
    "\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional overrides
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff]"  # lone surrogates: bytes of a name that is not UTF-8
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # the raw byte surrogateescape stood for
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab (and every lone
    surrogate, bidirectional override and line separator) written as an escape such as
    ``\\x1b``; idempotent, and plain text comes back unchanged."""
    return _UNPRINTABLE.sub(_escape, text)


def one_line(text: str) -> str:
    """``text`` printable and on one line: a newline is written ``\\x0a`` as a carriage
    return already is, so that no part of it can stand as a line of its own (a forged
    PASSED line under a verdict); idempotent."""
    return printable(text).replace("\n", "\\x0a")


def hanging(text: str, indent: str = "    ") -> str:
    """``text`` printable, every line but the first indented: a block such as a scorer's
    traceback keeps its lines, none of which can start where the lines of pytest's own
    output start."""
    first, *rest = printable(text).split("\n")
    return "\n".join([first, *(indent + line if line else line for line in rest)])


def has_unprintable(text: str) -> bool:
    """Whether ``printable`` would change ``text``."""
    return _UNPRINTABLE.search(text) is not None


def is_utf8(name: str) -> bool:
    """Whether ``name`` (as the file system gave it) was valid UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(rel: str, limit: int = 200) -> str:
    """A workspace path for a sentence: printable, and its middle left out past
    ``limit`` characters (a path may be thousands of folders deep)."""
    text = printable(rel)
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}...({len(text) - 2 * half} characters)...{text[-half:]}"
