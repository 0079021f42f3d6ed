"""The data that flows between stages: workloads, findings and fixes.

Parsers produce ``Workload`` values, rules turn them into ``Finding`` values, reporters and fixers consume those.
Everything here is immutable so stages cannot reach back and change what an earlier stage decided: the value
types are ``NamedTuple`` classes (``shmlint.named_tuple``; a changed copy is ``value._replace(field=...)``). A
``Span`` lives with the text it points into (``shmlint.source``), ``Severity`` on its own (``shmlint.severity``),
and what a file and a run produced, as reporters see it, in ``shmlint.results``.
"""

from __future__ import annotations

import os
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING

from shmlint.named_tuple import NamedTuple
from shmlint.severity import Severity
from shmlint.source import Span

if TYPE_CHECKING:
    from typing import Protocol, TypeAlias

    class KeptOption(Protocol):
        """A program's own option whose count its code keeps away from loaders, as the tier model reads it: the
        walk's ``project.pyoption_flow.Kept`` (made there, so that a run that never meets one does not build its
        class: 0.45 M instructions of one flagged file's check)."""

        @property
        def flag(self) -> str: ...
        @property
        def place(self) -> str: ...
        @property
        def program(self) -> str: ...


class WorkloadFormat(StrEnum):
    """The language a workload is declared in, which decides how a fix is spelled.

    Not the file's kind (``shmlint.discover.FileKind``, how a file is read): a YAML file holds Kubernetes or
    compose workloads, and a shell script, a Makefile or a Markdown file holds command lines.
    """

    KUBERNETES = "kubernetes"
    COMPOSE = "compose"
    COMMAND = "command"
    # Terraform resources and Python launcher calls
    TERRAFORM = "terraform"
    PYTHON = "python"
    # Ray cluster launcher YAML and Podman Quadlet units
    RAY = "ray"  # a Ray cluster launcher YAML's docker section
    QUADLET = "quadlet"  # a Podman Quadlet .container unit
    # job definitions of cloud services
    AWS = "aws"  # ECS task definitions and Batch job definitions: JSON, AWS CLI input, CloudFormation
    AZUREML = "azureml"  # Azure Machine Learning job YAML (command, sweep and pipeline jobs)
    # docker options held in another format, written as a list or string there
    DEVCONTAINER = "devcontainer"  # devcontainer.json ``runArgs``, ``hostRequirements``, ``containerEnv``
    CI_JOB = "ci-job"  # a CI job's own container: GitHub Actions container/services options, Jenkins docker agents
    GITLAB_RUNNER = "gitlab-runner"  # a GitLab runner's config.toml ``[runners.docker]``
    # configuration management
    ANSIBLE = "ansible"  # an Ansible task's docker_container/podman_container module arguments
    # decentralised clouds
    AKASH = "akash"  # an Akash Network SDL's services, each with its compute profile
    # an image's own start, as a Dockerfile writes it (``docker run IMAGE``): nothing in the file sizes /dev/shm
    DOCKERFILE = "dockerfile"


class Tier(IntEnum):
    """How much a workload's software needs /dev/shm (``shmlint.need`` decides); ordered, the strongest wins."""

    FREE = 0  # known not to use it: no finding
    UNKNOWN = 1  # software not known either way: a warning with an accelerator, nothing on the CPU
    NEEDS = 2  # known to pass data through it: an error


class Need(NamedTuple):
    """A workload's tier and the evidence that decided it (quoted in messages)."""

    tier: Tier
    because: str  # "vLLM OpenAI server and engine (image vllm/vllm-openai)"
    entry: str | None  # the data entry's id (``shmlint/data/shm_need.yaml``), None for a default


class WorkloadId(NamedTuple):
    """Who a workload is, as data: display names, baseline fingerprints, the fixer's bookkeeping and the mapping of
    rendered findings back to their files all read these fields; nothing parses a display name back.

    ``kind`` is the Kubernetes kind, ``service`` for compose, the command (``docker run``) for a command line.
    ``role`` names the pod inside its object (``Worker``, ``head``, ``template train``); ``container_kind`` says
    what holds the container (``container``, ``init container``, ``predictor``, ``trainer``, ``script``).
    ``occurrence`` tells apart workloads with the same other fields in one file (two ``docker run`` lines).

    How it is shown follows from what it names, whatever the format: what holds a container under its owner; else
    its kind and name (a compose service); else its kind and line (a command line names neither).
    """

    format: WorkloadFormat
    kind: str
    name: str = ""
    role: str = ""
    container_kind: str = ""
    container: str = ""
    occurrence: int = 0

    def display(self, line: int) -> str:
        """'Deployment/trainer, container "main"', 'service "web"', 'docker run (line 12)'."""
        if not self.container_kind:
            return f'{self.kind} "{self.name}"' if self.name else f"{self.kind} (line {line})"
        owner = " ".join(filter(None, (f"{self.kind}/{self.name}", self.role)))
        holder = f'{self.container_kind} "{self.container}"' if self.container else self.container_kind
        return f"{owner}, {holder}"


