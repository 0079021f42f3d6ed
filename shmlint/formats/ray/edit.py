"""Fixes for Ray cluster launcher YAML: ``--shm-size`` added to ``docker.run_options`` (made when missing), which
both the head and the workers start with; sizes already written there are changed as on a command line."""

from __future__ import annotations

from shmlint import sizes
from shmlint.edits import yamledit
from shmlint.extract.commandline import CommandTarget
from shmlint.formats.commandline import edit as commandline
from shmlint.formats.ray.target import RayTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.parsers.yamlnodes import Mappings, SequenceNode, is_null, mappings_at
from shmlint.source import SourceText


def _as_command(workload: Workload, target: RayTarget) -> Workload:
    return workload._replace(target=CommandTarget(target.docker_start, target.size_slots))


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    target = workload.target
    if not isinstance(target, RayTarget):
        return False
    if fix.action is FixAction.ADD_SHM:
        return fix.size_bytes is not None
    return commandline.can_write(fix, _as_command(workload, target), source)


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, RayTarget):
        return []
    if fix.action is not FixAction.ADD_SHM or fix.size_bytes is None:
        return commandline.edits_for(fix, _as_command(workload, target), source)
    docker = mappings_at(source, [target.docker_start]).get(target.docker_start)
    if docker is None:
        return []
    option = f"--shm-size={sizes.format_docker(fix.size_bytes)}"
    m = Mappings()
    run_options = m.get(docker, "run_options")
    if isinstance(run_options, SequenceNode) and (run_options.value or yamledit.is_flow(run_options)):
        return [yamledit.append_scalar(source, run_options, option)]
    key = m.key(docker, "run_options")
    if key is not None and is_null(run_options):
        return [yamledit.replace_null(source, key, run_options, [f'"{option}"'])]
    if key is not None:
        return []  # run_options is something Ray would refuse: not ours to rewrite
    return [yamledit.add_key(source, docker, "run_options", f'["{option}"]', yamledit.indent_step(docker), 0)]
