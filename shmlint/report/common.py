"""What the CI-facing reporters share: how a path, a rule's docs page and a finding's extent are written.

Kept in one place so that SARIF, GitHub, JUnit and GitLab output (and baseline fingerprints) always agree on the
same path and the same lines for the same finding.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from urllib.parse import quote

from shmlint.model import Finding
from shmlint.source import Span


@functools.cache
def project_urls() -> Mapping[str, str]:
    """``[project.urls]`` of pyproject.toml, as the installed package's metadata carries it (label -> URL).

    Read on first use, not at import: importlib.metadata costs milliseconds that only reports with links pay.
    Empty when shmlint runs from a source tree that was never installed.
    """
    from importlib import metadata

    try:
        entries = metadata.metadata("shmlint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return {}
    pairs = (entry.partition(",") for entry in entries)
    return {label.strip(): url.strip() for label, _, url in pairs}


def homepage() -> str | None:
    return project_urls().get("Homepage")


def rule_url(code: str) -> str | None:
    """The rule's generated docs page (docs/rules/ is written from the catalog, so it exists for every code)."""
    rules = project_urls().get("Rules")
    return f"{rules}/{code}.md" if rules else None


def local_path(path: str) -> PurePath:
    """The path as this system spells it: on Windows with drive letters, UNC shares and either slash."""
    return PurePath(path)


def posix_path(path: str) -> str:
    """The path with forward slashes whatever ``os.sep`` is: CI services match it against repository paths, and
    baseline fingerprints stay the same on every system."""
    return local_path(path).as_posix()


def uri_reference(path: str) -> tuple[str, bool]:
    """(URI, whether it is relative to the checked-out tree): ``file:///C:/x`` for a drive letter,
    ``file://server/share/x`` for a UNC path, ``file:///x`` for a POSIX absolute path.

    Undecodable bytes of a file name were kept as surrogates: the original bytes are percent-encoded."""
    local = local_path(path)
    posix = local.as_posix()
    if not local.drive and not local.root:
        return _quote(posix), True
    if local.drive.endswith(":"):
        return f"file:///{local.drive}{_quote(posix[len(local.drive) :])}", False
    return "file:" + ("" if posix.startswith("//") else "//") + _quote(posix), False


def _quote(text: str) -> str:
    return quote(text, safe="/", errors="surrogateescape")


def title(finding: Finding) -> str:
    """``SHM001 missing-shm``: the rule as people name it, for annotation titles."""
    return f"{finding.code} {finding.slug}"


@dataclass(frozen=True)
class Extent:
    """The lines and 1-based columns to highlight; ``end_column`` None means "to the end of ``end_line``"."""

    line: int
    column: int
    end_line: int
    end_column: int | None


def extent(span: Span) -> Extent:
    """A span as CI tools should show it: never ending before it starts, never spilling onto the next line.

    Spans of whole YAML mappings end at column 1 of the line after them; highlighting that extra line would point
    at text the finding is not about, so such an end becomes the end of the previous line.
    """
    start = (max(span.line, 1), max(span.column, 1))
    end = max(start, (span.end_line, span.end_column))
    if end[1] == 1 and end[0] > start[0]:
        return Extent(start[0], start[1], end[0] - 1, None)
    return Extent(start[0], start[1], end[0], end[1])
