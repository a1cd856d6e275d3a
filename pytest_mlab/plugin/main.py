"""Options, ini keys and registration. Everything else lives in its own module."""

from __future__ import annotations

import secrets
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_mlab.plugin import hookspecs
from pytest_mlab.env.agent import UnknownAgent, load_agent
from pytest_mlab.plugin.collect import TaskFile
from pytest_mlab.plugin.keys import AGENTS_KEY, SETTINGS_KEY
from pytest_mlab.plugin.settings import (
    DEFAULT_DOCKER_IMAGE,
    ISOLATIONS,
    SANDBOXES,
    Settings,
    cache_mode,
    choice,
    fraction,
    gpu_list,
    positive_float,
    positive_int,
    resolve_settings,
    retention,
    whole_number,
)
from pytest_mlab.core.task import MANIFEST

pytest_plugins = ["pytest_mlab.plugin.compare"]


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup("mlab", "pytest-mlab: ML agent benchmark")
    group.addoption(
        "--agent", action="append", dest="mlab_agents", metavar="NAME",
        help="Agent to run on every task; repeat for several. A built-in name, an entry "
        "point of group pytest_mlab.agents, or package.module:Class. Default: baseline.",
    )
    group.addoption(
        "--llm", action="append", dest="mlab_llms", metavar="MODEL",
        help="Model for agents that use one (any litellm model string); repeat for several.",
    )
    group.addoption(
        "--mlab-trials", type=positive_int, dest="mlab_trials", metavar="N",
        help="Trials per task x agent x llm. Default: 1.",
    )
    group.addoption(
        "--mlab-threshold", type=fraction, dest="mlab_threshold", metavar="FRACTION",
        help="Relative improvement over the baseline needed to pass, overriding each "
        "task's own. Default: the task's, else 0.10.",
    )
    group.addoption(
        "--max-steps", type=positive_int, dest="mlab_max_steps", metavar="N",
        help="Actions an agent may take, overriding each task's limit.",
    )
    group.addoption(
        "--max-time", type=positive_float, dest="mlab_max_time", metavar="SECONDS",
        help="Wall-clock seconds an agent may take, overriding each task's limit.",
    )
    group.addoption(
        "--mlab-gpus", type=gpu_list, dest="mlab_gpus", metavar="IDS",
        help="GPU ids to lease to trials, e.g. 0,1, or none. Default: CUDA_VISIBLE_DEVICES.",
    )
    group.addoption(
        "--mlab-cache-dir", type=Path, dest="mlab_cache_dir", metavar="DIR",
        help="Where prepared data, private answers and measured baselines are kept, "
        "outside the repository and every workspace. Default: $MLAB_CACHE_DIR, "
        "else ~/.cache/pytest-mlab.",
    )
    group.addoption(
        "--mlab-report-dir", type=Path, dest="mlab_report_dir", metavar="DIR",
        help="Where runs are written (DIR/<run>/results.json), relative to the rootdir. "
        "Default: reports.",
    )
    group.addoption(
        "--mlab-keep-workspaces", type=retention, dest="mlab_keep_workspaces",
        metavar="all|failed|none", help="Which trials' workspaces to keep. Default: failed.",
    )
    group.addoption(
        "--mlab-record-baseline", type=positive_int, dest="mlab_record_baseline", metavar="N",
        help="Run the baseline agent N times per task and write each task's baseline.json.",
    )
    group.addoption(
        "--mlab-sandbox", type=choice(SANDBOXES), dest="mlab_sandbox", metavar="local|docker",
        help="Where scripts run: local (bubblewrap where present) or docker. Default: local.",
    )
    group.addoption(
        "--mlab-isolation", type=choice(ISOLATIONS), dest="mlab_isolation",
        metavar="auto|bwrap|netns|none",
        help="Isolation of the local sandbox; auto takes the strongest that works here. "
        "Default: auto.",
    )
    group.addoption(
        "--mlab-script-timeout", type=positive_float, dest="mlab_script_timeout",
        metavar="SECONDS", help="Wall-clock limit of one script, overriding each task's.",
    )
    group.addoption(
        "--mlab-docker-image", dest="mlab_docker_image", metavar="IMAGE",
        help=f"Image of the docker sandbox. Default: {DEFAULT_DOCKER_IMAGE}.",
    )
    group.addoption(
        "--mlab-score-steps", type=positive_int, dest="mlab_score_steps", metavar="N",
        help="After each trial, score every Nth step's snapshot too (score over steps).",
    )
    group.addoption(
        "--mlab-resume", dest="mlab_resume", metavar="RUN",
        help="Continue the interrupted trials of run RUN (a folder name under the report "
        "dir, or 'last') from their last snapshots; finished trials keep their results.",
    )
    group.addoption(
        "--mlab-interactive", action="store_true", dest="mlab_interactive",
        help="Offer agents the Request Help action, answered at this terminal (needs -s).",
    )
    _add_llm_options(group)
    for name, help_text, kind in (
        ("mlab_agents", "Agents to run (see --agent).", "linelist"),
        ("mlab_llms", "Models for agents that use one (see --llm).", "linelist"),
        ("mlab_trials", "Trials per task x agent x llm (see --mlab-trials).", "string"),
        ("mlab_threshold", "Improvement needed to pass (see --mlab-threshold).", "string"),
        ("mlab_max_steps", "Step limit (see --max-steps).", "string"),
        ("mlab_max_time", "Time limit in seconds (see --max-time).", "string"),
        ("mlab_gpus", "GPU ids to lease (see --mlab-gpus).", "string"),
        ("mlab_cache_dir", "Cache directory (see --mlab-cache-dir).", "string"),
        ("mlab_report_dir", "Report directory (see --mlab-report-dir).", "string"),
        ("mlab_keep_workspaces", "all, failed or none (see --mlab-keep-workspaces).", "string"),
        ("mlab_sandbox", "local or docker (see --mlab-sandbox).", "string"),
        ("mlab_isolation", "auto, bwrap, netns or none (see --mlab-isolation).", "string"),
        ("mlab_script_timeout", "Seconds per script (see --mlab-script-timeout).", "string"),
        ("mlab_docker_image", "Docker sandbox image (see --mlab-docker-image).", "string"),
        ("mlab_llm_api_base", "OpenAI-compatible server (see --mlab-llm-api-base).", "string"),
        ("mlab_llm_cache", "off, record, replay or auto (see --mlab-llm-cache).", "string"),
        ("mlab_llm_cache_dir", "Recorded LLM replies (see --mlab-llm-cache-dir).", "string"),
    ):
        parser.addini(name, help_text, type=kind)  # type: ignore[arg-type]
    pluginmanager.add_hookspecs(hookspecs)


