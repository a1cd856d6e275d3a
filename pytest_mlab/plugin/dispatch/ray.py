"""Trials as Ray tasks: each asks for its task's CPUs, GPUs and memory, tells first which
node took it, then hands back what ``dispatch_remote.run_job`` made there.

A node lost mid-trial (its raylet gone, the worker killed) is told apart from the trial's
own failure: the first is retried up to ``retries`` times, then named in the error.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.plugin.dispatch.ray_tally import SessionTally, TallyLink
from pytest_mlab.plugin.dispatch.remote import (
    RemoteJob,
    RemoteOutcome,
    node_name,
    passed_environ,
    run_job,
)

GIB = 1 << 30
_NICENESS_VARIABLE = "RAY_worker_niceness"
"""Read by a Ray worker as it starts: Ray lowers its workers' priority to niceness 15 so
that its own daemons come first, and a trial's scripts would inherit that. A trial is the
work itself, as Ray's job drivers are (which Ray keeps at the node's priority the same
way): at 15 it yields its leased cores to any other process there, runs slower than
locally by however busy the node is, and a timed task's score would measure the
neighbours."""


class NodeLost(InfrastructureError):
    """The node running a trial went away; the message names it."""


class HeldBack(Exception):
    """The trial was cancelled before it started; the message says why."""


@dataclass(frozen=True)
class Ask:
    """What one trial asks of the cluster (task.toml's resources)."""

    cpus: int
    gpus: int
    memory_bytes: int


def _trial(job: RemoteJob, tally: Any) -> Iterator[Any]:
    import ray

    context = ray.get_runtime_context()
    yield node_name(context.get_node_id(),
                    ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
    yield run_job(job, [str(gpu) for gpu in ray.get_gpu_ids()], TallyLink(tally))


@functools.cache
def _remote_trial() -> Any:
    """``_trial`` as a Ray function, made once: each ray.remote() is a function of its own
    to Ray, a scheduling class of its own, and Ray starts the tasks of different classes
    in no set order, so trials would not start in the order they were submitted."""
    import ray

    return ray.remote(runtime_env={"env_vars": {_NICENESS_VARIABLE: "0"}})(_trial)


def connect(address: str | None) -> None:
    """Join the cluster at ``address``, or RAY_ADDRESS's, or start one on this machine."""
    own_ip = _loopback(address)
    # Ray reports usage to its makers' server unless told not to; the harness sends
    # nothing anywhere on its own.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if own_ip is not None:
        # Read when ray is imported: otherwise Ray swaps a loopback address for the
        # machine's outside one, where a loopback-only cluster does not listen.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    if ray.is_initialized():
        return
    ray.init(address=address, log_to_driver=False, include_dashboard=False,
             configure_logging=False, _node_ip_address=own_ip)


def _loopback(address: str | None) -> str | None:
    """127.0.0.1 for a cluster started here for the session (it listens on the loopback
    interface only) or one at a loopback address; else Ray's own choice."""
    target = address or os.environ.get("RAY_ADDRESS")
    if target is None:
        return "127.0.0.1"
    host = target.removeprefix("ray://").rpartition(":")[0]
    return "127.0.0.1" if host in ("127.0.0.1", "localhost") else None


def cluster_summary() -> str:
    import ray

    nodes = [node for node in ray.nodes() if node.get("Alive")]  # type: ignore[no-untyped-call]
    total = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return (f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}, {total.get('CPU', 0):g} CPUs, "
            f"{total.get('GPU', 0):g} GPUs")


def _lost(exc: BaseException, node: str | None) -> str | None:
    """What a system failure took, in words (the node, or the trial's worker on it: the
    OOM killer, say); None for the trial's own error."""
    from ray import exceptions

    if isinstance(exc, exceptions.RayTaskError):
        cause = exc.cause
        if not isinstance(cause, (exceptions.WorkerCrashedError, exceptions.NodeDiedError)):
            return None
    elif isinstance(exc, exceptions.RayError):
        cause = exc
    else:
        return None
    if node is None:
        return "its node (before the trial started)"
    return f"the worker on {node}" if isinstance(cause, exceptions.WorkerCrashedError) else node


@dataclass
class RemoteTrial:
    """One submitted trial; ``outcome`` waits for it, resubmitting after a lost node."""

    job: RemoteJob
    ask: Ask
    retries: int
    tally: Any
    """The session's SessionTally actor."""
    nodes: list[str] = field(default_factory=list)
    """Every node that took the trial, in order."""
    _run: Any = None
    _started: threading.Thread | None = None
    _node: str | Exception | None = None
    done: bool = False
    held_back: str | None = None
    """Why the trial was cancelled before a node started it (the session's budget)."""

    def submit(self) -> None:
        remote = _remote_trial().options(
            num_cpus=self.ask.cpus, num_gpus=self.ask.gpus, memory=self.ask.memory_bytes,
            max_retries=0, num_returns="streaming",
        )
        self._run, self._node = remote.remote(self.job, self.tally), None
        # The node is learnt as the trial starts, not when its item comes up: by then the
        # node may be gone, and with it what it said.
        self._started = threading.Thread(target=self._learn_node, daemon=True)
        self._started.start()

    def _learn_node(self) -> None:
        import ray

        try:
            self._node = str(ray.get(next(self._run)))
        except Exception as exc:
            self._node = exc

    def _node_of_run(self) -> str:
        assert self._started is not None
        self._started.join()
        if isinstance(self._node, Exception):
            raise self._node
        assert self._node is not None
        self.nodes.append(self._node)
        return self._node

    def outcome(self) -> RemoteOutcome:
        import ray

        lost: list[str] = []
        while True:
            node = None
            try:
                node = self._node_of_run()
                outcome: RemoteOutcome = ray.get(next(self._run))
                self.done = True
                return outcome
            except Exception as exc:
                if self.held_back is not None:
                    self.done = True
                    raise HeldBack(self.held_back) from None
                taken = _lost(exc, node)
                if taken is None:
                    self.done = True
                    where = f" on {node}" if node else ""
                    line = (str(exc).strip().splitlines() or [""])[-1]
                    message = f"the trial's Ray task failed{where}: {line}"
                    raise InfrastructureError(message) from None
                lost.append(taken)
                if len(lost) > self.retries:
                    self.done = True
                    retried = f" ({len(lost) - 1} retries)" if len(lost) > 1 else ""
                    raise NodeLost(f"lost {', then '.join(lost)} while running the "
                                   f"trial{retried}") from None
                self.submit()

    def hold_back(self, reason: str) -> None:
        """Cancel the trial if no node has started it. One that a node starts at the very
        moment of the cancel is interrupted there, and counts as held back too."""
        import ray

        if self._node is None and not self.done and self.held_back is None:
            self.held_back = reason
            ray.cancel(self._run)

    def cancel(self) -> None:
        import ray

        if self._run is not None and not self.done:
            ray.cancel(self._run, force=True)


def submit_items(config: Any, items: list[Any], retries: int,
                 args: tuple[str, ...]) -> dict[str, RemoteTrial]:
    """Submit every trial item at once, each asking for its task's resources."""
    import ray

    from pytest_mlab.core.data_key import VARIABLE, data_key
    from pytest_mlab.plugin.keys import SETTINGS_KEY, TRIAL_KEY

    settings = config.stash[SETTINGS_KEY]
    run_id = settings.run_id
    # The nodes draw the controller's data, whatever key their own caches hold.
    key = {VARIABLE: data_key(settings.cache_dir, settings.data_key).hex()}
    # No CPU of its own: it must not hold a slot a trial could use.
    tally = ray.remote(SessionTally).options(num_cpus=0).remote()
    trials = {}
    for item in items:
        spec = item.stash.get(TRIAL_KEY, None)
        if spec is None:
            continue
        resources = spec.task.manifest.resources
        ask = Ask(cpus=resources.cpus or 1, gpus=resources.gpus,
                  memory_bytes=int(resources.memory_gb * GIB))
        job = RemoteJob(nodeid=item.nodeid, args=args, rootdir=str(config.rootpath),
                        invocation_dir=str(config.invocation_params.dir), run_id=run_id,
                        cpus=ask.cpus, environ=passed_environ() | key)
        trials[item.nodeid] = RemoteTrial(job, ask, retries, tally)
        trials[item.nodeid].submit()
    return trials


def shutdown() -> None:
    """Leave the cluster, if the session joined one (a session that submitted nothing never
    imported Ray, and does not pay to import it here)."""
    ray = sys.modules.get("ray")
    if ray is not None:
        ray.shutdown()
