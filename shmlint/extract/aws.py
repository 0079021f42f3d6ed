"""AWS ECS task definitions and AWS Batch job definitions -> one Workload per container.

Read from JSON (a definition as ``register-*`` takes it, ``describe-*`` output, or a bare list of container
definitions as Terraform's ``container_definitions`` files hold) and from CloudFormation templates in YAML or JSON.
CloudFormation spells every key with a capital (``LinuxParameters: SharedMemorySize``); ``PascalKeys`` reads those
as the API's camelCase, so one walk serves both. Batch on EKS carries a Kubernetes pod spec, which the Kubernetes
extractor judges itself.

What the settings mean (AWS API reference, ``LinuxParameters`` and ``TaskDefinition``):

- ``linuxParameters.sharedMemorySize``: whole MiB, docker's ``--shm-size`` (the IPC namespace's /dev/shm);
- ``linuxParameters.tmpfs`` at /dev/shm: docker's ``--tmpfs``, ``size`` in MiB;
- the task's ``ipcMode``: ``host`` (the instance's /dev/shm), ``task`` (one namespace for the task), ``none``;
- ``memory`` (the container's hard limit, MiB), else Batch's ``resourceRequirements`` MEMORY, else the task's;
- Fargate (``requiresCompatibilities``/``platformCapabilities``) accepts none of the shm settings and has no GPUs;
  AWS documents no size for its /dev/shm, so there it is unknown, and no fix can be written;
- a Batch job definition's ``command`` is a default each SubmitJob may replace (``containerOverrides.command``):
  a utility there (``nvidia-smi``) is a placeholder, not what the GPU job runs, so the tier model does not see it.

A value written as a CloudFormation function (``!Ref ShmSize``, ``{"Fn::GetAtt": ...}``) is known only when the
stack is deployed: it counts as written, with no size, like ``${SHM}`` in a compose file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from shmlint.extract.kubernetes import extract_pod_spec
from shmlint.model import (
    AwsContainerTarget,
    Evidence,
    ShmKind,
    ShmMechanism,
    ShmSource,
    Size,
    Workload,
    WorkloadFormat,
    WorkloadId,
)
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar, sequence
from shmlint.runtime import nccl
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals, positive_count
from shmlint.sizes import MIB, parse_either
from shmlint.source import SourceText, Span

IGNORE_LABEL = "shmlint.io/ignore"
#: Size.dialect of the AWS fields: a whole number of MiB
MIB_DIALECT = "mib"
TASK_TYPE = "AWS::ECS::TaskDefinition"
JOB_TYPE = "AWS::Batch::JobDefinition"
FARGATE = "FARGATE"
_WHOLE = re.compile(r"^\d{1,12}$")
#: the task-level ``memory`` also takes ``"4 GB"`` (ECS task size)
_TASK_MEMORY = re.compile(r"^(\d{1,9})\s*(GB)?$", re.IGNORECASE)


class PascalKeys(Mappings):
    """Key lookup where ``LinuxParameters`` answers to ``linuxParameters``: CloudFormation's spelling of the API."""

    def _resolve(self, node: MappingNode) -> dict[str, tuple[ScalarNode, Node]]:
        return {key[:1].lower() + key[1:]: pair for key, pair in super()._resolve(node).items()}


def is_cloudformation(documents: list[Node]) -> bool:
    """A template with an ECS task definition or a Batch job definition among its resources."""
    m = Mappings()
    for document in documents:
        for resource in m.items(m.get(document, "Resources")).values():
            if scalar(m.get(resource[1], "Type")) in (TASK_TYPE, JOB_TYPE):
                return True
    return False


def is_function(node: Node | None) -> bool:
    """A CloudFormation intrinsic function: ``!Ref X`` (any local tag) or ``{"Ref": X}``, ``{"Fn::Sub": ...}``."""
    if node is None:
        return False
    tag: str = node.tag
    if tag.startswith("!"):
        return True
    if isinstance(node, MappingNode) and len(node.value) == 1 and isinstance(node.value[0][0], ScalarNode):
        key: str = node.value[0][0].value
        return key == "Ref" or key.startswith("Fn::")
    return False


class _Definition(NamedTuple):
    """A task or job definition: who it is, and whether it runs on Fargate (the pair that says so, if it does)."""

    owner: WorkloadId
    body: MappingNode
    fargate: Node | None
    batch: bool = False  # a Batch job definition, whose command each SubmitJob may replace


