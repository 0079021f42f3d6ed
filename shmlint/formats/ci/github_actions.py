"""GitHub Actions job containers: ``jobs.<id>.container`` and ``jobs.<id>.services.<name>``.

The runner creates each with ``docker create`` and the ``options`` string, so ``--gpus``, ``--shm-size`` and
``--ipc`` there mean what they mean on a ``docker run`` line. ``${{ }}`` expressions are opaque words: a value
known only when the workflow runs, or (standing alone) perhaps more options. ``env`` and ``volumes`` are read as
``--env`` and ``--volume``. A fix appends ``--shm-size`` to ``options``; without ``options`` nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.commandline import CommandTarget
from shmlint.extract.docker_options import WordIndex, env_flag, options_workload
from shmlint.model import Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.container_command import Flag
from shmlint.parsers.embedded.yaml_scalars import mask_scalars
from shmlint.parsers.shell import Word, commands
from shmlint.parsers.yamlnodes import Mappings, Node, ScalarNode, SequenceNode, scalar
from shmlint.signals import Signals
from shmlint.source import SourceText

_EXPRESSION = "${{"


def github_job_containers(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    """One workload per job container and service container of a workflow."""
    mappings = Mappings()
    found = list(_containers(documents, mappings))
    options = [node for _, _, _, spec in found if isinstance(node := mappings.get(spec, "options"), ScalarNode)]
    masked = mask_scalars(source, options)
    words = WordIndex(word for command in commands(masked) for word in command.words) if options else WordIndex(())
    return [_workload(source, signals, mappings, masked, words, *entry) for entry in found]


def _containers(documents: list[Node], mappings: Mappings) -> Iterator[tuple[str, str, ScalarNode, Node]]:
    """(job, service name or "", the key, the container node: an image string or a mapping)."""
    for document in documents:
        jobs = mappings.get(document, "jobs")
        for job_name, (_, job) in mappings.items(jobs).items():
            pair = mappings.items(job).get("container")
            if pair is not None:
                yield job_name, "", *pair
            for service, (key, spec) in mappings.items(mappings.get(job, "services")).items():
                yield job_name, service, key, spec


def _workload(
    source: SourceText,
    signals: Signals,
    mappings: Mappings,
    masked: str,
    words: WordIndex,
    job: str,
    service: str,
    key: ScalarNode,
    spec: Node,
) -> Workload:
    options = mappings.get(spec, "options")
    own: list[Word] = []
    target = None
    if isinstance(options, ScalarNode):
        start, end = options.start_mark.index, options.end_mark.index
        own = words.within(start, end)
        written = masked[start:end].rstrip()  # the options as the mask keeps them, quotes and indicators blanked
        target = CommandTarget(start + len(written)) if written.strip() else None
    image_node = spec if isinstance(spec, ScalarNode) else mappings.get(spec, "image")
    return options_workload(
        source,
        signals,
        id=WorkloadId(
            WorkloadFormat.CI_JOB, "job", job, container_kind="service" if service else "container", container=service
        ),
        span=source.span(key.start_mark.index, key.end_mark.index),
        words=own,
        image=_word(image_node),
        extra=(*_env(mappings, spec), *_volumes(mappings, spec)),
        target=target,
    )


def _word(node: Node | None) -> Word | None:
    """A scalar as one word (an image, an env value, a volume), inside its quotes when it has them."""
    text = scalar(node)
    if not text or not isinstance(node, ScalarNode):
        return None
    start = node.start_mark.index + (node.style in ("'", '"'))
    return Word(text, start, start + len(text), dynamic=_EXPRESSION in text)


def _env(mappings: Mappings, spec: Node) -> list[Flag]:
    flags = []
    for key, value in mappings.items(mappings.get(spec, "env")).values():
        key_word, value_word = _word(key), _word(value)
        if key_word is not None and value_word is not None:
            flags.append(env_flag(key_word, value_word))
    return flags


def _volumes(mappings: Mappings, spec: Node) -> list[Flag]:
    volumes = mappings.get(spec, "volumes")
    flags = []
    for item in volumes.value if isinstance(volumes, SequenceNode) else ():
        word = _word(item)
        if word is not None:
            flags.append(Flag("--volume", word, word, word.text, word.start, word.end))
    return flags
