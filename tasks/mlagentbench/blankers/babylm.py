"""The agent's copy of BabyLM's withheld test text: one line that says so, per file.

The starter loads every split through its dataset script, and datasets refuses a split
with no rows ("Instruction 'test' corresponds to no data"), so empty files would stop the
unmodified starter before it trains. One line per source keeps the split loadable and
tells nothing of the text the scorer reads.
"""

from __future__ import annotations

from pathlib import Path

LINE = b"This test text is withheld: pytest-mlab scores the model on it.\n"


def blank(rel: str, held: Path, public: Path) -> bytes:
    return LINE
