"""How much a workload needs /dev/shm, decided from evidence: the tier model behind SHM001's severity.

- ``needs``: software known to pass data through /dev/shm (DataLoader workers, torchrun, vLLM...) -> error;
- ``unknown``: an accelerator request, software not known either way -> warning, saying what would decide it;
- ``free``: software documented or measured not to use /dev/shm (exporters, utilities...) -> no finding.

The knowledge is data (``shmlint/data/shm_need.yaml``, each entry with its source), read once from its compiled
copy, only when a file holds a workload; configuration extends it both ways. Patterns there are bounded (no nested
quantifiers) and run on parsed values (an image reference, a command line), never on whole files.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from shmlint.lazy_regex import LazyRegex
from shmlint.model import CodeFact, Need, ProjectFacts, Tier, Workload, WorkloadFormat
from shmlint.named_tuple import NamedTuple
from shmlint.signals import LAUNCHER_PROGRAMS, split_image
from shmlint.visible import clipped

#: facts quoted in one message: enough to check the claim in a click, short enough to read
MAX_QUOTED = 3
#: the tier data's entries for an MPI launcher with ranks in its own container, and for one whose ranks there the
#: command line does not show (``shmlint.project.ssh_ranks`` moves a launcher from the first to the second)
MPI_LOCAL_RANKS = "mpi-local-ranks"
MPI_LAUNCHER = "mpi-launcher"
#: how a message names where the build of a container's image is written (``Makefile:12``)
BUILD_AT = "build at"
#: how a message says that the Dockerfile of a container's image is only the one beside its file
GUESSED = "the Dockerfile beside the file, taken to build it"


class Searcher(Protocol):
    """A shipped pattern (``LazyRegex``) or a configured one (bounded, ``shmlint.configured_patterns``)."""

    def search(self, value: str, /) -> object: ...


class Entry(NamedTuple):
    """One piece of software the data knows, with how it is recognised."""

    id: str
    tier: Tier
    what: str
    source: str
    images: Searcher | None
    image_tags: Searcher | None
    commands: Searcher | None
    accelerator_only: bool = False  # on the CPU this evidence alone says nothing (``cpu_only_pytorch``)
    command_wins: bool = False  # its command says what really runs (a holder, a notebook): image matches drop
    host_centric: bool = False  # one process drives every local TPU chip (JAX, TensorFlow): ``tpu_alone`` holds
    min_devices: int = 0  # counted GPUs the container must request for this evidence to say anything (a launcher
    # that starts one process per visible GPU: on one GPU it starts one process, and NCCL has no peer)
    under_launchers: bool = False  # what it does as an operator's ranks is said here: ``launched_by`` yields to it
    #: one process per GPU: a container given exactly one counted GPU holds one of them, with no local peer
    per_device: bool = False
    #: its image's entrypoint runs the command given (NGC's ``nvidia_entrypoint.sh``): its image match holds only
    #: for a command of options, or none without a terminal (``image_runs_it``)
    entrypoint_runs_command: bool = False

    def counts(self, devices: int | None) -> bool:
        """Whether this evidence says anything for a container given ``devices`` counted GPUs (None: uncounted)."""
        return (devices or 0) >= self.min_devices and not (self.per_device and devices == 1)


class BuiltinRuntime(NamedTuple):
    """One of KServe's own ServingRuntimes: the model formats it serves and the /dev/shm it mounts."""

    name: str
    formats: tuple[str, ...]  # lower case, in the data's order (the first that serves a format is the default)
    mounts_shm: bool
    size_limit: str | None  # a Kubernetes quantity; None: a Memory emptyDir bounded by the memory limit


class Knowledge(NamedTuple):
    """The data file, compiled: software entries in file order, the accelerator defaults, KServe's runtimes."""

    entries: tuple[Entry, ...]
    multi_device_min: int
    kserve_runtimes: tuple[BuiltinRuntime, ...] = ()
    multi_device_tier: Tier = Tier.UNKNOWN  # several counted GPUs and no software match: a count is not software
    tpu_alone: tuple[Tier, Searcher] | None = None  # a TPU-only request without torch: the tier, the TPU evidence


#: a pattern as the compiled data holds it: the regular expression and its required words, each followed by a
#: blank (None: none known)
CompiledPattern = tuple[str, str | None]


def _regex(compiled: CompiledPattern | None) -> LazyRegex[str] | None:
    """Compiled on first use, and only for values that hold one of its words (``shmlint.required_words``)."""
    return None if compiled is None else LazyRegex(compiled[0], re.IGNORECASE, _words(compiled))


def _words(compiled: CompiledPattern) -> tuple[str, ...] | None:
    return tuple(compiled[1].split()) if compiled[1] is not None else None


