"""The one place that answers "what kind of file is this" and "which format reads or fixes it", from the format
packages under ``shmlint/formats/``, each exporting its ``Format`` descriptor (``shmlint.format_descriptor``) as
``FORMAT``. The packages are found by their folders (no list to edit).

A run imports only the descriptors it asks: which format names which files, claims YAML and spells which
workload's fix is read from ``shmlint/data/format_index.py``, written from the descriptors by
``python -m shmlint.build_data`` (a test compares). Adding a format: see "Adding a format" in
docs/architecture.md (tests/test_format_units.py holds it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from fnmatch import fnmatchcase
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

from shmlint.data import format_index
from shmlint.format_descriptor import FileKind, FileNames, Format, Sniff, YamlClaim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.format_descriptor import Path as StrPath
    from shmlint.format_descriptor import Run

__all__ = [
    "FileKind",
    "describe",
    "file_names",
    "format_named",
    "formats",
    "kind_by_content",
    "kind_for_name",
    "read_without_signal",
    "reader",
    "yaml_claim",
]


def format_named(package: str) -> Format:
    """The descriptor of one package, imported when first asked."""
    found: Format = import_module(f"shmlint.formats.{package}").FORMAT
    return found


@cache
def formats() -> tuple[Format, ...]:
    """Every format, by package name: each folder of shmlint/formats/ (a Python package)."""
    with os.scandir(os.path.join(os.path.dirname(__file__), "formats")) as entries:
        names = sorted(e.name for e in entries if e.is_dir() and e.name.isidentifier() and not e.name.startswith("_"))
    return tuple(map(format_named, names))


def kind_for_name(name: str) -> FileKind | None:
    """The kind of a file by its name (no folder), or None when the name does not tell: the first of the name
    rules (``FileNames``, in rank order in the index: no descriptor is imported) that matches."""
    lower = name.lower()
    for kind, _, endings, beginnings, names, lower_names in format_index.NAMES:
        if lower.endswith(endings) or lower.startswith(beginnings) or name in names or lower in lower_names:
            return FileKind(kind)
    return None


@cache
def _sniffs() -> tuple[Sniff, ...]:
    found = (sniff for package in format_index.SNIFFS for sniff in format_named(package).sniffs)
    return tuple(sorted(found, key=lambda sniff: sniff.rank))


def kind_by_content(head: bytes) -> FileKind | None:
    """The kind of a file without a telling name, by its first bytes (a shell shebang, a manifest's keys)."""
    text = head.decode("utf-8", "replace")
    return next((sniff.kind for sniff in _sniffs() if sniff.pattern.search(text)), None)


@cache
def _owner(kind: FileKind) -> Format:
    return format_named(next(package for named, package, *_ in format_index.NAMES if named == kind))


@cache
def file_names(kind: FileKind) -> FileNames:
    """The descriptor's name rule of a kind: its syntax check and what a walked file must hold."""
    return next(rule for rule in _owner(kind).files if rule.kind is kind)


def reader(kind: FileKind) -> Format | None:
    """The format that reads files of this kind (YAML: ``yaml_claims``); None when no format reads them alone."""
    owner = _owner(kind)
    return owner if owner.read is not None else None


class _Candidate:
    """A format's cheap test on YAML, read from the index (``YamlClaim``): no descriptor is imported for it. A
    slotted class, as ``discover._Ignore``: a NamedTuple would cost every run the making of its class."""

    __slots__ = ("marker", "names", "package", "words")

    def __init__(
        self, package: str, names: tuple[tuple[str, str], ...], words: tuple[str, ...], marker: str | None, flags: int
    ) -> None:
        self.package, self.names, self.words = package, names, words
        self.marker = LazyRegex(marker, flags) if marker is not None else None

    def may_hold(self, lower_name: str, text: str) -> bool:
        """The name is one of the format's (each pattern tried only for a name with its literal part), or the
        text has one of its words and its marker."""
        if any(stem in lower_name and fnmatchcase(lower_name, pattern) for pattern, stem in self.names):
            return True
        if self.words and not any(word in text for word in self.words):
            return False
        return self.marker is None or self.marker.search(text) is not None


@cache
def _candidates() -> tuple[_Candidate, ...]:
    return tuple(_Candidate(*entry) for entry in format_index.YAML_CLAIMS)


def yaml_claim(name: str, text: str) -> Iterator[YamlClaim]:
    """The claims of the formats that may hold a YAML file, in the order they are asked (only those formats'
    descriptors are imported)."""
    lower = name.lower()
    for candidate in _candidates():
        if candidate.may_hold(lower, text):
            claim = format_named(candidate.package).yaml
            if claim is not None:
                yield claim


def read_without_signal(path: StrPath, run: Run) -> bool:
    """Whether a YAML file must be composed although it holds no signal word (a compose file merged with others)."""
    for package in format_index.WITHOUT_SIGNAL:
        claim = format_named(package).yaml
        if claim is not None and claim.without_signal is not None and claim.without_signal(path, run):
            return True
    return False


@cache
def describe(workload_format: WorkloadFormat) -> Format:
    """The format that spells the fix of a workload written in ``workload_format``."""
    return format_named(format_index.OWNERS[workload_format.value])
