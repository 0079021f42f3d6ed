"""The path every format mounts or sizes: the container's /dev/shm."""

from __future__ import annotations

SHM_PATH = "/dev/shm"


def is_shm_path(path: str) -> bool:
    """``/dev/shm`` however it is written (``/dev/shm/``, surrounding blanks); ``/dev/shm/x`` is another path."""
    return path.strip().rstrip("/") == SHM_PATH
