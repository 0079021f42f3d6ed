"""Images built in the repository (``BuildIndex``): image name -> the Dockerfile, context, build arguments and target
that build it, and where that build is written. Found once per run, before any file is checked
(``runner.project_for``), in the files the run checks:

- ``docker build`` / ``docker image build`` / ``docker buildx build`` / ``podman build`` lines with ``-t``/``--tag``
  (and ``-f``/``--file``, ``--build-arg``, ``--target``) in shell scripts, Makefiles, Markdown/RST code blocks and
  CI ``run:`` steps and GitLab scripts, read by the project's shell tokenizer with the script's own assignments (a
  Makefile's own variable defaults) expanded; a document's build of the context's own Dockerfile that no file holds
  reads the Dockerfile the document writes last before it as a code block (``build_lines.DockerfileBlock``), unless
  a build of the same name reads a file;
- compose services with ``build:`` and ``image:`` (compose files and YAML code blocks of documentation);
- GitHub Actions ``docker/build-push-action`` steps (``tags``, ``file``, ``context``, ``build-args``, ``target``);
- skaffold ``build.artifacts`` (``image``, ``context``, ``docker.dockerfile``, ``docker.buildArgs``, ``docker.target``).

An image is matched by its path without registry, tag and digest (``image_key``): ``ghcr.io/org/app:v1`` and
``org/app`` are the same image, ``app`` and ``org/app`` are not. A first path component that is one variable
(``${REGISTRY}/app``, ``$(REGISTRY)/app``, ``${{ env.REGISTRY }}/app``) stands for a registry, so the rest must
match exactly; a variable anywhere else makes a name that matches nothing. ``BuildIndex.of`` returns every
different build of a name; builds that read differently (``follow``: another context, base, command) decide
nothing, and the finding says so.

Bounded: at most ``MAX_BUILDS`` builds, files already within the check's size limit, at most ``MAX_TEXT`` characters
of them parsed; a Dockerfile or context counts only as a real path inside a root (links resolved first). Nothing is
executed, nothing is read outside the roots.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.model import dockerfile_names
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.shell import environment_default
from shmlint.project.build_lines import WrittenBuild, builds_in

if TYPE_CHECKING:
    pass

#: builds kept in all: far more than a repository writes, few enough that matching stays a scan
MAX_BUILDS = 256
#: characters of build files parsed in all (marked files only: a build line, a compose ``build:``, a workflow step)
MAX_TEXT = 16 * 1024 * 1024
#: folders above a build file tried as where its relative paths start (a path deeper than this is hostile)
MAX_ABOVE = 32
#: what names the current folder as a build context on a command line
_HERE = frozenset({".", "./", "$(pwd)", "$PWD", "${PWD}", "`pwd`", "$(CURDIR)", "$(PWD)", "$(shell pwd)"})
#: one variable, as a registry prefix: shell, make and GitHub Actions spellings
_VARIABLE = LazyRegex(r"\$\{\{[^{}]{1,200}\}\}|\$\{[^{}]{1,200}\}|\$\([^()]{1,200}\)|\$[A-Za-z_][A-Za-z0-9_]{0,63}")
#: a repository path's characters once the registry and tag are gone (docker's reference grammar, any case)
_PATH = LazyRegex(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")


class ImageBuild(NamedTuple):
    """One build of an image: real paths of its Dockerfile and context, its arguments and target, and where it is
    written (``path:line`` relative to the root)."""

    dockerfile: str
    context: str
    args: tuple[tuple[str, str], ...] = ()
    target: str = ""
    where: str = ""
    block: tuple[int, int] | None = None  # the Dockerfile is this code block (offsets) of the document ``dockerfile``
    #: the tags it is built with (``latest`` for none; "" for one a variable gives: any tag)
    tags: frozenset[str] = frozenset()

    @property
    def same_as(self) -> tuple[str, str, tuple[tuple[str, str], ...], str, tuple[int, int] | None]:
        """What makes two builds one image (not where they are written)."""
        return self.dockerfile, self.context, self.args, self.target, self.block


class BuildIndex(NamedTuple):
    """The run's image builds by image key (``image_key``), in the order found; ``truncated`` when a bound was met
    (a build beyond it is not known)."""

    builds: tuple[tuple[str, tuple[ImageBuild, ...]], ...] = ()
    truncated: bool = False

    def merged(self, other: BuildIndex) -> BuildIndex:
        """These builds and the other index's, each image's different builds once (these first)."""
        by_key = {key: list(builds) for key, builds in self.builds}
        for key, builds in other.builds:
            known = by_key.setdefault(key, [])
            for build in builds:
                _add(known, build)
        return BuildIndex(
            tuple((key, tuple(builds)) for key, builds in by_key.items()), self.truncated or other.truncated
        )

    def of(self, image: str | None) -> tuple[ImageBuild, ...]:
        """The different builds of this image (another Dockerfile, context, arguments or target), or (); whether
        two of them still make one image is the caller's question (``follow``). Of different builds, those of the
        image's own tag, where that tells them apart (``make build`` tags ``app:local``, ``make build-cuda``
        ``app:cuda`` from another Dockerfile: found on audit52b), with those whose tag a variable gives (it may be
        that one); where no build writes the tag, all of them."""
        key = image_key(image) if image else None
        if key is None or image is None:
            return ()
        builds = next((builds for name, builds in self.builds if name == key), ())
        tag = image_tag(image)
        if len(builds) < 2 or not tag or not any(_tags_meet(tag, t) for b in builds for t in b.tags if t):
            return builds
        return tuple(b for b in builds if any(_tags_meet(tag, t) for t in b.tags))


def image_tag(reference: str) -> str:
    """An image reference's tag as written (``latest`` when it has none); where a variable gives a part of it, the
    part written before the first one and ``*`` (``jupyter-*`` for ``jupyter-$VERSION``), "" where a variable
    gives it all."""
    last = _as_written(reference).rsplit("/", 1)[-1]
    tag = last.partition(":")[2] if ":" in last else "latest"
    written = re.split(r"[$]|[{]", tag, maxsplit=1)[0]
    if written == tag:
        return tag
    return f"{written}*" if written else ""


def _tags_meet(one: str, other: str) -> bool:
    """Whether two tags as ``image_tag`` gives them may be the same: equal; a written one that starts as a partly
    written one's written part does; two partly written ones one of whose written parts starts the other; a tag a
    variable gives whole ("") meets any (audit88d: ``jetbot:jupyter-$V-$L4T`` is the build tagged ``jupyter-...``,
    not its five other images' ``base-...``, ``camera-...``)."""
    if not one or not other:
        return True
    first, second = one.removesuffix("*"), other.removesuffix("*")
    if one.endswith("*") and other.endswith("*"):
        return first.startswith(second) or second.startswith(first)
    if one.endswith("*"):
        return second.startswith(first)
    return first.startswith(second) if other.endswith("*") else one == other


def _add(builds: list[ImageBuild], build: ImageBuild) -> None:
    """A build added to an image's builds: a new one, or more tags of one that reads the same."""
    for index, known in enumerate(builds):
        if known.same_as == build.same_as:
            builds[index] = known._replace(tags=known.tags | build.tags)
            return
    builds.append(build)


def image_key(reference: str) -> str | None:
    """An image reference's repository path without registry, tag or digest, lower case; None when it cannot be
    told exactly (a variable inside the path, characters no image name has)."""
    text = _as_written(reference)
    if not text or len(text) > 512:
        return None
    variable = _VARIABLE.match(text)
    if variable is not None and text[variable.end() : variable.end() + 1] == "/":
        parts = text[variable.end() + 1 :].split("/")
    else:
        parts = text.split("/")
        if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
            parts = parts[1:]  # a registry host (docker's rule: a dot, a port or localhost)
    parts[-1] = parts[-1].split(":", 1)[0]
    if len(parts) == 2 and parts[0] == "library":  # Docker Hub's official images
        parts = parts[1:]
    path = "/".join(parts)
    return path.lower() if _PATH.fullmatch(path) and "//" not in path and not path.endswith("/") else None


def _as_written(reference: str) -> str:
    """An image reference as the file names it, without quotes or digest: compose's and the shell's
    ``${IMAGE:-acme/app}`` is the name the file gives."""
    text = reference.strip().strip("\"'")
    default = environment_default(text)
    if default is not None:
        text = default[1]
    return text.split("@", 1)[0]


class _Collector:
    """The builds found so far, within the bounds, each image's different builds once."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = roots
        self.names: dict[str, str] = {}  # each root's repository name, read when a context needs it
        self.by_key: dict[str, list[ImageBuild]] = {}
        self.count = 0
        self.truncated = False

    def add(self, found: WrittenBuild) -> None:
        if self.count >= MAX_BUILDS:
            self.truncated = True
            return
        build = self._resolved(found)
        if build is None:
            return
        self.count += 1
        for image in found.images:
            key = image_key(image)
            if key is None:
                continue
            _add(self.by_key.setdefault(key, []), build._replace(tags=frozenset({image_tag(image)})))

    def _resolved(self, found: WrittenBuild) -> ImageBuild | None:
        """The build with real paths: the context a folder and the Dockerfile a file, both inside a root (tried
        from the writing file's folder and the folders above it, then from each root; ``_contexts``)."""
        if not found.context or "://" in found.context or found.context.startswith("git@") or found.context == "-":
            return None
        written = "." if found.context in _HERE else found.context
        if (
            "$" in written
            or "`" in written
            or (found.dockerfile and ("$" in found.dockerfile or found.dockerfile == "-"))
        ):
            return None
        first = None  # the first folder the context names, where a document's Dockerfile is built
        for base, context in self._contexts(found, written):
            folder = self._inside(os.path.join(base, context), folder=True)
            if folder is None:
                continue
            first = first or folder
            # ``-f`` is relative to where the command runs; compose and skaffold name it inside the context
            start = folder if found.in_context or not found.dockerfile else base
            paths = (os.path.join(start, name) for name in dockerfile_names(found.dockerfile))
            dockerfile = next(filter(None, (self._inside(path, folder=False) for path in paths)), None)
            if dockerfile is not None:
                return ImageBuild(dockerfile, folder, found.args, found.target, found.where)
        if found.block is None or first is None:
            return None
        block = (found.block.start, found.block.end)
        return ImageBuild(os.path.realpath(found.block.document), first, found.args, found.target, found.where, block)

    def _contexts(self, found: WrittenBuild, context: str) -> Iterator[tuple[str, str]]:
        """Where the context may be (``_bases``), then, for a context that starts with the repository's own name
        (``git clone .../retinanet-examples`` and ``docker build -t odtk retinanet-examples/``: the clone), the
        rest of it in that repository."""
        yield from ((base, context) for base in self._bases(found.folder, found.moved))
        first, _, rest = context.replace("\\", "/").partition("/")
        if first and not os.path.isabs(context):
            from shmlint.project.origin import repository_name  # for a context no folder holds

            for root in self.roots:
                if root not in self.names:
                    self.names[root] = repository_name(root)
                if self.names[root] == first:
                    yield root, rest or "."

    def _bases(self, folder: str, moved: str) -> Iterator[str]:
        """Where a build's relative paths may start: the writing file's folder and each folder above it up to its
        root (a script in ``scripts/`` is run from the top as often as from its own folder), else each root; after
        a ``cd sub/dir``, that folder below each of them first."""
        real = os.path.realpath(folder) if folder else ""
        root = next((r for r in self.roots if real == r or real.startswith(r.rstrip(os.sep) + os.sep)), None)
        above = []
        for _ in range(MAX_ABOVE if root is not None else 0):
            above.append(real)
            if real == root:
                break
            real = os.path.dirname(real)
        above += [r for r in self.roots if r not in above]
        if moved:
            yield from (os.path.join(base, moved) for base in above)
        yield from above

    def _inside(self, path: str, *, folder: bool) -> str | None:
        real = os.path.realpath(path)
        if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots):
            return None
        return real if (os.path.isdir(real) if folder else os.path.isfile(real)) else None

    def index(self) -> BuildIndex:
        """Each image's builds; a guide's Dockerfile block only where no build of the name reads a file (a guide
        that shows a short Dockerfile for a name a script builds from the real one explains, it does not build)."""
        return BuildIndex(
            tuple(
                (key, tuple(b for b in builds if b.block is None) or tuple(builds))
                for key, builds in self.by_key.items()
            ),
            self.truncated,
        )


def find_builds(files: Iterable[tuple[str, str]], roots: Sequence[str], limit: int) -> BuildIndex:
    """The builds written in ``files`` (path and kind, a ``discover.FileKind`` value; each read again here, at most
    ``limit`` bytes), with paths resolved inside ``roots``."""
    from shmlint.source import InputError, SourceText, read_bytes

    collector = _Collector(roots)
    spent = 0
    for path, kind in files:
        try:  # decoded as the check decodes it (a UTF-16 PowerShell script, a BOM)
            text = SourceText.from_bytes(path, read_bytes(path, limit)).text
        except InputError:
            continue  # the check reports it where it reads the file
        spent += len(text)
        if spent > MAX_TEXT:
            collector.truncated = True
            break
        where = _display(path, roots)
        for found in builds_in(path, kind, text, where):
            collector.add(found)
    return collector.index()


def _display(path: str, roots: Sequence[str]) -> str:
    real = os.path.realpath(path)
    for root in roots:
        if real.startswith(root.rstrip(os.sep) + os.sep):
            return posixpath.join(*os.path.relpath(real, root).split(os.sep))
    return os.path.basename(path)
