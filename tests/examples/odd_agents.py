"""Agents that leave odd things in the workspace, written by a script in the sandbox: names
that are not UTF-8 or hold escape sequences, a folder chain thousands deep, a path past
PATH_MAX, a FIFO, a socket, link loops, a file named like a scorer's scratch folder, and
many files. Loaded as ``odd_agents:Class`` by tests/adversarial/test_workspace_contents.py."""

from __future__ import annotations

from typing import ClassVar

from pytest_mlab import AgentContext, Environment

ESCAPES = "\x1b[31mRED\x1b]8;;http://x\x1b\\LINK\x1b]8;;\x1b\\\rOVER\x07"
"""An ANSI colour, an OSC-8 link, a carriage return and a bell, as a script prints them."""

DEEP = """
import os
os.mkdir('deep')
os.chdir('deep')
for _ in range(5000):
    os.mkdir('d')
    os.chdir('d')
open('bottom.txt', 'w').write('at the bottom\\n')
"""

LONG = """
import os
os.mkdir('long')
os.chdir('long')
for n in range(20):
    name = 'abcdefghijklmnopqrst'[n] * 250
    os.mkdir(name)
    os.chdir(name)
open('end.txt', 'w').write('past PATH_MAX\\n')
"""

NAMES = """
import os, socket
open(b'\\xff.txt', 'wb').write(b'not UTF-8\\n')
open('esc\\x1b[31m.txt', 'w').write('an escape in a name\\n')
os.mkfifo('pipe')
os.symlink('loop', 'loop')
os.symlink('b', 'a')
os.symlink('a', 'b')
os.symlink('/nonexistent/target', 'dangling')
os.mkdir('tree')
os.symlink('..', 'tree/up')
open('.mlab-scoring', 'w').write('the scorer\\'s folder name\\n')
server = socket.socket(socket.AF_UNIX)
server.bind('sock')
print(ESCAPES)
"""

MANY = """
import os
os.mkdir('many')
for n in range(100_000):
    open(f'many/{n}', 'w').close()
print('made', len(os.listdir('many')))
"""


class _Leaves:
    """Runs the starter, then each script (a step apiece), then gives its final answer."""

    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False
    SCRIPTS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run(self, env: Environment) -> str:
        env.execute("Execute Script", script_name=env.entry)
        for n, script in enumerate(self.SCRIPTS):
            name = f"odd{n}.py"
            env.execute("Write File", file_name=name,
                        content=f"ESCAPES = {ESCAPES!r}\n{script}")
            env.execute("Execute Script", script_name=name)
        env.execute("Final Answer", final_answer=f"left odd things {ESCAPES}")
        return "left odd things"


class EverythingAgent(_Leaves):
    """Leaves every odd thing at once (the names in their own step, so the report's diff
    of that step names them)."""

    SCRIPTS = (NAMES, DEEP, LONG, MANY)


class NonUtf8Agent(_Leaves):
    SCRIPTS = ("open(b'\\xff.txt', 'wb').write(b'x\\n')\n",)


class EscapeNameAgent(_Leaves):
    SCRIPTS = ("open('esc\\x1b[31m.txt', 'w').write('x\\n')\n",)


class DeepAgent(_Leaves):
    SCRIPTS = (DEEP,)


class LongPathAgent(_Leaves):
    SCRIPTS = (LONG,)


class LinkLoopAgent(_Leaves):
    SCRIPTS = ("import os\nos.symlink('loop', 'loop')\n",)


class ScratchNameAgent(_Leaves):
    """A file named like the folder a timing scorer makes for its child."""

    SCRIPTS = ("open('.mlab-scoring', 'w').write('mine\\n')\n",)
