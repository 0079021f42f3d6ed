"""Why a Dockerfile builds a torch image: its base image, or a RUN that installs torch.

A compose service with ``build:`` has no image name to judge, so the Dockerfile it builds is the evidence. Only the
stage that runs counts (the final one, or ``build.target``) plus the stages it descends from or copies out of; a
builder stage that is thrown away says nothing. A requirements file is not read: naming ``-r requirements.txt``
is no proof that torch is in it.
"""

from __future__ import annotations

import io
import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from dockerfile_parse import DockerfileParser

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import ascii_int
from shmlint.parsers.shell import commands
from shmlint.runtime.interpolation import interpolate
from shmlint.signals import Signals

#: package specs that install torch (torchvision/torchaudio pull torch in as a dependency)
_TORCH_PACKAGE = LazyRegex(r"^(?:pytorch::)?(?:py)?torch(?:vision|audio)?(?:\[[^\]]*\])?(?:\s*[=<>!~@;].*)?$", re.I)
_INSTALLERS = {"pip": "install", "pip3": "install", "conda": "install", "mamba": "install", "micromamba": "install"}
#: installer options whose next word is a value, not a package
_VALUE_OPTIONS = frozenset(
    {
        "-c",
        "--channel",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "-r",
        "--requirement",
        "--constraint",
        "-e",
        "--editable",
        "-t",
        "--target",
        "-p",
        "--prefix",
        "-n",
        "--name",
        "--python",
    }
)


@dataclass(frozen=True)
class _Stage:
    """One build stage: what it starts from and what it runs, to tell whether torch ends up in the image."""

    base: str  # the FROM reference with build arguments substituted
    name: str | None
    runs: tuple[str, ...]
    copies_from: tuple[str, ...]
    line: int = 0  # of the FROM, 1-based
    entrypoint: tuple[tuple[str, ...], int] | None = None  # the argv and its line, when the stage sets one
    cmd: tuple[tuple[str, ...], int] | None = None
    workdir: str = ""
    copies: tuple[tuple[str, str], ...] = ()  # (destination in the image, source in the build context or "")
    env: tuple[tuple[str, str], ...] = ()  # its ENV, in order


class RunFacts(NamedTuple):
    """What the image a Dockerfile builds starts, and from what: the external base images of the stage that runs
    (with their lines), its ENTRYPOINT and CMD as argv with their lines (inherited through stages), its WORKDIR."""

    bases: tuple[tuple[str, int], ...]
    entrypoint: tuple[tuple[str, ...], int] | None
    cmd: tuple[tuple[str, ...], int] | None
    workdir: str
    #: what the stages it is built FROM copy, in order: (absolute destination, its one source in the build context;
    #: "" for what comes from elsewhere, another stage, a URL, several sources or a wildcard)
    copies: tuple[tuple[str, str], ...] = ()
    #: the image the stage that runs starts from, through its FROM chain ("" for ``scratch`` or none): not the images
    #: other stages are built from only to be copied from
    start: str = ""
    #: the environment its ENV lines give, those of the stages it is built FROM first (a later one wins)
    env: tuple[tuple[str, str], ...] = ()


def run_facts(text: str, build_args: Mapping[str, str] | None = None, target: str | None = None) -> RunFacts:
    """The facts of the stage that runs (``target`` or the last): never raises, like ``torch_evidence_text``."""
    stages = _stages(text, dict(build_args or {}))
    reachable = list(_reachable(stages, target))
    bases = tuple((s.base, s.line) for s in reachable if s.base and _stage_index(stages, s.base) is None)
    chain = []  # the stage that runs, then the stages it is built FROM (not those it only copies from)
    index = _stage_index(stages, target) if target else None
    current = stages[len(stages) - 1 if index is None else index] if stages else None
    while current is not None and current not in chain:
        chain.append(current)
        parent = _stage_index(stages, current.base)
        current = stages[parent] if parent is not None and stages[parent] is not current else None
    entrypoint = next((s.entrypoint for s in chain if s.entrypoint is not None), None)
    cmd = None
    for stage in chain:  # ENTRYPOINT set in a stage resets the CMD it inherits
        if stage.cmd is not None:
            cmd = stage.cmd
            break
        if stage.entrypoint is not None:
            break
    copies = tuple(copy for stage in reversed(chain) for copy in stage.copies)[:MAX_COPIES]
    start = chain[-1].base if chain and _stage_index(stages, chain[-1].base) is None else ""
    env = dict(pair for stage in reversed(chain) for pair in stage.env)
    workdir = next((s.workdir for s in chain if s.workdir), "")
    return RunFacts(bases, entrypoint, cmd, workdir, copies, start, tuple(env.items())[:MAX_ENV])


