"""A gigabyte file in the workspace costs the harness no more memory than a small one,
and large files cost a step a stat, not a copy."""

from __future__ import annotations

import shutil
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.snapshots import (
    find_object,
    is_kept,
    manifest_steps,
    not_kept,
    not_kept_note,
    read_manifest,
    restore,
    store_object,
    write_manifest,
)
from pytest_mlab.core.task import TrialLimits, load_task
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.env.actions.backups import BACKUP_MAX_BYTES
from pytest_mlab.env.actions.reading import LONG_LINE_BYTES, WHOLE_LINES_BYTES, lines_between
from pytest_mlab.env.data import prepare_task
from pytest_mlab.env.env_cache import cache_env
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.resume import resume_into
from pytest_mlab.env.snapshotter import LARGE_FILE_BYTES, Snapshotter
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.report.diffs import changes
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec
from pytest_mlab.trial.step_scores import score_steps

GUESS = Path(__file__).parent / "examples" / "guess"
GIB = 1 << 30
MIB = 1 << 20


def sparse(path: Path, size: int, head: bytes = b"", tail: bytes = b"") -> Path:
    """A file of ``size`` bytes that takes no disk space but its head and tail."""
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)
        handle.seek(size - len(tail))
        handle.write(tail)
    return path


def make_env(tmp_path: Path, **snapshot_options: int) -> Environment:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text("print('hi')\n")
    snapshots = Snapshotter(tmp_path / "objects", tmp_path / "manifests", root, {},
                            **snapshot_options)  # type: ignore[arg-type]
    return Environment(
        research_problem="x", entry="train.py", workspace=Workspace(root, {}),
        sandbox=LocalSandbox(SandboxSpec(root)), snapshots=snapshots,
        limits=TrialLimits(max_steps=50, max_time=600, script_timeout=30),
    )


