"""A run under way, its files written as a session writes them: a progress file per trial
rewritten after each step, a result file when a trial is judged, results.json at the end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from view_runs import trial_result, write_run

from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.core.session_owner import write_owner
from pytest_mlab.env.progress import ProgressFile
from pytest_mlab.llm import Usage


class LiveRun:
    """``trials`` trials of react on house-price; trial 0 passes when judged, the rest fail."""

    def __init__(self, report_dir: Path, run_id: str = "live-run", trials: int = 2) -> None:
        self.report_dir, self.run_id = report_dir, run_id
        self.files = RunFiles.of(report_dir, run_id)
        self.files.traces.mkdir(parents=True, exist_ok=True)
        self.results: list[TrialResult] = [
            trial_result("house-price", "react", t, success=t == 0, improvement=0.2 * (t == 0))
            for t in range(trials)]
        self.progress = [
            ProgressFile(self.files.trial(r.nodeid).progress, f"house-price[react-{t}]")
            for t, r in enumerate(self.results)]

    def step(self, trial: int, step: int, action: str = "Execute Script") -> None:
        self.progress[trial].write(step, 10, action, Usage(tokens_in=100 * step, cost=0.01 * step))

    def own(self) -> None:
        """session.json names this process, alive, as the session writing the run."""
        write_owner(self.files.owner)

    def kill_owner(self) -> None:
        """session.json names a process that has ended, as a killed session leaves it."""
        code = ("import sys; from pathlib import Path; "
                "from pytest_mlab.core.session_owner import write_owner; "
                "write_owner(Path(sys.argv[1]))")
        subprocess.run([sys.executable, "-c", code, str(self.files.owner)], check=True)

    def judge(self, trial: int) -> None:
        result = self.results[trial]
        files = self.files.trial(result.nodeid)
        files.result.write_text(result.model_dump_json(), encoding="utf-8")

    def finish(self) -> Path:
        for trial in range(len(self.results)):
            self.judge(trial)
        return write_run(self.report_dir, self.run_id, self.results, started="2026-02-01T10:00:00")
