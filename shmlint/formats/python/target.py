"""Where the Python fixer writes (``Workload.target`` of a launcher call). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class CallTarget(NamedTuple):
    """Where the Python fixer adds a keyword argument: before the call's closing parenthesis, spelled per library
    (``unit``: ``mib`` for an integer MiB, ``docker`` for ``"8g"``, ``kubernetes`` for ``"8Gi"``)."""

    close: int  # offset of the call's closing parenthesis
    keyword: str  # shared_memory, shm_size
    unit: str
