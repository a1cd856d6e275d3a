"""The command-line options and their ini twins, declared once per group."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.gate import DEFAULT_ALPHA
from pytest_mlab.analysis.saved_runs import DEFAULT_STORAGE
from pytest_mlab.env.actions.options import SCRIPT_OUTPUTS
from pytest_mlab.env.agent import ANSWER_PARSINGS, HISTORIES, LANGCHAIN_STYLES, LONG_PROMPTS
from pytest_mlab.llm.cache import CACHE_MODES
from pytest_mlab.plugin.config import parsers
from pytest_mlab.plugin.config.dispatch_options import add_dispatch_options
from pytest_mlab.plugin.config.gateway_options import add_gateway_options
from pytest_mlab.plugin.config.settings import parse_data_key
from pytest_mlab.sandbox.isolation import CHOICES as ISOLATIONS
from pytest_mlab.sandbox.spec import SKELETON_IMAGE
from pytest_mlab.trial.spec import REFERENCES, REPRODUCE_CHOICES, RETENTIONS


class _Group:
    """Declares options of one --help group; ``ini=`` also declares the ini key of the same
    name."""

    def __init__(self, parser: pytest.Parser, name: str, description: str) -> None:
        self.parser = parser
        self.group = parser.getgroup(name, f"pytest-mlab: {description}")

    def __call__(self, flag: str, dest: str, help: str, *, ini: str | None = None,
                 **kwargs: Any) -> None:
        self.group.addoption(flag, dest=dest, help=help, **kwargs)
        if ini is not None:
            kind = "linelist" if kwargs.get("action") == "append" else "string"
            self.parser.addini(dest, f"{ini} (see {flag}).", type=kind)  # type: ignore[arg-type]


def add_options(parser: pytest.Parser) -> None:
    run = _Group(parser, "mlab", "running trials")
    _run_options(run)
    _scale_options(run)
    _reproduction_options(run)
    _sandbox_options(_Group(parser, "mlab-sandbox", "where scripts run"))
    llm = _Group(parser, "mlab-llm", "LLMs and the built-in agents")
    _llm_options(llm)
    _agent_options(llm)
    _report_options(_Group(parser, "mlab-report", "reports, saved runs and the gate"))
    add_gateway_options(_Group(parser, "mlab-gateway", "external agents and their LLM gateway"))
    add_dispatch_options(_Group(parser, "mlab-dispatch", "where trials run"))


def _run_options(option: _Group) -> None:
    option("--agent", "mlab_agents", "Agent to run on every task; repeat for several. A "
           "built-in name, an entry point of group pytest_mlab.agents, or package.module:Class. "
           "Default: baseline.", action="append", metavar="NAME", ini="Agents to run")
    option("--llm", "mlab_llms", "Model for agents that use one (any litellm model string); "
           "repeat for several.", action="append", metavar="MODEL",
           ini="Models for agents that use one")
    option("--mlab-trials", "mlab_trials", "Trials per task x agent x llm. Default: 1.",
           type=parsers.positive_int, metavar="N", ini="Trials per task x agent x llm")
    option("--mlab-threshold", "mlab_threshold", "Relative improvement over the baseline "
           "needed to pass, overriding each task's own. Default: the task's, else 0.10.",
           type=parsers.fraction, metavar="FRACTION", ini="Improvement needed to pass")
    option("--mlab-require-final-answer", "mlab_require_final_answer", "Pass only trials "
           "whose agent submitted a Final Answer. Default: off: as MLAgentBench, the final "
           "workspace is scored however the turn ended (step or time limit, LLM budget, a "
           "prompt too long, the agent stopping).", action="store_true", default=None,
           ini="true: pass only trials with a Final Answer")
    option("--mlab-retry-errors", "mlab_retry_errors", "Run a trial that ended in a "
           "harness error (never one the agent failed) again, up to N more times; each "
           "earlier attempt stays in its record. Default: 0.", type=parsers.whole_number,
           metavar="N", ini="Runs again of a trial that ended in a harness error")
    option("--max-steps", "mlab_max_steps", "Actions an agent may take, overriding each "
           "task's limit.", type=parsers.positive_int, metavar="N", ini="Step limit")
    option("--max-time", "mlab_max_time", "Wall-clock seconds an agent may take, overriding "
           "each task's limit.", type=parsers.positive_float, metavar="SECONDS",
           ini="Time limit in seconds")
    option("--mlab-gpus", "mlab_gpus", "GPU ids to lease to trials, e.g. 0,1, or none. "
           "Default: CUDA_VISIBLE_DEVICES.", type=parsers.gpu_list, metavar="IDS",
           ini="GPU ids to lease")
    option("--mlab-cache-dir", "mlab_cache_dir", "Where prepared data, private answers and "
           "measured baselines are kept, outside the repository and every workspace. "
           "Default: $MLAB_CACHE_DIR, else ~/.cache/pytest-mlab.", type=Path, metavar="DIR",
           ini="Cache directory")
    # No ini twin: a key written in a checked-in file would be no secret.
    option("--mlab-data-key", "mlab_data_key", "The data key generated tasks draw their data "
           "from, 64 hex digits; pin the same one on every machine that is to prepare the "
           "same data (a Ray controller's reaches its nodes). Default: $MLAB_DATA_KEY, else "
           "the cache directory's own, made on first use.", type=parse_data_key,
           metavar="HEX")
    option("--mlab-keep-workspaces", "mlab_keep_workspaces", "Which trials' workspaces to "
           "keep. Default: failed.", type=parsers.choice(RETENTIONS),
           metavar="all|failed|none", ini="all, failed or none")
    option("--mlab-validate", "mlab_validate", "Instead of trials, check each task: the "
           "starter over 5 seeds (recorded as its baseline), the bar at least 5 sd above it, "
           "the solution passing 3 of 3, the null submission and every heuristic failing; "
           "writes the suite's validation.json and README table.", action="store_true")
    option("--mlab-record-baseline", "mlab_record_baseline", "Run the baseline agent N times "
           "per task and write each task's baseline.json.", type=parsers.positive_int,
           metavar="N")
    option("--mlab-score-steps", "mlab_score_steps", "After each trial, score every Nth "
           "step's snapshot too (score over steps).", type=parsers.positive_int, metavar="N")
    option("--mlab-resume", "mlab_resume", "Continue the interrupted trials of run RUN (a "
           "folder name under the report dir, or 'last') from their last snapshots; finished "
           "trials keep their results.", metavar="RUN")
    option("--mlab-interactive", "mlab_interactive", "Offer agents the Request Help action, "
           "answered at this terminal (needs -s).", action="store_true")


def _scale_options(option: _Group) -> None:
    option("--mlab-reference", "mlab_reference", "Where the reference solution's score, "
           "the 1 of the normalised score, comes from: here measures it (3 runs, once per "
           "machine and data, kept in the cache) where the baseline is measured; validation "
           "reads the suite's validation.json, measured on another machine with other data, "
           "and each result says so. Default: validation.",
           type=parsers.choice(REFERENCES), metavar="validation|here",
           ini="validation or here")
    option("--mlab-baseline-runs", "mlab_baseline_runs", "Measure a baseline from N runs "
           "of the starter, not the task's own number (fewer: faster, a wider noise band; a "
           "kept one of fewer runs gets the rest added, one of more is used whole).",
           type=parsers.positive_int, metavar="N", ini="a whole number above 0")


def _reproduction_options(option: _Group) -> None:
    option("--mlab-reproduce", "mlab_reproduce", "After each trial, run the final "
           "workspace's entry script once more in a fresh sandbox, on a clean copy of the "
           "workspace without its submission, and score what it writes; a score outside the "
           "task's noise of the submitted one (or none) marks the trial unreproduced. auto: "
           "tasks whose entry script makes the submission (no submission pattern names the "
           "script). Default: auto.", type=parsers.choice(REPRODUCE_CHOICES),
           metavar="auto|off", ini="auto or off")
    option("--mlab-strict", "mlab_strict", "Fail unreproduced trials. Default: off: they "
           "keep their verdict and are counted apart.", action="store_true", default=None,
           ini="true: fail unreproduced trials")


def _sandbox_options(option: _Group) -> None:
    option("--mlab-sandbox", "mlab_sandbox", "Where scripts run: local (bubblewrap where "
           "present), docker, or another entry point of group pytest_mlab.sandboxes. "
           "Default: local.", metavar="NAME", ini="local, docker or another sandbox")
    option("--mlab-isolation", "mlab_isolation", "Isolation of the local sandbox; auto takes "
           "the strongest that works here. Default: auto.", type=parsers.choice(ISOLATIONS),
           metavar="auto|bwrap|netns|none", ini="auto, bwrap, netns or none")
    option("--mlab-script-timeout", "mlab_script_timeout", "Wall-clock limit of one script, "
           "overriding each task's.", type=parsers.positive_float, metavar="SECONDS",
           ini="Seconds per script")
    option("--mlab-docker-image", "mlab_docker_image", "Image of the docker sandbox. "
           f"Default: {SKELETON_IMAGE}.", metavar="IMAGE", ini="Docker sandbox image")
    option("--mlab-allow-weak-sandbox", "mlab_allow_weak_sandbox", "Run even where the "
           "sandbox fails its attestation (the probe run in it at session start: its uid, "
           "seccomp, capabilities, /proc/sys, cgroup, mounts, network, other processes' "
           "memory); each result is then marked weak. Default: $MLAB_ALLOW_WEAK_SANDBOX, "
           "else off: the session stops.", action="store_true", default=None,
           ini="true: run on a sandbox that failed its attestation")


def _llm_options(option: _Group) -> None:
    option("--mlab-fast-llm", "mlab_fast_llm", "Model for summaries and Understand File. "
           "Default: the --llm of the trial.", metavar="MODEL")
    option("--mlab-edit-llm", "mlab_edit_llm", "Model for Edit Script (AI). Default: the "
           "--llm of the trial.", metavar="MODEL")
    option("--mlab-judge-llm", "mlab_judge_llm", "Model that judges each trial's steps with "
           "MLE-bench's rule checker's questions, through the trial's budget and ledger; a yes "
           "is a flag. Default: no LLM judge (the trace's own checks always run).",
           metavar="MODEL")
    option("--mlab-llm-api-base", "mlab_llm_api_base", "Send every LLM call to this "
           "OpenAI-compatible server (vLLM, Ollama, ...). Default: $MLAB_LLM_API_BASE, else "
           "the provider's own.", metavar="URL", ini="OpenAI-compatible server")
    option("--mlab-llm-timeout", "mlab_llm_timeout", "Seconds one LLM call may take. "
           "Default: 120.", type=parsers.positive_float, metavar="SECONDS")
    option("--mlab-llm-retries", "mlab_llm_retries", "Retries after a rate limit, server "
           "error or timeout. Default: 4.", type=parsers.whole_number, metavar="N")
    option("--mlab-llm-backoff", "mlab_llm_backoff", "Wait before the first retry, doubled "
           "for each further one. Default: 1.", type=parsers.positive_float, metavar="SECONDS")
    option("--mlab-temperature", "mlab_temperature", "Sampling temperature: one value for "
           "every role, or ROLE=VALUE for main, fast or edit (comma-separated or repeated); "
           "none sends none. Default: MLAgentBench's per role and model family (0.5, or 0.2 "
           "for GPT models; fast 0.01).", action="append", type=parsers.temperatures,
           metavar="[ROLE=]T", ini="Temperatures per role")
    option("--mlab-max-output-tokens", "mlab_max_output_tokens", "Most tokens one answer may "
           "have: one value for every role, or ROLE=N; none sends none. Default: "
           "MLAgentBench's (2000, or 500 for GPT models; edit 4000).", action="append",
           type=parsers.output_tokens, metavar="[ROLE=]N", ini="Output tokens per role")
    option("--mlab-stop", "mlab_stop", "Stop sequence of every call (\\n for a newline); "
           "repeat for several; none for no stop. Default: 'Observation:' (and for Claude "
           "models a new human turn), as in MLAgentBench.", action="append",
           type=parsers.stop_sequence, metavar="TEXT", ini="Stop sequences")
    option("--mlab-max-tokens", "mlab_max_tokens", "Tokens (prompt and completion) one trial "
           "may spend; then it ends and is scored.", type=parsers.positive_int, metavar="N")
    option("--mlab-max-cost", "mlab_max_cost", "Dollars one trial may spend on LLM calls; "
           "then it ends and is scored.", type=parsers.positive_float, metavar="DOLLARS")
    option("--mlab-max-session-cost", "mlab_max_session_cost", "The run does not start when "
           "the forecast of its cost (from past trials) is above this even at its low end; "
           "once the session has spent this much, running trials finish and no new one "
           "starts (they are skipped).",
           type=parsers.positive_float, metavar="DOLLARS")
    option("--mlab-llm-cache", "mlab_llm_cache", "Record LLM replies, replay them (no "
           "provider is called; a miss is an error), or auto (replay what is there, record "
           "the rest). Default: off.", type=parsers.choice(CACHE_MODES),
           metavar="off|record|replay|auto", ini="off, record, replay or auto")
    option("--mlab-llm-cache-dir", "mlab_llm_cache_dir", "Where recorded replies live. "
           "Default: .mlab/llm-cache under the rootdir (as --mlab-report-dir).", type=Path,
           metavar="DIR", ini="Recorded LLM replies")


def _agent_options(option: _Group) -> None:
    option("--mlab-retrieval", "mlab_retrieval", "react: keep a research log and prompt with "
           "what is retrieved from it.", action="store_true")
    option("--mlab-tool-calling", "mlab_tool_calling", "react: choose actions through the "
           "provider's native tool calling.", action="store_true")
    option("--mlab-history", "mlab_history", "react: paper shows the last 3 steps in full "
           "and nothing older, as MLAgentBench; compact also lists every older step in a "
           "line. Default: paper.", type=parsers.choice(HISTORIES), metavar="paper|compact",
           ini="paper or compact")
    option("--mlab-long-prompt", "mlab_long_prompt", "react: when the prompt is too long for "
           "the model, retry once with only the last step and say older ones were dropped "
           "(retry), end the agent's turn there and score the workspace (stop), or end it "
           "and fail the trial unscored, as MLAgentBench's run failed (fail; langchain "
           "never retries). Default: retry.", type=parsers.choice(LONG_PROMPTS),
           metavar="retry|stop|fail")
    option("--mlab-paper-prompt", "mlab_paper_prompt", "react: build the prompt from this "
           "checkout of MLAgentBench's own texts (its instructions, answer fields and tool "
           "descriptions), verbatim. Default: pytest-mlab's wording, which differs.",
           metavar="CHECKOUT", ini="A checkout of MLAgentBench whose prompt react uses")
    option("--mlab-answer-parsing", "mlab_answer_parsing", "react: paper reads an answer as "
           "MLAgentBench did (each field as written, in order; the action's exact name); "
           "lenient also takes any order and case, markdown bold, and an action name in "
           "quotes. Default: paper.", type=parsers.choice(ANSWER_PARSINGS),
           metavar="paper|lenient", ini="paper or lenient")
    option("--mlab-system-prompt", "mlab_system_prompt", "react: send the instructions as a "
           "system message instead of one user message with everything, as MLAgentBench "
           "does.", action="store_true")
    option("--mlab-invalid-retries", "mlab_invalid_retries", "react, langchain: how often an "
           "unusable answer is asked for again; it costs no step. Default: 4 (5 attempts, as "
           "MLAgentBench).", type=parsers.whole_number, metavar="N")
    option("--mlab-langchain-style", "mlab_langchain_style", "langchain: react is a text "
           "ReAct agent, as MLAgentBench's; tools is a native tool-calling loop. Default: "
           "react.", type=parsers.choice(LANGCHAIN_STYLES), metavar="react|tools",
           ini="react or tools")
    option("--mlab-script-output", "mlab_script_output", "Execute Script returns stdout "
           "(stderr on failure), as MLAgentBench (paper), or both streams clipped to 10,000 "
           "characters (both). Default: paper.", type=parsers.choice(SCRIPT_OUTPUTS),
           metavar="paper|both", ini="paper or both")
    option("--mlab-understand-limit", "mlab_understand_limit", "Understand File reads at "
           "most this many characters of a file. Default: the whole file, as MLAgentBench.",
           type=parsers.positive_int, metavar="CHARS", ini="Characters Understand File reads")
    option("--mlab-agent-cmd", "mlab_agent_cmd", "command: the external agent's command "
           "line, run in the sandbox; {problem} becomes the path of a file with the research "
           "problem.", metavar="COMMAND")


def _report_options(option: _Group) -> None:
    option("--mlab-report-dir", "mlab_report_dir", "Where runs are written "
           "(DIR/<run>/results.json), relative to the rootdir (where no config file or "
           "--rootdir sets one: the folder pytest runs in). Default: reports.", type=Path,
           metavar="DIR", ini="Report directory")
    option("--mlab-save", "mlab_save", "Save this run's results in the storage folder as "
           "NNNN_NAME.json. Default NAME: the run id.", nargs="?", const="",
           type=parsers.save_name, metavar="NAME")
    option("--mlab-autosave", "mlab_autosave", "Save every run in the storage folder, named "
           "by its run id.", action="store_true")
    option("--mlab-storage", "mlab_storage", "Folder of saved runs, relative to the rootdir "
           "(as --mlab-report-dir). "
           f"Default: {DEFAULT_STORAGE}.", type=Path, metavar="DIR", ini="Folder of saved runs")
    option("--mlab-compare", "mlab_compare", "Compare this run with a saved one: its number "
           "(0003), its name, or a path to any results.json, written after '='. Default RUN: "
           "the latest saved run.", nargs="?", const="", metavar="RUN")
    option("--mlab-compare-fail", "mlab_compare_fail", "Fail the session when a task x agent "
           "x llm falls by more than EXPR and the fall is significant: success:-10%% (the "
           "success rate drops by more than 10 points), improvement:-5%% (the mean improvement "
           "drops by more than 5 points); a fraction works too (success:-0.1). Repeat for "
           "several. With a limit the gate decides the exit status: failed trials are "
           "measurements, only errors and a tripped gate fail.", action="append",
           type=parsers.parse_limit, metavar="EXPR")
    option("--mlab-compare-any-containment", "mlab_compare_any_containment", "Compare "
           "with a run whose containment (sandbox kind, isolation, the script's host uid, "
           "seccomp, network) differs from this one's. Default: off: the gate refuses.",
           action="store_true")
    option("--mlab-compare-leave-flagged", "mlab_compare_leave_flagged", "Leave the trials "
           "the rule checks flagged out of both runs before comparing. Default: off.",
           action="store_true")
    option("--mlab-compare-alpha", "mlab_compare_alpha", "Significance level of the gate's "
           f"one-sided tests. Default: {DEFAULT_ALPHA}.", type=parsers.parse_alpha,
           metavar="P")
    option("--mlab-compare-normalised-drop", "mlab_compare_normalised_drop", "Fail the session "
           "when an agent's mean normalised score over the tasks both runs scored drops by "
           "more than DROP (0.1: a tenth of the way from the baseline to the reference "
           "solution); a plain tolerance, unless --mlab-compare-normalised-significant. "
           "Default: none.", type=parsers.positive_float, metavar="DROP")
    option("--mlab-compare-normalised-significant", "mlab_compare_normalised_significant",
           "Trip --mlab-compare-normalised-drop only on a drop that is also significant at "
           "the gate's alpha (a one-sided z-test over the trials of the tasks both runs "
           "scored, as the forecast's suite line). Default: off.", action="store_true")
    option("--mlab-pass-k", "mlab_pass_k", "The k of pass@k and pass^k in the terminal, the "
           "report and the comparison. Default: the trials each task x agent x llm ran.",
           type=parsers.positive_int, metavar="K")
    option("--mlab-report-md", "mlab_report_md", "Write a markdown summary (and the "
           "comparison) to PATH, e.g. $GITHUB_STEP_SUMMARY.", type=Path, metavar="PATH")