class Size(NamedTuple):
    """A size as written in a file, with its meaning when the runtime would accept it."""

    text: str
    bytes: int | None
    span: Span
    dialect: str  # "kubernetes", "docker" or "tmpfs" (``shmlint.sizes``): how the text is read and a new size spelled
    error: str | None = None
    suggestion: str | None = None  # a valid spelling with the same meaning, only when that meaning is certain
    runtime_default: bool = False  # the text is a 0 the runtime reads as its default size (``bytes``: that size)


class ShmKind(StrEnum):
    """How a declaration provides (or fails to provide) the container's /dev/shm."""

    MEMORY = "memory"  # tmpfs: Memory emptyDir, shm_size, --shm-size, --tmpfs; size may be unbounded
    DISK = "disk"  # a disk-backed volume mounted at /dev/shm
    HOST_IPC = "host-ipc"  # the host's IPC namespace and so the host's /dev/shm
    HOST_PATH = "host-path"  # the host's /dev/shm bind-mounted in
    SHARED = "shared"  # another container's IPC namespace that shmlint cannot see
    NONE = "none"  # no /dev/shm at all (--ipc=none)
    BUILD_ONLY = "build-only"  # sizes the build container only (compose build.shm_size)
    UNMOUNTED = "unmounted"  # a memory volume meant for /dev/shm that this container does not mount
    UNKNOWN = "unknown"  # an expansion shmlint cannot resolve might carry a shm setting


#: kinds that actually reach the running container's /dev/shm
APPLIED_KINDS = frozenset(
    {ShmKind.MEMORY, ShmKind.DISK, ShmKind.HOST_IPC, ShmKind.HOST_PATH, ShmKind.SHARED, ShmKind.NONE, ShmKind.UNKNOWN}
)


class ShmMechanism(StrEnum):
    """How a declaration reaches /dev/shm, independent of the file format that spells it.

    The validation harness reproduces a declaration by its mechanism, and the rules tell a size of the IPC
    namespace's own /dev/shm (which host IPC overrides) from a mount over it (which wins over both).
    """

    NAMESPACE_SIZE = "namespace-size"  # --shm-size, compose shm_size: the IPC namespace's own /dev/shm
    TMPFS_OPTION = "tmpfs-option"  # --tmpfs /dev/shm[:size=...], compose short ``tmpfs:`` entries
    TMPFS_MOUNT = "tmpfs-mount"  # --mount type=tmpfs, a tmpfs volume, a Kubernetes emptyDir with medium Memory
    VOLUME = "volume"  # a disk-backed volume or emptyDir mounted at /dev/shm
    BIND = "bind"  # a host folder mounted at /dev/shm (hostPath, -v /dev/shm:/dev/shm)
    IPC_MODE = "ipc-mode"  # hostIPC, --ipc, compose ipc: another namespace's /dev/shm, or none
    BUILD_OPTION = "build-option"  # compose build.shm_size: the build container only
    EXPANSION = "expansion"  # a variable or expansion shmlint cannot resolve
    MERGED_SPEC = "merged-spec"  # a spec completed elsewhere (a KServe ServingRuntime) that is not among the files
    PLATFORM = "platform"  # the platform decides and documents no size (AWS Fargate)


class ShmSource(NamedTuple):
    """One declaration that concerns a container's /dev/shm, where it is written and what it says."""

    kind: ShmKind
    mechanism: ShmMechanism
    span: Span
    description: str  # for messages only: 'emptyDir volume "dshm"', '--shm-size', 'shm_size'
    size: Size | None = None
    name: str | None = None  # the volume name for Kubernetes volumes
    host_path: str | None = None  # HOST_PATH: the host folder mounted at /dev/shm when it is known
    cap_bytes: int | None = None  # a pod's volume: half the smallest memory limit of its mounters, the most it can use
    in_pod: bool = False  # a pod's setting (hostIPC), whatever file writes the pod: Kubernetes' policies apply

    @property
    def namespace_size(self) -> bool:
        """Sizes the IPC namespace's /dev/shm (--shm-size, shm_size), not a mount over it."""
        return self.mechanism is ShmMechanism.NAMESPACE_SIZE


