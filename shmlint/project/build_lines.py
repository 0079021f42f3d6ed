"""Image builds as files write them (``WrittenBuild``), before their paths are resolved: ``docker``/``podman`` build
command lines in shell, Makefiles (with the file's own variables) and documentation, compose ``build:`` with
``image:``, GitHub Actions ``docker/build-push-action`` steps and skaffold artifacts. ``shmlint.project.builds``
resolves them into the run's ``BuildIndex``."""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.makefile import make_assignments, mask_makefile, substituted
from shmlint.parsers.programs import ENGINE_CLIS, program_name

if TYPE_CHECKING:
    from shmlint.parsers.yamlnodes import Mappings, Node

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


class WrittenBuild(NamedTuple):
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
    line: int = 0  # the build line's number in its file (0: a YAML build)
    block: DockerfileBlock | None = None  # the document's Dockerfile the build reads when no file is found


class DockerfileBlock(NamedTuple):
    """A Dockerfile written as a code block of a document, as the guide that builds it writes it: the document's
    path (as read) and the block's offsets in it."""

    document: str
    start: int
    end: int


#: what a build names when it reads the context's own Dockerfile, which a guide may write as a code block
_CONTEXT_DOCKERFILE = frozenset(
    {"", "Dockerfile", "./Dockerfile", "dockerfile", "./dockerfile", "Containerfile", "./Containerfile"}
)


def builds_in(path: str, kind: str, text: str, where: str) -> Iterator[WrittenBuild]:
    folder = os.path.dirname(os.path.abspath(path))
    if kind == "shell":
        yield from _command_builds(text, folder, where)
    elif kind == "makefile":
        yield from _command_builds(mask_makefile(text), folder, where, make_variables(text))
    elif kind == "justfile":
        from shmlint.parsers.embedded.justfile import just_assignments, mask_justfile

        variables = {name: values[0] for name, values in just_assignments(text).items()}
        yield from _command_builds(mask_justfile(text), folder, where, variables)
    elif kind in ("powershell", "batch"):
        from shmlint.parsers.embedded.windows_scripts import script_as_shell

        yield from _command_builds(script_as_shell(kind, text).text, folder, where)
    elif kind in ("markdown", "rst"):
        mask, yaml_blocks, dockerfile_blocks = _document_readers(kind)
        guide: _GuideDockerfiles | None = None  # read once the document builds an image
        for found in _command_builds(mask(text), folder, where, in_blocks=True):
            if found.dockerfile in _CONTEXT_DOCKERFILE:
                guide = guide or _GuideDockerfiles(path, text, dockerfile_blocks(text))
                found = found._replace(block=guide.before(found.line))
            yield found
        for start, end in yaml_blocks(text):
            if "build" in text[start:end]:
                from shmlint.source import alone

                yield from _yaml_builds(path, alone(text, start, end), folder, where)
    elif kind == "yaml":
        yield from _yaml_builds(path, text, folder, where)


def _document_readers(
    kind: str,
) -> tuple[Callable[[str], str], Callable[[str], list[tuple[int, int]]], Callable[[str], list[tuple[int, int]]]]:
    """A document's shell code (masked), its YAML blocks and its Dockerfile blocks, read as its kind is written."""
    if kind == "markdown":
        from shmlint.parsers.embedded.markdown import markdown_dockerfile_blocks, markdown_yaml_blocks, mask_markdown

        return mask_markdown, markdown_yaml_blocks, markdown_dockerfile_blocks
    from shmlint.parsers.embedded.rst import mask_rst, rst_dockerfile_blocks, rst_yaml_blocks

    return mask_rst, rst_yaml_blocks, rst_dockerfile_blocks


class _GuideDockerfiles:
    """The Dockerfiles a document writes as code blocks, in order, with the line each ends on (counted once for
    the whole document), so each build line finds the last one before it by bisection."""

    def __init__(self, path: str, text: str, blocks: Sequence[tuple[int, int]]) -> None:
        self.path = path
        self.blocks = sorted(blocks)
        self.last_lines: list[int] = []
        line, at = 1, 0
        for _, end in self.blocks:  # ``end`` is past the block's last line break
            line += text.count("\n", at, end - 1)
            at = max(at, end - 1)
            self.last_lines.append(line)

    def before(self, line: int) -> DockerfileBlock | None:
        """The Dockerfile the guide writes last before ``line``: what it has its reader write, then build."""
        count = bisect.bisect_left(self.last_lines, line)
        return DockerfileBlock(self.path, *self.blocks[count - 1]) if count else None


