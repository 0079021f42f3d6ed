"""Which files may build an image, told cheaply from their kind and bytes: the run reads them into the build index
(``shmlint.project.builds``) only when one does, so most runs never load the build reader."""

from __future__ import annotations

import codecs
import re
from typing import TYPE_CHECKING

from shmlint.discover import FileKind, discover
from shmlint.lazy_regex import LazyRegex
from shmlint.source import InputError, SourceText, read_bytes

if TYPE_CHECKING:
    from shmlint.project.builds import BuildIndex
    from shmlint.project.index import ProjectFiles

#: what a file that builds an image holds: an engine's build command, a compose ``build:`` key, a workflow's build
#: step, a skaffold config (bounded: no nested quantifier, one line of lookahead at most)
_BUILD_MARK = LazyRegex(
    rb"(?:docker|podman|nerdctl)\b[^\n]{0,200}?\bbuild|^[ \t]*build[ \t]*:|build-push-action|skaffold/v", re.MULTILINE
)
#: the kinds of file a build is read from
BUILD_KINDS = frozenset(
    {
        FileKind.YAML,
        FileKind.SHELL,
        FileKind.POWERSHELL,
        FileKind.BATCH,
        FileKind.MAKEFILE,
        FileKind.JUSTFILE,
        FileKind.MARKDOWN,
        FileKind.RST,
    }
)


def may_build(data: bytes) -> bool:
    """Whether a file's bytes may write an image build (a UTF-16 file, which Windows PowerShell writes by default,
    asked as its text is read: ``SourceText.from_bytes``)."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            data = SourceText.from_bytes("", data).text.encode("utf-8", "surrogateescape")
        except InputError:
            return False
    return b"build" in data and _BUILD_MARK.search(data) is not None


#: files of a repository walked for its builds when a run checks a part of it (a monorepo's hook stays bounded)
MAX_WALKED = 100_000


def repository_builds(files: ProjectFiles, root: str) -> BuildIndex | None:
    """The builds every file of the run's roots writes, walked as the run walks (``files.whole``): what ``check .``
    at the top finds, for a run that checks a part (the files a hook names). Asked only when a workload looks an
    image up, answered once a run in each process (``ProjectFiles.per_folder``; ``root``, the first root, is the
    key); None when no file may build one (the build reader is not loaded then)."""
    roots = files.roots or (root,)
    found: list[tuple[str, str]] = []
    truncated = False
    for walked, candidate in enumerate(discover(roots, files.whole)):
        if walked >= MAX_WALKED:
            truncated = True
            break
        if candidate.kind not in BUILD_KINDS or candidate.error is not None:
            continue
        try:
            if may_build(read_bytes(candidate.path, files.max_bytes)):
                found.append((candidate.path, candidate.kind.value))
        except InputError:
            continue
    if not found and not truncated:
        return None
    from shmlint.project.builds import find_builds

    index = find_builds(found, roots, files.max_bytes)
    return index._replace(truncated=True) if truncated else index
