"""Azure Machine Learning job YAML (CLI v2: command, sweep and pipeline jobs) -> one Workload per job or step.

Azure ML starts each job's container with a /dev/shm of ``resources.shm_size``, which defaults to ``2g`` (the
command job YAML reference, https://learn.microsoft.com/azure/machine-learning/reference-yaml-job-command), not
docker's 64 MiB. A job that writes no size therefore has a known 2 GiB: it is judged by the size rules against the
minimum or its DataLoader hint (``# shmlint: dataloader ...`` above the job), never as missing.
``resources.docker_args`` passes options to ``docker run`` and overrides what the section sets, so its
``--shm-size`` and ``--ipc=host`` win over ``shm_size``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from shmlint.containers import base_dir
from shmlint.formats.azureml.target import AzureJobTarget
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, scalar, sequence
from shmlint.runtime import nccl
from shmlint.signals import Signals
from shmlint.sizes import DOCKER, GIB, format_docker, parse_docker, parse_either
from shmlint.source import SourceText, Span

DEFAULT_SHM_SIZE = "2g"
DEFAULT_SHM_BYTES = 2 * GIB
JOB_TYPES = ("command", "sweep", "pipeline")
#: more processes per node than any machine has devices: a larger count is not read
MAX_PROCESSES = 1024
#: ``resources.shm_size`` as the job schema's pattern takes it: a number and one unit letter
_SHM_SIZE = LazyRegex(r"^(\d{1,12})([bkmg])$", re.IGNORECASE)
_UNITS = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
#: Azure's GPU virtual machine series (NC, ND, NV, NG), as ``resources.instance_type`` names them
_GPU_VM = LazyRegex(r"^Standard_N[CDVG]", re.IGNORECASE)
#: ``--shm-size=8g``, ``--shm-size 8g`` and ``--ipc=host`` in ``docker_args`` (one string or a list)
_DOCKER_SHM = LazyRegex(r"--shm-size(?:=|\s+)(\S{1,40})")
_DOCKER_HOST_IPC = LazyRegex(r"--ipc(?:=|\s+)host\b")
_EXPRESSION = "${{"
#: the description of a size passed in ``docker_args``, which the fixer leaves alone (it overrides ``shm_size``)
DOCKER_ARGS_SIZE = "docker_args --shm-size"


def is_azureml_job(documents: list[Node]) -> bool:
    """A command, sweep or pipeline job: its ``$schema`` says so, or its ``type`` and an ``azureml:`` compute."""
    m = Mappings()
    document = documents[0] if len(documents) == 1 else None
    schema = scalar(m.get(document, "$schema")) or ""
    if "azureml" in schema:
        return any(kind in schema for kind in ("commandJob", "sweepJob", "pipelineJob"))
    compute = scalar(m.get(document, "compute")) or ""
    return scalar(m.get(document, "type")) in JOB_TYPES and compute.startswith("azureml:")


class _Extractor:
    def __init__(self, source: SourceText, signals: Signals) -> None:
        self.source = source
        self.signals = signals
        self.m = Mappings()

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_mark.index, node.end_mark.index)

    def workloads(self, job: MappingNode) -> list[Workload]:
        name = scalar(self.m.get(job, "name")) or scalar(self.m.get(job, "display_name"))
        name = name or self.source.path.replace("\\", "/").rsplit("/", 1)[-1]
        kind = scalar(self.m.get(job, "type")) or "command"
        owner = WorkloadId(WorkloadFormat.AZUREML, f"Azure ML {kind} job", name, container_kind="job")
        if kind != "pipeline":
            return [self.workload(owner, job, job, kind)]
        default = self.m.get(job, "compute") or self.m.path(job, "settings", "default_compute")
        return [
            self.workload(owner._replace(role=f"step {step}"), value, job, scalar(self.m.get(value, "type")), default)
            for step, (_, value) in self.m.items(self.m.get(job, "jobs")).items()
            if isinstance(value, MappingNode)
        ]

    def workload(
        self, owner: WorkloadId, job: MappingNode, top: MappingNode, kind: str | None, compute: Node | None = None
    ) -> Workload:
        """``top`` is the job the file describes (a pipeline's steps inherit its compute)."""
        trial = self.m.get(job, "trial") if kind == "sweep" else None
        holder = trial if isinstance(trial, MappingNode) else job
        resources = self.m.get(holder, "resources") or self.m.get(job, "resources")
        command = scalar(self.m.get(holder, "command")) or ""
        gpu = tuple(self.gpu_evidence(resources, self.m.get(job, "compute") or compute))
        torch = tuple(self.torch_evidence(holder, job, command))
        return Workload(
            id=owner,
            span=self.span(job),
            gpu=gpu,
            torch=torch,
            shm=tuple(self.shm_sources(job, resources)),
            nccl_shm_disabled=self.nccl_disabled(holder, job),
            command=command,
            processes=self.processes(holder, job),
            # a sweep's trial and a job without its own mapping for resources are left to people
            target=AzureJobTarget(job.start_mark.index) if kind in (None, "command") else None,
            launch=self.launch(holder, job, command) if command and (gpu or torch) else None,
        )

    def launch(self, holder: MappingNode, job: MappingNode, command: str) -> Launch:
        """Azure ML runs ``command`` in a shell, in the ``code`` folder it uploads (relative to this file)."""
        folder = base_dir(self.source.path)
        code = scalar(self.m.get(holder, "code")) or scalar(self.m.get(job, "code")) or ""
        if code and ":" not in code and not code.startswith(("/", "\\")):  # a local folder, not azureml: or a URL
            folder = os.path.normpath(os.path.join(folder, code))
        env = {
            name: scalar(value) or ""
            for owner in (job, holder)
            for name, (_, value) in self.m.items(self.m.get(owner, "environment_variables")).items()
        }
        return Launch(folder, (), ("sh", "-c", command), "", tuple(env.items()))

    def processes(self, holder: MappingNode, job: MappingNode) -> int | None:
        """``distribution.process_count_per_instance``: Azure ML starts that many training processes in each
        node's container, and they share its /dev/shm."""
        distribution = self.m.get(holder, "distribution") or self.m.get(job, "distribution")
        count = scalar(self.m.get(distribution, "process_count_per_instance")) or ""
        return int(count) if count.isdigit() and 0 < int(count) <= MAX_PROCESSES else None

    def nccl_disabled(self, holder: MappingNode, job: MappingNode) -> Evidence | None:
        for owner in (holder, job):
            key = self.m.key(self.m.get(owner, "environment_variables"), nccl.SHM_DISABLE)
            value = self.m.get(self.m.get(owner, "environment_variables"), nccl.SHM_DISABLE)
            if key is not None and value is not None and nccl.disables_shm(scalar(value) or ""):
                span = self.source.span(key.start_mark.index, value.end_mark.index)
                return Evidence(f"environment_variables {nccl.SHM_DISABLE}={scalar(value)}", span)
        return None

    def gpu_evidence(self, resources: Node | None, compute: Node | None) -> Iterator[Evidence]:
        instance = self.m.get(resources, "instance_type")
        if instance is not None and _GPU_VM.match(scalar(instance) or ""):
            yield Evidence(f"instance_type {scalar(instance)}", self.span(instance))
        name = scalar(compute) or ""
        if compute is not None and "gpu" in name.lower():
            yield Evidence(f"compute {name}", self.span(compute))

    def torch_evidence(self, holder: MappingNode, job: MappingNode, command: str) -> Iterator[Evidence]:
        distribution = self.m.get(holder, "distribution") or self.m.get(job, "distribution")
        kind = self.m.get(distribution, "type")
        if (scalar(kind) or "").lower() == "pytorch" and kind is not None:
            yield Evidence("distribution type pytorch", self.span(kind))
        environment = self.m.get(holder, "environment") or self.m.get(job, "environment")
        image_node = self.m.get(environment, "image") or environment
        image = scalar(image_node) or ""
        if image_node is not None and (self.signals.is_torch_image(image) or _curated_torch(image)):
            yield Evidence(f"environment {image}", self.span(image_node))
        launch = self.signals.torch_command(command)
        node = self.m.get(holder, "command")
        if launch and node is not None:
            yield Evidence(f"command {launch}", self.span(node))

    def shm_sources(self, job: MappingNode, resources: Node | None) -> Iterator[ShmSource]:
        args = self.m.get(resources, "docker_args") or self.m.get(resources, "docker_args_list")
        words = [scalar(args)] if scalar(args) else [scalar(item) for item in sequence(args)]
        args_text = " ".join(word for word in words if word)
        host_ipc = args is not None and _DOCKER_HOST_IPC.search(args_text) is not None
        if args is not None and args_text:
            if host_ipc:
                yield ShmSource(ShmKind.HOST_IPC, ShmMechanism.IPC_MODE, self.span(args), "docker_args --ipc=host")
            shm_arg = _DOCKER_SHM.search(args_text)
            if shm_arg:
                size = self.docker_size(shm_arg.group(1), args)
                yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, self.span(args), DOCKER_ARGS_SIZE, size)
                return
        node = self.m.get(resources, "shm_size")
        key = self.m.key(resources, "shm_size")
        if node is not None and key is not None and scalar(node) is not None:
            span = self.source.span(key.start_mark.index, node.end_mark.index)
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "resources.shm_size", self.size(node))
            return
        if host_ipc:  # the host's /dev/shm: the default size is not used
            return
        span = self.span(self.m.key(job, "resources") or job)
        default = Size(DEFAULT_SHM_SIZE, DEFAULT_SHM_BYTES, span, DOCKER)
        described = f"Azure ML's default shm_size of {DEFAULT_SHM_SIZE}"
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, described, default)

    def size(self, node: Node) -> Size:
        text = scalar(node) or ""
        span = self.span(node)
        if _EXPRESSION in text:  # ${{parent.inputs.shm}}: known when the job is submitted
            return Size(text, None, span, DOCKER)
        match = _SHM_SIZE.match(text)
        if match:
            return Size(text, int(match.group(1)) * _UNITS[match.group(2).lower()], span, DOCKER)
        meant = parse_either(text)
        error = f"shm_size '{text}' is not a number and one unit letter (b, k, m or g) as Azure ML takes it"
        return Size(text, None, span, DOCKER, error, format_docker(meant) if meant else None)

    def docker_size(self, text: str, node: Node) -> Size:
        parsed = parse_docker(text.strip("'\""))
        return Size(text, parsed.bytes, self.span(node), DOCKER, parsed.error, parsed.suggestion)


def _curated_torch(environment: str) -> bool:
    """Azure's curated PyTorch environments: ``azureml:AzureML-ACPT-pytorch-...``, ``acpt-pytorch-2.2-cuda12.1``."""
    lowered = environment.lower()
    return "pytorch" in lowered or "acpt" in lowered


def extract_azureml(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    job = documents[0]
    return _Extractor(source, signals).workloads(job) if isinstance(job, MappingNode) else []
