"""Fixes for Azure ML jobs: ``resources.shm_size`` written, or added (with ``resources`` when the job has none)."""

from __future__ import annotations

from shmlint.edits import yamledit
from shmlint.edits.yamledit import Block
from shmlint.formats.azureml.extract import DOCKER_ARGS_SIZE
from shmlint.formats.azureml.target import AzureJobTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.parsers.yamlnodes import MappingNode, Mappings, mappings_at
from shmlint.sizes import format_docker
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """A command job or step, a new size, and no ``docker_args --shm-size`` (which would override it)."""
    declared = fix.source
    return (
        isinstance(workload.target, AzureJobTarget)
        and fix.action is FixAction.SET_SIZE
        and bool(fix.size_bytes)
        and declared is not None
        and declared.description != DOCKER_ARGS_SIZE
    )


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, AzureJobTarget) or fix.action is not FixAction.SET_SIZE or not fix.size_bytes:
        return []
    job = mappings_at(source, (target.job_start,)).get(target.job_start)
    if job is None:
        return []
    size = format_docker(fix.size_bytes)
    m = Mappings()
    resources = m.get(job, "resources")
    written = m.get(resources, "shm_size")
    if written is not None:
        return [yamledit.replace_node(written, size)]
    if isinstance(resources, MappingNode):
        return [yamledit.add_key(source, resources, "shm_size", size, yamledit.indent_step(job), 0)]
    if resources is not None or yamledit.is_flow(job):
        return []
    return [yamledit.add_key(source, job, "resources", Block((("shm_size", size),)), yamledit.indent_step(job), 0)]
