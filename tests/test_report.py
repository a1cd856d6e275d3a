"""The report: its model first (every number from the results), then the HTML built from it."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.stats import wilson
from pytest_mlab.core.results import RunInfo, RunResults, StepScore, TrialResult, UnreadableResults
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.report import format as fmt
from pytest_mlab.report.figures import success_figure
from pytest_mlab.report.html import render, write_report
from pytest_mlab.report.markdown import results_table
from pytest_mlab.report.model import ReportModel, build_report
from pytest_mlab.report.rows import Row
from pytest_mlab.report.terminal import isolation_lines, summary_lines

# Newcombe (1998), Statistics in Medicine 17:857, method 3, and the closed forms
# n/(n+z^2) and z^2/(n+z^2) at all and no successes (z = 1.959964).
KNOWN_WILSON = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (2, 2, 2 / (2 + 1.959964**2), 1.0),
    (0, 2, 0.0, 1.959964**2 / (2 + 1.959964**2)),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), KNOWN_WILSON)
def test_wilson_matches_published_intervals(k: int, n: int, low: float, high: float) -> None:
    assert wilson(k, n) == pytest.approx((low, high), abs=6e-5)


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_agrees_with_scipy_for_every_count_up_to_40_trials(confidence: float) -> None:
    from scipy.stats import binomtest

    for n in range(1, 41):
        for k in range(n + 1):
            interval = binomtest(k, n).proportion_ci(confidence_level=confidence,
                                                     method="wilson")
            expected = (interval.low, interval.high)
            assert wilson(k, n, confidence) == pytest.approx(expected, abs=1e-12), (k, n)


def test_wilson_of_no_trials_is_the_whole_range_and_impossible_counts_are_refused() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="3 of 2"):
        wilson(3, 2)


ONCE_AGENT = '''
import os
from pathlib import Path


class OnceAgent:
    """The first trial of a task to claim its marker applies the solution; the rest
    submit garbage. Under -n the order varies; the counts do not."""

    uses_llm = False
    needs_solution = True

    def __init__(self, context):
        self.context = context

    def run(self, env):
        marker = Path(os.environ["MLAB_TEST_ONCE"]) / self.context.task
        try:
            marker.mkdir(parents=True)
        except FileExistsError:
            env.execute("Write File", file_name="submission.txt", content="garbage")
            env.execute("Final Answer", final_answer="garbage")
            return "garbage"
        solution = (self.context.solution_dir / "train.py").read_text()
        env.execute("Write File", file_name="train.py", content=solution)
        env.execute("Execute Script", script_name="train.py")
        env.execute("Final Answer", final_answer="solved")
        return "solved"
'''


def _copy_task(source: Path, name: str) -> Path:
    target = source.parent / name
    shutil.copytree(source, target)
    manifest = target / "task.toml"
    manifest.write_text(manifest.read_text().replace('name = "guess"', f'name = "{name}"', 1))
    return target


VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "wbr"})


class _Balance(HTMLParser):
    """Fails on a closing tag that does not match the open one: a structural check that
    Python's lenient parser alone would not make."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def assert_well_formed(html: str) -> None:
    checker = _Balance()
    checker.feed(html)
    checker.close()
    assert checker.problems == [] and checker.stack == []
    for svg in re.findall(r"<svg.*?</svg>", html, flags=re.S):
        ET.fromstring(svg)


def assert_self_contained(html: str) -> None:
    assert "://" not in html
    assert not re.search(r"<(link|img|iframe|object|embed)\b", html)
    assert not re.search(r"<script[^>]*\bsrc=", html)
    assert "@import" not in html and "url(" not in html


def _row(model: ReportModel, task: str, agent: str) -> Row:
    (row,) = [r for r in model.rows if r.task == task and r.agent == agent]
    return row


