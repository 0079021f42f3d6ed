"""Kubernetes pod specs read into the pod judge's view (``shmlint.containers.pod``): YAML nodes with their spans,
the keys as a ``Mappings`` reads them (CloudFormation spells them ``Containers``, ``VolumeMounts``...), and what
only Kubernetes YAML adds to a container (annotations, a KServe runtime's /dev/shm, an operator that manages it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeAlias

from shmlint.containers import EnvVar
from shmlint.containers.pod import (
    SCRIPT_MARKER,
    PodContainer,
    PodVolume,
    Resource,
    VolumeMount,
    is_template_expression,
    judge_pod,
    quantity,
    shared_cap,
)
from shmlint.formats.kubernetes.target import PodTarget
from shmlint.lazy_regex import LazyRegex
from shmlint.model import APPLIED_KINDS, Evidence, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, scalar, scalars, sequence
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import TORCHRUN_MODULES, TORCHRUN_PROGRAMS, Signals
from shmlint.sizes import KUBERNETES
from shmlint.source import SourceText, Span

if TYPE_CHECKING:
    from shmlint.project.runtimes import RuntimeIndex

IGNORE_ANNOTATION = "shmlint.io/ignore"
DATALOADER_ANNOTATION = "shmlint.io/dataloader"
#: the container a Kubeflow training runtime's ML policy launches
TRAINER_NODE = "node"
_NO_CLASSES: Mapping[str, Mapping[str, str]] = MappingProxyType({})
#: pod annotations that ask a GPU-sharing scheduler for a share of one GPU (KAI Scheduler, Run:ai):
#: https://github.com/NVIDIA/KAI-Scheduler/blob/82d69adbd1a21afc3a4b0004cdb10555153ae4d9/docs/gpu-sharing/README.md
SHARED_GPU_ANNOTATIONS = ("gpu-fraction", "gpu-memory")
#: an emptyDir's own fields, written on a volume with no source of its own
_EMPTY_DIR_FIELDS = frozenset({"medium", "sizeLimit"})
_MISPLACED_EMPTY_DIR = "emptyDir (by default: its medium and sizeLimit belong under emptyDir:)"
#: a share of none (``0``, ``0.0``, nothing: the admission policies read it too), and the annotation that names the
#: container a share is for
NO_SHARE = r"^[ \t]*[0.]*[ \t]*$"
_NO_SHARE = LazyRegex(NO_SHARE)
SHARED_CONTAINER_ANNOTATION = "gpu-fraction-container-name"
#: what holds a pod's own ``containers`` (not its ``initContainers``): the ones an operator's environment reaches
CONTAINER = "container"


class PolicyLaunch(NamedTuple):
    """What a Kubeflow training runtime's ML policy starts in its ``node`` container: the policy, its
    ``numProcPerNode`` (torch's defaults to ``auto``, MPI's to 1; "" when it cannot be read) and how it is set."""

    evidence: Evidence
    per_node: str
    setting: str  # "numProcPerNode: 4", "numProcPerNode unset: auto"

    def on(self, gpus: int | None) -> str | None:
        """What it means in a node container with ``gpus`` counted GPUs: several processes, or None when it starts
        one (``1``, or one per device on one GPU), CPU processes (``cpu``), or one per device on GPUs the template
        does not count: a TrainJob's resourcesPerNode fills them in, and one GPU there is one process, the CPU
        gloo's (no /dev/shm: ``cpu_only_pytorch`` in shmlint/data/shm_need.yaml), so the runtime alone leaves the
        need undecided. A count that cannot be read stays several, as a runtime is written for."""
        value = self.per_node.strip().lower()
        if value == "cpu":
            return None
        if is_count(value, 4):
            if int(value) < 2:
                return None
            return f"{self.evidence.text}: {value} processes in each node ({self.setting})"
        if value in PER_DEVICE:
            if gpus is None or gpus < 2:
                return None
            return f"{self.evidence.text}: one process per device, {gpus} in each node ({self.setting})"
        return f"{self.evidence.text} ({self.setting}: not read as a count)"

    def devices(self) -> Evidence | None:
        """The accelerators a per-device policy is written for, when its template counts none: a TrainJob's
        resourcesPerNode gives them, so the container is accelerator work whose need stays undecided (listed among
        the undecided, never silent)."""
        if self.per_node.strip().lower() not in PER_DEVICE:
            return None
        return self.evidence._replace(text=f"{self.evidence.text}: one process per device a TrainJob gives")


def is_count(text: str, digits: int) -> bool:
    """A plain count of at most ``digits`` ASCII digits (``²`` is a digit to ``str.isdigit``, not to ``int``; a
    longer number is no process count, and costs a long conversion)."""
    return text.isascii() and text.isdigit() and len(text) <= digits


#: what mpi-operator's v1alpha1 workers run in place of the template's command (newWorker)
WORKER_SLEEP = "sleep 365d"


class LocalRanks(NamedTuple):
    """MPI ranks an operator starts in each worker pod of a job (an MPIJob's ``slotsPerWorker`` slots)."""

    slots: Evidence  # ``slotsPerWorker: 8``, where the job says it
    ranks: int  # the slots, at most the launcher's ``-np``
    launched: int | None  # the launcher's ``-np`` when its command says it

    def on(self, gpus: int | None) -> str | None:
        """What these ranks mean in a container with ``gpus`` counted GPUs: several NCCL ranks on one host, from
        two GPUs on (one rank per GPU); None when the container holds fewer (the ranks are not GPU ranks here)."""
        if gpus is None or gpus < 2:
            return None
        launcher = f"mpirun -np {self.launched} with " if self.launched else ""
        return f"{launcher}{self.slots.text} on {gpus} GPUs: {self.ranks} NCCL ranks in each worker pod"


#: an envsubst placeholder (``${VAR}``, ``$VAR``) in a template's value
PLACEHOLDER = LazyRegex(r"\$(?:\{\{[^{}]{0,200}\}\}|\{[^{}]{0,200}\}|[A-Za-z_])")

#: torchrun's own ``--nproc_per_node`` (``TORCHRUN_PROGRAMS``, ``TORCHRUN_MODULES``) wins over the operator's
NPROC_OPTIONS = ("--nproc_per_node", "--nproc-per-node")
#: nprocPerNode values that start one process per visible device (torchrun's ``determine_local_world_size``)
PER_DEVICE = frozenset({"auto", "gpu"})


#: a Kubeflow PyTorchJob's processes per pod: how the job says it (``nprocPerNode: 4``, or that the operator's
#: default applies) and the value (auto, gpu, cpu or a count). A plain pair: a class costs every run its making
ProcsPerNode: TypeAlias = tuple[str, str]


def procs_on(procs: ProcsPerNode, gpus: int | None, command: str) -> str | None:
    """What a PyTorchJob's processes per pod mean for a container of the pod (not an init container) with ``gpus``
    counted GPUs running ``command``: the operator hands ``spec.nprocPerNode`` (default ``auto``) to each of the
    pod's ``containers`` as PET_NPROC_PER_NODE, which torchrun reads when its command line sets no count
    (``pytorch_jobs`` in shmlint/data/shm_need.yaml). Several local GPU processes with NCCL between them, or None."""
    if not gpus or not _torchrun_without_count(command.split()):
        return None
    setting, value = procs[0], procs[1].strip().lower()
    count = gpus if value in PER_DEVICE else int(value) if is_count(value, 4) else 0
    if count < 2:
        return None
    return (
        f"{count} torchrun processes in each pod, NCCL between them ({setting}, handed to torchrun as "
        f"PET_NPROC_PER_NODE; its command sets no --nproc_per_node; {gpus} GPUs)"
    )


def _torchrun_without_count(words: list[str]) -> bool:
    """Whether the words run torchrun (or ``python -m torch.distributed.run``) and, after it, set no
    ``--nproc_per_node`` of their own."""
    for index, word in enumerate(words):
        name = word.strip("\"'").rpartition("/")[2]
        module = index > 0 and words[index - 1] == "-m" and name in TORCHRUN_MODULES
        if name in TORCHRUN_PROGRAMS or module:
            return not any(later.strip("\"'").startswith(NPROC_OPTIONS) for later in words[index + 1 :])
    return False


def listed_containers(m: Mappings, spec: Node | None) -> Iterator[tuple[MappingNode, str, str]]:
    """A pod spec's ``containers`` and ``initContainers``: each with what holds it and its name."""
    for key, holder in (("containers", CONTAINER), ("initContainers", "init container")):
        for container in sequence(m.get(spec, key)):
            if isinstance(container, MappingNode):
                yield container, holder, scalar(m.get(container, "name")) or "?"


class OperatorShm(NamedTuple):
    """The /dev/shm volume an operator mounts in one container of the pods it makes from the manifest (NVIDIA
    Dynamo's; None where the manifest turns it off), and the resources it gives that container from outside it."""

    container: MappingNode
    volume: PodVolume | None
    resources: tuple[Resource, ...] = ()


class FoundPod(NamedTuple):
    """A pod spec found in a manifest, with the names that make messages readable."""

    owner: WorkloadId  # kind, name and role; container fields empty
    spec: MappingNode  # the mapping that holds volumes, hostIPC and runtimeClassName
    containers: tuple[tuple[MappingNode, str, str], ...]  # (container, what holds it: 'container', its name)
    extra_volumes: tuple[Node, ...] = ()  # Argo: workflow-level volumes
    #: the container an operator mounts a memory /dev/shm in (KubeRay's first container of each group, the DGL
    #: operator's of each worker), and the operator, as messages name it
    shm_container: MappingNode | None = None
    shm_operator: str = ""
    metadata: tuple[Node, ...] = ()  # the pod template's metadata, then the workload's: where annotations live
    launched_by: PolicyLaunch | None = None  # a training runtime's ML policy that starts its ``node`` container
    ranks: LocalRanks | None = None  # an MPIJob worker: the ranks its launcher starts in each pod
    procs: ProcsPerNode | None = None  # a PyTorchJob's pod: the processes its containers' torchrun starts
    #: an MPIJob's Launcher that is no worker: the processes its mpirun (or a DeepSpeed hostfile) starts run in the
    #: worker pods, so the scripts it runs are not followed for its own need
    starts_ranks_elsewhere: bool = False
    #: a v1alpha1 MPIJob's one template: its command runs in the launcher pod, made without the template's
    #: resources, while the pods that hold its GPUs run ``WORKER_SLEEP`` in its first container (the ranks, when
    #: ``ranks`` says so, are started in them from the launcher)
    workers_sleep: bool = False
    #: StatefulSet and Argo ``volumeClaimTemplates``: the controller adds a PVC volume of each template's name to
    #: the pod, in place of a pod volume of that name (the StatefulSet controller's ``updateStorage``)
    claim_templates: tuple[Node, ...] = ()
    #: composed from a template and patches (a RoleBasedGroup's role): judged, and given no fix, since no one place
    #: sizes its /dev/shm for it alone (the template is shared, the patch is read over it)
    composed: bool = False
    #: an operator's own /dev/shm for one container: judged as the volume it mounts; no fix (the setting is the
    #: operator's, not a pod volume)
    operator: OperatorShm | None = None
    #: volume mounts an owner adds to its containers from elsewhere (a TrainJob's overrides of its trainer)
    extra_mounts: tuple[Node, ...] = ()
    #: the pod template's own metadata, whose annotations the pod gets (not the owner's: a scheduler reads the pod's)
    annotated: Node | None = None


class PodReader:
    """Reads the pods a manifest holds into the pod judge's view, and its verdicts into Workloads."""

    def __init__(
        self,
        source: SourceText,
        signals: Signals,
        runtimes: RuntimeIndex | None,
        m: Mappings | None = None,
        placeholders: bool = False,
        embedded: bool = False,
        device_classes: Mapping[str, Mapping[str, str]] = _NO_CLASSES,
    ) -> None:
        """``placeholders``: the manifest is a template that envsubst renders, so ``${VAR}`` is a value to come;
        ``embedded``: it is an example inside another file (a document's block, a here-document), whose images are
        as often third-party ones, so no Dockerfile beside that file is taken as its image's; ``device_classes``:
        what the file's resource claim templates and claims ask for (``shmlint.formats.kubernetes.device_claims``)."""
        self.source = source
        self.signals = signals
        self.runtimes = runtimes
        self.m = m or Mappings()
        self.placeholders = placeholders
        self.embedded = embedded
        self.device_classes = device_classes

    def for_template(self) -> PodReader:
        """The reader for a template's objects (an OpenShift ``Template``'s), whose ``${PARAMETER}`` are values to
        come."""
        if self.placeholders:
            return self
        return PodReader(
            self.source,
            self.signals,
            self.runtimes,
            self.m,
            placeholders=True,
            embedded=self.embedded,
            device_classes=self.device_classes,
        )

    # -- locations -------------------------------------------------------------------------------------------

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_mark.index, node.end_mark.index)

    def pair_span(self, key: Node, value: Node) -> Span:
        return self.source.span(key.start_mark.index, value.end_mark.index)

    def volume_span(self, volume: MappingNode, empty_dir: Node | None) -> Span:
        """Where a finding about a volume points, one line where it can: the emptyDir's ``medium: X`` (the key that
        makes it memory or disk), else the volume's kind (``emptyDir``, ``hostPath``); the volume when neither."""
        key, value = self.m.key(empty_dir, "medium"), self.m.get(empty_dir, "medium")
        if key is not None and value is not None:
            return self.pair_span(key, value)
        kind = self.m.key(volume, "emptyDir") or self.m.key(volume, "hostPath")
        return self.span(kind if kind is not None else volume)

    def name_span(self, container: MappingNode) -> Span:
        """Where a finding about the whole container points: its ``name: x`` (one line, as an editor underlines
        it), else its first key; the whole mapping only when it is empty (flow ``{}``)."""
        key, value = self.m.key(container, "name"), self.m.get(container, "name")
        if key is not None and value is not None:
            return self.pair_span(key, value)
        first = container.value[0] if container.value else None
        return self.pair_span(*first) if first is not None else self.span(container)

    # -- annotations -----------------------------------------------------------------------------------------

    def ignored_codes(self, pod: FoundPod) -> frozenset[str]:
        values = (scalar(self.m.path(metadata, "annotations", IGNORE_ANNOTATION)) for metadata in pod.metadata)
        return frozenset(code.strip() for value in values for code in (value or "").split(",") if code.strip())

    def dataloader_text(self, pod: FoundPod) -> Evidence | None:
        """The ``shmlint.io/dataloader`` annotation nearest to the containers."""
        for metadata in pod.metadata:
            node = self.m.path(metadata, "annotations", DATALOADER_ANNOTATION)
            text = scalar(node)
            if text and node is not None:
                return Evidence(text, self.span(node))
        return None

    def granted(self, pod: FoundPod, container: MappingNode, identity: WorkloadId) -> Iterator[Evidence]:
        """GPUs given to a container otherwise than by its resources (audit73a: a ``torchrun`` pod on such a GPU had
        no finding at all): a share of one GPU asked for by the pod's annotation (KAI Scheduler's and Run:ai's
        ``gpu-fraction`` or ``gpu-memory``), for the container ``gpu-fraction-container-name`` names or else the
        pod's first, and a resource claim of a GPU device class (``device_claims``)."""
        annotations = self.m.get(pod.annotated, "annotations")
        if annotations is not None:
            first = next((name for _, holder, name in pod.containers if holder == CONTAINER), "")
            named = scalar(self.m.get(annotations, SHARED_CONTAINER_ANNOTATION)) or first
            for key in SHARED_GPU_ANNOTATIONS if identity.container == named else ():
                node = self.m.get(annotations, key)
                text = scalar(node) or ""
                if node is not None and not _NO_SHARE.match(text):
                    yield Evidence(f"annotation {key}: {text.strip()}", self.span(node))
                    break
        if pod.spec is not container and self.m.get(pod.spec, "resourceClaims") is not None:
            from shmlint.formats.kubernetes.device_claims import claimed_gpu  # for a pod that claims devices only

            claimed = claimed_gpu(self.m, pod.spec, container, self.device_classes)
            if claimed is not None:
                yield Evidence(claimed[1], self.span(claimed[0]))

    # -- containers -> workloads ---------------------------------------------------------------------------

    def pod_workloads(self, pod: FoundPod, seen: Counter[WorkloadId]) -> Iterator[Workload]:
        volumes = self.volumes(pod)
        if pod.operator is not None and pod.operator.volume is not None:
            volumes[pod.operator.volume.name] = pod.operator.volume  # the operator's replaces one of its name
        identities = []
        for _, holder, name in pod.containers:
            identity = pod.owner._replace(container_kind=holder, container=name)
            identities.append(identity._replace(occurrence=seen[identity]))
            seen[identity] += 1
        views = tuple(
            self.container(pod, container, identity)
            for (container, _, _), identity in zip(pod.containers, identities, strict=True)
        )
        judged = judge_pod(
            views,
            volumes,
            (self.host_ipc(pod.spec), *self.runtime_class(pod.spec)),
            self.source.path,
            self.signals,
            next(filter(None, (scalar(self.m.get(metadata, "namespace")) for metadata in pod.metadata)), ""),
        )
        # what a volume a fix adds may hold: half the smallest limit of the containers that may mount it, the
        # accelerator and torch ones and those with a /dev/shm of their own (not a sidecar's: SHM005 caps by the
        # mounters, and would flag the fix's own size)
        cap = shared_cap(
            tuple(
                view
                for view, verdict in zip(views, judged, strict=True)
                if verdict.gpu or verdict.torch or view.shm_mount is not None
            )
        )
        for (container, _, _), identity, view, verdict in zip(pod.containers, identities, views, judged, strict=True):
            in_pod = pod.spec is not container
            completed = verdict._replace(shm=self.completed_shm(verdict.shm, container, identity))
            if pod.extra_mounts and view.shm_mount and view.shm_mount not in volumes:
                completed = completed._replace(shm=(*completed.shm, self.runtime_volume(pod, view.shm_mount)))
            if self.embedded and completed.launch is not None:
                completed = completed._replace(launch=completed.launch._replace(dockerfile_beside=False))
            if pod.starts_ranks_elsewhere and not completed.gpu:
                completed = completed._replace(launch=None)
            if pod.workers_sleep and container is pod.containers[0][0]:
                completed = completed._replace(command=WORKER_SLEEP, launch=None)
            devices = pod.launched_by.devices() if pod.launched_by and identity.container == TRAINER_NODE else None
            if devices is not None and not completed.gpu:
                completed = completed._replace(gpu=(devices,))
            yield completed.workload(
                identity,
                self.name_span(container),
                # a container that is its own pod spec (TrainJob's trainer) has nowhere to put a volume
                PodTarget(pod.spec.start_mark.index, container.start_mark.index, frozenset(volumes))
                if in_pod and not pod.composed and pod.operator is None
                else None,
                shm_managed_by=pod.shm_operator if container is pod.shm_container else None,
                ignored_codes=self.ignored_codes(pod),
                dataloader_text=self.dataloader_text(pod),
                launched_by=pod.launched_by.on(completed.accelerator_count)
                if pod.launched_by and identity.container == TRAINER_NODE
                else (pod.ranks.on(completed.accelerator_count) if pod.ranks else None)
                or (
                    procs_on(pod.procs, completed.accelerator_count, completed.command or "")
                    if pod.procs and identity.container_kind == CONTAINER
                    else None
                ),
                volume_cap=cap if in_pod else None,
                command_from=view.command_from,
            )

    def volumes(self, pod: FoundPod) -> dict[str, PodVolume]:
        """The pod's volumes by name: its own, the workflow's (Argo), and a claim template's persistent volume
        claim, which replaces a volume of the same name."""
        found: dict[str, PodVolume] = {}
        for volume in (*pod.extra_volumes, *sequence(self.m.get(pod.spec, "volumes"))):
            name = scalar(self.m.get(volume, "name"))
            if name is not None and isinstance(volume, MappingNode):
                found[name] = self.volume(name, volume)
        for claim in pod.claim_templates:
            metadata = self.m.get(claim, "metadata")
            key, value = self.m.key(metadata, "name"), self.m.get(metadata, "name")
            name = scalar(value)
            if name is not None and key is not None and value is not None:
                found[name] = PodVolume(name, self.pair_span(key, value), "persistentVolumeClaim")
        return found

    # -- the pod judge's view (shmlint.containers.pod) -------------------------------------------------------

    def host_ipc(self, spec: MappingNode) -> Evidence | None:
        key, value = self.m.key(spec, "hostIPC"), self.m.get(spec, "hostIPC")
        if key is not None and value is not None and (scalar(value) or "").lower() == "true":
            return Evidence("hostIPC: true", self.pair_span(key, value))
        return None

    def runtime_class(self, spec: MappingNode) -> tuple[Evidence | None, str]:
        key, value = self.m.key(spec, "runtimeClassName"), self.m.get(spec, "runtimeClassName")
        name = scalar(value)
        if key is None or value is None or not name:
            return None, ""
        return Evidence(f"runtimeClassName: {name}", self.pair_span(key, value)), name

    def container(self, pod: FoundPod, container: MappingNode, identity: WorkloadId) -> PodContainer:
        image_node = self.m.get(container, "image")
        argv = {key: scalars(self.m.get(container, key)) for key in ("command", "args")}
        mounts = (*sequence(self.m.get(container, "volumeMounts")), *pod.extra_mounts)
        shm = shm_mount(self.m, container) or _shm_entry(self.m, pod.extra_mounts)
        launched = pod.launched_by.evidence if pod.launched_by and identity.container == TRAINER_NODE else None
        torch = (
            tuple(self.kserve_format_evidence(container, identity.container))
            if identity.container_kind == "predictor"
            else ()
        )
        command = self.m.get(container, "command") or self.m.get(container, "args") or self.m.get(container, "source")
        view = PodContainer(
            holder=identity.container_kind,
            image=scalar(image_node),
            image_span=self.span(image_node) if image_node is not None else None,
            entrypoint=argv["command"],
            arguments=argv["args"],
            words=tuple(self.command_words(container)),
            command_span=self.span(command) if command is not None else None,
            env=tuple(self.env(container)),
            resources=tuple(self.resource_entries(container)),
            memory_limit=self.memory_limit(container),
            shm_mount=(scalar(self.m.get(shm, "name")) or "") if shm is not None else None,
            mounts=tuple(self.mount(mount) for mount in mounts),
            working_dir=scalar(self.m.get(container, "workingDir")) or "",
            torch=torch + ((launched,) if launched else ()),
            unknown_env=tuple(self.env_from_elsewhere(container)),
            granted=tuple(self.granted(pod, container, identity)),
        )
        if pod.operator is not None and container is pod.operator.container:
            view = operated_view(view, pod.operator)
        return self.completed_view(view, container) if identity.container_kind == "predictor" else view

    def completed_view(self, view: PodContainer, model: MappingNode) -> PodContainer:
        """A KServe predictor model runs its ServingRuntime's container where it names no image or command of its
        own (its ``args`` after the runtime's, as KServe merges them: kserve/kserve#3453, where both lists run): the
        runtime's software decides its need (a TGI runtime on the 8 GPUs the InferenceService asks for shards over
        them). Said at the model spec, since the runtime is written elsewhere."""
        if self.runtimes is None or (view.image and view.entrypoint):
            return view
        from shmlint.extract.kserve import runtime_named_at, runtime_of  # only a predictor loads KServe's code

        runtime = runtime_of(model, self.runtimes)
        if runtime is None:
            return view
        entrypoint = view.entrypoint or runtime.entrypoint
        arguments = view.arguments if view.entrypoint else (*runtime.arguments, *view.arguments)
        here = self.span(runtime_named_at(model))
        return view._replace(
            image=view.image or runtime.image,
            image_span=view.image_span if view.image else here,
            entrypoint=entrypoint,
            arguments=arguments,
            words=(*entrypoint, *arguments),
            command_span=view.command_span or (here if entrypoint or arguments else None),
            command_from=f'its {runtime.kind} "{runtime.name}"',
        )

    def mount(self, mount: Node) -> VolumeMount:
        name, path, sub_path = (scalar(self.m.get(mount, key)) or "" for key in ("name", "mountPath", "subPath"))
        return name, path, sub_path

    def volume(self, name: str, volume: MappingNode) -> PodVolume:
        empty_dir = self.m.get(volume, "emptyDir")
        span = self.volume_span(volume, empty_dir)
        if empty_dir is not None and "emptyDir" in self.m.items(volume):
            medium = scalar(self.m.get(empty_dir, "medium")) or ""
            return PodVolume(name, span, "emptyDir", True, medium, self.size(self.m.get(empty_dir, "sizeLimit")))
        path_node = self.m.path(volume, "hostPath", "path")
        host_path = scalar(path_node)
        if host_path is not None and path_node is not None:
            return PodVolume(name, span, "hostPath", host_path=host_path, host_path_span=self.span(path_node))
        config_map = scalar(self.m.path(volume, "configMap", "name"))
        if config_map:
            items = sequence(self.m.path(volume, "configMap", "items"))
            pairs = ((scalar(self.m.get(item, "key")), scalar(self.m.get(item, "path"))) for item in items)
            kept = tuple((key, path) for key, path in pairs if key and path)
            return PodVolume(name, span, "configMap", config_map=config_map, items=kept)
        kinds = [key for key in self.m.items(volume) if key != "name"]
        if kinds and all(key in _EMPTY_DIR_FIELDS for key in kinds):  # no source: the API server's default, a disk
            # emptyDir; its medium and sizeLimit written beside it, not under ``emptyDir:``, are dropped (audit75a)
            return PodVolume(name, span, _MISPLACED_EMPTY_DIR, True)
        return PodVolume(name, span, kinds[0] if kinds else "volume")

    def runtime_volume(self, pod: FoundPod, name: str) -> ShmSource:
        """A volume an owner's override mounts at /dev/shm and does not define: the training runtime's (a TrainJob's
        overrides merge into its runtime's pods), read as that runtime's, which is not known here."""
        mount = _shm_entry(self.m, pod.extra_mounts)
        span = self.span(mount) if mount is not None else self.span(pod.spec)
        return ShmSource(
            ShmKind.UNKNOWN, ShmMechanism.MERGED_SPEC, span, f'volume "{name}" (the training runtime\'s, not read here)'
        )

    def completed_shm(
        self, own: tuple[ShmSource, ...], container: MappingNode, identity: WorkloadId
    ) -> tuple[ShmSource, ...]:
        """A KServe predictor model that sets no /dev/shm gets its ServingRuntime's, as KServe merges them."""
        if identity.container_kind != "predictor" or any(s.kind in APPLIED_KINDS for s in own):
            return own
        from shmlint.extract.kserve import runtime_shm  # only an InferenceService's predictor loads KServe's code

        return own + runtime_shm(container, self.source, self.runtimes)

    def resources(self, container: MappingNode) -> Node | None:
        return self.m.get(container, "resources") or self.m.get(container, "resourcesPerNode")

    def resource_entries(self, container: MappingNode) -> Iterator[Resource]:
        resources = self.resources(container)
        for section in ("limits", "requests"):
            for name, (key, value) in self.m.items(self.m.get(resources, section)).items():
                yield section, name, scalar(value), self.pair_span(key, value)

    def env(self, container: MappingNode) -> Iterator[EnvVar]:
        """Each plain env entry, from its name to its value."""
        for entry in sequence(self.m.get(container, "env")):
            name_node, value = self.m.get(entry, "name"), self.m.get(entry, "value")
            name = scalar(name_node)
            if name is not None and name_node is not None and isinstance(value, ScalarNode):
                yield name, scalar(value) or "", self.pair_span(name_node, value)

    def env_from_elsewhere(self, container: MappingNode) -> Iterator[str]:
        """The env names whose value a Secret, a ConfigMap or a field gives (``valueFrom``): set, to a value the
        files do not hold."""
        for entry in sequence(self.m.get(container, "env")):
            name = scalar(self.m.get(entry, "name"))
            if name and not isinstance(self.m.get(entry, "value"), ScalarNode):
                yield name

    def command_words(self, container: MappingNode) -> list[str]:
        words: list[str] = []
        for key in ("command", "args"):
            node = self.m.get(container, key)
            words.extend(scalars(node))
            if isinstance(node, ScalarNode) and scalar(node):
                words.append(node.value)
        source = self.m.get(container, "source")  # Argo script templates
        if text := scalar(source):
            words.append(text)
        return words

    def kserve_format_evidence(self, model: MappingNode, key: str) -> Iterator[Evidence]:
        format_node = self.m.path(model, "modelFormat", "name")
        model_format = (scalar(format_node) or key).lower()
        if self.signals.is_torch_model_format(model_format):
            yield Evidence(f"KServe {model_format} predictor", self.span(format_node or model))

    def memory_limit(self, container: MappingNode) -> Size | None:
        node = self.m.path(self.resources(container), "limits", "memory")
        return self.size(node)

    def size(self, node: Node | None) -> Size | None:
        """A quantity as written; in a template, one with a placeholder is computed when it is rendered, and in
        any file one with a script's marker (``#MEMLGi``) is filled before it is applied: its bytes are unknown and
        it is no error (no rule judges its value, no fix writes into it)."""
        text = scalar(node)
        if text is None:
            return None
        if (
            (self.placeholders and PLACEHOLDER.search(text))
            or SCRIPT_MARKER.search(text)
            or is_template_expression(text)
        ):
            return Size(text, None, self.span(node), KUBERNETES)
        return quantity(text, self.span(node))


def shm_mount(m: Mappings, container: Node) -> MappingNode | None:
    """The container's ``volumeMounts`` entry at /dev/shm: the extractor and the fixer look it up here."""
    return _shm_entry(m, sequence(m.get(container, "volumeMounts")))


def _shm_entry(m: Mappings, mounts: Sequence[Node]) -> MappingNode | None:
    for mount in mounts:
        if isinstance(mount, MappingNode) and is_shm_path(scalar(m.get(mount, "mountPath")) or ""):
            return mount
    return None


def operated_view(view: PodContainer, operator: OperatorShm) -> PodContainer:
    """The container as its operator makes it: its /dev/shm the operator's volume (Dynamo drops a mount of its own
    at /dev/shm before adding its volume's), its resources the operator's laid over its own (each of the
    operator's replaces the container's of the same section and name)."""
    if operator.volume is not None:
        view = view._replace(shm_mount=operator.volume.name)
    given = {(section, name) for section, name, _, _ in operator.resources}
    kept = tuple(entry for entry in view.resources if (entry[0], entry[1]) not in given)
    return view._replace(resources=kept + operator.resources)
