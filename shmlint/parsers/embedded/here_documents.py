"""Manifests written in shell here-documents (``kubectl apply -f - <<EOF``, ``cat > job.yaml <<EOF``), in scripts
and in documentation's shell blocks: where they are, and the text as the shell passes them on, so each reads as
YAML where it is written and a fix lands in place.

A body is a manifest when a line of it starts with ``apiVersion:``, ``kind:`` or (a compose file) ``services:``
(an interpreter's here-document, a Python dict with ``"image":`` keys, is not). One whose lines lose their leading
tabs (``<<-``) and has any is not what the file shows: it is listed as skipped, for the report to say so. In one
the shell expands (an unquoted delimiter), ``\\$`` is an escaped ``$``: it is read as ``$$``, the same length,
which Kubernetes (in ``command``/``args``) and compose read back as the one ``$`` the shell writes; its ``${VAR}``
are values to come, as in an envsubst template.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.shell import here_documents

#: what a backslash escapes in a here-document the shell expands (``\\`` is read as a pair, so ``\\$X`` is a
#: backslash and an expansion)
_ESCAPE = LazyRegex(r"\\[\\$`\n]", 0, ("\\",))
#: a line a Kubernetes manifest or a compose file starts with
_MANIFEST_LINE = LazyRegex(
    r"^[ \t]*(?:apiVersion|kind|services)[ \t]*:", re.MULTILINE, ("apiversion", "kind", "services")
)


class HereManifests(NamedTuple):
    """The manifests of a text's here-documents: the text as the shell passes them on, where each is (and whether
    the shell expands it), where an escaping backslash (``\\$``) was read as ``$``, and the lines of those skipped
    because their tabs are stripped."""

    text: str
    blocks: tuple[tuple[int, int, bool], ...]  # start, end, expands
    escapes: tuple[int, ...]
    skipped: tuple[int, ...]  # offsets of bodies left alone (``<<-`` with tabs)


def manifests(text: str, blocks: str | None = None) -> HereManifests:
    """The here-document manifests of a script's ``text``, or of a document's shell ``blocks`` (masked with the
    text's offsets, their indentation kept: a delimiter indented as its opening line ends a body there)."""
    shell = text if blocks is None else blocks
    if "<<" not in shell:
        return HereManifests(text, (), (), ())
    bodies = here_documents(shell, in_blocks=blocks is not None)
    found = [body for body in bodies if _MANIFEST_LINE.search(shell, body.start, body.end)]
    skipped = [body for body in found if body.strips_tabs and "\n\t" in "\n" + shell[body.start : body.end]]
    kept = [body for body in found if body not in skipped]
    escapes = tuple(
        at.start()
        for body in kept
        if body.expands
        for at in _ESCAPE.finditer(text, body.start, body.end)
        if at.group() == "\\$"
    )
    found_blocks = tuple((body.start, body.end, body.expands) for body in kept)
    return HereManifests(as_passed(text, escapes), found_blocks, escapes, tuple(body.start for body in skipped))


def as_passed(text: str, escapes: tuple[int, ...]) -> str:
    """The text with each escaping backslash at ``escapes`` read as the ``$`` it stands for (same length)."""
    if not escapes:
        return text
    chars = list(text)
    for offset in escapes:
        chars[offset] = "$"
    return "".join(chars)