def test_a_parallel_run_of_every_outcome_reports_the_numbers_of_its_results(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guess = recorded("guess")
    broken = _copy_task(guess, "broken")
    with (broken / "prepare.py").open("a") as handle:
        handle.write("\nraise RuntimeError('disk on fire')\n")
    (_copy_task(guess, "nobase") / "baseline.json").unlink()
    pytester.makepyfile(report_agents=ONCE_AGENT)
    monkeypatch.setenv("MLAB_TEST_ONCE", str(pytester.path / "once"))
    monkeypatch.setenv("COLUMNS", "250")  # room for every column that says something
    run = pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--agent=baseline", "--agent=report_agents:OnceAgent",
        "--mlab-trials=2", "-n", "2", "--junitxml=junit.xml", *mlab_args,
    )
    run.assert_outcomes(passed=3, failed=3, errors=6, skipped=6)
    (results_path,) = pytester.path.glob("reports/*/results.json")
    records: list[dict[str, Any]] = json.loads(results_path.read_text())["results"]

    # The JSON model first: every number against the records it came from.
    model = build_report(RunResults.read(results_path), results_path.parent)
    assert model.header.outcomes == {"passed": 3, "failed": 3, "error": 6, "skipped": 6}
    assert model.header.trials == 18 and model.header.run.sandbox == "local"
    assert model.header.isolation and model.header.run.settings
    assert model.tasks == ["broken", "guess", "nobase"]
    assert len(model.rows) == 9

    def of(agent: str, task: str = "guess") -> list[dict[str, Any]]:
        return [r for r in records if r["agent"] == agent and r["task"] == task]

    oracle = _row(model, "guess", "oracle")
    assert (oracle.passed, oracle.ran, oracle.valid) == (2, 2, 2)
    assert (oracle.success_low, oracle.success_high) == pytest.approx((0.34238, 1.0), abs=1e-5)
    gains = [r["improvement"] for r in of("oracle")]
    assert oracle.mean_improvement == pytest.approx(statistics.fmean(gains))
    assert oracle.mean_improvement is not None and oracle.mean_improvement > 0.10
    assert oracle.mean_steps == statistics.fmean(r["steps"] for r in of("oracle")) == 3
    seconds = [r["seconds"] for r in of("oracle")]
    assert oracle.mean_seconds == pytest.approx(statistics.fmean(seconds))

    baseline = _row(model, "guess", "baseline")
    assert (baseline.passed, baseline.ran, baseline.valid_rate) == (0, 2, 1.0)
    assert (baseline.success_low, baseline.success_high) == pytest.approx((0.0, 0.65762), abs=1e-5)
    assert baseline.mean_improvement == pytest.approx(0.0)

    once = _row(model, "guess", "report_agents:OnceAgent")
    (solved,) = [r for r in of("report_agents:OnceAgent") if r["score"] is not None]
    assert (once.passed, once.ran, once.valid, once.valid_rate) == (1, 2, 1, 0.5)
    assert (once.success_low, once.success_high) == pytest.approx((0.09453, 0.90547), abs=1e-5)
    assert once.improvements == [solved["improvement"]]

    for agent in ("oracle", "baseline", "report_agents:OnceAgent"):
        errors, skips = _row(model, "broken", agent), _row(model, "nobase", agent)
        assert (errors.ran, errors.errors, errors.success_rate, errors.success_low) == (
            0, 2, None, None)
        assert (skips.ran, skips.skipped, skips.mean_improvement) == (0, 2, None)

    views = {view.result.nodeid: view for view in model.trials}
    solved_view = views["tasks/guess/task.toml::guess[oracle-t0]"]
    steps = solved_view.trace.steps
    assert [s.action for s in steps] == ["Write File", "Execute Script", "Final Answer"]
    (change,) = steps[0].changes
    assert (change.path, change.kind) == ("train.py", "modified")
    assert '-Path("submission.txt").write_text("40\\n")' in change.diff
    assert "+values = [float(line)" in change.diff
    assert [c.path for c in steps[1].changes] == ["submission.txt"]
    assert steps[2].changes == []
    broken_view = views["tasks/broken/task.toml::broken[oracle-t0]"]
    assert broken_view.trace.steps == [] and broken_view.trace.note.startswith("no trace")
    assert "RuntimeError: disk on fire" in broken_view.result.message

    # Then the HTML, from the same model.
    html = (results_path.parent / "report.html").read_text()
    assert html == render(model)
    assert_well_formed(html)
    assert_self_contained(html)
    for row in model.rows:
        if row.ran:
            assert f"{row.passed}/{row.ran}" in html
    for text in ("[34%, 100%]", "[0%, 66%]", "[9%, 91%]", fmt.percent(statistics.fmean(gains),
                                                                      signed=True)):
        assert text in html
    assert html.count('<details class="trial"') == 18
    assert html.count('<details class="step"') == sum(len(v.trace.steps) for v in model.trials)
    assert "guess: invalid submission: submission.txt does not hold a number" in html

    # The terminal summary shows the same rows, and where the report is.
    run.stdout.fnmatch_lines([
        "task*agent*success*95% CI*valid*mean improvement*steps*time*errors*skipped",
        "broken*oracle*0/0*-*-*-*2*0",
        f"guess*oracle*2/2*[[]34%, 100%]*100%*{fmt.percent(oracle.mean_improvement, signed=True)}"
        "*3*s*0*0",
        "guess*report_agents:OnceAgent*1/2*[[]9%, 91%]*50%*",
        "nobase*oracle*0/0*-*0*2",
        # No LLM was called and no trial unreproduced: those columns say nothing.
        "columns left out: mean tokens, mean cost, unreproduced (0 on every row)",
        f"report: {results_path.parent / 'report.html'}",
    ])

    # And --junitxml carries the numbers as properties of each test case.
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in cases
    }
    by_name = {r["nodeid"].split("::")[1]: r for r in records}
    for name, record in by_name.items():
        expected = {
            "score": record["score"], "baseline": record["baseline_mean"],
            "improvement": record["improvement"], "normalised": record["normalised_score"],
            "steps": record["steps"],
            "tokens": record["tokens_in"] + record["tokens_out"], "cost": record["cost"],
        }
        shown = {k: v for k, v in properties[name].items() if k != "mlab_result"}
        assert shown == {k: str(v) for k, v in expected.items() if v is not None}, name


