"""Ten values y = 3 * id to train on, ten to predict, and (for the rule checks' tests
only) those ten answers planted among the public files."""

from __future__ import annotations

from pathlib import Path


def prepare(public: Path, private: Path) -> None:
    rows = [(i, 3.0 * i) for i in range(1, 21)]
    (public / "train.csv").write_text(
        "id,value\n" + "".join(f"{i},{y}\n" for i, y in rows[:10]))
    (public / "test.csv").write_text("id\n" + "".join(f"{i}\n" for i, _ in rows[10:]))
    answers = "id,value\n" + "".join(f"{i},{y}\n" for i, y in rows[10:])
    (public / "answers.csv").write_text(answers)
    (private / "answers.csv").write_text(answers)