class Evidence(NamedTuple):
    """Why shmlint believes something, quoted in messages: ``requests nvidia.com/gpu: 2``."""

    text: str
    span: Span


#: how a fact found in a program the container's code starts says where it is started (``shmlint.project``
#: writes it, the messages keep it)
STARTED_AT = ", started at "


class CodeFact(NamedTuple):
    """One thing read in the repository's files, where it is written: ``train.py:42``, ``DataLoader(...)``."""

    where: str  # path relative to the project root, and line
    text: str

    def __str__(self) -> str:
        return f"{self.where} {self.text}"


class MountedConfig(NamedTuple):
    """A ConfigMap a container mounts, as its manifest writes the mount: the files it finds under ``path`` are the
    ConfigMap's keys (``items`` names some of them otherwise: key, path below the mount); ``key``: a ``subPath``
    mount, one key's file at ``path`` itself; ``namespace``: the pod's, when its manifest writes one."""

    path: str
    config_map: str
    items: tuple[tuple[str, str], ...] = ()
    key: str = ""
    namespace: str = ""


#: the Dockerfile a build reads from its context when it names none: ``Dockerfile``, else ``dockerfile`` (the docker
#: CLI's and BuildKit's lower-case fallback, moby/moby#10858)
CONTEXT_DOCKERFILES = ("Dockerfile", "dockerfile")


def dockerfile_names(named: str | None) -> tuple[str, ...]:
    """The names a build's Dockerfile is looked up by in its context: the one it names, else ``CONTEXT_DOCKERFILES``."""
    return (named,) if named else CONTEXT_DOCKERFILES


class Launch(NamedTuple):
    """What a container starts, as its manifest writes it, so ``shmlint.project`` can follow it to the repository's
    files. Paths are as written; ``base_dir`` is the folder relative ones start from (the manifest's)."""

    base_dir: str
    entrypoint: tuple[str, ...] = ()  # Kubernetes ``command``, compose ``entrypoint``: replaces the image's
    arguments: tuple[str, ...] = ()  # Kubernetes ``args``, compose ``command``: replaces the image's CMD
    working_dir: str = ""
    env: tuple[tuple[str, str], ...] = ()  # plain name=value pairs of the workload
    build_context: str = ""  # the folder an image is built from (compose ``build:``), relative to ``base_dir``
    dockerfile: str = ""  # the Dockerfile of that build, relative to the context ("" : ``Dockerfile``)
    dockerfile_inline: str = ""  # compose ``dockerfile_inline``
    dockerfile_beside: bool = False  # no build named: a Dockerfile in ``base_dir`` is taken to build the image
    mounts: tuple[tuple[str, str], ...] = ()  # bind mounts: (container path, host path: absolute or from base_dir)
    #: names set from a source not read (a Secret or ConfigMap, the host's value): set, to a value not known, so a
    #: ``${NAME:-default}`` is not its default
    unknown_env: tuple[str, ...] = ()
    manifest: str = ""  # the file that writes the container (where the ConfigMaps it mounts are looked for first)
    configs: tuple[MountedConfig, ...] = ()  # the ConfigMaps it mounts
    #: its command is only the calling script's own arguments (``img "$@"``), and the script, run as it is written,
    #: passes none: the image's CMD runs (``shmlint.formats.commandline``)
    forwarded: bool = False
    #: a run line of a script or a document: its relative paths start where whoever runs it stands, which may be a
    #: folder above the file (a compose file's or a manifest's start at the file's own folder)
    caller_relative: bool = False
    #: the same file runs commands in it by its name (``docker exec NAME ...``): those, not what it holds, are its
    #: work (``shmlint.formats.commandline``)
    exec_into: bool = False
    #: the name it is run with (``docker run --name dev``): what another file execs into that name runs in it
    #: (``project.exec_marks``)
    name: str = ""
    #: a terminal is attached (``docker run -t``, compose ``tty: true``): with no command, an image whose default is
    #: its shell is where a person types (``need.image_runs_it``)
    terminal: bool = False

    @property
    def context(self) -> str:
        """The folder its image is built from: the build's context, else the manifest's own folder."""
        return os.path.join(self.base_dir, self.build_context) if self.build_context else self.base_dir

    @property
    def dockerfile_paths(self) -> tuple[str, ...]:
        """Where the Dockerfile of that build (or the one beside the manifest) may be, in the order a build looks
        (``CONTEXT_DOCKERFILES`` when it names none), as paths that may not exist."""
        return tuple(os.path.join(self.context, name) for name in dockerfile_names(self.dockerfile))


