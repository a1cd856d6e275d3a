"""What a new user meets first: commands that run no trial write no run, a missing key stops
the session before any trial in one sentence, help goes to stdout, a failure's sentence is
shown whole, and each plugin's header appears only where it applies."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

NO_TRIAL = [
    ["--fixtures"], ["--fixtures-per-test"], ["--collect-only"], ["--co", "-q"], ["--markers"],
    ["--setup-plan"], ["-k", "no_such_trial"], ["--version"], ["--help"],
    ["--deselect", "tasks/guess/task.toml::guess[oracle-t0]"], ["-n", "2", "--fixtures"],
]


@pytest.mark.parametrize("args", NO_TRIAL, ids=lambda args: " ".join(args))
def test_a_command_that_runs_no_trial_writes_no_run(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    args: list[str],
) -> None:
    task_tree("guess")
    result = pytester.runpytest("tasks", "--agent=oracle", *args, *mlab_args)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    assert not (pytester.path / "reports").exists(), result.stdout.str()
    assert "a worker crashed" not in result.stdout.str()


def test_a_collection_error_writes_no_run(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    task_tree("guess")
    task_tree("guess", "broken")
    (pytester.path / "tasks" / "broken" / "task.toml").write_text("name = [\n")
    result = pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not (pytester.path / "reports").exists(), result.stdout.str()


def test_an_interrupt_in_the_first_trials_setup_still_records_every_selected_trial(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    task_tree("guess")
    pytester.makeconftest(
        "import pytest\n\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtest_setup(item):\n"
        "    raise KeyboardInterrupt\n"
    )
    # In a subprocess: in-process, pytester raises the interrupt again in this session.
    result = pytester.runpytest_subprocess("tasks", "--agent=oracle", "--mlab-trials=2",
                                           *mlab_args)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    records = read_results()
    assert [r["error_class"] for r in records] == ["Interrupted", "Interrupted"]


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MLAB_LLM_API_BASE", "MLAB_LLM_CACHE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("extra", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_missing_key_stops_the_session_before_any_trial_in_one_sentence(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    no_keys: None, extra: list[str],
) -> None:
    task_tree("guess")
    result = pytester.runpytest_subprocess("tasks", "--agent=oracle", "--agent=react",
                                           "--llm=gpt-4", "--mlab-trials=2", *extra,
                                           *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([
        "ERROR: --llm gpt-4 needs OPENAI_API_KEY in the environment: set it, or send the "
        "calls to a local server with --mlab-llm-api-base=URL, or replay recorded replies "
        "with --mlab-llm-cache=replay",
    ])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    # Before any trial: no data was prepared, and no run was written.
    assert not (pytester.path / "reports").exists()
    assert not list((pytester.path / "cache").glob("*guess*"))


def test_the_fast_models_key_is_named_with_its_option(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    no_keys: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    task_tree("guess")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-sent")
    # In a process of its own: a session stopped by a usage error mid-run leaves pytest's
    # plugin manager so that the next in-process run lacks the plugin's options.
    result = pytester.runpytest_subprocess("tasks", "--agent=react", "--llm=gpt-4",
                                           "--mlab-fast-llm=anthropic/claude-3-haiku",
                                           *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --mlab-fast-llm anthropic/claude-3-haiku needs "
                                 "ANTHROPIC_API_KEY in the environment: *"])


def test_no_key_is_asked_for_by_agents_without_an_llm_or_calls_no_provider_gets(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    no_keys: None, read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    # The react trials are deselected: the oracle's needs no key.
    only_oracle = pytester.runpytest("tasks", "--agent=oracle", "--agent=react",
                                     "--llm=gpt-4", "-k", "oracle", *mlab_args)
    only_oracle.assert_outcomes(passed=1)
    # Replayed replies call no provider: the trial runs, and misses its recording.
    replay = pytester.runpytest("tasks", "--agent=react", "--llm=gpt-4",
                                "--mlab-llm-cache=replay", "--mlab-llm-cache-dir=none-here",
                                *mlab_args)
    replay.assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["error_class"] == "ReplayMiss" and "no recorded reply" in record["message"]
    # A collection that runs nothing checks nothing.
    listed = pytester.runpytest("tasks", "--agent=react", "--llm=gpt-4", "--co", *mlab_args)
    assert listed.ret == pytest.ExitCode.OK


@pytest.mark.parametrize("asked", ["--help", "-h"])
def test_help_asked_for_goes_to_stdout_and_a_mistake_to_stderr(asked: str) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest_mlab", *args],
                              capture_output=True, text=True, timeout=60)

    helped = run(asked)
    assert helped.returncode == 0 and helped.stderr == ""
    assert helped.stdout.startswith("usage: python -m pytest_mlab COMMAND")
    for wrong in run(), run("no-such-command"):
        assert wrong.returncode == 2 and wrong.stdout == ""
        assert wrong.stderr.startswith("usage: python -m pytest_mlab COMMAND")


def test_the_short_summary_shows_a_trials_sentence_whole_at_80_columns(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch, read_results: Callable[[], list[dict[str, Any]]],
    off_ci: None,
) -> None:
    recorded("guess")
    agent = "--agent=scripted_agents:GarbageAgent"
    monkeypatch.setenv("COLUMNS", "80")
    narrow = pytester.runpytest("tasks", agent, "--tb=no", "-rf", *mlab_args)
    narrow.assert_outcomes(failed=1)
    (record,) = read_results()
    sentence = record["message"].removeprefix("guess: ")
    assert "submission.txt does not hold a number" in sentence
    lines = narrow.stdout.lines
    summary = lines[lines.index(next(x for x in lines if "short test summary info" in x)):]
    # pytest cuts its own line at the terminal's width; the sentence follows it whole.
    assert summary[1].endswith("...") and len(summary[1]) <= 80, summary
    assert summary[2] == f"FAILED guess[scripted_agents:GarbageAgent-t0] - {sentence}"
    # Where pytest's line is not cut, nothing is repeated.
    monkeypatch.setenv("COLUMNS", "400")
    wide = pytester.runpytest("tasks", agent, "--tb=no", "-rf", *mlab_args)
    assert sum(sentence in line for line in wide.stdout.lines) == 1
    # Without -rf the short summary names no failure, and neither does the plugin.
    monkeypatch.setenv("COLUMNS", "80")
    quiet = pytester.runpytest("tasks", agent, "--tb=no", "-rs", *mlab_args)
    assert not any(sentence in line for line in quiet.stdout.lines)


def test_reports_of_tasks_outside_the_project_land_where_pytest_was_run(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = task_tree("guess", "a/guess")
    second = task_tree("guess", "b/other")
    manifest = second / "task.toml"
    manifest.write_text(manifest.read_text().replace('name = "guess"', 'name = "other"', 1))
    # A project whose config file pytest does not find: it looks above the paths given.
    project = pytester.mkdir("project")
    (project / "pytest.ini").write_text("[pytest]\n")
    monkeypatch.chdir(project)
    for tasks in ([first], [first, second]):
        run = pytester.runpytest(*map(str, tasks), "--agent=oracle", *mlab_args)
        run.assert_outcomes(skipped=len(tasks))
    assert len(list(project.glob("reports/*/results.json"))) == 2
    assert not list(pytester.path.glob("tasks/**/reports")), "a task's own folder"
    assert not (pytester.path / "reports").exists(), "the tasks' common parent"
    # Where a config file roots the session, the reports are the rootdir's, from any folder.
    (pytester.path / "pytest.ini").write_text("[pytest]\n")
    monkeypatch.chdir(first)
    pytester.runpytest(".", "--agent=oracle", *mlab_args).assert_outcomes(skipped=1)
    assert len(list(pytester.path.glob("reports/*/results.json"))) == 1


def test_each_plugins_header_appears_only_where_it_applies(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pytest_benchmark  # noqa: F401  (the test extra installs it, as for tests/benchmarks)

    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:langsmith_plugin -p no:anyio")
    # Under -n, pytest-benchmark would see this worker's variable and warn it is disabled.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    task_tree("guess")
    pytester.makepyfile(test_timing="def test_sum(benchmark):\n"
                                    "    assert benchmark(sum, [1, 2]) == 3\n")

    def headers(*args: str) -> set[str]:
        run = pytester.runpytest(*args, "--co", "-p", "no:cacheprovider")
        assert run.ret == pytest.ExitCode.OK, run.stdout.str()
        return {line.partition(":")[0] for line in run.stdout.lines
                if line.startswith(("mlab:", "benchmark:"))}

    assert headers("tasks") == {"mlab"}
    assert headers("tasks/guess/task.toml::guess[baseline-t0]") == {"mlab"}
    assert headers("test_timing.py") == {"benchmark"}
    assert headers(".") == headers("tasks", "test_timing.py") == {"mlab", "benchmark"}
    # Options of the plugin ask for its header wherever the tasks are.
    assert headers("test_timing.py", "--agent=oracle") == {"mlab", "benchmark"}


def test_the_readme_names_every_task_bar_other_than_the_papers() -> None:
    import tomllib

    from pytest_mlab.trial.spec import DEFAULT_THRESHOLD

    repo = Path(__file__).parent.parent
    intro = (repo / "README.md").read_text().split("\n## ")[0]
    assert f"bar: {DEFAULT_THRESHOLD:.0%}, as in the paper" in intro
    manifests = [*repo.glob("tasks/lite/*/task.toml"), *repo.glob("tasks/mlagentbench/*.toml")]
    assert len(manifests) > 20
    own = 0
    for manifest in manifests:
        task = tomllib.loads(manifest.read_text())
        threshold = task.get("threshold", DEFAULT_THRESHOLD)
        if threshold != DEFAULT_THRESHOLD:
            own += 1
            named = f"{task['name']} {threshold * 100:g}%"
            assert named in intro.replace("\n", " "), manifest
    assert own >= 6  # fashion-cnn, contrails, review-sentiment and the timing tasks
    assert "set from a measured ladder" in intro


def test_listing_fixtures_or_trials_submits_nothing_to_a_ray_cluster(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    pytest.importorskip("ray")
    task_tree("guess")
    # No cluster listens there: connecting at all would fail the session.
    for args in (["--fixtures"], ["--setup-plan"], ["--co"]):
        run = pytester.runpytest_subprocess("tasks", "--agent=oracle", *args, *mlab_args,
                                            "--mlab-dispatch=ray:127.0.0.1:9", timeout=120)
        assert run.ret == pytest.ExitCode.OK, run.stdout.str() + run.stderr.str()
        assert not (pytester.path / "reports").exists()


@pytest.mark.parametrize("llm, variable", [
    ("gpt-4", "OPENAI_API_KEY"), ("anthropic/claude-3-5-haiku", "ANTHROPIC_API_KEY"),
    ("groq/llama-3.1-8b-instant", "GROQ_API_KEY"),
    ("gemini/gemini-1.5-flash", "GEMINI_API_KEY"),
])
def test_a_missing_key_is_named_without_importing_litellm(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
    no_keys: None, monkeypatch: pytest.MonkeyPatch, llm: str, variable: str,
) -> None:
    task_tree("guess")
    for name in ("GROQ_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    imported = pytester.path / "imported"
    # Which of litellm and the tasks' ML stack were imported, as the session's process ends.
    heavy = ("litellm", "pandas", "torch", "scipy", "sklearn")
    pytester.makeconftest(
        "import atexit, pathlib, sys\n"
        f"atexit.register(lambda: pathlib.Path({str(imported)!r}).write_text("
        f"str([m for m in {heavy!r} if m in sys.modules])))\n"
    )
    result = pytester.runpytest_subprocess("tasks", "--agent=react", f"--llm={llm}",
                                           *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([f"ERROR: --llm {llm} needs {variable} in the environment: *"])
    assert imported.read_text() == "[]"


def test_a_provider_not_told_by_its_name_is_left_to_litellm() -> None:
    from pytest_mlab.plugin.config.provider_keys import missing_keys

    assert missing_keys("openai/gpt-4o", {"OPENAI_API_KEY": "k"}) == []
    assert missing_keys("azure/my-deployment", {"AZURE_API_KEY": "k"}) == [
        "AZURE_API_BASE", "AZURE_API_VERSION"]
    assert missing_keys("ollama/llama3", {}) == []
    for unknown in ("gemini-pro", "vertex_ai/gemini-pro", "bedrock/claude", "some-model"):
        assert missing_keys(unknown, {}) is None
