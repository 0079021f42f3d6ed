"""Terraform resources -> one Workload per container.

Three families of resources run containers with a /dev/shm of their own: the Kubernetes provider's workloads
(``kubernetes_deployment``, ``_pod``, ``_job``, ``_stateful_set``, ``_daemon_set``, ``_cron_job``, with or
without ``_v1``: pod specs spelled in snake_case blocks), the docker provider's ``docker_container`` (``shm_size``
and ``memory`` in MiB) and AWS task and job definitions (``aws_ecs_task_definition``, ``aws_batch_job_definition``:
container definitions as ``jsonencode(...)`` or a JSON heredoc). Each is read into its container judge's view (by
``pod`` and ``docker`` beside this module, ``shmlint.extract.terraform_ecs``) and judged as every other syntax of
that model is (``shmlint.containers``); this module walks the resources and reads the AWS documents.
Values Terraform computes (variables, locals, interpolations, ``file(...)``) are unknown: they lower a finding
to a warning where they could carry a size, and are never read as anything else. A JSON heredoc is a template:
``${...}`` inside it are such values and the JSON around them is read (``parse_template_json``); what stays
unknown where shmlint needs it (a whole definition, a value where JSON needs one, directives) is a notice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from shmlint.containers import base_dir
from shmlint.containers.ecs import judge_container
from shmlint.extract.terraform_ecs import HclEcsTree, task_value
from shmlint.formats.terraform.docker import DOCKER_CONTAINER, docker_workload
from shmlint.formats.terraform.pod import EKS_BLOCKS, KUBERNETES_BLOCKS, pod_workloads, words
from shmlint.formats.terraform.target import HclTarget
from shmlint.model import Notice, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.hcl import (
    CALL,
    HEREDOC,
    OBJECT,
    TUPLE,
    UNKNOWN,
    Block,
    HclError,
    Item,
    Value,
    entry,
    parse,
)
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

KUBERNETES_WORKLOADS = frozenset(
    f"kubernetes_{kind}{version}"
    for kind in ("pod", "deployment", "job", "stateful_set", "daemon_set", "cron_job", "replication_controller")
    for version in ("", "_v1")
)
#: how many computed values a notice names, and how long a quoted expression may be
MAX_LISTED = 5
MAX_QUOTED = 60
ECS_TASK = "aws_ecs_task_definition"
BATCH_JOB = "aws_batch_job_definition"


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
            yield from pod_workloads(self.source, self.signals, resource, KUBERNETES_BLOCKS)
        elif kind == DOCKER_CONTAINER:
            yield docker_workload(self.source, self.signals, resource)
        elif kind in (ECS_TASK, BATCH_JOB):
            yield from self.aws(resource)

    # -- AWS ECS task definitions and Batch job definitions ----------------------------------------------------

    def aws(self, resource: Block) -> Iterator[Workload]:
        kind, name = resource.labels
        platforms = words(
            resource.attribute("requires_compatibilities" if kind == ECS_TASK else "platform_capabilities")
        )
        if platforms and all(p.upper() == "FARGATE" for p in platforms):
            return  # Fargate has no /dev/shm setting and no GPUs: nothing to judge or to fix
        if kind == BATCH_JOB and resource.child("eks_properties") is not None:
            yield from pod_workloads(
                self.source, self.signals, resource, EKS_BLOCKS
            )  # Batch on EKS: a pod spec, judged like Kubernetes
            return
        tree, task = HclEcsTree(self.source), task_value(resource) if kind == ECS_TASK else None
        for holder, definition, syntax in self.container_definitions(resource):
            # a Batch container holds its own volumes; only an ECS task (or a Batch ECS task) has an ipcMode
            judged = judge_container(tree, task or holder, definition, self.signals, base_dir(self.source.path))
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
