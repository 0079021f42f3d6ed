"""Formats as units: one package per format under ``shmlint/formats/``, each exporting its ``Format`` descriptor
(``shmlint.formats.descriptor``) as ``FORMAT``. The packages are found by their folders (no list to edit), and this
module is the one place that answers "what kind of file is this" and "which format reads or fixes it".

Adding a format: see "Adding a format" in docs/architecture.md (tests/test_format_registry.py holds it).
"""

from __future__ import annotations

import os
from functools import cache
from importlib import import_module

from shmlint.formats.descriptor import FileKind, FileNames, Format, Sniff, YamlClaim
from shmlint.model import WorkloadFormat

__all__ = ["FileKind", "describe", "file_names", "formats", "kind_by_content", "kind_for_name", "reader", "yaml_claims"]


@cache
def formats() -> tuple[Format, ...]:
    """Every format, by package name: each folder of this package that is a Python package."""
    here = os.path.dirname(__file__)
    with os.scandir(here) as entries:
        names = sorted(e.name for e in entries if e.is_dir() and e.name.isidentifier() and not e.name.startswith("_"))
    found: list[Format] = [import_module(f"{__name__}.{name}").FORMAT for name in names]
    return tuple(found)


@cache
def _names() -> tuple[FileNames, ...]:
    return tuple(sorted((rule for f in formats() for rule in f.files), key=lambda rule: rule.rank))


@cache
def _sniffs() -> tuple[Sniff, ...]:
    return tuple(sorted((sniff for f in formats() for sniff in f.sniffs), key=lambda sniff: sniff.rank))


def kind_for_name(name: str) -> FileKind | None:
    """The kind of a file by its name (no folder), or None when the name does not tell."""
    lower = name.lower()
    return next((rule.kind for rule in _names() if rule.matches(name, lower)), None)


def kind_by_content(head: bytes) -> FileKind | None:
    """The kind of a file without a telling name, by its first bytes (a shell shebang, a manifest's keys)."""
    text = head.decode("utf-8", "replace")
    return next((sniff.kind for sniff in _sniffs() if sniff.pattern.search(text)), None)


@cache
def file_names(kind: FileKind) -> FileNames:
    """The name rule of a kind (what the kind's syntax check is)."""
    return next(rule for rule in _names() if rule.kind is kind)


@cache
def reader(kind: FileKind) -> Format | None:
    """The format that reads files of this kind (YAML: ``yaml_claims``); None when no format reads them alone."""
    return next((f for f in formats() if f.read is not None and any(r.kind is kind for r in f.files)), None)


@cache
def yaml_claims() -> tuple[YamlClaim, ...]:
    """How each format recognises its YAML, in the order they are asked."""
    return tuple(sorted((f.yaml for f in formats() if f.yaml is not None), key=lambda claim: claim.rank))


@cache
def describe(workload_format: WorkloadFormat) -> Format:
    """The format that spells the fix of a workload written in ``workload_format``."""
    return next(f for f in formats() if f.workload_format is workload_format)
