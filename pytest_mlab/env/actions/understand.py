"""Understand File: the fast model reads a file block by block and answers a question.

As in MLAgentBench the whole file is read, however long (--mlab-understand-limit caps it),
each block of whole lines is asked about separately, and the answers are then merged.
"""

from __future__ import annotations

from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.llm_call import ask, fenced
from pytest_mlab.env.actions.paths import inside, relative

BLOCK_CHARS = 10_000


def _read(env: ActionContext, file_name: str, limit: int | None) -> tuple[str, str, bool]:
    """The file's name in the workspace, its text (the first ``limit`` characters, if
    there is a limit), and whether the limit left some of it unread."""
    path = inside(env.workspace.root, file_name)
    if not path.is_file():
        raise ActionError(f"{file_name!r} is not a file in the workspace.")
    rel = relative(env.workspace.root, path)
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read() if limit is None else handle.read(limit + 1)
    except UnicodeDecodeError:
        raise ActionError(f"{rel} is not a UTF-8 text file.") from None
    if "\0" in text:
        raise ActionError(f"{rel} is a binary file.")
    if limit is None or len(text) <= limit:
        return rel, text, False
    return rel, text[:limit], True


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


def _block_prompt(rel: str, first: int, last: int, chunk: str, wanted: str) -> str:
    return (
        f"Here is part of the file {rel}, lines {first}-{last}:\n{fenced(chunk)}\n\n"
        f"What to look for and what to return: {wanted}\n"
        "Answer briefly and point to the lines that matter. Report only what the text "
        "itself confirms and guess no numbers. For anything asked for that this part "
        'does not hold, say "In this segment, I cannot find ...".'
    )


def _merge_prompt(rel: str, wanted: str, notes: str) -> str:
    return (
        f"The file {rel} was read in segments. What was found in each segment about "
        f"what to look for ({wanted}):\n\n{notes}\n\n"
        "Combine these into one coherent description of the whole file that answers "
        "what was asked, keeping the line numbers."
    )


def understand_file(env: ActionContext, file_name: str, things_to_look_for: str) -> str:
    if not things_to_look_for.strip():
        raise ActionError("Say what to look for in things_to_look_for.")
    rel, text, more = _read(env, file_name, env.action_options.understand_limit)
    if not text.strip():
        return f"{rel} is empty."
    parts = blocks(text, BLOCK_CHARS)
    replies = [ask(env, _block_prompt(rel, first, last, chunk, things_to_look_for), "fast")
               for first, last, chunk in parts]
    if len(parts) == 1:
        answer = replies[0] or f"The model reading {rel} gave an empty answer."
    else:
        notes = "\n\n".join(
            f"Segment {n} (lines {first}-{last}):\n{reply or '(no answer)'}"
            for n, ((first, last, _), reply) in enumerate(zip(parts, replies, strict=True), 1)
        )
        answer = ask(env, _merge_prompt(rel, things_to_look_for, notes), "fast") or notes
    if more:
        answer += f"\n\n(Only lines 1-{parts[-1][1]} were read; {rel} goes on beyond them.)"
    return answer


UNDERSTAND_FILE = Action(
    "Understand File",
    "Have a model read a whole file, however long, and report what it says about the "
    "things you ask for, pointing to the relevant lines. Say in detail what to look for "
    "and what to return. Inspect Script Lines shows exact lines instead.",
    {
        "file_name": "a file relative to the workspace",
        "things_to_look_for": "what to look for and report, in detail",
    },
    understand_file,
)
