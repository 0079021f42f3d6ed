"""AWS ECS task definitions and AWS Batch job definitions -> one Workload per container.

Read from JSON (a definition as ``register-*`` takes it, ``describe-*`` output, or a bare list of container
definitions as Terraform's ``container_definitions`` files hold) and from CloudFormation templates in YAML or JSON.
CloudFormation spells every key with a capital (``LinuxParameters: SharedMemorySize``); ``PascalKeys`` reads those
as the API's camelCase, so one walk serves both. Batch on EKS carries a Kubernetes pod spec, which the Kubernetes
extractor judges itself.

The container itself is judged by ``shmlint.containers.ecs`` (shared with Terraform); this module finds the
definitions and is that judge's view of the nodes. Fargate (``requiresCompatibilities``/``platformCapabilities``)
accepts none of the shm settings and has no GPUs; AWS documents no size for its /dev/shm, so there it is unknown,
and no fix can be written.
A Batch job definition's ``command`` is a default each SubmitJob may replace (``containerOverrides.command``):
a utility there (``nvidia-smi``) is a placeholder, not what the GPU job runs, so the tier model does not see it.

A value written as a CloudFormation function (``!Ref ShmSize``, ``{"Fn::GetAtt": ...}``) is known only when the
stack is deployed: it counts as written, with no size, like ``${SHM}`` in a compose file.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.containers import base_dir
from shmlint.containers.ecs import MIB_DIALECT, judge_container, mib_size
from shmlint.formats.aws.target import AwsContainerTarget
from shmlint.formats.kubernetes.extract import extract_pod_spec
from shmlint.model import Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar, sequence
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

TASK_TYPE = "AWS::ECS::TaskDefinition"
JOB_TYPE = "AWS::Batch::JobDefinition"
FARGATE = "FARGATE"


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
                # the pod fixer writes JSON in a JSON file; no writer spells CloudFormation's PascalCase pod spec
                yield _without_target(workload) if self.pascal else workload

    def container(self, d: _Definition, task: Node | None, container: Node | None, role: str) -> Iterator[Workload]:
        """One container; ``task`` holds what it shares with its neighbours (volumes, ``ipcMode``)."""
        if not isinstance(container, MappingNode) or not isinstance(task, MappingNode):
            return
        fargate = self.span(d.fargate) if d.fargate is not None else None
        judged = judge_container(self, task, container, self.signals, base_dir(self.source.path), fargate)
        if d.batch and self.signals.is_utility_command(judged.judged.command.split()):
            # a placeholder SubmitJob replaces, not what the job runs
            judged = judged._replace(judged=judged.judged._replace(command="", launch=None))
        identity = d.owner._replace(role=role, container_kind="container", container=judged.name)
        target = None if d.fargate is not None else AwsContainerTarget(container.start_mark.index, self.pascal)
        yield judged.workload(identity, self.span(container), target)

    # -- EcsTree: the shared judge's view of YAML and JSON nodes ---------------------------------------------

    def between(self, first: Node, last: Node) -> Span:
        return self.source.span(first.start_mark.index, last.end_mark.index)

    def get(self, node: Node | None, key: str) -> Node | None:
        return self.m.get(node, key)

    def elements(self, node: Node | None) -> list[Node]:
        return sequence(node)

    def text(self, node: Node | None) -> str | None:
        return scalar(node)

    def is_computed(self, node: Node | None) -> bool:
        return is_function(node)

    def mib(self, node: Node | None) -> Size | None:
        """A whole number of MiB as the API takes it; a function is known at deploy time only."""
        if node is None or (scalar(node) is None and not is_function(node)):
            return None
        text = self.source.text[node.start_mark.index : node.end_mark.index]
        if is_function(node):
            return Size(text, None, self.span(node), MIB_DIALECT)
        quoted = isinstance(node, ScalarNode) and node.style in ('"', "'")
        return mib_size(text, scalar(node), self.span(node), quoted=quoted, strings_are_numbers=self.pascal)


_JOB_KEYS = ("containerProperties", "nodeProperties", "eksProperties", "ecsProperties")


def document_as_task(document: SequenceNode) -> MappingNode:
    """A bare list of container definitions read as a task that holds them (and nothing else)."""
    key = ScalarNode("tag:yaml.org,2002:str", "containerDefinitions", document.start_mark, document.start_mark)
    return MappingNode("tag:yaml.org,2002:map", [(key, document)], document.start_mark, document.end_mark)


def _without_target(workload: Workload) -> Workload:
    return workload._replace(target=None, volume_cap=None)


def extract_aws(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    """ECS and Batch definitions in JSON, or the ECS and Batch resources of a CloudFormation template."""
    return _Extractor(source, signals, is_cloudformation(documents)).workloads(documents)