@functools.lru_cache(maxsize=1)
def builtin() -> Knowledge:
    """The shipped data, from its compiled copy ``shmlint.data.shm_need`` (``python -m shmlint.build_data`` writes
    it from ``shm_need.yaml``, the source with its comments): tuples load from bytecode in a fraction of a
    millisecond, where libyaml takes about 5 ms for the YAML."""
    from shmlint.data import shm_need

    entries = tuple(  # its patterns compiled lazily; the flags after them (accelerator_only, ...) as written
        Entry._make((id, Tier[tier.upper()], what, source, _regex(images), _regex(tags), _regex(commands), *flags))
        for id, tier, what, source, images, tags, commands, *flags in shm_need.SOFTWARE
    )
    runtimes = tuple(BuiltinRuntime(*runtime) for runtime in shm_need.KSERVE_RUNTIMES)
    alone = shm_need.TPU_ALONE
    return Knowledge(
        entries,
        shm_need.MULTI_DEVICE_MIN,
        runtimes,
        Tier[shm_need.MULTI_DEVICE_TIER.upper()],
        None if alone is None else (Tier[alone[0].upper()], LazyRegex(alone[1][0], re.IGNORECASE, _words(alone[1]))),
    )


#: the source of the entries configuration adds
CONFIGURED = "configuration"


def configured(
    knowledge: Knowledge,
    *,
    needs_images: Iterable[str] = (),
    needs_commands: Iterable[str] = (),
    free_images: Iterable[str] = (),
    free_commands: Iterable[str] = (),
) -> Knowledge:
    """The shipped data extended by configuration: user entries come first, so they win over shipped ones. Their
    patterns come from the checked repository, so they run under a time budget."""
    from shmlint.configured_patterns import ConfiguredPattern

    def bounded(key: str, patterns: tuple[str, ...]) -> ConfiguredPattern | None:
        return ConfiguredPattern(key, patterns) if patterns else None

    extra = []
    for tier, images, commands in ((Tier.NEEDS, needs_images, needs_commands), (Tier.FREE, free_images, free_commands)):
        images, commands = tuple(images), tuple(commands)
        if images or commands:
            name = f"configured-{tier.name.lower()}"
            extra.append(
                Entry(
                    name,
                    tier,
                    f"configured as {tier.name.lower()}",
                    CONFIGURED,
                    bounded(f"shm-{'' if tier is Tier.NEEDS else 'free-'}images", images),
                    None,
                    bounded(f"shm-{'' if tier is Tier.NEEDS else 'free-'}commands", commands),
                )
            )
    return knowledge._replace(entries=(*extra, *knowledge.entries))


#: the shells whose script, named after them, replaces an image's entrypoint here (Python's: ``is_python``)
_SCRIPT_SHELLS = frozenset({"bash", "sh"})
#: CI containers that start their image's own entrypoint: a GitHub Actions service, Jenkins' ``withRun``
_IMAGE_STARTED = frozenset({"service", "docker.withRun"})


def decide(workload: Workload, knowledge: Knowledge, *, walked: bool = True) -> Need | None:
    """The workload's need for /dev/shm, or None when it is neither accelerator nor torch work. Names (image,
    command) decide first; where they leave it undecided, what the repository's files show (``workload.project``)
    does. ``walked``: a project walk reads what the names leave open (Python's ``-c`` code among it); without one
    (standard input) the data's patterns read that code's text."""
    need = _by_names(workload, knowledge, walked)
    if need is None or need.tier is not Tier.UNKNOWN or workload.project is None:
        return need
    return _by_project(workload, workload.project, knowledge) or need


def by_option(workload: Workload, need: Need | None, knowledge: Knowledge) -> bool:
    """Whether names decided a need by a setting on the command line of a Python program that the repository may
    hold, run by Python or a launcher (``python train.py --num_workers 4``, ``torchrun ... train.py ...``): that
    program's code has the last word on its own options (``shmlint.project.pyoption_flow``), so the walk reads it."""
    if need is None or need.tier is not Tier.NEEDS or need.entry is None or not workload.command:
        return False
    entry = next((e for e in knowledge.entries if e.id == need.entry), None)
    if entry is None or entry.commands is None or entry.commands.search(workload.command) is None:
        return False
    from shmlint.parsers.programs import is_python, program  # asked only of a need a command's setting decided

    words = program(_main_command(workload.command.split(" ")))
    name = words[0].rpartition("/")[2] if words else ""
    if not (is_python(name) or name in LAUNCHER_PROGRAMS):
        return False
    return any(word.endswith(".py") or word == "-m" for word in words[1:])


#: words of a command line that end one command and start the next
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})


