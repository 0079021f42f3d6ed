"""Fixes for Terraform resources: new lines inserted before a closing brace, or a size value replaced.

A Kubernetes provider pod gets an ``empty_dir`` volume with ``medium = "Memory"`` and a ``volume_mount`` at
/dev/shm; a ``docker_container`` gets ``shm_size`` (MiB); an ECS/Batch container definition gets
``linuxParameters.sharedMemorySize`` (MiB), in HCL inside ``jsonencode(...)`` or in JSON inside a heredoc. New
lines are indented one step deeper than the brace they go before; every other byte stays as it was. The fixer
re-reads the result with the HCL reader (``shmlint.fix.syntax``) and drops an edit that would break it.
"""

from __future__ import annotations

from shmlint import sizes
from shmlint.edits.option_size import option_size_edit
from shmlint.formats.terraform.target import HclTarget
from shmlint.model import Edit, Fix, FixAction, ShmKind, Workload
from shmlint.sizes import MIB
from shmlint.source import SourceText

_VOLUME = "dshm"
#: pod spec shapes and the suffix their block names take: ``volume``/``volume_mount`` for the Kubernetes provider,
#: ``volumes``/``volume_mounts`` in an AWS Batch job definition's ``eks_properties``
_PODS = {"pod": "", "eks-pod": "s"}


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    return bool(edits_for(fix, workload, source))


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, HclTarget):
        return []
    text = source.text
    if fix.action is FixAction.ADD_SHM and fix.size_bytes is not None:
        return _add(target, fix.size_bytes, text)
    if fix.action is FixAction.MOUNT_VOLUME and fix.source is not None and fix.source.name and target.shape in _PODS:
        return _lines_before(text, target.inner, _mount(fix.source.name, _PODS[target.shape]))
    if fix.action is FixAction.SET_SIZE and fix.source is not None and fix.size_bytes is not None:
        declared = fix.source
        if declared.size is not None and declared.size.dialect == sizes.TMPFS:
            return option_size_edit(text, declared.size, fix.size_bytes)
        if declared.size is not None:
            span = declared.size.span
            return [Edit(span.start, span.end, _spelled(declared.size.dialect, fix.size_bytes, text[span.start]))]
        slot = next((close for start, close in target.size_slots if start == declared.span.start), None)
        if slot is None:
            return []
        if target.shape in _PODS:
            return _lines_before(text, slot, [f'size_limit = "{sizes.format_kubernetes(fix.size_bytes)}"'])
        return _entry(text, slot, "size", str(_mib(fix.size_bytes)), target.shape == "ecs-json")
    if fix.action is FixAction.PRIVATE_IPC and fix.source is not None and target.shape == "docker":
        if fix.source.kind is not ShmKind.NONE:
            return []
        edits = [Edit(fix.source.span.start, fix.source.span.end, 'ipc_mode = "private"')]
        if fix.size_bytes:
            edits += _lines_before(text, target.outer, [f"shm_size = {_mib(fix.size_bytes)}"])
        return edits
    return []


def _add(target: HclTarget, size: int, text: str) -> list[Edit]:
    if target.shape in _PODS:
        plural = _PODS[target.shape]
        name = _free_name(target.volume_names)
        volume = [
            f"volume{plural} {{",
            f'  name = "{name}"',
            "  empty_dir {",
            '    medium     = "Memory"',
            f'    size_limit = "{sizes.format_kubernetes(size)}"',
            "  }",
            "}",
        ]
        mount, pod = _lines_before(text, target.inner, _mount(name, plural)), _lines_before(text, target.outer, volume)
        return mount + pod if mount and pod else []
    if target.shape == "docker":
        return _lines_before(text, target.outer, [f"shm_size = {_mib(size)}"])
    json = target.shape == "ecs-json"
    if target.inner >= 0:
        return _entry(text, target.inner, "sharedMemorySize", str(_mib(size)), json)
    inner = f'{{"sharedMemorySize": {_mib(size)}}}' if json else f"{{ sharedMemorySize = {_mib(size)} }}"
    return _entry(text, target.outer, "linuxParameters", inner, json)


def _mount(name: str, plural: str) -> list[str]:
    return [f"volume_mount{plural} {{", '  mount_path = "/dev/shm"', f'  name       = "{name}"', "}"]


def _free_name(taken: frozenset[str]) -> str:
    return next(n for n in (_VOLUME, *(f"{_VOLUME}-{i}" for i in range(1, len(taken) + 2))) if n not in taken)


def _mib(size: int) -> int:
    return max(1, size // MIB)


def _spelled(dialect: str, size: int, first: str) -> str:
    """A new size in the declaration's own spelling: a quoted quantity stays quoted, MiB stay a bare integer."""
    if dialect == sizes.KUBERNETES:
        quantity = sizes.format_kubernetes(size)
        return f'"{quantity}"' if first == '"' else quantity
    if dialect == "bytes":
        return str(size)
    return str(_mib(size))


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _alone(text: str, close: int) -> bool:
    """The closing brace is the first thing on its line, so new lines can go right above it."""
    return 0 <= close < len(text) and not text[_line_start(text, close) : close].strip()


def _lines_before(text: str, close: int, lines: list[str]) -> list[Edit]:
    """``lines`` inserted above the closing brace at ``close``, one indentation step deeper than the brace."""
    if not _alone(text, close):
        return []
    start = _line_start(text, close)
    indent = text[start:close]
    inner = _sibling_indent(text, start, indent)
    newline = "\r\n" if text[max(0, start - 2) : start] == "\r\n" else "\n"
    return [Edit(start, start, "".join(f"{inner}{line}{newline}" for line in lines))]


def _sibling_indent(text: str, start: int, indent: str) -> str:
    """The indentation of the line above the closing brace when it is deeper (a sibling), else one step deeper than
    the brace: a tab where the file indents with tabs, two spaces (``terraform fmt``) otherwise."""
    above = text[: max(0, start - 1)].rstrip("\r\n")
    line = above[above.rfind("\n") + 1 :]
    own = line[: len(line) - len(line.lstrip(" \t"))]
    if line.strip() and own.startswith(indent) and len(own) > len(indent):
        return own
    return indent + ("\t" if "\t" in indent or own.startswith("\t") else "  ")


def _entry(text: str, close: int, key: str, value: str, json: bool) -> list[Edit]:
    """A new entry in the object whose closing brace is at ``close``: a line of its own when the brace has one,
    else inline before it; JSON entries are separated by commas, HCL ones by line breaks (or commas inline)."""
    if not 0 <= close < len(text) or text[close] != "}":
        return []
    pair = f'"{key}": {value}' if json else f"{key} = {value}"
    before = text[:close].rstrip()
    previous = before[-1:] if before else ""
    if _alone(text, close):
        edits = _lines_before(text, close, [pair])
        if json and previous not in ("{", ","):
            edits.insert(0, Edit(len(before), len(before), ","))
        return edits
    separator = "" if previous in ("{", ",") else ","
    return [Edit(len(before), len(before), f"{separator} {pair}")]
