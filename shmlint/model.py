"""The data that flows between stages: workloads, findings and fixes.

Parsers produce ``Workload`` values, rules turn them into ``Finding`` values, reporters and fixers consume those.
Everything here is immutable so stages cannot reach back and change what an earlier stage decided. A ``Span``
lives with the text it points into (``shmlint.source``) and ``Severity`` on its own (``shmlint.severity``): a
file that holds no workload never needs the rest, and defining these classes is a large part of start-up time.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shmlint.severity import Severity
    from shmlint.source import Span


class Format(enum.StrEnum):
    """The kind of file a workload was found in; decides how a fix is written."""

    KUBERNETES = "kubernetes"
    COMPOSE = "compose"
    COMMAND = "command"


@dataclass(frozen=True)
class Size:
    """A size as written in a file, with its meaning when the runtime would accept it."""

    text: str
    bytes: int | None
    span: Span
    dialect: str  # "kubernetes" or "docker": decides how the text is read and how a new size is spelled
    error: str | None = None
    suggestion: str | None = None  # a valid spelling with the same meaning, only when that meaning is certain


class ShmKind(enum.StrEnum):
    """How a declaration provides (or fails to provide) the container's /dev/shm."""

    MEMORY = "memory"  # tmpfs: Memory emptyDir, shm_size, --shm-size, --tmpfs; size may be unbounded
    DISK = "disk"  # a disk-backed volume mounted at /dev/shm
    HOST_IPC = "host-ipc"  # the host's IPC namespace and so the host's /dev/shm
    HOST_PATH = "host-path"  # the host's /dev/shm bind-mounted in
    SHARED = "ipc-shared"  # another container's IPC namespace that shmlint cannot see
    NONE = "ipc-none"  # no /dev/shm at all (--ipc=none)
    BUILD_ONLY = "build-only"  # sizes the build container only (compose build.shm_size)
    UNMOUNTED = "unmounted"  # a memory volume meant for /dev/shm that this container does not mount
    UNKNOWN = "unknown"  # an expansion shmlint cannot resolve might carry a shm setting


#: kinds that actually reach the running container's /dev/shm
APPLIED_KINDS = frozenset(
    {ShmKind.MEMORY, ShmKind.DISK, ShmKind.HOST_IPC, ShmKind.HOST_PATH, ShmKind.SHARED, ShmKind.NONE, ShmKind.UNKNOWN}
)


@dataclass(frozen=True)
class ShmSource:
    """One declaration that concerns a container's /dev/shm, where it is written and what it says."""

    kind: ShmKind
    span: Span
    description: str  # for messages: 'emptyDir volume "dshm"', '--shm-size', 'shm_size'
    size: Size | None = None
    name: str | None = None  # the volume name for Kubernetes volumes
    namespace_size: bool = False  # sizes the IPC namespace's /dev/shm (--shm-size, shm_size), not a mount over it
    host_path: str | None = None  # HOST_PATH: the host folder mounted at /dev/shm when it is known
    cap_bytes: int | None = None  # a volume shared in a pod: half the smallest memory limit there, the most it can use


@dataclass(frozen=True)
class Evidence:
    """Why shmlint believes something, quoted in messages: ``requests nvidia.com/gpu: 2``."""

    text: str
    span: Span


@dataclass(frozen=True)
class DataLoaderHint:
    """A workload's declared DataLoader profile, used to size /dev/shm from an estimate."""

    workers: int
    batch_size: int
    sample_bytes: int
    prefetch_factor: int = 2
    procs: int = 1
    span: Span | None = None


@dataclass(frozen=True)
class Workload:
    """One container as it will run: a Kubernetes container, a compose service or a ``docker run`` line."""

    format: Format
    name: str  # 'Deployment/trainer, container "main"', 'service "web"', 'docker run (line 12)'
    span: Span  # where SHM001/SHM002 point: the container mapping, the service key, the command's first word
    gpu: tuple[Evidence, ...] = ()
    torch: tuple[Evidence, ...] = ()
    shm: tuple[ShmSource, ...] = ()
    memory_limit: Size | None = None
    nccl_shm_disabled: Evidence | None = None
    shm_managed_by: str | None = None  # an operator that provides /dev/shm itself (KubeRay)
    dataloader: DataLoaderHint | None = None
    dataloader_text: Evidence | None = None  # a ``shmlint.io/dataloader`` annotation or label, read by the engine
    ignored_codes: frozenset[str] = frozenset()  # from annotations/labels on the workload
    target: Any = field(default=None, compare=False)  # opaque format-specific handle for fixers

    @property
    def is_gpu_or_torch(self) -> bool:
        return bool(self.gpu or self.torch)

    @property
    def signal(self) -> Evidence | None:
        """The first piece of evidence that makes this a GPU/torch workload."""
        return (self.gpu or self.torch or (None,))[0]


class FixAction(enum.StrEnum):
    """What a fix does, independent of the file format that will spell it."""

    ADD_SHM = "add-shm"  # give the workload a sized /dev/shm
    MOUNT_VOLUME = "mount-volume"  # mount an existing memory volume at /dev/shm
    SET_SIZE = "set-size"  # write a size on an existing declaration (add it or replace it)
    REWRITE_SIZE = "rewrite-size"  # respell an invalid size that has one certain meaning


class Applicability(enum.StrEnum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Fix:
    """A format-free description of a fix; ``shmlint.fix`` turns it into text edits for the file."""

    action: FixAction
    title: str
    applicability: Applicability = Applicability.SAFE
    size_bytes: int | None = None
    source: ShmSource | None = None  # the declaration to change (SET_SIZE, REWRITE_SIZE, MOUNT_VOLUME)
    replacement: str | None = None  # REWRITE_SIZE: the new spelling


@dataclass(frozen=True)
class Finding:
    """One rule's verdict, where to point, and the fix when one can be written (no workload: a file's own problem)."""

    code: str
    slug: str
    severity: Severity
    message: str
    span: Span
    workload: Workload | None = field(default=None, compare=False)
    fix: Fix | None = field(default=None, compare=False)

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.path, self.span.line, self.span.column, self.code, self.message)


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``new_text``; offsets are characters of the decoded file."""

    start: int
    end: int
    new_text: str
