"""Kubernetes manifests -> one Workload per container.

Pod specs are found by shape, not by kind: any mapping with a ``containers`` list of mappings is a pod spec, which
covers core kinds and CRDs alike (PyTorchJob, JobSet, RayCluster, LeaderWorkerSet, KServe predictors ...). A few
kinds put a single container elsewhere (Argo templates, Kubeflow Trainer's ``trainer``, KServe model specs) and get
a small adapter each. Volumes are per pod, mounts per container, so /dev/shm is judged per container.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from shmlint import sizes
from shmlint.model import (
    APPLIED_KINDS,
    Evidence,
    Launch,
    PodTarget,
    ShmKind,
    ShmMechanism,
    ShmSource,
    Size,
    Workload,
    WorkloadFormat,
    WorkloadId,
)
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar, sequence
from shmlint.runtime import nccl
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals, device_count, gpu_visible, positive_count
from shmlint.source import SourceText, Span

if TYPE_CHECKING:
    from shmlint.extract.kserve import RuntimeIndex

IGNORE_ANNOTATION = "shmlint.io/ignore"
DATALOADER_ANNOTATION = "shmlint.io/dataloader"
RAY_GROUP = "ray.io"
#: kinds outside ray.io whose pods KubeRay creates (``operators`` in shmlint/data/shm_need.yaml): aibrix's
#: RayClusterFleet holds a RayCluster spec that KubeRay turns into pods, with its /dev/shm
KUBERAY_MANAGED = frozenset({("orchestration.aibrix.ai", "RayClusterFleet")})
ARGO_GROUP = "argoproj.io"
#: Kubeflow Trainer: a (Cluster)TrainingRuntime's ML policy decides how its ``node`` container is launched
TRAINER_GROUP = "trainer.kubeflow.org"
TRAINING_RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
TRAINER_NODE = "node"
#: ML policies whose launch passes data through /dev/shm (``training_runtimes`` in shmlint/data/shm_need.yaml)
LAUNCHING_POLICIES = {
    "torch": "Kubeflow Trainer's mlPolicy.torch (torchrun, one process per device)",
    "mpi": "Kubeflow Trainer's mlPolicy.mpi (MPI ranks, one per device)",
}
KSERVE_MODEL_KEYS = ("pytorch", "huggingface", "triton", "model", "tensorflow", "onnx", "sklearn", "xgboost")
#: key-path parts that say nothing about a pod's role, and readable names for the ones that do
_ROLE_NOISE = frozenset(
    {
        "spec",
        "template",
        "jobTemplate",
        "replicatedJobs",
        "leaderWorkerTemplate",
        "podTemplateOverrides",
        "tasks",
        "templates",
        "predictor",
        "rayClusterSpec",
        "rayClusterConfig",
        "workflowSpec",
    }
)
_NOISE_SUFFIXES = ("ReplicaSpecs", "Specs")
_ROLE_RENAMES = {
    "headGroupSpec": "head",
    "workerGroupSpecs": "worker group",
    "leaderTemplate": "leader",
    "workerTemplate": "worker",
}


class _Pod(NamedTuple):
    """A pod spec found in a manifest, with the names that make messages readable."""

    owner: WorkloadId  # kind, name and role; container fields empty
    spec: MappingNode  # the mapping that holds volumes, hostIPC and runtimeClassName
    containers: tuple[tuple[MappingNode, str, str], ...]  # (container, what holds it: 'container', its name)
    extra_volumes: tuple[Node, ...] = ()  # Argo: workflow-level volumes
    ray_container: MappingNode | None = None
    metadata: tuple[Node, ...] = ()  # the pod template's metadata, then the workload's: where annotations live
    launched_by: Evidence | None = None  # a training runtime's ML policy that starts its ``node`` container


class _Extractor:
    def __init__(
        self, source: SourceText, signals: Signals, runtimes: RuntimeIndex | None, m: Mappings | None = None
    ) -> None:
        self.source = source
        self.signals = signals
        self.runtimes = runtimes
        self.m = m or Mappings()
        self.trained: frozenset[str] = frozenset()  # training runtimes a TrainJob of this file names

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

    # -- objects and pod specs -------------------------------------------------------------------------------

    def objects(self, documents: list[Node]) -> Iterator[MappingNode]:
        for document in documents:
            if not isinstance(document, MappingNode):
                continue
            if scalar(self.m.get(document, "kind")) == "List":
                yield from (item for item in sequence(self.m.get(document, "items")) if isinstance(item, MappingNode))
            else:
                yield document

    def pods(self, obj: MappingNode) -> Iterator[_Pod]:
        kind = scalar(self.m.get(obj, "kind")) or "object"
        metadata = self.m.get(obj, "metadata")
        name = scalar(self.m.get(metadata, "name")) or scalar(self.m.get(metadata, "generateName")) or "?"
        group = (scalar(self.m.get(obj, "apiVersion")) or "").split("/", 1)[0]
        owner = WorkloadId(WorkloadFormat.KUBERNETES, kind, name)
        own = (metadata,) if metadata is not None else ()
        if group == ARGO_GROUP:
            yield from self.argo_pods(obj, owner, own)
            return
        yield from self.trainer_pods(obj, owner, own)
        yield from self.kserve_pods(obj, owner, own)
        policy = self.launch_policy(obj, kind, group, name)
        for spec, path, template in self.pod_specs(obj):
            containers = tuple(self.containers(spec))
            kuberay = group == RAY_GROUP or (group, kind) in KUBERAY_MANAGED
            ray = containers[0][0] if kuberay and containers and "submitter" not in path.lower() else None
            template_metadata = self.m.get(template, "metadata")
            both = ((template_metadata,) if template_metadata is not None else ()) + own
            role = self.role(path)
            launched = policy if role == TRAINER_NODE else None
            yield _Pod(
                owner._replace(role=role), spec, containers, ray_container=ray, metadata=both, launched_by=launched
            )

    def launch_policy(self, obj: MappingNode, kind: str, group: str, name: str) -> Evidence | None:
        """What a Kubeflow training runtime's ML policy launches in its ``node`` container, when that is known to
        pass data through /dev/shm. A runtime that a TrainJob of the same file names is judged by its own evidence
        instead: the TrainJob says what runs there (a toy script on the CPU, or GPU work it reports itself)."""
        if group != TRAINER_GROUP or kind not in TRAINING_RUNTIME_KINDS or name in self.trained:
            return None
        policy = self.m.path(obj, "spec", "mlPolicy")
        for key, why in LAUNCHING_POLICIES.items():
            if (found := self.m.key(policy, key)) is not None:
                return Evidence(why, self.span(found))
        return None

    def trainjob_runtimes(self, objects: list[MappingNode]) -> frozenset[str]:
        return frozenset(
            runtime
            for obj in objects
            if scalar(self.m.get(obj, "kind")) == "TrainJob"
            and (runtime := scalar(self.m.path(obj, "spec", "runtimeRef", "name")))
        )

    def pod_specs(self, obj: MappingNode) -> Iterator[tuple[MappingNode, str, Node | None]]:
        """Mappings with a ``containers`` list of mappings, with the key path that led there and the mapping that
        holds them (the pod template, whose metadata carries the pod's annotations)."""
        stack: list[tuple[Node, str, Node | None]] = [(obj, "", None)]
        seen: set[int] = set()
        while stack:
            node, path, parent = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, MappingNode):
                items = self.m.items(node)
                if any(isinstance(c, MappingNode) for c in sequence(items.get("containers", (None, None))[1])):
                    yield node, path, parent
                    continue
                for key, (_, value) in reversed(items.items()):
                    if key not in ("metadata", "status"):
                        stack.append((value, f"{path}.{key}", node))
            elif isinstance(node, SequenceNode):
                for index, item in reversed(list(enumerate(node.value))):
                    label = scalar(self.m.get(item, "name")) or scalar(self.m.get(item, "groupName"))
                    stack.append((item, f"{path}[{label if label else index}]", parent))

    def role(self, path: str) -> str:
        """A readable role from the key path: 'Master' for pytorchReplicaSpecs.Master, a group or job name."""
        parts = [part for part in path.replace("[", ".").replace("]", "").split(".") if part]
        words = [_ROLE_RENAMES.get(p, p) for p in parts if p not in _ROLE_NOISE and not p.endswith(_NOISE_SUFFIXES)]
        return " ".join(filter(None, words))

    def containers(self, spec: MappingNode) -> Iterator[tuple[MappingNode, str, str]]:
        for key, holder in (("containers", "container"), ("initContainers", "init container")):
            for container in sequence(self.m.get(spec, key)):
                if isinstance(container, MappingNode):
                    yield container, holder, scalar(self.m.get(container, "name")) or "?"

    def argo_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[_Pod]:
        """Argo templates hold one ``container`` (or ``script``) and volumes at two levels."""
        spec = self.m.get(obj, "spec")
        if scalar(self.m.get(obj, "kind")) == "CronWorkflow":
            spec = self.m.get(spec, "workflowSpec")
        workflow_volumes = tuple(sequence(self.m.get(spec, "volumes")))
        for template in sequence(self.m.get(spec, "templates")):
            if not isinstance(template, MappingNode):
                continue
            containers = [
                (node, key, scalar(self.m.get(node, "name")) or "main")
                for key in ("container", "script")
                if isinstance(node := self.m.get(template, key), MappingNode)
            ]
            containers += list(self.containers(self.m.get(template, "containerSet") or template))
            if containers:
                label = scalar(self.m.get(template, "name")) or "?"
                role = owner._replace(role=f"template {label}")
                yield _Pod(role, template, tuple(containers), workflow_volumes, None, metadata)

    def trainer_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[_Pod]:
        """Kubeflow TrainJob: ``spec.trainer`` is the container; overrides may add volumes and mounts."""
        if scalar(self.m.get(obj, "kind")) != "TrainJob":
            return
        trainer = self.m.path(obj, "spec", "trainer")
        if isinstance(trainer, MappingNode):
            yield _Pod(owner, trainer, ((trainer, "trainer", ""),), (), None, metadata)

    def kserve_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[_Pod]:
        """KServe predictors may hold a model spec (``pytorch:``, ``model:``) that is a container in disguise."""
        predictor = self.m.path(obj, "spec", "predictor")
        if not isinstance(predictor, MappingNode):
            return
        for key in KSERVE_MODEL_KEYS:
            model = self.m.get(predictor, key)
            if isinstance(model, MappingNode):
                yield _Pod(owner, predictor, ((model, "predictor", key),), (), None, metadata)

    # -- annotations -----------------------------------------------------------------------------------------

    def ignored_codes(self, pod: _Pod) -> frozenset[str]:
        values = (scalar(self.m.path(metadata, "annotations", IGNORE_ANNOTATION)) for metadata in pod.metadata)
        return frozenset(code.strip() for value in values for code in (value or "").split(",") if code.strip())

    def dataloader_text(self, pod: _Pod) -> Evidence | None:
        """The ``shmlint.io/dataloader`` annotation nearest to the containers."""
        for metadata in pod.metadata:
            node = self.m.path(metadata, "annotations", DATALOADER_ANNOTATION)
            text = scalar(node)
            if text and node is not None:
                return Evidence(text, self.span(node))
        return None

    # -- containers -> workloads -----------------------------------------------------------------------------

    def workloads(self, documents: list[Node]) -> list[Workload]:
        result: list[Workload] = []
        seen: Counter[WorkloadId] = Counter()
        objects = list(self.objects(documents))
        self.trained = self.trainjob_runtimes(objects)
        for obj in objects:
            for pod in self.pods(obj):
                result.extend(self.pod_workloads(pod, seen))
        return result

    def pod_workloads(self, pod: _Pod, seen: Counter[WorkloadId]) -> Iterator[Workload]:
        volumes = self.volumes(pod)
        meant = self.shm_volume(pod, volumes)  # once per pod: it looks at every container
        cap = self.shared_cap(pod)
        for container, holder, name in pod.containers:
            identity = pod.owner._replace(container_kind=holder, container=name)
            identity = identity._replace(occurrence=seen[identity])
            seen[identity._replace(occurrence=0)] += 1
            yield self.workload(pod, container, identity, volumes, meant, cap)

    def volumes(self, pod: _Pod) -> dict[str, MappingNode]:
        found: dict[str, MappingNode] = {}
        for volume in (*pod.extra_volumes, *sequence(self.m.get(pod.spec, "volumes"))):
            name = scalar(self.m.get(volume, "name"))
            if name is not None and isinstance(volume, MappingNode):
                found[name] = volume
        return found

    def workload(
        self,
        pod: _Pod,
        container: MappingNode,
        identity: WorkloadId,
        volumes: dict[str, MappingNode],
        meant: tuple[str, MappingNode] | None,
        cap: int | None,
    ) -> Workload:
        gpu = tuple(self.gpu_evidence(pod, container, identity.container_kind == "init container"))
        gpu += tuple(self.device_mounts(container, volumes))
        launched = pod.launched_by if identity.container == TRAINER_NODE else None
        torch = tuple(self.torch_evidence(container, identity)) + ((launched,) if launched else ())
        words = self.command_words(container)
        if self.signals.is_utility_command(words):
            gpu, torch = (), ()
        return Workload(
            id=identity,
            span=self.name_span(container),
            gpu=gpu,
            torch=torch,
            shm=self.completed_shm(tuple(self.shm_sources(pod, container, volumes, meant, cap)), container, identity),
            memory_limit=self.memory_limit(container),
            nccl_shm_disabled=self.nccl_disabled(container),
            shm_managed_by="the KubeRay operator" if container is pod.ray_container else None,
            ignored_codes=self.ignored_codes(pod),
            dataloader_text=self.dataloader_text(pod),
            # a container that is its own pod spec (TrainJob's trainer) has nowhere to put a volume
            target=(
                PodTarget(pod.spec.start_mark.index, container.start_mark.index, frozenset(volumes), cap)
                if pod.spec is not container
                else None
            ),
            image=scalar(self.m.get(container, "image")),
            command=" ".join(words),
            accelerator_count=self.accelerator_count(container) if gpu else None,
            launched_by=launched.text if launched else None,
            launch=self.launch(container) if gpu or torch else None,
        )

    def launch(self, container: MappingNode) -> Launch:
        """What the container starts, for following it into the repository (``shmlint.project``)."""
        argv = {
            key: tuple(filter(None, (scalar(item) for item in sequence(self.m.get(container, key)))))
            for key in ("command", "args")
        }
        env = tuple((name, scalar(value) or "") for name, (_, value) in self.env(container))
        base_dir = os.path.dirname(self.source.path) or "."
        workdir = scalar(self.m.get(container, "workingDir")) or ""
        return Launch(base_dir, argv["command"], argv["args"], workdir, env, dockerfile_beside=True)

    def completed_shm(
        self, own: tuple[ShmSource, ...], container: MappingNode, identity: WorkloadId
    ) -> tuple[ShmSource, ...]:
        """A KServe predictor model that sets no /dev/shm gets its ServingRuntime's, as KServe merges them."""
        if identity.container_kind != "predictor" or any(s.kind in APPLIED_KINDS for s in own):
            return own
        from shmlint.extract.kserve import (
            runtime_shm,  # only an InferenceService's predictor loads KServe's code
        )

        return own + runtime_shm(container, self.source, self.runtimes)

    def resources(self, container: MappingNode) -> Node | None:
        return self.m.get(container, "resources") or self.m.get(container, "resourcesPerNode")

    def gpu_evidence(self, pod: _Pod, container: MappingNode, is_init: bool) -> Iterator[Evidence]:
        resources = self.resources(container)
        for section in ("limits", "requests"):
            for name, (key, value) in self.m.items(self.m.get(resources, section)).items():
                count = scalar(value)
                if self.signals.is_gpu_resource(name) and count is not None and positive_count(count):
                    yield Evidence(f"{section} {name}: {count}", self.pair_span(key, value))
        runtime_key = self.m.key(pod.spec, "runtimeClassName")
        runtime = scalar(self.m.get(pod.spec, "runtimeClassName"))
        if runtime_key is not None and runtime and self.signals.is_gpu_runtime(runtime) and not is_init:
            yield Evidence(
                f"runtimeClassName: {runtime}", self.pair_span(runtime_key, self.m.get(pod.spec, "runtimeClassName"))
            )
        for key, value in self.env(container):
            if self.signals.is_gpu_env(key, scalar(value[1]) or ""):
                yield Evidence(f"env {key}={scalar(value[1])}", self.pair_span(value[0], value[1]))

    def accelerator_count(self, container: MappingNode) -> int | None:
        """GPUs of a counted kind the container asks for (each resource's larger of limit and request, summed), or
        what a counted visibility variable lists; None when nothing says how many."""
        per_resource: dict[str, int] = {}
        resources = self.resources(container)
        for section in ("limits", "requests"):
            for name, (_, value) in self.m.items(self.m.get(resources, section)).items():
                count = device_count(scalar(value) or "") if self.signals.is_counted_resource(name) else None
                if count is not None:
                    per_resource[name] = max(count, per_resource.get(name, 0))
        if per_resource:
            return sum(per_resource.values())
        listed = [
            device_count(scalar(value) or "")
            for key, (_, value) in self.env(container)
            if key in self.signals.counted_envs and gpu_visible(scalar(value) or "")
        ]
        return max((count for count in listed if count is not None), default=None)

    def device_mounts(self, container: MappingNode, volumes: dict[str, MappingNode]) -> Iterator[Evidence]:
        """Accelerator device nodes handed over as hostPath volumes (privileged pods without a device plugin)."""
        for mount in sequence(self.m.get(container, "volumeMounts")):
            volume = volumes.get(scalar(self.m.get(mount, "name")) or "")
            path_node = self.m.path(volume, "hostPath", "path")
            path = scalar(path_node)
            if path and path_node is not None and self.signals.is_gpu_device(path):
                yield Evidence(f"hostPath {path}", self.span(path_node))

    def env(self, container: MappingNode) -> Iterator[tuple[str, tuple[Node, Node]]]:
        """(name, (name node, value node)) for each plain env entry."""
        for entry in sequence(self.m.get(container, "env")):
            name = scalar(self.m.get(entry, "name"))
            value = self.m.get(entry, "value")
            if name is not None and isinstance(value, ScalarNode):
                yield name, (self.m.get(entry, "name"), value)

    def command_words(self, container: MappingNode) -> list[str]:
        words: list[str] = []
        for key in ("command", "args"):
            node = self.m.get(container, key)
            words.extend(
                filter(None, (scalar(item) for item in sequence(node))) if isinstance(node, SequenceNode) else []
            )
            if isinstance(node, ScalarNode) and scalar(node):
                words.append(node.value)
        source = self.m.get(container, "source")  # Argo script templates
        if text := scalar(source):
            words.append(text)
        return words

    def torch_evidence(self, container: MappingNode, identity: WorkloadId) -> Iterator[Evidence]:
        image_node = self.m.get(container, "image")
        image = scalar(image_node)
        if image and self.signals.is_torch_image(image):
            yield Evidence(f"image {image}", self.span(image_node))
        launch = self.signals.torch_command(" ".join(self.command_words(container)))
        if launch:
            node = self.m.get(container, "command") or self.m.get(container, "args") or self.m.get(container, "source")
            yield Evidence(f"command {launch}", self.span(node))
        if identity.container_kind == "predictor":
            yield from self.kserve_format_evidence(container, identity.container)

    def kserve_format_evidence(self, model: MappingNode, key: str) -> Iterator[Evidence]:
        format_node = self.m.path(model, "modelFormat", "name")
        model_format = (scalar(format_node) or key).lower()
        if self.signals.is_torch_model_format(model_format):
            yield Evidence(f"KServe {model_format} predictor", self.span(format_node or model))

    def memory_limit(self, container: MappingNode) -> Size | None:
        node = self.m.path(self.resources(container), "limits", "memory")
        return self.size(node)

    def size(self, node: Node | None) -> Size | None:
        text = scalar(node)
        if text is None:
            return None
        parsed = sizes.parse_kubernetes(text)
        return Size(text, parsed.bytes, self.span(node), sizes.KUBERNETES, parsed.error, parsed.suggestion)

    def nccl_disabled(self, container: MappingNode) -> Evidence | None:
        for key, (name_node, value) in self.env(container):
            if key == nccl.SHM_DISABLE and nccl.disables_shm(scalar(value) or ""):
                return Evidence(f"env NCCL_SHM_DISABLE={value.value}", self.pair_span(name_node, value))
        return None

    # -- /dev/shm --------------------------------------------------------------------------------------------

    def shm_sources(
        self,
        pod: _Pod,
        container: MappingNode,
        volumes: dict[str, MappingNode],
        meant: tuple[str, MappingNode] | None,
        cap: int | None,
    ) -> Iterator[ShmSource]:
        host_ipc_key = self.m.key(pod.spec, "hostIPC")
        host_ipc = self.m.get(pod.spec, "hostIPC")
        if host_ipc_key is not None and (scalar(host_ipc) or "").lower() == "true":
            span = self.pair_span(host_ipc_key, host_ipc)
            yield ShmSource(ShmKind.HOST_IPC, ShmMechanism.IPC_MODE, span, "hostIPC: true")
        mount = shm_mount(self.m, container)
        if mount is not None:
            name = scalar(self.m.get(mount, "name")) or ""
            volume = volumes.get(name)
            if volume is not None:
                yield self.volume_source(name, volume, cap)
            return
        if meant is not None:
            name, volume = meant
            source = self.volume_source(name, volume, cap)
            if source.kind is ShmKind.MEMORY:
                yield source._replace(kind=ShmKind.UNMOUNTED, cap_bytes=None)

    def shm_volume(self, pod: _Pod, volumes: dict[str, MappingNode]) -> tuple[str, MappingNode] | None:
        """The pod's volume meant for /dev/shm: mounted there by another container, or a Memory volume named so."""
        for other, _, _ in pod.containers:
            mount = shm_mount(self.m, other)
            name = scalar(self.m.get(mount, "name")) if mount is not None else None
            if name in volumes:
                return name, volumes[name]
        for name, volume in volumes.items():
            if "shm" in name.lower() and self.volume_source(name, volume, None).kind is ShmKind.MEMORY:
                return name, volume
        return None

    def shared_cap(self, pod: _Pod) -> int | None:
        """Half the smallest memory limit among the pod's containers: a volume they share cannot use more."""
        limits = [
            size.bytes for container, _, _ in pod.containers if (size := self.memory_limit(container)) and size.bytes
        ]
        return min(limits) // 2 if limits else None

    def volume_source(self, name: str, volume: MappingNode, cap: int | None) -> ShmSource:
        """``cap``: half the smallest memory limit in the pod, the most a volume its containers share can use."""
        empty_dir = self.m.get(volume, "emptyDir")
        span = self.volume_span(volume, empty_dir)
        if empty_dir is not None and "emptyDir" in self.m.items(volume):
            medium = scalar(self.m.get(empty_dir, "medium")) or ""
            size = self.size(self.m.get(empty_dir, "sizeLimit"))
            memory = medium.strip() == "Memory"
            kind, mechanism = (
                (ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT) if memory else (ShmKind.DISK, ShmMechanism.VOLUME)
            )
            return ShmSource(kind, mechanism, span, f'emptyDir volume "{name}"', size, name, cap_bytes=cap)
        host_path = scalar(self.m.path(volume, "hostPath", "path"))
        if host_path is not None:
            description = f'hostPath volume "{name}" ({host_path})'
            return ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, description, None, name, host_path=host_path)
        kinds = [key for key in self.m.items(volume) if key != "name"]
        description = f'{kinds[0] if kinds else "volume"} volume "{name}"'
        return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, description, None, name)


