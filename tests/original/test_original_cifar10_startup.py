"""cifar10's startup module with the real torchvision, in the environment the task's
overlay installs (issue 41): every CIFAR-10 file is loaded without its md5, so a
synthetic bundle loads and nothing is downloaded, and torchvision imports beside a torch
its C++ library does not load with (the CPU wheel of torch 2.13), while a torchvision
whose operators exist is left as it is."""

from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pytest_mlab.core.original_shims import write_startup
from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.env.task_env import env_python, make_task_env, plan_env
from pytest_mlab.env.task_requirements import TaskEnvError

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
STARTUP = OVERLAYS / "startup" / "cifar10.py"
TRAIN_IMAGES, TEST_IMAGES = 4, 3

# Loads both splits as the starter does; a download is refused, and the proxy makes any
# other fetch fail at once rather than wait on the network.
LOAD = f"""\
import sys
import torchvision.datasets.cifar as cifar

def refuse(*args, **kwargs):
    raise SystemExit("torchvision tried to download CIFAR-10")

cifar.download_and_extract_archive = refuse
train = cifar.CIFAR10(sys.argv[1], train=True, download=True)
test = cifar.CIFAR10(sys.argv[1], train=False, download=True)
assert (len(train), len(test)) == ({5 * TRAIN_IMAGES}, {TEST_IMAGES}), (len(train), len(test))
print(train.classes[1], test[2][1])
"""

# As a torchvision whose C++ library loaded: both operators exist before it is imported.
LOADED = """\
import torch
library = torch.library.Library("torchvision", "FRAGMENT")
library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
import torchvision
print("imported")
"""


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    plan = plan_env(read_overlay(OVERLAYS / "cifar10.toml"))
    try:
        env = make_task_env(tmp_path_factory.mktemp("cache"), plan)
    except TaskEnvError as error:
        pytest.skip(f"cifar10's environment (torchvision) cannot be installed here: {error}")
    return env_python(env)


@pytest.fixture(scope="module")
def startup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_startup(STARTUP, tmp_path_factory.mktemp("shims"))


def _batch(path: Path, images: int, name: str) -> None:
    pixels = np.random.default_rng(images).integers(0, 256, (images, 3072), dtype=np.uint8)
    content = {"data": pixels, "labels": [i % 10 for i in range(images)], "batch_label": name,
               "filenames": [f"{i}.png" for i in range(images)]}
    path.write_bytes(pickle.dumps(content, protocol=2))


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    """A CIFAR-10 folder of the original's layout whose files have none of its md5s."""
    folder = tmp_path / "data" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    for number in range(1, 6):
        _batch(folder / f"data_batch_{number}", TRAIN_IMAGES, f"training batch {number} of 5")
    _batch(folder / "test_batch", TEST_IMAGES, "testing batch 1 of 1")
    meta = {"label_names": [f"class-{i}" for i in range(10)], "num_cases_per_batch": 4}
    (folder / "batches.meta").write_bytes(pickle.dumps(meta, protocol=2))
    return folder.parent


def _run(python: Path, code: str, *args: str,
         path: Path | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env |= {"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run([str(python), "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.slow
def test_torchvision_loads_a_synthetic_cifar10_and_downloads_nothing(
    python: Path, startup: Path, synthetic: Path,
) -> None:
    done = _run(python, LOAD, str(synthetic), path=startup)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["class-1", "2"]


@pytest.mark.slow
def test_a_torchvision_whose_operators_exist_is_left_as_it_is(
    python: Path, startup: Path,
) -> None:
    # Defining either operator again would raise: the module defines only missing ones.
    done = _run(python, LOADED, path=startup)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["imported"]


# As torchvision's own: each file with the md5 of the original download.
STAND_IN = """\
class CIFAR10:
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names",
            "md5": "5ff9c542aee3614f3951f8cda6e48888"}
"""


def test_no_cifar10_file_keeps_its_md5(startup: Path, tmp_path: Path) -> None:
    library = tmp_path / "torchvision" / "datasets"
    library.mkdir(parents=True)
    for folder in (library.parent, library):
        (folder / "__init__.py").write_text("")
    (library / "cifar.py").write_text(STAND_IN)
    code = ("from torchvision.datasets.cifar import CIFAR10 as c; "
            "print(repr((c.train_list, c.test_list, c.meta)))")
    done = _run(Path(sys.executable), code, path=Path(f"{startup}{os.pathsep}{tmp_path}"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert ast.literal_eval(done.stdout) == (
        [["data_batch_1", None]], [["test_batch", None]],
        {"filename": "batches.meta", "key": "label_names", "md5": None})


def test_a_process_that_never_imports_torchvision_does_not_import_torch(
    startup: Path,
) -> None:
    done = _run(Path(sys.executable), "import sys; print('torch' in sys.modules)",
                path=startup)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False"]
