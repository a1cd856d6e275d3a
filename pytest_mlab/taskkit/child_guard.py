"""Rules a timed child enforces on the submission's code from inside its own process.

Once train.py is imported it owns the child: it can rebind anything in the driver,
including a check the driver would run after a call. So the rules live where it cannot
reach them: an audit hook (which Python offers no way to remove), holding its state in
closures that no name leads to; the ways to reach such objects anyway (``gc``, other
threads' frames, tracing) are refused. A broken rule ends the child at once with
``error <sentence>`` on the protocol stream.

- Imports: a module outside ``allowed`` (None: any) or inside ``denied`` is refused by
  name, whether imported or loaded from a file (both raise the audit event). When the call's
  output is written, every compiled library mapped since (``/proc/self/maps``) must come
  from ``library_dirs`` (None: anywhere) or be one of Python's own not denied.
- Threads: the process may not run more OS threads than it had when the guard was
  installed, nor have a child process where /proc lists them (checked when an output is
  written), nor start, fork or exec another process, nor use ``ctypes``. While a call
  runs, the scorer watches threads and processes from outside (``child_watch``, with
  ``ChildProgram.one_thread``): a sampling thread of the guard's own once did, until
  train.py rebound ``time.sleep``, which it called, and stopped it; such a thread could
  as well be taken over to compute, unseen.

``source()`` is this module's text for the child's program; ``install`` runs there in the
adapter's ``setup``, after what the task itself loads and before train.py is imported or
anything of the workspace is on the import path (``child_driver``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

# Ways around the rules, and the modules that offer them.
DENIED_STDLIB = frozenset({
    "ctypes", "_ctypes", "subprocess", "_posixsubprocess", "multiprocessing",
    "_multiprocessing", "_posixshmem", "concurrent", "socket", "_socket", "ssl", "_ssl",
    "asyncio", "_asyncio", "select", "selectors", "pty", "tty", "gc",
    "_xxsubinterpreters", "_xxinterpchannels", "_xxinterpqueues", "_testcapi",
    "_testinternalcapi",
})
DENIED_EXTRA = frozenset({
    "cffi", "_cffi_backend", "numba", "llvmlite", "numexpr", "cython", "Cython", "pyximport",
    "cupy", "jax", "jaxlib", "tensorflow", "torch", "scipy", "sklearn", "threadpoolctl",
    "psutil", "pythran", "taichi", "mlx",
})
_REFUSED_EVENTS = {
    "os.system": "runs a shell command",
    "os.fork": "forks the process",
    "os.forkpty": "forks the process",
    "os.exec": "replaces the process",
    "os.posix_spawn": "starts a process",
    "os.spawn": "starts a process",
    "subprocess.Popen": "starts a process",
    "gc.get_objects": "walks the interpreter's objects",
    "gc.get_referrers": "walks the interpreter's objects",
    "gc.get_referents": "walks the interpreter's objects",
    "sys._current_frames": "inspects other threads",
    "sys.settrace": "traces the interpreter",
    "sys.setprofile": "traces the interpreter",
}
_OUTPUT_SUFFIX = ".out.npy"
# How long the guard waits for threads the setup left to end before it counts the rest.
SETTLE_SECONDS = 5.0


def source() -> str:
    """This module's text, to run in the child (a ``__future__`` import could not)."""
    with open(__file__, encoding="utf-8") as handle:
        return "".join(line for line in handle if not line.startswith("from __future__"))


