"""YAML scalars read as shell: a scalar's raw text copied into a mask, with the line breaks YAML itself folds made
spaces, so the words keep the file's offsets."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from shmlint.parsers.embedded.mask import Mask, indentation
from shmlint.parsers.yamlnodes import ScalarNode
from shmlint.source import SourceText


def mask_scalars(source: SourceText, nodes: Iterable[ScalarNode]) -> str:
    """Only these scalars' text, folded as YAML folds it: docker options held in a YAML string (a GitHub Actions
    job container's ``options``) read as shell words with the file's offsets."""
    mask = Mask(source.text)
    for node in nodes:
        keep_scalar(mask, node)
    return mask.result()


def keep_scalar(mask: Mask, node: ScalarNode) -> None:
    """Copy a scalar's raw text into the mask, folding the line breaks that YAML itself folds into spaces."""
    start, end = node.start_mark.index, node.end_mark.index
    text = mask.text
    if node.style in ("|", ">"):
        newline = text.find("\n", start, end)
        if newline == -1:
            return
        start = newline + 1
    elif node.style in ("'", '"'):
        start, end = start + 1, max(start + 1, end - 1)
    mask.keep(start, end)
    if node.style == "|":
        return
    body = text[start:end]
    base = min((indentation(line) for line in body.split("\n") if line.strip()), default=0)
    position = start
    lines = body.split("\n")
    for current, following in itertools.pairwise(lines):
        position += len(current)
        folds = current.strip() and following.strip()
        if folds and (node.style != ">" or indentation(current) == base == indentation(following)):
            mask.put(position, " ")
        position += 1
