"""No script keeps a capability, whoever runs the harness: under bubblewrap started by root
a script could unmount the hide list and remount read-only binds writable. Each attempt
below must fail inside every kind and level of sandbox, as root and as an ordinary user,
and what the harness executes must stay out of a script's reach."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from conftest import HOUSE_PRICE, SandboxFactory, run_script
from pytest_mlab.core.errors import SandboxError
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.task_code import call_worker
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec

# Each attempt prints OK or the error it met; every one must fail. None may harm the
# machine if it succeeded (so a broken sandbox fails this test, not the host): the mount
# calls aim at a folder of the probe's own, which is no mount point, so a capability
# shows as EINVAL where a confined script gets EPERM; the device is a null device in the
# workspace; chroot and the ptrace of its own child end with the probe.
PROBE = r'''
import ctypes, errno, json, os, socket, subprocess, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
MS_REMOUNT, MS_BIND, MS_RDONLY = 32, 4096, 1
os.makedirs("not-a-mount", exist_ok=True)


def call(f):
    try:
        f()
        return "OK"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def libc_call(result):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def command(line):
    run = subprocess.run(line, shell=True, capture_output=True, text=True)
    return "OK" if run.returncode == 0 else "failed: " + (run.stderr or run.stdout).strip()[:60]


def ptrace():
    other = subprocess.Popen(["sleep", "30"])
    attached = libc.ptrace(16, other.pid, None, None)  # PTRACE_ATTACH
    error = ctypes.get_errno()
    other.kill()
    if attached != 0:
        raise OSError(error, os.strerror(error))


def raw_socket():
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close()


status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "CapEff": status["CapEff"].strip(), "NoNewPrivs": status["NoNewPrivs"].strip(),
    "attempts": {
        "umount": call(lambda: libc_call(libc.umount2(b"not-a-mount", 0))),
        "remount": call(lambda: libc_call(libc.mount(
            None, b"not-a-mount", None, MS_REMOUNT | MS_BIND | MS_RDONLY, None))),
        "mknod": call(lambda: os.mknod("null", 0o600 | 0o020000, os.makedev(1, 3))),
        "chroot": call(lambda: os.chroot("/tmp")),
        "unshare": command("unshare --user --map-root-user true || unshare --mount true"),
        "ptrace": call(ptrace),
        "raw socket": call(raw_socket),
    },
}))
'''


def _probe(sandbox: LocalSandbox | Any, workspace: Path) -> dict[str, Any]:
    (workspace / "probe.py").write_text(PROBE)
    result = sandbox.run([sys.executable, "probe.py"], timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _assert_confined(report: dict[str, Any]) -> None:
    assert report["CapEff"] == "0000000000000000"
    assert report["NoNewPrivs"] == "1"
    attempts = report["attempts"]
    succeeded = [name for name, got in attempts.items() if got == "OK"]
    assert succeeded == [], attempts
    # EINVAL would mean the call was allowed, and only the target was wrong.
    assert (attempts["umount"], attempts["remount"]) == ("EPERM", "EPERM"), attempts


def test_no_capability_survives_in_either_kind_of_sandbox(
    make_sandbox: SandboxFactory, tmp_path: Path,
) -> None:
    assert os.geteuid() == 0 or not os.environ.get("CI"), "CI runs these as root"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    _assert_confined(_probe(make_sandbox(workspace), workspace))


@pytest.mark.parametrize("level", ["netns", "none"])
def test_the_weaker_levels_drop_every_capability_too(level: str, tmp_path: Path) -> None:
    if not available(level):  # type: ignore[arg-type]
        pytest.skip(f"{level} isolation does not work here")
    sandbox = LocalSandbox(SandboxSpec(tmp_path, isolation=level))
    try:
        _assert_confined(_probe(sandbox, tmp_path))
    finally:
        sandbox.close()


UNPRIVILEGED = r'''
import json, sys
from pathlib import Path
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec
workspace = Path(sys.argv[1])
sandbox = LocalSandbox(SandboxSpec(workspace, isolation="bwrap"))
result = sandbox.run([sys.executable, "probe.py"], timeout=120)
sandbox.close()
print(json.dumps({"isolation": sandbox.isolation, "rc": result.returncode,
                  "stdout": result.stdout, "stderr": result.stderr[-2000:]}))
'''


def test_an_unprivileged_harness_confines_its_scripts_as_well(tmp_path: Path) -> None:
    """The harness as ``nobody``: the system's Python over a copy of the package that user
    can read (the repository may sit in root's home)."""
    if os.geteuid() != 0:
        pytest.skip("makes an unprivileged harness with setpriv, which needs root")
    if not available("bwrap") or not shutil.which("setpriv"):
        pytest.skip("needs bubblewrap and setpriv: apt-get install bubblewrap util-linux")
    shared = Path(os.environ.get("TMPDIR", "/tmp")) / f"mlab-unprivileged-{os.getpid()}"
    try:
        package = Path(__file__).resolve().parents[2] / "pytest_mlab"
        shutil.copytree(package, shared / "pytest_mlab",
                        ignore=shutil.ignore_patterns("__pycache__"))
        workspace = shared / "workspace"
        workspace.mkdir()
        (workspace / "probe.py").write_text(PROBE)
        for path in (shared, *shared.rglob("*")):
            path.chmod(0o777 if path.is_dir() else 0o644)
        run = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
             "/usr/bin/python3", "-I", "-c",
             f"import sys; sys.path.insert(0, {str(shared)!r}); exec({UNPRIVILEGED!r})",
             str(workspace)],
            capture_output=True, text=True, timeout=180, cwd=shared,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        outcome = json.loads(run.stdout)
        assert outcome["isolation"] == "bwrap"
        assert outcome["rc"] == 0, outcome["stderr"]
        _assert_confined(json.loads(outcome["stdout"]))
    finally:
        shutil.rmtree(shared, ignore_errors=True)


