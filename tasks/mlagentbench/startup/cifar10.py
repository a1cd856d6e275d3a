"""Lets the trial's scripts load the agent's copy of CIFAR-10 with torchvision, and import
torchvision at all beside a torch its C++ library was not built for.

torchvision checks every CIFAR-10 file against the md5 of the original download, and with
``download=True`` downloads the archive again when one differs. The agent's test batch is
blanked, and a synthetic bundle's files are not the original's, so each would fail there
(and the sandbox has no network); the harness checks the bundle's files by sha256 itself.
This drops the md5 of every file of ``CIFAR10`` (``train_list``, ``test_list``, ``meta``
and the archive's ``tgz_md5``, which preparing from a bundle downloads) as
``torchvision.datasets.cifar`` is imported; each must still be there.

torchvision 0.28 registers fake kernels for its ``nms`` and ``qnms`` operators whether or
not its C++ library, which defines them, loaded: beside a torch that library does not
load with (the CPU wheel of torch 2.13), ``import torchvision`` fails with "operator
torchvision::nms does not exist". So just before ``torchvision._meta_registrations`` runs,
after ``torchvision.extension`` has tried the library, the two schemas are defined where
they are missing; calling ``nms`` then still fails, with torchvision's own sentence that
its C++ operators did not load. Where the library loaded, nothing is defined. torch is
imported only once torchvision is, never by a process that does not use it.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

CIFAR = "torchvision.datasets.cifar"
META_REGISTRATIONS = "torchvision._meta_registrations"
SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
_libraries: list[object] = []
# A torch.library.Library takes its definitions back when it is collected.


def _drop_md5s(module: ModuleType) -> None:
    cifar = module.CIFAR10
    cifar.train_list = [[file, None] for file, _ in cifar.train_list]
    cifar.test_list = [[file, None] for file, _ in cifar.test_list]
    cifar.meta = {**cifar.meta, "md5": None}
    cifar.tgz_md5 = None


def _define_missing_ops(module: ModuleType) -> None:
    import torch

    namespace = torch.ops.torchvision
    if hasattr(namespace, "nms"):
        return
    library = torch.library.Library("torchvision", "FRAGMENT")  # type: ignore[no-untyped-call]
    for name, schema in SCHEMAS.items():
        if not hasattr(namespace, name):
            library.define(schema)  # type: ignore[no-untyped-call]
    _libraries.append(library)


BEFORE: dict[str, Callable[[ModuleType], None]] = {META_REGISTRATIONS: _define_missing_ops}
AFTER: dict[str, Callable[[ModuleType], None]] = {CIFAR: _drop_md5s}


class _AroundImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in BEFORE and name not in AFTER:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if name in BEFORE:
                BEFORE[name](module)
            run(module)
            if name in AFTER:
                AFTER[name](module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


sys.meta_path.insert(0, _AroundImport())
