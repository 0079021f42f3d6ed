"""DataLoader hints: ``# shmlint: dataloader workers=8 batch=64 sample=3x224x224`` on or above a workload, or the
``shmlint.io/dataloader`` annotation or label the extractors found. One syntax for every format, read here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.model import Evidence

if TYPE_CHECKING:
    from shmlint.model import DataLoaderHint, Workload
    from shmlint.source import SourceText


def _comment_above(source: SourceText, workload: Workload) -> Evidence | None:
    """A hint comment on the workload's first line, or in the comment lines right above it."""
    from shmlint.dataloader import HINT_COMMENT

    line = workload.span.line
    while line >= 1:
        text = source.line_text(line)
        match = HINT_COMMENT.search(text)
        if match:
            value = match.group("value").strip()
            start = source.line_starts[line - 1] + match.start("value") + match.group("value").index(value[:1])
            return Evidence(value, source.span(start, start + len(value)))
        if line < workload.span.line and not text.lstrip().startswith("#"):
            return None
        line -= 1
    return None


def with_hints(source: SourceText, workloads: list[Workload]) -> tuple[list[Workload], list[tuple[Evidence, str]]]:
    """Workloads with their DataLoader profile attached, and the hints that could not be read (with why)."""
    if "dataloader" not in source.text:  # every hint names it: most files never load the estimator
        return workloads, []
    from shmlint.dataloader import HintError, parse_hint

    result: list[Workload] = []
    errors: list[tuple[Evidence, str]] = []
    for workload in workloads:
        evidence = workload.dataloader_text or _comment_above(source, workload)
        hint: DataLoaderHint | None = None
        if evidence is not None and workload.dataloader is None:
            try:
                hint = parse_hint(evidence.text)
            except HintError as exc:
                errors.append((evidence, str(exc)))
        result.append(
            workload._replace(dataloader=hint._replace(span=evidence.span)) if hint and evidence else workload
        )
    return result, errors
