"""A Kubernetes pod spec judged for /dev/shm, once for every syntax that writes one.

Kubernetes YAML (``shmlint.formats.kubernetes.extract``), Terraform's Kubernetes provider and AWS Batch on EKS
(``shmlint.formats.terraform.extract``) read their own syntax into the values below (``PodContainer``, ``PodVolume`` and the
``PodWide`` settings: each with the spans of the file and the words it spells them with) and this module decides:
volumes are per pod, mounts per container, so /dev/shm is judged per container. A Memory ``emptyDir`` mounted at
/dev/shm is a tmpfs bounded by its ``sizeLimit`` and by half the smallest memory limit of the containers that
share it (``shmlint.sizing``); one that no container mounts there does nothing for the container that needs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from shmlint import sizes
from shmlint.containers import EnvVar, Judged, base_dir, gpu_env, nccl_disabled, torch_evidence
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, MountedConfig, ShmKind, ShmMechanism, ShmSource, Size
from shmlint.named_tuple import NamedTuple
from shmlint.signals import Signals, device_count, gpu_visible, positive_count
from shmlint.sizing import pod_cap
from shmlint.source import Span

INIT_CONTAINER = "init container"
#: Kubernetes' own expansion in ``command`` and ``args``: ``$(NAME)`` takes the container's env value, ``$$`` is a
#: literal ``$``, a name the env does not define stays as written
#: (https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/)
_REFERENCE = LazyRegex(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]{0,252})\)", 0, ("$",))


#: a marker a script replaces before the file is applied (``"#MEML"Gi``, ``<MEMORY>``, ``__MEM__``, ``@MEM@``, a
#: value that is one variable, ``"$POD_MEMORY_LIMIT"``, for envsubst): a YAML comment or a shell would eat such a
#: value unquoted, so it is no quantity or count a person mistyped
SCRIPT_MARKER = LazyRegex(
    r"#[A-Z][A-Z0-9_]{0,63}|<[A-Za-z_][\w-]{0,63}>|__[A-Z][A-Z0-9_]{0,63}__|@[A-Z][A-Z0-9_]{0,63}@"
    r"|^\$(?:[A-Za-z_][A-Za-z0-9_]{0,63}|\{[A-Za-z_][A-Za-z0-9_]{0,63}\})$",
    0,
    ("#", "<", "__", "@", "$"),  # a quantity holds none of them: the pattern is not compiled for it
)


def is_template_expression(value: str) -> bool:
    """A value that is one template expression, ``'{{ memory_limit }}'``, which Jinja or Helm fills before the file
    is applied (audit67b: a SeldonDeployment template a script renders): a value to come, no quantity a person
    mistyped. String tests only: a one-file check compiles no expression for it."""
    return value.startswith("{{") and value.endswith("}}") and "{{" not in value[2:-2] and len(value) > 4


#: a placeholder a template fills (``${MEDIUM}``, ``{{ .Values.medium }}``, ``$(MEDIUM)``)
_PLACEHOLDER = LazyRegex(r"\$[{(A-Za-z_]|\{\{", 0, ("$", "{{"))


class PodVolume(NamedTuple):
    """One of the pod's volumes. ``kind`` is how the file names its kind (``emptyDir``, ``empty_dir``, ``nfs``);
    ``span`` is where a finding about it points."""

    name: str
    span: Span
    kind: str
    empty_dir: bool = False
    medium: str = ""
    size_limit: Size | None = None
    host_path: str | None = None
    host_path_span: Span | None = None
    config_map: str = ""  # a ``configMap`` volume: the ConfigMap's name
    items: tuple[tuple[str, str], ...] = ()  # and its ``items``: key, path


#: a ``limits``/``requests`` entry (``nvidia.com/gpu: 2``): section, resource name, value, where it is written
#: (a plain tuple: one value class fewer to build when a one-file check starts)
Resource = tuple[str, str, str | None, Span]
#: a ``volumeMounts`` entry: the volume's name, its ``mountPath`` and ``subPath`` ("" when not written)
VolumeMount = tuple[str, str, str]


class PodContainer(NamedTuple):
    """One container of the pod, as its file writes it."""

    holder: str  # 'container', 'init container', what else holds it ('predictor', 'trainer')
    image: str | None
    image_span: Span | None
    entrypoint: tuple[str, ...]  # ``command``: replaces the image's entrypoint
    arguments: tuple[str, ...]  # ``args``
    words: tuple[str, ...]  # all it runs, as words (a scalar command, an Argo script's source included)
    command_span: Span | None  # where a command that starts torch is pointed at
    env: tuple[EnvVar, ...]
    resources: tuple[Resource, ...]
    memory_limit: Size | None
    shm_mount: str | None  # the volume it mounts at /dev/shm ('' when the mount names none), None for no mount
    mounts: tuple[VolumeMount, ...]  # the volumes it mounts, where
    working_dir: str = ""
    torch: tuple[Evidence, ...] = ()  # what the format itself says starts torch (a KServe model format...)
    unknown_env: tuple[str, ...] = ()  # env names whose value comes from elsewhere (``valueFrom``)
    command_from: str = ""  # where its image and command were read when not in its own spec (a KServe runtime)
    #: GPUs given to it otherwise than by its resources: a resource claim, a GPU-sharing scheduler's annotation
    granted: tuple[Evidence, ...] = ()


#: what a pod says for all its containers: ``hostIPC: true`` and ``runtimeClassName: nvidia`` where they are
#: written (None when not set), and the runtime class's name
PodWide = tuple[Evidence | None, Evidence | None, str]


def judge_pod(
    containers: tuple[PodContainer, ...],
    volumes: Mapping[str, PodVolume],
    wide: PodWide,
    manifest: str,
    signals: Signals,
    namespace: str = "",
) -> tuple[Judged, ...]:
    """A pod spec's containers judged, in order: its volumes by name, its pod-wide settings, the file that writes
    them (relative paths its containers start are looked for in its folder) and its namespace, when written."""
    caps = {c.shm_mount: volume_cap(containers, c.shm_mount) for c in containers if c.shm_mount}
    meant = _meant_volume(containers, volumes)
    where = (manifest, namespace)
    return tuple(_container(container, volumes, wide, where, meant, caps, signals) for container in containers)


def shared_cap(containers: tuple[PodContainer, ...]) -> int | None:
    """The most a volume the pod's containers share can use (``shmlint.sizing``); a fix writes no more."""
    return pod_cap(c.memory_limit.bytes if c.memory_limit else None for c in containers)


