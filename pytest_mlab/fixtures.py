"""The fixtures a trial is built from; each can be overridden from a conftest.py."""

from __future__ import annotations

import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mlab.agent import Agent, AgentContext, load_agent
from pytest_mlab.baseline import Baseline, measured_baseline, read_record
from pytest_mlab.collect import TrialSpec
from pytest_mlab.data import PreparedData, prepare_task
from pytest_mlab.env import Limits
from pytest_mlab.errors import InfrastructureError, TaskUnavailable
from pytest_mlab.gpu import NoGPU, lease
from pytest_mlab.keys import AGENTS_KEY, RESULT_KEY, SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.machine import machine_id
from pytest_mlab.results import TrialResult
from pytest_mlab.sandbox import LocalSandbox, Sandbox
from pytest_mlab.settings import Settings
from pytest_mlab.task import TaskFormatError, TaskSpec
from pytest_mlab.trace import Trace
from pytest_mlab.trial import run_trial
from pytest_mlab.verdict import verdict
from pytest_mlab.warning import MlabWarning
from pytest_mlab.workspace import Workspace, provision_workspace


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


@pytest.hookimpl(trylast=True)
def pytest_mlab_make_sandbox(
    config: pytest.Config, task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...]
) -> Sandbox:
    # An empty CUDA_VISIBLE_DEVICES hides every GPU the trial did not lease.
    return LocalSandbox(workspace.root, {"CUDA_VISIBLE_DEVICES": ",".join(gpus)})


def limits_for(task: TaskSpec, settings: Settings) -> Limits:
    own = task.manifest.limits
    return Limits(
        max_steps=settings.max_steps or own.max_steps,
        max_time=settings.max_time or own.max_time,
        script_timeout=own.script_timeout,
    )


@pytest.fixture(scope="session")
def mlab_settings(pytestconfig: pytest.Config) -> Settings:
    settings: Settings = pytestconfig.stash[SETTINGS_KEY]
    return settings


@pytest.fixture
def mlab_trial_spec(request: pytest.FixtureRequest) -> TrialSpec:
    spec: TrialSpec | None = request.node.stash.get(TRIAL_KEY, None)
    if spec is None:
        pytest.fail(f"{request.node.nodeid} is not a pytest-mlab trial", pytrace=False)
    return spec


@pytest.fixture
def mlab_task(mlab_trial_spec: TrialSpec) -> TaskSpec:
    return mlab_trial_spec.task


@pytest.fixture
def mlab_data(mlab_task: TaskSpec, mlab_settings: Settings) -> PreparedData:
    try:
        return prepare_task(mlab_task, mlab_settings.cache_dir)
    except TaskUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def mlab_gpu(mlab_task: TaskSpec, mlab_settings: Settings) -> Iterator[tuple[str, ...]]:
    lock_dir = mlab_settings.cache_dir / "gpu-locks" / machine_id()
    try:
        with lease(mlab_settings.gpus, mlab_task.manifest.resources.gpus, lock_dir) as gpus:
            yield gpus
    except NoGPU as exc:
        pytest.skip(f"{mlab_task.name} {exc}")


def _measure_starter(
    config: pytest.Config, task: TaskSpec, data: PreparedData, gpus: tuple[str, ...]
) -> float:
    """Score the unmodified starter, run by the baseline agent, through the trial path."""
    with tempfile.TemporaryDirectory(prefix=f"mlab-baseline-{task.name}-") as tmp:
        workspace = provision_workspace(task, data, Path(tmp) / "workspace")
        sandbox = config.hook.pytest_mlab_make_sandbox(
            config=config, task=task, workspace=workspace, gpus=gpus
        )
        agent = load_agent("baseline")(AgentContext(task=task.name, llm=None))
        own = task.manifest.limits
        limits = Limits(own.max_steps, own.max_time, own.script_timeout)
        run = run_trial(task, data, agent, workspace, sandbox, limits)
    if run.scored is None or run.scored.score is None:
        reason = run.agent_error or (run.scored.invalid if run.scored else "no score")
        message = f"{task.name}: the unmodified starter has no valid score: {reason}"
        raise InfrastructureError(message)
    return run.scored.score


