"""Original MLAgentBench task folders run as trials through their overlays (issue 15)."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_docker import FakeDocker
from original_folders import http_mirror, write_task

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.sandbox import docker as docker_sandbox
from pytest_mlab.taskkit import original


@pytest.fixture
def layout(pytester: pytest.Pytester, mlab_args: list[str]) -> tuple[Path, Path, list[str]]:
    benchmarks = pytester.path / "MLAgentBench" / "benchmarks"
    overlays = pytester.path / "overlays"
    return benchmarks, overlays, [f"--mlab-overlays={overlays}", "-rs", *mlab_args]


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[str]:
    """A loopback HTTP server standing in for the place a task downloads from."""
    (tmp_path / "rows.txt").write_text("40 rows\n")
    with http_mirror(tmp_path) as (url, _):
        yield url


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_collects_each_folder_with_an_overlay_and_none_of_its_code(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]]
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows")
    write_task(benchmarks, overlays, "sales", sources='["kaggle:sales"]', gpus=1)
    write_task(benchmarks, overlays, "no-overlay", overlay=False)
    result = pytester.runpytest(str(benchmarks), "--collect-only", "-q", *args)
    result.stdout.fnmatch_lines([
        "MLAgentBench/benchmarks/rows/scripts/research_problem.txt::rows[[]baseline-t0[]]",
        "MLAgentBench/benchmarks/sales/scripts/research_problem.txt::sales[[]baseline-t0[]]",
        "*2 tests collected*",
    ])
    result.stdout.fnmatch_lines(["*no-overlay: not collected, pytest-mlab has no overlay*"])
    assert "model_test" not in result.stdout.str()
    # Listing runs nothing: no run is written, no trial counted as lost.
    assert "results:" not in result.stdout.str()
    assert "run incomplete" not in result.stdout.str()
    marked = pytester.runpytest(str(benchmarks), "--collect-only", "-q",
                                "-m", "mlab_gpu and mlab_download", *args)
    marked.stdout.fnmatch_lines(["*sales[[]baseline-t0[]]", "*1/2 tests collected*"])


def test_a_task_scored_by_an_unsound_original_eval_warns_and_can_be_deselected(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]]
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows")
    write_task(benchmarks, overlays, "leaky")
    overlay = overlays / "leaky.toml"
    overlay.write_text(overlay.read_text().replace(
        "eval_sound = true", 'eval_sound = false\neval_note = "The answers are in env/."'))
    result = pytester.runpytest(str(benchmarks), "--collect-only", "-q", *args)
    result.stdout.fnmatch_lines([
        "*leaky: the original eval.py scores it, and it is not sound: The answers are in "
        "env/. Its scores can be gamed; deselect it with -m 'not mlab_unsound_eval'"])
    assert "rows: the original eval.py" not in result.stdout.str()
    kept = pytester.runpytest(str(benchmarks), "--collect-only", "-q",
                              "-m", "not mlab_unsound_eval", *args)
    kept.stdout.fnmatch_lines(["*rows[[]baseline-t0[]]", "*1/2 tests collected*"])
    # A task that cannot run at all warns of nothing it cannot score; its skip says why.
    unsound = overlay.read_text()
    overlay.write_text(unsound.replace(
        "threshold", 'unavailable = "its data is not put in place yet"\nthreshold'))
    unavailable = pytester.runpytest(str(benchmarks), "-q", *args)
    assert "not sound" not in unavailable.stdout.str()
    unavailable.stdout.fnmatch_lines(["*leaky: its data is not put in place yet*"])
    overlay.write_text(unsound)
    # A replacement scorer makes the original's eval.py irrelevant: no warning then.
    (overlays / "scorers").mkdir()
    (overlays / "scorers" / "own.py").write_text("def score(s, p, r):\n    return 1.0\n")
    overlay.write_text(overlay.read_text().replace("threshold", 'scorer = "own.py"\nthreshold'))
    again = pytester.runpytest(str(benchmarks), "--collect-only", "-q", *args)
    assert "not sound" not in again.stdout.str()


def test_runs_end_to_end_with_answers_hidden_and_read_only_files_kept(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    folder = write_task(benchmarks, overlays, "rows")
    before = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    run = pytester.runpytest(str(benchmarks), "--mlab-keep-workspaces=all", *args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    # The starter against itself: a valid score, no improvement, the numbers in a sentence.
    assert record["outcome"] == "failed"
    assert record["score"] == pytest.approx(record["baseline_mean"])
    assert record["score"] == pytest.approx(40.0)  # the train mean 30 against y = 61..79
    assert record["message"] == "rows: mae=40 is 0.0% better than baseline 40 (needed 10%)"
    # The original task itself, not an analogue of it: no "≈" in the results or summary.
    assert record["analogue_of"] is None
    assert "≈" not in run.stdout.str()
    workspace = Path(record["workspace"])
    assert sorted(p.name for p in workspace.iterdir() if p.is_file()) == [
        "model_test.py", "seen_gpus.txt", "submission.csv", "test.csv", "train.csv",
        "train.py"]
    assert not (workspace / "train.csv").stat().st_mode & 0o222
    # The user's checkout is never written: no answers, no 'prepared' marker.
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == before


def test_an_eval_exception_on_the_submission_makes_it_invalid(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    folder = write_task(benchmarks, overlays, "rows")
    train = folder / "env" / "train.py"
    # Measured as the baseline first, so the starter is broken only for the agent's run.
    short = '3 * (os.environ.get("MLAB_SEED") != "0")'
    train.write_text(train.read_text().replace("* n]", f"* (n - {short})]"))
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["outcome"] == "failed"
    assert record["message"] == ("rows: invalid submission: the original eval.py rejected "
                                 "the submission: ValueError: 7 predictions for 10 rows")


def test_an_eval_that_cannot_read_its_own_answers_is_an_error_not_a_failure(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows")
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(failed=1)
    # Prepared and the baseline measured, then the answers lost from the cache: no
    # submission is to blame.
    (answers,) = pytester.path.rglob("private/scripts/answer.csv")
    answers.unlink()
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["outcome"] == "error"
    assert "the original eval.py could not read its own files: FileNotFoundError" in (
        record["message"])
    assert "answer.csv" in record["message"]


def test_downloads_from_a_mirror_and_skips_when_it_cannot_be_reached(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]], mirror: str,
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    fetch = "import urllib.request\nurllib.request.urlopen('{url}/rows.txt').read()"
    write_task(benchmarks, overlays, "fetched", sources=f'["url:{mirror}/rows.txt"]',
               fetch=fetch.format(url=mirror))
    dead = f"http://127.0.0.1:{_closed_port()}"
    write_task(benchmarks, overlays, "offline", sources=f'["url:{dead}/rows.txt"]',
               fetch=fetch.format(url=dead))
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(failed=1, skipped=1)
    records = {r["task"]: r for r in read_results()}
    assert records["fetched"]["score"] == pytest.approx(40.0)
    assert records["offline"]["outcome"] == "skipped"
    assert records["offline"]["message"].startswith(
        "offline: needs the network to download its data (127.0.0.1:")
    assert "cannot be reached" in records["offline"]["message"]


def test_what_prepare_asks_the_user_to_run_by_hand_runs_after_it_and_a_fault_is_named(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]], mirror: str,
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    """fathomnet's prepare.py asks for its images from download_images.py; the overlay's
    manual_steps run such a script of env/ after prepare.py, in env/, its files the
    agent's data, and a step that fails is the harness's error naming the script."""
    benchmarks, overlays, args = layout
    fetch = ("import sys, urllib.request\n"
             "with open(sys.argv[2], 'wb') as out:\n"
             "    out.write(urllib.request.urlopen(sys.argv[1]).read())\n")
    for name, url in (("steps", f"{mirror}/rows.txt"), ("broken", f"{mirror}/absent.txt")):
        folder = write_task(benchmarks, overlays, name, sources=f'["url:{mirror}/rows.txt"]',
                            extra=f'manual_steps = [["fetch.py", "{url}", "got/rows.txt"]]')
        (folder / "env" / "fetch.py").write_text(fetch)
        (folder / "env" / "got").mkdir()
        (folder / "env" / "got" / ".keep").write_text("")
    run = pytester.runpytest(str(benchmarks), *args)
    run.assert_outcomes(failed=1, errors=1)
    records = {r["task"]: r for r in read_results()}
    assert records["steps"]["outcome"] == "failed", records["steps"]["message"]
    (public,) = [p for p in (pytester.path / "cache" / "data").glob("*/public")
                 if (p / "got" / "rows.txt").exists()]
    assert (public / "got" / "rows.txt").read_text() == "40 rows\n"
    assert records["broken"]["outcome"] == "error"
    assert "the original fetch.py exited 1" in records["broken"]["message"]
    run.stdout.fnmatch_lines(["*HTTP Error 404*"])  # the script's last words


def test_kaggle_data_needs_credentials_the_command_and_consent(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    benchmarks, overlays, args = layout
    for name in ("KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(pytester.path))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no kaggle command here
    write_task(benchmarks, overlays, "sales", sources='["kaggle:sales-2020"]')
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == (
        "sales: needs the kaggle command (pip install kaggle); Kaggle credentials (set "
        "KAGGLE_USERNAME and KAGGLE_KEY, or write ~/.kaggle/kaggle.json); consent to the "
        "competition's rules (accept them at "
        "https://www.kaggle.com/competitions/sales-2020/rules, then pass --mlab-accept-rules)")


def test_consent_questions_are_answered_only_with_the_option(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows", fetch="input('Consent to the rules; press a key')")
    refused = pytester.runpytest(str(benchmarks), *args)
    refused.assert_outcomes(errors=1)
    refused.stdout.fnmatch_lines(["*the original prepare.py exited 1:*", "*EOFError*"])
    pytester.runpytest(str(benchmarks), "--mlab-accept-rules", *args
                       ).assert_outcomes(failed=1)


def test_a_gpu_task_says_it_needs_a_gpu_then_the_docker_sandbox(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows", gpus=1)
    pytester.runpytest(str(benchmarks), "--mlab-gpus=none", *args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == ("rows needs 1 GPU, this machine has no GPU (set --mlab-gpus "
                                 "or CUDA_VISIBLE_DEVICES)")
    # A GPU here, but the local sandbox: the item says so instead of running elsewhere.
    pytester.runpytest(str(benchmarks), "--mlab-gpus=7", *args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == (
        "rows runs its GPU scripts in the docker sandbox only, with the leased GPU passed in, "
        "not in the local sandbox (pass --mlab-sandbox=docker "
        "--mlab-docker-image=pytest-mlab-mlagentbench-gpu after docker build -t "
        "pytest-mlab-mlagentbench-gpu tasks/mlagentbench/gpu-image)")


def test_a_gpu_task_gets_its_leased_device_from_the_docker_sandbox(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows", gpus=1)
    engine = FakeDocker()
    monkeypatch.setattr(docker_sandbox, "engine_client", lambda: engine)
    # The fake engine runs its "containers" on the host: no containment to attest.
    pytester.runpytest(str(benchmarks), "--mlab-gpus=3,7", "--mlab-sandbox=docker",
                       "--mlab-allow-weak-sandbox", "--mlab-docker-image=gpu-image",
                       "--mlab-keep-workspaces=all", *args
                       ).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["message"] == "rows: mae=40 is 0.0% better than baseline 40 (needed 10%)"
    # The starter wrote the CUDA_VISIBLE_DEVICES it saw inside the container.
    assert (Path(record["workspace"]) / "seen_gpus.txt").read_text() == "3"
    # The baseline's container, the trial's and its reproduction's: each asked the engine
    # for the leased GPU alone, no network, from the image named, and each was removed
    # (after the attestation's probe, which the session ran in a container first).
    _, *trials = engine.containers.started
    assert len(trials) == 3
    for container in trials:
        run = container.kwargs
        (request,) = run["device_requests"]
        assert (request["DeviceIDs"], request["Capabilities"]) == (["3"], [["gpu"]])
        assert run["environment"]["CUDA_VISIBLE_DEVICES"] == "3"
        assert run["network_mode"] == "none"
        assert (container.image, container.removed) == ("gpu-image", True)
        # The image's own PATH and Python: the host interpreter's start scripts stay out.
        assert "PATH" not in run["environment"]
        assert "/run/pytest-mlab/bin" not in [v["bind"] for v in run["volumes"].values()]


def test_a_bad_overlay_is_a_collection_error_naming_the_key(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]]
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows", extra='colour = "blue"')
    result = pytester.runpytest(str(benchmarks), "--collect-only", *args)
    result.stdout.fnmatch_lines(["*rows.toml: key 'colour': unknown key*"])


def test_a_module_lost_after_preparing_skips_with_the_same_sentence(
    pytester: pytest.Pytester, layout: tuple[Path, Path, list[str]],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    benchmarks, overlays, args = layout
    write_task(benchmarks, overlays, "rows")
    overlay = overlays / "rows.toml"
    overlay.write_text(overlay.read_text().replace(
        'requirements = ["numpy"]', 'requirements = ["numpy", "mlab_lost_module"]'))
    module = pytester.path / "modules" / "mlab_lost_module.py"
    module.parent.mkdir()
    module.write_text("")
    # Seen here and by the process that prepares the data.
    pytester.syspathinsert(module.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(module.parent), *filter(None, [os.environ.get("PYTHONPATH")])]))
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(failed=1)
    (prepared,) = (pytester.path / "cache" / "data").glob("rows-*/.prepared")
    module.unlink()
    pytester.runpytest(str(benchmarks), *args).assert_outcomes(skipped=1)
    (record,) = read_results()
    # The harness lacks it now, so the task's own environment must hold it, and that
    # cannot be made: the sentence names the package.
    message = record["message"]
    assert message.startswith("rows's own Python environment cannot be made: installing "
                              "mlab_lost_module numpy for rows failed"), message
    assert "mlab-lost-module" in message.partition(" failed ")[2], message
    assert prepared.exists()  # the data stayed prepared: the check came before the trial


@pytest.mark.parametrize(("lost", "error", "said"), [
    ("answer.csv", ScorerError, "could not read its own files: FileNotFoundError"),
    ("submission.csv", InvalidSubmission, "rejected the submission: FileNotFoundError"),
])
def test_a_file_eval_cannot_read_is_blamed_on_whoever_owns_it(
    tmp_path: Path, lost: str, error: type[Exception], said: str
) -> None:
    folder = write_task(tmp_path / "benchmarks", tmp_path / "overlays", "rows")
    private, submission = tmp_path / "cache" / "private", tmp_path / "submission"
    shutil.copytree(folder / "scripts", private / "scripts")
    (private / "scripts" / "answer.csv").write_text("y\n1\n")
    submission.mkdir()
    (submission / "submission.csv").write_text("y\n1\n")
    for found in (private / "scripts" / lost, submission / lost):
        found.unlink(missing_ok=True)
    with pytest.raises(error, match=said):
        original.score(tmp_path / "overlays" / "rows.toml", submission, private, runner=None)