def volume_cap(containers: tuple[PodContainer, ...], volume: str) -> int | None:
    """The most the volume ``volume`` can hold: half the smallest memory limit of the containers that mount it
    (a Memory emptyDir's pages count against the limit of the container that writes them; a sidecar's limit that
    never mounts the volume bounds nothing in it)."""
    return shared_cap(tuple(c for c in containers if any(mount[0] == volume for mount in c.mounts)))


def quantity(text: str, span: Span) -> Size:
    """A Kubernetes quantity (``sizeLimit``, ``limits.memory``) as a Size, with the error a wrong one gets."""
    parsed = sizes.parse_kubernetes(text)
    return Size(text, parsed.bytes, span, sizes.KUBERNETES, parsed.error, parsed.suggestion)


def volume_source(volume: PodVolume, cap: int | None) -> ShmSource:
    """What a volume mounted at /dev/shm gives; ``cap``: the most it can hold (``volume_cap``)."""
    if volume.empty_dir:
        medium = volume.medium.strip()
        description = f'{volume.kind} volume "{volume.name}"'
        # a template's ``${MEDIUM}``, filled when rendered, is judged as the Memory it is there for (its sizeLimit
        # bounds a disk volume alike); no medium is disk, and any other (``memory``, a typo) is not memory either
        if medium == "Memory" or _PLACEHOLDER.search(medium):
            kind, mechanism = ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT
            description += "" if medium == "Memory" else f" (medium {medium})"
        else:
            kind, mechanism = ShmKind.DISK, ShmMechanism.VOLUME
            if medium.lower() == "memory":  # the kubelet knows only ``Memory``: the pod does not start
                description += f' (medium "{medium}": Kubernetes knows only "Memory", and refuses the pod)'
        size = volume.size_limit
        if size is not None and size.bytes == 0:  # the kubelet sizes a Memory emptyDir by its limit only when it
            # is above zero: ``sizeLimit: 0`` is no limit at all
            description = f"{description} (sizeLimit {size.text}: no limit)"
            size = None
        return ShmSource(kind, mechanism, volume.span, description, size, volume.name, cap_bytes=cap)
    if volume.host_path is not None:
        description = f'{volume.kind} volume "{volume.name}" ({volume.host_path})'
        return ShmSource(
            ShmKind.HOST_PATH,
            ShmMechanism.BIND,
            volume.span,
            description,
            None,
            volume.name,
            host_path=volume.host_path,
            in_pod=True,
        )
    return ShmSource(
        ShmKind.DISK, ShmMechanism.VOLUME, volume.span, f'{volume.kind} volume "{volume.name}"', None, volume.name
    )


def _container(
    container: PodContainer,
    volumes: Mapping[str, PodVolume],
    wide: PodWide,
    where: tuple[str, str],
    meant: PodVolume | None,
    caps: Mapping[str, int | None],
    signals: Signals,
) -> Judged:
    container = _expanded(container)
    gpu = tuple(_gpu(container, volumes, wide, signals))
    torch = (*torch_evidence(container.image, container.image_span, container.words, container.command_span, signals),)
    torch += container.torch
    if signals.is_utility_command(list(container.words)):
        gpu, torch = (), ()
    manifest, namespace = where
    launch = Launch(
        base_dir(manifest),
        container.entrypoint,
        container.arguments,
        container.working_dir,
        tuple((name, value) for name, value, _ in container.env),
        dockerfile_beside=True,
        unknown_env=container.unknown_env,
        manifest=manifest,
        configs=tuple(_configs(container, volumes, namespace)),
    )
    return Judged(
        gpu=gpu,
        torch=torch,
        shm=tuple(_shm(container, volumes, wide[0], meant, caps)),
        memory_limit=container.memory_limit,
        nccl_shm_disabled=nccl_disabled(container.env),
        image=container.image,
        command=" ".join(container.words),
        accelerator_count=_accelerator_count(container, signals) if gpu else None,
        launch=launch,
    )