def install(
    proto_fd: int, allowed: Iterable[str] | None, denied: Iterable[str],
    library_dirs: Iterable[str] | None = None,
) -> None:
    """Install the rules for the rest of the child's life (see the module docstring).

    ``proto_fd`` is the protocol stream's descriptor; ``allowed`` and ``denied`` are
    top-level module names (the standard library, less ``DENIED_STDLIB``, and the
    workspace's own modules are allowed too); ``library_dirs`` are the folders compiled
    code may come from besides what is already loaded.
    """
    import os
    import threading
    import time

    write, exit_now, fd = os.write, os._exit, os.dup(proto_fd)

    def refuse(sentence: str) -> None:
        try:
            write(fd, ("error " + " ".join(sentence.split()) + "\n").encode())
        finally:
            exit_now(1)

    read = _reader(os.open, os.read, os.close)
    allowed_names = _allowed_names(allowed)
    denied_names = frozenset(denied) | DENIED_STDLIB
    name_rule = _name_rule(allowed_names, denied_names, os.getcwd(), os.path.exists)
    threads = _thread_counter(read)
    # The setup may leave threads that are ending (a pool's workers after shutdown(wait=
    # False), as model loading does): counted into the limit, each would make room for a
    # thread of train.py's once it ended. One that does not end in time stays counted.
    _join_others(threading.enumerate, threading.current_thread(), time.monotonic,
                 SETTLE_SECONDS, lambda tid: os.path.exists(f"/proc/self/task/{tid}"),
                 lambda: time.sleep(0.001))
    limit = threads()
    libraries = _library_rule(library_dirs, denied_names, os.path.realpath, read)
    any_child = _children(os.listdir, read)
    checkpoint = _checkpoint(threads, limit, libraries, any_child, read)
    # The audit hook sees import statements and extension loads; importlib.import_module
    # passes the finders first, and a refusal there names the package, not a submodule.
    sys.meta_path.insert(0, _Finder(name_rule, refuse))
    sys.addaudithook(_hook(refuse, name_rule, checkpoint))


class _Finder:
    """Refuses a module by name before any finder looks for it."""

    def __init__(self, rule: Callable[[str], str | None], refuse: Callable[[str], None]) -> None:
        self.find_spec = lambda name, path=None, target=None: (
            refuse(problem) if (problem := rule(name)) else None)


def _allowed_names(allowed: Iterable[str] | None) -> frozenset[str] | None:
    if allowed is None:
        return None
    return frozenset(allowed) | (frozenset(sys.stdlib_module_names) - DENIED_STDLIB)


def _name_rule(
    allowed: frozenset[str] | None, denied: frozenset[str], workspace: str,
    exists: Callable[[str], bool],
) -> Callable[[str], str | None]:
    def rule(name: str) -> str | None:
        root = name.partition(".")[0]
        if root in denied:
            return f"train.py imports {name}, which this task does not allow"
        if allowed is None or root in allowed or root == "train":
            return None
        # The workspace's own pure-Python modules; compiled ones meet the library rule.
        if exists(f"{workspace}/{root}.py") or exists(f"{workspace}/{root}/__init__.py"):
            return None
        return f"train.py imports {name}, which this task does not allow"

    return rule


