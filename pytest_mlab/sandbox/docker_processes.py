"""What a container's processes and cgroup say, read from the host."""

from __future__ import annotations

from typing import Any

from pytest_mlab.sandbox.cgroups import event_count, read_or_empty


def _groups(cid: str, controller: str) -> tuple[str, ...]:
    """Where the container's group may be (v1, or v2 under systemd or cgroupfs)."""
    return (f"/sys/fs/cgroup/{controller}/docker/{cid}",
            f"/sys/fs/cgroup/system.slice/docker-{cid}.scope", f"/sys/fs/cgroup/docker/{cid}")


def container_events(cid: str) -> tuple[int, int]:
    """The container cgroup's memory kills and refused forks, where readable."""
    memory = _groups(cid, "memory")
    memory_files = (f"{memory[0]}/memory.oom_control", *(f"{g}/memory.events" for g in memory[1:]))
    return (max(event_count(read_or_empty(path), "oom_kill") for path in memory_files),
            max(event_count(read_or_empty(f"{g}/pids.events"), "max")
                for g in _groups(cid, "pids")))


def container_processes(cid: str) -> list[int]:
    """The processes the container holds now, zombies included (they hold process slots
    until the keeper reaps them), as host pids; none where its cgroup is unreadable."""
    return sorted({int(pid) for group in _groups(cid, "pids")
                   for pid in read_or_empty(f"{group}/cgroup.procs").split()})


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie or a process gone does not)."""
    stat = read_or_empty(f"/proc/{pid}/stat")
    return bool(stat) and stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def exec_running(api: Any, exec_id: str) -> bool:
    """Whether an exec's program still runs (True where the engine cannot say)."""
    try:
        return bool(api.exec_inspect(exec_id).get("Running", True))
    except Exception:
        return True
