"""The issue's acceptance commands: a lite task run by each external agent against a
loopback server, exactly as a user runs it, its scripted model writing a short valid
train.py (the task's starter: scored, though it does not beat its own baseline).

    pytest tasks/lite/house-price --agent=mini-swe-agent --llm=openai/x \\
        --mlab-llm-api-base=http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_venvs import installed
from llm_server import LLMServer, Reply, say

REPO = Path(__file__).parents[2]
TASK = REPO / "tasks" / "lite" / "house-price"
SCRIPT = (TASK / "env" / "train.py").read_text()

# Re-checks of the gateway tests' agents on a lite task, as the issues' acceptance ran them.
pytestmark = [pytest.mark.slow, pytest.mark.expensive]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One prepared copy of the task for both agents."""
    return tmp_path_factory.mktemp("cache")


def run_task(agent: str, server: LLMServer, cache: Path, reports: Path,
             *more: str) -> dict[str, object]:
    command = [
        sys.executable, "-m", "pytest", "tasks/lite/house-price", f"--agent={agent}",
        "--llm=openai/x", f"--mlab-llm-api-base={server.url}",
        f"--mlab-agent-venv={installed(agent)}", "-p", "no:cacheprovider",
        f"--mlab-cache-dir={cache}", f"--mlab-report-dir={reports}",
        "--mlab-keep-workspaces=none", *more,
    ]
    environ = os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=900,
                         env=environ)
    assert run.returncode in (0, 1), run.stdout[-3000:] + run.stderr[-3000:]
    (results,) = reports.glob("*/results.json")
    (record,) = json.loads(results.read_text())["results"]
    assert isinstance(record, dict)
    # Scored: a valid submission, its MAE measured against the recorded baseline.
    assert record["ended_by"] == "final answer" and record["error_class"] is None
    assert isinstance(record["score"], float) and record["score"] > 0, record["message"]
    assert record["outcome"] == ("passed" if run.returncode == 0 else "failed")
    return record


def test_mini_swe_agent_runs_house_price(server: LLMServer, cache: Path,
                                         tmp_path: Path) -> None:
    server.script.replies += [
        Reply(tool_calls=(("bash", {"command": f"cat > train.py <<'PYEOF'\n{SCRIPT}PYEOF\n"
                                               "python train.py"}),)),
        Reply(tool_calls=(("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}),)),
    ]
    record = run_task("mini-swe-agent", server, cache, tmp_path / "reports")
    assert len(server.requests) == 2 and record["tokens_in"] > 0


def test_aide_runs_house_price(server: LLMServer, cache: Path, tmp_path: Path) -> None:
    # AIDE's layout: the data in ./input, the submission in ./working.
    code = (SCRIPT.replace('"train.csv"', '"./input/train.csv"')
            .replace('"test.csv"', '"./input/test.csv"')
            .replace('to_csv("submission.csv"', 'to_csv("./working/submission.csv"'))
    review = Reply(tool_calls=(("submit_review", {
        "is_bug": False, "summary": "A random forest on a few columns.", "metric": 21000.0,
        "lower_is_better": True}),))
    # Each node is a draft and its review, as many nodes as the task's steps allow.
    server.script.respond = lambda request: review if "tools" in request else say(
        f"A random forest on a few numeric columns.\n\n```python\n{code}```\n")
    # Two nodes, not the twenty the task's 50 steps allow: each runs the script.
    record = run_task("aide", server, cache, tmp_path / "reports", "--max-steps=4")
    assert len(server.requests) == 4 and record["tokens_in"] > 0
