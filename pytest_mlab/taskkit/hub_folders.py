"""Hugging Face repositories an original starter loads by name, put in its workspace.

``load_dataset("imdb")`` and ``from_pretrained("distilbert-base-uncased")`` read a folder
of that name in the working directory before they look online, and the sandbox has no
network. So preparing downloads each repository of the overlay's ``hub`` into such a
folder of the public data, checking each file's sha256 where the overlay pins one.

A withheld column (imdb's test labels) is blanked in the agent's copy; the scorer's
version of that file is held back (``held_back``), so the folder the original eval.py
loads by the same name has it whole.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from pytest_mlab.core.bundle import Bundle, hub_source
from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.core.overlay import HubFolder
from pytest_mlab.taskkit.held_back import HELD

_SHARD = re.compile(r"^(?P<split>[A-Za-z0-9_]+)-\d{5}-of-\d{5}\.parquet$")


def download(entry: HubFolder, into: Path) -> None:
    """Each of ``entry.files`` into ``into``; a file that is not what the overlay pins is
    a ``RuntimeError`` naming both hashes (the repository changed under the revision)."""
    from huggingface_hub import hf_hub_download  # reads HF_TOKEN and HF_ENDPOINT itself

    for name, want in entry.files.items():
        hf_hub_download(entry.repo, name, repo_type=entry.type, revision=entry.revision,
                        local_dir=into)
        got = sha256_file(into / name)
        if want and got != want:
            raise RuntimeError(
                f"{entry.repo}: {name} at revision {entry.revision} has sha256 {got}, the "
                f"overlay pins {want}; check what changed and update the overlay")
    shutil.rmtree(into / ".cache", ignore_errors=True)


def _describe_splits(entry: HubFolder, into: Path) -> None:
    """A dataset card naming each split's files, so ``load_dataset(folder)`` finds every
    split (it would guess only train, validation and test from the file names)."""
    if entry.type != "dataset" or "README.md" in entry.files:
        return
    configs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name in entry.files:
        shard = _SHARD.match(Path(name).name)
        if shard:
            parent = Path(name).parent
            glob = (parent / f"{shard['split']}-*").as_posix()
            configs[parent.as_posix() if parent.parts else "default"].append((shard["split"], glob))
    lines = ["---", "configs:"]
    for index, (config, splits) in enumerate(configs.items()):
        lines += [f"- config_name: {config}", "  data_files:"]
        for split, glob in dict.fromkeys(splits):
            lines += [f"  - split: {split}", f"    path: {glob}"]
        if index == 0:
            lines.append("  default: true")
    lines += ["---", f"Files of {entry.repo} at revision {entry.revision}.", ""]
    (into / "README.md").write_text("\n".join(lines), encoding="utf-8")


def _blank(source: Path, target: Path, column: str) -> None:
    """``source`` with ``column`` blanked: -1 where it holds integers (a ClassLabel's
    'no label'), else null; the schema, and with it the features, stays."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(source)
    if column not in table.column_names:
        raise RuntimeError(f"{source.name} has no column {column!r} to withhold "
                           f"(it has {', '.join(table.column_names)})")
    index = table.column_names.index(column)
    kind = table.schema.field(index).type
    blank = (pa.array([-1] * table.num_rows, type=kind) if pa.types.is_integer(kind)
             else pa.nulls(table.num_rows, type=kind))
    pq.write_table(table.set_column(index, table.schema.field(index), blank), target)


def bundled_hub(bundle: Bundle) -> Callable[[HubFolder, Path], None]:
    """What puts a repository's files into a folder from the offline bundle, where the
    Hub's own download would; a downloaded bundle's files must still be what the overlay
    pins, a synthetic one's are its own."""

    def fetch(entry: HubFolder, into: Path) -> None:
        for name, want in entry.files.items():
            found = bundle.file(hub_source(entry.type, entry.repo, entry.revision, name))
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, into / name)
            got = sha256_file(into / name)
            if want and got != want and bundle.kind == "downloaded":
                raise RuntimeError(
                    f"{entry.repo}: {name} in the bundle {bundle.root} has sha256 {got}, "
                    f"the overlay pins {want}; bundle it again")

    return fetch


def prepare_hub(entries: tuple[HubFolder, ...], public: Path, private: Path,
                fetch: Callable[[HubFolder, Path], None] | None = None) -> None:
    """Every repository into ``public/<folder>`` (by ``fetch``, else from the Hub), its
    withheld files whole into ``private/held/<folder>``."""
    for entry in entries:
        scratch = private.parent / "hub-download" / entry.folder
        shutil.rmtree(scratch, ignore_errors=True)
        (fetch or download)(entry, scratch)
        _describe_splits(entry, scratch)
        for name, column in entry.withhold.items():
            whole = private / HELD / entry.folder / name
            whole.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(scratch / name, whole)
            _blank(whole, scratch / name, column)
        (public / entry.folder).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(scratch, public / entry.folder)
    shutil.rmtree(private.parent / "hub-download", ignore_errors=True)
