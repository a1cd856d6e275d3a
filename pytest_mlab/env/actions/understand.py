"""Understand File: the fast model reads a file block by block and answers a question."""

from __future__ import annotations

from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import READ_LIMIT
from pytest_mlab.env.actions.llm_call import ask, fenced
from pytest_mlab.env.actions.paths import inside, relative

BLOCK_CHARS = 10_000
MAX_BLOCKS = 20


def _head(env: ActionContext, file_name: str, limit: int) -> tuple[str, str, bool]:
    """The file's name in the workspace, its first ``limit`` characters, and whether
    there is more. Data files can be huge, so no more than that is read."""
    path = inside(env.workspace.root, file_name)
    if not path.is_file():
        raise ActionError(f"{file_name!r} is not a file in the workspace.")
    rel = relative(env.workspace.root, path)
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(limit + 1)
    except UnicodeDecodeError:
        raise ActionError(f"{rel} is not a UTF-8 text file.") from None
    if "\0" in text:
        raise ActionError(f"{rel} is a binary file.")
    return rel, text[:limit], len(text) > limit


def blocks(text: str, size: int) -> list[tuple[int, int, str]]:
    """Split ``text`` into (first line, last line, text) blocks of whole lines, each at
    most ``size`` characters; a longer line is cut into pieces of its own."""
    found: list[tuple[int, int, str]] = []
    start, chunk, number = 1, "", 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if chunk and len(chunk) + len(line) > size:
            found.append((start, number - 1, chunk))
            start, chunk = number, ""
        while len(line) > size:
            found.append((number, number, line[:size]))
            line = line[size:]
            start = number
        chunk += line
    if chunk:
        found.append((start, number, chunk))
    return found


def understand_file(env: ActionContext, file_name: str, things_to_look_for: str) -> str:
    if not things_to_look_for.strip():
        raise ActionError("Say what to look for in things_to_look_for.")
    rel, text, more = _head(env, file_name, BLOCK_CHARS * MAX_BLOCKS)
    if not text.strip():
        return f"{rel} is empty."
    parts = blocks(text, BLOCK_CHARS)
    replies = []
    for first, last, chunk in parts:
        prompt = (
            f"Here are lines {first}-{last} of the file {rel}:\n{fenced(chunk)}\n\n"
            f"Look in these lines for: {things_to_look_for}\n"
            "Say what they contain about it, citing line numbers. Report only what is "
            "in the text; if it holds nothing relevant, say so in one sentence."
        )
        replies.append(ask(env, prompt, "fast"))
    if len(parts) == 1:
        answer = replies[0] or f"The model reading {rel} gave an empty answer."
    else:
        notes = "\n\n".join(
            f"Lines {first}-{last}: {reply or '(no answer)'}"
            for (first, last, _), reply in zip(parts, replies, strict=True)
        )
        notes = clip(notes, BLOCK_CHARS)
        prompt = (
            f"Notes from reading {rel} in parts, about: {things_to_look_for}\n\n{notes}\n\n"
            "Combine them into one answer about the whole file, keeping the line numbers. "
            "Do not add anything the notes do not say."
        )
        answer = ask(env, prompt, "fast") or notes
    if more:
        answer += f"\n\n(Only lines 1-{parts[-1][1]} were read; {rel} goes on beyond them.)"
    return clip(answer, READ_LIMIT)


UNDERSTAND_FILE = Action(
    "Understand File",
    "Have a model read a whole file, however long, and report what it says about the "
    "things you ask for. Cheaper than reading a long file yourself.",
    {
        "file_name": "a file relative to the workspace",
        "things_to_look_for": "what to look for and report, in detail",
    },
    understand_file,
)
