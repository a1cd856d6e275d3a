"""One line is one line: text from an agent, its model, a script or a scorer never starts a
line of its own in pytest's output, the JUnit XML, the markdown summary or the run's logs.

A hostile model once sent an error frame whose message held newlines, and three forged
lines (a PASSED line, a summary-table row, ``=== 1 passed in 41.20s ===``) stood in
pytest's output as lines of their own. Here each way such text reaches a trial's verdict
carries the same forgery, through real trials.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply

from pytest_mlab.core.plain_text import hanging, one_line
from pytest_mlab.llm.client import import_litellm
from pytest_mlab.plugin.reporting.records import one_line_report

import_litellm()  # once per test process, as tests/test_llm_agents.py explains

FORGED = ("boom\nPASSED tasks/x::y\r\nguess  oracle  -  1/1  100%\n"
          "=== 1 passed in 41.20s ===")
STARTS = ("PASSED tasks/x", "guess  oracle", "=== 1 passed in 41.20s")
"""How each forged line begins: no line of any output may."""
ESCAPED = ("boom\\x0aPASSED tasks/x::y\\x0d\\x0aguess  oracle  -  1/1  100%\\x0a"
           "=== 1 passed in 41.20s ===")
"""The forged words as a record keeps them: on one line."""

AGENTS = '''
from pytest_mlab import Environment

FORGED = {forged!r}
SCRIPT = "open('submission.txt', 'w').write(" + repr(FORGED) + ")"


class _Forger:
    uses_llm = False
    needs_solution = False

    def __init__(self, context):
        self.context = context


class Raises(_Forger):
    """The agent's own exception, in its model's words: it fails."""

    def run(self, env: Environment) -> str:
        raise RuntimeError(FORGED)


class Scripts(_Forger):
    """A script in the sandbox writes the submission, which the scorer quotes: it fails."""

    def run(self, env: Environment) -> str:
        env.execute("Write File", file_name="forge.py", content=SCRIPT)
        env.execute("Execute Script", script_name="forge.py")
        env.execute("Final Answer", final_answer=FORGED)
        return FORGED


class CrashesScorer(_Forger):
    """A submission the scorer chokes on, its words in the scorer's traceback: an error."""

    def run(self, env: Environment) -> str:
        env.execute("Write File", file_name="submission.txt", content="crash " + FORGED)
        return FORGED


class NeverStarts(_Forger):
    """An agent that raises as it is made, before the trial: pytest's own traceback."""

    def __init__(self, context):
        raise RuntimeError(FORGED)

    def run(self, env: Environment) -> str:
        return "never"
'''

SCORER = '''
from pathlib import Path

from pytest_mlab import InvalidSubmission


def score(workspace: Path, private: Path) -> float:
    submission = workspace / "submission.txt"
    if not submission.is_file():
        raise InvalidSubmission("submission.txt is missing")
    text = submission.read_text()
    if text.startswith("crash"):
        raise ValueError(text)
    try:
        guess = float(text)
    except ValueError:
        raise InvalidSubmission(f"submission.txt does not hold a number: {text}") from None
    return abs(guess - float((private / "answer.txt").read_text())) + 1.0