def _add_llm_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--mlab-fast-llm", dest="mlab_fast_llm", metavar="MODEL",
        help="Model for summaries and Understand File. Default: the --llm of the trial.",
    )
    group.addoption(
        "--mlab-edit-llm", dest="mlab_edit_llm", metavar="MODEL",
        help="Model for Edit Script (AI). Default: the --llm of the trial.",
    )
    group.addoption(
        "--mlab-llm-api-base", dest="mlab_llm_api_base", metavar="URL",
        help="Send every LLM call to this OpenAI-compatible server (vLLM, Ollama, ...). "
        "Default: $MLAB_LLM_API_BASE, else the provider's own.",
    )
    group.addoption(
        "--mlab-llm-timeout", type=positive_float, dest="mlab_llm_timeout", metavar="SECONDS",
        help="Seconds one LLM call may take. Default: 120.",
    )
    group.addoption(
        "--mlab-llm-retries", type=whole_number, dest="mlab_llm_retries", metavar="N",
        help="Retries after a rate limit, server error or timeout. Default: 4.",
    )
    group.addoption(
        "--mlab-llm-backoff", type=positive_float, dest="mlab_llm_backoff", metavar="SECONDS",
        help="Wait before the first retry, doubled for each further one. Default: 1.",
    )
    group.addoption(
        "--mlab-max-tokens", type=positive_int, dest="mlab_max_tokens", metavar="N",
        help="Tokens (prompt and completion) one trial may spend; then it ends and is scored.",
    )
    group.addoption(
        "--mlab-max-cost", type=positive_float, dest="mlab_max_cost", metavar="DOLLARS",
        help="Dollars one trial may spend on LLM calls; then it ends and is scored.",
    )
    group.addoption(
        "--mlab-max-session-cost", type=positive_float, dest="mlab_max_session_cost",
        metavar="DOLLARS",
        help="Once the session has spent this much, running trials finish and no new one "
        "starts (they are skipped).",
    )
    group.addoption(
        "--mlab-llm-cache", type=cache_mode, dest="mlab_llm_cache",
        metavar="off|record|replay|auto",
        help="Record LLM replies, replay them (no provider is called; a miss is an error), "
        "or auto (replay what is there, record the rest). Default: off.",
    )
    group.addoption(
        "--mlab-llm-cache-dir", type=Path, dest="mlab_llm_cache_dir", metavar="DIR",
        help="Where recorded replies live. Default: .mlab/llm-cache under the rootdir.",
    )
    group.addoption(
        "--mlab-retrieval", action="store_true", dest="mlab_retrieval",
        help="react: keep a research log and prompt with what is retrieved from it.",
    )
    group.addoption(
        "--mlab-tool-calling", action="store_true", dest="mlab_tool_calling",
        help="react: choose actions through the provider's native tool calling.",
    )
    group.addoption(
        "--mlab-invalid-retries", type=whole_number, dest="mlab_invalid_retries", metavar="N",
        help="react: how often an unreadable response is asked for again. Default: 5.",
    )
    group.addoption(
        "--mlab-agent-cmd", dest="mlab_agent_cmd", metavar="COMMAND",
        help="command: the external agent's command line, run in the sandbox; {problem} "
        "becomes the path of a file with the research problem.",
    )