def _trial(name: str, **fields: Any) -> TrialResult:
    values: dict[str, Any] = dict(
        nodeid=f"tasks/t/task.toml::t[{name}]", task="t", agent="scripted", llm=None,
        trial=0, metric="error", direction="lower", outcome="failed", success=False,
        threshold=0.1,
    )
    values.update(fields)
    return TrialResult(**values)


def _run_info() -> RunInfo:
    return RunInfo(run_id="r1", started="s", finished="f", command=["pytest"], machine="m",
                   pytest_mlab_version="0")


def _snapshot(run_dir: Path, trial: str, step: int, files: dict[str, bytes]) -> None:
    import hashlib

    manifest = {}
    for rel, data in files.items():
        digest = hashlib.sha256(data).hexdigest()
        obj = run_dir / "snapshots" / "objects" / digest[:2] / digest
        obj.parent.mkdir(parents=True, exist_ok=True)
        obj.write_bytes(data)
        manifest[rel] = digest
    folder = run_dir / "snapshots" / trial
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"step-{step:04d}.json").write_text(json.dumps(manifest))


def test_user_text_is_escaped_and_long_traces_and_diffs_are_clipped(tmp_path: Path) -> None:
    hostile = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
    trace = Trace(tmp_path / "traces" / "hostile.jsonl")
    trace.append(Step(1, "Write File", {"file_name": "a.py", "content": hostile},
                      observation="x" * 10_000, started=0.0, ended=1.5,
                      usage={"tokens_in": 1200, "tokens_out": 34, "cost": 0.0123}))
    trace.append(Step(2, "Final Answer", {"final_answer": hostile}, hostile, 1.5, 1.5))
    long_text = b"".join(b"line %d\n" % n for n in range(500))
    _snapshot(tmp_path, "hostile", 0, {"a.py": b"old\n", "model.bin": b"\0\1\2"})
    _snapshot(tmp_path, "hostile", 1, {"a.py": long_text, "model.bin": b"\0\1\3"})
    _snapshot(tmp_path, "hostile", 2, {"a.py": long_text, "model.bin": b"\0\1\3"})
    result = _trial(
        "hostile", message=hostile, trace=str(tmp_path / "traces" / "hostile.jsonl"),
        task="t<b>", agent="a&b", baseline_mean=9.0,
        step_scores=[StepScore(step=0, score=10.0), StepScore(step=1, score=None, invalid="no"),
                     StepScore(step=2, score=8.5)],
    )
    model = build_report(RunResults(run=_run_info(), results=[result]), tmp_path)

    (first, second) = model.trials[0].trace.steps
    assert (first.tokens_in, first.tokens_out, first.cost) == (1200, 34, 0.0123)
    assert "characters elided" in first.observation and len(first.observation) < 2_100
    changes = {c.path: c for c in first.changes}
    assert changes["model.bin"].diff == "" and "binary file" in changes["model.bin"].note
    assert "more diff lines not shown" in changes["a.py"].note
    assert changes["a.py"].diff.count("\n") == 120
    assert second.changes == []

    html = write_report(model, tmp_path / "report.html").read_text()
    assert hostile not in html and "<img" not in html
    assert "&lt;script&gt;document.title=" in html
    assert "t&lt;b&gt;" in html and "a&amp;b" in html
    assert "1,200+34 tokens, $0.0123" in html
    (chart,) = re.findall(r'<svg[^>]*aria-label="error over steps".*?</svg>', html)
    assert re.findall(r"<title>(.*?)</title>", chart) == [
        "baseline 9", "step 0: 10", "step 2: 8.5"]
    assert "(invalid: no)" in html
    assert_well_formed(html)
    assert_self_contained(html)


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        ('{"schema_version": 99, "run": {}, "results": []}',
         "schema version 99 is newer than pytest-mlab"),
        ("{not json", "not JSON (line 1: "),
        ('{"schema_version": 1}', "not a pytest-mlab results.json"),
        ('{"schema_version": 1, "run": {"run_id": "x"}, "results": []}', "key 'run.started': "),
    ],
)
def test_an_unreadable_results_file_is_one_sentence(
    tmp_path: Path, content: str, sentence: str
) -> None:
    path = tmp_path / "results.json"
    path.write_text(content)
    with pytest.raises(UnreadableResults) as caught:
        RunResults.read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and sentence in message
    assert "\n" not in message


