"""Terraform resources -> one Workload per container.

Three families of resources run containers with a /dev/shm of their own: the Kubernetes provider's workloads
(``kubernetes_deployment``, ``_pod``, ``_job``, ``_stateful_set``, ``_daemon_set``, ``_cron_job``, with or
without ``_v1``: pod specs spelled in snake_case blocks), the docker provider's ``docker_container`` (``shm_size``
and ``memory`` in MiB) and AWS task and job definitions (``aws_ecs_task_definition``, ``aws_batch_job_definition``:
container definitions as ``jsonencode(...)`` or a JSON heredoc, judged by ``shmlint.extract.ecs_container``).
Values Terraform computes (variables, locals, interpolations, ``file(...)``) are unknown: they lower a finding
to a warning where they could carry a size, and are never read as anything else. A JSON heredoc is a template:
``${...}`` inside it are such values and the JSON around them is read (``parse_template_json``); what stays
unknown where shmlint needs it (a whole definition, a value where JSON needs one, directives) is a notice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from shmlint import sizes
from shmlint.extract.ecs_container import judge_container
from shmlint.extract.terraform_ecs import HclEcsTree, hcl_mib, task_value
from shmlint.model import Evidence, Notice, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.hcl import (
    BOOL,
    CALL,
    HEREDOC,
    OBJECT,
    TUPLE,
    UNKNOWN,
    Attribute,
    Block,
    HclError,
    Item,
    Value,
    entry,
    parse,
    string,
)
from shmlint.runtime import nccl
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals, positive_count
from shmlint.source import SourceText, Span
from shmlint.targets import HclTarget

KUBERNETES_WORKLOADS = frozenset(
    f"kubernetes_{kind}{version}"
    for kind in ("pod", "deployment", "job", "stateful_set", "daemon_set", "cron_job", "replication_controller")
    for version in ("", "_v1")
)


class PodBlocks(NamedTuple):
    """How a provider spells a pod spec's blocks: the Kubernetes provider in the singular, the ``eks_properties`` of
    an AWS Batch job definition in the plural. The fixer writes new blocks with the same names."""

    spec: str
    container: str
    init_container: str
    volume: str
    volume_mount: str


KUBERNETES_BLOCKS = PodBlocks("spec", "container", "init_container", "volume", "volume_mount")
EKS_BLOCKS = PodBlocks("pod_properties", "containers", "init_containers", "volumes", "volume_mounts")
#: ``HclTarget.shape`` of a pod spec, by its spelling
POD_SHAPES = {KUBERNETES_BLOCKS: "pod", EKS_BLOCKS: "eks-pod"}
#: how many computed values a notice names, and how long a quoted expression may be
MAX_LISTED = 5
MAX_QUOTED = 60
ECS_TASK = "aws_ecs_task_definition"
BATCH_JOB = "aws_batch_job_definition"
DOCKER_CONTAINER = "docker_container"


def extract_terraform(source: SourceText, signals: Signals) -> tuple[list[Workload], list[Notice]]:
    """The workloads, and notices for what Terraform computes where shmlint needs it (a definition read from a
    file, a value standing where JSON needs one); raises ``HclError`` for text that is not HCL (or a JSON heredoc
    without template sequences that is not JSON)."""
    root = parse(source.text)
    reader = _Reader(source, signals)
    workloads: list[Workload] = []
    seen: Counter[WorkloadId] = Counter()
    for resource in root.children("resource"):
        if len(resource.labels) != 2:
            continue
        for workload in reader.resource(resource):
            identity = workload.id._replace(occurrence=seen[workload.id])
            seen[workload.id] += 1
            workloads.append(workload._replace(id=identity))
    return workloads, reader.notices


class _Reader:
    def __init__(self, source: SourceText, signals: Signals) -> None:
        self.source = source
        self.signals = signals
        self.notices: list[Notice] = []

    def span_of(self, start: int, end: int) -> Span:
        return self.source.span(start, end)

    def resource(self, resource: Block) -> Iterator[Workload]:
        kind = resource.labels[0]
        if kind in KUBERNETES_WORKLOADS:
            yield from self.kubernetes(resource, KUBERNETES_BLOCKS)
        elif kind == DOCKER_CONTAINER:
            yield self.docker(resource)
        elif kind in (ECS_TASK, BATCH_JOB):
            yield from self.aws(resource)

    # -- Kubernetes provider -----------------------------------------------------------------------------------

    def kubernetes(self, resource: Block, blocks: PodBlocks) -> Iterator[Workload]:
        kind, name = resource.labels
        for pod in _pod_specs(resource, blocks):
            volumes = {n: v for v in pod.children(blocks.volume) if (n := string(v.attribute("name")))}
            containers = [(c, "container") for c in pod.children(blocks.container)]
            containers += [(c, "init container") for c in pod.children(blocks.init_container)]
            meant = self.meant_volume(volumes, [c for c, _ in containers], blocks)
            cap = self.shared_cap([c for c, _ in containers])
            for container, holder in containers:
                identity = WorkloadId(
                    WorkloadFormat.TERRAFORM, kind, name, "", holder, string(container.attribute("name")) or "?"
                )
                yield self.pod_container(pod, container, identity, volumes, meant, cap, blocks)

    def pod_container(
        self,
        pod: Block,
        container: Block,
        identity: WorkloadId,
        volumes: dict[str, Block],
        meant: str | None,
        cap: int | None,
        blocks: PodBlocks,
    ) -> Workload:
        gpu = tuple(self.k8s_gpu(pod, container, identity.container_kind == "init container"))
        words = _words(container.attribute("command")) + _words(container.attribute("args"))
        torch = tuple(self.torch(container.attribute("image"), container.attribute("command"), words))
        if self.signals.is_utility_command(words):
            gpu, torch = (), ()
        shm = list(self.host_ipc(pod.attributes.get("host_ipc")))
        mount = _shm_mount(container, blocks)
        slots: list[tuple[int, int]] = []
        if mount is not None:
            volume = volumes.get(string(mount.attribute("name")) or "")
            if volume is not None:
                shm.append(self.k8s_volume(volume, cap, slots))
        elif meant is not None:
            source = self.k8s_volume(volumes[meant], cap, slots)
            if source.kind is ShmKind.MEMORY:
                shm.append(source._replace(kind=ShmKind.UNMOUNTED, cap_bytes=None))
        return Workload(
            id=identity,
            span=self.span_of(container.start, container.end),
            gpu=gpu,
            torch=torch,
            shm=tuple(shm),
            memory_limit=self.k8s_size(entry(_resources(container, "limits"), "memory")),
            nccl_shm_disabled=self.k8s_nccl(container),
            target=HclTarget(POD_SHAPES[blocks], pod.close, container.close, frozenset(volumes), tuple(slots)),
            image=string(container.attribute("image")),
            command=" ".join(words),
        )

    def k8s_gpu(self, pod: Block, container: Block, is_init: bool) -> Iterator[Evidence]:
        for section in ("limits", "requests"):
            resources = _resources(container, section)
            for item in resources.items if resources is not None and resources.kind == OBJECT else ():
                count = string(item.value)
                if item.key and self.signals.is_gpu_resource(item.key) and count and positive_count(count):
                    yield Evidence(f"{section} {item.key}: {count}", self.span_of(item.start, item.value.end))
        runtime = pod.attributes.get("runtime_class_name")
        runtime_name = string(runtime.value) if runtime is not None else None
        if runtime is not None and runtime_name and self.signals.is_gpu_runtime(runtime_name) and not is_init:
            yield Evidence(f"runtime_class_name = {runtime_name}", self.span_of(runtime.start, runtime.end))
        for env in container.children("env"):
            key, value = string(env.attribute("name")), string(env.attribute("value"))
            if key and value is not None and self.signals.is_gpu_env(key, value):
                yield Evidence(f"env {key}={value}", self.span_of(env.start, env.end))

    def k8s_nccl(self, container: Block) -> Evidence | None:
        for env in container.children("env"):
            key, value = string(env.attribute("name")), string(env.attribute("value"))
            if key == nccl.SHM_DISABLE and value is not None and nccl.disables_shm(value):
                return Evidence(f"env {key}={value}", self.span_of(env.start, env.end))
        return None

    def k8s_volume(self, volume: Block, cap: int | None, slots: list[tuple[int, int]]) -> ShmSource:
        name = string(volume.attribute("name")) or "?"
        span = self.span_of(volume.start, volume.end)
        empty_dir = volume.child("empty_dir")
        if empty_dir is not None:
            memory = (string(empty_dir.attribute("medium")) or "").strip() == "Memory"
            size_value = empty_dir.attribute("size_limit")
            if memory and size_value is None:
                slots.append((span.start, empty_dir.close))
            kind, mechanism = (
                (ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT) if memory else (ShmKind.DISK, ShmMechanism.VOLUME)
            )
            description = f'empty_dir volume "{name}"'
            return ShmSource(kind, mechanism, span, description, self.k8s_size(size_value), name, cap_bytes=cap)
        host_path = volume.child("host_path")
        if host_path is not None:
            path = string(host_path.attribute("path")) or "?"
            description = f'host_path volume "{name}" ({path})'
            return ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, description, None, name, host_path=path)
        kinds = [block.type for block in volume.blocks]
        description = f'{kinds[0] if kinds else "volume"} volume "{name}"'
        return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, description, None, name)

    def k8s_size(self, value: Value | None) -> Size | None:
        if value is None:
            return None
        span = self.span_of(value.start, value.end)
        text = string(value)
        if text is None:  # computed at plan time: a size, but not one shmlint can read
            return Size(self.source.text[value.start : value.end], None, span, sizes.KUBERNETES)
        parsed = sizes.parse_kubernetes(text)
        return Size(text, parsed.bytes, span, sizes.KUBERNETES, parsed.error, parsed.suggestion)

    def meant_volume(self, volumes: dict[str, Block], containers: list[Block], blocks: PodBlocks) -> str | None:
        """The pod's volume meant for /dev/shm: mounted there by a container, or a Memory volume named so."""
        for container in containers:
            mount = _shm_mount(container, blocks)
            name = string(mount.attribute("name")) if mount is not None else None
            if name in volumes:
                return name
        for name, volume in volumes.items():
            empty_dir = volume.child("empty_dir")
            medium = string(empty_dir.attribute("medium")) if empty_dir is not None else None
            if "shm" in name.lower() and medium == "Memory":
                return name
        return None

    def shared_cap(self, containers: list[Block]) -> int | None:
        """Half the smallest memory limit among the pod's containers: a volume they share cannot use more."""
        limits = [
            size.bytes
            for container in containers
            if (size := self.k8s_size(entry(_resources(container, "limits"), "memory"))) and size.bytes
        ]
        return min(limits) // 2 if limits else None

    # -- docker provider -------------------------------------------------------------------------------------

    def docker(self, resource: Block) -> Workload:
        words = _words(resource.attribute("entrypoint")) + _words(resource.attribute("command"))
        gpu = tuple(self.docker_gpu(resource))
        torch = tuple(self.torch(resource.attribute("image"), resource.attribute("command"), words))
        if self.signals.is_utility_command(words):
            gpu, torch = (), ()
        shm: list[ShmSource] = []
        size_attribute = resource.attributes.get("shm_size")
        if size_attribute is not None:
            span = self.span_of(size_attribute.start, size_attribute.end)
            size = hcl_mib(size_attribute.value, self.source, strings_are_numbers=True)
            shm.append(ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "shm_size", size))
        ipc = resource.attributes.get("ipc_mode")
        if ipc is not None:
            mode = string(ipc.value)
            kind = ipc_mode(mode).kind if mode is not None else ShmKind.UNKNOWN
            if kind is not None:
                span = self.span_of(ipc.start, ipc.end)
                shm.append(ShmSource(kind, ShmMechanism.IPC_MODE, span, f'ipc_mode = "{mode or "?"}"'))
        shm.extend(self.docker_mounts(resource))
        memory = resource.attribute("memory")
        return Workload(
            id=WorkloadId(WorkloadFormat.TERRAFORM, DOCKER_CONTAINER, resource.labels[1], "", "container"),
            span=self.span_of(resource.start, resource.end),
            gpu=gpu,
            torch=torch,
            shm=tuple(shm),
            memory_limit=hcl_mib(memory, self.source, strings_are_numbers=True) if memory is not None else None,
            nccl_shm_disabled=self.docker_nccl(resource),
            target=HclTarget("docker", resource.close),
            image=string(resource.attribute("image")),
            command=" ".join(words),
        )

    def docker_gpu(self, resource: Block) -> Iterator[Evidence]:
        gpus = resource.attributes.get("gpus")
        if gpus is not None and (string(gpus.value) or "").strip() not in ("", "0"):
            yield Evidence(f'gpus = "{string(gpus.value)}"', self.span_of(gpus.start, gpus.end))
        runtime = resource.attributes.get("runtime")
        if runtime is not None and self.signals.is_gpu_runtime(string(runtime.value) or ""):
            yield Evidence(f'runtime = "{string(runtime.value)}"', self.span_of(runtime.start, runtime.end))
        for device in resource.children("devices"):
            path = string(device.attribute("host_path")) or ""
            if self.signals.is_gpu_device(path):
                yield Evidence(f"devices {path}", self.span_of(device.start, device.end))
        for text, value in self.docker_env(resource):
            key, _, setting = text.partition("=")
            if self.signals.is_gpu_env(key, setting):
                yield Evidence(f"env {text}", self.span_of(value.start, value.end))

    def docker_env(self, resource: Block) -> Iterator[tuple[str, Value]]:
        env = resource.attribute("env")
        for item in env.items if env is not None and env.kind == TUPLE else ():
            text = string(item.value)
            if text is not None:
                yield text, item.value

    def docker_nccl(self, resource: Block) -> Evidence | None:
        for text, value in self.docker_env(resource):
            key, _, setting = text.partition("=")
            if key == nccl.SHM_DISABLE and nccl.disables_shm(setting):
                return Evidence(f"env {text}", self.span_of(value.start, value.end))
        return None

    def docker_mounts(self, resource: Block) -> Iterator[ShmSource]:
        for mount in resource.children("mounts"):
            if not is_shm_path(string(mount.attribute("target")) or ""):
                continue
            span = self.span_of(mount.start, mount.end)
            kind = string(mount.attribute("type")) or ""
            if kind == "tmpfs":
                options = mount.child("tmpfs_options")
                value = options.attribute("size_bytes") if options is not None else None
                size = self.byte_size(value) if value is not None else None
                yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "mounts tmpfs /dev/shm", size)
            elif kind == "bind":
                host = string(mount.attribute("source")) or "?"
                yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, f"mounts bind of {host}", host_path=host)
            else:
                yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, f"mounts {kind or 'volume'} at /dev/shm")
        for volume in resource.children("volumes"):
            if is_shm_path(string(volume.attribute("container_path")) or ""):
                span = self.span_of(volume.start, volume.end)
                host_path = string(volume.attribute("host_path"))
                if host_path is not None:
                    description = f"volumes host_path {host_path}"
                    yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, description, host_path=host_path)
                else:
                    yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, "volumes at /dev/shm")
        tmpfs = resource.attributes.get("tmpfs")
        for item in tmpfs.value.items if tmpfs is not None and tmpfs.value.kind == OBJECT else ():
            if item.key and is_shm_path(item.key):
                span = self.span_of(item.start, item.value.end)
                yield ShmSource(
                    ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "tmpfs /dev/shm", self.tmpfs_size(item.value)
                )

    def byte_size(self, value: Value) -> Size:
        span = self.span_of(value.start, value.end)
        text = self.source.text[value.start : value.end]
        if isinstance(value.value, int) and not isinstance(value.value, bool) and value.value >= 0:
            return Size(text, value.value, span, "bytes")
        return Size(text, None, span, "bytes", None if value.kind == UNKNOWN else f"'{text}' is not a number of bytes")

    def tmpfs_size(self, value: Value) -> Size | None:
        options = string(value)
        if options is None:
            return Size(self.source.text[value.start : value.end], None, self.span_of(value.start, value.end), "docker")
        for option in options.split(","):
            key, _, setting = option.partition("=")
            if key.strip() == "size":
                parsed = sizes.parse_docker(setting)
                span = self.span_of(value.start, value.end)
                return Size(setting, parsed.bytes, span, sizes.DOCKER, parsed.error, parsed.suggestion)
        return None

    # -- AWS ECS task definitions and Batch job definitions ----------------------------------------------------

    def aws(self, resource: Block) -> Iterator[Workload]:
        kind, name = resource.labels
        platforms = _words(
            resource.attribute("requires_compatibilities" if kind == ECS_TASK else "platform_capabilities")
        )
        if platforms and all(p.upper() == "FARGATE" for p in platforms):
            return  # Fargate has no /dev/shm setting and no GPUs: nothing to judge or to fix
        if kind == BATCH_JOB and resource.child("eks_properties") is not None:
            yield from self.kubernetes(resource, EKS_BLOCKS)  # Batch on EKS: a pod spec, judged like Kubernetes
            return
        tree, task = HclEcsTree(self.source), task_value(resource) if kind == ECS_TASK else None
        for holder, definition, syntax in self.container_definitions(resource):
            # a Batch container holds its own volumes; only an ECS task (or a Batch ECS task) has an ipcMode
            judged = judge_container(tree, task or holder, definition, self.signals)
            linux = entry(definition, "linuxParameters")
            linux_end = linux.end - 1 if linux is not None and linux.kind != UNKNOWN else -1
            slots = tuple((span.start, span.end - 1) for span in judged.unsized_tmpfs)
            identity = WorkloadId(WorkloadFormat.TERRAFORM, kind, name, "", "container definition", judged.name)
            target = HclTarget(syntax, definition.end - 1, linux_end, size_slots=slots)
            yield judged.workload(identity, self.span_of(definition.start, definition.end), target)

    def container_definitions(self, resource: Block) -> Iterator[tuple[Value, Value, str]]:
        """(what holds its volumes and ipcMode, container definition object, "ecs-hcl" or "ecs-json") for each
        container the resource defines: an ECS task's ``container_definitions``; a Batch job's
        ``container_properties``, ``ecs_properties`` tasks and ``node_properties`` ranges (a range's EKS pod is
        a notice: no reader takes a pod spec written in JSON)."""
        if resource.labels[0] == ECS_TASK:
            document = self.document(resource, "container_definitions")
            if document is not None and document[0].kind == TUPLE:
                yield from ((item.value, item.value, document[1]) for item in document[0].items if _is_object(item))
            return
        properties = self.document(resource, "container_properties")
        if properties and properties[0].kind == OBJECT:
            yield properties[0], *properties
        ecs = self.document(resource, "ecs_properties")
        if ecs is not None:
            yield from _ecs_tasks(ecs[0], ecs[1])
        nodes = self.document(resource, "node_properties")
        if nodes is None:
            return
        ranges, syntax = entry(nodes[0], "nodeRangeProperties"), nodes[1]
        for item in ranges.items if ranges is not None and ranges.kind == TUPLE else ():
            container = entry(item.value, "container")
            if container is not None and container.kind == OBJECT:
                yield container, container, syntax
            yield from _ecs_tasks(entry(item.value, "ecsProperties"), syntax)
            pod = entry(item.value, "eksProperties")
            if pod is not None:
                line = self.source.position(pod.start)[0]
                where = f"{'.'.join(resource.labels)} node_properties"
                self.notices.append(
                    Notice(self.source.path, f"line {line}: {where} runs an EKS pod in a node range: not checked")
                )

    def document(self, resource: Block, attribute: str) -> tuple[Value, str] | None:
        """The value of ``jsonencode(...)`` or of a JSON heredoc (a template: ``${...}`` are unknown values, the
        JSON around them is read); None, with a notice, when Terraform computes it."""
        value = resource.attribute(attribute)
        if value is None:
            return None
        where = f"{'.'.join(resource.labels)} {attribute}"
        if value.kind == CALL and value.value == "jsonencode" and len(value.items) == 1:
            return value.items[0].value, "ecs-hcl"
        if value.kind == HEREDOC:
            return self.heredoc(value, where)
        line = self.source.position(value.start)[0]
        if value.kind == CALL and value.value in ("file", "templatefile"):
            why = f"read from a file by {value.value}() when Terraform plans"
        else:
            why = "computed when Terraform plans"
        self.notices.append(Notice(self.source.path, f"line {line}: {where} is {why}: its containers are not checked"))
        return None

    def heredoc(self, value: Value, where: str) -> tuple[Value, str] | None:
        from shmlint.parsers.json_values import JsonError, parse_template_json

        body = str(value.value)
        line = self.source.position(value.start)[0]
        try:
            read = parse_template_json(body, value.body_start)
        except JsonError as exc:
            error_line, column = self.source.position(exc.offset)
            if "${" not in body and "%{" not in body:
                raise HclError(f"{exc.message} in a JSON heredoc", error_line, column, exc.offset) from None
            self.notices.append(
                Notice(
                    self.source.path,
                    f"line {line}: {where} is a JSON template shmlint cannot read around its template sequences "
                    f"({exc.message} at line {error_line}): its containers are not checked",
                )
            )
            return None
        if read.computed:
            shown = ", ".join(
                f"{_clip(self.source.text[v.start : v.end])} (line {self.source.position(v.start)[0]})"
                for v in read.computed[:MAX_LISTED]
            )
            more = f" and {len(read.computed) - MAX_LISTED} more" if len(read.computed) > MAX_LISTED else ""
            self.notices.append(
                Notice(
                    self.source.path,
                    f"line {line}: {where} takes values Terraform computes where JSON needs a value: {shown}{more}; "
                    "they are unknown to shmlint, the JSON around them is checked",
                )
            )
        if read.directives:
            self.notices.append(
                Notice(
                    self.source.path,
                    f"line {line}: {where} has {read.directives} template directive(s) (%{{ }}): read with each "
                    "%{ if } taken, its %{ else } left out, and each %{ for } body once",
                )
            )
        return read.value, "ecs-json"

    # -- shared ----------------------------------------------------------------------------------------------

    def host_ipc(self, attribute: Attribute | None) -> Iterator[ShmSource]:
        if attribute is not None and attribute.value.kind == BOOL and attribute.value.value is True:
            span = self.span_of(attribute.start, attribute.end)
            yield ShmSource(ShmKind.HOST_IPC, ShmMechanism.IPC_MODE, span, "host_ipc = true")

    def torch(self, image: Value | None, command: Value | None, words: list[str]) -> Iterator[Evidence]:
        text = string(image)
        if image is not None and text and self.signals.is_torch_image(text):
            yield Evidence(f"image {text}", self.span_of(image.start, image.end))
        launcher = self.signals.torch_command(" ".join(words))
        if launcher:
            where = command or image
            if where is not None:
                yield Evidence(f"command {launcher}", self.span_of(where.start, where.end))


