"""Whether a text still parses as its kind: the fixer's guard against an edit that breaks a file."""

from __future__ import annotations

from shmlint.file_formats import FileKind, file_names
from shmlint.source import SourceText


def parse_error(source: SourceText, kind: FileKind, *, strict: bool = False) -> str | None:
    """Why the text does not parse, whatever rules are selected; None when it does (or when the kind's text is
    tokenised, never rejected: shell, Makefile, Markdown, Jenkinsfile).

    ``strict`` also refuses what kubectl and docker compose reject although YAML composes it (a duplicate key)."""
    check = file_names(kind).syntax_error
    return None if check is None else check(source, strict)