def _unkept(command: str, facts: ProjectFacts | None) -> str:
    """The command without the options its program keeps to itself (``ProjectFacts.kept``): what the data's
    patterns read. An option is left out only where the command names its program as the walk read it."""
    if facts is None or not facts.kept or not command:
        return command
    words = command.split(" ")
    dropped: set[int] = set()
    for kept in facts.kept:
        ours = moved = False  # in a part of the command that runs the program (``a.py --n 4 && b.py --n 4``)
        for at, word in enumerate(words):
            if word in _SEPARATORS:
                ours = False
            moved = moved or word == "cd"  # after a ``cd``, the same name may be another folder's program
            ours = ours or (word == kept.program and not moved)  # as written: ``b/train.py`` is another program
            if ours and word == kept.flag:
                dropped |= {at, at + 1}
            elif ours and word.startswith(f"{kept.flag}="):
                dropped.add(at)
    return " ".join(word for at, word in enumerate(words) if at not in dropped)


def _by_project(workload: Workload, facts: ProjectFacts, knowledge: Knowledge) -> Need | None:
    """Code that uses /dev/shm, a command a script runs that the data knows to, the command or base image of the
    image built for it (each decides as the workload's own would), or loaders certain to have no workers."""
    through = _through_build(facts)
    if facts.needs:
        return Need(Tier.NEEDS, "; ".join(str(fact) for fact in facts.needs[:MAX_QUOTED]) + through, None)
    accelerator, devices = bool(workload.gpu), workload.accelerator_count
    for fact, by_name in (*((fact, False) for fact in facts.commands), *((fact, True) for fact in facts.by_name)):
        heard = _unkept(fact.text, facts)
        for entry in knowledge.entries:
            if (
                (accelerator or not entry.accelerator_only)
                and entry.counts(devices)
                and _runs_what_it_knows(entry, heard, by_name=by_name, known=knowledge.entries)
            ):
                return Need(Tier.NEEDS, f"{entry.what} ({fact.where} {_quoted(entry, fact.text)}){through}", entry.id)
    plain = workload._replace(project=ProjectFacts(kept=facts.kept) if facts.kept else None)  # its own options
    built = [(fact, plain._replace(command=fact.text)) for fact in (facts.started,) if fact is not None]
    if not _base_aside(workload, facts.started, knowledge):
        # what the built image runs when the workload names nothing: its own CMD (an NGC base's server runs only
        # when that CMD starts it: ``image_runs_it``; audit74a's image FROM Triton's, whose CMD is a script)
        command = plain.command or (facts.started.text if facts.started is not None else "")
        built += [
            (fact, plain._replace(image=fact.text.removeprefix("FROM "), command=command)) for fact in facts.images
        ]
    for fact, variant in built:
        need = _by_names(variant, knowledge, True)
        if need is not None and need.tier is not Tier.UNKNOWN:
            found = f" ({BUILD_AT} {facts.build})" if facts.build else (f" ({GUESSED})" if facts.guessed else "")
            return need._replace(because=f"{need.because}, built by {fact.where}{found}")
    if facts.free:
        return Need(Tier.FREE, "; ".join(str(fact) for fact in facts.free[:MAX_QUOTED]) + through, None)
    return None


#: Python modules that install or set up packages: what they name does not run (``python -m pip install vllm``)
_INSTALLERS = frozenset({"pip", "pip3", "ensurepip", "venv", "virtualenv", "pipx", "uv", "conda"})
#: programs whose arguments name software that does not run in this container: installers, version control,
#: downloads and uploads, and what runs a command elsewhere (another host, container, pod or job)
_ELSEWHERE = _INSTALLERS | frozenset(
    {
        *("mamba", "micromamba", "apt", "apt-get", "yum", "dnf", "apk", "brew", "npm", "yarn", "cargo", "go"),
        *("git", "wget", "curl", "huggingface-cli", "hf", "aws", "gsutil", "gcloud", "az"),
        *("ssh", "scp", "rsync", "docker", "podman", "nerdctl", "kubectl", "helm", "sbatch", "salloc", "qsub"),
    }
)

#: programs whose options of a loader's name count processes of their own: LiteLLM's proxy takes ``--num_workers``
#: for its uvicorn/gunicorn workers (https://docs.litellm.ai/docs/proxy/cli), not a DataLoader's
_OWN_WORKERS = frozenset({"litellm"})


