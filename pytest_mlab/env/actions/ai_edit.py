"""Edit Script (AI) and Edit Script Segment (AI): the edit model rewrites a file or a
range of its lines; the change is saved with a backup for Undo and shown as a diff."""

from __future__ import annotations

import difflib

from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import READ_LIMIT, _writable
from pytest_mlab.env.actions.llm_call import ask, fenced
from pytest_mlab.env.actions.paths import inside, relative

EDIT_MAX_CHARS = 100_000
"""The most text sent to the edit model in one request."""
_FENCE = "```"
_ANSWER_FORMAT = (
    "Reply with the complete result in a single fenced code block (```), leaving nothing "
    "out or abbreviated; put any remarks before the block."
)


def _source(env: ActionContext, script_name: str, *, missing_ok: bool) -> tuple[str, str]:
    """The script's name in the workspace and its exact text (line endings kept)."""
    path = inside(env.workspace.root, script_name)
    rel = relative(env.workspace.root, path)
    if not path.exists() and missing_ok:
        return rel, ""
    if not path.is_file():
        raise ActionError(f"{script_name!r} is not a file in the workspace.")
    try:
        return rel, path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ActionError(f"{rel} is not a UTF-8 text file.") from None


def extract_code(reply: str) -> list[str]:
    """The lines of the reply's last fenced block; of the whole reply if it has none.
    A block the model never closed (cut off at its token limit) still counts."""
    found: list[list[str]] = []
    block: list[str] | None = None
    for line in reply.splitlines():
        if block is None and line.lstrip().startswith(_FENCE):
            block = []
        elif block is not None and line.strip() == _FENCE:
            found.append(block)
            block = None
        elif block is not None:
            block.append(line)
    if block is not None:
        found.append(block)
    return found[-1] if found else reply.splitlines()


def _save(env: ActionContext, save_name: str, old_rel: str, old: str, new: str) -> str:
    path, rel = _writable(env, save_name)
    env.backups.remember(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(new.encode("utf-8"))
    diff = "\n".join(difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile=old_rel, tofile=rel, lineterm=""
    ))
    if not diff:
        return f"Saved {rel}; it is identical to {old_rel}, so there is no diff."
    return clip(f"Saved the edited file as {rel}. Check that this diff is the edit you "
                f"wanted; Undo Edit Script takes it back.\n{diff}", READ_LIMIT)


def _guard(text: str, what: str) -> None:
    if len(text) > EDIT_MAX_CHARS:
        raise ActionError(f"{what} has {len(text)} characters, more than the "
                          f"{EDIT_MAX_CHARS} an edit may cover; edit a range of lines.")


def edit_script(env: ActionContext, script_name: str, edit_instruction: str,
                save_name: str) -> str:
    rel, old = _source(env, script_name, missing_ok=True)
    _writable(env, save_name)  # refuse before paying for the model's answer
    _guard(old, rel)
    current = (f"Current content of {rel}:\n{fenced(old)}" if old
               else f"{rel} does not exist yet or is empty; write it from scratch.")
    prompt = (f"Edit the file {rel} as instructed.\n\nInstruction: {edit_instruction}\n\n"
              f"{current}\n\n{_ANSWER_FORMAT} The block must hold the whole new file.")
    reply = ask(env, prompt, "edit")
    if not reply:
        return f"The edit model gave an empty reply; nothing was saved to {save_name}."
    lines = extract_code(reply)
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
    _guard(segment, f"Lines {start_line_number}-{end} of {rel}")
    prompt = (f"Here are lines {start_line_number}-{end} of the file {rel}:\n"
              f"{fenced(segment)}\n\nRewrite these lines as instructed; the rest of the "
              f"file stays as it is.\n\nInstruction: {edit_instruction}\n\n{_ANSWER_FORMAT} "
              "The block replaces exactly these lines, with the indentation they need there.")
    reply = ask(env, prompt, "edit")
    if not reply:
        return f"The edit model gave an empty reply; nothing was saved to {save_name}."
    last = lines[end - 1]
    ending = last[len(last.rstrip("\r\n")):] or ("\r\n" if "\r\n" in old else "\n")
    new_lines = extract_code(reply)
    replacement = ending.join(new_lines) + ending if new_lines else ""
    if end == len(lines) and not last.endswith(("\n", "\r")):
        replacement = replacement.removesuffix(ending)  # the file ended without a newline
    new = "".join(lines[: start_line_number - 1]) + replacement + "".join(lines[end:])
    return _save(env, save_name, rel, old, new)


_SAVE = "the file to save the result as, relative to the workspace (may be the script itself)"
EDIT_SCRIPT = Action(
    "Edit Script (AI)",
    "Have a model edit a whole script following your instruction; the result is saved and "
    "you get the diff. A script that does not exist yet is written from scratch.",
    {
        "script_name": "the script to edit, relative to the workspace",
        "edit_instruction": "what to change, precisely and step by step",
        "save_name": _SAVE,
    },
    edit_script,
    writes="save_name",
)
EDIT_SCRIPT_SEGMENT = Action(
    "Edit Script Segment (AI)",
    "Like Edit Script (AI), but only a range of lines is rewritten; the rest of the "
    "script is kept as it is. For long scripts.",
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
