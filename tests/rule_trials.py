"""Trials made for the rule checks' tests: a real environment (trace, snapshots) over a
workspace the test writes, and the evidence the checks read of it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pytest_mlab.core.rule_facts import RuleFacts
from pytest_mlab.core.run_files import RunFiles, TrialFiles
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.core.trace import Trace
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.snapshotter import Snapshotter
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox import LocalSandbox, Sandbox, SandboxSpec
from pytest_mlab.trial.rules import TrialEvidence

Action = tuple[str, dict[str, Any]]


def trial_files(tmp_path: Path) -> TrialFiles:
    return RunFiles(tmp_path / "reports" / "run-1").trial("tasks/t/task.toml::t[agent-t0]")


def act(tmp_path: Path, steps: list[Action], *, files: dict[str, str] | None = None,
        data: dict[str, str] | None = None, isolation: str = "auto",
        sandbox: Sandbox | None = None, **facts: Any) -> TrialEvidence:
    """Provision ``files`` (writable) and ``data`` (read-only), take ``steps``, and return
    the trial's evidence with ``facts`` (RuleFacts fields) beside what was provisioned."""
    trial = trial_files(tmp_path)
    root = trial.workspace
    protected = {}
    for rel, text in {**(files or {}), **(data or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if rel in (data or {}):
            path.chmod(0o444)
            protected[rel] = hashlib.sha256(text.encode()).hexdigest()
    root.mkdir(parents=True, exist_ok=True)
    with Snapshotter(trial.objects, trial.manifests, root, protected) as snapshots:
        env = Environment(
            research_problem="predict", entry="train.py", workspace=Workspace(root, protected),
            sandbox=sandbox or LocalSandbox(SandboxSpec(
                root, isolation=isolation, protected=tuple(protected))),  # type: ignore[arg-type]
            limits=TrialLimits(max_steps=20, max_time=120, script_timeout=30),
            trace=Trace(trial.trace), snapshots=snapshots,
        )
        try:
            for name, args in steps:
                env.execute(name, **args)
            env.finish()
        finally:
            env.close()
    known = RuleFacts(data=protected, workspace=str(root),
                      harness_paths=(str(tmp_path / "cache"), str(trial.run_dir)))
    known = known.model_copy(update=facts)
    known.write(trial.rule_facts)
    return TrialEvidence.of(trial)
