"""The code blocks of a reStructuredText document: code directives and ``::`` literal blocks."""

from __future__ import annotations

import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import indentation, offset_lines
from shmlint.parsers.embedded.shell_blocks import (
    YAML_LANGUAGES,
    ShellBlocks,
    extent,
    holds_dockerfile,
    mask_shell_blocks,
)

#: a reStructuredText section's underline or overline (``~~~~``, ``====``)
_RST_HEADING = LazyRegex(r"^([=\-~^\"'`#*+_:.<>])\1{2,}[ \t\r]*$", re.MULTILINE)
_RST_DIRECTIVE = LazyRegex(r"^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*(?P<language>[\w+-]*)[ \t\r]*$")
_RST_OPTION = LazyRegex(r"^[ \t]+:[\w-]+:")
_RST_EXPLICIT = LazyRegex(r"^[ \t]*\.\.(?:[ \t]|$)")


def mask_rst(text: str) -> str:
    """Shell code blocks of a reStructuredText file: ``code-block``/``code``/``sourcecode`` directives tagged
    bash/sh/shell/zsh/console or untagged, and ``::`` literal blocks (untagged, like an untagged Markdown fence)."""
    return mask_shell_blocks(text, rst_code_blocks(text), _RST_HEADING)[0]


def rst_shell_blocks(text: str) -> tuple[str, ShellBlocks]:
    """``mask_rst`` and the lines it keeps of each block."""
    return mask_shell_blocks(text, rst_code_blocks(text), _RST_HEADING)


def rst_yaml_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every ``code-block:: yaml`` (or ``yml``) directive."""
    return [extent(block) for block, language in rst_code_blocks(text) if language in YAML_LANGUAGES]


def rst_dockerfile_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every code block that is a Dockerfile (``holds_dockerfile``)."""
    return [extent(block) for block, language in rst_code_blocks(text) if holds_dockerfile(block, language)]


def rst_code_blocks(text: str) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """Bodies of code directives (language in lower case) and of ``::`` literal blocks (language ""): the lines
    indented deeper than the directive or paragraph, after the directive's options, blank lines trimmed. Lines
    inside other directives (a code block in a ``.. note::``) are read on; a code body is skipped as a whole."""
    lines = list(offset_lines(text))
    index = 0
    while index < len(lines):
        line = lines[index][1]
        index += 1
        directive = _RST_DIRECTIVE.match(line)
        literal = directive is None and line.rstrip().endswith("::") and not _RST_EXPLICIT.match(line)
        if not (directive or (literal and index < len(lines) and not lines[index][1].strip())):
            continue
        indent = indentation(line)
        while directive and index < len(lines) and _RST_OPTION.match(lines[index][1]):
            index += 1
        body: list[tuple[int, str]] = []
        while index < len(lines) and (not lines[index][1].strip() or indentation(lines[index][1]) > indent):
            body.append(lines[index])
            index += 1
        while body and not body[-1][1].strip():
            body.pop()
        while body and not body[0][1].strip():
            body.pop(0)
        if body:
            yield body, directive["language"].lower() if directive else ""
