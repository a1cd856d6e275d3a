"""The run browser imports its statistics as it starts, not at the first comparison."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import sys, threading
from pytest_mlab.cli import view

class Server:
    server_address = ("127.0.0.1", 0)

    def serve_forever(self):
        (warm,) = [t for t in threading.enumerate() if t.name == view.WARM_UP]
        warm.join()
        print("scipy.stats" in sys.modules)

    def server_close(self):
        pass

view.make_server = lambda dirs, port: Server()
sys.exit(view.main([sys.argv[1]]))
"""


def test_the_server_imports_scipy_as_it_starts(tmp_path: Path) -> None:
    # In a fresh interpreter: this one may have imported scipy already.
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "True"
    assert "browse them at http://127.0.0.1:0/" in done.stdout
