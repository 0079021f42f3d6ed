"""Where the Akash fixer writes (``Workload.target`` of an SDL service). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class AkashTarget(NamedTuple):
    """The service's mapping and its compute profile's ``resources`` mapping, by their offsets in the file: a ram
    volume is declared in the one and mounted at /dev/shm in the other."""

    service_start: int
    resources_start: int