def peak_bytes(action: Callable[[], object]) -> int:
    """The most memory Python allocated while ``action`` ran."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_file_actions_on_a_gigabyte_file_use_little_memory(tmp_path: Path) -> None:
    env = make_env(tmp_path, store_max_bytes=256 * MIB)
    root = env.workspace.root
    sparse(root / "big.txt", GIB, b"first line\nsecond line\n", b"\nthe end\n")
    sparse(root / "mid.bin", 48 * MIB, b"mid", b"dle")
    steps = [
        ("Read File", {"file_name": "big.txt"}),
        ("Inspect Script Lines", {"script_name": "big.txt", "start_line_number": 1,
                                  "end_line_number": 2}),
        ("Append File", {"file_name": "big.txt", "content": "more\n"}),
        ("Copy File", {"source": "big.txt", "destination": "copy.txt"}),
        ("Write File", {"file_name": "copy.txt", "content": "small now"}),
        ("Write File", {"file_name": "mid.bin", "content": "replaced"}),
        ("Undo Edit Script", {"script_name": "mid.bin"}),
    ]
    observations: list[str] = []
    peaks = [peak_bytes(lambda a=action, k=args: observations.append(env.execute(a, **k)))
             for action, args in steps]
    peak_finish = peak_bytes(env.finish)
    print("\npeak Python allocations (MiB):", [round(p / MIB, 2) for p in peaks],
          "final snapshot:", round(peak_finish / MIB, 2))
    assert max(peaks) < 8 * MIB and peak_finish < 8 * MIB, (peaks, peak_finish)
    read, inspect, append, copy, write, _, undo = observations
    assert read.startswith("first line\nsecond line\n") and read.endswith("\nthe end\n")
    assert f"of the file's {GIB:,} bytes are not shown" in read and len(read) < 21_000
    assert inspect.splitlines()[1:] == ["    1  first line", "    2  second line"]
    assert "too many to count its lines" in inspect
    for observation in (append, write):
        assert observation.endswith(f"Undo cannot take this edit back: the file had "
                                    f"{GIB + (5 if observation is write else 0):,} bytes, "
                                    f"more than the {BACKUP_MAX_BYTES:,} backed up.")
    assert copy == "Copied big.txt to copy.txt."
    assert undo.startswith("Undid the last edit of mid.bin. It now reads:\nmid")
    assert (root / "mid.bin").stat().st_size == 48 * MIB
    assert "no earlier version" in env.execute("Undo Edit Script", script_name="copy.txt")
    # The gigabyte file was never stored: a stat told each step it was unchanged or not.
    stored = sum(p.stat().st_size for p in (tmp_path / "objects").rglob("*") if p.is_file())
    assert stored < 256 * MIB
    last = read_manifest(tmp_path / "manifests", manifest_steps(tmp_path / "manifests")[-1])
    assert not is_kept(last["big.txt"]) and "cap on stored bytes" in not_kept_note(last["big.txt"])
    assert is_kept(last["mid.bin"]) and is_kept(last["copy.txt"])


def test_backups_live_outside_the_workspace_and_go_with_the_trial(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.execute("Write File", file_name="train.py", content="print('changed')\n")
    (folder,) = [p.parent for p in env.backups.folder.glob("*")]
    assert not folder.is_relative_to(env.workspace.root)
    assert [p.read_text() for p in folder.iterdir()] == ["print('hi')\n"]
    env.close()
    assert not folder.exists()


def test_a_large_file_is_kept_only_at_scored_and_final_steps(tmp_path: Path) -> None:
    root, out = tmp_path / "ws", tmp_path / "out"
    root.mkdir()
    checkpoint = root / "model.pt"
    with Snapshotter(out / "objects", out / "manifests", root, {}, keep_every=2) as snapshots:
        entries = []
        for step in range(4):
            checkpoint.write_bytes(bytes([step]) * LARGE_FILE_BYTES)
            entries.append(snapshots.take(step, None)["model.pt"])
        unchanged = snapshots.take(5, [])["model.pt"]
        final = snapshots.take(5, full=True)["model.pt"]
    assert [is_kept(e) for e in entries] == [True, False, True, False]
    assert unchanged == entries[-1] != entries[1]  # known by signature, changes with the file
    assert is_kept(final)
    assert not_kept_note(entries[1]).startswith(f"content not kept in the snapshots "
                                                f"({LARGE_FILE_BYTES:,} bytes; a large file")
    objects = sorted(p.name for p in (out / "objects").rglob("*") if p.is_file())
    assert objects == sorted({entries[0], entries[2], final})


def test_content_not_kept_is_reported_not_crashed_on(tmp_path: Path) -> None:
    root, out = tmp_path / "ws", tmp_path / "out"
    root.mkdir()
    (root / "notes.txt").write_text("old\n")
    with Snapshotter(out / "objects", out / "manifests", root, {}) as snapshots:
        before = snapshots.take(0)
        (root / "notes.txt").write_text("new\n")
        (root / "model.pt").write_bytes(b"w" * LARGE_FILE_BYTES)
        after = snapshots.take(1, None)
    found, _ = changes(out / "objects", before, after)
    assert [(c.path, c.kind, bool(c.diff)) for c in found] == [
        ("model.pt", "added", False), ("notes.txt", "modified", True)]
    assert found[0].note.startswith("content not kept in the snapshots")
    (root / "model.pt").unlink()
    missing = restore(out / "objects", after, root, {})
    assert list(missing) == ["model.pt"] and "large file" in missing["model.pt"]
    assert (root / "notes.txt").read_text() == "new\n" and not (root / "model.pt").exists()
    object_of_notes = find_object(out / "objects", after["notes.txt"])
    assert object_of_notes is not None
    object_of_notes.unlink()  # a store that lost an object: named, not a crash
    assert restore(out / "objects", after, root, {}) == {
        "model.pt": missing["model.pt"], "notes.txt": "content missing from the snapshot store"}


@pytest.mark.parametrize("size", [100, 200_000])
def test_read_file_shows_the_same_head_and_tail_whatever_the_size(
    tmp_path: Path, size: int
) -> None:
    env = make_env(tmp_path)
    text = "".join(f"line {n} é\n" for n in range(size))
    (env.workspace.root / "log.txt").write_text(text)
    shown = env.execute("Read File", file_name="log.txt")
    if size == 100:
        assert shown == text
    else:
        head, note, tail = shown.partition("\n[... ")[0], shown, shown.rpartition(" ...]\n")[2]
        assert text.startswith(head) and text.endswith(tail)
        assert len(head) == len(tail) == 10_000
        assert "bytes are not shown" in note and shown.count("\n[... ") == 1
    (env.workspace.root / "bad.txt").write_bytes(b"\xff" * 200_000)
    assert "is not a UTF-8 text file" in env.execute("Read File", file_name="bad.txt")


def test_a_resumed_trial_tells_the_agent_what_was_not_restored(tmp_path: Path) -> None:
    files = TrialFiles(tmp_path / "run", "trial")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("kept\n")
    trace = Trace(files.trace)
    with Snapshotter(files.objects, files.manifests, root, {}) as snapshots:
        snapshots.take(0)
        (root / "model.pt").write_bytes(b"w" * LARGE_FILE_BYTES)
        trace.append(Step(1, "Execute Script", {"script_name": "train.py"}, "ok", 0.0, 1.0))
        snapshots.take(1, None)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    point = resume_into(files, Workspace(fresh, {}))
    assert point is not None and list(point.not_restored) == ["model.pt"]
    assert (fresh / "notes.txt").read_text() == "kept\n"
    env = Environment(
        research_problem="x", entry="train.py", workspace=Workspace(fresh, {}),
        sandbox=LocalSandbox(SandboxSpec(fresh)), resume=point,
        limits=TrialLimits(max_steps=5, max_time=60, script_timeout=30),
    )
    first = env.execute("List Files", dir_path=".")
    assert first.startswith("[The trial resumed after step 1, but these files could not be "
                            "restored: model.pt: content not kept in the snapshots (")
    assert first.endswith("]\n\nnotes.txt")
    assert env.execute("List Files", dir_path=".") == "notes.txt"


def test_a_step_whose_snapshot_lacks_content_is_not_scored(tmp_path: Path) -> None:
    task = load_task(shutil.copytree(GUESS, tmp_path / "task") / "task.toml")
    data = prepare_task(task, tmp_path / "cache")
    files = TrialFiles(tmp_path / "run", "trial")
    files.manifests.mkdir(parents=True)
    (tmp_path / "submission.txt").write_text("51\n")
    digest = sha256_file(tmp_path / "submission.txt")
    store_object(files.objects, tmp_path / "submission.txt", digest)
    write_manifest(files.manifests, 0, {"submission.txt": not_kept("cap", 3, 1, 2)})
    write_manifest(files.manifests, 1, {"submission.txt": digest})
    unscored, scored = score_steps(task, data, files, 1)
    assert unscored.score is None and unscored.invalid == (
        "not scored, the snapshot lacks submission.txt: content not kept in the snapshots "
        "(3 bytes; the trial's snapshots had reached their cap on stored bytes)")
    assert scored.score is not None and scored.invalid is None


def test_provisioning_hashes_nothing_twice_and_snapshot_0_stores_nothing(
    tmp_path: Path,
) -> None:
    root = shutil.copytree(GUESS, tmp_path / "task")
    (root / "env" / "ro").mkdir()
    (root / "env" / "ro" / "weights.bin").write_bytes(b"r" * (2 * MIB))
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('"data.txt"', '"data.txt", "ro/*"'))
    task = load_task(manifest)
    data = prepare_task(task, tmp_path / "cache")
    workspace = provision_workspace(task, data, tmp_path / "ws")
    weights = workspace.root / "ro" / "weights.bin"
    cached = cache_env(task, data).path("ro/weights.bin")
    assert weights.stat().st_ino != cached.stat().st_ino  # a copy: no inode shared
    assert oct(weights.stat().st_mode & 0o777) == "0o444"
    assert workspace.protected["ro/weights.bin"] == sha256_file(weights)
    objects = tmp_path / "run" / "objects"
    with Snapshotter.of(workspace, objects, tmp_path / "run" / "manifests") as snapshots:
        first = snapshots.take(0)
        assert first == {"train.py": sha256_file(workspace.root / "train.py")}
        assert [p for p in objects.rglob("*") if p.is_file()] == []  # found in the cache
        (workspace.root / "train.py").write_text("print('edited')\n")
        second = snapshots.take(1, ["train.py"])
    found, _ = changes(objects, first, second)
    assert "-Path(\"submission.txt\").write_text(\"40\\n\")" in found[0].diff
    again = provision_workspace(task, data, tmp_path / "again")
    assert restore(objects, second, again.root, again.protected) == {}
    assert (again.root / "train.py").read_text() == "print('edited')\n"


def test_lines_of_a_large_file_match_those_of_a_small_one(tmp_path: Path) -> None:
    lines = [f"{n}: " + "é" * (n % 700) for n in range(6_000)]  # lines cross 1 MiB reads
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n")
    assert (tmp_path / "big.txt").stat().st_size > 2 * WHOLE_LINES_BYTES
    for first, last in [(1, 3), (1_500, 1_599), (5_990, 6_010), (7_000, 7_001)]:
        shown, count = lines_between(tmp_path / "big.txt", first, last)
        assert count is None and shown == lines[first - 1 : last], (first, last)
    (tmp_path / "long.txt").write_bytes(b"a" * (3 * WHOLE_LINES_BYTES) + b"\nend")
    shown, _ = lines_between(tmp_path / "long.txt", 1, 2)
    assert shown == ["a" * LONG_LINE_BYTES + " [... rest of the line not shown]", "end"]
