"""Where the Ansible fixer writes: a ``docker_container``/``podman_container`` task's module arguments."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple
from shmlint.source import Span


class AnsibleTarget(NamedTuple):
    """The module's argument mapping by its offset in the file (plain data that crosses processes), and the value
    of its own ``shm_size`` when it has one."""

    module_start: int
    shm_size: Span | None = None
