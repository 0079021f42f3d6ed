"""Images built in the repository (``BuildIndex``): image name -> the Dockerfile, context, build arguments and target
that build it, and where that build is written. Found once per run, before any file is checked
(``runner.project_for``), in the files the run checks:

- ``docker build`` / ``docker image build`` / ``docker buildx build`` / ``podman build`` lines with ``-t``/``--tag``
  (and ``-f``/``--file``, ``--build-arg``, ``--target``) in shell scripts, Makefiles, Markdown/RST code blocks and
  CI ``run:`` steps and GitLab scripts, read by the project's shell tokenizer with the script's own assignments (a
  Makefile's own variable defaults) expanded;
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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.project.index import MAX_PARTS

if TYPE_CHECKING:
    from shmlint.parsers.yamlnodes import Mappings, Node

#: builds kept in all: far more than a repository writes, few enough that matching stays a scan
MAX_BUILDS = 256
#: characters of build files parsed in all (marked files only: a build line, a compose ``build:``, a workflow step)
MAX_TEXT = 16 * 1024 * 1024
#: what names the current folder as a build context on a command line
_HERE = frozenset({".", "./", "$(pwd)", "$PWD", "${PWD}", "`pwd`", "$(CURDIR)", "$(PWD)", "$(shell pwd)"})
#: one variable, as a registry prefix: shell, make and GitHub Actions spellings
_VARIABLE = LazyRegex(r"\$\{\{[^{}]{1,200}\}\}|\$\{[^{}]{1,200}\}|\$\([^()]{1,200}\)|\$[A-Za-z_][A-Za-z0-9_]{0,63}")
#: a repository path's characters once the registry and tag are gone (docker's reference grammar, any case)
_PATH = LazyRegex(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
_ENGINES = frozenset({"docker", "podman", "nerdctl"})
#: build options that take a value (docker build, buildx build, podman build), beyond those read
_VALUE_OPTIONS = frozenset(
    [
        "--add-host",
        "--allow",
        "--annotation",
        "--attest",
        "--build-context",
        "--builder",
        "--cache-from",
        "--cache-to",
        "--call",
        "--cgroup-parent",
        "--cpu-period",
        "--cpu-quota",
        "-c",
        "--cpu-shares",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--iidfile",
        "--isolation",
        "--label",
        "--label-file",
        "--metadata-file",
        "-m",
        "--memory",
        "--memory-swap",
        "--network",
        "-o",
        "--output",
        "--platform",
        "--progress",
        "--secret",
        "--security-opt",
        "--shm-size",
        "--ssh",
        "--ulimit",
        "--authfile",
        "--cert-dir",
        "--creds",
        "--format",
        "--jobs",
        "--os",
        "--arch",
        "--variant",
        "-v",
        "--volume",
        "--device",
        "--userns",
        "--sign-by",
        "--decryption-key",
        "--env",
        "--from",
        "--manifest",
        "--logfile",
        "--timestamp",
        "--cap-add",
        "--cap-drop",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--ipc",
        "--pid",
        "--uts",
        "--retry",
        "--retry-delay",
        "--runtime",
        "--unsetenv",
        "--unsetlabel",
        "--os-feature",
        "--os-version",
        "-H",
        "--host",
        "--context",
        "--config",
        "-l",
        "--log-level",
    ]
)
_TAG, _FILE, _ARG, _TARGET = ("-t", "--tag"), ("-f", "--file"), ("--build-arg",), ("--target",)


class ImageBuild(NamedTuple):
    """One build of an image: real paths of its Dockerfile and context, its arguments and target, and where it is
    written (``path:line`` relative to the root)."""

    dockerfile: str
    context: str
    args: tuple[tuple[str, str], ...] = ()
    target: str = ""
    where: str = ""

    @property
    def same_as(self) -> tuple[str, str, tuple[tuple[str, str], ...], str]:
        """What makes two builds one image (not where they are written)."""
        return self.dockerfile, self.context, self.args, self.target


class BuildIndex(NamedTuple):
    """The run's image builds by image key (``image_key``), in the order found; ``truncated`` when a bound was met
    (a build beyond it is not known)."""

    builds: tuple[tuple[str, tuple[ImageBuild, ...]], ...] = ()
    truncated: bool = False

    def of(self, image: str | None) -> tuple[ImageBuild, ...]:
        """The different builds of this image (another Dockerfile, context, arguments or target), or (); whether
        two of them still make one image is the caller's question (``follow``)."""
        key = image_key(image) if image else None
        if key is None:
            return ()
        return next((builds for name, builds in self.builds if name == key), ())


