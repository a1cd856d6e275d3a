"""Which machine this is: measured baselines and GPU locks are per machine."""

from __future__ import annotations

import os
import platform
import re
import socket


def machine_id() -> str:
    """A short, file-name-safe name for this machine and its CPU count."""
    raw = f"{socket.gethostname()}-{platform.machine()}-{os.cpu_count()}cpu"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", raw)
