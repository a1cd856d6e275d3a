"""The fixtures a trial is built from; each can be overridden from a conftest.py."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mlab.env.agent import Agent, AgentContext, load_agent
from pytest_mlab.core.baseline import Baseline, measured_baseline, read_record
from pytest_mlab.plugin.collect import TrialSpec
from pytest_mlab.env.data import PreparedData, prepare_task
from pytest_mlab.env.environment import Limits
from pytest_mlab.core.errors import InfrastructureError, TaskUnavailable
from pytest_mlab.trial.gpu import NoGPU, lease
from pytest_mlab.plugin.keys import AGENTS_KEY, RESULT_KEY, SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.llm import LLMClient, LLMConfig
from pytest_mlab.llm.cache import ReplyCache
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.core.machine import machine_id
from pytest_mlab.env.progress import ProgressFile
from pytest_mlab.core.results import TrialResult
from pytest_mlab.sandbox import LocalSandbox, Sandbox
from pytest_mlab.sandbox.resources import GIB, ResourceLimits
from pytest_mlab.sandbox.local import SANDBOX_ENV
from pytest_mlab.plugin.settings import Settings
from pytest_mlab.core.snapshots import Snapshotter
from pytest_mlab.trial.step_scores import score_steps
from pytest_mlab.core.task import TaskFormatError, TaskSpec
from pytest_mlab.core.trace import Trace
from pytest_mlab.trial.act import run_trial
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.trial.judge import verdict
from pytest_mlab.plugin.warnings import MlabWarning
from pytest_mlab.env.workspace import Workspace, provision_workspace


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


@pytest.hookimpl(trylast=True)
def pytest_mlab_make_sandbox(
    config: pytest.Config, task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...]
) -> Sandbox:
    settings: Settings = config.stash[SETTINGS_KEY]
    limits = limits_for(task, settings)
    resources = ResourceLimits(
        memory_bytes=int(task.manifest.resources.memory_gb * GIB),
        cpu_seconds=int(limits.script_timeout * (os.cpu_count() or 1)) + 60,
    )
    # An empty CUDA_VISIBLE_DEVICES hides every GPU the trial did not lease.
    environ = {"CUDA_VISIBLE_DEVICES": ",".join(gpus)}
    if settings.sandbox == "docker":
        from pytest_mlab.sandbox.docker import DockerSandbox

        return DockerSandbox(
            workspace.root, image=settings.docker_image, run_id=settings.run_id,
            protected=tuple(workspace.protected), limits=resources, gpus=gpus,
            environment=CONTAINER_ENV | SANDBOX_ENV | environ, hidden=task.hidden_paths(),
        )
    return LocalSandbox(
        workspace.root, isolation=settings.isolation, protected=tuple(workspace.protected),
        limits=resources, extra_env=environ, hidden=task.hidden_paths(),
    )


CONTAINER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}


def limits_for(task: TaskSpec, settings: Settings) -> Limits:
    own = task.manifest.limits
    return Limits(
        max_steps=settings.max_steps or own.max_steps,
        max_time=settings.max_time or own.max_time,
        script_timeout=settings.script_timeout or own.script_timeout,
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
) -> Iterator[Sandbox]:
    sandbox: Sandbox = pytestconfig.hook.pytest_mlab_make_sandbox(
        config=pytestconfig, task=mlab_task, workspace=mlab_workspace, gpus=mlab_gpu
    )
    try:
        yield sandbox
    finally:
        close = getattr(sandbox, "close", None)  # optional for a plugin's own sandbox
        if close is not None:
            close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    settings: Settings = session.config.stash[SETTINGS_KEY]
    # Only the controller: workers end while others may still be running trials.
    if settings.sandbox == "docker" and not hasattr(session.config, "workerinput"):
        from pytest_mlab.sandbox.docker import remove_containers

        remove_containers(settings.run_id)


@pytest.fixture
def mlab_agent(pytestconfig: pytest.Config, mlab_trial_spec: TrialSpec) -> Agent:
    spec = mlab_trial_spec
    agent_class = pytestconfig.stash[AGENTS_KEY][spec.agent]
    # Read with getattr: agents from other packages need not declare these.
    for module in getattr(agent_class, "requires", ()):
        if importlib.util.find_spec(module) is None:
            extra = getattr(agent_class, "extra", None)
            fix = f"pytest-mlab[{extra}]" if extra else module
            pytest.skip(f"the {spec.agent} agent needs {module}: pip install '{fix}'")
    solution = spec.task.solution_dir if agent_class.needs_solution else None
    return agent_class(AgentContext(
        task=spec.task.name, llm=spec.llm, solution_dir=solution,
        options=pytestconfig.stash[SETTINGS_KEY].agent_options,
    ))


@pytest.fixture
def mlab_llm(mlab_settings: Settings, mlab_trial_spec: TrialSpec) -> LLMClient | None:
    """The trial's LLM client; None for agents without a model."""
    spec, chosen = mlab_trial_spec, mlab_settings.llm
    if spec.llm is None:
        return None
    ledger = CostLedger(mlab_settings.report_dir / mlab_settings.run_id / "llm-spend.log")
    cap = chosen.max_session_cost
    if cap is not None and (spent := ledger.total()) >= cap:
        pytest.skip(f"the session's LLM budget of ${cap:g} is spent (${spent:.4f}); "
                    "no new trial starts")
    config = LLMConfig(
        main=spec.llm, fast=chosen.fast or spec.llm, edit=chosen.edit or spec.llm,
        api_base=chosen.api_base, timeout=chosen.timeout, retries=chosen.retries,
        backoff=chosen.backoff, max_tokens=chosen.max_tokens, max_cost=chosen.max_cost,
        cache=None if chosen.cache == "off" else ReplyCache(chosen.cache_dir, chosen.cache),
        ledger=ledger,
    )
    return LLMClient(config, label=f"{spec.task.name}/{spec.agent}/{spec.llm} trial {spec.trial}")