class ProjectFacts(NamedTuple):
    """What the files a container runs show (``shmlint.project``), for ``shmlint.need`` to decide with."""

    commands: tuple[CodeFact, ...] = ()  # command lines it runs, read in scripts or the Dockerfile it is built from
    images: tuple[CodeFact, ...] = ()  # the base images of the Dockerfile it is built from
    needs: tuple[CodeFact, ...] = ()  # code that passes data through /dev/shm (DataLoader workers, NCCL between GPUs)
    free: tuple[CodeFact, ...] = ()  # loaders made without workers, filled only when that is all the code can do
    followed: tuple[str, ...] = ()  # the files read, for messages and tests
    started: CodeFact | None = None  # the command the built image starts, when the manifest sets none
    build: str = ""  # where the build of its image is written (``Makefile:12``), when found by the image's name
    notes: tuple[str, ...] = ()  # what was not followed and why (an image built two different ways)
    by_name: tuple[CodeFact, ...] = ()  # programs its code starts by name, evidence only where the data knows the
    # program by its own name (``need``)
    #: the Dockerfile read is only the one beside the file (no build names the image): it may add evidence, never
    #: take any away (``project.decide``), and messages say it was taken so
    guessed: bool = False
    #: the repository's folders the container holds (bind mounts, what its image copies): (container path, folder)
    held: tuple[tuple[str, str], ...] = ()
    #: options its command lines give a count that the program declares and keeps to code that makes no loader
    #: (``project.pyoption_flow``): not evidence by their names
    kept: tuple[KeptOption, ...] = ()
    #: where its command runs (the manifest's working directory, else its image's ``WORKDIR``; "" when neither says)
    working_dir: str = ""


class DataLoaderHint(NamedTuple):
    """A workload's declared DataLoader profile, used to size /dev/shm from an estimate."""

    workers: int
    batch_size: int
    sample_bytes: int
    prefetch_factor: int = 2
    procs: int = 1
    span: Span | None = None


if TYPE_CHECKING:
    #: what a format's fixer needs to write a fix, as plain data that crosses process boundaries: a NamedTuple of
    #: the format's own (``shmlint/formats/<name>/target.py``; the command line's ``CommandTarget``, shared by the
    #: formats that start a container from options, in ``shmlint/extract/commandline.py``), only the writer of the
    #: format that made it reads it; None where no
    #: fix can be written (a TrainJob's trainer...)
    FixTarget: TypeAlias = tuple[object, ...] | None


class BlockTarget(NamedTuple):
    """Any format's target inside a documentation code block or a script's here-document (``start``..``end`` of
    the file): the format's fixer writes in the block read as its own file, and the block must still parse
    afterwards (``shmlint.edits``). ``escapes``: where the file has a backslash that escapes a ``$`` in a
    here-document the shell expands, which the block was read with as ``$$`` (no edit may touch one)."""

    start: int
    end: int
    inner: FixTarget
    escapes: tuple[int, ...] = ()


