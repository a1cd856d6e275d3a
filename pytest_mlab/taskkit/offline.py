"""Preparing an original task from an offline bundle (``--mlab-original-data``), never the
network.

The original ``prepare.py`` runs unchanged. What it would download is answered from the
bundle (``core/bundle.py``), each file checked against the bundle's sha256 first:

- ``kaggle`` and ``wget``: commands of these names first on its PATH, which copy the
  bundle's file where the real ones would write theirs;
- ``urllib.request.urlopen`` (torchvision's and ogb's downloads) and, where the task's
  environment has it, ``requests`` (the images fathomnet's download_images.py fetches):
  replaced, in every Python process of the preparation, by what reads the bundle;
- any other connection, or name lookup, of those processes to a host other than this
  one is refused (an audit hook), and every call of all of these is logged, so a test can
  show that nothing went out.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_mlab.core.bundle import Bundle, BundleError, kaggle_source
from pytest_mlab.core.original_shims import chained_sitecustomize

BUNDLE_VARIABLE = "MLAB_BUNDLE"
LOG_VARIABLE = "MLAB_BUNDLE_LOG"
_TOOLS = {"kaggle": "kaggle_main", "wget": "wget_main"}
_SCRIPT = "#!{python}\nimport sys\nfrom pytest_mlab.taskkit.offline import {main}\n" \
          "sys.exit({main}(sys.argv[1:]))\n"

_SITECUSTOMIZE = chained_sitecustomize(
    "answers downloads from the offline bundle",
    "from pytest_mlab.taskkit.offline import install\n\ninstall()")
_LOCAL_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def log(tool: str, what: str, answered: bool) -> None:
    """One line per download asked for, or connection tried, in the preparation's log."""
    path = os.environ.get(LOG_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"tool": tool, "what": what, "answered": answered,
                                     "pid": os.getpid()}) + "\n")


@functools.cache  # one manifest read, and each file hashed once, per process
def _bundle() -> Bundle:
    return Bundle(Path(os.environ[BUNDLE_VARIABLE]))


