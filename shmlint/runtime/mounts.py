"""Mount specifications: docker/podman ``--tmpfs``, ``--mount`` and ``-v``, compose ``tmpfs:`` and ``volumes:``.

The command line and compose share the grammars (``path[:options]`` for tmpfs, ``[source:]target[:mode]`` for
volumes, ``key=value,...`` for options), so both read them here; each format then builds its own messages and
spans from the offsets these parsers keep.
"""

from __future__ import annotations

import posixpath

from shmlint.lazy_regex import LazyRegex
from shmlint.model import ShmKind, ShmMechanism, ShmSource, Size
from shmlint.named_tuple import NamedTuple
from shmlint.runtime.shm import SHM_PATH, clean_container_path, is_shm_path
from shmlint.source import Span

_VOLUME_MODE = r"(ro|rw|z|Z|shared|slave|private|rshared|rslave|rprivate|nocopy|cached|delegated|consistent)"
_VOLUME_MODES = LazyRegex(rf"^{_VOLUME_MODE}(,{_VOLUME_MODE})*$")
#: a volume source that is a host path (a bind mount), not a volume name
_HOST_PATH_STARTS = ("/", ".", "~")


class Option(NamedTuple):
    """One ``key=value`` of a comma-separated option list, with where its value is written."""

    key: str  # as written, blanks removed
    value: str  # blanks removed; empty for a bare ``key``
    start: int  # offset of the value (after blanks) in the text that was split
    has_value: bool  # written with ``=``


def split_options(text: str, offset: int = 0) -> tuple[Option, ...]:
    """``size=1g,mode=1777`` -> options; ``offset`` is added to every position (where ``text`` starts)."""
    options: list[Option] = []
    for item in text.split(","):
        key, equals, value = item.partition("=")
        start = offset + len(key) + len(equals)
        stripped = value.strip()
        options.append(Option(key.strip(), stripped, start + (len(value) - len(value.lstrip())), bool(equals)))
        offset += len(item) + 1
    return tuple(options)


def find_option(options: tuple[Option, ...], key: str) -> Option | None:
    """The last ``key=...``, the one the kernel's mount and docker's field parser keep (a bare ``key`` without a
    value does not count)."""
    return next((option for option in reversed(options) if option.has_value and option.key == key), None)


class Tmpfs(NamedTuple):
    """``/dev/shm:size=1g,mode=1777`` (``--tmpfs`` and compose's short ``tmpfs:``)."""

    target: str
    has_options: bool  # a ``:`` follows the path, even with nothing after it
    options: tuple[Option, ...]  # offsets into the whole spec


def parse_tmpfs(text: str) -> Tmpfs:
    target, colon, rest = text.partition(":")
    return Tmpfs(target, bool(colon), split_options(rest, len(target) + 1) if rest else ())


class Mount(NamedTuple):
    """A mount whatever syntax wrote it: ``--mount``, ``-v``, compose short or long ``volumes:``."""

    type: str  # bind, volume, tmpfs, or whatever else the file names
    source: str  # host path or volume name; empty for an anonymous volume or a tmpfs
    target: str
    options: tuple[Option, ...] = ()  # ``--mount`` fields, offsets into its text


def parse_volume(text: str) -> Mount:
    """``[source:]target[:mode]``; a source that is a path makes a bind mount (``C:\\x:/y`` keeps its colon)."""
    parts = text.split(":")
    if len(parts) > 1 and _VOLUME_MODES.match(parts[-1]):
        parts.pop()
    source = ":".join(parts[:-1])
    return Mount("bind" if source.startswith(_HOST_PATH_STARTS) else "volume", source, parts[-1])


def parse_mount(text: str) -> Mount:
    """``type=tmpfs,destination=/dev/shm,tmpfs-size=N``; keys are case-insensitive, the type defaults to volume."""
    options = tuple(option._replace(key=option.key.lower()) for option in split_options(text))
    fields = {option.key: option.value if option.has_value else "true" for option in options}  # the last one wins
    target = next((fields[key] for key in ("destination", "dst", "target") if key in fields), "")
    source = next((fields[key] for key in ("source", "src") if key in fields), "")
    return Mount(fields.get("type", "volume").lower(), source, target, options)


#: the container path whose bind of the host's own takes /dev/shm with it
_DEV = "/dev"


def engine_shm(ipc: str | None, *, podman: bool = False) -> bool:
    """Whether the engine mounts a /dev/shm of its own over a bind at /dev (``reaching_shm``): podman always, docker
    for an IPC mode (``ipc``, as written; None or empty for none written) other than its default ``private`` or
    ``none`` (``shareable``, ``container:``: the namespace's own /dev/shm, bound in)."""
    return podman or (ipc or "private").strip() not in ("private", "none")


def reaching_shm(mount: Mount, *, engine_shm: bool = False) -> Mount | None:
    """The mount as it reaches /dev/shm: itself, at /dev/shm; a bind at /dev, as a bind of its ``shm`` folder (the
    host's /dev/shm for the host's /dev): docker then mounts nothing of its own under /dev, its sized /dev/shm
    neither (moby's daemon/oci_linux.go, ``WithMounts``, leaves out every default mount under a user-mounted /dev;
    audit70b: a Jetson script's ``-v /dev:/dev`` was told to add ``--shm-size``, which does nothing there), unless
    the engine mounts one of its own over it (``engine_shm``: podman, docker's ``shareable`` or ``container:`` IPC,
    whose /dev/shm is a bind of the IPC namespace's own); None for another mount."""
    if is_shm_path(mount.target):
        return mount
    if not engine_shm and mount.type == "bind" and clean_container_path(mount.target) == _DEV and mount.source:
        return mount._replace(source=posixpath.join(mount.source.rstrip("/") or "/", "shm"), target=SHM_PATH)
    return None


def classify_mount(mount: Mount) -> tuple[ShmKind, ShmMechanism]:
    """What a mount at /dev/shm gives the container (memory, the host's folder, disk, or something shmlint does
    not know) and by which mechanism. A named volume is disk here; compose may still find that its definition asks
    the local driver for a tmpfs."""
    return classify(mount.type)


def classify(mount_type: str) -> tuple[ShmKind, ShmMechanism]:
    """``classify_mount`` by the mount's ``type`` alone, for syntaxes that name it without a ``Mount``."""
    if mount_type == "tmpfs":
        return ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT
    if mount_type == "bind":
        return ShmKind.HOST_PATH, ShmMechanism.BIND
    if mount_type == "volume":
        return ShmKind.DISK, ShmMechanism.VOLUME
    return ShmKind.UNKNOWN, ShmMechanism.VOLUME


def tmpfs_source(
    mechanism: ShmMechanism, span: Span, description: str, size: Size | None, name: str | None = None
) -> ShmSource:
    """A tmpfs at /dev/shm: a size of 0 is no limit, to the kernel (tmpfs ``size=0``) and to docker (a ``tmpfs-size``
    of 0 sets none), so it is unbounded, not 0 bytes (a fix raising it to 8 GiB would lower it)."""
    if size is not None and size.bytes == 0:
        return ShmSource(ShmKind.MEMORY, mechanism, span, f"{description} (size 0: no limit)", None, name)
    return ShmSource(ShmKind.MEMORY, mechanism, span, description, size, name)