def _resumed_run(report_dir: Path, wanted: str) -> str:
    runs = sorted(p.name for p in report_dir.glob("*") if (p / "traces").is_dir())
    if wanted == "last" and runs:
        return runs[-1]
    if wanted in runs:
        return wanted
    raise pytest.UsageError(
        f"--mlab-resume: no run {wanted!r} with traces under {report_dir}"
        + (f"; runs there: {', '.join(runs[-5:])}" if runs else "")
    )


def _new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def pytest_configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    run_id = workerinput["mlab_run_id"] if workerinput else _new_run_id()
    settings = resolve_settings(config, run_id)
    if settings.resume and not workerinput:
        settings = replace(settings, run_id=_resumed_run(settings.report_dir, settings.resume))
    if settings.interactive and (workerinput or getattr(config.option, "numprocesses", None)):
        raise pytest.UsageError("--mlab-interactive needs a terminal: drop -n")
    if settings.record_baseline is not None and set(settings.agents) != {"baseline"}:
        raise pytest.UsageError("--mlab-record-baseline runs the baseline agent only; drop --agent")
    agents = {}
    for name in settings.agents:
        try:
            agents[name] = load_agent(name)
        except UnknownAgent as exc:
            raise pytest.UsageError(f"--agent: {exc}") from None
        if name == "command" and not settings.agent_options.command:
            raise pytest.UsageError("--agent=command runs an external agent: give its command "
                                    "line with --mlab-agent-cmd")
        if agents[name].uses_llm and not settings.llms:
            raise pytest.UsageError(f"--agent={name} uses an LLM: give one with --llm MODEL")
    config.stash[SETTINGS_KEY] = settings
    config.stash[AGENTS_KEY] = agents
    from pytest_mlab.plugin import fixtures
    from pytest_mlab.plugin import reporter as reporting

    config.pluginmanager.register(fixtures, "mlab-fixtures")
    config.pluginmanager.register(reporting.Reporter(config), "mlab-reporter")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(reporting.XdistHooks(settings.run_id), "mlab-xdist")
    if not workerinput and config.get_verbosity() >= 1:
        from pytest_mlab.plugin.progress import LiveProgress

        traces = settings.report_dir / settings.run_id / "traces"
        config.pluginmanager.register(LiveProgress(config, traces), "mlab-progress")


def pytest_report_header(config: pytest.Config) -> str:
    settings: Settings = config.stash[SETTINGS_KEY]
    return settings.header()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> TaskFile | None:
    if file_path.name == MANIFEST:
        return TaskFile.from_parent(parent, path=file_path)
    return None
