"""Before an original task's prepare.py runs: is everything it needs here?

Each missing piece (a module, a command, credentials, the consent to a competition's
rules, the network) is named with what fixes it, all in one sentence, so an item without
them is skipped, not errored. The network is probed only once nothing else is missing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
from pathlib import Path
from urllib.parse import urlsplit

from pytest_mlab.core.bundle import Bundle, sources_of
from pytest_mlab.core.errors import TaskUnavailable
from pytest_mlab.core.kaggle import KAGGLE_HOST, kaggle_credentials, rules_pages
from pytest_mlab.core.original_task import missing_modules
from pytest_mlab.core.overlay import Overlay

PROBE_SECONDS = 5.0
OFFLINE_LOG = "offline.log"
"""Beside the prepared data: every download a preparation from a bundle asked for, and
every connection it tried (``offline.py``)."""
_HUB_MODULES = ("huggingface_hub", "pyarrow")


def _url(source: str) -> str:
    kind, _, rest = source.partition(":")
    if kind == "kaggle":
        return KAGGLE_HOST
    if kind == "hf":
        return os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    return rest


def missing_pieces(overlay: Overlay, accept_rules: bool) -> list[str]:
    """What this machine lacks to prepare the task, each with its fix; empty if nothing."""
    missing = missing_modules(overlay)
    missing += [f"the {tool} command" for tool in overlay.tools if shutil.which(tool) is None]
    competitions = [s.partition(":")[2] for s in overlay.sources if s.startswith("kaggle:")]
    if competitions and shutil.which("kaggle") is None:
        missing.append("the kaggle command (pip install kaggle)")
    if competitions and not kaggle_credentials():
        missing.append("Kaggle credentials (set KAGGLE_USERNAME and KAGGLE_KEY, or write "
                       "~/.kaggle/kaggle.json)")
    if competitions and not accept_rules:
        rules = rules_pages(competitions)
        missing.append(f"consent to the competition's rules (accept them at {rules}, then "
                       "pass --mlab-accept-rules)")
    if overlay.hub:
        absent = [m for m in _HUB_MODULES if importlib.util.find_spec(m) is None]
        if absent:
            missing.append(f"the Python modules {', '.join(absent)} to download from the "
                           "Hugging Face Hub (pip install 'pytest-mlab[mlagentbench]')")
    hub = overlay.hub or any(s.startswith("hf:") for s in overlay.sources)
    if hub and os.environ.get("HF_HUB_OFFLINE"):
        missing.append("the Hugging Face Hub (unset HF_HUB_OFFLINE)")
    return missing


def unreachable(url: str) -> str | None:
    """Why ``url``'s host cannot be reached, or None if a connection opens."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (80 if parts.scheme == "http" else 443)
    if os.environ.get("MLAB_OFFLINE"):
        return "MLAB_OFFLINE is set"
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            return None
    except OSError as exc:
        return f"{host}:{port} cannot be reached ({exc.strerror or type(exc).__name__})"


def check_sources(overlay: Overlay, accept_rules: bool) -> None:
    """Raise ``TaskUnavailable`` with one sentence if the task cannot be prepared here."""
    missing = missing_pieces(overlay, accept_rules)
    if not missing:
        sources = [*overlay.sources, *(f"hf:{entry.repo}" for entry in overlay.hub),
                   *(f"url:{entry.archive}" for entry in overlay.mounted_data)]
        for url in dict.fromkeys(_url(source) for source in sources):
            reason = unreachable(url)
            if reason is not None:
                missing.append(f"the network to download its data ({reason})")
                break
    if missing:
        raise TaskUnavailable(f"needs {'; '.join(missing)}")


def check_bundle(overlay: Overlay, root: Path, accept_rules: bool) -> Bundle:
    """The bundle at ``root``, every file the task needs in it checked; ``TaskUnavailable``
    with one sentence where something is missing here, ``BundleError`` where a file is not
    what the manifest says."""
    bundle = Bundle(root)
    lacks = bundle.lacks(overlay)
    missing = [lacks] if lacks else []
    missing += missing_modules(overlay)
    missing += [f"the {tool} command" for tool in overlay.tools if shutil.which(tool) is None]
    competitions = [s.partition(":")[2] for s in overlay.sources if s.startswith("kaggle:")]
    if competitions and not accept_rules:
        rules = rules_pages(competitions)
        missing.append(f"consent to the competition's rules (accept them at {rules}, then "
                       "pass --mlab-accept-rules)")
    if missing:
        raise TaskUnavailable(f"needs {'; '.join(missing)}")
    for source in sources_of(overlay):
        bundle.file(source)
    return bundle