def _exec_form(value: str) -> tuple[str, ...]:
    """The argv of ENTRYPOINT/CMD: the JSON exec form as is, the shell form run by ``/bin/sh -c``."""
    stripped = value.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(word, str) for word in parsed):
            return tuple(parsed)
    return ("/bin/sh", "-c", stripped)


def torch_evidence(
    path: Path, signals: Signals, *, build_args: Mapping[str, str] | None = None, target: str | None = None
) -> str | None:
    """Why the Dockerfile at ``path`` builds a torch image, or None (also for a missing or unreadable file)."""
    try:
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    return torch_evidence_text(data.decode("utf-8", "replace"), signals, build_args=build_args, target=target)


def torch_evidence_text(
    text: str, signals: Signals, *, build_args: Mapping[str, str] | None = None, target: str | None = None
) -> str | None:
    """Same as :func:`torch_evidence` for Dockerfile text (compose ``dockerfile_inline``).

    Any text is a Dockerfile to dockerfile_parse (lines it cannot split are skipped), so nothing here is expected to
    raise; the fuzz tests hold that without a catch-all hiding a bug.
    """
    stages = _stages(text, dict(build_args or {}))
    for stage in _reachable(stages, target):
        if _stage_index(stages, stage.base) is None and signals.is_torch_image(stage.base):
            return f"Dockerfile FROM {stage.base}"
        for run in stage.runs:
            install = torch_install(run)
            if install:
                return f"Dockerfile RUN {install}"
    return None


def _stages(text: str, build_args: dict[str, str]) -> list[_Stage]:
    """Stages in order; global ARG defaults (those before the first FROM) are substituted into FROM lines."""
    parser = DockerfileParser(fileobj=io.BytesIO(text.encode("utf-8", "replace")), env_replace=False)
    scope: dict[str, str] = {}
    stages: list[_Stage] = []
    for instruction in parser.structure:
        kind, value = instruction["instruction"].upper(), instruction["value"]
        if kind == "ARG" and not stages:
            name, _, default = value.partition("=")
            name = name.strip()
            scope[name] = build_args.get(name, interpolate(default.strip().strip("\"'"), scope)[0])
        elif kind == "FROM":
            base, name = _parse_from(value)
            stages.append(_Stage(interpolate(base, scope)[0], name, (), (), instruction["startline"] + 1))
        elif stages and kind in ("ENTRYPOINT", "CMD"):
            argv = (_exec_form(value), instruction["startline"] + 1)
            stage = stages[-1]
            stages[-1] = replace(stage, entrypoint=argv) if kind == "ENTRYPOINT" else replace(stage, cmd=argv)
        elif stages and kind == "WORKDIR":
            stages[-1] = replace(stages[-1], workdir=value.strip())
        elif stages and kind in ("COPY", "ADD"):
            source = re.search(r"--from=(\S+)", value) if kind == "COPY" else None
            if source:
                stages[-1] = replace(stages[-1], copies_from=(*stages[-1].copies_from, source.group(1)))
            copied = _copy(value, stages[-1].workdir, elsewhere=source is not None, unpacked=kind == "ADD")
            room = MAX_COPIES - len(stages[-1].copies)
            if copied and room > 0:
                stages[-1] = replace(stages[-1], copies=(*stages[-1].copies, *copied[:room]))
        elif stages and kind == "RUN":
            stages[-1] = replace(stages[-1], runs=(*stages[-1].runs, value))
        elif stages and kind == "ENV" and len(stages[-1].env) < MAX_ENV:
            stages[-1] = replace(stages[-1], env=(*stages[-1].env, *_env_pairs(value))[:MAX_ENV])
    return stages


#: ENV names kept per image (the first ones)
MAX_ENV = 64


def _env_pairs(value: str) -> list[tuple[str, str]]:
    """An ENV line's names and values: ``A=1 B="two words"``, or the older ``A one value``. Quotes are undone as
    the shell would; a value the line leaves unbalanced gives nothing."""
    text = value.strip()
    name, _, rest = text.partition(" ")
    if "=" not in name:
        return [(name, rest.strip())] if name else []
    try:
        words = shlex.split(text, comments=False, posix=True)
    except ValueError:
        return []
    return [(key, val) for key, equals, val in (word.partition("=") for word in words) if equals and key]


