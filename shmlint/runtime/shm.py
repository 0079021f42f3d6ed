"""The path every format mounts or sizes: the container's /dev/shm."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.sizes import DEFAULT_SHM_BYTES

if TYPE_CHECKING:
    from shmlint.model import Size

SHM_PATH = "/dev/shm"
#: a path in the host's working or home folder, as a command line writes it (``$PWD``, ``${HOME}/x``, ``$(pwd)``)
_HOST_FOLDER = LazyRegex(r"(\$\{?(PWD|HOME)\}?|\$\(pwd\)|`pwd`|~)(?=/|:|$)")


def is_shm_path(path: str) -> bool:
    """``/dev/shm`` however it is written (``/dev/shm/``, surrounding blanks, ``//dev/shm``, ``/dev/./shm``: the
    runtimes clean a mount's path); ``/dev/shm/x`` is another path."""
    return clean_container_path(path) == SHM_PATH


def may_be_shm_path(path: str, source: str = "") -> bool:
    """Whether a mount target the shell still fills in may be /dev/shm (or a folder that holds it): what is written
    before its first expansion leads there (``$SPEC``, ``/dev/$X``, ``/dev/shm/$EMPTY``), unlike
    ``/workspaces/${name}``; not a folder of the host's working or home folder (``$PWD/x``, ``~``), nor one mounted
    at its own host path (``-v $D:$D``: ``source``). A path with no expansion is what it is (``is_shm_path``)."""
    cut = min((at for at in (path.find("$"), path.find("`")) if at >= 0), default=-1)
    if cut < 0 or _HOST_FOLDER.match(path.strip()) or (source and source.strip() == path.strip()):
        return False
    written = path[:cut].strip().replace("//", "/")
    return SHM_PATH.startswith(written) or written == SHM_PATH + "/"


def clean_container_path(path: str) -> str:
    """An absolute container path as the runtimes clean it (Go's ``filepath.Clean``: repeated slashes, ``.`` and
    ``..`` resolved, no trailing slash; POSIX's kept ``//`` prefix too); a relative one stripped only, and one the
    shell still fills in (``/dev/shm/$X/..``) only of its trailing slashes: what ``..`` leaves is not known."""
    path = path.strip()
    if not path.startswith("/"):
        return path
    if "$" in path or "`" in path:
        return path.rstrip("/") or "/"
    return posixpath.normpath("/" + path.lstrip("/"))


def docker_namespace_size(size: Size) -> Size:
    """An IPC namespace's size as docker reads it (``--shm-size``, compose's and Ansible's ``shm_size``): its API
    reads a ShmSize of 0 as not set, the daemon's 64 MiB default."""
    return size._replace(bytes=DEFAULT_SHM_BYTES, runtime_default=True) if size.bytes == 0 else size