@pytest.fixture
def mlab_baseline(
    pytestconfig: pytest.Config,
    mlab_task: TaskSpec,
    mlab_settings: Settings,
    mlab_data: PreparedData,
    mlab_gpu: tuple[str, ...],
) -> Baseline | None:
    """The baseline to beat; None while a baseline is being recorded."""
    task = mlab_task
    if mlab_settings.record_baseline is not None:
        return None
    if task.manifest.baseline.kind == "per-machine":
        return measured_baseline(
            task, mlab_settings.cache_dir, mlab_settings.run_id,
            lambda: _measure_starter(pytestconfig, task, mlab_data, mlab_gpu),
        )
    try:
        record = read_record(task)
    except TaskFormatError as exc:
        raise InfrastructureError(str(exc)) from None
    if record is None:
        runs = task.manifest.baseline.runs
        pytest.skip(
            f"{task.name} has no recorded baseline; record one with: "
            f"pytest {task.root} --agent=baseline --mlab-record-baseline={runs}"
        )
    if record.task_hash != task.content_hash():
        warnings.warn(
            MlabWarning(f"{task.baseline_record} was recorded for another version of the task; "
                        "record it again"),
            stacklevel=1,
        )
    return record.baseline()


@pytest.fixture
def mlab_workspace(
    request: pytest.FixtureRequest,
    mlab_task: TaskSpec,
    mlab_data: PreparedData,
    mlab_settings: Settings,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Workspace]:
    base = tmp_path_factory.mktemp(safe_name(request.node.name)[:60], numbered=True)
    workspace = provision_workspace(mlab_task, mlab_data, base / "workspace")
    yield workspace
    result = request.node.stash.get(RESULT_KEY, None)
    # Without a result the trial errored: keep its workspace unless told to keep none.
    unwanted = mlab_settings.keep_workspaces == "none"
    if unwanted or (result is not None and result.workspace is None):
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def mlab_sandbox(
    pytestconfig: pytest.Config,
    mlab_task: TaskSpec,
    mlab_workspace: Workspace,
    mlab_gpu: tuple[str, ...],
) -> Sandbox:
    sandbox: Sandbox = pytestconfig.hook.pytest_mlab_make_sandbox(
        config=pytestconfig, task=mlab_task, workspace=mlab_workspace, gpus=mlab_gpu
    )
    return sandbox


@pytest.fixture
def mlab_agent(pytestconfig: pytest.Config, mlab_trial_spec: TrialSpec) -> Agent:
    spec = mlab_trial_spec
    agent_class = pytestconfig.stash[AGENTS_KEY][spec.agent]
    solution = spec.task.solution_dir if agent_class.needs_solution else None
    return agent_class(AgentContext(task=spec.task.name, llm=spec.llm, solution_dir=solution))


@pytest.fixture
def mlab_result(
    request: pytest.FixtureRequest,
    mlab_settings: Settings,
    mlab_trial_spec: TrialSpec,
    mlab_data: PreparedData,
    mlab_baseline: Baseline | None,
    mlab_workspace: Workspace,
    mlab_sandbox: Sandbox,
    mlab_agent: Agent,
) -> TrialResult:
    """Run the trial and judge it; the test body only passes or fails on this record."""
    spec, settings = mlab_trial_spec, mlab_settings
    task = spec.task
    traces = settings.report_dir / settings.run_id / "traces"
    trace = Trace(traces / f"{safe_name(request.node.nodeid)}.jsonl")
    run = run_trial(
        task, mlab_data, mlab_agent, mlab_workspace, mlab_sandbox, limits_for(task, settings), trace
    )
    result = verdict(
        request.node.nodeid, task, spec.agent, spec.llm, spec.trial, run, mlab_baseline,
        settings.threshold_for(task), getattr(mlab_sandbox, "isolation", "unknown"),
    )
    result.trace = str(trace.path)
    keep = settings.keep_workspaces
    if keep == "all" or (keep == "failed" and not result.success):
        result.workspace = str(mlab_workspace.root)
    request.node.stash[RESULT_KEY] = result
    return result
