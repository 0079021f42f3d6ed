"""Where the fixers of formats other than Kubernetes and compose write: their ``Workload.target`` values.

They live apart from ``shmlint.model`` so that a check of Kubernetes or compose files does not define classes it
never makes; a format's extractor and fixer import them from here.
"""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple
from shmlint.source import Span


class SizeSlot(NamedTuple):
    """Where a size can be added to an option that has none (``--tmpfs /dev/shm`` -> ``--tmpfs /dev/shm:size=8g``)."""

    source_start: int  # the start of the ShmSource span it belongs to
    offset: int  # insert here
    prefix: str  # ':size=', ',size=', ',tmpfs-size='
    in_bytes: bool  # --mount tmpfs-size takes bytes


class CommandTarget(NamedTuple):
    """Where the command-line fixer writes: a new option right after ``run``/``create``, or a size in a slot.
    Options held in another format are spelled there: ``before`` and ``after`` go around a new option, and
    ``separator`` goes between two options written together (``, "``, ``"`` and ``", "`` in a JSON list)."""

    insert_at: int
    size_slots: tuple[SizeSlot, ...] = ()
    before: str = " "
    after: str = ""
    separator: str = " "


class TableTarget(NamedTuple):
    """Where the GitLab runner fixer writes ``shm_size`` in ``[runners.docker]``: over the value already there (0,
    the default), or as a new line after the table's last key (``line_prefix``: the line break and indentation)."""

    insert_at: int
    line_prefix: str
    existing: tuple[int, int] | None = None


class HclTarget(NamedTuple):
    """Where the Terraform fixer writes, by offsets of closing braces (plain data that crosses processes).

    ``shape`` says what the resource is: ``pod`` (a Kubernetes provider pod spec: ``outer`` closes the pod spec
    block, ``inner`` the container block), ``docker`` (``outer`` closes the ``docker_container`` resource), or
    ``ecs-hcl``/``ecs-json`` (``outer`` closes the container definition object written in HCL or in JSON).
    ``size_slots`` pair a declaration without a size (by its span start) with the brace its size goes before."""

    shape: str
    outer: int
    inner: int = -1
    volume_names: frozenset[str] = frozenset()
    size_slots: tuple[tuple[int, int], ...] = ()


class CallTarget(NamedTuple):
    """Where the Python fixer adds a keyword argument: before the call's closing parenthesis, spelled per library
    (``unit``: ``mib`` for an integer MiB, ``docker`` for ``"8g"``, ``kubernetes`` for ``"8Gi"``)."""

    close: int  # offset of the call's closing parenthesis
    keyword: str  # shared_memory, shm_size
    unit: str


class RayTarget(NamedTuple):
    """Where the Ray fixer writes: the ``docker`` mapping (its ``run_options`` list, made when missing) by its
    offset in the file, and the size slots of the options already there."""

    docker_start: int
    size_slots: tuple[SizeSlot, ...] = ()


class AwsContainerTarget(NamedTuple):
    """Where the AWS fixer writes: an ECS/Batch container definition mapping, by its offset in the file."""

    container_start: int
    pascal_case: bool  # CloudFormation spells ``LinuxParameters: SharedMemorySize``


class AzureJobTarget(NamedTuple):
    """Where the Azure ML fixer writes: the job (or pipeline step) mapping that holds ``resources``."""

    job_start: int


class AnsibleTarget(NamedTuple):
    """Where the Ansible fixer writes: a ``docker_container``/``podman_container`` task's module arguments, by the
    offset of their mapping in the file, and the value of its own ``shm_size`` when it has one."""

    module_start: int
    shm_size: Span | None = None
