"""Lets torchvision load the agent's copy of CIFAR-10, whose test labels are blanked.

torchvision checks each batch file against the md5 of the original download, and the
blanked test batch no longer has it, so the starter would stop there. This drops the md5
of the test batch alone from ``CIFAR10.test_list`` (its presence is still checked; every
other file keeps its md5) as ``torchvision.datasets.cifar`` is imported.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

MODULE = "torchvision.datasets.cifar"


class _AfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name != MODULE:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            module.CIFAR10.test_list = [[file, None] for file, _ in module.CIFAR10.test_list]

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


sys.meta_path.insert(0, _AfterImport())
