"""Actions on workspace files: list, read, write, append, copy, inspect lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mlab.core import file_copy
from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.paths import inside, relative
from pytest_mlab.env.actions.reading import clipped_text, lines_between

if TYPE_CHECKING:
    from pathlib import Path


READ_LIMIT = 20_000
INSPECT_MAX_LINES = 100


def list_files(env: ActionContext, dir_path: str) -> str:
    folder = inside(env.workspace.root, dir_path)
    if not folder.is_dir():
        raise ActionError(f"{dir_path!r} is not a directory in the workspace.")
    names = sorted(_readable(p.name) + ("/" if p.is_dir() else "") for p in folder.iterdir())
    return clip("\n".join(names), READ_LIMIT) if names else "(empty directory)"


def _readable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (a script may make such names) shown
    as U+FFFD rather than passed on as lone surrogates."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _file(env: ActionContext, file_name: str) -> Path:
    path = inside(env.workspace.root, file_name)
    if not path.is_file():
        raise ActionError(f"{file_name!r} is not a file in the workspace.")
    return path


def read_file(env: ActionContext, file_name: str) -> str:
    try:
        return clipped_text(_file(env, file_name), READ_LIMIT)
    except UnicodeDecodeError:
        raise ActionError(f"{file_name!r} is not a UTF-8 text file.") from None


def _writable(env: ActionContext, file_name: str) -> tuple[Path, str]:
    path = inside(env.workspace.root, file_name)
    rel = relative(env.workspace.root, path)
    if rel in env.workspace.protected:
        raise ActionError(f"{rel} is read-only.")
    if path.is_dir():
        raise ActionError(f"{rel} is a directory.")
    # Opening a FIFO a script left there would wait forever for a reader.
    if path.exists() and not path.is_file():
        raise ActionError(f"{rel} is not a regular file.")
    return path, rel


def _done(what: str, note: str) -> str:
    """What an action did, and the backup's note if Undo cannot take it back."""
    return f"{what} {note}" if note else what


def write_file(env: ActionContext, file_name: str, content: str) -> str:
    path, rel = _writable(env, file_name)
    note = env.backups.remember(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return _done(f"Wrote {len(content)} characters to {rel}.", note)


def append_file(env: ActionContext, file_name: str, content: str) -> str:
    path, rel = _writable(env, file_name)
    note = env.backups.remember(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(content)
    return _done(f"Appended {len(content)} characters to {rel}.", note)


def copy_file(env: ActionContext, source: str, destination: str) -> str:
    origin = _file(env, source)
    target, rel = _writable(env, destination)
    if target.exists() and target.samefile(origin):
        raise ActionError(f"{rel} is the file itself; copy it to another name.")
    note = env.backups.remember(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    file_copy.copy_file(origin, target)
    return _done(f"Copied {relative(env.workspace.root, origin)} to {rel}.", note)


def inspect_script_lines(
    env: ActionContext, script_name: str, start_line_number: int, end_line_number: int
) -> str:
    path = _file(env, script_name)
    if start_line_number < 1 or end_line_number < start_line_number:
        raise ActionError("Line numbers start at 1 and the end may not precede the start.")
    if end_line_number - start_line_number + 1 > INSPECT_MAX_LINES:
        raise ActionError(f"Inspect at most {INSPECT_MAX_LINES} lines at a time.")
    try:
        chosen, count = lines_between(path, start_line_number, end_line_number)
    except UnicodeDecodeError:
        raise ActionError(f"{script_name!r} is not a UTF-8 text file.") from None
    size = (f"has {count} lines" if count is not None
            else f"has {path.stat().st_size:,} bytes, too many to count its lines")
    header = f"{script_name} {size}; lines {start_line_number}-"
    header += f"{start_line_number + len(chosen) - 1}:"
    numbered = (f"{n:>5}  {line}" for n, line in enumerate(chosen, start_line_number))
    return "\n".join([header, *numbered])


LIST_FILES = Action(
    "List Files", "List the files in a directory of the workspace.",
    {"dir_path": "a directory relative to the workspace, e.g. ."}, list_files,
)
READ_FILE = Action(
    "Read File", "Read a text file of the workspace.",
    {"file_name": "a file relative to the workspace"}, read_file,
)
WRITE_FILE = Action(
    "Write File", "Write a text file in the workspace, replacing what it held.",
    {"file_name": "a file relative to the workspace", "content": "the whole new content"},
    write_file, writes="file_name",
)
APPEND_FILE = Action(
    "Append File", "Append text to a file of the workspace (created if missing).",
    {"file_name": "a file relative to the workspace", "content": "the text to append"},
    append_file, writes="file_name",
)
COPY_FILE = Action(
    "Copy File", "Copy a file of the workspace to another name in the workspace.",
    {"source": "the file to copy", "destination": "the new file"}, copy_file,
    writes="destination",
)
INSPECT_SCRIPT_LINES = Action(
    "Inspect Script Lines",
    f"Show numbered lines of a script, at most {INSPECT_MAX_LINES} at a time.",
    {
        "script_name": "a file relative to the workspace",
        "start_line_number": "the first line, counting from 1",
        "end_line_number": "the last line",
    },
    inspect_script_lines,
    integers=frozenset({"start_line_number", "end_line_number"}),
)
