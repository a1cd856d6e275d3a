"""The environment a sandboxed program gets: an allowlist, never the harness's own.

Credentials hide under any name (DATABASE_URL, PIP_INDEX_URL, a cloud token), so the
harness's variables are not filtered but left behind: only those below pass, with the
sandbox's own settings and the trial's variables (leased GPUs, seed) on top.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

PASSED_THROUGH = (
    "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
    # Threads and the BLAS kernel: some processors need OPENBLAS_CORETYPE for correct
    # results with older OpenBLAS builds.
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
    "PYTHONHASHSEED", "MLAB_SEED",
)
# OMP_WAIT_POLICY: busy-waiting OpenMP threads slow torch and sklearn many times over
# when trials share the cores.
SANDBOX_ENV = {
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def thread_environ(cores: int) -> dict[str, str]:
    """Thread pools sized to a trial's cores: OpenMP (torch's intra-op pool reads it too),
    MKL, OpenBLAS, numexpr and Accelerate would otherwise each start one thread per core
    of the machine, and trials sharing it would fight."""
    return dict.fromkeys(THREAD_VARIABLES, str(cores))


def sandbox_environ(
    host: Mapping[str, str], trial: Mapping[str, str], *, home: str,
    python_bin: str | None = None,
) -> dict[str, str]:
    """The allowlisted part of ``host``, the sandbox's settings, then ``trial``'s own.

    PATH is ``python_bin`` (the folder, as the sandbox shows it, whose ``python`` is the
    trial's interpreter), then ``trial``'s PATH (an agent's tools), then ``host``'s, which
    stays for the programs it finds."""
    kept = {name: host[name] for name in PASSED_THROUGH if name in host}
    environ = kept | SANDBOX_ENV | {"HOME": home, "TMPDIR": "/tmp"} | dict(trial)
    folders = (python_bin, trial.get("PATH"), host.get("PATH") or os.defpath)
    environ["PATH"] = os.pathsep.join(folder for folder in folders if folder)
    return environ
