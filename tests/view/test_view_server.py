"""The run browser's server over real HTTP on 127.0.0.1: what it answers, what it refuses
(other addresses, other hosts, any path outside the report folders), and how much it sends."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from view_runs import BIG_STEPS, BIG_TRIALS, big_run, two_runs

from pytest_mlab.report.browse.server import PAGE, make_server
from pytest_mlab.report.browse.trace_pages import MAX_STEPS


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("view") / "reports"
    two_runs(folder)
    big_run(folder)
    (folder.parent / "outside.txt").write_text("root:x:0:0 outside the report folder\n")
    return folder


@pytest.fixture(scope="module")
def port(reports: Path) -> Iterator[int]:
    server = make_server([reports])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    # The path goes out as written: http.client does not tidy "..".
    connection.putrequest("GET", path, skip_host=True)
    connection.putheader("Host", host or f"127.0.0.1:{port}")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body, dict(response.getheaders())


def get_json(port: int, path: str) -> tuple[int, Any, int]:
    status, body, headers = get(port, path)
    assert headers["Content-Type"].startswith("application/json")
    return status, json.loads(body), len(body)


def test_it_listens_on_loopback_only(reports: Path) -> None:
    server = make_server([reports])
    try:
        assert server.server_address[0] == "127.0.0.1"
        assert server.socket.getsockname()[0] == "127.0.0.1"
    finally:
        server.server_close()


def test_the_page_and_its_own_files_only_with_a_strict_policy(port: int) -> None:
    status, body, headers = get(port, "/")
    assert status == 200 and b'<script src="/app.js"' in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    for name in ("/app.js", "/app.css"):
        assert get(port, name)[0] == 200
    # The page names no address outside (SVG's namespace is a name, never fetched).
    for name in ("/", "/app.js", "/app.css"):
        text = get(port, name)[1].replace(b"http://www.w3.org/2000/svg", b"")
        assert b"http://" not in text and b"https://" not in text and b"//cdn" not in text


@pytest.mark.parametrize("path", [
    "/../outside.txt", "/%2e%2e/outside.txt", "/app.js/../../outside.txt",
    "/static/../server.py", "/server.py", "/../../../../etc/passwd", "/results.json",
    "/api/run?run=../outside.txt", "/api/run?run=0.run-a/../../outside.txt",
    "/api/run?run=/etc/passwd", "/api/trial?run=0.run-a&i=../../outside.txt",
    "/api/steps?run=0.run-a&i=0&start=-1", "/api/trial?run=0.run-a&i=999",
    "/api/compare?runs=0.run-a,..",
])
def test_no_path_outside_the_report_folders_is_served(port: int, path: str) -> None:
    status, body, _ = get(port, path)
    assert status in (400, 404)
    assert b"root:" not in body and b"import" not in body


def test_a_request_for_another_host_is_refused(port: int) -> None:
    # A page on another site whose name was rebound to 127.0.0.1 sends its own Host.
    status, body, _ = get(port, "/api/runs", host=f"attacker.example:{port}")
    assert status == 403 and b"run-a" not in body
    assert get(port, "/api/runs", host=f"localhost:{port}")[0] == 200


def test_a_run_of_over_a_hundred_trials_comes_a_page_at_a_time(port: int) -> None:
    status, data, size = get_json(port, "/api/run?run=0.big")
    assert status == 200 and data["total"] == BIG_TRIALS
    assert len(data["trials"]) == min(PAGE, BIG_TRIALS)
    _, later, _ = get_json(port, "/api/run?run=0.big&offset=100")
    assert [t["index"] for t in later["trials"]] == list(range(100, BIG_TRIALS))
    assert len(data["groups"]) == 4 and sum(g["trials"] for g in data["groups"]) == BIG_TRIALS
    assert size < 200_000
    status, runs, size = get_json(port, "/api/runs")
    assert size < 50_000 and {r["run_id"] for r in runs["runs"]} == {"run-a", "run-b", "big"}


def test_a_ten_megabyte_trace_is_sent_in_bounded_ranges(port: int, reports: Path) -> None:
    assert (reports / "big" / "traces").stat() and max(
        p.stat().st_size for p in (reports / "big" / "traces").iterdir()) > 10_000_000
    status, trial, size = get_json(port, "/api/trial?run=0.big&i=0")
    assert status == 200 and trial["trace_steps"] == BIG_STEPS and size < 100_000
    status, first, size = get_json(port, "/api/steps?run=0.big&i=0&start=0&count=20")
    assert [s["step"] for s in first["steps"]] == list(range(1, 21))
    assert first["total"] == BIG_STEPS and size < 150_000
    status, asked_all, size = get_json(port, "/api/steps?run=0.big&i=0&start=0&count=99999")
    assert len(asked_all["steps"]) == MAX_STEPS and size < 1_100_000
    _, last, _ = get_json(port, f"/api/steps?run=0.big&i=0&start={BIG_STEPS - 5}&count=20")
    assert [s["step"] for s in last["steps"]] == list(range(BIG_STEPS - 4, BIG_STEPS + 1))


def test_a_score_json_cannot_say_comes_as_null(tmp_path: Path) -> None:
    run_a, _ = two_runs(tmp_path / "reports")
    results = run_a / "results.json"
    results.write_text(results.read_text().replace('"score": 40.0', '"score": NaN', 1))
    server = make_server([tmp_path / "reports"])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        status, data, _ = get_json(server.server_port, "/api/run?run=0.run-a")
        assert status == 200 and data["trials"][0]["score"] is None
        assert data["trials"][1]["score"] == 40.0
    finally:
        server.shutdown()
        server.server_close()


def test_the_command_prints_its_address_and_refuses_a_missing_folder(
    reports: Path, tmp_path: Path
) -> None:
    missing = subprocess.run([sys.executable, "-m", "pytest_mlab", "view", str(tmp_path / "no")],
                             capture_output=True, text=True, timeout=60, check=False)
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    assert "Traceback" not in missing.stderr
    process = subprocess.Popen([sys.executable, "-m", "pytest_mlab", "view", str(reports)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert " runs in" in line and "http://127.0.0.1:" in line
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        status, data, _ = get_json(port, "/api/runs")
        assert status == 200 and len(data["runs"]) == 3
    finally:
        process.terminate()
        process.wait(timeout=30)
