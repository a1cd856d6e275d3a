"""Read a submission CSV file and check it against the ids of the hidden answers.

Every check rejects a bad submission with ``InvalidSubmission`` and one sentence that
names the file, the column and, where there is one, the offending value, because an
agent reads that sentence to fix its submission.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from pytest_mlab.core.errors import InvalidSubmission

LINE_BYTES = 1 << 20
"""The longest line of a submission CSV file that is read."""
MAX_FIELDS = 1000
"""The most fields a line of a submission CSV file may have."""


class CsvSubmission:
    """A submission CSV file whose columns are all present and whose ids are integers."""

    def __init__(self, name: str, frame: pd.DataFrame, id_column: str, ids: pd.Series) -> None:
        self.name = name
        self.frame = frame
        self.id_column = id_column
        self.ids = ids

    def invalid(self, problem: str) -> InvalidSubmission:
        """The error that rejects this file: ``problem`` completes "<file name> ..."."""
        return _invalid(self.name, problem)

    def numbers(self, column: str) -> pd.Series:
        """The column as numbers, with NaN where a value is missing or not a number."""
        return pd.to_numeric(self.frame[column], errors="coerce")

    def whole_numbers(self, column: str) -> npt.NDArray[np.int64]:
        """The column as int64; rejects a value that is missing or not a whole number."""
        values: npt.NDArray[np.int64] = _whole_numbers(self.frame, column, self.name).to_numpy()
        return values

    def class_numbers(self, column: str, n_classes: int) -> npt.NDArray[np.int64]:
        """The column as int64 class numbers; rejects any but 0 to ``n_classes`` - 1."""
        labels = self.whole_numbers(column)
        out_of_range = (labels < 0) | (labels >= n_classes)
        if out_of_range.any():
            raise self.invalid(
                f"has {column} {labels[out_of_range][0]}, "
                f"not a class number from 0 to {n_classes - 1}"
            )
        return labels

    def finite_numbers(
        self, columns: Sequence[str], described_as: str | None = None
    ) -> npt.NDArray[np.float64]:
        """The columns as a (rows, columns) float array; rejects a missing or non-finite value.

        The sentence calls the bad value ``described_as`` ("a price"), or, without it,
        names the column of the first bad value ("an archaism value").
        """
        values: npt.NDArray[np.float64] = (
            self.frame[list(columns)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        )
        bad = ~np.isfinite(values)
        if bad.any():
            what = described_as or _a(f"{columns[int(np.argwhere(bad)[0][1])]} value")
            raise self.invalid(f"has {what} that is missing or not a finite number")
        return values

    def in_answer_order(
        self,
        values: npt.NDArray[np.generic],
        answer_ids: pd.Index,
        *,
        listed: str = "in test.csv",
        rows: str | None = None,
    ) -> npt.NDArray[np.generic]:
        """``values`` (one row per submission row) reordered to follow ``answer_ids``.

        The result is column-major, like the values of a pandas frame.

        Rejects a repeated id, an id that is not an answer's and an answer's id that is
        absent. ``listed`` ends "which is not ..." for an unknown id ("in test.csv", "a
        test paper"); ``rows`` names the test rows in "lacks 3 test ids" (default: "test"
        and the id column's name with an s).
        """
        ids = self.ids
        column = self.id_column
        if ids.duplicated().any():
            raise self.invalid(f"repeats {column} {ids[ids.duplicated()].iloc[0]}")
        unknown = ids[~ids.isin(answer_ids)]
        if len(unknown):
            raise self.invalid(f"has {column} {unknown.iloc[0]}, which is not {listed}")
        missing = answer_ids.difference(ids)
        if len(missing):
            plural = rows or f"test {column}s"
            raise self.invalid(f"lacks {len(missing)} {plural}, e.g. {column} {missing[0]}")
        ordered = values[pd.Index(ids).get_indexer(answer_ids)]
        # Column-major, as the values of a pandas frame are: a float sum down each column
        # (an MCRMSE) then adds in the same order, to the last bit, as scorers always did.
        in_columns: npt.NDArray[np.generic] = np.asfortranarray(ordered)
        return in_columns


def read_csv_submission(
    path: Path, id_column: str, value_columns: Sequence[str], *, as_text: bool = False
) -> CsvSubmission:
    """Read ``path``; reject it if absent, unreadable, lacking a column or with a bad id.

    ``as_text`` reads every cell as a string, so that pandas guesses no types.
    """
    if not path.is_file():
        raise InvalidSubmission(f"No {path.name} was written to the workspace root.")
    _refuse_unwieldy_lines(path)
    try:
        frame = pd.read_csv(path, dtype=str) if as_text else pd.read_csv(path)
    # Parser, empty-file and decoding errors are all ValueErrors.
    except (ValueError, OverflowError, MemoryError) as error:
        raise InvalidSubmission(f"{path.name} is not a readable CSV file ({error}).") from error
    absent = [column for column in (id_column, *value_columns) if column not in frame.columns]
    if absent:
        raise InvalidSubmission(f"{path.name} lacks the column(s) {', '.join(absent)}.")
    ids = _whole_numbers(frame, id_column, path.name)
    return CsvSubmission(path.name, frame, id_column, ids)


def _refuse_unwieldy_lines(path: Path) -> None:
    """Refuse a line far longer or wider than any table a scorer reads: pandas takes
    minutes and gigabytes over one (a 4 MB row of commas: five minutes and 4 GB)."""
    with path.open("rb") as handle:
        for number, line in enumerate(iter(lambda: handle.readline(LINE_BYTES + 1), b""), 1):
            if len(line) > LINE_BYTES:
                raise _invalid(path.name, f"has a line longer than {LINE_BYTES} bytes "
                                          f"(line {number})")
            if line.count(b",") >= MAX_FIELDS:
                raise _invalid(path.name, f"has more than {MAX_FIELDS} fields on line {number}")


def _invalid(file_name: str, problem: str) -> InvalidSubmission:
    return InvalidSubmission(f"{file_name} {problem}.")


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0].lower() in "aeiou" else f"a {noun}"


def _whole_numbers(frame: pd.DataFrame, column: str, file_name: str) -> pd.Series:
    numbers = pd.to_numeric(frame[column], errors="coerce")
    floats = numbers.to_numpy(dtype=float)
    if not np.isfinite(floats).all() or (floats != np.round(floats)).any():
        raise _invalid(file_name, f"has {_a(column)} that is missing or not an integer")
    return numbers.astype("int64")
