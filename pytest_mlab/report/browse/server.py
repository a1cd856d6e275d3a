"""The browser's HTTP server: its static files and JSON endpoints, on 127.0.0.1 only.

A request names runs by their key in the index and trials by their number in a run; no
part of a URL is ever joined to a path, so nothing outside the report folders is served.
The Host header must name this server (a page elsewhere that rebinds a name to 127.0.0.1
gets nothing), and the page may run only its own script (Content-Security-Policy).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from pytest_mlab.analysis.saved_runs import DEFAULT_STORAGE
from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.call_pages import calls_page, whole_call
from pytest_mlab.report.browse.charts import CHARTS, SVG_TYPE, run_chart
from pytest_mlab.report.browse.compare import comparison
from pytest_mlab.report.browse.live import live_update, run_state
from pytest_mlab.report.browse.metrics import trial_row
from pytest_mlab.report.browse.run_cache import RunCache, run_facts
from pytest_mlab.report.browse.runs import RunIndex, inside, run_table
from pytest_mlab.report.browse.trace_pages import step_range
from pytest_mlab.report.browse.trial import calls_log, trial_detail, trial_files
from pytest_mlab.report.rows import Row, rows_of

LOOPBACK = "127.0.0.1"
STATIC = Path(__file__).parent / "static"
FILES = {"/": ("index.html", "text/html"), "/index.html": ("index.html", "text/html"),
         "/app.js": ("app.js", "text/javascript"), "/tables.js": ("tables.js", "text/javascript"),
         "/compare.js": ("compare.js", "text/javascript"), "/app.css": ("app.css", "text/css"),
         "/calls.js": ("calls.js", "text/javascript"),
         "/live.js": ("live.js", "text/javascript")}
PAGE = 200
"""Trials per page of a run's trial list."""
CHART = "/api/chart"
"""A run's chart, answered as an SVG image rather than JSON."""
SECURITY = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class BadRequest(Exception):
    """A request this server does not answer; the message is one sentence."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


Query = dict[str, list[str]]


def _one(query: Query, name: str) -> str:
    values = query.get(name)
    if not values:
        raise BadRequest(f"the query has no {name!r}")
    return values[0]


def _number(query: Query, name: str, default: int | None = None) -> int:
    if default is not None and name not in query:
        return default
    text = _one(query, name)
    if not text.isdigit() or len(text) > 9:
        raise BadRequest(f"{name!r} must be a whole number, got {text[:40]!r}")
    return int(text)


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None: JSON has no word for them, and a
    results.json edited by hand may hold them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


class Api:
    """The JSON endpoints over one index of runs."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.cache = RunCache()
        self.routes: dict[str, Callable[[Query], dict[str, Any]]] = {
            "/api/runs": lambda _: run_table(self.index), "/api/run": self.run,
            "/api/compare": self.compare, "/api/trial": self.trial, "/api/steps": self.steps,
            "/api/calls": self.calls, "/api/call": self.call,
            "/api/live": self.live,
        }

    def _run(self, key: str) -> tuple[Any, RunResults]:
        entry = self.index.entry(key)
        if entry is None:
            raise BadRequest(f"no run {key[:80]!r} in these report folders", HTTPStatus.NOT_FOUND)
        run = self.index.results(entry)
        if isinstance(run, str):
            raise BadRequest(run, HTTPStatus.NOT_FOUND)
        return entry, run

    def _trial(self, query: Query) -> tuple[Any, RunResults, int]:
        entry, run = self._run(_one(query, "run"))
        index = _number(query, "i")
        if index >= len(run.results):
            raise BadRequest(f"run {entry.key} has {len(run.results)} trials, no trial {index}",
                             HTTPStatus.NOT_FOUND)
        return entry, run, index

    def _rows(self, key: str, run: RunResults) -> list[Row]:
        """The run's ``rows_of``: its page's figures and its charts are made from them."""
        return self.cache.made(key, run, "rows", lambda r: rows_of(r.results))

    def run(self, query: Query) -> dict[str, Any]:
        """A page of the run's trials (only those of ``outcome`` and ``ended_by`` where
        asked), with the run's groups and agents."""
        entry, run = self._run(_one(query, "run"))
        offset = _number(query, "offset", 0)
        wanted = {name: query[name][0] for name in ("outcome", "ended_by") if query.get(name)}
        chosen = [(i, r) for i, r in enumerate(run.results)
                  if all(getattr(r, name) == value for name, value in wanted.items())]
        rows = self._rows(entry.key, run)
        facts = self.cache.made(entry.key, run, "facts", lambda r: run_facts(r, rows))
        trials = [trial_row(i, r) for i, r in chosen[offset:offset + PAGE]]
        return {"key": entry.key, "info": run.run.model_dump(mode="json"), **facts,
                "state": run_state(entry.folder), "trials": trials,
                "offset": offset, "total": len(chosen), "all": len(run.results), "page": PAGE}

    def chart(self, query: Query) -> str:
        """The run's chart ``name`` (success or improvement), an SVG document."""
        entry, run = self._run(_one(query, "run"))
        name = _one(query, "name")
        if name not in CHARTS:
            raise BadRequest("the charts are 'success' and 'improvement'", HTTPStatus.NOT_FOUND)
        rows = self._rows(entry.key, run)
        drawn = self.cache.made(entry.key, run, f"chart {name}",
                                lambda r: run_chart(r, name, rows))
        assert drawn is not None
        return drawn

    def compare(self, query: Query) -> dict[str, Any]:
        keys = [k for k in _one(query, "runs").split(",") if k][:12]
        asked = query["ref"][0] if query.get("ref") else None
        return comparison([self._run(key) for key in keys], asked,
                          self.index.saved.gate_baseline(), self.index.saved.names())

    def live(self, query: Query) -> dict[str, Any]:
        """A run in progress's trials; ``since``: only a token where nothing changed."""
        key = _one(query, "run")
        entry = self.index.entry(key)
        if entry is None:
            raise BadRequest(f"no run {key[:80]!r} in these report folders", HTTPStatus.NOT_FOUND)
        return live_update(entry.folder, query["since"][0] if query.get("since") else "")

    def trial(self, query: Query) -> dict[str, Any]:
        return trial_detail(*self._trial(query))

    def calls(self, query: Query) -> dict[str, Any]:
        """A page of the trial's model calls: those of steps ``first`` .. ``last`` (every
        later step without ``last``), from the ``start``-th of them."""
        entry, run, index = self._trial(query)
        first, start = _number(query, "first", 0), _number(query, "start", 0)
        last = _number(query, "last") if "last" in query else None
        log = calls_log(entry, run.results[index])
        if log is None:
            return {"calls": [], "start": start, "total": 0, "next": None}
        return calls_page(log, first, last, start)

    def call(self, query: Query) -> dict[str, Any]:
        """The trial's ``n``-th model call (from 0), its texts whole."""
        entry, run, index = self._trial(query)
        log = calls_log(entry, run.results[index])
        found = whole_call(log, _number(query, "n")) if log is not None else None
        if found is None:
            raise BadRequest("the trial has no such model call", HTTPStatus.NOT_FOUND)
        return found

    def steps(self, query: Query) -> dict[str, Any]:
        entry, run, index = self._trial(query)
        start, count = _number(query, "start", 0), _number(query, "count", 20)
        files = trial_files(entry, run.results[index])
        if files is None or not files.trace.is_file() or not inside(entry, files.trace):
            return {"steps": [], "start": start, "total": 0}
        # Snapshots linked from elsewhere are not read (their objects may be: a resumed
        # run's store links the first session's, and only a sha256 names an object).
        manifests = files.manifests if inside(entry, files.manifests) else files.trace
        steps, total = step_range(files.trace, manifests, files.objects, start, count)
        return {"steps": steps, "start": start, "total": total}