def _runs_what_it_knows(entry: Entry, command: str, *, by_name: bool = False, known: Sequence[Entry] = ()) -> bool:
    """Whether a needs entry knows what a command the repository's files run starts: it matches the command, and
    either the program is one whose options say what it starts (Python or a launcher: ``torchrun --nproc_per_node
    4``, ``python x.py --num_workers 4``; a script's other programs too, ``vllm bench --tensor-parallel-size 2``,
    unless they install, fetch or run things elsewhere, or count workers of their own: ``litellm --num_workers 4``)
    or the match goes once the program's own name is gone
    (``svc train -t``, ``FORCE_TORCHRUN=1 llamafactory-cli train``; not ``pip install deepspeed``, ``python -m pip
    install deepspeed``, ``ssh host vllm serve``, ``git clone .../DeepSpeed``, nor a set-up command's ``cd
    DeepSpeed`` or ``echo "starting vllm serve"``). A program started by name
    (``by_name``: new evidence, read in code that may run anything) is held to the second test unless it is a
    launcher, so an uploader's own ``--num-workers 8`` says nothing either, unless the data ``known`` knows the
    program by its name (``vllm serve m --tensor-parallel-size 2``: a setting of a server it knows)."""
    if entry.tier is not Tier.NEEDS or entry.commands is None or entry.commands.search(command) is None:
        return False
    from shmlint.parsers.programs import SETUP_ONLY, is_python, program  # asked only of a command a file runs

    words = command.split(" ")
    rest = program(words)
    if not rest or rest[0].startswith("-"):  # a wrapper's own options (``nice -n 10 ...``): its program is not known
        return not by_name
    name = rest[0].rpartition("/")[2]
    at = len(words) - len(rest)
    module = next((i + 1 for i, word in enumerate(rest[:8]) if word == "-m"), 0) if is_python(name) else 0
    if module and rest[module : module + 1] and rest[module] in _INSTALLERS:
        at += module  # ``python -u -m pip install deepspeed``: the module is the program, and it installs
    elif (
        is_python(name)
        or name in LAUNCHER_PROGRAMS
        or not (by_name or name in _ELSEWHERE or name in SETUP_ONLY or name in _OWN_WORKERS)
    ):
        return True
    nameless = " ".join((*words[:at], "_", *words[at + 1 :]))
    if entry.commands.search(nameless) is None:
        return True
    return any(
        e.tier is not Tier.FREE
        and e.commands is not None
        and e.commands.search(command)
        and not e.commands.search(nameless)
        for e in known
    )  # a free entry's (``echo``, ``ray job submit``) runs nothing that would use the setting


def _through_build(facts: ProjectFacts) -> str:
    """Where the image that runs the code was found to be built, when its name found the build: the Dockerfile
    and the line that builds it, so the reader can check how the code got there."""
    dockerfile = facts.started or (facts.images[0] if facts.images else None)
    if dockerfile is None or not (facts.build or facts.guessed):
        return ""
    if not facts.build:  # no build names the image: the Dockerfile beside the file is taken to build it
        return f" (in the image built from {dockerfile.where.rpartition(':')[0]}: {GUESSED})"
    return f" (in the image built from {dockerfile.where.rpartition(':')[0]}; {BUILD_AT} {facts.build})"


