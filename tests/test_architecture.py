"""The shape of the code: small modules and functions, agents on the public API only,
and a public API that is typed, complete and cheap to import. The layers themselves are
checked by import-linter (``lint-imports``, contracts in pyproject.toml) in scripts/test.sh.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

import pytest_mlab

REPO = Path(__file__).parent.parent
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60


def _python_files(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((REPO / folder).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "pytest_mlab"}


def test_every_package_is_in_the_built_distribution() -> None:
    """A folder of the package left out of pyproject's list imports here (the checkout is on
    the path) and fails in a built install, such as the images'."""
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    package = REPO / "pytest_mlab"
    found = {".".join(init.parent.relative_to(REPO).parts) for init in package.rglob("__init__.py")}
    assert found - listed == set()


def test_modules_and_functions_stay_small() -> None:
    too_big = []
    for path in _python_files("pytest_mlab", "agents", "tasks"):
        text = path.read_text()
        rel = path.relative_to(REPO)
        if (lines := len(text.splitlines())) > MAX_MODULE_LINES:
            too_big.append(f"{rel}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_big.append(f"{rel}:{node.lineno} {node.name}(): {length} lines")
    assert too_big == []


def test_example_agents_use_only_the_public_api() -> None:
    # Task code (an example task's prepare.py and score.py) may use the task helpers too.
    task_code = re.compile(r"pytest_mlab(\.taskkit\.[a-z_]+)?$")
    for path in _python_files("tests/examples"):
        if path.name in ("prepare.py", "score.py"):
            assert all(task_code.match(name) for name in _imports(path)), path
        else:
            assert _imports(path) <= {"pytest_mlab"}, path


def test_built_in_agents_use_the_public_api_and_core_helpers_only() -> None:
    allowed = re.compile(r"pytest_mlab(\.core\.[a-z_]+)?$")
    for path in _python_files("agents"):
        wrong = [name for name in _imports(path) if not allowed.match(name)]
        assert wrong == [], f"{path.name} imports {wrong}"


def test_every_public_name_resolves() -> None:
    for name in pytest_mlab.__all__:
        assert getattr(pytest_mlab, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        pytest_mlab.nothing_here  # noqa: B018


def test_importing_the_public_api_pulls_in_nothing_heavy() -> None:
    probe = ("import sys, pytest_mlab; heavy = {'pytest', 'pydantic', 'litellm', 'torch'}; "
             "print(sorted(heavy & set(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"


def test_action_names_are_the_actions() -> None:
    from pytest_mlab.env.actions import LLM_ACTIONS, LOW_LEVEL_ACTIONS, REQUEST_HELP, RUN_COMMAND

    actions = [*LOW_LEVEL_ACTIONS, *LLM_ACTIONS, REQUEST_HELP, RUN_COMMAND]
    assert set(get_args(pytest_mlab.ActionName)) == {action.name for action in actions}


@pytest.mark.slow
def test_the_readme_agent_type_checks_and_loads(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Writing an agent", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) <= 25
    agent = tmp_path / "readme_agent.py"
    agent.write_text("from __future__ import annotations\n\n" + code + (
        "\n\nfrom pytest_mlab import Agent\n\n_checked: type[Agent] = FixOnceAgent\n"
    ))
    # MYPYPATH: an editable install hides the package from mypy; a real one has py.typed.
    cache = REPO / ".mypy_cache" / "readme"
    # Errors inside pytest_mlab are silenced, as for an installed package: only the agent counts.
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", f"--cache-dir={cache}",
                           "--follow-imports=silent",
                           str(agent)],
                          capture_output=True, text=True, cwd=tmp_path,
                          env=os.environ | {"MYPYPATH": str(REPO)})
    assert mypy.returncode == 0, mypy.stdout
    sys.path.insert(0, str(tmp_path))
    try:
        from pytest_mlab.trial.agents import load_agent

        assert load_agent("readme_agent:FixOnceAgent").uses_llm
    finally:
        sys.path.remove(str(tmp_path))


def test_no_module_imports_itself_round_a_cycle() -> None:
    # import-linter's layers keep folders apart; this keeps modules within a folder apart.
    import grimp

    graph = grimp.build_graph("pytest_mlab")
    cycles = [
        (module, other) for module in sorted(graph.modules) if module.startswith("pytest_mlab.")
        for other in graph.find_modules_directly_imported_by(module)
        if other != module and other.startswith("pytest_mlab.")
        and graph.chain_exists(importer=other, imported=module)
    ]
    assert cycles == []


def test_every_package_folder_is_one_the_wheel_ships() -> None:
    """pyproject.toml names the packages one by one: a sub-package it leaves out works in
    this checkout (an editable install finds it by its folder) and is missing from a wheel."""
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for p in (REPO / "pytest_mlab").rglob("__init__.py")}
    assert found - listed == set()
