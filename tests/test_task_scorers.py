"""Every lite task's scorer turns whatever it cannot read in a submission into
InvalidSubmission (the trial fails with that sentence), never a crash (a harness error):
garbage, a CSV file with an endless or endlessly wide line, pickled or truncated arrays,
a header declaring terabytes, an archive member that inflates past what an answer needs,
a wrong dtype, and code that fails or floods the scorer.

The scorers run on small answers made here in the private folders' formats (only
llama-inference prepares its own: the scorer loads the private model first)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pytest
from task_scripts import load_script

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

TASKS = Path(__file__).parent.parent / "tasks" / "lite"
HUGE_HEADER = (b"\x93NUMPY\x01\x00v\x00" + b"{'descr': '<i8', 'fortran_order': False, "
               b"'shape': (1000000000000,), }".ljust(117) + b"\n")


def _score_module(task: str) -> ModuleType:
    module = load_script(TASKS / task, "score.py")
    return module


def _csv(frame: dict[str, list[Any]]) -> Callable[[Path], None]:
    return lambda private: pd.DataFrame(frame).to_csv(private / "answers.csv", index=False)


def _npz(**arrays: Any) -> Callable[[Path], None]:
    return lambda private: np.savez(private / "answers.npz", **arrays)


CSV_TASKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "citation-graph": (_csv({"node_id": [1, 2], "label": [0, 3]}), "node_id,label"),
    "essay-scoring": (_csv({"id": [1, 2], "vocabulary": [2.5, 4.0]}), "id,vocabulary"),
    "fashion-cnn": (_npz(ids=np.array([1, 2]), labels=np.array([0, 3])), "id,label"),
    "fashion-multilabel": (_npz(ids=np.array([1, 2]), labels=np.eye(2, 10, dtype=int)),
                           "id," + ",".join(map(str, range(10)))),
    "house-price": (_csv({"Id": [1, 2], "price": [1e5, 2e5]}), "Id,price"),
    "parkinsons": (_csv({"Id": [1, 2], "updrs_1": [1, 2], "updrs_2": [3, 4],
                         "updrs_3": [5, 6]}), "Id,updrs_1,updrs_2,updrs_3"),
    "review-sentiment": (_csv({"id": [1, 2], "label": ["great", "other"]}), "id,other,great"),
    "titanic": (_csv({"PassengerId": [1, 2], "Survived": [0, 1]}), "PassengerId,Survived"),
}
MALFORMED_CSV: dict[str, tuple[Callable[[str], bytes], str]] = {
    "binary garbage": (lambda header: b"\x00\xff\xfe\x80]] {{\n" * 50,
                       r"submission\.csv (lacks the column|is not a readable CSV file)"),
    "a row of 5000 fields": (lambda header: header.encode() + b"\n" + b"1," * 5000 + b"\n",
                             r"submission\.csv has more than 1000 fields on line 2\."),
    "a 2 MB line": (lambda header: header.encode() + b"\n1" + b"0" * (2 << 20) + b"\n",
                    r"submission\.csv has a line longer than 1048576 bytes \(line 2\)\."),
    "a header of 20000 columns": (lambda header: ",".join(f"c{i}" for i in range(20000))
                                  .encode() + b"\n", r"submission\.csv has (a line longer|"
                                  r"more than 1000 fields)"),
}


def _rejection(task: str, private: Path, submission: Path, *runner: Any) -> str:
    with pytest.raises(InvalidSubmission) as caught:
        _score_module(task).score(submission, private, *runner)
    return str(caught.value)


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    private, submission = tmp_path / "private", tmp_path / "submission"
    private.mkdir()
    submission.mkdir()
    return private, submission


@pytest.mark.parametrize("case", MALFORMED_CSV)
@pytest.mark.parametrize("task", CSV_TASKS)
def test_a_malformed_csv_submission_is_invalid(tmp_path: Path, task: str, case: str) -> None:
    make_answers, header = CSV_TASKS[task]
    private, submission = _folders(tmp_path)
    make_answers(private)
    content, sentence = MALFORMED_CSV[case]
    (submission / "submission.csv").write_bytes(content(header))
    assert re.match(sentence, _rejection(task, private, submission))


def _zip(**members: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


MASKS = np.zeros((2, 64, 64), dtype=np.uint8)
CONTRAILS = {
    "pickled object arrays": (
        _zip(**{"ids.npy": _npy(np.array([1, "x"], dtype=object)), "masks.npy": _npy(MASKS)}),
        "submission.npz is not a readable .npz file (Object arrays cannot be loaded when "
        "allow_pickle=False)."),
    "a truncated archive": (_zip(**{"ids.npy": _npy(np.array([1, 2])),
                                    "masks.npy": _npy(MASKS)})[:300],
                            "submission.npz is not an .npz archive; write it with numpy.savez."),
    "a header declaring terabytes": (
        _zip(**{"ids.npy": HUGE_HEADER, "masks.npy": _npy(MASKS)}),
        "submission.npz is not a readable .npz file (Unable to allocate"),
    "a member that inflates to 400 MB": (
        _zip(**{"ids.npy": _npy(np.array([1, 2])),
                "masks.npy": _npy(np.zeros((100_000, 64, 64), dtype=np.uint8))}),
        "submission.npz's masks holds 409600128 bytes, more than the 131072 an answer can need."),
    "a member that is not an array": (_zip(**{"ids.npy": b"1,2", "masks.npy": _npy(MASKS)}),
                                      "submission.npz's ids is not a numpy array."),
    "float masks": (_zip(**{"ids.npy": _npy(np.array([1, 2])),
                            "masks.npy": _npy(MASKS.astype(float))}),
                    "submission.npz's masks have dtype float64; use uint8 (or bool) 0/1 values."),
}


@pytest.mark.parametrize("case", CONTRAILS)
def test_a_malformed_contrails_archive_is_invalid(tmp_path: Path, case: str) -> None:
    private, submission = _folders(tmp_path)
    np.savez(private / "answers.npz", ids=np.array([1, 2]), masks=MASKS)
    content, sentence = CONTRAILS[case]
    (submission / "submission.npz").write_bytes(content)
    assert _rejection("contrails", private, submission).startswith(sentence)


SHORTEST_PATHS = {
    "a pickled object array": (_npy(np.array([None, 1], dtype=object)),
                               "predictions.npy is not a readable .npy array (Object arrays "
                               "cannot be loaded when allow_pickle=False)."),
    "a truncated array": (_npy(np.zeros((2, 4, 4), dtype=np.int64))[:150],
                          "predictions.npy is not a readable .npy array ("),
    "a header declaring terabytes": (HUGE_HEADER, "predictions.npy is not a readable .npy "
                                                  "array (Unable to allocate"),
    "more data than an answer needs": (_npy(np.zeros(10_000, dtype=np.int64)),
                                       "predictions.npy holds 80128 bytes, more than the"),
    "complex values": (_npy(np.zeros((2, 4, 4), dtype=complex)),
                       "predictions.npy has dtype complex128, expected integers."),
}


@pytest.mark.parametrize("case", SHORTEST_PATHS)
def test_a_malformed_shortest_paths_array_is_invalid(tmp_path: Path, case: str) -> None:
    private, submission = _folders(tmp_path)
    np.savez(private / "answers.npz", n_nodes=np.array([4, 3]),
             predecessors=np.full((2, 4, 4), -1))
    content, sentence = SHORTEST_PATHS[case]
    (submission / "predictions.npy").write_bytes(content)
    assert _rejection("shortest-paths", private, submission).startswith(sentence)


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Callable[[Path], LocalSandbox]]:
    """What the harness gives a scorer (plain processes here, for speed;
    tests/adversarial runs scorers in bubblewrap and docker)."""
    made: list[LocalSandbox] = []

    def make(folder: Path) -> LocalSandbox:
        made.append(LocalSandbox(SandboxSpec(folder, isolation="none")))
        return made[-1]

    yield make
    for sandbox in made:
        sandbox.close()


GIANT_FRAME = """
import struct, sys
def load():
    sys.modules["__main__"].proto_out.write(struct.pack("<cI", b"E", 1 << 31))
    raise SystemExit(0)