def _by_names(workload: Workload, knowledge: Knowledge, walked: bool) -> Need | None:
    accelerator = bool(workload.gpu)
    if not accelerator and not workload.torch:
        return None
    if workload.dataloader is not None and workload.dataloader.workers > 0:
        return Need(Tier.NEEDS, f"a DataLoader with {workload.dataloader.workers} workers is declared", None)
    devices = workload.accelerator_count
    heard = _unkept(workload.command, workload.project)
    matched = [e for e in knowledge.entries if e.commands and heard and e.counts(devices) and e.commands.search(heard)]
    ran = _ran_commands(heard, walked) if any(e.tier is Tier.NEEDS for e in matched) else []
    by_command = [
        (e, "command") for e in matched if e.tier is not Tier.NEEDS or any(_runs_what_it_knows(e, c) for c in ran)
    ]
    by_image = [(e, "image") for e in _by_image(knowledge.entries, workload.image) if e.counts(devices)]
    if not workload.image_runs:  # the owner's word on an image still holds where its entrypoint never runs
        by_image = [(e, where) for e, where in by_image if e.source == CONFIGURED]
    terminal = workload.launch is not None and workload.launch.terminal
    by_image = [(e, where) for e, where in by_image if image_runs_it(e, workload.command, terminal)]
    if workload.command.startswith("-") and any(e.tier is Tier.FREE for e, _ in by_image):
        # a command of options only is given to the image's own program: one the data knows to need nothing keeps
        # them its own (a LiteLLM proxy's ``--num_workers 4`` counts its web server's processes)
        by_command = [(e, where) for e, where in by_command if e.tier is not Tier.NEEDS]
    free_command = next((e for e, _ in by_command if e.tier is Tier.FREE), None)
    needs_command = any(e.tier is Tier.NEEDS for e, _ in by_command)
    if free_command is not None and not needs_command:
        if _only_free(workload.command, knowledge):
            # the image is only where a utility or client runs; a command that also starts software that needs
            # /dev/shm (`nvidia-smi && torchrun ...`) keeps that need
            return Need(Tier.FREE, f"{free_command.what} (command)", free_command.id)
        # one that starts anything else beside the utility (`nohup tensorboard ... & python3 serve.py`) leaves it
        # to the image and the rest: the utility decides nothing (audit69a: `bash -c "tensorboard ... & python
        # train.py"` was taken for a log viewer, with no finding)
        by_command = [(e, where) for e, where in by_command if e.tier is not Tier.FREE]
    if (
        any(e.command_wins for e, _ in by_command)
        or _runs_steps(workload)
        or _own_program(workload)
        or _inline_program(workload)
        or _other_program_on_the_cpu(workload, by_command, by_image)
    ):
        by_image = []  # a holder, a notebook, a CI job's steps, a program of its own: the image is only where they
        # run, its own entrypoint never does
    matches = [(e, where) for e, where in by_command + by_image if accelerator or not e.accelerator_only]
    strongest = max(matches, key=lambda pair: pair[0].tier) if matches else None  # the first of equals
    if workload.launched_by is not None and (
        strongest is None or (strongest[0].tier is not Tier.NEEDS and not strongest[0].under_launchers)
    ):  # an operator's launcher, named software aside (unless its entry says what it does under one)
        return Need(Tier.NEEDS, workload.launched_by, None)
    tpu = _tpu_alone(workload, knowledge, [e for e, _ in matches])
    if tpu is not None:
        return tpu
    if strongest is None or strongest[0].tier is Tier.UNKNOWN:
        alone = _one_of_its_devices(heard, devices, knowledge, walked)
        if alone is not None:
            return alone
    if strongest is not None:
        entry, where = strongest
        shown = _part(entry, heard) if where == "command" else workload.image
        counted = f"; {devices} GPUs" if entry.min_devices else ""  # the count that made it evidence
        because = f"{entry.what} ({where} {clipped(shown or '', 60)}{counted})"
        return Need(entry.tier, because, entry.id)
    if not accelerator:  # torch evidence of a kind the data does not know, on the CPU
        return Need(Tier.UNKNOWN, "torch on the CPU without DataLoader workers or a launcher", None)
    count = workload.accelerator_count
    if count is not None and count >= knowledge.multi_device_min:
        because = f"{count} GPUs in one container, with software shmlint does not know (NCCL uses /dev/shm only"
        return Need(knowledge.multi_device_tier, f"{because} between processes the software starts)", None)
    return Need(Tier.UNKNOWN, "an accelerator request, with software shmlint does not know", None)


def _one_of_its_devices(command: str, devices: int | None, knowledge: Knowledge, walked: bool) -> Need | None:
    """Undecided, said as it is: a command whose setting starts one process per GPU (``--tensor-parallel-size 2``)
    in a container given one counted GPU holds one of them, with its peers in other containers, or it cannot start
    (audit76d: a compose vLLM service with one GPU and tensor parallel 2 was said to run "tensor parallel 1, the
    defaults"). Once it gets its GPUs, the setting is evidence."""
    if devices != 1 or not command:
        return None
    ran: list[str] | None = None
    for entry in knowledge.entries:
        if not (entry.per_device and entry.tier is Tier.NEEDS and entry.commands and entry.commands.search(command)):
            continue
        ran = _ran_commands(command, walked) if ran is None else ran
        if any(_runs_what_it_knows(entry, c) for c in ran):
            setting = clipped(_part(entry, command).removeprefix("... "), 40)
            because = f"{entry.what} ({setting}), but with 1 GPU: its other processes run elsewhere, or it cannot start"
            return Need(Tier.UNKNOWN, because, entry.id)
    return None


def _base_aside(workload: Workload, started: CodeFact | None, knowledge: Knowledge) -> bool:
    """Whether the base image of the image built for ``workload`` says nothing of what it runs: the image starts a
    holder, a shell or a notebook (what is exec'd into it later is not in the files), or, in a container with no
    accelerator, a program of its own (a web client or a benchmark client built FROM a GPU server's image). With an
    accelerator a CMD stays what it is to docker, arguments for the base's entrypoint, and the base decides."""
    if started is None:
        return False
    own_program = not workload.gpu and not started.text.lstrip().startswith("-")
    return own_program or _holds(started.text, knowledge)


#: Python's options without a value, alone or grouped (``-u``, ``-BE``), and such a group that ends in ``-c``
_PYTHON_FLAGS = LazyRegex(r"-[bBdEiIOqsSuv]{1,8}")


