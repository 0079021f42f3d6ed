"""IPC modes: docker/podman ``--ipc`` and compose ``ipc:`` read by one table.

The IPC namespace owns /dev/shm, so the mode decides whose /dev/shm a container sees: its own (private,
shareable, unset), the host's, another container's, or none at all.
"""

from __future__ import annotations

from shmlint.model import ShmKind
from shmlint.named_tuple import NamedTuple

#: modes that keep the container's own namespace and so its own /dev/shm at the size it is given
_OWN = frozenset({"", "private", "shareable"})


class IpcMode(NamedTuple):
    """What an IPC mode means for /dev/shm."""

    kind: ShmKind | None  # None: the container's own /dev/shm
    service: str | None = None  # compose ``service:<name>``: the service whose namespace (and /dev/shm) it joins


def ipc_mode(mode: str) -> IpcMode:
    """The meaning of ``--ipc=<mode>`` / ``ipc: <mode>`` (docker, podman and compose spell modes alike)."""
    text = mode.strip()
    lowered = text.lower()
    if lowered in _OWN:
        return IpcMode(None)
    if lowered == "host":
        return IpcMode(ShmKind.HOST_IPC)
    if lowered == "none":
        return IpcMode(ShmKind.NONE)
    if lowered.startswith("service:"):
        return IpcMode(ShmKind.SHARED, text.partition(":")[2].strip())
    if lowered.startswith(("container:", "ns:")):  # another container's namespace; ``ns:`` is podman's path form
        return IpcMode(ShmKind.SHARED)
    return IpcMode(ShmKind.UNKNOWN)  # a mode the runtime refuses: shmlint cannot say what the container gets