#: COPY and ADD lines kept per image (the first ones: a hostile Dockerfile of thousands costs no more)
MAX_COPIES = 32


def _copy(value: str, workdir: str, *, elsewhere: bool = False, unpacked: bool = False) -> list[tuple[str, str]]:
    """``COPY src dest`` (or its JSON form): (absolute destination, one source in the build context) for each
    source, so a later copy to the same place is known to replace what was there. A source is "" when it is not one
    of the build context (``elsewhere``: another stage's; a URL, a variable; an archive ``ADD`` unpacks,
    ``unpacked``); a wildcard (``COPY scripts/*.sh /opt/app/``) is kept as written, for the walk to match against
    the context's files; with several sources the destination is a folder each lands in. A relative destination is
    below the stage's WORKDIR; nothing when no destination can be told."""
    stripped = value.strip()
    words: list[str] = []
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        words = [w for w in parsed if isinstance(w, str)] if isinstance(parsed, list) else []
    else:
        words = [w for w in stripped.split() if not w.startswith("--")]
    if len(words) < 2:
        return []
    destination = words[-1]
    if not destination.startswith("/"):
        destination = f"{(workdir or '/').rstrip('/')}/{destination}"
    if len(words) > 2 and not destination.endswith("/"):
        destination += "/"  # several sources: docker requires a folder
    copies = []
    for source in words[:-1]:
        archive = unpacked and source.lower().endswith(
            (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
        )
        if elsewhere or archive or "$" in source or "://" in source:
            source = ""
        copies.append((destination.rstrip("/") or "/", source))
    return copies


def _parse_from(value: str) -> tuple[str, str | None]:
    """``--platform=x image AS name`` -> (image, name)."""
    words = [word for word in value.split() if not word.startswith("--")]
    if not words:
        return "", None
    name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
    return words[0], name


def _stage_index(stages: list[_Stage], reference: str) -> int | None:
    """The index of the stage a FROM or ``COPY --from`` refers to (by name or number), None for an image."""
    for index, stage in enumerate(stages):
        if stage.name and stage.name.lower() == reference.lower():
            return index
    return ascii_int(reference, maximum=len(stages) - 1) if stages else None  # "²" and 5000 digits: an image


def _reachable(stages: list[_Stage], target: str | None) -> Iterator[_Stage]:
    """The stage that runs and every stage it is built FROM or copies from, each once."""
    if not stages:
        return
    start = _stage_index(stages, target) if target else None
    pending = [len(stages) - 1 if start is None else start]
    seen: set[int] = set()
    while pending:
        index = pending.pop(0)
        if index in seen:
            continue
        seen.add(index)
        stage = stages[index]
        yield stage
        for reference in (stage.base, *stage.copies_from):
            parent = _stage_index(stages, reference)
            if parent is not None and parent < index:
                pending.append(parent)


def _commands(command: str) -> list[list[str]]:
    """The simple commands of a RUN line as word lists, read by the project's shell tokenizer like every other
    shell text (the exec form ``["pip", "install", "torch"]`` is one command)."""
    stripped = command.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
            if isinstance(parsed, list):
                return [[str(word) for word in parsed]]
        except ValueError:
            pass
    return [[word.text for word in simple.words] for simple in commands(stripped)]


def torch_install(command: str) -> str | None:
    """The part of a shell command that installs torch (``pip install torch==2.3``), or None."""
    for words in _commands(command):
        for start, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]
            if re.fullmatch(r"pip3?(\.\d+)?", name):
                name = "pip"
            verb = _INSTALLERS.get(name)
            if verb is None:
                continue
            found = _package_after(words, start + 1, verb)
            if found is not None:
                first = start - 1 if name == "pip" and start and words[start - 1] == "uv" else start
                return " ".join(words[first : found + 1])
    return None


def _package_after(words: list[str], index: int, verb: str) -> int | None:
    """Index of a torch package among the arguments of ``<installer> install`` in one simple command."""
    while index < len(words) and words[index] != verb:
        index += 1
    skip_next = False
    for position in range(index + 1, len(words)):
        word = words[position]
        if skip_next:
            skip_next = False
        elif word.startswith("-"):
            skip_next = word in _VALUE_OPTIONS
        elif _TORCH_PACKAGE.match(word):
            return position
    return None
