"""What makes a YAML file an Ansible playbook or task file, and its tasks.

A playbook is a list of plays (``hosts``, or ``import_playbook``); a task file (``roles/*/tasks/``, handlers) is a
list of tasks. A task is a mapping of task keywords (``name``, ``register``, ``when``, ``become``...) and exactly
one module key (``shell``, ``community.docker.docker_container``), or a ``block`` of tasks. Many YAML lists have
``name`` keys, so a file is Ansible only when every item is a play or a task and something only Ansible writes is
there: a play, a keyword other than ``name``, a collection's or a well-known module's name, or a folder Ansible
reads tasks from.
The keywords are ansible-core's (``Base``, ``Conditional``, ``Taggable``, ``Task``, ``Block``, ``Play``
attributes); only the top-level items are looked at to decide, so a file that is not Ansible costs a glance.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Node, ScalarNode, SequenceNode, scalar

#: keywords every task, block and play may carry
_COMMON = frozenset(
    {
        "name", "become", "become_user", "become_method", "become_flags", "become_exe", "check_mode", "collections",
        "connection", "debugger", "diff", "environment", "ignore_errors", "ignore_unreachable", "module_defaults",
        "no_log", "port", "remote_user", "run_once", "tags", "throttle", "timeout", "vars", "when", "any_errors_fatal",
    }
)  # fmt: skip
_TASK = _COMMON | frozenset(
    {
        "action", "args", "async", "changed_when", "delay", "delegate_facts", "delegate_to", "failed_when",
        "local_action", "loop", "loop_control", "notify", "poll", "register", "retries", "until", "listen",
        "block", "rescue", "always",
    }
)  # fmt: skip
_PLAY = _COMMON | frozenset(
    {
        "hosts", "tasks", "pre_tasks", "post_tasks", "handlers", "roles", "vars_files", "vars_prompt",
        "gather_facts", "gather_subset", "gather_timeout", "fact_path", "serial", "strategy", "max_fail_percentage",
        "force_handlers", "order",
    }
)  # fmt: skip
#: keywords no other list of ``name`` mappings is likely to use
_TELLING = _TASK - {"name", "vars", "tags", "environment", "args", "action", "timeout", "port", "notify", "delay"}
#: modules whose names no other list of ``name`` mappings is likely to use as a key (ansible.builtin's and the
#: container modules read here)
_TELLING_MODULES = frozenset(
    {
        "set_fact", "include_tasks", "import_tasks", "include_role", "import_role", "include_vars", "debug",
        "get_url", "unarchive", "lineinfile", "blockinfile", "apt", "apt_key", "apt_repository", "yum",
        "yum_repository", "dnf", "package", "pip", "systemd", "systemd_service", "service", "template", "wait_for",
        "assert", "sysctl", "modprobe", "docker_image", "docker_container", "podman_container", "podman_image",
    }
)  # fmt: skip
_PLAYBOOK_IMPORTS = frozenset({"import_playbook", "ansible.builtin.import_playbook"})
#: the old ``include``, of a playbook in a playbook and of a task file in a task list
_INCLUDE = "include"
_TASK_LISTS = ("pre_tasks", "tasks", "post_tasks", "handlers")
_BLOCK_LISTS = ("block", "rescue", "always")
#: the folders Ansible reads task lists and playbooks from
_ANSIBLE_FOLDERS = frozenset({"tasks", "handlers", "playbooks"})
#: a module key: ``shell``, or a collection's ``namespace.collection.module``
_MODULE_NAME = LazyRegex(r"[a-z_][a-z0-9_]{0,80}(?:\.[a-z_][a-z0-9_]{0,80}\.[a-z_][a-z0-9_]{0,80})?\Z")
#: the modules shmlint reads, by every name a task may call them (short, ``ansible.builtin``, ``ansible.legacy``,
#: the collection's)
MODULES = {
    **{f"{prefix}{name}": name for prefix in ("", "ansible.builtin.", "ansible.legacy.") for name in ("shell", "command", "raw")},
    **{name: "docker_container" for name in ("docker_container", "community.docker.docker_container")},
    **{name: "podman_container" for name in ("podman_container", "containers.podman.podman_container")},
}  # fmt: skip


class Task(NamedTuple):
    """A task that calls a module shmlint reads: ``module`` is its short name, ``key`` and ``value`` the module
    key and its arguments as the file writes them, ``task`` the whole task mapping."""

    task: MappingNode
    module: str
    key: ScalarNode
    value: Node
    name: str
    variables: tuple[tuple[str, str], ...] = ()  # the plain variables it sees (``variables.py``)
    #: the ``module_defaults`` mappings of the task, its blocks and its play, nearest first (``defaults_for``)
    defaults: tuple[Node, ...] = ()


def is_ansible(path: str, documents: list[Node]) -> bool:
    """One document, a list of plays or of tasks, with something only Ansible writes (or in an Ansible folder)."""
    if len(documents) != 1 or not isinstance(documents[0], SequenceNode) or not documents[0].value:
        return False
    keys = [_keys(item) for item in documents[0].value]
    known = [k for k in keys if k is not None]
    if len(known) != len(keys):
        return False
    plays = [_is_play(k) for k in known if _INCLUDE not in k]  # an include belongs in either list
    if plays and all(plays):
        return True
    if any(plays):
        return False  # plays and tasks do not mix in one file
    modules = [_module_key(k) for k in known]
    if not all(module is not None or _is_block(k) for module, k in zip(modules, known, strict=True)):
        return False
    telling = any(k & _TELLING or any(key.startswith("with_") for key in k) for k in known)
    named = any(module is not None and ("." in module or module in _TELLING_MODULES) for module in modules)
    folders = set(os.path.normpath(path).split(os.sep)[:-1])
    return telling or named or bool(folders & _ANSIBLE_FOLDERS)


def _keys(node: Node) -> frozenset[str] | None:
    """A mapping's keys; None for anything else, or when a key is not a string (no task or play has one)."""
    if not isinstance(node, MappingNode):
        return None
    keys = [key.value for key, _ in node.value if isinstance(key, ScalarNode) and isinstance(key.value, str)]
    return frozenset(keys) if len(keys) == len(node.value) else None


