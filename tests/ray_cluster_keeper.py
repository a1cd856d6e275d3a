"""Holds a ray.cluster_utils.Cluster in a process of its own, for loopback_ray.ClusterProcess.

Ray's C++ client (the GCS client a Cluster keeps, with its gRPC threads) then never lives
in a test's process: beside what earlier tests had loaded into an xdist worker, it crashed
that worker with a segmentation fault. Reads one JSON command a line on stdin and answers
each with one JSON line on stdout; the cluster is shut down when stdin closes.

Commands: {"add": {node arguments}} -> {"node_id": ...}; {"remove": node_id} -> {}.
The first line written is {"address": ...}, once the head node is up.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from loopback_ray import NODE

# The answers go over a private copy of stdout; Ray's own prints go to stderr.
_ANSWERS = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)


def main() -> None:
    from ray import cluster_utils

    head: dict[str, Any] = json.loads(sys.argv[1])
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={**head, **NODE})
    nodes: dict[str, Any] = {}
    _say({"address": cluster.address})
    for line in sys.stdin:
        command = json.loads(line)
        if "add" in command:
            node = cluster.add_node(**command["add"], **NODE)
            cluster.wait_for_nodes()
            nodes[node.node_id] = node
            _say({"node_id": node.node_id})
        elif "remove" in command:
            cluster.remove_node(nodes.pop(command["remove"]))
            _say({})
    cluster.shutdown()  # type: ignore[no-untyped-call]


def _say(answer: dict[str, Any]) -> None:
    _ANSWERS.write(json.dumps(answer) + "\n")
    _ANSWERS.flush()


if __name__ == "__main__":
    main()
