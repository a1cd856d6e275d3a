"""The helpers the tasks' scorers and preparers share (pytest_mlab.taskkit)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec
from pytest_mlab.taskkit.sources import require_module
from pytest_mlab.taskkit.splits import hold_out, shuffle_and_number, write_csv_split
from pytest_mlab.taskkit.submission import CsvSubmission, read_csv_submission
from pytest_mlab.taskkit.timed_child import ChildProgram, start_timed_child

ANSWER_IDS = pd.Index([1, 2, 3, 4], name="Id")


def _submission(
    tmp_path: Path, text: str | None, values: tuple[str, ...] = ("price",)
) -> CsvSubmission:
    """The submission of ``text`` (None: no file at all) read with these value columns."""
    path = tmp_path / "submission.csv"
    if text is not None:
        path.write_text(text)
    return read_csv_submission(path, "Id", values)


def _rejection(tmp_path: Path, text: str | None, values: tuple[str, ...] = ("price",)) -> str:
    """The sentence that rejects a submission of ``text`` whose prices are checked."""
    with pytest.raises(InvalidSubmission) as caught:
        submission = _submission(tmp_path, text, values)
        prices = submission.finite_numbers(["price"], described_as="a price")
        submission.in_answer_order(prices, ANSWER_IDS)
    return str(caught.value)


def test_a_good_submission_comes_back_in_the_answers_order(tmp_path: Path) -> None:
    submission = _submission(tmp_path, "Id,a,b\n3,5,6\n1,1,2\n4,7,8\n2,3,4.5\n", ("a", "b"))
    values = np.ascontiguousarray(submission.finite_numbers(["a", "b"]))
    ordered = submission.in_answer_order(values, ANSWER_IDS)
    assert ordered.tolist() == [[1, 2], [3, 4.5], [5, 6], [7, 8]]
    assert submission.ids.tolist() == [3, 1, 4, 2]
    # Column-major, like a pandas frame's values, whatever the input's order.
    assert ordered.flags.f_contiguous


UNREADABLE = "submission.csv is not a readable CSV file (No columns to parse from file)."
BAD_ID = "submission.csv has an Id that is missing or not an integer."
BAD_PRICE = "submission.csv has a price that is missing or not a finite number."
PRICE_REJECTIONS: dict[str, tuple[str | None, str]] = {
    "missing file": (None, "No submission.csv was written to the workspace root."),
    "empty file": ("", UNREADABLE),
    "missing columns": ("Id,cost\n1,10\n", "submission.csv lacks the column(s) price."),
    "empty id": ("Id,price\n,10\n", BAD_ID),
    "fractional id": ("Id,price\n1.5,10\n", BAD_ID),
    "text id": ("Id,price\none,10\n", BAD_ID),
    "empty price": ("Id,price\n1,\n", BAD_PRICE),
    "infinite price": ("Id,price\n1,inf\n", BAD_PRICE),
    "text price": ("Id,price\n1,cheap\n", BAD_PRICE),
    "repeated id": ("Id,price\n1,10\n2,20\n2,21\n3,30\n4,40\n", "submission.csv repeats Id 2."),
    "unknown id": (
        "Id,price\n1,10\n9,90\n2,20\n3,30\n4,40\n",
        "submission.csv has Id 9, which is not in test.csv.",
    ),
    "absent ids": ("Id,price\n2,20\n4,40\n", "submission.csv lacks 2 test Ids, e.g. Id 1."),
}


@pytest.mark.parametrize("rule", PRICE_REJECTIONS)
def test_each_rule_rejects_its_bad_input_with_its_sentence(tmp_path: Path, rule: str) -> None:
    text, sentence = PRICE_REJECTIONS[rule]
    assert _rejection(tmp_path, text) == sentence


def test_the_id_sentence_fits_its_article_to_the_column(tmp_path: Path) -> None:
    path = tmp_path / "submission.csv"
    path.write_text("node_id,label\nx,1\n")
    with pytest.raises(InvalidSubmission) as caught:
        read_csv_submission(path, "node_id", ["label"])
    assert str(caught.value) == "submission.csv has a node_id that is missing or not an integer."


def test_without_a_description_the_first_bad_values_column_is_named(tmp_path: Path) -> None:
    text = "Id,width,area\n1,1,2\n2,3,nan\n3,,4\n"
    submission = _submission(tmp_path, text, values=("width", "area"))
    with pytest.raises(InvalidSubmission) as caught:
        submission.finite_numbers(["width", "area"])
    assert str(caught.value) == (
        "submission.csv has an area value that is missing or not a finite number."
    )


@pytest.mark.parametrize("label", ["-1", "10"])
def test_a_class_number_out_of_range_is_rejected(tmp_path: Path, label: str) -> None:
    in_range = _submission(tmp_path, "Id,label\n1,0\n2,9\n", values=("label",))
    assert in_range.class_numbers("label", 10).tolist() == [0, 9]
    submission = _submission(tmp_path, f"Id,label\n1,3\n2,{label}\n", values=("label",))
    with pytest.raises(InvalidSubmission) as caught:
        submission.class_numbers("label", 10)
    assert str(caught.value) == f"submission.csv has label {label}, not a class number from 0 to 9."


def test_the_id_sentences_take_the_tasks_words(tmp_path: Path) -> None:
    submission = _submission(tmp_path, "Id,price\n1,10\n9,90\n", values=("price",))
    values = np.array([10.0, 90.0])
    with pytest.raises(InvalidSubmission) as unknown:
        submission.in_answer_order(values, ANSWER_IDS, listed="a test house")
    assert str(unknown.value) == "submission.csv has Id 9, which is not a test house."
    submission = _submission(tmp_path, "Id,price\n1,10\n")
    with pytest.raises(InvalidSubmission) as absent:
        submission.in_answer_order(np.array([10.0]), ANSWER_IDS, rows="test houses")
    assert str(absent.value) == "submission.csv lacks 3 test houses, e.g. Id 2."


def test_a_table_is_shuffled_numbered_split_and_written(tmp_path: Path) -> None:
    table = pd.DataFrame({"x": range(10), "y": range(10, 20)})
    numbered = shuffle_and_number(table, seed=1, id_column="Id")
    assert numbered["Id"].tolist() == list(range(1, 11))
    assert sorted(numbered["x"]) == list(range(10)) and numbered["x"].tolist() != list(range(10))
    assert (numbered["y"] - numbered["x"] == 10).all()
    train, test = hold_out(numbered, test_fraction=0.3)
    assert len(test) == 3 and test["Id"].tolist() == [1, 2, 3] and len(train) == 7
    write_csv_split(tmp_path / "public", tmp_path / "private", train, test, "Id", ["y"])
    assert list(pd.read_csv(tmp_path / "public" / "test.csv").columns) == ["Id", "x"]
    answers = pd.read_csv(tmp_path / "private" / "answers.csv")
    assert answers.to_dict("list") == test[["Id", "y"]].to_dict("list")
    assert len(pd.read_csv(tmp_path / "public" / "train.csv")) == 7


def test_a_missing_module_says_how_to_install_it() -> None:
    assert require_module("json").dumps([1]) == "[1]"
    with pytest.raises(TaskUnavailable) as caught:
        require_module("no_such_module_for_taskkit", install="pip install something")
    assert str(caught.value) == (
        "The no_such_module_for_taskkit package is missing; run: pip install something"
    )


def test_importing_taskkit_imports_neither_pytest_nor_the_rest_of_the_plugin() -> None:
    names = ("submission", "arrays", "timed_child", "child_driver", "child_watch", "scratch",
             "sources", "splits")
    modules = [f"pytest_mlab.taskkit.{name}" for name in names]
    roots = ("pytest", "_pytest", "pytest_mlab")
    probe = f"import sys, {', '.join(modules)}; print(*(m for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    plugin = {"pytest_mlab", "pytest_mlab.core", "pytest_mlab.core.errors",
              "pytest_mlab.core.version", "pytest_mlab.core.tree", "pytest_mlab.taskkit"}
    imported = {name for name in result.stdout.split() if name.split(".")[0] in roots}
    assert imported == plugin | set(modules)


# The timed child: the workspace's train.py defines f(x); the adapter calls it on "x".
ADAPTER = 'def call(fn, inputs, context):\n    return fn(inputs["x"])\n'
PROGRAM = ChildProgram(function="f", adapter=ADAPTER)


_SANDBOXES: list[LocalSandbox] = []


def _runner(workspace: Path) -> LocalSandbox:
    """What the harness gives a scorer: a sandbox over the submission (plain processes
    here, for speed; tests/test_adversarial.py runs scorers in bubblewrap and docker)."""
    _SANDBOXES.append(LocalSandbox(SandboxSpec(workspace, isolation="none")))
    return _SANDBOXES[-1]


@pytest.fixture(autouse=True)
def _close_sandboxes() -> Iterator[None]:
    yield
    while _SANDBOXES:
        _SANDBOXES.pop().close()


def _workspace(tmp_path: Path, train_py: str) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "train.py").write_text(textwrap.dedent(train_py))
    return workspace


def _failure(
    workspace: Path, program: ChildProgram = PROGRAM, timeout: float = 30.0, total: float = 60.0
) -> str:
    """The sentence that ends waiting for the child and calling f once."""
    with (
        start_timed_child(workspace, _runner(workspace), program, total) as child,
        pytest.raises(InvalidSubmission) as caught,
    ):
        child.wait_until_ready(timeout)
        child.call({"x": np.arange(3)}, "first", timeout)
    return str(caught.value)


def test_a_good_call_is_timed_and_returns_the_output(tmp_path: Path) -> None:
    workspace = _workspace(
        tmp_path,
        """
        import time
        print("ready")  # prints must not be taken for protocol lines
        def f(x):
            print("done /elsewhere.out.npy")
            time.sleep(0.2)
            return x * 2
        """,
    )
    with start_timed_child(workspace, _runner(workspace), PROGRAM, 60.0) as child:
        child.wait_until_ready(30.0)
        seconds, out = child.call({"x": np.arange(3)}, "first", 30.0)
        again, _ = child.call({"x": np.arange(2)}, "second", 30.0)
    assert out.tolist() == [0, 2, 4]
    assert 0.2 <= seconds < 10.0 and 0.2 <= again < 10.0


def test_a_crash_is_reported_with_its_reason(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "def f(x):\n    raise KeyError('bad input')\n")
    assert _failure(workspace) == "The call to f failed (KeyError: 'bad input')."


def test_a_child_that_dies_is_reported_with_its_last_stderr_line(tmp_path: Path) -> None:
    workspace = _workspace(
        tmp_path,
        """
        import os, sys
        def f(x):
            print("out of memory", file=sys.stderr, flush=True)
            os._exit(3)
        """,
    )
    assert _failure(workspace) == (
        "The scoring process exited while running f (last stderr line: out of memory)."
    )


def test_a_failed_import_and_a_missing_function_are_reported(tmp_path: Path) -> None:
    broken = _workspace(tmp_path / "a", "raise RuntimeError('no data')\n")
    assert _failure(broken) == "Importing train.py failed (RuntimeError: no data)."
    empty = _workspace(tmp_path / "b", "g = 1\n")
    assert _failure(empty) == "The workspace's train.py defines no function f."


def test_a_forged_unprompted_line_is_rejected(tmp_path: Path) -> None:
    # f finds the driver's protocol stream and, after answering, writes a "done" of its
    # own, hoping it is taken for the answer to the next call.
    workspace = _workspace(
        tmp_path,
        """
        import sys, threading, time
        def f(x):
            proto = sys.modules["__main__"].proto
            def forge():
                time.sleep(0.3)
                proto.write("done /tmp/forged.out.npy\\n")
                proto.flush()
            threading.Thread(target=forge).start()
            return x
        """,
    )
    with start_timed_child(workspace, _runner(workspace), PROGRAM, 60.0) as child:
        child.wait_until_ready(30.0)
        child.call({"x": np.arange(3)}, "first", 30.0)
        time.sleep(1.5)
        with pytest.raises(InvalidSubmission) as caught:
            child.call({"x": np.arange(3)}, "second", 30.0)
    assert str(caught.value) == "The scoring process wrote 'done /tmp/forged.out.npy' unprompted."


def test_a_call_past_its_timeout_is_rejected(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "import time\ndef f(x):\n    time.sleep(60)\n")
    started = time.monotonic()
    assert _failure(workspace, timeout=1.0) == "Timed out after 1 s while running f."
    assert time.monotonic() - started < 20.0


def test_no_wait_runs_past_the_total_deadline(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, "import time\ntime.sleep(60)\n")
    sentence = _failure(workspace, timeout=30.0, total=1.0)
    assert sentence == "Timed out after 1 s while importing train.py."


def test_the_adapter_sets_up_the_context_and_checks_each_call(tmp_path: Path) -> None:
    adapter = r"""
SETUP_FAILURE = "Loading the offset failed"
def setup(workspace, offset):
    return int(offset)
def call(fn, inputs, offset):
    return fn(inputs["x"]) + offset
def after_call(offset):
    import train
    return "f changed the global LIMIT" if train.LIMIT != 1 else None
"""
    program = ChildProgram(function="f", adapter=adapter, args=("100",))
    workspace = _workspace(
        tmp_path,
        """
        LIMIT = 1
        def f(x):
            global LIMIT
            LIMIT += len(x) > 2
            return x
        """,
    )
    with start_timed_child(workspace, _runner(workspace), program, 60.0) as child:
        child.wait_until_ready(30.0)
        assert child.call({"x": np.arange(2)}, "first", 30.0)[1].tolist() == [100, 101]
        with pytest.raises(InvalidSubmission) as caught:
            child.call({"x": np.arange(3)}, "second", 30.0)
    assert str(caught.value) == "f changed the global LIMIT."
    failing = ChildProgram(function="f", adapter=adapter, args=("many",))
    assert _failure(workspace, failing) == (
        "Loading the offset failed (ValueError: invalid literal for int() with base 10: 'many')."
    )