def _is_play(keys: frozenset[str]) -> bool:
    if keys & _PLAYBOOK_IMPORTS:
        return len(keys & _PLAYBOOK_IMPORTS) == 1 and not keys - _PLAYBOOK_IMPORTS - _TASK
    return "hosts" in keys and not keys - _PLAY


def _is_block(keys: frozenset[str]) -> bool:
    return "block" in keys and not keys - _TASK


def _module_key(keys: frozenset[str]) -> str | None:
    """The one key of a task that is not a keyword (its module), when it has exactly one shaped like a module."""
    others = [key for key in keys - _TASK if not key.startswith("with_")]
    if len(others) != 1 or not _MODULE_NAME.match(others[0]):
        return None
    return others[0]


def tasks(documents: list[Node]) -> Iterator[Task]:
    """The tasks of an Ansible file (``is_ansible``) that call a module in ``MODULES``, in the file's order: a
    play's task lists and handlers, and the tasks inside blocks however deep, each once (a stack, not recursion:
    the work is the file's nodes, which the YAML reader bounds), each with the plain ``vars`` of the play, blocks
    and task around it."""
    from shmlint.formats.ansible.variables import plain

    (root,) = documents
    stack: list[tuple[Node, dict[str, str], tuple[Node, ...]]] = [(item, {}, ()) for item in reversed(root.value)]
    seen: set[int] = set()
    while stack:
        node, inherited, above = stack.pop()
        if not isinstance(node, MappingNode) or id(node) in seen:
            continue
        seen.add(id(node))
        pairs = {key.value: (key, value) for key, value in node.value if isinstance(key, ScalarNode)}
        own = {**inherited, **plain(pairs["vars"][1])} if "vars" in pairs else inherited
        defaults = (pairs["module_defaults"][1], *above) if "module_defaults" in pairs else above
        nested = [value for name in (*_TASK_LISTS, *_BLOCK_LISTS) if (value := pairs.get(name, (None, None))[1])]
        for children in reversed(nested):
            if isinstance(children, SequenceNode):
                stack.extend((child, own, defaults) for child in reversed(children.value))
        for name, (key, value) in pairs.items():
            module = MODULES.get(name)
            if module is not None:
                title = scalar(pairs["name"][1]) if "name" in pairs else None
                yield Task(node, module, key, value, title or "", tuple(own.items()), defaults)
                break


#: the ``module_defaults`` keys that give a container module's arguments: its names and its collection's group
_DEFAULTS_KEYS = {
    "docker_container": (
        *("docker_container", "community.docker.docker_container"),
        *("group/community.docker.docker", "group/docker"),
    ),
    "podman_container": ("podman_container", "containers.podman.podman_container", "group/containers.podman.podman"),
}


def defaults_for(task: Task) -> list[Node]:
    """The argument mappings ``module_defaults`` gives the task's module, nearest first (a task's own, its blocks',
    its play's): the arguments the task does not write itself."""
    found = []
    for defaults in task.defaults:
        if isinstance(defaults, MappingNode):
            pairs = {key.value: value for key, value in defaults.value if isinstance(key, ScalarNode)}
            found += [pairs[key] for key in _DEFAULTS_KEYS.get(task.module, ()) if key in pairs]
    return found
