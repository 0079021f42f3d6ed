"""The containers an Ansible playbook or task file starts.

- ``shell``/``command``/``raw`` tasks (a string, or ``cmd:``): their ``docker run``/``podman run`` lines are read
  as command lines (``shmlint.extract.commandline``, the judge of shell scripts), through a mask of the file (the
  task strings kept, every other character blanked: offsets stay the file's, also inside block, folded and quoted
  scalars; ``shmlint.parsers.embedded.yaml_scalars``).
- ``docker_container``/``podman_container`` tasks: their arguments, read by ``container.py``.

Jinja is rendered by Ansible before the command runs, so a ``{{ expression }}`` is a value unknown here: in a task
string it becomes a shell variable of the same length (``jinja.py``), which the command-line reader already treats
as a word known at run time, never as a flag (an options-like name such as ``{{ docker_opts }}`` before the image
may carry options: an unknown /dev/shm). ``{% %}`` and ``{# #}`` tags are blanked: an option inside ``{% if %}``
counts as written.
"""

from __future__ import annotations

from collections.abc import Callable

from shmlint.formats.ansible.jinja import jinja_as_variables
from shmlint.formats.ansible.tasks import Task, tasks
from shmlint.model import Notice, Workload
from shmlint.parsers.programs import ENGINE_CLIS, program_name
from shmlint.parsers.yamlnodes import Mappings, Node, ScalarNode, scalar, sequence
from shmlint.signals import Signals
from shmlint.source import SourceText

_SHELL_MODULES = frozenset({"shell", "command", "raw"})


def extract_ansible(
    source: SourceText, documents: list[Node], signals: Signals, role: Callable[[], dict[str, str]] | None = None
) -> tuple[list[Workload], list[Notice]]:
    """The command lines of the file's shell tasks, then its container modules' containers; a notice for each
    task that starts a container in a way not read here. ``role`` gives the variables of the role the file is
    in, read only when a container module needs them."""
    from shmlint.extract.commandline import ShellText
    from shmlint.extract.dispatch import commands
    from shmlint.parsers.embedded.yaml_scalars import mask_scalars

    found = list(tasks(documents))
    notices = [Notice(source.path, why) for task in found if (why := _not_read(task)) is not None]
    scripts = [script for task in found if (script := _script(task)) is not None]
    spans = sorted((node.start_mark.index, node.end_mark.index) for node in scripts)
    shell = ShellText(jinja_as_variables(mask_scalars(source, scripts), spans)) if scripts else None
    workloads = commands(source, shell, signals) if shell is not None else []
    containers = [task for task in found if task.module not in _SHELL_MODULES]
    if containers:
        from shmlint.formats.ansible.container import container_workload

        m = Mappings()
        known = role() if role is not None else {}
        workloads += [
            w for task in containers if (w := container_workload(source, m, task, signals, known)) is not None
        ]
    return workloads, notices


def _not_read(task: Task) -> str | None:
    """Why a task that starts a container is not read: a command given as ``argv`` items, or a container module
    given ``key=value`` text."""
    line = task.key.start_mark.line + 1
    if task.module in _SHELL_MODULES:
        argv = [scalar(item) or "" for item in sequence(Mappings().get(task.value, "argv"))[:2]]
        if len(argv) == 2 and program_name(argv[0]) in ENGINE_CLIS and argv[1] in ("run", "create"):
            return f"line {line}: a {task.module} task's argv list starting a container is not read"
        return None
    if isinstance(task.value, ScalarNode) and task.value.value:
        return f"line {line}: {task.module} arguments written as key=value text are not read"
    return None


def _script(task: Task) -> ScalarNode | None:
    """The command a shell task runs: the module's string (free form), or its ``cmd`` argument."""
    if task.module not in _SHELL_MODULES:
        return None
    if isinstance(task.value, ScalarNode):
        return task.value if isinstance(task.value.value, str) else None
    cmd = Mappings().get(task.value, "cmd")
    return cmd if isinstance(cmd, ScalarNode) else None
