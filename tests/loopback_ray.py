"""Ray clusters for the tests: on the loopback interface only, reporting nothing, each held
by a process of its own (``ray_cluster_keeper.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

VARIABLES = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
"""Read when ray is imported: the first keeps Ray from swapping the loopback address for
the machine's outside one, where these clusters do not listen; the second keeps it from
reporting usage to its makers' server."""
NODE: dict[str, Any] = {"node_ip_address": "127.0.0.1", "include_dashboard": False}
"""The arguments every node of a ``ray.cluster_utils.Cluster`` here is started with."""
_KEEPER = Path(__file__).with_name("ray_cluster_keeper.py")


class ClusterProcess:
    """A local Ray cluster held by a keeper process: its head node is started with
    ``head`` (besides ``NODE``); nodes are added and removed through it."""

    def __init__(self, **head: Any) -> None:
        env = {**os.environ, **VARIABLES,
               "PYTHONPATH": os.pathsep.join([str(_KEEPER.parent),
                                              os.environ.get("PYTHONPATH", "")])}
        self._keeper = subprocess.Popen(
            [sys.executable, str(_KEEPER), json.dumps(head)], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.address: str = self._answer()["address"]

    def add_node(self, **node: Any) -> str:
        """Start a node with the arguments ``node``; returns its id once it is up."""
        node_id: str = self._ask({"add": node})["node_id"]
        return node_id

    def remove_node(self, node_id: str) -> None:
        """Kill the node's processes."""
        self._ask({"remove": node_id})

    def shutdown(self) -> None:
        assert self._keeper.stdin is not None
        self._keeper.stdin.close()
        self._keeper.wait(timeout=120)

    def _ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self._keeper.stdin is not None
        self._keeper.stdin.write(json.dumps(command) + "\n")
        self._keeper.stdin.flush()
        return self._answer()

    def _answer(self) -> dict[str, Any]:
        assert self._keeper.stdout is not None
        line = self._keeper.stdout.readline()
        if not line:
            raise RuntimeError(f"the Ray cluster's keeper exited with {self._keeper.wait()}")
        answer: dict[str, Any] = json.loads(line)
        return answer
