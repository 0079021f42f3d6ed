"""Where the compose fixer writes (``Workload.target`` of a service). Plain data, so it crosses process boundaries; the
extractor makes it and the writer reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from shmlint.source import Span


class ServiceTarget(NamedTuple):
    """Where a service-level ``shm_size`` can be written in the file that defines the service: the service's own
    mapping, never an anchor it merges from, so an edit changes this service only and touches the fewest bytes."""

    path: str
    service: str
    mapping_start: int  # offset of the service's own mapping node in that file
    shm_size: Span | None  # the mapping's own ``shm_size`` value
