"""docker compose files -> one Workload per service.

One module per job: ``detect`` (is this YAML a compose file, an override?), ``project`` (the files, layers,
``extends``, override files and merge keys that make a service what compose runs), ``evidence`` (GPU, torch,
memory limit, NCCL, labels) and ``shm`` (the /dev/shm sources and the ``ipc: service:`` graph). This module puts
each service's Workload together and says where a fix may write.
"""

from __future__ import annotations

from pathlib import Path

from shmlint.extract.compose import evidence
from shmlint.extract.compose.detect import is_compose, is_override
from shmlint.extract.compose.devcontainer import devcontainer_gpus
from shmlint.extract.compose.project import ComposeFile, Project, ReadFile, Service
from shmlint.extract.compose.shm import Own, own_shm, with_shared
from shmlint.model import Evidence, ServiceTarget, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.yamlnodes import MERGE_TAG, MappingNode, Node, ScalarNode, scalar
from shmlint.signals import Signals
from shmlint.source import SourceText

__all__ = ["extract_compose", "is_compose", "is_override"]


def extract_compose(
    source: SourceText,
    documents: list[Node],
    signals: Signals,
    *,
    base_dir: Path,
    read_file: ReadFile,
) -> list[Workload]:
    """One Workload per service defined in this file, with ``extends`` and the default override file merged in.

    A default file and its override are judged together, as ``docker compose`` runs them; each file reports the
    services it defines (a service only the override adds belongs to the override), so findings and fixes land in
    the file that holds the service.
    """
    root = next((doc for doc in documents if isinstance(doc, MappingNode)), None)
    if root is None:
        return []
    project = Project(read_file)
    services = project.services_for(ComposeFile(source, root, base_dir))
    owns = {service.name: own_shm(project, service) for service in services}
    dev_gpus = devcontainer_gpus(source.path, read_file)
    return [
        _workload(project, service, signals, owns, dev_gpus.get(service.name))
        for service in services
        if service.file.source.path == source.path
    ]


def _workload(
    project: Project, service: Service, signals: Signals, owns: dict[str, Own], dev_gpu: Evidence | None
) -> Workload:
    """``dev_gpu``: the GPU reservation a dev container's ``hostRequirements.gpu`` adds to the service."""
    words = evidence.command_words(project, service)
    utility = signals.is_utility_command(words)
    found = [*evidence.gpu_evidence(project, service, signals), *([dev_gpu] if dev_gpu else [])]
    gpu = () if utility else tuple(found)
    key = service.key
    return Workload(
        id=WorkloadId(WorkloadFormat.COMPOSE, "service", service.name),
        span=service.file.source.span(key.start_mark.index, key.end_mark.index),
        gpu=gpu,
        torch=() if utility else tuple(evidence.torch_evidence(project, service, signals, words)),
        shm=with_shared(service.name, owns),
        memory_limit=evidence.memory_limit(project, service),
        nccl_shm_disabled=evidence.nccl_shm_disabled(project, service),
        ignored_codes=evidence.ignored_codes(project, service),
        dataloader_text=evidence.dataloader_text(project, service),
        target=_target(project, service, owns[service.name]),
        image=project.text(project.get(service, "image")),
        command=" ".join(words),
        accelerator_count=evidence.accelerator_count(project, service, signals) if gpu else None,
    )


def _target(project: Project, service: Service, own: Own) -> ServiceTarget | None:
    """Where a fixer writes ``shm_size``: the service's own mapping. None where an edit there would not do what
    it says: a service written as an alias, a mapping other services merge in (the edit would change them too), or
    a service that joins another one's IPC namespace (its own shm_size does not apply)."""
    mapping, key, source = service.mapping, service.key, service.file.source
    if mapping.start_mark.index < key.end_mark.index or id(mapping) in project.merged_elsewhere(service.file):
        return None
    if own.ipc_service is not None:
        return None
    mine = {scalar(k): v for k, v in mapping.value if isinstance(k, ScalarNode) and k.tag != MERGE_TAG}
    shm = mine.get("shm_size")
    shm_span = source.span(shm.start_mark.index, shm.end_mark.index) if shm is not None else None
    return ServiceTarget(source.path, service.name, mapping.start_mark.index, shm_span)