def _terminal_ask(config: pytest.Config) -> Callable[[str], str]:
    """Request Help, answered by the person at this terminal."""
    capture = config.pluginmanager.getplugin("capturemanager")

    def ask(question: str) -> str:
        with capture.global_and_fixture_disabled():
            print(f"\n[mlab] The agent asks: {question}")
            return input("[mlab] Your answer: ")

    return ask


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
    mlab_llm: LLMClient | None,
) -> TrialResult:
    """Run the trial and judge it; the test body only passes or fails on this record."""
    spec, settings = mlab_trial_spec, mlab_settings
    task = spec.task
    files = TrialFiles(settings.report_dir / settings.run_id, safe_name(request.node.nodeid))
    if settings.resume and files.result.exists():
        result = TrialResult.model_validate_json(files.result.read_text(encoding="utf-8"))
        request.node.stash[RESULT_KEY] = result
        return result
    resume = files.resume_into(mlab_workspace) if settings.resume else None
    with Snapshotter(
        files.objects, files.manifests, mlab_workspace.root, mlab_workspace.protected
    ) as snapshots:
        run = run_trial(
            task, mlab_data, mlab_agent, mlab_workspace, mlab_sandbox,
            limits_for(task, settings), Trace(files.trace, append=resume is not None),
            snapshots=snapshots, resume=resume, llm=mlab_llm,
            progress=ProgressFile(files.progress, request.node.name),
            ask=_terminal_ask(request.config) if settings.interactive else None,
        )
    result = verdict(
        request.node.nodeid, task, spec.agent, spec.llm, spec.trial, run, mlab_baseline,
        settings.threshold_for(task), mlab_sandbox.isolation,
    )
    result.trace = str(files.trace)
    result.resumed_from = len(resume.steps) if resume else None
    if settings.score_steps:
        result.step_scores = score_steps(task, mlab_data, files, settings.score_steps)
    keep = settings.keep_workspaces
    if keep == "all" or (keep == "failed" and not result.success):
        result.workspace = str(mlab_workspace.root)
    files.result.write_text(result.model_dump_json(), encoding="utf-8")
    request.node.stash[RESULT_KEY] = result
    return result