def image_key(reference: str) -> str | None:
    """An image reference's repository path without registry, tag or digest, lower case; None when it cannot be
    told exactly (a variable inside the path, characters no image name has)."""
    text = reference.strip().strip("\"'").split("@", 1)[0]
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


class _Found(NamedTuple):
    """A build as written, before its paths are resolved: relative paths start from ``folder`` (the writing
    file's, or one above it; "" for a workflow, whose paths start at the top), else from a root."""

    images: tuple[str, ...]
    dockerfile: str  # "" : the context's Dockerfile
    in_context: bool  # the Dockerfile is named inside the context (compose, skaffold), not from where it runs
    context: str
    args: tuple[tuple[str, str], ...]
    target: str
    folder: str
    where: str
    moved: str = ""  # a relative ``cd`` before the build line: its paths start there, below one of the bases


class _Collector:
    """The builds found so far, within the bounds, each image's different builds once."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = roots
        self.by_key: dict[str, list[ImageBuild]] = {}
        self.count = 0
        self.truncated = False

    def add(self, found: _Found) -> None:
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
            builds = self.by_key.setdefault(key, [])
            if all(b.same_as != build.same_as for b in builds):
                builds.append(build)

    def _resolved(self, found: _Found) -> ImageBuild | None:
        """The build with real paths: the context a folder and the Dockerfile a file, both inside a root (tried
        from the writing file's folder and the folders above it, then from each root)."""
        if not found.context or "://" in found.context or found.context.startswith("git@") or found.context == "-":
            return None
        context = "." if found.context in _HERE else found.context
        if (
            "$" in context
            or "`" in context
            or (found.dockerfile and ("$" in found.dockerfile or found.dockerfile == "-"))
        ):
            return None
        for base in self._bases(found.folder, found.moved):
            folder = self._inside(os.path.join(base, context), folder=True)
            if folder is None:
                continue
            # ``-f`` is relative to where the command runs; compose and skaffold name it inside the context
            start = folder if found.in_context or not found.dockerfile else base
            dockerfile = self._inside(os.path.join(start, found.dockerfile or "Dockerfile"), folder=False)
            if dockerfile is not None:
                return ImageBuild(dockerfile, folder, found.args, found.target, found.where)
        return None

    def _bases(self, folder: str, moved: str) -> Iterator[str]:
        """Where a build's relative paths may start: the writing file's folder and each folder above it up to its
        root (a script in ``scripts/`` is run from the top as often as from its own folder), else each root; after
        a ``cd sub/dir``, that folder below each of them first."""
        real = os.path.realpath(folder) if folder else ""
        root = next((r for r in self.roots if real == r or real.startswith(r.rstrip(os.sep) + os.sep)), None)
        above = []
        for _ in range(MAX_PARTS if root is not None else 0):
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
        return BuildIndex(tuple((key, tuple(builds)) for key, builds in self.by_key.items()), self.truncated)


def find_builds(files: Iterable[tuple[str, str]], roots: Sequence[str], limit: int) -> BuildIndex:
    """The builds written in ``files`` (path and kind, a ``discover.FileKind`` value; each read again here, at most
    ``limit`` bytes), with paths resolved inside ``roots``."""
    from shmlint.source import InputError, read_bytes

    collector = _Collector(roots)
    spent = 0
    for path, kind in files:
        try:
            text = read_bytes(path, limit).decode("utf-8", "replace")
        except InputError:
            continue  # the check reports it where it reads the file
        spent += len(text)
        if spent > MAX_TEXT:
            collector.truncated = True
            break
        where = _display(path, roots)
        for found in _builds_in(path, kind, text, where):
            collector.add(found)
    return collector.index()


def _display(path: str, roots: Sequence[str]) -> str:
    real = os.path.realpath(path)
    for root in roots:
        if real.startswith(root.rstrip(os.sep) + os.sep):
            return posixpath.join(*os.path.relpath(real, root).split(os.sep))
    return os.path.basename(path)


def _builds_in(path: str, kind: str, text: str, where: str) -> Iterator[_Found]:
    from shmlint.parsers import embedded

    folder = os.path.dirname(os.path.abspath(path))
    if kind == "shell":
        yield from _command_builds(text, folder, where)
    elif kind == "makefile":
        yield from _command_builds(embedded.mask_makefile(text), folder, where, make_variables(text))
    elif kind in ("markdown", "rst"):
        masked = embedded.mask_markdown(text) if kind == "markdown" else embedded.mask_rst(text)
        yield from _command_builds(masked, folder, where)
        blocks = (embedded.markdown_yaml_blocks if kind == "markdown" else embedded.rst_yaml_blocks)(text)
        for start, end in blocks:
            if "build" in text[start:end]:
                from shmlint.source import alone

                yield from _yaml_builds(path, alone(text, start, end), folder, where)
    elif kind == "yaml":
        yield from _yaml_builds(path, text, folder, where)


def _command_builds(
    masked: str, folder: str, where: str, variables: Mapping[str, str] | None = None
) -> Iterator[_Found]:
    """``docker build -t NAME ...`` lines, with the script's assignments expanded (``IMAGE=x; docker build -t
    $IMAGE``) and a Makefile's own variables (``variables``: ``$(IMAGE)``)."""
    if "build" not in masked:
        return
    from shmlint.project.launchers import UNKNOWN
    from shmlint.project.shellvars import script_commands

    moved = ""  # where a plain ``cd sub/dir`` went, relative to where the commands started
    for line in script_commands(masked, {name: (value,) for name, value in (variables or {}).items()}):
        if line.argv[0] == "cd":
            moved = _changed(moved, line.argv[1:])
            continue
        found = build_command(line.argv, folder, f"{where}:{line.line}")
        if variables and any(UNKNOWN in word and "$(" in word for word in line.argv):
            expanded = build_command(
                tuple(_make_expanded(w, variables) for w in line.argv), folder, f"{where}:{line.line}"
            )
            if expanded is not None:  # the file's defaults; a registry variable also stands for any other registry
                names = (*expanded.images, *(found.images if found is not None else ()))
                found = expanded._replace(images=tuple(dict.fromkeys(names)))
        if found is not None:
            yield found._replace(moved=moved)


def _changed(moved: str, arguments: Sequence[str]) -> str:
    """Where a ``cd`` goes, relative to where the commands started: a relative path without variables that stays
    below it; anything else (``cd``, ``cd $X``, ``cd -``, ``cd ..``, an absolute path) starts over from there (the
    build's paths are tried from the folders above it as well)."""
    from shmlint.project.launchers import UNKNOWN

    target = arguments[0] if len(arguments) == 1 else ""
    if not target or UNKNOWN in target or "$" in target or target.startswith(("/", "~", "-")):
        return ""
    joined = os.path.normpath(os.path.join(moved, target))
    return "" if joined == "." or joined.startswith("..") else joined


#: a Makefile assignment outside recipes: ``NAME ?= value``, ``NAME := value``, ``export NAME = value``
_MAKE_ASSIGNMENT = LazyRegex(
    r"^(?:export[ \t]+|override[ \t]+)?([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*(?:\?|:{1,3}|\+)?=[ \t]*([^\n#]{0,512}?)[ \t]*$",
    re.MULTILINE,
)
_MAKE_REFERENCE = LazyRegex(r"\$[({]([A-Za-z_][A-Za-z0-9_]{0,63})[)}]")
#: rounds of substitution of one variable into another (``IMAGE ?= $(REGISTRY)/app``), assignments read, and the
#: longest value kept between rounds (``A = $(B)$(B)`` cannot grow without end)
_MAKE_ROUNDS = 4
_MAKE_MOST = 1024
_MAKE_VALUE = 512


def make_variables(text: str) -> dict[str, str]:
    """A Makefile's variables whose value the file gives in full (no shell call, no unknown reference), for its
    build lines; the first assignment of a name counts (``?=`` keeps an earlier one, and the file's defaults are what
    a plain ``make`` uses). Recipe lines (indented) are not assignments of make's."""
    found: dict[str, str] = {}
    for match, _ in zip(_MAKE_ASSIGNMENT.finditer(text), range(_MAKE_MOST), strict=False):
        found.setdefault(match.group(1), match.group(2))
    for _ in range(_MAKE_ROUNDS):  # a value that grows past a name's length is no image name: unknown
        known = dict(found)
        found = {name: value if len(value) <= _MAKE_VALUE else "$" for name, value in found.items()}
        found = {name: _substituted(value, known) for name, value in found.items()}
    return {n: v for n, v in found.items() if "$" not in v and "`" not in v and len(v) <= _MAKE_VALUE}


def _substituted(text: str, variables: Mapping[str, str]) -> str:
    return _MAKE_REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def _make_expanded(word: str, variables: Mapping[str, str]) -> str:
    """A word with the Makefile's known ``$(NAME)`` references replaced; still marked unknown when one is left."""
    from shmlint.project.launchers import UNKNOWN

    expanded = _substituted(word.replace(UNKNOWN, ""), variables)
    return expanded if "$" not in expanded else UNKNOWN + expanded


def build_command(argv: Sequence[str], folder: str, where: str) -> _Found | None:
    """The build an image build command line writes, or None for any other command (or one without a tag)."""
    from shmlint.project.launchers import UNKNOWN, program

    words = [word.replace(UNKNOWN, "") for word in program(argv)]
    if not words or words[0].rsplit("/", 1)[-1] not in _ENGINES:
        return None
    index = 1
    while index < len(words) and words[index].startswith("-"):  # global options: ``docker --context x build``
        index += 2 if words[index] in _VALUE_OPTIONS and "=" not in words[index] else 1
    if words[index : index + 1] == ["build"]:
        index += 1
    elif words[index : index + 2] in (["image", "build"], ["buildx", "build"], ["buildx", "b"], ["builder", "build"]):
        index += 2
    else:
        return None
    values: dict[str, list[str]] = {}
    positional: list[str] = []
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            positional += words[index:]
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, equals, value = word.partition("=")
        if not equals and len(name) > 2 and not name.startswith("--") and name[:2] in ("-t", "-f"):
            name, value, equals = name[:2], name[2:], "="  # ``-tname``
        known = name in (*_TAG, *_FILE, *_ARG, *_TARGET)
        if not equals and (known or name in _VALUE_OPTIONS):
            if index >= len(words):
                return None
            value = words[index]
            index += 1
        if known:
            values.setdefault(_long(name), []).append(value)
    tags = tuple(values.get("--tag", ()))
    if not tags or len(positional) != 1:
        return None
    return _Found(
        tags,
        values.get("--file", [""])[-1],
        False,
        positional[0],
        tuple(_arguments(values.get("--build-arg", []))),
        values.get("--target", [""])[-1],
        folder,
        where,
    )


def _long(name: str) -> str:
    return {"-t": "--tag", "-f": "--file"}.get(name, name)


def _arguments(items: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``NAME=value`` build arguments; ``NAME`` alone (taken from the environment) is not known and left out."""
    for item in items:
        name, equals, value = item.partition("=")
        if equals and name:
            yield name, value


def _yaml_builds(path: str, text: str, folder: str, where: str) -> Iterator[_Found]:
    """Compose services, GitHub Actions build steps and skaffold artifacts of one YAML text."""
    from shmlint.parsers.yamlnodes import Mappings, YamlError, compose
    from shmlint.source import SourceText

    try:
        documents = compose(SourceText(path, text), tags=False)
    except YamlError:
        return  # a file the check reports for its syntax, or a snippet with placeholders
    from shmlint.parsers.embedded import mask_ci_yaml

    ci_shell = mask_ci_yaml(SourceText(path, text), documents)
    if ci_shell is not None:  # GitHub Actions ``run:`` steps, GitLab CI scripts
        yield from _command_builds(ci_shell, folder, where)
    yaml = _Yaml(Mappings())
    for document in documents:
        yield from yaml.compose_builds(document, folder, where)
        yield from yaml.action_builds(document, folder, where)
        yield from yaml.skaffold_builds(document, folder, where)


class _Yaml:
    """The three YAML forms that build images, read from composed nodes (with their lines)."""

    def __init__(self, mappings: Mappings) -> None:
        self.m = mappings

    def text(self, node: Node | None, *keys: str) -> str:
        from shmlint.parsers.yamlnodes import scalar

        return (scalar(self.m.path(node, *keys)) or "").strip()

    def pairs(self, node: Node | None) -> tuple[tuple[str, str], ...]:
        """Build arguments: a mapping, a list of ``NAME=value`` or a block of such lines; other values left out."""
        from shmlint.parsers.yamlnodes import MappingNode, ScalarNode, scalar, sequence

        if isinstance(node, ScalarNode):
            return tuple(_arguments(line.strip() for line in (scalar(node) or "").splitlines()))
        if isinstance(node, MappingNode):
            items = self.m.items(node).items()
            return tuple((name, value) for name, (_, item) in items if (value := scalar(item)) is not None)
        return tuple(_arguments(scalar(item) or "" for item in sequence(node)))

    def compose_builds(self, document: Node, folder: str, where: str) -> Iterator[_Found]:
        """Services with ``image:`` and ``build:`` (compose names the Dockerfile inside the context)."""
        from shmlint.parsers.yamlnodes import MappingNode, ScalarNode

        services = self.m.get(document, "services")
        if not isinstance(services, MappingNode):
            return
        for key, service in self.m.items(services).values():
            image, build = self.text(service, "image"), self.m.get(service, "build")
            if not image or build is None:
                continue
            found: tuple[str, str, tuple[tuple[str, str], ...], str]
            if isinstance(build, ScalarNode):
                found = (self.text(build) or ".", "", (), "")
            else:
                found = (
                    self.text(build, "context") or ".",
                    self.text(build, "dockerfile"),
                    self.pairs(self.m.get(build, "args")),
                    self.text(build, "target"),
                )
            context, dockerfile, args, target = found
            yield _Found((image,), dockerfile, True, context, args, target, folder, f"{where}:{_line(key)}")

    def action_builds(self, document: Node, folder: str, where: str) -> Iterator[_Found]:
        """``uses: docker/build-push-action@...`` steps of a workflow's jobs (paths from the repository's top)."""
        from shmlint.parsers.yamlnodes import MappingNode, scalar, sequence

        jobs = self.m.get(document, "jobs")
        if not isinstance(jobs, MappingNode):
            return
        for _, job in jobs.value:
            for step in sequence(self.m.get(job, "steps")):
                if not (scalar(self.m.get(step, "uses")) or "").startswith("docker/build-push-action"):
                    continue
                settings = self.m.get(step, "with")
                tags = tuple(
                    t.strip() for t in self.text(settings, "tags").replace(",", "\n").splitlines() if t.strip()
                )
                if tags:
                    yield _Found(
                        tags,
                        self.text(settings, "file"),
                        False,
                        self.text(settings, "context") or ".",
                        self.pairs(self.m.get(settings, "build-args")),
                        self.text(settings, "target"),
                        "",
                        f"{where}:{_line(step)}",
                    )

    def skaffold_builds(self, document: Node, folder: str, where: str) -> Iterator[_Found]:
        """``build.artifacts`` of a skaffold config (``apiVersion: skaffold/...``); the Dockerfile in the context."""
        from shmlint.parsers.yamlnodes import sequence

        if not self.text(document, "apiVersion").startswith("skaffold/"):
            return
        for artifact in sequence(self.m.path(document, "build", "artifacts")):
            image = self.text(artifact, "image")
            if image:
                yield _Found(
                    (image,),
                    self.text(artifact, "docker", "dockerfile"),
                    True,
                    self.text(artifact, "context") or ".",
                    self.pairs(self.m.path(artifact, "docker", "buildArgs")),
                    self.text(artifact, "docker", "target"),
                    folder,
                    f"{where}:{_line(artifact)}",
                )


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 1