def test_a_results_file_of_before_the_report_fields_still_loads(tmp_path: Path) -> None:
    old = RunResults(run=_run_info(), results=[_trial("t0")]).model_dump(mode="json")
    for key in ("sandbox", "commit", "settings"):
        del old["run"][key]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old))
    model = build_report(RunResults.read(path), tmp_path)
    assert model.header.run.commit is None and model.rows[0].ran == 1


def test_live_progress_at_verbose_shows_each_running_trial(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str]
) -> None:
    recorded("guess")
    result = pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:SlowAgent", "-v", "-n", "2", "--mlab-trials=2",
        *mlab_args,
    )
    result.assert_outcomes(failed=2)
    for trial in ("t0", "t1"):
        result.stdout.fnmatch_lines([
            f"[[]mlab] guess[[]scripted_agents:SlowAgent-{trial}]: step 1 of 10 (Python REPL), "
            "0 tokens, $0.0000",
            f"[[]mlab] guess[[]scripted_agents:SlowAgent-{trial}]: step 2 of 10 (Python REPL)*",
        ], consecutive=False)
    quiet = pytester.runpytest("tasks", "--agent=scripted_agents:SlowAgent", *mlab_args)
    assert "[mlab]" not in quiet.stdout.str()


def test_analogue_tasks_are_marked_wherever_their_numbers_are_shown(tmp_path: Path) -> None:
    lite = _trial("lite", task="titanic", analogue_of="spaceship-titanic")
    original = _trial("original", nodeid="tasks/o/task.toml::o[x]", task="o")
    model = build_report(RunResults(run=_run_info(), results=[lite, original]), tmp_path)
    html = render(model)
    note = "≈: an offline analogue of the MLAgentBench task named after it"
    assert "titanic ≈ spaceship-titanic" in html and note in html
    terminal = summary_lines(model.rows)
    assert any(line.startswith("titanic ≈ spaceship-titanic ") for line in terminal)
    assert any(line.startswith("o ") for line in terminal)
    assert terminal[len(model.rows) + 1].startswith(note)  # right under the table
    assert "| titanic ≈ spaceship-titanic |" in "\n".join(results_table([lite, original]))
    assert success_figure(model.rows).groups == ("o", "titanic ≈ spaceship-titanic")
    # A run of original tasks only carries no mark and no note.
    plain = build_report(RunResults(run=_run_info(), results=[original]), tmp_path)
    assert plain.analogue_note is None and "≈" not in render(plain)


