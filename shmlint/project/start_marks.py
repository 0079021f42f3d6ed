"""Whether a repository starts any container, told cheaply from its files' kinds and bytes: an image's own start
(a Dockerfile's ``CMD``/``ENTRYPOINT``) is judged as ``docker run IMAGE`` only in a repository that starts none.
Where the repository starts containers (a run line, a compose file, a manifest, a Singularity or enroot line, a dev
container), how its images run is written there and judged there: the image may be any of them, sized or not.

A mark, not a parse: a mention in prose counts as a start too, which only keeps the image's own start unjudged."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from shmlint.discover import FileKind, discover
from shmlint.lazy_regex import LazyRegex
from shmlint.project.build_marks import as_utf8, marked

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


def may_start(kind: FileKind, data: bytes) -> bool:
    """Whether a file of this kind with these bytes may start a container (a UTF-16 file read as its text is)."""
    if kind in _ALWAYS:
        return True
    found = as_utf8(data)
    return found is not None and _START_MARK.search(found) is not None


def first_start(candidates: Iterable[Candidate], max_bytes: int) -> str | None:
    """The first of the files that may start a container (its path), or None; past the walk's bound
    (``build_marks.MAX_WALKED`` files), one is assumed (the path ``""``)."""
    for found in marked(candidates, START_KINDS, max_bytes, may_start):
        return found.path if found is not None else ""
    return None


def repository_start(roots: tuple[str, ...], walk: Walk, max_bytes: int) -> str | None:
    """``first_start`` of every file of the roots, walked as the run walks: what ``check .`` at the top finds, for
    a run that checks a part (the files a hook names)."""
    return first_start(discover(roots, walk), max_bytes)
