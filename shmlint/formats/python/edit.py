"""Fixes for Python launcher calls: a keyword argument added before the closing parenthesis, or a value replaced.

``@batch(gpu=1)`` becomes ``@batch(gpu=1, shared_memory=8192)``; a call written over several lines with one
argument a line gets the new argument on a line of its own, indented like the last one, with the comma the
last argument needs; a bare decorator (``@batch``) gets a parenthesised argument list. The fixer re-reads the
result with ``ast`` (``shmlint.fix.syntax``) and drops an edit that would break the file.
"""

from __future__ import annotations

from shmlint import sizes
from shmlint.edits.option_size import option_size_edit
from shmlint.formats.python.target import CallTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    return bool(edits_for(fix, workload, source))


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, CallTarget) or fix.size_bytes is None:
        return []
    value = spelled(target.unit, fix.size_bytes)
    if fix.action is FixAction.ADD_SHM:
        return _keyword(source.text, target, f"{target.keyword}={value}")
    declared = fix.source
    if fix.action is FixAction.SET_SIZE and declared is not None:
        if declared.size is not None and declared.size.dialect == sizes.TMPFS:
            return option_size_edit(source.text, declared.size, fix.size_bytes)
        if declared.size is not None:
            return [Edit(declared.size.span.start, declared.size.span.end, value)]
        if declared.description == "shared_memory=True":  # Flyte: the memory-sized /dev/shm gets a size
            return [Edit(declared.span.start, declared.span.end, value)]
    return []


def spelled(unit: str, size: int) -> str:
    """A size as the library takes it: MiB or bytes as an integer, docker and Kubernetes sizes as strings."""
    if unit == "mib":
        return str(max(1, size // sizes.MIB))
    if unit == "bytes":
        return str(size)
    if unit == sizes.KUBERNETES:
        return f'"{sizes.format_kubernetes(size)}"'
    return f'"{sizes.format_docker(size)}"'


def _keyword(text: str, target: CallTarget, argument: str) -> list[Edit]:
    close = target.close
    if close >= len(text) or close < 0:
        return []
    if text[close] != ")":  # a bare decorator: ``@batch`` -> ``@batch(shared_memory=8192)``
        return [Edit(close, close, f"({argument})")]
    before = text[:close].rstrip()
    previous = before[-1:]
    if "#" in before[before.rfind("\n") + 1 :]:
        return []  # the last argument line ends in a comment (or holds a '#' in a string): not worth the risk
    line_start = text.rfind("\n", 0, close) + 1
    if not text[line_start:close].strip() and previous not in ("(", ""):
        # one argument a line: a line of its own, indented like the last argument
        last_line_start = before.rfind("\n") + 1
        indent = before[last_line_start : len(before) - len(before[last_line_start:].lstrip())]
        comma = "" if previous == "," else ","
        return [Edit(len(before), len(before), f"{comma}\n{indent}{argument}{',' if previous == ',' else ''}")]
    if previous == "(":
        return [Edit(close, close, argument)]
    separator = " " if previous == "," else ", "
    return [Edit(len(before), len(before), f"{separator}{argument}")]
