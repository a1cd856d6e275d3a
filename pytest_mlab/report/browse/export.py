"""The run browser as a folder of static files: the same page, its answers written ahead.

A page opened from file:// may not fetch, but it may load scripts: each answer the page
would ask the server for is written as ``data/<endpoint>-<hash>.js``, which sets
``MLAB_DATA["<endpoint>?<query>"]``; export.js loads the file the page asks for. The query
is the page's own, its keys sorted, so both sides name an answer alike. A trace is written
a page of steps at a time, as the page asks for it, up to ``max_trace_bytes`` per trial,
and the page after the last written says where and why the trace was cut.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlencode

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.report.browse.charts import CHARTS
from pytest_mlab.report.browse.runs import RunIndex
from pytest_mlab.report.browse.server import PAGE, STATIC, Api, finite

STEP_PAGE = 20
"""Steps per request, as app.js asks for them (its STEP_PAGE)."""
MAX_TRACE_BYTES = 2_000_000
"""Of a trial's steps written, by default: a page shows the first ones, and few read on."""
MAX_COMPARED = 4
"""Runs up to which every ordered pair and the whole list are compared ahead of time."""

Request = tuple[str, dict[str, str]]


def request_key(endpoint: str, params: dict[str, str]) -> str:
    """``<endpoint>?<query>`` as export.js makes it: keys sorted, form-encoded like
    URLSearchParams (which leaves ``*`` and encodes ``~``)."""
    query = urlencode(sorted(params.items()), quote_via=quote_plus, safe="*")
    return f"{endpoint}?{query.replace('~', '%7E')}"


def file_name(key: str) -> str:
    """``data/<endpoint>-<FNV-1a of the key>.js``; keys that share one share the file."""
    digest = 0x811C9DC5
    for byte in key.encode():
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"data/{key.split('?')[0]}-{digest:08x}.js"


def chart_file(run: str, name: str) -> str:
    """A run's chart as app.js's chartSource names it in an export: its answer's file as
    ``.svg``."""
    return file_name(request_key("chart", {"name": name, "run": run})).removesuffix(".js") + ".svg"


def _query(params: dict[str, str]) -> dict[str, list[str]]:
    return {name: [value] for name, value in params.items()}


def _run_pages(api: Api, key: str) -> Iterator[Request]:
    """The run page and each page of its trial list, unfiltered and per filter."""
    yield "run", {"run": key}
    first = api.routes["/api/run"](_query({"run": key}))
    choices: list[dict[str, str]] = [{}]
    choices += [{"outcome": o} for o in first["outcomes"]]
    choices += [{"ended_by": e} for e in first["ended_by"] if e]
    choices += [{"outcome": o, "ended_by": e} for o in first["outcomes"]
                for e in first["ended_by"] if e]
    for chosen in choices:
        total = api.routes["/api/run"](_query({"run": key, **chosen}))["total"]
        for offset in range(0, max(total, 1), PAGE):
            yield "run", {"run": key, "offset": str(offset), **chosen}


def _comparisons(keys: list[str]) -> Iterator[Request]:
    lists = [keys] if len(keys) > 1 else []
    if len(keys) <= MAX_COMPARED:
        lists += [list(pair) for pair in itertools.permutations(keys, 2) if list(pair) != keys]
    for chosen in lists:
        joined = ",".join(chosen)
        yield "compare", {"runs": joined}
        for ref in chosen:
            yield "compare", {"runs": joined, "ref": ref}