def _is_object(item: Item) -> bool:
    return item.value.kind == OBJECT


def _ecs_tasks(properties: Value | None, syntax: str) -> Iterator[tuple[Value, Value, str]]:
    """The containers of Batch ``ecsProperties``: each task in ``taskProperties`` holds their volumes."""
    tasks = entry(properties, "taskProperties")
    for task in tasks.items if tasks is not None and tasks.kind == TUPLE else ():
        containers = entry(task.value, "containers")
        for item in containers.items if containers is not None and containers.kind == TUPLE else ():
            if _is_object(item):
                yield task.value, item.value, syntax


def _clip(text: str) -> str:
    """An expression as a notice quotes it: one line, at most ``MAX_QUOTED`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def _pod_specs(resource: Block, blocks: PodBlocks) -> Iterator[Block]:
    """Pod spec blocks (``spec`` holding ``container`` blocks), found by shape wherever the resource nests them."""
    stack = [resource]
    while stack:
        block = stack.pop()
        if block.type == blocks.spec and (block.children(blocks.container) or block.children(blocks.init_container)):
            yield block
            continue
        stack.extend(reversed(block.blocks))


def _resources(container: Block, section: str) -> Value | None:
    """``resources { limits = {...} }``; the provider's older block form ``limits { ... }`` reads the same."""
    resources = container.child("resources")
    if resources is None:
        return None
    value = resources.attribute(section)
    if value is not None:
        return value
    block = resources.child(section)
    if block is None:
        return None
    items = tuple(Item(a.name, a.start, a.value) for a in block.attributes.values())
    return Value(OBJECT, None, block.start, block.end, items)


def _shm_mount(container: Block, blocks: PodBlocks) -> Block | None:
    mounts = container.children(blocks.volume_mount)
    return next((m for m in mounts if is_shm_path(string(m.attribute("mount_path")) or "")), None)


def _words(value: Value | None) -> list[str]:
    if value is None or value.kind != TUPLE:
        return []
    return [text for item in value.items if (text := string(item.value)) is not None]