def _reader(
    open_: Callable[[str, int], int], read: Callable[[int, int], bytes],
    close: Callable[[int], None],
) -> Callable[[str], bytes]:
    """Reads a whole file through the functions captured at install, not through names
    train.py could rebind."""
    def read_all(path: str) -> bytes:
        handle = open_(path, 0)
        try:
            chunks = []
            while chunk := read(handle, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            close(handle)

    return read_all


def _join_others(
    enumerate_threads: Callable[[], list[Any]], current: object,
    monotonic: Callable[[], float], seconds: float, listed: Callable[[int], bool],
    pause: Callable[[], None],
) -> None:
    """Wait, ``seconds`` at most in all, for every Python thread but ``current`` to end and
    for its OS thread to be ``listed`` no more (a join returns while that is still ending,
    and /proc counted it in one run in two on a loaded machine)."""
    deadline = monotonic() + seconds
    for thread in enumerate_threads():
        # A thread started outside Python (threading's dummy) cannot be joined: it stays
        # counted.
        if thread is not current and type(thread).__name__ != "_DummyThread":
            thread.join(max(0.0, deadline - monotonic()))
            while (not thread.is_alive() and listed(thread.native_id)
                   and monotonic() < deadline):
                pause()


def _thread_counter(read: Callable[[str], bytes]) -> Callable[[], int]:
    def count() -> int:
        for line in read("/proc/self/status").splitlines():
            if line.startswith(b"Threads:"):
                return int(line.split()[1])
        return 1

    return count


def _children(
    listdir: Callable[[str], list[str]], read: Callable[[str], bytes]
) -> Callable[[], bool]:
    """Whether any thread of the process has a child process (False where /proc cannot say)."""
    def any_child() -> bool:
        try:
            return any(read(f"/proc/self/task/{task}/children").strip()
                       for task in listdir("/proc/self/task"))
        except OSError:
            return False

    return any_child


def _mapped_files(read: Callable[[str], bytes]) -> frozenset[str]:
    """The files mapped into the process (none where /proc cannot say)."""
    try:
        text = read("/proc/self/maps").decode(errors="replace")
    except OSError:
        return frozenset()
    fields = (line.split(None, 5) for line in text.splitlines())
    return frozenset(f[5].strip() for f in fields if len(f) == 6 and f[5].startswith("/"))


def _library_rule(
    library_dirs: Iterable[str] | None, denied: frozenset[str],
    realpath: Callable[[str], str], read: Callable[[str], bytes],
) -> Callable[[str], str | None]:
    """Whether a compiled library may be loaded: one already mapped, one of Python's own
    extensions whose module is not denied, or one under ``library_dirs`` (None: any)."""
    dirs = None if library_dirs is None else tuple(
        realpath(d).rstrip("/") + "/" for d in library_dirs)
    dynload = realpath(f"{sys.base_prefix}/lib/python{sys.version_info[0]}."
                       f"{sys.version_info[1]}/lib-dynload") + "/"
    initial = _mapped_files(read)

    def rule(path: str) -> str | None:
        real = realpath(path)
        if path in initial or real in initial:
            return None
        if real.startswith(dynload):
            allowed = real[len(dynload):].split(".")[0] not in denied
        else:
            allowed = dirs is None or real.startswith(dirs)
        return None if allowed else (f"train.py loaded the compiled library {path}, which "
                                     "this task does not allow")

    return rule


def _checkpoint(
    threads: Callable[[], int], limit: int, libraries: Callable[[str], str | None],
    any_child: Callable[[], bool], read: Callable[[str], bytes],
) -> Callable[[], str | None]:
    """The checks made as an output is written: a sentence for the first one broken."""
    def check() -> str | None:
        if (count := threads()) > limit:
            return f"train.py ran {count - limit + 1} threads; it must use one"
        if any_child():
            return "train.py started another process, which this task does not allow"
        for path in sorted(_mapped_files(read)):
            if problem := libraries(path):
                return problem
        return None

    return check


def _hook(
    refuse: Callable[[str], None], name_rule: Callable[[str], str | None],
    checkpoint: Callable[[], str | None],
) -> Callable[[str, tuple[object, ...]], None]:
    refused = dict(_REFUSED_EVENTS)

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "import":
            problem = name_rule(str(args[0]))
        elif event.startswith("ctypes."):
            problem = "train.py uses ctypes, which this task does not allow"
        elif event in refused:
            problem = f"train.py {refused[event]}, which this task does not allow"
        elif event == "open" and _names_output(args[0]):
            problem = checkpoint()
        elif event in ("os.rename", "os.link", "os.symlink") and any(
                _names_output(arg) for arg in args[:2]):
            problem = "train.py wrote the scorer's output file itself"
        else:
            return
        if problem:
            refuse(problem)

    return hook


def _names_output(path: object) -> bool:
    if isinstance(path, bytes):
        path = path.decode(errors="replace")
    return isinstance(path, str) and path.endswith(_OUTPUT_SUFFIX)
