"""Where the Ray fixer writes (``Workload.target`` of a cluster's docker section). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from shmlint.extract.commandline import SizeSlot


class RayTarget(NamedTuple):
    """Where the Ray fixer writes: the ``docker`` mapping (its ``run_options`` list, made when missing) by its
    offset in the file, and the size slots of the options already there."""

    docker_start: int
    size_slots: tuple[SizeSlot, ...] = ()
