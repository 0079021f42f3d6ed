"""docker compose files -> one Workload per service.

One module per job: ``detect`` (is this YAML a compose file, an override?), ``project`` (the files, layers,
``extends``, override files and merge keys that make a service what compose runs), ``evidence`` (GPU, torch,
memory limit, NCCL, labels), ``shm`` (the /dev/shm sources and the ``ipc: service:`` graph) and ``fragments`` (a
service that is a part of one another file defines: a note, not a workload). This module puts
each service's Workload together and says where a fix may write.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.containers.docker import with_later_commands
from shmlint.formats.compose import evidence
from shmlint.formats.compose.detect import is_compose, is_override
from shmlint.formats.compose.devcontainer import devcontainer_gpus
from shmlint.formats.compose.fragments import part_of_another
from shmlint.formats.compose.project import ComposeFile, Project, Service, compose_file
from shmlint.formats.compose.shm import Own, own_shm, with_shared
from shmlint.formats.compose.target import ServiceTarget
from shmlint.model import Evidence, Notice, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.yamlnodes import MERGE_TAG, Node, ScalarNode, scalar
from shmlint.signals import Signals
from shmlint.source import SourceText

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

__all__ = ["extract_compose", "is_compose", "is_override"]


def extract_compose(
    source: SourceText,
    documents: list[Node],
    signals: Signals,
    *,
    base_dir: Path,
    files: ProjectFiles,
    embedded: bool = False,
) -> tuple[list[Workload], list[Notice]]:
    """One Workload per service defined in this file, with ``extends``, and the files compose merges with it.

    A set of files the repository names (``-f`` in a script, ``COMPOSE_FILE``), or a default file and its
    override, are judged together, as ``docker compose`` runs them; each file reports the services it defines first
    (a service only a later file adds belongs to that file), so findings and fixes land in the file that holds the
    service. A note says which named set a file was judged in. ``embedded``: the file is an example inside
    another (a document's code block, a here-document).
    """
    this = compose_file(source, documents, base_dir)
    if this is None:
        return [], []
    project = Project(files)
    if _builds_only(project, this):
        return [], [Notice(source.path, "a build file (every service only builds an image): nothing here runs")]
    services = project.services_for(this)
    fragments = {s.name: why for s in services if s.file is this and (why := part_of_another(project, s))}
    services = [s for s in services if s.name not in fragments]
    owns = {service.name: own_shm(project, service) for service in services}
    dev_gpus = devcontainer_gpus(source.path, files)
    owned = (_owned(project, service) for service in services)
    # a Dockerfile beside a compose file builds a pulled image only where no service of the merged files builds
    # one itself (that build would be the one the Dockerfile is for), and never for a compose example in a document
    # or a here-document (its images are as often third-party ones)
    beside = not embedded and not any(project.get(service, "build") is not None for service in services)
    made = [
        (service, _workload(project, service, signals, owns, dev_gpus.get(service.name), beside))
        for service in owned
        if service.file.source.path == source.path
    ]
    # a document's example is not what its repository's scripts run
    workloads = [workload if embedded else _with_runs(project, service, workload) for service, workload in made]
    notices = [Notice(source.path, why) for why in fragments.values()]
    named = project.judged_with
    if named is None:
        return workloads, notices
    merged = ", ".join(os.path.basename(f) for f in named.files)
    return workloads, [
        *notices,
        Notice(source.path, f"judged merged with the compose files {merged}, as {named.where} runs them"),
    ]


#: what a service of a build file holds: how to build and name the image, nothing about running it
_BUILD_KEYS = frozenset({"build", "image", "container_name", "platform", "pull_policy", "labels", "profiles"})


def _builds_only(project: Project, file: ComposeFile) -> bool:
    """A compose file named for building (``docker-compose.build.yml``) whose every service has ``build`` and only
    keys about the image: ``docker compose -f ... build`` reads it, nothing runs from it. A service with no more
    than ``build`` in an ordinary compose file does run (``up`` builds and starts it), so the name decides too."""
    if "build" not in os.path.basename(file.source.path).lower():
        return False
    services = [project.service_node(file, name) for name in project.service_names(file)]
    return bool(services) and all(
        pair is not None
        and project.m.get(pair[1], "build") is not None
        and set(project.m.items(pair[1])) <= _BUILD_KEYS
        for pair in services
    )


def _workload(
    project: Project,
    service: Service,
    signals: Signals,
    owns: dict[str, Own],
    dev_gpu: Evidence | None,
    beside: bool,
) -> Workload:
    """``dev_gpu``: the GPU reservation a dev container's ``hostRequirements.gpu`` adds to the service; ``beside``:
    a Dockerfile beside the file may build the image a service pulls (``evidence.launch``)."""
    words = evidence.command_words(project, service)
    utility = signals.is_utility_command(words)
    found = [*evidence.gpu_evidence(project, service, signals), *([dev_gpu] if dev_gpu else [])]
    gpu = () if utility else tuple(found)
    key = service.key
    torch = () if utility else tuple(evidence.torch_evidence(project, service, signals, words))
    return Workload(
        id=WorkloadId(WorkloadFormat.COMPOSE, "service", service.name),
        span=service.file.source.span(key.start_mark.index, key.end_mark.index),
        gpu=gpu,
        torch=torch,
        shm=with_shared(service.name, owns),
        memory_limit=evidence.memory_limit(project, service),
        nccl_shm_disabled=evidence.nccl_shm_disabled(project, service),
        ignored_codes=evidence.ignored_codes(project, service),
        dataloader_text=evidence.dataloader_text(project, service),
        target=_target(project, service, owns[service.name]),
        image=project.text(project.get(service, "image")),
        command=" ".join(words),
        accelerator_count=evidence.accelerator_count(project, service, signals) if gpu else None,
        launch=evidence.launch(project, service, beside),  # also on the CPU: a build of its image may be torch work
    )


def _with_runs(project: Project, service: Service, workload: Workload) -> Workload:
    """A GPU service with what the repository's scripts and documents run in it by the compose CLI (``docker compose
    run SERVICE COMMAND``, ``docker compose exec SERVICE COMMAND``, a guide's session in a shell opened so) as its
    later steps: taken where they show a need its own command does not, at most a warning
    (``Workload.command_later``), said with where they are written (audit80c: a README's training command in a GPU
    service whose own command starts a web UI). Several are read as one script, one command a line."""
    if not workload.gpu or workload.launch is None:
        return workload
    from shmlint.formats.compose.file_sets import service_runs  # for a GPU service only

    runs = service_runs(project.files, str(service.file.base_dir), service.name, service.file.source.path)
    if not runs:
        return workload
    commands = [command for run in runs for command in run.commands]
    more = f" and {len(runs) - 1} more" if len(runs) > 1 else ""
    steps = with_later_commands(workload, commands, f"{runs[0].said}{more}", own_entrypoint=False)
    return workload._replace(later_steps=steps)


def _owned(project: Project, service: Service) -> Service:
    """The service as the file that holds its fix reports it: the file that defines it first, unless a file compose
    reads later (an override, a later ``-f`` file) writes ``shm_size`` for it. That value wins, so an edit in the
    first file would change nothing: the service is reported, and fixed, in the last file that writes it, through
    the service's own mapping there."""
    later = [layer for layer in service.layers if project.m.get(layer.node, "shm_size") is not None]
    if not later or later[-1].file is service.file:
        return service
    pair = project.service_node(later[-1].file, service.name)
    if pair is None:
        return service
    return service._replace(key=pair[0], file=later[-1].file, mapping=pair[1])


def _written_later(project: Project, service: Service) -> bool:
    """Whether a ``shm_size`` in the service's own mapping would not be the one that applies: a layer compose
    merges after it sets, empties or resets ``shm_size`` (an ``extends`` in the same later file, a tagged value),
    and that layer wins. An edit here would change nothing; the finding's fix is not offered."""
    home = next((index for index, layer in enumerate(service.layers) if layer.node is service.mapping), None)
    if home is None:
        return True
    shm = project.m.get(service.mapping, "shm_size")
    return (shm is not None and shm.tag.startswith("!")) or any(
        project.m.get(layer.node, "shm_size") is not None for layer in service.layers[home + 1 :]
    )


def _target(project: Project, service: Service, own: Own) -> ServiceTarget | None:
    """Where a fixer writes ``shm_size``: the service's own mapping. None where an edit there would not do what
    it says: a service written as an alias, a mapping other services merge in (the edit would change them too), a
    service that joins another one's IPC namespace (its own shm_size does not apply), or one whose ``shm_size`` a
    file compose reads later sets or resets (``_written_later``: an edit here would not win)."""
    mapping, key, source = service.mapping, service.key, service.file.source
    if mapping.start_mark.index < key.end_mark.index or id(mapping) in project.merged_elsewhere(service.file):
        return None
    if own.ipc_service is not None or _written_later(project, service):
        return None
    mine = {scalar(k): v for k, v in mapping.value if isinstance(k, ScalarNode) and k.tag != MERGE_TAG}
    shm = mine.get("shm_size")
    shm_span = source.span(shm.start_mark.index, shm.end_mark.index) if shm is not None else None
    return ServiceTarget(source.path, service.name, mapping.start_mark.index, shm_span)