'''

VERDICTS = {"forged_agents:Raises": "failed", "forged_agents:Scripts": "failed",
            "forged_agents:CrashesScorer": "error", "forged_agents:NeverStarts": "error",
            "react": "error"}
"""Each agent's outcome; react's model answers every call with the forged error frame."""


@pytest.fixture
def forged_task(pytester: pytest.Pytester, recorded: Callable[[str], Path],
                server: LLMServer) -> Path:
    """The guess task with a scorer that quotes the submission, the forging agents, and a
    provider whose every answer is an error frame in the forged words."""
    root = recorded("guess")
    (root / "score.py").write_text(SCORER)
    pytester.makepyfile(forged_agents=AGENTS.format(forged=FORGED))
    server.script.respond = lambda request: Reply(status=400, content=FORGED)
    return root


def forged_lines(text: str) -> list[str]:
    """The lines of ``text`` that begin as a forged line does (``\\r`` ends a line too)."""
    return [line for line in text.splitlines() if line.startswith(STARTS)]


def run_forgers(pytester: pytest.Pytester, server: LLMServer, mlab_args: list[str],
                *extra: str) -> pytest.RunResult:
    agents = [f"--agent={name}" for name in VERDICTS]
    run = pytester.runpytest(
        "tasks", *agents, "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-llm-retries=0", "-rA", "--junitxml=junit.xml", "--mlab-report-md=summary.md",
        *extra, *mlab_args)
    run.assert_outcomes(failed=2, errors=3)
    return run


def xml_texts(path: Path) -> Iterator[tuple[str, str]]:
    """Every message attribute and text of the JUnit XML's test cases, by where it is."""
    for case in ET.parse(path).getroot().iter("testcase"):
        for element in case.iter():
            for key, value in element.attrib.items():
                yield f"{case.get('name')} {element.tag}.{key}", value
            yield f"{case.get('name')} {element.tag}", element.text or ""


def run_logs(pytester: pytest.Pytester) -> dict[str, str]:
    """The run folder's logs (the LLM spend of external agents, each trial's trace), by
    name."""
    (run,) = (pytester.path / "reports").iterdir()
    return {str(path.relative_to(run)): path.read_text()
            for pattern in ("*.log", "traces/*.jsonl") for path in run.glob(pattern)}


@pytest.mark.slow
@pytest.mark.parametrize("tb", ["auto", "native", "short", "line"])
def test_no_forged_line_reaches_any_output(
    pytester: pytest.Pytester, forged_task: Path, server: LLMServer, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
    tb: str,
) -> None:
    """On CI pytest's short summary holds each whole message, not its first line only."""
    monkeypatch.setenv("CI", "1")
    run = run_forgers(pytester, server, mlab_args, f"--tb={tb}")
    assert forged_lines(run.stdout.str()) == [], run.stdout.str()
    assert forged_lines(run.stderr.str()) == []
    records = {r["agent"]: r for r in read_results()}
    assert {agent: r["outcome"] for agent, r in records.items()} == VERDICTS
    for agent, record in records.items():
        for key in ("message", "error_class", "ended_by"):
            assert forged_lines(record[key] or "") == [], (agent, key, record[key])
    # The record keeps the forged words, escaped, so the sentence still says what was seen.
    assert ESCAPED in records["forged_agents:Raises"]["message"]
    # The scorer reads the submission as text, where a carriage return and newline is one.
    assert ESCAPED.replace("\\x0d", "") in records["forged_agents:Scripts"]["message"]
    assert "boom" in records["react"]["message"]
    junit = (pytester.path / "junit.xml").read_text()
    assert forged_lines(junit) == []
    for where, text in xml_texts(pytester.path / "junit.xml"):
        assert forged_lines(text) == [], (where, text)
    assert forged_lines((pytester.path / "summary.md").read_text()) == []
    logs = run_logs(pytester)
    # The trace of each trial that started, and the react trial's whole model calls.
    traces = [name for name in logs if not name.endswith(".calls.jsonl")]
    assert len(traces) == 4
    assert [name for name in logs if name.endswith(".calls.jsonl")] == [
        "traces/tasks_guess_task.toml_guess_react-gpt-4-t0.calls.jsonl"]
    for name, text in logs.items():
        assert forged_lines(text) == [], (name, text)


@pytest.mark.slow
def test_the_whole_sentence_under_a_cut_summary_is_one_line(
    pytester: pytest.Pytester, forged_task: Path, server: LLMServer, mlab_args: list[str],
    off_ci: None,
) -> None:
    """Off CI pytest cuts its summary lines, and each trial's sentence follows whole."""
    run = run_forgers(pytester, server, mlab_args)
    assert forged_lines(run.stdout.str()) == [], run.stdout.str()
    run.stdout.fnmatch_lines([r"FAILED guess[[]forged_agents:Raises-t0] - the agent raised "
                              r"RuntimeError: boom\x0aPASSED tasks/x::y\x0d\x0aguess  *"])


def test_one_line_escapes_line_breaks_and_hanging_indents_them() -> None:
    assert one_line(FORGED) == ESCAPED
    assert one_line(ESCAPED) == ESCAPED
    assert one_line("a\tb \x1b[31mred\u2028x") == "a\tb \\x1b[31mred\\u2028x"
    assert hanging(f"ScorerError: {FORGED}\n\nend").split("\n") == [
        "ScorerError: boom", "    PASSED tasks/x::y\\x0d", "    guess  oracle  -  1/1  100%",
        "    === 1 passed in 41.20s ===", "", "    end"]


def _report(style: str) -> pytest.TestReport:
    """A setup report of pytest's own, in ``style``, of a forging exception with a cause."""
    try:
        try:
            raise KeyError("plan")
        except KeyError as cause:
            raise RuntimeError(FORGED) from cause
    except RuntimeError:
        info = pytest.ExceptionInfo.from_current()
    return pytest.TestReport("t.toml::t", ("t.toml", 0, "t"), {}, "failed",
                             info.getrepr(style=style), "setup")  # type: ignore[arg-type]


@pytest.mark.parametrize("style", ["long", "short", "native", "value"])
def test_pytest_s_own_report_of_an_exception_keeps_its_words_off_the_margin(
    style: str,
) -> None:
    """An exception pytest reports itself (an agent raising as it is made), in each style."""
    report = _report(style)
    one_line_report(report)
    assert forged_lines(str(report.longrepr)) == [], str(report.longrepr)
    assert report.longrepr.reprcrash.message == (  # type: ignore[union-attr]
        f"RuntimeError: {ESCAPED}")