def _inline_program(workload: Workload) -> bool:
    """A container whose command is Python's ``-c`` code (``python3 -c "import handler"``, ``python3 -uc ...``,
    also as a shell's ``-c`` string): that code is what runs, or, after an image's ``ENTRYPOINT``, arguments its
    server refuses; the image's (or its base's) server never starts, so its name is not evidence, on an
    accelerator too (audit63a: `python -c "import tensorrt_llm"`, a version check in the TensorRT-LLM image, failed
    the gate); the code itself is read as a program where the walk reaches it. A program or options after the
    image's own entrypoint (``Qwen/Qwen2-7B``, ``--model x``, ``/start.sh``) are left to the image."""
    if not workload.command:
        return False
    from shmlint.parsers.programs import PYTHON_VALUE_OPTIONS, SHELLS, is_code_option, is_python, program, shell_operand

    words = program(workload.command.split(" "))
    operand = shell_operand(words[1:]) if words and words[0].rpartition("/")[2] in SHELLS else None
    if operand is not None and operand[0]:
        words = program(words[1 + operand[1] :])  # the string a shell runs (the words were joined: quotes are gone)
    if not words or not is_python(words[0]):
        return False
    skip = False
    for word in words[1:8]:  # the interpreter's own options come first: ``python3 -u -W ignore -c ...``
        if skip:
            skip = False
        elif is_code_option(word):
            return True
        elif word in PYTHON_VALUE_OPTIONS:
            skip = True  # an option that takes a value
        elif not _PYTHON_FLAGS.fullmatch(word):
            return False
    return False


def holds_only(workload: Workload, knowledge: Knowledge) -> bool:
    """Whether the container only holds its accelerators while people run work in it: its command, or with none the
    command of the image built for it (``workload.project``), is a holder, a shell or a notebook."""
    started = workload.project.started if workload.project is not None else None
    forwarded = workload.launch is not None and workload.launch.forwarded  # its words are the script's: none
    command = (not forwarded and workload.command) or (started.text if started is not None else "")
    return bool(command) and _holds(command, knowledge)


def image_runs_it(entry: Entry, command: str, terminal: bool) -> bool:
    """Whether an image match says what the container runs: yes, unless the image's entrypoint runs the command it
    is given (NVIDIA's NGC images) and that command names a program (it replaces the server: audit74a, eleven
    errors on Triton's TensorRT-LLM image running benchmarks, builds and tokenizers), or there is none and a
    terminal is attached (the image's shell: the guides' ``docker run -it``, a compose dev container's ``tty``).
    A command of options is left to the image, and so is none without a terminal (its own start)."""
    if not entry.entrypoint_runs_command or command.startswith("-"):
        return True
    return not command and not terminal


def _holds(command: str, knowledge: Knowledge) -> bool:
    """Whether ``command`` only holds the container (``sleep infinity``, a shell, a notebook): what is exec'd into it
    later is not in the files, so the image it runs in is not evidence."""
    return any(e.command_wins and e.commands is not None and e.commands.search(command) for e in knowledge.entries)


def own_script(workload: Workload) -> str | None:
    """The script an interpreter runs in place of the image's entrypoint, in a container with no accelerator
    (``docker run --entrypoint python3 -v .:/repo vllm/vllm-openai /repo/dump_flags.py``: ``dump_flags.py``). When
    the repository holds it, the image's software never starts and its name is not evidence (``_own_program``):
    what the script runs decides, as for a program of its own built FROM a server's image (``_base_aside``). One
    the repository does not hold (``/vllm-workspace/start.sh``) may be the image's own start, and a replacement that
    names a program (``command: [run]``) its own program: the image stays evidence."""
    if workload.gpu or workload.launch is None or not workload.launch.entrypoint:
        return None
    from shmlint.parsers.programs import is_python  # asked only of a container whose entrypoint is replaced

    words = _main_command((*workload.launch.entrypoint, *workload.launch.arguments))
    if len(words) < 2 or not (is_python(words[0]) or words[0].rpartition("/")[2] in _SCRIPT_SHELLS):
        return None
    script = words[1].rpartition("/")[2]
    return script if script.endswith((".py", ".sh")) else None


def _main_command(words: Sequence[str]) -> Sequence[str]:
    """The command a shell's ``-c`` string runs after what only sets it up (``echo``, ``cd``, ``curl`` to test the
    network...), when there is exactly one such command; any other words as they are."""
    from shmlint.parsers.programs import program

    at = _inline_script(words)
    if at is None:
        return words
    run = [argv for command in _script_commands(words[at]) if (argv := program(command))]
    main = [argv for argv in run if not _sets_up(argv)]
    return main[0] if len(main) == 1 else words


def _inline_script(words: Sequence[str]) -> int | None:
    """Where the string a ``bash -c``/``sh -c`` command runs is among its words (None: not such a command)."""
    from shmlint.parsers.programs import shell_operand

    operand = shell_operand(words[1:]) if words and words[0].rpartition("/")[2] in _SCRIPT_SHELLS else None
    return 1 + operand[1] if operand is not None and operand[0] else None


