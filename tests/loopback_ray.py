"""Ray clusters for the tests: on the loopback interface only, reporting nothing."""

from __future__ import annotations

from typing import Any

VARIABLES = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
"""Read when ray is imported: the first keeps Ray from swapping the loopback address for
the machine's outside one, where these clusters do not listen; the second keeps it from
reporting usage to its makers' server."""
NODE: dict[str, Any] = {"node_ip_address": "127.0.0.1", "include_dashboard": False}
"""The arguments every node of a ``ray.cluster_utils.Cluster`` here is started with."""