UNDO_THE_MOUNTS = r'''
import glob, os, subprocess, sys
hidden, public, roots = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = []
for line in open("/proc/self/mountinfo"):
    point = line.split()[4]
    if point.startswith(hidden) or point == hidden:
        run = subprocess.run(["umount", "-l", point], capture_output=True)
        seen.append("umount " + ("OK" if run.returncode == 0 else "refused"))
found = [p for p in glob.glob(hidden + "/**", recursive=True) if os.path.isfile(p)]
seen.append("hidden files seen: %d" % len(found))
for root in roots:
    run = subprocess.run(["mount", "-o", "remount,rw", root], capture_output=True)
    seen.append("remount " + ("OK" if run.returncode == 0 else "refused"))
    try:
        # An empty .pth: harmless should it ever get through (the test removes it).
        open(os.path.join(root, "mlab-planted.pth"), "w").close()
        seen.append("planted")
    except OSError as exc:
        seen.append("plant refused: " + exc.strerror)
run = subprocess.run(["mount", "-o", "remount,rw", public], capture_output=True)
try:
    open(public, "a").write("poison")
    seen.append("public file changed")
except OSError as exc:
    seen.append("public file refused: " + exc.strerror)
print(" | ".join(seen))
'''


def test_the_mounts_cannot_be_undone_from_inside(
    env: Environment, sandbox_kind: str,
) -> None:
    """The three ways out seen as root: unmount the hide list and read the answers, remount
    the interpreter's tree and plant a .pth for the scorer, remount a public file and
    poison the cache."""
    hidden = next(p for p in HOUSE_PRICE.hidden_paths() if p.is_dir())
    public = sorted(env.workspace.protected)[0]
    roots = sorted({sysconfig.get_paths()["purelib"], *site.getsitepackages()})
    before = {root: sorted(os.listdir(root)) for root in roots if os.path.isdir(root)}
    content = (env.workspace.root / public).read_bytes()
    arguments = json.dumps([str(hidden), public, *roots])
    code = f"import sys; sys.argv[1:] = {arguments}\n" + UNDO_THE_MOUNTS
    try:
        observation = run_script(env, code)
    finally:
        for root in roots:
            Path(root, "mlab-planted.pth").unlink(missing_ok=True)
    assert "ran to completion" in observation, observation
    assert "umount OK" not in observation and "remount OK" not in observation
    assert "hidden files seen: 0" in observation
    assert "planted" not in observation.replace("plant refused", "")
    assert "public file changed" not in observation
    assert {root: sorted(os.listdir(root)) for root in before} == before
    assert (env.workspace.root / public).read_bytes() == content
    assert not env.workspace.changed_protected_files()


MARK = "planted-code-ran"


def _plant(folder: Path, marker: Path, names: tuple[str, ...]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    line = f"open({str(marker)!r} + '-' + __name__, 'w').write({MARK!r})\n"
    for name in names:
        text = f"import os; exec({line!r})\n" if name.endswith(".pth") else line
        (folder / name).write_text(text)


def test_nothing_planted_for_the_scorer_runs_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every place a Python start-up reads code from that is not the interpreter's own
    tree: the working directory (the submission's copy), the user site of the scorer's
    home, PYTHONPATH and PYTHONSTARTUP. With the scorer's start-up none runs; with a plain
    ``python -m`` (the control) they do, so the plants are real."""
    marker = tmp_path / "marker"
    submission, home, extra = tmp_path / "submission", tmp_path / "home", tmp_path / "extra"
    user_site = home / ".local" / Path(site.getusersitepackages()).relative_to(
        site.getuserbase())
    _plant(submission, marker, ("sitecustomize.py", "usercustomize.py", "json.py"))
    _plant(user_site, marker, ("usercustomize.py", "planted.pth"))
    _plant(extra, marker, ("sitecustomize.py", "planted.pth"))
    (extra / "startup.py").write_text(f"open({str(marker)!r} + '-startup', 'w')\n")
    score = tmp_path / "score.py"
    score.write_text("def score(submission, private):\n    return 1.0\n")
    private = tmp_path / "private"
    private.mkdir()
    planted_env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(extra),
                   "PYTHONSTARTUP": str(extra / "startup.py")}
    reply = call_worker("score", score, submission, private, timeout=120, cwd=submission,
                        env=planted_env)
    assert reply.get("score") == 1.0, reply
    assert sorted(p.name for p in tmp_path.glob("marker*")) == []

    control = subprocess.run([sys.executable, "-c", "import json"], cwd=submission,
                             env=planted_env | {"PYTHONPATH": f"{submission}:{extra}"},
                             capture_output=True, timeout=60)
    assert control.returncode == 0
    assert sorted(p.name for p in tmp_path.glob("marker*")), "the control ran no plant"


def test_a_workspace_holding_the_harness_code_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A workspace above a folder on the harness's import path would let a script plant
    a module there for the scorer: no sandbox is made over it."""
    library = tmp_path / "workspace" / "lib"
    library.mkdir(parents=True)
    monkeypatch.syspath_prepend(str(library))
    with pytest.raises(SandboxError, match="which the harness runs code from"):
        LocalSandbox(SandboxSpec(tmp_path / "workspace", isolation="none"))
    inside = library / "inside"
    inside.mkdir()
    LocalSandbox(SandboxSpec(inside, isolation="none")).close()  # below it: nothing to plant
