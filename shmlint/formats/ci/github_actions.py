"""GitHub Actions job containers: ``jobs.<id>.container`` and ``jobs.<id>.services.<name>``.

The runner creates each with ``docker create`` and the ``options`` string, so ``--gpus``, ``--shm-size`` and
``--ipc`` there mean what they mean on a ``docker run`` line. A job container runs the job's ``run:`` steps
(``docker exec``), so their commands are its command, as commands typed into it (``shmlint.parsers.typed``); its
actions (``uses:``) run there too, unread: then the steps are not all it runs, and a message says so;
a service container runs its image's own. ``${{ }}`` expressions are opaque words: a value
known only when the workflow runs, or (standing alone) perhaps more options. ``env`` and ``volumes`` are read as
``--env`` and ``--volume``. A fix appends ``--shm-size`` to ``options``; without ``options`` nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.commandline import CommandTarget
from shmlint.extract.docker_options import WordIndex, env_flag, options_workload
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Notice, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.container_options import Flag
from shmlint.parsers.embedded.ci_yaml import step_runs
from shmlint.parsers.embedded.yaml_scalars import mask_scalars
from shmlint.parsers.shell import Word, commands
from shmlint.parsers.typed import StepShell, Typed, steps_session
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar
from shmlint.signals import Signals
from shmlint.source import SourceText
from shmlint.visible import clipped

_EXPRESSION = "${{"
#: what separates the words of a runner label
_LABEL_WORDS = LazyRegex(r"[^a-z0-9]+")
#: what in a container's spec asks docker for a GPU (read exactly by the options reader; here only to say nothing
#: of a container that asks)
_GPU_WORDS = LazyRegex(r"--gpus|--runtime|--device|NVIDIA_VISIBLE_DEVICES")


def github_job_containers(
    source: SourceText, documents: list[Node], signals: Signals, steps: str
) -> tuple[list[Workload], list[Notice]]:
    """One workload per job container and service container of a workflow; ``steps``: the file's step shell
    masked (``mask_ci_yaml``), from which a job container's commands are read. A job container with no GPU of its
    own on a runner labelled as a GPU runner is a notice: whether it gets the runner's GPUs is not in the file."""
    mappings = Mappings()
    found = list(_containers(documents, mappings))
    options = [node for _, _, _, _, spec in found if isinstance(node := mappings.get(spec, "options"), ScalarNode)]
    masked = mask_scalars(source, options)
    words = WordIndex(word for command in commands(masked) for word in command.words) if options else WordIndex(())
    shell = StepShell(commands(steps) if steps and any(not service for _, _, service, _, _ in found) else ())
    workloads = [
        _workload(
            source,
            signals,
            mappings,
            masked,
            words,
            job_name,
            service,
            key,
            spec,
            None if service else _steps(job, shell, steps, mappings),
        )
        for job_name, job, service, key, spec in found
    ]
    notices = [
        _runner_notice(source, job_name, key, label)
        for job_name, job, service, key, spec in found
        if not service
        and not _GPU_WORDS.search(source.text, spec.start_mark.index, spec.end_mark.index)
        and (label := _gpu_runner(job, mappings))
    ]
    return workloads, notices


def _gpu_runner(job: Node, mappings: Mappings) -> str:
    """The first ``runs-on`` label (or runner group) that names a GPU (``gpu`` as a word of it:
    ``linux-amd64-gpu-h100-latest-2``, ``[self-hosted, gpu]``), or ""."""
    runs_on = mappings.get(job, "runs-on")
    nodes = runs_on.value if isinstance(runs_on, SequenceNode) else [runs_on]
    if isinstance(runs_on, MappingNode):
        nodes = [value for _, value in runs_on.value]
    for node in nodes:
        items = node.value if isinstance(node, SequenceNode) else [node]
        for item in items:
            label = scalar(item) or ""
            if "gpu" in _LABEL_WORDS.split(label.lower()):
                return label
    return ""


def _runner_notice(source: SourceText, job: str, key: ScalarNode, label: str) -> Notice:
    line, _ = source.position(key.start_mark.index)
    return Notice(
        source.path,
        f"line {line}: job {job}'s container runs on a GPU runner ({clipped(label, 48)}) but asks for no GPU "
        "(no --gpus, --runtime=nvidia or NVIDIA_VISIBLE_DEVICES): whether docker gives it the runner's GPUs is "
        "the runner's configuration (its default runtime), not this file's, so it is not checked as an "
        "accelerator container; add --gpus to its options to have it checked",
    )


def _containers(documents: list[Node], mappings: Mappings) -> Iterator[tuple[str, Node, str, ScalarNode, Node]]:
    """(job, its node, service name or "", the key, the container node: an image string or a mapping)."""
    for document in documents:
        jobs = mappings.get(document, "jobs")
        for job_name, (_, job) in mappings.items(jobs).items():
            pair = mappings.items(job).get("container")
            if pair is not None:
                yield job_name, job, "", *pair
            for service, (key, spec) in mappings.items(mappings.get(job, "services")).items():
                yield job_name, job, service, key, spec


def _steps(job: Node, shell: StepShell, text: str, mappings: Mappings) -> Typed | None:
    """The commands the job's ``run:`` steps run in its container, and what else its steps run there unread."""
    steps = mappings.get(job, "steps")
    runs = step_runs(steps, mappings)
    if not runs:
        return None
    ranges = [(run.start_mark.index, run.end_mark.index) for run in runs]
    return steps_session(shell, ranges, text, _unread(steps, runs, mappings))


#: GitHub's own actions that only fetch, cache or move files: they run none of the repository's code, so a job
#: whose other steps are utilities stays one (nearly every job checks out its repository first)
_FILE_ACTIONS = frozenset(
    {"actions/checkout", "actions/cache", "actions/cache/restore", "actions/cache/save"}
    | {"actions/upload-artifact", "actions/download-artifact"}
)


def _unread(steps: Node | None, runs: list[ScalarNode], mappings: Mappings) -> str:
    """The job's steps that run code in its container without being read, for messages: actions (a JavaScript or
    composite action runs in the job's container; a ``docker://`` one in a container of its own) and ``run:``
    steps of another shell (``shell: python``). The first is named, with how many more."""
    read = {id(run) for run in runs}
    unread = []
    for step in steps.value if isinstance(steps, SequenceNode) else ():
        uses = scalar(mappings.get(step, "uses")) or ""
        run = mappings.get(step, "run")
        if uses and not uses.startswith("docker://") and uses.partition("@")[0] not in _FILE_ACTIONS:
            unread.append(f"uses: {clipped(uses, 48)}")
        elif run is not None and id(run) not in read:
            unread.append(f"a run: step with shell: {clipped(scalar(mappings.get(step, 'shell')) or '?', 24)}")
    more = f" and {len(unread) - 1} more step(s)" if len(unread) > 1 else ""
    return f"{unread[0]}{more}" if unread else ""


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
    typed: Typed | None = None,
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
        typed=typed,
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