def _answer(tool: str, source: str, target: Path) -> int:
    try:
        found = _bundle().file(source)
    except BundleError as exc:
        log(tool, source, False)
        print(f"{tool} (pytest-mlab, offline): {exc}", file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(found, target)
    log(tool, source, True)
    print(f"{tool} (pytest-mlab, offline): {source} -> {target}")
    return 0


def _option(argv: list[str], *names: str) -> str | None:
    for index, word in enumerate(argv):
        for name in names:
            if word == name and index + 1 < len(argv):
                return argv[index + 1]
            if name.startswith("--") and word.startswith(name + "="):
                return word.partition("=")[2]
    return None


def kaggle_main(argv: list[str]) -> int:
    """``kaggle competitions download -c NAME [-p DIR]``: NAME.zip into DIR (or here)."""
    competition = _option(argv, "-c", "--competition")
    if argv[:2] != ["competitions", "download"] or not competition:
        log("kaggle", " ".join(argv), False)
        print("kaggle (pytest-mlab, offline): only 'competitions download -c NAME' is "
              f"answered from the bundle, not {' '.join(argv)!r}", file=sys.stderr)
        return 2
    folder = Path(_option(argv, "-p", "--path") or ".")
    return _answer("kaggle", kaggle_source(competition), folder / f"{competition}.zip")


def wget_main(argv: list[str]) -> int:
    """``wget [-q] [-O FILE | -P DIR] URL...``: each URL's file from the bundle."""
    output, folder = _option(argv, "-O", "--output-document"), _option(argv, "-P")
    urls = [word for word in argv if word.startswith(("http://", "https://"))]
    if not urls:
        print("wget (pytest-mlab, offline): no http(s) URL given", file=sys.stderr)
        return 2
    for url in urls:
        name = url.rstrip("/").rsplit("/", 1)[-1].split("?")[0]
        target = Path(output) if output else Path(folder or ".") / name
        if (code := _answer("wget", url, target)) != 0:
            return code
    return 0


def _refuse(event: str, args: tuple[object, ...]) -> None:
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and address and str(address[0]) not in _LOCAL_HOSTS:
            log("connect", f"{address[0]}:{address[1] if len(address) > 1 else ''}", False)
            raise ConnectionRefusedError(
                f"pytest-mlab: preparing from the offline bundle opens no connection to "
                f"{address[0]}")
    elif event == "socket.getaddrinfo":
        host = args[0]
        if host is not None and str(host) not in _LOCAL_HOSTS:
            log("getaddrinfo", str(host), False)
            raise OSError(f"pytest-mlab: preparing from the offline bundle looks up no "
                          f"host ({host})")


def _urlopen(original: Callable[..., object]) -> Callable[..., object]:
    import email.message
    import io
    import urllib.error
    import urllib.request
    import urllib.response

    def urlopen(url: object, *args: object, **kwargs: object) -> object:
        full = url.full_url if isinstance(url, urllib.request.Request) else str(url)
        if not full.startswith(("http://", "https://")):
            return original(url, *args, **kwargs)
        try:
            found = _bundle().file(full)
        except BundleError as exc:
            log("urlopen", full, False)
            raise urllib.error.URLError(f"pytest-mlab, offline: {exc}") from None
        log("urlopen", full, True)
        headers = email.message.Message()
        headers["Content-Length"] = str(found.stat().st_size)
        body = io.BufferedReader(io.FileIO(found))
        response = urllib.response.addinfourl(body, headers, full, 200)
        response.length = found.stat().st_size  # type: ignore[attr-defined]
        return response

    return urlopen


def _answer_requests() -> None:
    """Every http(s) request of ``requests`` answered from the bundle, if it is here."""
    if importlib.util.find_spec("requests") is None:
        return
    adapters = importlib.import_module("requests.adapters")
    exceptions = importlib.import_module("requests.exceptions")
    urllib3 = importlib.import_module("urllib3")

    def send(adapter: Any, request: Any, *args: object, **kwargs: object) -> Any:
        url = str(request.url)
        try:
            found = _bundle().file(url)
        except BundleError as exc:
            log("requests", url, False)
            raise exceptions.ConnectionError(f"pytest-mlab, offline: {exc}",
                                             request=request) from None
        log("requests", url, True)
        raw = urllib3.HTTPResponse(
            body=open(found, "rb"),  # noqa: SIM115 - read, then closed, by the response
            headers={"Content-Length": str(found.stat().st_size)}, status=200,
            preload_content=False, decode_content=False)
        return adapter.build_response(request, raw)

    adapters.HTTPAdapter.send = send


def install() -> None:
    """In a Python process of the preparation: downloads from the bundle, no network."""
    import urllib.request

    if BUNDLE_VARIABLE not in os.environ:
        return
    urllib.request.urlopen = _urlopen(urllib.request.urlopen)
    _answer_requests()
    sys.addaudithook(_refuse)


def offline_environ(bundle: Path, folder: Path, log_file: Path) -> dict[str, str]:
    """The variables under which a preparation reads ``bundle`` instead of the network:
    the commands and the sitecustomize written into ``folder``, each call logged in
    ``log_file``. The caller puts its PATH and PYTHONPATH first."""
    folder.mkdir(parents=True, exist_ok=True)
    for tool, main in _TOOLS.items():
        script = folder / "bin" / tool
        script.parent.mkdir(exist_ok=True)
        script.write_text(_SCRIPT.format(python=sys.executable, main=main), encoding="utf-8")
        script.chmod(0o755)
    (folder / "site").mkdir(exist_ok=True)
    (folder / "site" / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    return {BUNDLE_VARIABLE: str(bundle), LOG_VARIABLE: str(log_file),
            "PATH": str(folder / "bin"), "PYTHONPATH": str(folder / "site"),
            "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
