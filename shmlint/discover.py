"""Which files to check and what kind each one is, decided from the name first and the content second."""

from __future__ import annotations

import enum
import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: folders never walked unless configuration replaces this list (``exclude``); virtualenvs are found by content
#: the files that make a folder a kustomization (rendered with ``kubectl kustomize`` when it is installed)
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "site-packages",
    ".eggs",
)
#: how much of a file without a telling name is read to tell its kind
SNIFF_BYTES = 4096
_SHEBANG = re.compile(rb"^#!\s*(/usr/bin/env\s+(-S\s+)?)?(\S*/)?(ba|z|k|da)?sh\b")
#: a Go/Helm template action or a Jinja tag; GitHub's ${{ }} and Argo's {{inputs.x}} are YAML string content
_TEMPLATE_MARK = re.compile(r"(?<!\$)\{\{|\{%")
_HELM_ACTION = re.compile(
    r"\{\{-?\s*(\.|\$|-|(if|else|end|range|with|include|template|define|toYaml|tpl|printf|default)\b)|\{%"
)


#: the files ``docker compose`` reads by default, and the override files it then merges on top (first found wins)
COMPOSE_DEFAULT_FILES = ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml")
COMPOSE_OVERRIDE_FILES = (
    "compose.override.yml",
    "compose.override.yaml",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
)
COMPOSE_NAME_PATTERNS = ("compose.y*ml", "compose.*.y*ml", "docker-compose*.y*ml", "*.compose.y*ml")
_TOP_LEVEL_SERVICES = re.compile(r"^services[ \t]*:", re.MULTILINE)


def is_compose_name(name: str) -> bool:
    lower = name.lower()
    return any(fnmatch.fnmatchcase(lower, pattern) for pattern in COMPOSE_NAME_PATTERNS)


def may_be_compose(name: str, text: str) -> bool:
    """Cheap test before the compose extractor is even imported: a compose name or a top-level ``services:``."""
    return is_compose_name(name) or _TOP_LEVEL_SERVICES.search(text) is not None


class FileKind(enum.StrEnum):
    YAML = "yaml"  # Kubernetes, compose or CI YAML: the content decides
    SHELL = "shell"
    MAKEFILE = "makefile"
    MARKDOWN = "markdown"
    DOCKERFILE = "dockerfile"  # evidence for compose build:, never checked on its own


@dataclass(frozen=True)
class Candidate:
    """A file to check and how to read it, decided by its name or, failing that, its first bytes."""

    path: Path
    kind: FileKind
    explicit: bool  # named on the command line: checked even with an unusual name
    error: str | None = None  # a folder that could not be read while walking: reported, not skipped silently


def kind_by_name(path: Path) -> FileKind | None:
    return kind_for_name(path.name)


def kind_for_name(name: str) -> FileKind | None:
    lower = name.lower()
    if lower.endswith((".yaml", ".yml")):
        return FileKind.YAML
    if lower.endswith((".sh", ".bash", ".zsh")):
        return FileKind.SHELL
    if name in ("Makefile", "makefile", "GNUmakefile") or lower.endswith(".mk"):
        return FileKind.MAKEFILE
    if lower.endswith((".md", ".markdown", ".mdx")):
        return FileKind.MARKDOWN
    if name in ("Dockerfile", "Containerfile") or lower.endswith(".dockerfile") or lower.startswith("dockerfile."):
        return FileKind.DOCKERFILE
    return None


def kind_by_content(head: bytes) -> FileKind | None:
    """For files without a telling name: a shell shebang, or YAML that looks like a manifest."""
    if _SHEBANG.match(head):
        return FileKind.SHELL
    text = head.decode("utf-8", "replace")
    if re.search(r"^(apiVersion|kind|services):", text, re.MULTILINE):
        return FileKind.YAML
    return None


def has_template_marks(text: str) -> bool:
    """Any ``{{`` or ``{%``: enough to call an unparsable file a template rather than broken YAML."""
    return ("{{" in text or "{%" in text) and _TEMPLATE_MARK.search(text) is not None


def has_helm_actions(text: str) -> bool:
    """Helm/Jinja actions (``{{ .Values.x }}``, ``{{- if }}``): such a file is not YAML until rendered."""
    return ("{{" in text or "{%" in text) and _HELM_ACTION.search(text) is not None


def chart_root(path: Path) -> Path | None:
    """The Helm chart a file belongs to: a parent folder with Chart.yaml, the file below its templates/."""
    return next((parent for parent in path.parents if (parent / "Chart.yaml").is_file()), None)


def discover(paths: Iterable[Path], exclude: Iterable[str] = DEFAULT_EXCLUDE) -> Iterator[Candidate]:
    """Files to check, in a stable order; folders are walked without following links."""
    for root in paths:
        if root.is_dir():
            yield from _walk(root, _exclusion(tuple(exclude)))
            continue
        kind = kind_by_name(root)
        if kind is None:
            kind = _sniff(root)
        yield Candidate(root, kind or FileKind.YAML, explicit=True)


def _sniff(path: Path) -> FileKind | None:
    if not _regular(str(path)):  # never open a FIFO or a device: reading it could block forever
        return None
    try:
        with path.open("rb") as handle:
            return kind_by_content(handle.read(SNIFF_BYTES))
    except OSError:
        return None


@functools.cache
def _exclusion(patterns: tuple[str, ...]) -> Callable[[str, str], bool]:
    """One compiled test of (name, path): a pattern matches the name, or the whole path (``docs/*.md``).

    Compiled when a folder is walked, once per pattern set: files named one by one (a pre-commit hook) never
    pay for it."""
    if not patterns:
        return lambda name, path: False
    by_name = re.compile("|".join(fnmatch.translate(p) for p in patterns))
    by_path = re.compile("|".join(f"(?:.*/)?{fnmatch.translate(p)}" for p in patterns))
    return lambda name, path: by_name.match(name) is not None or by_path.match(path) is not None


def _walk(root: Path, excluded: Callable[[str, str], bool]) -> Iterator[Candidate]:
    """Strings rather than Path objects inside the walk: it visits every file of a monorepo."""
    unreadable: list[OSError] = []
    for directory, dirnames, filenames in os.walk(root, onerror=unreadable.append, followlinks=False):
        while unreadable:
            yield _unreadable(unreadable.pop(), directory)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not excluded(d, f"{directory}/{d}") and not os.path.isfile(f"{directory}/{d}/pyvenv.cfg")
        )
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            if excluded(name, full):
                continue
            kind = kind_for_name(name)
            if kind is None and "." not in name and _regular(full):
                kind = _sniff(Path(full))
            if kind is not None and kind is not FileKind.DOCKERFILE:
                yield Candidate(Path(full), kind, explicit=False)
    for error in unreadable:  # the root itself, or a folder listed last
        yield _unreadable(error, str(root))


def _unreadable(error: OSError, where: str) -> Candidate:
    message = f"cannot read folder: {error.strerror or error}"
    return Candidate(Path(error.filename or where), FileKind.YAML, explicit=False, error=message)


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
