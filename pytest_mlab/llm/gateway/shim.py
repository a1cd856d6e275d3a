"""Runs inside a trial's sandbox: the loopback end of the trial's LLM gateway, and the
supervisor of the external agent's command.

It is copied into the gateway's folder and run by the sandbox's own Python, so it uses
the standard library only. It listens on 127.0.0.1 of the sandbox's own network
namespace and passes each connection, byte for byte, to the gateway's Unix socket (the
only way out of the sandbox, and one that answers nothing but the trial's calls). When
the gateway marks the trial over (its LLM budget spent, the provider failed for good), it
gives the command a few seconds to read its refusal and end on its own, then stops it: an
agent that retries would otherwise keep trying until the time limit.

Usage: python shim.py PORT SOCKET OVER_FILE -- COMMAND...
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
GRACE_S = 5.0
"""How long a command has, once its trial is over, to end on its own and say why."""


def loopback_up() -> None:
    """Bring lo up where a bare network namespace left it down (unshare --net does)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
        if not flags & _IFF_UP:
            fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _relay(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, path), daemon=True).start()


def _stop(child: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, sig)
        try:
            child.wait(5)
            return
        except subprocess.TimeoutExpired:
            continue


def main(argv: list[str]) -> int:
    port, path, over = int(argv[0]), argv[1], argv[2]
    command = argv[4:] if argv[3:4] == ["--"] else argv[3:]
    loopback_up()
    listener = socket.create_server(("127.0.0.1", port))
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
    child = subprocess.Popen(command, start_new_session=True)
    while child.poll() is None:
        if os.path.exists(over):
            with open(over, encoding="utf-8") as reason:
                print(f"[pytest-mlab] {reason.read().strip()}", file=sys.stderr, flush=True)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(GRACE_S)
            _stop(child)  # what is left of its process group, or all of it
            break
        time.sleep(0.2)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
