"""Where the Ansible fixer writes (``Workload.target`` of a ``docker_container``/``podman_container`` task). Plain
data, so it crosses process boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from shmlint.source import Span


class AnsibleTarget(NamedTuple):
    """The module's argument mapping by its offset in the file, and the value of its own ``shm_size`` when it has
    one."""

    module_start: int
    shm_size: Span | None = None