def test_trials_that_ran_under_another_isolation_than_the_header_named_are_warned_of() -> None:
    assert isolation_lines("bwrap", ["bwrap"]) == []
    assert isolation_lines("bwrap", []) == []
    assert isolation_lines(None, ["none"]) == []  # nothing was named
    ((line, warning),) = isolation_lines("bwrap", ["bwrap", "none"])
    assert warning
    assert "header named bwrap" in line and "ran under bwrap, none" in line


ESCAPES = "\x1b[31mred\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\rover\x07\x9b"
"""An ANSI colour, an OSC-8 link, a carriage return, a bell and a C1 CSI."""
SHOWN = "\\x1b[31mred\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\\\x0dover\\x07\\x9b"


def test_agent_text_reaches_records_reports_and_the_terminal_escaped(tmp_path: Path) -> None:
    from pytest_mlab.plugin.reporting.progress import progress_line

    name = "odd\udcff" + ESCAPES[:5] + ".txt"  # a name that is not UTF-8, with an escape
    trace = Trace(tmp_path / "traces" / "esc.jsonl")
    trace.append(Step(1, "Execute Script", {"script_name": "a.py"}, ESCAPES, 0.0, 1.0))
    trace.append(Step(2, "Final Answer", {"final_answer": ESCAPES}, "", 1.0, 1.0))
    _snapshot(tmp_path, "esc", 0, {"a.py": b"old\n"})
    _snapshot(tmp_path, "esc", 1, {"a.py": ESCAPES.encode() + b"\n", name: b"x\n"})
    result = _trial("esc", trace=str(tmp_path / "traces" / "esc.jsonl"), message=ESCAPES,
                    error_class=ESCAPES, step_scores=[StepScore(step=1, score=None,
                                                                invalid=ESCAPES)])
    result.message = f"t: invalid submission: {ESCAPES}"  # set after, as judge() does
    assert result.message == f"t: invalid submission: {SHOWN}"
    assert result.error_class == SHOWN and result.step_scores[0].invalid == SHOWN
    run = RunResults(run=_run_info(), results=[result])
    run.write(tmp_path / "results.json")
    saved = (tmp_path / "results.json").read_text(encoding="utf-8")
    assert json.loads(saved)["results"][0]["message"] == result.message
    html = write_report(build_report(run, tmp_path), tmp_path / "report.html").read_text()
    line = progress_line({"trial": "t", "step": 1, "max_steps": 2, "action": ESCAPES,
                          "tokens": 0, "cost": 0.0})
    for text in (saved, html, line):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]", text), text
    assert SHOWN in line and html.count(SHOWN) >= 3  # message, observation, answer
    assert "odd\\xff\\x1b[31m.txt" in html  # the diff names the file, escaped


def test_a_task_whose_trials_all_errored_is_in_both_charts_of_the_report(tmp_path: Path) -> None:
    errored = [_trial(f"e{n}", task="crashes", nodeid=f"tasks/crashes/task.toml::c[{n}]",
                      trial=n, outcome="error", error_class="ScorerError") for n in range(3)]
    run = RunResults(run=_run_info(), results=errored)
    html = render(build_report(run, tmp_path))
    charts = html[html.index('<section id="charts">'):html.index('<section id="trials">')]
    assert "no data" not in charts
    assert charts.count(">all 3 trials errored</text>") == 2  # success and improvement
