"""Whether a repository starts any container, told cheaply from its files' kinds and bytes: an image's own start
(a Dockerfile's ``CMD``/``ENTRYPOINT``) is judged as ``docker run IMAGE`` only in a repository that starts none.
Where the repository starts containers (a run line, a compose file, a manifest, a Singularity or enroot line, a dev
container), how its images run is written there and judged there: the image may be any of them, sized or not.

A mark, not a parse: a mention in prose counts as a start too, which only keeps the image's own start unjudged."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from shmlint.discover import FileKind, discover
from shmlint.lazy_regex import LazyRegex
from shmlint.source import InputError, SourceText, read_bytes

if TYPE_CHECKING:
    from shmlint.discover import Candidate
    from shmlint.project.index import Walk

#: what starts a container in a file shmlint reads: an engine's run or create, compose (a command or a file), a
#: Kubernetes or CI ``image:`` key, an ``"image":`` of JSON, Singularity/Apptainer, enroot and pyxis, a Quadlet unit,
#: Terraform's container resources (bounded: no nested quantifier)
_START_MARK = LazyRegex(
    rb"\b(?:docker|podman|nerdctl|nvidia-docker)(?:[ \t]+container)?[ \t]+(?:run|create)\b"
    rb"|\b(?:docker[ \t]+compose|docker-compose|podman-compose|podman[ \t]+compose)\b"
    rb"|^services[ \t]*:|^[ \t-]{0,64}image[ \t]*:|\"image\"[ \t]*:"
    rb"|\b(?:singularity|apptainer)[ \t]+(?:exec|run|shell|instance)\b|\benroot[ \t]+(?:start|create)\b"
    rb"|--container-image\b|^\[Container\]"
    rb"|\bresource[ \t]+\"(?:docker_container|kubernetes_[a-z_]{1,40}|aws_ecs_task_definition|aws_batch_job_definition)\"",
    re.MULTILINE,
)
#: the kinds whose files may start a container (a Dockerfile builds one; Python launches are read as workloads by
#: their own format and are not walked for this)
START_KINDS = frozenset(FileKind) - {FileKind.DOCKERFILE, FileKind.PYTHON}
#: kinds whose every file starts one
_ALWAYS = frozenset({FileKind.DEVCONTAINER, FileKind.GITLAB_RUNNER})
#: files of a repository walked for a start at most (a monorepo's hook stays bounded; beyond it, one is assumed)
MAX_WALKED = 100_000


def may_start(kind: FileKind, data: bytes) -> bool:
    """Whether a file of this kind with these bytes may start a container (a UTF-16 file read as its text is)."""
    if kind in _ALWAYS:
        return True
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            data = SourceText.from_bytes("", data).text.encode("utf-8", "surrogateescape")
        except InputError:
            return False
    return _START_MARK.search(data) is not None


def file_starts(max_bytes: int, kind: FileKind, path: str) -> bool:
    """``may_start`` of a file on disk (False when it cannot be read: its own check says why)."""
    if kind not in START_KINDS:
        return False
    try:
        return may_start(kind, read_bytes(path, max_bytes))
    except InputError:
        return False


def first_start(candidates: Iterable[Candidate], max_bytes: int) -> str | None:
    """The first of the files that may start a container (its path), or None; at most ``MAX_WALKED`` files looked
    at, and past them one is assumed (the path ``""``)."""
    for walked, candidate in enumerate(candidates):
        if walked >= MAX_WALKED:
            return ""
        if candidate.error is None and file_starts(max_bytes, candidate.kind, candidate.path):
            return candidate.path
    return None


def repository_start(roots: tuple[str, ...], walk: Walk, max_bytes: int) -> str | None:
    """``first_start`` of every file of the roots, walked as the run walks: what ``check .`` at the top finds, for
    a run that checks a part (the files a hook names)."""
    found: Iterator[Candidate] = discover(roots, walk)
    return first_start(found, max_bytes)
