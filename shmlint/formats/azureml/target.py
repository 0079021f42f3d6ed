"""Where the Azure ML fixer writes (``Workload.target`` of a job). Plain data, so it crosses process boundaries; the
extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class AzureJobTarget(NamedTuple):
    """Where the Azure ML fixer writes: the job (or pipeline step) mapping that holds ``resources``."""

    job_start: int
