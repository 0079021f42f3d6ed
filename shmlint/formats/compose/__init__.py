"""docker compose files (and the Dockerfiles their services build, read as evidence, never checked alone)."""

from __future__ import annotations

import fnmatch
import os
import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, Format, Sniff, YamlClaim
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.parsers.yamlnodes import Node
    from shmlint.source import SourceText

#: the files ``docker compose`` reads by default, and the override files it then merges on top (first found wins)
COMPOSE_DEFAULT_FILES = ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml")
COMPOSE_OVERRIDE_FILES = (
    "compose.override.yml",
    "compose.override.yaml",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
)
COMPOSE_NAME_PATTERNS = ("compose.y*ml", "compose.*.y*ml", "docker-compose*.y*ml", "*.compose.y*ml")
_TOP_LEVEL_SERVICES = LazyRegex(r"^services[ \t]*:", re.MULTILINE)


def is_compose_name(name: str) -> bool:
    lower = name.lower()
    # every pattern holds "compose": most names are answered without translating a glob
    return "compose" in lower and any(fnmatch.fnmatchcase(lower, pattern) for pattern in COMPOSE_NAME_PATTERNS)


def _detect(source: SourceText, documents: list[Node]) -> bool:
    from shmlint.formats.compose.detect import is_compose

    return is_compose(source.path, documents)


def _read(source: SourceText, documents: list[Node], path: Path, run: Extraction) -> Found:
    from pathlib import Path  # compose files name others relative to their folder

    from shmlint.formats.compose.extract import extract_compose

    base_dir = Path(os.path.dirname(path) or ".")
    return extract_compose(source, documents, run.signals, base_dir=base_dir, files=run.files, embedded=run.embedded)


def _merged(path: Path, run: Extraction) -> bool:
    """A compose file merged with others (a default file with an override beside it, or a set the repository
    names): another file of the set may hold the signals, so the prefilter cannot skip it."""
    folder, name = os.path.split(path)
    if name in COMPOSE_DEFAULT_FILES and any(
        run.files.has_file(os.path.join(folder, n)) for n in COMPOSE_OVERRIDE_FILES
    ):
        return True
    if not is_compose_name(name):
        return False
    from shmlint.formats.compose.file_sets import sets_naming

    here = os.path.abspath(path)
    sets = sets_naming(run.files, folder)
    return any(len(s.files) > 1 and here in map(os.path.abspath, s.files) for s in sets)


FORMAT = Format(
    name="compose",
    label="Compose",
    workload_format=WorkloadFormat.COMPOSE,
    remedy="set shm_size on the service",
    fix_in_short="set shm_size",
    writer="shmlint.formats.compose.edit",
    fixtures=("compose", "docs/compose"),
    sniffs=(Sniff(FileKind.YAML, rank=20, pattern=LazyRegex(r"^services:", re.MULTILINE)),),
    yaml=YamlClaim(
        rank=10,
        detect=_detect,
        read=_read,
        names=COMPOSE_NAME_PATTERNS,
        words=("services",),
        marker=_TOP_LEVEL_SERVICES,
        without_signal=_merged,
    ),
    declare_loader="the label shmlint.io/dataloader",
    fixes_in_blocks=True,
)
