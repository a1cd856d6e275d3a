"""--mlab-resume: continue a run with the same selection and settings, never losing a trial.

A run records a signature: the selection (paths, node ids, -k, -m, --lf) and every setting
that changes what a trial is. A session resuming it must have the same signature, else
it is refused in one sentence naming the first difference. The resumed run keeps its
trials, its start and its command, and lists each session that wrote it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunResults, TrialResult
    from pytest_mlab.plugin.config.settings import Settings

_SELECTION_OPTIONS = ("keyword", "markexpr", "deselect", "lf", "failedfirst")


def resumed_run_id(report_dir: Path, wanted: str) -> str:
    """The run --mlab-resume names (a folder of ``report_dir`` with traces, or ``last``)."""
    runs = sorted(p.name for p in report_dir.glob("*") if (p / "traces").is_dir())
    if wanted == "last" and runs:
        return runs[-1]
    if wanted in runs:
        return wanted
    raise pytest.UsageError(
        f"--mlab-resume: no run {wanted!r} with traces under {report_dir}"
        + (f"; runs there: {', '.join(runs[-5:])}" if runs else "")
    )


def signature(config: pytest.Config, settings: Settings) -> dict[str, str]:
    """What a session resuming this run must share with it."""
    here, root = config.invocation_params.dir, config.rootpath
    paths = []
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        resolved = (here / path).resolve()
        shown = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else path
        paths.append(shown + sep + rest)
    chosen = {"selection": " ".join(sorted(paths))}
    for option in _SELECTION_OPTIONS:
        chosen[option] = repr(config.getoption(option, None))
    for field in ("agents", "llms", "trials", "overrides", "sandbox", "isolation",
                  "docker_image", "score_steps", "record_baseline", "agent_options"):
        chosen[field] = repr(getattr(settings, field))
    llm = dataclasses.replace(settings.llm, cache_dir=Path("."))
    chosen["llm"] = repr(llm)
    return chosen


def resumed_run(config: pytest.Config, settings: Settings) -> RunResults | None:
    """The run being resumed as it was written, or None where it wrote no results.json;
    refuses a session whose signature differs."""
    from pytest_mlab.core.results import RunResults, UnreadableResults

    path = settings.run_files.results
    if not path.exists():
        return None
    try:
        old = RunResults.read(path)
    except UnreadableResults as exc:
        raise pytest.UsageError(f"--mlab-resume: {exc}") from None
    mine = signature(config, settings)
    for key, value in old.run.signature.items():
        if mine.get(key) != value:
            raise pytest.UsageError(
                f"--mlab-resume: run {settings.run_id} was made with {key} {value}, this "
                f"session has {mine.get(key)}; resume it with the same selection and options"
            )
    return old


def merged(old: RunResults | None, new: list[TrialResult]) -> list[TrialResult]:
    """The run's trials after this session: a new verdict replaces an old record, but a
    trial this session lost keeps the verdict it had, and no trial is dropped."""
    records = {r.nodeid: r for r in old.results} if old is not None else {}
    for result in new:
        before = records.get(result.nodeid)
        if before is not None and result.outcome == "error" and before.outcome != "error":
            continue
        records[result.nodeid] = result
    return [records[nodeid] for nodeid in sorted(records)]
