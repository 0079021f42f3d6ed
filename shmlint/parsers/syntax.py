"""Whether a text still parses as its kind: the fixer's guard against an edit that breaks a file."""

from __future__ import annotations

from shmlint.discover import FileKind
from shmlint.source import SourceText


def parse_error(source: SourceText, kind: FileKind, *, strict: bool = False) -> str | None:
    """Why the text does not parse, whatever rules are selected; None when it does.

    ``strict`` also refuses what kubectl and docker compose reject although YAML composes it (a duplicate key)."""
    if kind is not FileKind.YAML:
        return None  # shell, Makefile and Markdown text is tokenised, never rejected
    from shmlint.parsers.yamlnodes import YamlError, compose, key_problem

    try:
        documents = compose(source)
        problem = key_problem(documents) if strict else None
    except YamlError as exc:
        problem = exc
    return f"line {problem.line}, column {problem.column}: {problem.message}" if problem else None
