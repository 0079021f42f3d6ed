"""Where the AWS fixer writes (``Workload.target`` of an ECS/Batch container). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class AwsContainerTarget(NamedTuple):
    """Where the AWS fixer writes: an ECS/Batch container definition mapping, by its offset in the file."""

    container_start: int
    pascal_case: bool  # CloudFormation spells ``LinuxParameters: SharedMemorySize``
