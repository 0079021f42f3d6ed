"""Terraform resources that start containers: Kubernetes provider pods and workloads, ``docker_container``, ECS
task and Batch job definitions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText

#: a .tf file without these resource types holds no container, and is not parsed at all
_TERRAFORM_RESOURCES = LazyRegex(
    r"\b(?:kubernetes_(?:pod|deployment|job|stateful_set|daemon_set|cron_job|replication_controller)(?:_v1)?"
    r"|docker_container|aws_ecs_task_definition|aws_batch_job_definition)\b"
)


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """Terraform resources; the reader is imported only for a file that needs it."""
    # HCL parses slowly (about 2 ms a small file): a file that names no container resource, or holds none of
    # the signal words (no accelerator, no torch, no /dev/shm setting), cannot hold a finding and is not parsed.
    # Its syntax is Terraform's to judge (``terraform validate``), as for every .tf file shmlint does not read
    if _TERRAFORM_RESOURCES.search(source.text) is None or not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.dispatch import UnparsableInput
    from shmlint.formats.terraform.extract import extract_terraform
    from shmlint.parsers.hcl import HclError

    try:
        return extract_terraform(source, run.signals)
    except HclError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None


def _syntax_error(source: SourceText, strict: bool) -> str | None:
    """Re-read with the HCL reader: what the fixer's edits are verified against."""
    from shmlint.parsers.hcl import HclError, parse

    try:
        parse(source.text)
    except HclError as exc:
        return f"line {exc.line}, column {exc.column}: {exc.message}"
    return None


FORMAT = Format(
    name="terraform",
    label="Terraform",
    workload_format=WorkloadFormat.TERRAFORM,
    remedy=(
        "size it in the resource (an empty_dir volume with medium Memory mounted at /dev/shm, docker_container "
        "shm_size, or linuxParameters.sharedMemorySize)"
    ),
    fix_in_short="size /dev/shm in the resource",
    writer="shmlint.formats.terraform.edit",
    fixtures=("terraform",),
    # pre-commit's ``terraform`` type names both
    files=(FileNames(FileKind.TERRAFORM, rank=100, endings=(".tf", ".tfvars"), syntax_error=_syntax_error),),
    read=_read,
)