class Handler(BaseHTTPRequestHandler):
    api: Api
    server_version = "pytest-mlab-view"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL, not every request."""

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: HTTPStatus, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(finite(data), allow_nan=False).encode(),
                   "application/json")

    def _host_is_ours(self) -> bool:
        port = cast(ThreadingHTTPServer, self.server).server_port
        return self.headers.get("Host", "") in (f"{LOOPBACK}:{port}", f"localhost:{port}")

    def do_GET(self) -> None:
        if not self._host_is_ours():
            self._json(HTTPStatus.FORBIDDEN, {"error": "this server answers only to its own "
                                              "address, 127.0.0.1"})
            return
        url = urlsplit(self.path)
        if url.path == "/favicon.ico":  # asked for by every browser; there is none
            self.send_response(HTTPStatus.NO_CONTENT)
            self.end_headers()
            return
        if url.path in FILES:
            name, kind = FILES[url.path]
            self._send(HTTPStatus.OK, (STATIC / name).read_bytes(), kind)
            return
        route = self.api.routes.get(url.path)
        if route is None and url.path != CHART:
            self._json(HTTPStatus.NOT_FOUND, {"error": "no such page"})
            return
        try:
            if route is None:  # the chart: an image, its record text escaped by svg.py
                self._send(HTTPStatus.OK, self.api.chart(parse_qs(url.query)).encode(), SVG_TYPE)
            else:
                self._json(HTTPStatus.OK, route(parse_qs(url.query)))
        except BadRequest as exc:
            self._json(exc.status, {"error": str(exc)})
        except (OSError, ValueError) as exc:  # a file gone meanwhile, a number JSON lacks
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"cannot answer: {exc}"})

    do_HEAD = do_GET


def make_server(roots: list[Path], port: int = 0,
                storage: Path | None = None) -> ThreadingHTTPServer:
    """A server for the runs in ``roots`` on 127.0.0.1 (``port`` 0: any free one);
    ``storage``: the folder of saved runs (None: pytest-mlab's default, from here)."""
    folder = Path.cwd() / DEFAULT_STORAGE if storage is None else storage
    handler = type("BoundHandler", (Handler,), {"api": Api(RunIndex(roots, folder))})
    server = ThreadingHTTPServer((LOOPBACK, port), handler)
    server.daemon_threads = True
    return server