class _Extractor:
    def __init__(self, source: SourceText, signals: Signals, cloudformation: bool) -> None:
        self.source = source
        self.signals = signals
        self.pascal = cloudformation
        self.m: Mappings = PascalKeys() if cloudformation else Mappings()

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_mark.index, node.end_mark.index)

    def pair_span(self, owner: Node | None, key: str) -> Span | None:
        key_node, value = self.m.key(owner, key), self.m.get(owner, key)
        if key_node is None or value is None:
            return None
        return self.source.span(key_node.start_mark.index, value.end_mark.index)

    def spell(self, path: str) -> str:
        """A key path for messages, as the file spells it."""
        return ".".join(part[:1].upper() + part[1:] for part in path.split(".")) if self.pascal else path

    # -- definitions -----------------------------------------------------------------------------------------

    def definitions(self, documents: list[Node]) -> Iterator[_Definition]:
        for document in documents:
            if isinstance(document, SequenceNode):  # a bare list of container definitions (Terraform's files)
                if not any(self.m.get(item, "image") is not None for item in document.value):
                    continue
                owner = WorkloadId(WorkloadFormat.AWS, "ECS container definitions", self.source.path.rsplit("/", 1)[-1])
                yield _Definition(owner, document_as_task(document), None)
                continue
            if self.pascal:
                for logical_key, resource in self.m.items(self.m.get(document, "resources")).values():
                    logical, kind = logical_key.value, scalar(self.m.get(resource, "type"))
                    body = self.m.get(resource, "properties")
                    if kind in (TASK_TYPE, JOB_TYPE) and isinstance(body, MappingNode):
                        yield self.definition(kind, body, logical)
                continue
            bodies = [self.m.get(document, "taskDefinition"), *sequence(self.m.get(document, "jobDefinitions"))]
            for body in [document, *bodies]:
                if isinstance(body, MappingNode) and self.m.get(body, "containerDefinitions") is not None:
                    yield self.definition(TASK_TYPE, body, "")
                elif isinstance(body, MappingNode) and any(self.m.get(body, key) is not None for key in _JOB_KEYS):
                    yield self.definition(JOB_TYPE, body, "")

    def definition(self, kind: str, body: MappingNode, logical: str) -> _Definition:
        task = kind == TASK_TYPE
        name = scalar(self.m.get(body, "family" if task else "jobDefinitionName"))
        label = (
            ("AWS::ECS::TaskDefinition" if task else "AWS::Batch::JobDefinition")
            if self.pascal
            else ("ECS task definition" if task else "Batch job definition")
        )
        capabilities = "requiresCompatibilities" if task else "platformCapabilities"
        listed = self.m.get(body, capabilities)
        fargate = listed if any(scalar(item) == FARGATE for item in sequence(listed)) else None
        return _Definition(WorkloadId(WorkloadFormat.AWS, label, name or logical or "?"), body, fargate, not task)

    # -- containers ------------------------------------------------------------------------------------------

    def workloads(self, documents: list[Node]) -> list[Workload]:
        result: list[Workload] = []
        for definition in self.definitions(documents):
            result.extend(self.definition_workloads(definition))
        return result

    def definition_workloads(self, d: _Definition) -> Iterator[Workload]:
        body, m = d.body, self.m
        for container in sequence(m.get(body, "containerDefinitions")):
            yield from self.container(d, body, container, "")
        # a Batch container holds its own volumes; only ECS tasks (and Batch ecsProperties) have an ipcMode
        properties = m.get(body, "containerProperties")
        yield from self.container(d, properties, properties, "")
        for item in sequence(m.path(body, "nodeProperties", "nodeRangeProperties")):
            nodes = scalar(m.get(item, "targetNodes")) or "?"
            node = m.get(item, "container")
            yield from self.container(d, node, node, f"nodes {nodes}")
        for task in sequence(m.path(body, "ecsProperties", "taskProperties")):
            for container in sequence(m.get(task, "containers")):
                yield from self.container(d, task, container, "")
        pod = m.path(body, "eksProperties", "podProperties")
        if isinstance(pod, MappingNode):
            owner = d.owner._replace(format=WorkloadFormat.KUBERNETES, role="EKS pod")
            for workload in extract_pod_spec(self.source, pod, owner, self.signals, m):
                yield _without_target(workload)  # no writer spells a pod spec in JSON or CloudFormation

    def container(self, d: _Definition, task: Node | None, container: Node | None, role: str) -> Iterator[Workload]:
        """One container; ``task`` holds what it shares with its neighbours (volumes, ``ipcMode``)."""
        if not isinstance(container, MappingNode) or not isinstance(task, MappingNode):
            return
        m = self.m
        name = scalar(m.get(container, "name")) or ""
        identity = d.owner._replace(role=role, container_kind="container", container=name)
        gpu, count = self.gpu_evidence(container)
        image = scalar(m.get(container, "image"))
        words = self.command_words(container)
        yield Workload(
            id=identity,
            span=self.span(container),
            gpu=gpu,
            torch=tuple(self.torch_evidence(container, image, words)),
            shm=tuple(self.shm_sources(d, task, container)),
            memory_limit=self.memory_limit(d, container),
            nccl_shm_disabled=self.nccl_disabled(container),
            ignored_codes=self.ignored_codes(container),
            target=None if d.fargate is not None else AwsContainerTarget(container.start_mark.index, self.pascal),
            image=image,
            command="" if d.batch and self.signals.is_utility_command(words) else " ".join(words),
            accelerator_count=count,
        )

    def gpu_evidence(self, container: MappingNode) -> tuple[tuple[Evidence, ...], int | None]:
        found: list[Evidence] = []
        count = 0
        for item in sequence(self.m.get(container, "resourceRequirements")):
            value = scalar(self.m.get(item, "value"))
            if (scalar(self.m.get(item, "type")) or "").upper() == "GPU" and value and positive_count(value):
                found.append(Evidence(f"resourceRequirements GPU: {value}", self.span(item)))
                count += int(value) if value.isdigit() and len(value) < 10 else 0
        for key, (name_node, value_node) in self.env(container):
            if self.signals.is_gpu_env(key, scalar(value_node) or ""):
                span = self.source.span(name_node.start_mark.index, value_node.end_mark.index)
                found.append(Evidence(f"environment {key}={scalar(value_node)}", span))
        return tuple(found), count or None

    def env(self, container: MappingNode) -> Iterator[tuple[str, tuple[Node, Node]]]:
        for entry in sequence(self.m.get(container, "environment")):
            name, value = self.m.get(entry, "name"), self.m.get(entry, "value")
            if scalar(name) is not None and isinstance(value, ScalarNode) and name is not None:
                yield scalar(name) or "", (name, value)

    def command_words(self, container: MappingNode) -> list[str]:
        return [
            word
            for key in ("entryPoint", "command")
            for word in (scalar(item) for item in sequence(self.m.get(container, key)))
            if word
        ]

    def torch_evidence(self, container: MappingNode, image: str | None, words: list[str]) -> Iterator[Evidence]:
        image_node = self.m.get(container, "image")
        if image and image_node is not None and self.signals.is_torch_image(image):
            yield Evidence(f"image {image}", self.span(image_node))
        launch = self.signals.torch_command(" ".join(words))
        command = self.m.get(container, "command") or self.m.get(container, "entryPoint")
        if launch and command is not None:
            yield Evidence(f"command {launch}", self.span(command))

    def nccl_disabled(self, container: MappingNode) -> Evidence | None:
        for key, (name_node, value) in self.env(container):
            if key == nccl.SHM_DISABLE and nccl.disables_shm(scalar(value) or ""):
                span = self.source.span(name_node.start_mark.index, value.end_mark.index)
                return Evidence(f"environment NCCL_SHM_DISABLE={scalar(value)}", span)
        return None

    def ignored_codes(self, container: MappingNode) -> frozenset[str]:
        value = scalar(self.m.path(container, "dockerLabels", IGNORE_LABEL)) or ""
        return frozenset(code.strip() for code in value.split(",") if code.strip())

    # -- sizes -----------------------------------------------------------------------------------------------

    def mib(self, node: Node | None) -> Size | None:
        """A whole number of MiB as the API takes it; a function is known at deploy time only."""
        if node is None or (scalar(node) is None and not is_function(node)):
            return None
        text = self.source.text[node.start_mark.index : node.end_mark.index]
        if is_function(node):
            return Size(text, None, self.span(node), MIB_DIALECT)
        value = scalar(node) or ""
        quoted = isinstance(node, ScalarNode) and node.style in ('"', "'")
        if _WHOLE.match(value) and (self.pascal or not quoted):  # CloudFormation turns "8192" into a number
            return Size(text, int(value) * MIB, self.span(node), MIB_DIALECT)
        if _WHOLE.match(value):
            return Size(text, None, self.span(node), MIB_DIALECT, f"{text} is a string; the API takes a number", value)
        meant = parse_either(value)
        suggestion = str(meant // MIB) if meant and meant % MIB == 0 else None
        error = f"{text} is not a whole number of MiB"
        return Size(text, None, self.span(node), MIB_DIALECT, error, suggestion)

    def memory_limit(self, d: _Definition, container: MappingNode) -> Size | None:
        own = self.mib(self.m.get(container, "memory"))
        if own is not None:
            return own
        for item in sequence(self.m.get(container, "resourceRequirements")):
            if (scalar(self.m.get(item, "type")) or "").upper() == "MEMORY":
                value = self.m.get(item, "value")
                text = scalar(value)
                if value is not None and text is not None and _WHOLE.match(text):  # a string in the API
                    return Size(text, int(text) * MIB, self.span(value), MIB_DIALECT)
        task_memory = self.m.get(d.body, "memory")
        match = _TASK_MEMORY.match(scalar(task_memory) or "")
        if task_memory is not None and match:
            scale = 1024 * MIB if match.group(2) else MIB
            return Size(scalar(task_memory) or "", int(match.group(1)) * scale, self.span(task_memory), MIB_DIALECT)
        return None

    # -- /dev/shm --------------------------------------------------------------------------------------------

    def shm_sources(self, d: _Definition, task: MappingNode, container: MappingNode) -> Iterator[ShmSource]:
        m = self.m
        applied: list[ShmSource] = []
        ipc = scalar(m.get(task, "ipcMode"))
        ipc_span = self.pair_span(task, "ipcMode")
        if ipc_span is not None and ipc in _IPC_KINDS and d.fargate is None:
            applied.append(
                ShmSource(_IPC_KINDS[ipc], ShmMechanism.IPC_MODE, ipc_span, f"{self.spell('ipcMode')}: {ipc}")
            )
        linux = m.get(container, "linuxParameters")
        size = self.mib(m.get(linux, "sharedMemorySize"))
        size_span = self.pair_span(linux, "sharedMemorySize")
        if size is not None and size_span is not None:
            described = self.spell("linuxParameters.sharedMemorySize")
            if d.fargate is not None:
                described += " (Fargate does not support it)"
                applied.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.PLATFORM, size_span, described, size))
            else:
                applied.append(ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, size_span, described, size))
        for mount in sequence(m.get(linux, "tmpfs")):
            if is_shm_path(scalar(m.get(mount, "containerPath")) or ""):
                described = f"{self.spell('linuxParameters.tmpfs')} at /dev/shm"
                tmpfs = self.mib(m.get(mount, "size"))
                applied.append(ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, self.span(mount), described, tmpfs))
        applied.extend(self.volume_sources(task, container))
        if d.fargate is not None and not applied:
            span = self.span(d.fargate)
            described = "Fargate's own /dev/shm (Fargate takes no shm setting and AWS documents no size for it)"
            applied.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.PLATFORM, span, described))
        yield from applied

    def volume_sources(self, task: MappingNode, container: MappingNode) -> Iterator[ShmSource]:
        """A task volume mounted at /dev/shm: the instance's folder (``host.sourcePath``) or a docker volume."""
        m = self.m
        volumes = {scalar(m.get(v, "name")): v for v in sequence(m.get(task, "volumes"))}
        for mount in sequence(m.get(container, "mountPoints")):
            if not is_shm_path(scalar(m.get(mount, "containerPath")) or ""):
                continue
            name = scalar(m.get(mount, "sourceVolume")) or ""
            volume = volumes.get(name)
            host = scalar(m.path(volume, "host", "sourcePath"))
            if volume is None:
                continue
            if host is not None:
                described = f'host volume "{name}" ({host})'
                yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, self.span(mount), described, None, name, host)
            else:
                yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, self.span(mount), f'volume "{name}"', None, name)


_JOB_KEYS = ("containerProperties", "nodeProperties", "eksProperties", "ecsProperties")
_IPC_KINDS = {"host": ShmKind.HOST_IPC, "none": ShmKind.NONE, "task": ShmKind.SHARED}


def document_as_task(document: SequenceNode) -> MappingNode:
    """A bare list of container definitions read as a task that holds them (and nothing else)."""
    key = ScalarNode("tag:yaml.org,2002:str", "containerDefinitions", document.start_mark, document.start_mark)
    return MappingNode("tag:yaml.org,2002:map", [(key, document)], document.start_mark, document.end_mark)


def _without_target(workload: Workload) -> Workload:
    return workload._replace(target=None)


def extract_aws(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    """ECS and Batch definitions in JSON, or the ECS and Batch resources of a CloudFormation template."""
    return _Extractor(source, signals, is_cloudformation(documents)).workloads(documents)