def shm_mount(m: Mappings, container: Node) -> MappingNode | None:
    """The container's ``volumeMounts`` entry at /dev/shm: the extractor and the fixer look it up here."""
    for mount in sequence(m.get(container, "volumeMounts")):
        if isinstance(mount, MappingNode) and is_shm_path(scalar(m.get(mount, "mountPath")) or ""):
            return mount
    return None


#: core kinds whose API validation requires every container to name an image: one that names none is a patch
_IMAGE_REQUIRED = frozenset(
    {"Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob"}
)


def fragment(document: Node, m: Mappings | None = None) -> str | None:
    """Why a YAML document holding containers is a fragment rather than an object that runs, or None.

    A fragment is judged where it is completed (a kustomize overlay, a chart, the object a snippet belongs to):
    judging it alone would report what the complete object may well have (a /dev/shm volume in the base)."""
    m = m or Mappings()
    if not isinstance(document, MappingNode):
        return None
    kind = scalar(m.get(document, "kind"))
    containers = [c for c in _core_containers(document, m) if isinstance(c, MappingNode)]
    if not containers:
        return None
    if kind is None and m.get(document, "apiVersion") is None:
        return "a pod spec without apiVersion and kind (a snippet or values fragment), not an object that runs"
    if kind in _IMAGE_REQUIRED and all(m.get(c, "image") is None for c in containers):
        return f"a {kind} whose containers name no image (a patch, as kustomize applies it), not one that runs"
    return None


