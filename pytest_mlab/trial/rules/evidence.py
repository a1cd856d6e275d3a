"""What the rule checks read of a trial: its steps, the workspace as each step left it
(the snapshot manifests and the stored content), and the facts of its task."""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.core.rule_facts import EVERY_FILE, RuleFacts
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.snapshots import Manifest, find_object, manifest_steps, read_manifest
from pytest_mlab.core.trace import Step, read_trace

TEXT_LIMIT = 1 << 20
"""The most of a stored file the checks read as text: a script is far shorter."""


@dataclass
class TrialEvidence:
    steps: list[Step]
    facts: RuleFacts
    manifests: Path | None = None
    """The folder of the trial's per-step manifests; None where no snapshot was taken."""
    objects: Path | None = None
    _manifests: dict[int, Manifest] = field(default_factory=dict)

    @classmethod
    def of(cls, files: TrialFiles, facts: RuleFacts | None = None) -> TrialEvidence:
        """The evidence a trial's files hold; ``facts`` default to those written beside
        its trace, else to a task's defaults (a run recorded before the checks were)."""
        if facts is None:
            facts = (RuleFacts.read(files.rule_facts) if files.rule_facts.is_file()
                     else RuleFacts())
        steps = read_trace(files.trace) if files.trace.is_file() else []
        manifests = files.manifests if files.manifests.is_dir() else None
        return cls(steps, facts, manifests, files.objects)

    def manifest(self, step: int) -> Manifest:
        """The workspace's files after ``step`` (0: as provisioned); a step that has no
        manifest of its own left it as the latest one before it did."""
        if self.manifests is None:
            return {}
        if step not in self._manifests:
            taken = [s for s in manifest_steps(self.manifests) if s <= step]
            self._manifests[step] = read_manifest(self.manifests, taken[-1]) if taken else {}
        return self._manifests[step]

    @property
    def last_step(self) -> int:
        return self.steps[-1].step if self.steps else 0

    def changed_at(self, rel: str) -> list[int]:
        """The steps after which ``rel`` held other content than before them."""
        changed = []
        before = self.manifest(0).get(rel)
        for step in self.steps:
            now = self.manifest(step.step).get(rel)
            if now != before:
                changed.append(step.step)
            before = now
        return changed

    def text(self, step: int, rel: str) -> str | None:
        """``rel`` as text, as ``step`` left it; None where it was absent or not kept."""
        digest = self.manifest(step).get(rel)
        if digest is None or self.objects is None:
            return None
        stored = find_object(self.objects, digest)
        if stored is None:
            return None
        with stored.open("rb") as handle:
            return handle.read(TEXT_LIMIT).decode("utf-8", "replace")

    def submission_files(self, step: int) -> list[str]:
        """The files after ``step`` that the task scores as predictions: none where the
        whole workspace is scored (the code itself is then the submission)."""
        patterns = [p for p in self.facts.submission if p != EVERY_FILE]
        return sorted(rel for rel in self.manifest(step)
                      if rel not in self.facts.data
                      and any(fnmatch.fnmatch(rel, p) for p in patterns))

    def workspace_path(self, name: str) -> str | None:
        """An action's file argument as a path relative to the workspace; None for one
        that leaves it."""
        root = self.facts.workspace
        if root and posixpath.isabs(name) and name.startswith(root.rstrip("/") + "/"):
            name = name[len(root.rstrip("/")) + 1:]
        rel = posixpath.normpath(name)
        if posixpath.isabs(rel) or rel == ".." or rel.startswith("../"):
            return None
        return rel
