"""The path every format mounts or sizes: the container's /dev/shm."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.sizes import DEFAULT_SHM_BYTES

if TYPE_CHECKING:
    from shmlint.model import Size

SHM_PATH = "/dev/shm"


def is_shm_path(path: str) -> bool:
    """``/dev/shm`` however it is written (``/dev/shm/``, surrounding blanks); ``/dev/shm/x`` is another path."""
    return path.strip().rstrip("/") == SHM_PATH


def docker_namespace_size(size: Size) -> Size:
    """An IPC namespace's size as docker reads it (``--shm-size``, compose's and Ansible's ``shm_size``): its API
    reads a ShmSize of 0 as not set, the daemon's 64 MiB default."""
    return size._replace(bytes=DEFAULT_SHM_BYTES, runtime_default=True) if size.bytes == 0 else size