class Export:
    """Writes the answers for the runs of ``index`` into ``folder``."""

    def __init__(self, index: RunIndex, folder: Path, max_trace_bytes: int = MAX_TRACE_BYTES):
        self.api = Api(index)
        self.folder = folder
        self.max_trace_bytes = max_trace_bytes
        self.files: dict[str, dict[str, Any]] = {}
        self.cut: list[str] = []
        """A line per trial whose steps were cut."""
        self.charts: dict[str, str] = {}
        """Each run's charts (SVG) by their file."""

    def answer(self, endpoint: str, params: dict[str, str]) -> dict[str, Any]:
        data: dict[str, Any] = finite(self.api.routes[f"/api/{endpoint}"](_query(params)))
        self.keep(endpoint, params, data)
        return data

    def keep(self, endpoint: str, params: dict[str, str], data: dict[str, Any]) -> None:
        key = request_key(endpoint, params)
        self.files.setdefault(file_name(key), {})[key] = data

    def trial(self, key: str, index: int) -> None:
        """The trial's page and its steps a page at a time, up to the size cap."""
        params = {"run": key, "i": str(index)}
        detail = self.answer("trial", params)
        run_id = detail["run_id"]
        start, written, total = 0, 0, 0
        while True:
            page = {**params, "start": str(start), "count": str(STEP_PAGE)}
            if written > self.max_trace_bytes:
                note = (f"The export keeps the first {start} of this trial's {total} steps "
                        f"({self.max_trace_bytes / 1e6:g} MB of steps at most); the rest are "
                        f"in the run's trace.")
                self.keep("steps", page, {"steps": [], "start": start, "total": total,
                                          "cut": note})
                self.cut.append(f"run {run_id}, trial {index}: {start} of {total} steps")
                return
            data = self.answer("steps", page)
            written += len(json.dumps(data))
            if detail.get("model_calls") and "/api/calls" in self.api.routes:
                written += self.calls(params, data)
            start, total = start + len(data["steps"]), data["total"]
            if not data["steps"] or start >= total:
                return

    def calls(self, trial: dict[str, str], page: dict[str, Any]) -> int:
        """The model calls of a page of steps, asked for as calls.js's showCalls asks, and
        each call whole; the bytes written."""
        steps, written = page["steps"], 0
        if not steps and page["start"]:
            return 0
        query = {**trial, "first": str(0 if page["start"] == 0 else steps[0]["step"])}
        if page["start"] + len(steps) < page["total"]:
            query["last"] = str(steps[-1]["step"])
        start: int | None = 0
        while start is not None:
            found = self.answer("calls", {**query, "start": str(start)})
            written += len(json.dumps(found))
            for call in found["calls"]:
                if "index" in call and "/api/call" in self.api.routes:
                    whole = self.answer("call", {**trial, "n": str(call["index"])})
                    written += len(json.dumps(whole))
            start = found["next"]
        return written

    def collect(self) -> None:
        self.answer("runs", {})
        keys = [entry.key for entry in self.api.index.entries()]
        for key in keys:
            for endpoint, params in _run_pages(self.api, key):
                self.answer(endpoint, params)
            for name in CHARTS:
                self.charts[chart_file(key, name)] = self.api.chart(
                    _query({"run": key, "name": name}))
            for index in range(self.api.routes["/api/run"](_query({"run": key}))["all"]):
                self.trial(key, index)
        for endpoint, params in _comparisons(keys):
            self.answer(endpoint, params)

    def write(self) -> int:
        """Writes the page and every answer; the number of answers."""
        (self.folder / "data").mkdir(parents=True, exist_ok=True)
        for path in STATIC.iterdir():
            if path.suffix in (".js", ".css"):
                shutil.copyfile(path, self.folder / path.name)
        page = (STATIC / "index.html").read_text(encoding="utf-8")
        page = page.replace('src="/', 'src="').replace('href="/', 'href="').replace(
            '<script src="tables.js"', '<script src="export.js" defer></script>\n'
            '<script src="tables.js"')
        write_atomic(self.folder / "index.html", page)
        for name, answers in self.files.items():
            lines = [f"MLAB_DATA[{json.dumps(key)}] = {json.dumps(data, allow_nan=False)};"
                     for key, data in answers.items()]
            write_atomic(self.folder / name, "\n".join(lines) + "\n")
        for name, svg in self.charts.items():
            write_atomic(self.folder / name, svg)
        return sum(len(answers) for answers in self.files.values())


def export(index: RunIndex, folder: Path, max_trace_bytes: int = MAX_TRACE_BYTES) -> Export:
    """Writes the browser over ``index``'s runs into ``folder``, which must be empty."""
    made = Export(index, folder, max_trace_bytes)
    made.collect()
    made.write()
    return made