def _configs(container: PodContainer, volumes: Mapping[str, PodVolume], namespace: str) -> Iterator[MountedConfig]:
    """The ConfigMaps the container mounts, where (their files are followed like the repository's own)."""
    for name, path, sub_path in container.mounts:
        volume = volumes.get(name)
        if volume is not None and volume.config_map and path.startswith("/"):
            yield MountedConfig(path, volume.config_map, volume.items, sub_path, namespace)


def _expanded(container: PodContainer) -> PodContainer:
    """The container with ``$(NAME)`` in its command and args replaced as Kubernetes replaces them (from its plain
    env entries; one that comes from a secret or a field stays as written)."""
    if not container.env or not any("$" in word for word in container.words):
        return container
    values = {name: value for name, value, _ in container.env}

    def expand(words: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(
            _REFERENCE.sub(lambda m: "$" if m.group(1) is None else values.get(m.group(1), m.group(0)), word)
            for word in words
        )

    argv = (*container.entrypoint, *container.arguments)
    words = expand(container.words) if container.words == argv else container.words  # a script's text is not argv
    return container._replace(
        entrypoint=expand(container.entrypoint), arguments=expand(container.arguments), words=words
    )


def _gpu(
    container: PodContainer, volumes: Mapping[str, PodVolume], wide: PodWide, signals: Signals
) -> Iterator[Evidence]:
    for section, name, count, span in container.resources:
        # a count a template or script fills in (``nvidia.com/gpu: "$GPU_COUNT"``) asks for GPUs, how many unknown
        if (
            signals.is_gpu_resource(name)
            and count is not None
            and (positive_count(count) or _PLACEHOLDER.search(count) or SCRIPT_MARKER.search(count))
        ):
            yield Evidence(f"{section} {name}: {count}", span)
    _, runtime_class, runtime_name = wide
    if runtime_class is not None and signals.is_gpu_runtime(runtime_name) and container.holder != INIT_CONTAINER:
        yield runtime_class
    yield from gpu_env(container.env, signals)
    for name, _, _ in container.mounts:  # device nodes handed over as hostPath volumes (privileged, no device plugin)
        volume = volumes.get(name)
        if (
            volume is not None
            and volume.host_path
            and volume.host_path_span
            and signals.is_gpu_device(volume.host_path)
        ):
            yield Evidence(f"{volume.kind} {volume.host_path}", volume.host_path_span)
    yield from container.granted


def _accelerator_count(container: PodContainer, signals: Signals) -> int | None:
    """GPUs of a counted kind the container asks for (each resource's larger of limit and request, summed), or
    what a counted visibility variable lists; None when nothing says how many."""
    per_resource: dict[str, int] = {}
    for _, name, value, _ in container.resources:
        marked = value is not None and SCRIPT_MARKER.search(value) is not None  # filled in later: how many unknown
        count = device_count(value or "") if signals.is_counted_resource(name) and not marked else None
        if count is not None:
            per_resource[name] = max(count, per_resource.get(name, 0))
    if per_resource:
        return sum(per_resource.values())
    listed = [
        device_count(value) for name, value, _ in container.env if name in signals.counted_envs and gpu_visible(value)
    ]
    return max((count for count in listed if count is not None), default=None)


def _shm(
    container: PodContainer,
    volumes: Mapping[str, PodVolume],
    host_ipc: Evidence | None,
    meant: PodVolume | None,
    caps: Mapping[str, int | None],
) -> Iterator[ShmSource]:
    if host_ipc is not None:
        yield ShmSource(ShmKind.HOST_IPC, ShmMechanism.IPC_MODE, host_ipc.span, host_ipc.text, in_pod=True)
    if container.shm_mount is not None:
        volume = volumes.get(container.shm_mount)
        if volume is not None:
            yield volume_source(volume, caps.get(container.shm_mount))
        return
    if meant is not None:
        source = volume_source(meant, None)
        if source.kind is ShmKind.MEMORY:
            yield source._replace(kind=ShmKind.UNMOUNTED, cap_bytes=None)


def _meant_volume(containers: tuple[PodContainer, ...], volumes: Mapping[str, PodVolume]) -> PodVolume | None:
    """The pod's volume meant for /dev/shm: mounted there by a container, or a Memory volume named so."""
    for container in containers:
        if container.shm_mount is not None and container.shm_mount in volumes:
            return volumes[container.shm_mount]
    for name, volume in volumes.items():
        if "shm" in name.lower() and volume.empty_dir and volume.medium.strip() == "Memory":
            return volume
    return None