"""
TINY_LM = {
    "no lm.py": (None, "The workspace has no lm.py for the scorer to load."),
    "a load() that fails": ("def load():\n    raise KeyError('weights')\n",
                            "Importing lm.py and calling lm.load() failed: KeyError: 'weights'"),
    "a frame of 2 GB": (GIANT_FRAME, "The model process sent a frame of 2147483648 bytes while "
                                     "loading, more than the 65536 expected."),
}


@pytest.mark.parametrize("case", TINY_LM)
def test_a_malformed_language_model_is_invalid(
    tmp_path: Path, runner: Callable[[Path], LocalSandbox], case: str
) -> None:
    private, submission = _folders(tmp_path)
    (private / "test.txt").write_text("In the beginning\nAnd the earth\n")
    source, sentence = TINY_LM[case]
    if source is not None:
        (submission / "lm.py").write_text(source)
    assert _rejection("tiny-lm", private, submission, runner(submission)).startswith(sentence)


# conv2d_forward (or generate) replaces numpy.save, with which the driver writes its output.
FIFO_OUTPUT = """
import os, numpy
def {function}(*args):
    numpy.save = lambda path, array, **options: os.mkfifo(path)
    return 0
"""


def test_a_vectorization_output_that_is_a_fifo_is_invalid(
    tmp_path: Path, runner: Callable[[Path], LocalSandbox]
) -> None:
    private, submission = _folders(tmp_path)
    (submission / "train.py").write_text(FIFO_OUTPUT.format(function="conv2d_forward"))
    sentence = _rejection("vectorization", private, submission, runner(submission))
    assert sentence == "The output of conv2d_forward is not a regular file."


@pytest.mark.slow
def test_a_llama_inference_output_that_is_a_fifo_is_invalid(
    tmp_path: Path, runner: Callable[[Path], LocalSandbox]
) -> None:
    task = load_task(TASKS / "llama-inference" / "task.toml")
    try:
        data = prepare_task(task, tmp_path / "cache")
    except TaskUnavailable as exc:  # torch or transformers missing
        pytest.skip(str(exc))
    submission = tmp_path / "submission"
    (submission / "llama").mkdir(parents=True)
    for path in (data.public / "llama").iterdir():
        (submission / "llama" / path.name).write_bytes(path.read_bytes())
    (submission / "train.py").write_text(FIFO_OUTPUT.format(function="generate"))
    sentence = _rejection("llama-inference", data.private, submission, runner(submission))
    assert sentence == "The output of generate is not a regular file."
