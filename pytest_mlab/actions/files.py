"""List Files, Read File, Write File."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mlab.actions.base import Action, ActionError
from pytest_mlab.actions.paths import inside, relative
from pytest_mlab.text import clip

if TYPE_CHECKING:
    from pytest_mlab.env import Environment

READ_LIMIT = 20_000


def list_files(env: Environment, dir_path: str) -> str:
    folder = inside(env.workspace.root, dir_path)
    if not folder.is_dir():
        raise ActionError(f"{dir_path!r} is not a directory in the workspace.")
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    return "\n".join(names) if names else "(empty directory)"


def read_file(env: Environment, file_name: str) -> str:
    path = inside(env.workspace.root, file_name)
    if not path.is_file():
        raise ActionError(f"{file_name!r} is not a file in the workspace.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ActionError(f"{file_name!r} is not a UTF-8 text file.") from None
    return clip(text, READ_LIMIT)


def write_file(env: Environment, file_name: str, content: str) -> str:
    path = inside(env.workspace.root, file_name)
    rel = relative(env.workspace.root, path)
    if rel in env.workspace.protected:
        raise ActionError(f"{rel} is read-only.")
    if path.is_dir():
        raise ActionError(f"{rel} is a directory.")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return f"Wrote {len(content)} characters to {rel}."


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
    write_file,
)
