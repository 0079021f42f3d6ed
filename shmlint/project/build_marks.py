"""Which files may build an image, told cheaply from their kind and bytes: the run reads them into the build index
(``shmlint.project.builds``) only when one does, so most runs never load the build reader. The bounded walk of a
repository's files for such a mark (``marked``) serves the marks of container starts too (``start_marks``)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from shmlint.discover import Candidate, FileKind, discover
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
    """Whether a file's bytes may write an image build."""
    found = as_utf8(data)
    return found is not None and b"build" in found and _BUILD_MARK.search(found) is not None


def as_utf8(data: bytes) -> bytes | None:
    """A file's bytes as a mark is looked for in them: a UTF-16 file (Windows PowerShell writes one by default) as
    its text is read (``SourceText.from_bytes``), None where it cannot be; any other as it is."""
    if data[:2] not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data
    try:
        return SourceText.from_bytes("", data).text.encode("utf-8", "surrogateescape")
    except InputError:
        return None


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
    walked = discover(roots, files.whole)
    for candidate in marked(walked, BUILD_KINDS, files.max_bytes, lambda kind, data: may_build(data)):
        if candidate is None:
            truncated = True
            break
        found.append((candidate.path, candidate.kind.value))
    if not found and not truncated:
        return None
    from shmlint.project.builds import find_builds

    index = find_builds(found, roots, files.max_bytes)
    return index._replace(truncated=True) if truncated else index


def marked(
    candidates: Iterable[Candidate], kinds: frozenset[FileKind], max_bytes: int, mark: Callable[[FileKind, bytes], bool]
) -> Iterator[Candidate | None]:
    """The walked files of ``kinds`` whose bytes hold a mark, in the walk's order (one that cannot be read is left to
    its own check), then None where ``MAX_WALKED`` files were looked at and the walk stops."""
    for walked, candidate in enumerate(candidates):
        if walked >= MAX_WALKED:
            yield None
            return
        if candidate.kind in kinds and candidate.error is None:
            try:
                data = read_bytes(candidate.path, max_bytes)
            except InputError:
                continue
            if mark(candidate.kind, data):
                yield candidate