class Workload(NamedTuple):
    """One container as it will run: a Kubernetes container, a compose service or a ``docker run`` line."""

    id: WorkloadId
    span: Span  # where SHM001/SHM002 point: the container's ``name:``, the service key, the command's first word
    gpu: tuple[Evidence, ...] = ()
    torch: tuple[Evidence, ...] = ()
    shm: tuple[ShmSource, ...] = ()
    memory_limit: Size | None = None
    nccl_shm_disabled: Evidence | None = None
    shm_managed_by: str | None = None  # an operator that provides /dev/shm itself (KubeRay)
    dataloader: DataLoaderHint | None = None
    dataloader_text: Evidence | None = None  # a ``shmlint.io/dataloader`` annotation or label, read by the engine
    ignored_codes: frozenset[str] = frozenset()  # from annotations/labels on the workload
    target: FixTarget = None
    image: str | None = None  # the image reference as written, when it is known
    command: str = ""  # entrypoint/command and arguments joined by spaces, as the software is started
    accelerator_count: int | None = None  # devices requested when counted (None: none, or uncounted like ``all``)
    need: Need | None = None  # how much the software needs /dev/shm (``shmlint.need``), set before the rules run
    launched_by: str | None = None  # an operator's policy that starts a launcher known to need /dev/shm (Trainer)
    processes: int | None = None  # training processes the platform starts in the container, where the file says
    launch: Launch | None = None  # what it starts, for following into the repository (Kubernetes, compose)
    project: ProjectFacts | None = None  # what the repository's files it runs show, set before the rules run
    #: the most a new memory volume its fix adds may use when the pod's containers share it: half the smallest
    #: memory limit among them (``shmlint.sizing``); None where the fix adds no shared volume
    volume_cap: int | None = None
    command_from: str = ""  # where ``command`` was read when not on its own lines: "typed in the container, a.md:5"
    #: the same container running a guide's later steps (``parsers.typed.LATER``): taken for it only where they show
    #: a need its own command does not (``project.decide``); None once decided
    later_steps: Workload | None = None
    command_later: bool = False  # ``command`` is a guide's later steps: findings are at most warnings
    #: False where the image's own entrypoint never runs (a Metaflow step starts its own code in it): only an image
    #: the configuration names is evidence there
    image_runs: bool = True
    #: a run command written as inline code in a sentence of a document, which may only mention it (``Don't do
    #: `docker run ...```, a changelog's entry): its findings are at most info (review of audit80b)
    mentioned: bool = False
    #: a container nobody is known to start (an image's own start that nothing in the repository runs): a finding
    #: only where its software is known to use /dev/shm; undecided, it is not reported at all
    decided_only: bool = False

    @property
    def format(self) -> WorkloadFormat:
        return self.id.format

    @property
    def name(self) -> str:
        """For people: derived from ``id`` (and the line, for command lines); never parsed back."""
        return self.id.display(self.span.line)

    @property
    def is_gpu_or_torch(self) -> bool:
        return bool(self.gpu or self.torch)

    @property
    def signal(self) -> Evidence | None:
        """The first piece of evidence that makes this a GPU/torch workload."""
        return (self.gpu or self.torch or (None,))[0]


class FixAction(StrEnum):
    """What a fix does, independent of the file format that will spell it."""

    ADD_SHM = "add-shm"  # give the workload a sized /dev/shm
    MOUNT_VOLUME = "mount-volume"  # mount an existing memory volume at /dev/shm
    SET_SIZE = "set-size"  # write a size on an existing declaration (add it or replace it)
    REWRITE_SIZE = "rewrite-size"  # respell an invalid size that has one certain meaning
    PRIVATE_IPC = "private-ipc"  # replace ipc none by a private IPC namespace, sized when nothing sizes it yet


class Applicability(StrEnum):
    SAFE = "safe"
    UNSAFE = "unsafe"


class Fix(NamedTuple):
    """A format-free description of a fix; ``shmlint.fix`` turns it into text edits for the file."""

    action: FixAction
    title: str
    applicability: Applicability = Applicability.SAFE
    size_bytes: int | None = None
    source: ShmSource | None = None  # the declaration to change (SET_SIZE, REWRITE_SIZE, MOUNT_VOLUME)
    replacement: str | None = None  # REWRITE_SIZE: the new spelling


class Finding(NamedTuple):
    """One rule's verdict, where to point, and the fix when one can be written (no workload: a file's own problem)."""

    code: str
    slug: str
    severity: Severity
    message: str
    span: Span
    workload: Workload | None = None  # not compared: a finding is its code, place and words
    fix: Fix | None = None  # not compared
    undecided: bool = False  # not compared: it rests on software whose /dev/shm need is not known (``undecided``)
    # not compared: the long explanation (why it matters, what else to do), shown by ``--show-source``, SARIF,
    # JSON and the editor's hover; ``message`` stays one short line that names the workload, evidence and fix
    detail: str = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self[:5] == other[:5]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:5])

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.path, self.span.line, self.span.column, self.code, self.message)


class Edit(NamedTuple):
    """Replace ``text[start:end]`` with ``new_text``; offsets are characters of the decoded file."""

    start: int
    end: int
    new_text: str


class Suppression(NamedTuple):
    """A ``shmlint: ignore[...]`` comment and the lines it covers."""

    line: int  # where the comment is
    column: int
    codes: frozenset[str]
    first: int  # first and last line it covers
    last: int
    unknown: tuple[str, ...] = ()  # what it names that is no rule's code or slug (a typo: it hides nothing)

    def covers(self, finding: Finding) -> bool:
        return finding.code in self.codes and self.first <= finding.span.line <= self.last


class Notice(NamedTuple):
    """Something worth saying that is not a finding and never changes the exit status."""

    path: str
    message: str
