"""The containers an Ansible playbook or task file starts.

- ``shell``/``command``/``raw`` tasks (a string, or ``cmd:``): their ``docker run``/``podman run`` lines are read
  as command lines (``shmlint.extract.commandline``, the judge of shell scripts), through a mask of the file (the
  task strings kept, every other character blanked: offsets stay the file's, also inside block, folded and quoted
  scalars; ``shmlint.parsers.embedded``).
- ``docker_container``/``podman_container`` tasks: their arguments, read by ``container.py``.

Jinja is rendered by Ansible before the command runs, so a ``{{ expression }}`` is a value unknown here: in a task
string it becomes a shell variable of the same length named after the expression (``{{ shm_size }}`` reads as
``${shm_size_}``), which the command-line reader already treats as a word known at run time, never as a flag (an
options-like name such as ``{{ docker_opts }}`` before the image may carry options: an unknown /dev/shm). ``{% %}``
and ``{# #}`` tags are blanked: an option inside ``{% if %}`` counts as written.
"""

from __future__ import annotations

import re

from shmlint.formats.ansible.tasks import Task, tasks
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Workload
from shmlint.parsers.yamlnodes import Mappings, Node, ScalarNode
from shmlint.signals import Signals
from shmlint.source import SourceText

_SHELL_MODULES = frozenset({"shell", "command", "raw"})
#: Jinja on one line, bounded: an expression longer than this stays as the words it is written with
_JINJA = LazyRegex(r"\{\{[^\n]{0,200}?\}\}|\{%[^\n]{0,200}?%\}|\{#[^\n]{0,200}?#\}")
_NOT_NAME = LazyRegex(r"[^A-Za-z0-9_]")


def extract_ansible(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    """The command lines of the file's shell tasks, then its container modules' containers."""
    from shmlint.extract.dispatch import commands
    from shmlint.parsers.embedded import mask_scalars

    found = list(tasks(documents))
    scripts = [script for task in found if (script := _script(task)) is not None]
    workloads = commands(source, jinja_as_variables(mask_scalars(source, scripts)), signals) if scripts else []
    containers = [task for task in found if task.module not in _SHELL_MODULES]
    if containers:
        from shmlint.formats.ansible.container import container_workload

        m = Mappings()
        workloads += [w for task in containers if (w := container_workload(source, m, task, signals)) is not None]
    return workloads


def _script(task: Task) -> ScalarNode | None:
    """The command a shell task runs: the module's string (free form), or its ``cmd`` argument."""
    if task.module not in _SHELL_MODULES:
        return None
    if isinstance(task.value, ScalarNode):
        return task.value if isinstance(task.value.value, str) else None
    cmd = Mappings().get(task.value, "cmd")
    return cmd if isinstance(cmd, ScalarNode) else None


def jinja_as_variables(masked: str) -> str:
    """Jinja in shell text, length kept: ``{{ x.y }}`` -> ``${x_y___}``, tags and comments blanked."""
    return _JINJA.sub(_as_variable, masked)


def _as_variable(match: re.Match[str]) -> str:
    text = match.group()
    if not text.startswith("{{"):
        return " " * len(text)
    name = _NOT_NAME.sub("_", text[2:-2].strip())
    if not name or name[0].isdigit():
        name = "_" + name
    return "${" + name[: len(text) - 3].ljust(len(text) - 3, "_") + "}"
