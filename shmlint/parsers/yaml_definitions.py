"""CustomResourceDefinition documents left out of a YAML stream too large to compose with them.

A CRD is a schema, never a workload, and an operator's CRDs run to megabytes each: a kustomization that renders
three of them went past the node budget, an SHM000 "too complex" on a tree with no problem. Such a stream is
composed again with their text blanked, not cut, so every offset, line and column of the documents around them
stays where the file has it; ``yamlnodes.compose`` still checks the whole stream's syntax first (libyaml's
parser alone), and every reader of the stream (the check, KServe's runtime index, the fixer) composes it the same
way.
"""

from __future__ import annotations

import itertools
import re

from shmlint.lazy_regex import LazyRegex

#: a document's own ``kind: CustomResourceDefinition`` (top level: at the start of a line)
_DEFINITION_KIND = LazyRegex(
    r"^kind:[ \t]*[\"']?CustomResourceDefinition[\"']?[ \t]*(?:#[^\r\n]*)?\r?$",
    re.MULTILINE,
    ("customresourcedefinition",),
)
#: a document marker at the start of a line (``---``, or ``...`` that ends one), as YAML reads it inside any node
_MARKER = LazyRegex(r"^(?:---|\.\.\.)(?=[ \t\r\n]|\Z)", re.MULTILINE)
_LINE_TEXT = LazyRegex(r"[^\r\n]+")


def _spaces(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


def blank_definitions(text: str) -> str | None:
    """``text`` with the body of each CRD document (after its ``---`` line) turned to spaces, line breaks kept;
    None when it holds none."""
    if "CustomResourceDefinition" not in text or _DEFINITION_KIND.search(text) is None:
        return None
    starts = [0, *(match.start() for match in _MARKER.finditer(text)), len(text)]
    pieces: list[str] = []
    for start, end in itertools.pairwise(starts):
        document = text[start:end]
        if _DEFINITION_KIND.search(document) is None:
            pieces.append(document)
            continue
        marked = _MARKER.match(document) is not None  # its marker line stays: the stream keeps its documents
        first_break = document.find("\n") + 1 if marked else 0
        pieces.append(document[:first_break] + _LINE_TEXT.sub(_spaces, document[first_break:]))
    return "".join(pieces)
