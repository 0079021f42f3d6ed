"""Whether a text still parses as its kind: the fixer's guard against an edit that breaks a file."""

from __future__ import annotations

from shmlint.discover import FileKind
from shmlint.source import SourceText


def parse_error(source: SourceText, kind: FileKind, *, strict: bool = False) -> str | None:
    """Why the text does not parse, whatever rules are selected; None when it does.

    ``strict`` also refuses what kubectl and docker compose reject although YAML composes it (a duplicate key)."""
    if kind in (FileKind.TERRAFORM, FileKind.PYTHON):
        return _launcher_error(source, kind)
    if kind is FileKind.DEVCONTAINER:
        from shmlint.parsers.jsonc import JsoncError, parse

        try:
            parse(source.text)
        except JsoncError as exc:
            line, column = source.position(exc.offset)
            return f"line {line}, column {column}: {exc.message}"
        return None
    if kind is FileKind.GITLAB_RUNNER:
        import tomllib

        from shmlint.parsers.toml_tables import load_toml

        try:
            load_toml(source.text)
        except tomllib.TOMLDecodeError as exc:
            return str(exc)
        return None
    if kind not in (FileKind.YAML, FileKind.JSON):
        return None  # shell, Makefile, Markdown and Jenkinsfile text is tokenised, never rejected
    from shmlint.parsers.jsonnodes import compose_json
    from shmlint.parsers.yamlnodes import YamlError, compose, key_problem

    try:
        documents = compose(source) if kind is FileKind.YAML else compose_json(source)
        problem = key_problem(documents) if strict else None
    except YamlError as exc:
        problem = exc
    return f"line {problem.line}, column {problem.column}: {problem.message}" if problem else None


def _launcher_error(source: SourceText, kind: FileKind) -> str | None:
    """Terraform re-read with the HCL reader, Python with ``ast``: what the fixers' edits are verified against."""
    if kind is FileKind.TERRAFORM:
        from shmlint.parsers.hcl import HclError, parse

        try:
            parse(source.text)
        except HclError as exc:
            return f"line {exc.line}, column {exc.column}: {exc.message}"
        return None
    import ast

    try:
        ast.parse(source.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"line {getattr(exc, 'lineno', 1) or 1}: {exc}"
    return None