def _command_builds(
    masked: str, folder: str, where: str, variables: Mapping[str, str] | None = None, *, in_blocks: bool = False
) -> Iterator[WrittenBuild]:
    """``docker build -t NAME ...`` lines, with the script's assignments expanded (``IMAGE=x; docker build -t
    $IMAGE``) and a Makefile's own variables (``variables``: ``$(IMAGE)``); ``in_blocks``: a document's code
    blocks, masked."""
    if "build" not in masked:
        return
    from shmlint.project.launchers import UNKNOWN
    from shmlint.project.shellvars import script_commands

    moved = ""  # where a plain ``cd sub/dir`` went, relative to where the commands started
    env = {name: (value,) for name, value in (variables or {}).items()}
    for line in script_commands(masked, env, in_blocks=in_blocks):
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
            yield found._replace(moved=moved, line=line.line)


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


#: the longest value of a Makefile's variable read as an image name
_MAKE_VALUE = 512


def make_variables(text: str) -> dict[str, str]:
    """A Makefile's variables whose one value the file gives in full (no shell call, no unknown reference), for its
    build lines, as a plain ``make`` gives them (``shmlint.parsers.embedded.makefile.make_assignments``; a name of
    two possible values, set in a conditional's branches, names no image)."""
    return {
        name: values[0]
        for name, values in make_assignments(text).items()
        if len(values) == 1 and "$" not in values[0] and "`" not in values[0] and len(values[0]) <= _MAKE_VALUE
    }


def _make_expanded(word: str, variables: Mapping[str, str]) -> str:
    """A word with the Makefile's known ``$(NAME)`` references replaced; still marked unknown when one is left."""
    from shmlint.project.launchers import UNKNOWN

    expanded = substituted(word.replace(UNKNOWN, ""), variables)
    return expanded if "$" not in expanded else UNKNOWN + expanded


def build_command(argv: Sequence[str], folder: str, where: str) -> WrittenBuild | None:
    """The build an image build command line writes, or None for any other command (or one without a tag)."""
    from shmlint.parsers.programs import program
    from shmlint.project.launchers import UNKNOWN

    words = [word.replace(UNKNOWN, "") for word in program(argv)]
    if not words or program_name(words[0]) not in ENGINE_CLIS:
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
    return WrittenBuild(
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


def _yaml_builds(path: str, text: str, folder: str, where: str) -> Iterator[WrittenBuild]:
    """Compose services, GitHub Actions build steps and skaffold artifacts of one YAML text."""
    from shmlint.parsers.yamlnodes import Mappings, YamlError, compose
    from shmlint.source import SourceText

    try:
        documents = compose(SourceText(path, text), tags=False)
    except YamlError:
        return  # a file the check reports for its syntax, or a snippet with placeholders
    from shmlint.parsers.embedded.ci_yaml import mask_ci_yaml

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

    def compose_builds(self, document: Node, folder: str, where: str) -> Iterator[WrittenBuild]:
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
            yield WrittenBuild((image,), dockerfile, True, context, args, target, folder, f"{where}:{_line(key)}")

    def action_builds(self, document: Node, folder: str, where: str) -> Iterator[WrittenBuild]:
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
                    yield WrittenBuild(
                        tags,
                        self.text(settings, "file"),
                        False,
                        self.text(settings, "context") or ".",
                        self.pairs(self.m.get(settings, "build-args")),
                        self.text(settings, "target"),
                        "",
                        f"{where}:{_line(step)}",
                    )

    def skaffold_builds(self, document: Node, folder: str, where: str) -> Iterator[WrittenBuild]:
        """``build.artifacts`` of a skaffold config (``apiVersion: skaffold/...``); the Dockerfile in the context."""
        from shmlint.parsers.yamlnodes import sequence

        if not self.text(document, "apiVersion").startswith("skaffold/"):
            return
        for artifact in sequence(self.m.path(document, "build", "artifacts")):
            image = self.text(artifact, "image")
            if image:
                yield WrittenBuild(
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