def _script_commands(script: str) -> list[list[str]]:
    """The words of each command of a shell string."""
    from shmlint.parsers.shell import commands

    return [[word.text for word in command.words] for command in commands(script)]


#: what a sourced file is when it only sets up the shell: a virtual environment's or conda's activation, an env file
_ENVIRONMENT_FILE = LazyRegex(r"(?:^|/)(?:activate|conda\.sh|[\w.-]{0,64}\.env)$")


def _sets_up(argv: Sequence[str]) -> bool:
    """Whether a command of a shell string only sets up what follows (``SETUP_ONLY``); ``source``/``.`` only of an
    environment's activation or an env file (another sourced script may be the image's own start)."""
    from shmlint.parsers.programs import SETUP_ONLY

    name = argv[0].rpartition("/")[2]
    if name in ("source", "."):
        return len(argv) > 1 and _ENVIRONMENT_FILE.search(argv[1]) is not None
    return name in SETUP_ONLY


def _own_program(workload: Workload) -> bool:
    script = own_script(workload)
    if script is None or workload.project is None:
        return False
    return script in (path.rpartition("/")[2] for path in workload.project.followed)


def _other_program_on_the_cpu(
    workload: Workload, by_command: list[tuple[Entry, str]], by_image: list[tuple[Entry, str]]
) -> bool:
    """A container with no accelerator that replaces the image's entrypoint (Kubernetes ``command``, compose
    ``entrypoint``, ``--entrypoint``) with a program the data does not know, in an image it knows: a KV cache
    coordinator (``command: ["mooncake_master"]``) or ``python3 -m`` a module of its own run from a GPU server's
    image. The server the image is named for is not what runs, as ``_base_aside`` says of an image built FROM
    it. Not a path, a script (``start_server.sh``), a Python file or a shell (a script the image may hold may
    start its server), nor arguments its own entrypoint takes; with an accelerator, or an image the configuration
    names (its owner's word), the image keeps deciding."""
    launch = workload.launch
    if workload.gpu or by_command or launch is None or not launch.entrypoint:
        return False
    if any(entry.source == CONFIGURED for entry, _ in by_image):
        return False
    from shmlint.parsers.programs import SHELLS, is_python, program

    words = program(launch.entrypoint)
    name = words[0] if words else ""
    if is_python(name.rpartition("/")[2]):
        return "-m" in words[1:3]  # ``python3 -m module``, ``python3 -u -m module``; not a file it may hold
    held = "/" in name or "." in name  # a path into the image, or a script's name (``start.sh``, ``serve.py``)
    return bool(name) and not held and not name.startswith(("-", "$")) and name not in SHELLS


def _runs_steps(workload: Workload) -> bool:
    """A CI job's own container: GitHub Actions starts it with its entrypoint replaced and Jenkins' agents and
    ``inside`` with ``cat``; the steps exec'd into it are all that runs, so its image names a toolbox, not software
    started. A service container and Jenkins' ``withRun`` start their image's own entrypoint."""
    return workload.id.format is WorkloadFormat.CI_JOB and workload.id.container_kind not in _IMAGE_STARTED


def _ran_commands(command: str, code_read: bool = False) -> list[str]:
    """The commands a container's command runs, each as its words: those typed one after another into its shell
    (``a ; b``) and those of a shell's ``-c`` string (``bash -c "pip install deepspeed && python app.py"``), so a
    program named only as what an installer installs (``_runs_what_it_knows``) is not taken to run. ``code_read``:
    Python's ``-c`` code was read as a program, so its text is left out of the commands (``_without_code``)."""
    found = []
    for part in command.split(" ; "):
        words = part.split(" ")
        at = _inline_script(words)  # the words were joined: the string is all of the rest
        found += [part] if at is None else [" ".join(argv) for argv in _script_commands(" ".join(words[at:]))]
    return [_without_code(part) for part in found] if code_read else found


def _without_code(command: str) -> str:
    """A command with the code of Python's ``-c`` left out: that code is a program, read as one (its loaders,
    ``follow``), not a command line whose options the data's patterns know (``num_workers=2`` in a tutorial's
    code is a loader whose batches decide, not a setting)."""
    from shmlint.parsers.programs import PYTHON_VALUE_OPTIONS, is_code_option, is_python, program

    words = command.split(" ")
    rest = program(words)
    if not rest or not is_python(rest[0].rpartition("/")[2]):
        return command
    at = len(words) - len(rest) + 1
    while at < len(words) and words[at].startswith("-") and not is_code_option(words[at]):
        at += 2 if words[at] in PYTHON_VALUE_OPTIONS else 1
    return " ".join(words[: at + 1]) if at < len(words) and is_code_option(words[at]) else command


