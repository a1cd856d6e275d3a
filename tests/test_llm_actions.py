from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from pytest_mlab.core.task import TrialLimits
from pytest_mlab.env.actions import understand
from pytest_mlab.env.actions.ai_edit import extract_code
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.env.actions.understand import blocks
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.llm import Completion, LLMClient, Usage
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

SCRIPT = "import os\n\ndef train():\n    return 1\n\nprint(train())\n"


@dataclass
class FakeLLM:
    """Returns scripted replies in order and records what it was asked."""

    replies: list[str]
    calls: list[tuple[str, str]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    step: int = 1

    def complete(self, messages: list[dict[str, Any]], *, role: str = "main",
                 tools: list[dict[str, Any]] | None = None,
                 stop: tuple[str, ...] = ()) -> Completion:
        self.calls.append((role, messages[-1]["content"]))
        return Completion(self.replies.pop(0), usage=Usage(calls=1))


def make_env(tmp_path: Path, *replies: str,
             options: ActionOptions | None = None) -> tuple[Environment, FakeLLM]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text(SCRIPT)
    (root / "data.csv").write_text("a,b\n")
    (tmp_path / "secret.py").write_text("x = 1\n")
    llm = FakeLLM(list(replies))
    env = Environment(
        research_problem="make train() return 2", entry="train.py",
        workspace=Workspace(root, {"data.csv": "hash"}), sandbox=LocalSandbox(SandboxSpec(root)),
        limits=TrialLimits(max_steps=50, max_time=60.0, script_timeout=30.0),
        llm=cast(LLMClient, llm), action_options=options,
    )
    return env, llm


def test_the_llm_actions_are_offered_only_with_an_llm(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path)
    assert {"Understand File", "Edit Script (AI)", "Edit Script Segment (AI)", "Reflection",
            "Retrieval from Research Log", "Append Summary to Research Log"} <= set(env.actions)
    plain = Environment(research_problem="p", entry="train.py", workspace=env.workspace,
                        sandbox=env.sandbox, limits=env.limits)
    assert "Edit Script (AI)" not in plain.actions


def test_edit_script_saves_the_fenced_file_returns_a_diff_and_can_be_undone(
    tmp_path: Path,
) -> None:
    new = SCRIPT.replace("return 1", "return 2")
    env, llm = make_env(tmp_path, f"Here it is:\n```python\n{new}```\nDone.")
    observation = env.execute("Edit Script (AI)", script_name="train.py",
                              edit_instruction="return 2", save_name="train.py")
    assert "-    return 1\n+    return 2" in observation
    assert "--- train.py\n+++ train.py" in observation
    path = env.workspace.root / "train.py"
    assert path.read_text() == new
    role, prompt = llm.calls[0]
    assert role == "edit" and "return 2" in prompt and "return 1" in prompt
    assert "Undid the last edit" in env.execute("Undo Edit Script", script_name="train.py")
    assert path.read_text() == SCRIPT


def test_edit_script_can_save_elsewhere_and_start_a_new_file(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path, "```python\nprint('hi')\n```", "```python\nx = 1\n```")
    observation = env.execute("Edit Script (AI)", script_name="new.py",
                              edit_instruction="greet", save_name="out/new.py")
    root = env.workspace.root
    assert "+print('hi')" in observation and (root / "out/new.py").read_text() == "print('hi')\n"
    env.execute("Edit Script (AI)", script_name="train.py", edit_instruction="x",
                save_name="copy.py")
    assert (root / "copy.py").read_text() == "x = 1\n" and (root / "train.py").read_text() == SCRIPT
    env.execute("Undo Edit Script", script_name="copy.py")
    assert not (root / "copy.py").exists()


def test_segment_edit_keeps_the_other_lines_byte_identical(tmp_path: Path) -> None:
    env, llm = make_env(tmp_path, "```python\ndef train():\n    return 2\n    # more\n```")
    path = env.workspace.root / "train.py"
    original = b"import os\r\n\r\ndef train():\r\n    return 1\r\n\r\nprint(train())  \t"
    path.write_bytes(original)
    observation = env.execute("Edit Script Segment (AI)", script_name="train.py",
                              start_line_number="3", end_line_number=4,
                              edit_instruction="return 2", save_name="train.py")
    assert path.read_bytes() == (b"import os\r\n\r\ndef train():\r\n    return 2\r\n"
                                 b"    # more\r\n\r\nprint(train())  \t")
    assert "+    return 2" in observation and "+    # more" in observation
    prompt = llm.calls[0][1]
    assert "lines 3-4" in prompt and "import os" not in prompt
    env.execute("Undo Edit Script", script_name="train.py")
    assert path.read_bytes() == original


def test_segment_edit_of_the_last_line_keeps_a_missing_final_newline(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path, "```python\nprint(train() + 1)\n```")
    path = env.workspace.root / "train.py"
    path.write_text(SCRIPT.rstrip("\n"))
    env.execute("Edit Script Segment (AI)", script_name="train.py", start_line_number=6,
                end_line_number=99, edit_instruction="add one", save_name="train.py")
    assert path.read_text() == SCRIPT.replace("print(train())\n", "print(train() + 1)")


@pytest.mark.parametrize(
    ("action", "args", "observation"),
    [
        ("Edit Script (AI)", {"script_name": "../secret.py", "edit_instruction": "x",
                              "save_name": "a.py"}, "lies outside the workspace"),
        ("Edit Script (AI)", {"script_name": "train.py", "edit_instruction": "x",
                              "save_name": "../secret.py"}, "lies outside the workspace"),
        ("Edit Script (AI)", {"script_name": "train.py", "edit_instruction": "x",
                              "save_name": "data.csv"}, "data.csv is read-only."),
        ("Edit Script (AI)", {"script_name": "train.py", "edit_instruction": "x"},
         "takes script_name, edit_instruction, save_name"),
        ("Edit Script Segment (AI)", {"script_name": "train.py", "start_line_number": "x",
                                      "end_line_number": 2, "edit_instruction": "x",
                                      "save_name": "train.py"}, "must be a whole number"),
        ("Edit Script Segment (AI)", {"script_name": "train.py", "start_line_number": 0,
                                      "end_line_number": 2, "edit_instruction": "x",
                                      "save_name": "train.py"}, "Line numbers start at 1"),
        ("Edit Script Segment (AI)", {"script_name": "train.py", "start_line_number": 4,
                                      "end_line_number": 2, "edit_instruction": "x",
                                      "save_name": "train.py"}, "may not precede the start"),
        ("Edit Script Segment (AI)", {"script_name": "train.py", "start_line_number": 9,
                                      "end_line_number": 12, "edit_instruction": "x",
                                      "save_name": "train.py"}, "train.py has only 6 lines"),
        ("Edit Script Segment (AI)", {"script_name": "nope.py", "start_line_number": 1,
                                      "end_line_number": 2, "edit_instruction": "x",
                                      "save_name": "nope.py"}, "is not a file"),
        ("Understand File", {"file_name": "nope.txt", "things_to_look_for": "x"},
         "is not a file"),
        ("Understand File", {"file_name": "blob.bin", "things_to_look_for": "x"},
         "is a binary file"),
        ("Understand File", {"file_name": "latin.txt", "things_to_look_for": "x"},
         "is not a UTF-8 text file"),
        ("Understand File", {"file_name": "train.py", "things_to_look_for": " "},
         "Say what to look for"),
        ("Append Summary to Research Log", {"content": ""}, "nothing to append"),
        ("Reflection", {"things_to_reflect_on": ""}, "Say what to reflect on"),
    ],
)
def test_invalid_requests_are_refused_without_asking_the_model(
    tmp_path: Path, action: str, args: dict[str, object], observation: str
) -> None:
    env, llm = make_env(tmp_path)
    (env.workspace.root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (env.workspace.root / "latin.txt").write_bytes(b"caf\xe9")
    result = env.execute(action, **args)
    assert result.startswith("Invalid action:") and observation in result
    assert llm.calls == [] and (tmp_path / "secret.py").read_text() == "x = 1\n"
    assert (env.workspace.root / "train.py").read_text() == SCRIPT


@pytest.mark.parametrize("reply", [
    "  \n",
    "Sure! I changed train() so that it returns 2 and left the rest alone.",
    "```\ndef train():\n    return 2\n```",  # a block, but not marked as Python
])
def test_an_edit_reply_without_python_code_changes_nothing(tmp_path: Path, reply: str) -> None:
    """As in the original: no ```python block, no write. The prose reply once overwrote
    train.py and the next run failed with a SyntaxError."""
    env, _ = make_env(tmp_path, reply, reply)
    observation = env.execute("Edit Script (AI)", script_name="train.py",
                              edit_instruction="x", save_name="train.py")
    assert "nothing was saved and train.py is unchanged" in observation
    assert "nothing was saved" in env.execute(
        "Edit Script Segment (AI)", script_name="train.py", start_line_number=1,
        end_line_number=1, edit_instruction="x", save_name="train.py")
    assert (env.workspace.root / "train.py").read_text() == SCRIPT
    assert "no earlier version" in env.execute("Undo Edit Script", script_name="train.py")


def test_the_edit_prompt_shows_python_and_asks_for_a_python_block(tmp_path: Path) -> None:
    env, llm = make_env(tmp_path, "```python\nx = 1\n```")
    env.execute("Edit Script (AI)", script_name="train.py", edit_instruction="set x",
                save_name="train.py")
    role, prompt = llm.calls[0]
    assert role == "edit"
    assert f"```python\n{SCRIPT}```" in prompt and "set x" in prompt
    assert "begins with ```python" in prompt and "changing nothing beyond" in prompt


def test_extract_code_takes_the_first_python_block() -> None:
    assert extract_code("```\na\n```\n```python\nb\n  c\n```\n```python\nd\n```") == [
        "b", "  c"]
    assert extract_code("x = 1\ny = 2") is None
    assert extract_code("```py\nx = 1\n```") is None
    assert extract_code("sure:\n```python\n\n    x = 1\n\n") == ["    x = 1"]  # cut off
    assert extract_code("```Python3\nx = 1\n```") == ["x = 1"]
    assert extract_code("```python\n```") == []


def test_blocks_are_whole_lines_bounded_in_characters() -> None:
    text = "".join(f"line {n:03}\n" for n in range(1, 31))  # 9 characters a line
    parts = blocks(text, 40)
    assert [(first, last) for first, last, _ in parts] == [(n, n + 3) for n in range(1, 29, 4)] + [
        (29, 30)]
    assert "".join(chunk for _, _, chunk in parts) == text
    assert blocks("ab\n" + "x" * 25 + "\ncd", 10) == [
        (1, 1, "ab\n"), (2, 2, "x" * 10), (2, 2, "x" * 10), (2, 3, "xxxxx\ncd")]


def test_understand_file_reads_a_short_file_in_one_call(tmp_path: Path) -> None:
    env, llm = make_env(tmp_path, "train() returns 1 (line 4).")
    observation = env.execute("Understand File", file_name="train.py",
                              things_to_look_for="what train returns")
    assert observation == "train() returns 1 (line 4)."
    [(role, prompt)] = llm.calls
    assert role == "fast" and "lines 1-6" in prompt and "what train returns" in prompt
    llm.replies.append("")
    assert env.execute("Understand File", file_name="train.py", things_to_look_for="x") == (
        "The model reading train.py gave an empty answer.")


def test_understand_file_asks_per_block_then_combines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(understand, "BLOCK_CHARS", 100)
    env, llm = make_env(tmp_path, "first part", "", "third part", "all of it")
    (env.workspace.root / "long.txt").write_text("".join(f"row {n:05}\n" for n in range(30)))
    observation = env.execute("Understand File", file_name="long.txt",
                              things_to_look_for="rows")
    assert observation == "all of it"
    assert [role for role, _ in llm.calls] == ["fast"] * 4
    assert "lines 1-10" in llm.calls[0][1] and "lines 21-30" in llm.calls[2][1]
    assert "In this segment, I cannot find" in llm.calls[0][1]
    combine = llm.calls[3][1]
    assert "Segment 1 (lines 1-10):\nfirst part" in combine
    assert "Segment 2 (lines 11-20):\n(no answer)" in combine


def test_understand_file_reads_the_whole_file_however_long(tmp_path: Path) -> None:
    """The original read every block: 2,500 lines of 100 characters, in blocks of at most
    10,000 characters of whole lines, are 25 blocks of 100 lines, then a merge."""
    blocks_needed = 25
    env, llm = make_env(tmp_path, *["seen"] * blocks_needed, "merged")
    (env.workspace.root / "big.csv").write_text(("x" * 99 + "\n") * 2500)
    observation = env.execute("Understand File", file_name="big.csv", things_to_look_for="x")
    assert observation == "merged"
    assert len(llm.calls) == blocks_needed + 1
    assert "lines 2401-2500" in llm.calls[-2][1]


def test_understand_file_stops_at_the_chosen_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(understand, "BLOCK_CHARS", 100)
    env, llm = make_env(tmp_path, "a", "b", "", options=ActionOptions(understand_limit=200))
    (env.workspace.root / "long.txt").write_text("".join(f"row {n:05}\n" for n in range(30)))
    observation = env.execute("Understand File", file_name="long.txt", things_to_look_for="x")
    assert len(llm.calls) == 3
    assert observation.startswith("Segment 1 (lines 1-10):\na\n\nSegment 2 (lines 11-20):\nb")
    assert observation.endswith("(Only lines 1-20 were read; long.txt goes on beyond them.)")


def test_the_research_log_round_trip(tmp_path: Path) -> None:
    env, llm = make_env(tmp_path, "Entry 2 matters.", "Try a larger model.", "")
    assert env.execute("Retrieval from Research Log", current_plan="tune") == (
        "The research log is empty.")
    assert env.execute("Append Summary to Research Log", content="baseline 0.61\n") == (
        "Appended entry 1 (13 characters) to the research log.")
    env.execute("Append Summary to Research Log", content="lr 1e-3 gives 0.70")
    assert env.research_log == ["baseline 0.61", "lr 1e-3 gives 0.70"]
    assert env.execute("Retrieval from Research Log", current_plan="tune lr") == (
        "Entry 2 matters.")
    assert env.execute("Reflection", things_to_reflect_on="what next") == (
        "Reflection: Try a larger model.")
    assert env.execute("Reflection", things_to_reflect_on="again") == (
        "The model gave an empty reflection.")
    (retrieve_role, retrieve), (reflect_role, reflect) = llm.calls[:2]
    assert retrieve_role == "fast" and "[2] lr 1e-3 gives 0.70" in retrieve
    assert "tune lr" in retrieve
    assert reflect_role == "fast" and "make train() return 2" in reflect  # as the original
    assert "[1] baseline 0.61" in reflect and "what next" in reflect
    assert sorted(p.name for p in env.workspace.root.iterdir()) == ["data.csv", "train.py"]
    llm.replies.append("Entry 1 is the baseline.")
    # The research agent asks with an empty plan, as the original's did.
    assert env.execute("Retrieval from Research Log", current_plan="") == (
        "Entry 1 is the baseline.")
    assert "make train() return 2" in llm.calls[-1][1]
