"""Where the GitLab runner fixer writes (``Workload.target`` of a runner). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class TableTarget(NamedTuple):
    """Where the GitLab runner fixer writes ``shm_size`` in ``[runners.docker]``: over the value already there (0,
    the default), or as a new line after the table's last key (``line_prefix``: the line break and indentation)."""

    insert_at: int
    line_prefix: str
    existing: tuple[int, int] | None = None