def _only_free(command: str, knowledge: Knowledge) -> bool:
    """Whether every command a container's command runs is a utility or client the data knows (a free entry's),
    only prepares one (set-up, an installer or a fetcher: ``pip install tensorboard && tensorboard ...``) or is a
    shell tool that starts nothing (``nvidia-smi && grep MemTotal /proc/meminfo``). One command is the free match
    itself (its words re-joined lose their quotes: ``ray job submit ... '&&' python x.py`` is one command)."""
    from shmlint.parsers.programs import SETUP_ONLY, program

    ran = _ran_commands(command)
    if len(ran) < 2:
        return True
    free = [e.commands for e in knowledge.entries if e.tier is Tier.FREE and e.commands is not None]
    for part in ran:
        words = program(part.split(" "))
        name = words[0].rpartition("/")[2] if words else ""
        if name in SETUP_ONLY or name in _ELSEWHERE or name in _SHELL_TOOLS or any(p.search(part) for p in free):
            continue
        return False
    return True


#: shell tools that read or move files and start nothing of their own (a utility container's other commands)
_SHELL_TOOLS = frozenset(
    {
        *("grep", "egrep", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "sed", "awk", "tee", "find", "stat"),
        *("touch", "cp", "mv", "rm", "ln", "chmod", "chown", "date", "id", "whoami", "hostname", "uname", "df"),
        *("du", "free", "nproc", "lscpu", "ps", "which", "env", "printenv", "tar", "gzip", "unzip"),
    }
)


#: the longest command a message quotes whole (its short form clips near there)
_QUOTED_WHOLE = 40


def _quoted(entry: Entry, command: str) -> str:
    """A command a file runs, as a message quotes it: clipped, with the setting that decided after its first words
    where the clip would cut it off (audit70d: ``sft.sh:65 torchrun --nproc_per_node=1 --nnodes=1 -...`` hid the
    ``--dataloader_num_workers 4`` that was the need)."""
    from shmlint.parsers.programs import is_python, program

    shown = clipped(command, 60)
    part = _part(entry, command)
    if not part.startswith("... ") or part[4:] in shown:
        return shown
    words = program(command.split(" ")) or command.split(" ")
    name = words[0].rpartition("/")[2]
    head = f"{name} -m {words[2]}" if is_python(name) and words[1:2] == ["-m"] and len(words) > 2 else name
    return f"{clipped(head, 48)} {clipped(part, 40)}"


def _part(entry: Entry, command: str) -> str:
    """The command the entry matched, of several run one after the other (``a ; b``: typed into a container's
    shell), so the message quotes what decided; a setting it matched late on a long line (``--tensor-parallel-size
    2``) is quoted itself, which the message's clipped command would cut off."""
    if entry.commands is None:
        return command
    searched = ((part, entry.commands.search(part)) for part in command.split(" ; "))
    command, found = next(((part, match) for part, match in searched if match), (command, None))
    if isinstance(found, re.Match) and found.start() > 0 and len(command) > _QUOTED_WHOLE:  # the shipped data's
        end = command.find(" ", found.end())  # to the end of the word the match stops in (``--num_workers=16``)
        setting = command[found.start() : end if end >= 0 else len(command)].strip()
        if setting.startswith("-") and not setting.startswith("-m "):  # ``python -m pkg`` names the program
            return f"... {setting}"
    return command


def _tpu_alone(workload: Workload, knowledge: Knowledge, matched: list[Entry]) -> Need | None:
    """A request of TPUs only, nothing showing torch, no software matched but host-centric ones (JAX, TensorFlow):
    one process drives the host's chips, so no data crosses processes through /dev/shm (``accelerators.tpu_alone``
    in the data, with its source)."""
    if knowledge.tpu_alone is None or workload.torch or not workload.gpu:
        return None
    tier, tpu = knowledge.tpu_alone
    if not all(tpu.search(evidence.text) for evidence in workload.gpu):
        return None
    if not all(entry.host_centric for entry in matched):
        return None
    if matched:
        software = " and ".join(entry.what.split(" (")[0] for entry in matched)
        return Need(tier, f"TPUs driven by {software}: one process drives a host's chips", None)
    return Need(
        tier, "TPUs and nothing that shows torch: JAX and TensorFlow drive a host's chips from one process", None
    )


def knows_image(image: str | None, knowledge: Knowledge) -> bool:
    """Whether the data knows the image by its name (any tier: a notebook image too), so no Dockerfile that merely
    sits beside the file that runs it is its build."""
    return bool(_by_image(knowledge.entries, image))


def _by_image(entries: tuple[Entry, ...], image: str | None) -> list[Entry]:
    """The entries whose image patterns match the image (its repository and tag split once, not per entry)."""
    if not image:
        return []
    repository, tag = split_image(image)
    return [
        entry
        for entry in entries
        if (entry.images and entry.images.search(repository))
        or (entry.image_tags and tag and entry.image_tags.search(tag))
    ]