def _core_containers(document: MappingNode, m: Mappings) -> list[Node]:
    """The containers where a pod, a controller's template or a CronJob's job template keeps them (or a bare
    ``containers`` list at the top): the places a snippet or a patch of a core kind writes them."""
    spec = m.get(document, "spec")
    places = (
        document,
        spec,
        m.get(m.get(spec, "template"), "spec"),
        m.get(m.get(m.get(m.get(spec, "jobTemplate"), "spec"), "template"), "spec"),
    )
    return [c for place in places for key in ("containers", "initContainers") for c in sequence(m.get(place, key))]


def extract_kubernetes(
    source: SourceText, documents: list[Node], signals: Signals, runtimes: RuntimeIndex | None = None
) -> list[Workload]:
    """``runtimes``: the KServe ServingRuntimes of the checked files, which complete InferenceService predictors."""
    return _Extractor(source, signals, runtimes).workloads(documents)


def extract_pod_spec(
    source: SourceText, spec: MappingNode, owner: WorkloadId, signals: Signals, m: Mappings
) -> list[Workload]:
    """The containers of one pod spec embedded in another format (AWS Batch on EKS), judged as Kubernetes judges
    them; ``m`` reads its keys (CloudFormation spells them ``Containers``, ``VolumeMounts``...)."""
    extractor = _Extractor(source, signals, None, m)
    pod = _Pod(owner, spec, tuple(extractor.containers(spec)))
    return list(extractor.pod_workloads(pod, Counter()))
