"""Edit Script (AI) and Edit Script Segment (AI): the edit model rewrites a file or a
range of its lines; the change is saved with a backup for Undo and shown as a diff."""

from __future__ import annotations

import difflib

from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import _writable
from pytest_mlab.env.actions.llm_call import ask, fenced
from pytest_mlab.env.actions.paths import inside, relative

MAX_SOURCE_BYTES = 8_000_000
"""A bigger file is refused unread, to spare the harness's memory: no model's context
holds it (about two million tokens). Anything smaller is sent, as MLAgentBench sent it;
a model that finds it too long makes that the observation."""
_FENCE = "```"
_ANSWER_FORMAT = (
    "Reply with the complete code after the edit in one fenced block that begins with "
    "```python, changing nothing beyond what the instruction asks."
)


def _source(env: ActionContext, script_name: str, *, missing_ok: bool) -> tuple[str, str]:
    """The script's name in the workspace and its exact text (line endings kept)."""
    path = inside(env.workspace.root, script_name)
    rel = relative(env.workspace.root, path)
    if not path.exists() and missing_ok:
        return rel, ""
    if not path.is_file():
        raise ActionError(f"{script_name!r} is not a file in the workspace.")
    # Checked before reading: a huge file would cost the harness its size in memory.
    if (size := path.stat().st_size) > MAX_SOURCE_BYTES:
        raise ActionError(f"{rel} has {size:,} bytes, more than any model's context holds.")
    try:
        return rel, path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ActionError(f"{rel} is not a UTF-8 text file.") from None


def extract_code(reply: str) -> list[str] | None:
    """The lines of the reply's first ```python block, as MLAgentBench takes them; None if
    there is none. A block the model never closed (cut off at its token limit) still
    counts; blank lines around the code are dropped, indentation is kept."""
    block: list[str] | None = None
    for line in reply.splitlines():
        opener = line.strip()
        if block is None:
            if opener.startswith(_FENCE) and opener[3:].lower().startswith("python"):
                block = []
        elif opener.startswith(_FENCE):
            break
        else:
            block.append(line)
    if block is None:
        return None
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    return block


def _refusal(reply: str, save_name: str) -> str:
    said = "an empty reply" if not reply else "a reply without a ```python code block"
    return (f"The edit model gave {said}, so nothing was saved and {save_name} is "
            "unchanged. Try again, perhaps with a shorter or clearer instruction.")


def _save(env: ActionContext, save_name: str, old_rel: str, old: str, new: str) -> str:
    path, rel = _writable(env, save_name)
    no_undo = env.backups.remember(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(new.encode("utf-8"))
    diff = "\n".join(difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_rel, tofile=rel, lineterm=""
    ))
    if not diff:
        return f"Saved {rel}; it is identical to {old_rel}, so there is no diff."
    undo = no_undo or "Undo Edit Script takes it back."
    return (f"Saved the edited file as {rel}. Check that this diff is the edit you wanted; "
            f"{undo}\n{diff}")


def edit_script(env: ActionContext, script_name: str, edit_instruction: str,
                save_name: str) -> str:
    rel, old = _source(env, script_name, missing_ok=True)
    _writable(env, save_name)  # refuse before paying for the model's answer
    current = (f"Here is the Python script {rel}:\n{fenced(old, 'python')}" if old
               else f"The Python script {rel} is empty or does not exist yet.")
    prompt = (f"{current}\n\nEdit it by following this instruction:\n{edit_instruction}\n\n"
              f"{_ANSWER_FORMAT} The block must hold the whole script.")
    reply = ask(env, prompt, "edit")
    lines = extract_code(reply)
    if lines is None:
        return _refusal(reply, save_name)
    return _save(env, save_name, rel, old, "\n".join(lines) + "\n" if lines else "")


def edit_script_segment(env: ActionContext, script_name: str, start_line_number: int,
                        end_line_number: int, edit_instruction: str, save_name: str) -> str:
    rel, old = _source(env, script_name, missing_ok=False)
    lines = old.splitlines(keepends=True)
    if start_line_number < 1 or end_line_number < start_line_number:
        raise ActionError("Line numbers start at 1 and the end may not precede the start.")
    if start_line_number > len(lines):
        raise ActionError(f"{rel} has only {len(lines)} lines.")
    end = min(end_line_number, len(lines))
    _writable(env, save_name)
    segment = "".join(lines[start_line_number - 1 : end])
    prompt = (f"Here are lines {start_line_number}-{end} of the Python script {rel}:\n"
              f"{fenced(segment, 'python')}\n\nEdit this segment by following this "
              f"instruction:\n{edit_instruction}\n\n{_ANSWER_FORMAT} The block replaces "
              "exactly these lines, with the indentation they need there.")
    reply = ask(env, prompt, "edit")
    new_lines = extract_code(reply)
    if new_lines is None:
        return _refusal(reply, save_name)
    last = lines[end - 1]
    ending = last[len(last.rstrip("\r\n")):] or ("\r\n" if "\r\n" in old else "\n")
    replacement = ending.join(new_lines) + ending if new_lines else ""
    if end == len(lines) and not last.endswith(("\n", "\r")):
        replacement = replacement.removesuffix(ending)  # the file ended without a newline
    new = "".join(lines[: start_line_number - 1]) + replacement + "".join(lines[end:])
    return _save(env, save_name, rel, old, new)


_SAVE = "the file to save the result as, relative to the workspace (may be the script itself)"
EDIT_SCRIPT = Action(
    "Edit Script (AI)",
    "Have another AI make a large but coherent edit to a whole Python script: describe the "
    "edit instead of writing it. The result is saved and you get the diff to check; Undo "
    "Edit Script takes it back. A script that does not exist yet is written from scratch.",
    {
        "script_name": "the script to edit, relative to the workspace (if it does not "
                       "exist, the edit starts from an empty script)",
        "edit_instruction": "what to change, precisely and step by step",
        "save_name": _SAVE,
    },
    edit_script,
    writes="save_name",
)
EDIT_SCRIPT_SEGMENT = Action(
    "Edit Script Segment (AI)",
    "Like Edit Script (AI), but only a range of lines is rewritten by the other AI; the "
    "rest of the script is kept as it is. For long scripts.",
    {
        "script_name": "the script to edit, relative to the workspace",
        "start_line_number": "the first line to rewrite, counting from 1",
        "end_line_number": "the last line to rewrite (inclusive)",
        "edit_instruction": "what to change, precisely and step by step",
        "save_name": _SAVE,
    },
    edit_script_segment,
    integers=frozenset({"start_line_number", "end_line_number"}),
    writes="save_name",
)
