"""Kubernetes manifests -> one Workload per container.

Pod specs are found by shape, not by kind: any mapping with a ``containers`` list of mappings is a pod spec, which
covers core kinds and CRDs alike (PyTorchJob, JobSet, RayCluster, LeaderWorkerSet, KServe predictors ...). A few
kinds put a single container elsewhere (Argo templates, Kubeflow Trainer's ``trainer``, KServe model specs) and get
a small adapter each. Each pod is read into the pod judge's view (``shmlint.formats.kubernetes.pod_reader``) and judged
once for every format that writes pod specs (``shmlint.containers.pod``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from shmlint.formats.kubernetes.dynamo import dynamo_pods, is_dynamo
from shmlint.formats.kubernetes.pod_reader import (
    TRAINER_NODE,
    FoundPod,
    LocalRanks,
    PodReader,
    PolicyLaunch,
    ProcsPerNode,
    is_count,
    listed_containers,
)
from shmlint.model import Evidence, Notice, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.yamlnodes import (
    MappingNode,
    Mappings,
    Node,
    ScalarNode,
    SequenceNode,
    key_problem,
    scalar,
    sequence,
    walk_mappings,
)
from shmlint.signals import MPI_LAUNCHERS, Signals, positive_count
from shmlint.source import SourceText

if TYPE_CHECKING:
    from shmlint.formats.kubernetes.strategic_merge import StrategicMerge
    from shmlint.project.runtimes import RuntimeIndex

RAY_GROUP = "ray.io"
#: kinds outside ray.io whose pods KubeRay creates (``operators`` in shmlint/data/shm_need.yaml): aibrix's
#: RayClusterFleet holds a RayCluster spec that KubeRay turns into pods, with its /dev/shm
KUBERAY_MANAGED = frozenset({("orchestration.aibrix.ai", "RayClusterFleet")})
#: Qihoo360's dgl-operator mounts a Memory emptyDir at /dev/shm (half the memory limit) in the first container of
#: each worker and partitioner pod, not the launcher's (``operators`` in shmlint/data/shm_need.yaml; audit81c)
DGL_JOB = ("qihoo.net", "DGLJob")
DGL_SHM_ROLES = frozenset({"Worker", "Partitioner"})
ARGO_GROUP = "argoproj.io"
#: sgl-project/rbg's RoleBasedGroup (and RoleBasedGroupSet): its roles compose their pods from templates and patches
RBG_GROUP = "workloads.x-k8s.io"
#: Kubeflow Trainer: a (Cluster)TrainingRuntime's ML policy decides how its ``node`` container is launched
TRAINER_GROUP = "trainer.kubeflow.org"
TRAINING_RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
#: ML policies whose launch passes data through /dev/shm (``training_runtimes`` in shmlint/data/shm_need.yaml)
LAUNCHING_POLICIES = {
    "torch": "Kubeflow Trainer's mlPolicy.torch (torchrun)",
    "mpi": "Kubeflow Trainer's mlPolicy.mpi (MPI ranks)",
}
#: each policy's ``numProcPerNode`` when it is not written (trainingruntime_types.go: torch ``auto``, MPI 1)
_POLICY_DEFAULT_PROCS = {"torch": "auto", "mpi": "1"}
#: Kubeflow's MPIJob (mpi-operator v2beta1, training-operator v1): ``spec.slotsPerWorker`` slots in each worker's
#: line of the hostfile (default 1), filled by the Launcher's mpirun (``mpi_jobs`` in shmlint/data/shm_need.yaml).
#: mpi-operator's v1alpha1 MPIJob has one ``spec.template`` for the launcher and the ``spec.replicas`` workers, and
#: without ``slotsPerWorker`` gives each worker as many slots as its first container's GPU limit
#: (pkg/controllers/v1alpha1/mpi_job_controller.go: allocateProcessingUnits, newConfigMap)
MPI_GROUP = "kubeflow.org"
MPI_KINDS = ("MPIJob",)
MPI_WORKER = "Worker"
MPI_LAUNCHER = "Launcher"
V1ALPHA1_SLOT_RESOURCE = "nvidia.com/gpu"
#: v1alpha1 fields that size the workers from the operator's per-node flags, which no manifest shows
_OPERATOR_UNITS = ("gpus", "processingUnits")
MPI_RANK_OPTIONS = frozenset({"-np", "-n", "--np", "-c", "--n", "--num-proc"})
#: more ranks than any machine has devices: a larger number is not read
MAX_RANKS = 1024
#: Kubeflow's PyTorchJob (training-operator v1): ``spec.nprocPerNode`` (default ``auto``), or the deprecated
#: ``spec.elasticPolicy.nProcPerNode``, becomes PET_NPROC_PER_NODE (``pytorch_jobs`` in shmlint/data/shm_need.yaml)
PYTORCH_KINDS = ("PyTorchJob",)
PYTORCH_DEFAULT_NPROC = "auto"
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
        "roles",
    }
)
_NOISE_SUFFIXES = ("ReplicaSpecs", "Specs")
_ROLE_RENAMES = {
    "headGroupSpec": "head",
    "workerGroupSpecs": "worker group",
    "leaderTemplate": "leader",
    "workerTemplate": "worker",
}


class _Extractor:
    """Finds a manifest's pod specs, by shape, and hands each to the pod reader."""

    def __init__(self, reader: PodReader) -> None:
        self.reader = reader
        self.m = reader.m
        self.trained: frozenset[str] = frozenset()  # training runtimes a TrainJob of this file names
        self.notices: list[Notice] = []  # what this file's objects say that is not read (for its report)
        #: merges of templates and patches (a RoleBasedGroup's roles): their nodes live while ``m`` memoises them
        self.merge: StrategicMerge | None = None

    # -- objects and pod specs -------------------------------------------------------------------------------

    def objects(self, documents: list[Node]) -> Iterator[MappingNode]:
        for document in documents:
            if not isinstance(document, MappingNode):
                continue
            if scalar(self.m.get(document, "kind")) == "List":
                yield from (item for item in sequence(self.m.get(document, "items")) if isinstance(item, MappingNode))
            else:
                yield document

    def pods(self, obj: MappingNode) -> Iterator[FoundPod]:
        kind = scalar(self.m.get(obj, "kind")) or "object"
        metadata = self.m.get(obj, "metadata")
        name = scalar(self.m.get(metadata, "name")) or scalar(self.m.get(metadata, "generateName")) or "?"
        group = (scalar(self.m.get(obj, "apiVersion")) or "").split("/", 1)[0]
        owner = WorkloadId(WorkloadFormat.KUBERNETES, kind, name)
        own = (metadata,) if metadata is not None else ()
        if group == ARGO_GROUP:
            yield from self.argo_pods(obj, owner, own)
            return
        if is_dynamo(group, kind):
            yield from dynamo_pods(self.reader, obj, kind, owner, own)
            return
        yield from self.trainer_pods(obj, owner, own)
        yield from self.kserve_pods(obj, owner, own)
        policy = self.launch_policy(obj, kind, group, name)
        mpi = group == MPI_GROUP and kind in MPI_KINDS
        single = self.single_template(obj) if mpi else None
        ranks = self.mpi_ranks(obj, single) if mpi else None
        procs = self.procs_per_node(obj) if group == MPI_GROUP and kind in PYTORCH_KINDS else None
        launcher_works = (scalar(self.m.path(obj, "spec", "runLauncherAsWorker")) or "").lower() == "true"
        claims = tuple(sequence(self.m.path(obj, "spec", "volumeClaimTemplates"))) if kind == "StatefulSet" else ()
        for spec, path, template, composed in self.composed_pods(obj, group, kind):
            containers = tuple(self.containers(spec))
            kuberay = group == RAY_GROUP or (group, kind) in KUBERAY_MANAGED
            ray = containers[0][0] if kuberay and containers and "submitter" not in path.lower() else None
            if ray is not None:  # KubeRay mounts none where the group sets plasma-directory (audit79b)
                from shmlint.formats.kubernetes.ray_groups import plasma_elsewhere  # for a Ray group's pods only

                ray = None if plasma_elsewhere(self.m, obj, template) else ray
            template_metadata = self.m.get(template, "metadata")
            both = ((template_metadata,) if template_metadata is not None else ()) + own
            role = self.role(path)
            dgl = containers[0][0] if (group, kind) == DGL_JOB and role in DGL_SHM_ROLES and containers else None
            launched = policy if role == TRAINER_NODE else None
            yield FoundPod(
                owner._replace(role=role),
                spec,
                containers,
                shm_container=ray or dgl,
                shm_operator="the KubeRay operator" if ray is not None else "the DGL operator",
                metadata=both,
                annotated=template_metadata,
                launched_by=launched,
                ranks=ranks if role == MPI_WORKER or (single is not None and spec is single) else None,
                procs=procs,
                starts_ranks_elsewhere=mpi and role == MPI_LAUNCHER and not launcher_works,
                workers_sleep=single is not None and spec is single,
                claim_templates=claims,
                composed=composed,
            )

    def note_key_problem(self, spec: MappingNode) -> None:
        """Say a key written twice in a pod spec (audit62b: a second ``volumeMounts:`` hid the /dev/shm mount of the
        first): kubectl refuses the file ("mapping key ... already defined"), while shmlint, like lenient readers,
        goes on with the last value, so the findings may rest on what the author did not mean."""
        problem = key_problem([spec])
        if problem is not None:
            read = "; the last one is read here" if problem.message.startswith("duplicate") else ""
            why = f"{problem.message} of a pod spec: kubectl refuses the file{read}"
            self.notices.append(Notice(self.reader.source.path, f"line {problem.line}: {why}"))

    def procs_per_node(self, obj: MappingNode) -> ProcsPerNode | None:
        """A PyTorchJob's processes per pod as its operator passes them to torchrun: ``spec.nprocPerNode``, else the
        deprecated ``spec.elasticPolicy.nProcPerNode`` (set only with it), else the operator's default ``auto``.
        None, with a notice, for a value that is no scalar (a list, a mapping): the API server refuses it, and
        nothing is known of the processes."""
        spec = self.m.get(obj, "spec")
        for path in (("nprocPerNode",), ("elasticPolicy", "nProcPerNode")):
            node = self.m.path(spec, *path)
            value = scalar(node)
            if node is not None and value:
                return f"{'.'.join(path)}: {value}, line {self.reader.span(node).line}", value
            if node is not None and not isinstance(node, ScalarNode):
                line = self.reader.span(node).line
                why = f"{'.'.join(path)} is not a single value; the processes per pod are unknown (not evidence)"
                self.notices.append(Notice(self.reader.source.path, f"line {line}: {why}"))
                return None
        return f"nprocPerNode unset: the operator's default {PYTORCH_DEFAULT_NPROC}", PYTORCH_DEFAULT_NPROC

    def single_template(self, obj: MappingNode) -> MappingNode | None:
        """The pod spec of a v1alpha1 MPIJob's one template (launcher and workers), None for replica specs."""
        spec = self.m.get(obj, "spec")
        single = self.m.path(spec, "template", "spec")
        no_replica_specs = self.m.get(spec, "mpiReplicaSpecs") is None
        return single if no_replica_specs and isinstance(single, MappingNode) else None

    def mpi_ranks(self, obj: MappingNode, single: MappingNode | None) -> LocalRanks | None:
        """An MPIJob's ranks in each worker pod: its ``slotsPerWorker`` (mpirun fills a worker's slots before the
        next one's), or a v1alpha1 job's GPU limit (``_template_slots``), at most the ``-np`` of the Launcher's
        mpirun when its command says it (``single``: a v1alpha1 job's template, ``single_template``). None below
        two."""
        spec = self.m.get(obj, "spec")
        key, value = self.m.key(spec, "slotsPerWorker"), self.m.get(spec, "slotsPerWorker")
        said = f"slotsPerWorker: {scalar(value)}"
        if not (scalar(value) or "").strip() and single is not None:  # unset or null: the operator's fallback
            key, value = self._template_slots(spec, single)
            said = f"the v1alpha1 operator's slots per worker, its nvidia.com/gpu: {scalar(value)}"
        slots = (scalar(value) or "").strip()
        if key is None or value is None or not is_count(slots, 6) or not 2 <= int(slots) <= MAX_RANKS:
            return None
        launcher = single or self.m.path(spec, "mpiReplicaSpecs", "Launcher", "template", "spec")
        containers = self.containers(launcher) if isinstance(launcher, MappingNode) else iter(())
        words = [
            word
            for container, _, _ in containers
            for key_name in ("command", "args")
            for item in sequence(self.m.get(container, key_name))
            for word in (scalar(item) or "").split()
        ]
        total = _launched_ranks(words)
        ranks = min(int(slots), total) if total else int(slots)
        if ranks < 2:
            return None
        return LocalRanks(Evidence(said, self.reader.pair_span(key, value)), ranks, total)

    def _template_slots(self, spec: Node | None, single: MappingNode) -> tuple[ScalarNode | None, Node | None]:
        """A v1alpha1 MPIJob's slots per worker when ``spec.replicas`` sets the workers: its first container's
        ``nvidia.com/gpu`` limit (the operator's processing resource unless ``processingResourceType`` says
        ``cpu``); none where ``spec.gpus`` or ``spec.processingUnits`` leave them to the operator's flags."""
        replicas = (scalar(self.m.get(spec, "replicas")) or "").strip()
        if (
            not is_count(replicas, 6)
            or int(replicas) < 1
            or any(self.m.get(spec, k) is not None for k in _OPERATOR_UNITS)
        ):
            return None, None  # no workers (0 or null), or as many as the operator's flags make
        if (scalar(self.m.get(spec, "processingResourceType")) or "").strip() == "cpu":
            return None, None  # the operator's one other type; any other spelling is read as the GPU resource
        first = next(iter(self.containers(single)), None)
        limits = self.m.path(first[0], "resources", "limits") if first is not None else None
        return self.m.key(limits, V1ALPHA1_SLOT_RESOURCE), self.m.get(limits, V1ALPHA1_SLOT_RESOURCE)

    def launch_policy(self, obj: MappingNode, kind: str, group: str, name: str) -> PolicyLaunch | None:
        """What a Kubeflow training runtime's ML policy launches in its ``node`` container (``PolicyLaunch.on``
        counts its processes). A runtime that a TrainJob of the same file names is judged by its own evidence
        instead: the TrainJob says what runs there (a toy script on the CPU, or GPU work it reports itself)."""
        if group != TRAINER_GROUP or kind not in TRAINING_RUNTIME_KINDS or name in self.trained:
            return None
        policy = self.m.path(obj, "spec", "mlPolicy")
        for key, why in LAUNCHING_POLICIES.items():
            if (found := self.m.key(policy, key)) is None:
                continue
            node = self.m.path(policy, key, "numProcPerNode")
            value = (scalar(node) or "").strip()  # null or empty: unset, as the API server reads it
            if node is not None and not isinstance(node, ScalarNode):
                line = self.reader.span(node).line
                why = f"mlPolicy.{key}.numProcPerNode is not a single value; the processes per node are unknown"
                self.notices.append(Notice(self.reader.source.path, f"line {line}: {why} (not evidence)"))
                return None
            default = _POLICY_DEFAULT_PROCS[key]
            setting = f"numProcPerNode: {value}" if value else f"numProcPerNode unset: {default}"
            return PolicyLaunch(Evidence(why, self.reader.span(found)), value or default, setting)
        return None

    def trainjob_runtimes(self, objects: list[MappingNode]) -> frozenset[str]:
        return frozenset(
            runtime
            for obj in objects
            if scalar(self.m.get(obj, "kind")) == "TrainJob"
            and (runtime := scalar(self.m.path(obj, "spec", "runtimeRef", "name")))
        )

    def composed_pods(
        self, obj: MappingNode, group: str, kind: str
    ) -> Iterator[tuple[MappingNode, str, Node | None, bool]]:
        """The pod specs of ``pod_specs`` (and whether each was composed from parts), where a RoleBasedGroup's roles
        compose theirs from templates and patches: the composed pods in place of the parts."""
        if group != RBG_GROUP:
            yield from ((*found, False) for found in self.pod_specs(obj))
            return
        from shmlint.formats.kubernetes.rolebasedgroup import compose_roles  # for a RoleBasedGroup's objects only
        from shmlint.formats.kubernetes.strategic_merge import StrategicMerge

        self.merge = self.merge or StrategicMerge(self.m)
        composition = compose_roles(obj, kind, self.merge)
        for node, why in composition.notices:
            self.notices.append(Notice(self.reader.source.path, f"line {self.reader.span(node).line}: {why}"))
        for pod in composition.pods:
            spec = self.m.get(pod.template, "spec")
            if isinstance(spec, MappingNode):
                yield spec, f".spec.roles[{pod.role}]", pod.template, pod.composed
        yield from ((*found, False) for found in self.pod_specs(obj, composition.parts))

    def pod_specs(
        self, obj: MappingNode, parts: frozenset[int] = frozenset()
    ) -> Iterator[tuple[MappingNode, str, Node | None]]:
        """Mappings with a ``containers`` list of mappings, with the key path that led there and the mapping that
        holds them (the pod template, whose metadata carries the pod's annotations); none within ``parts``."""
        stack: list[tuple[Node, str, Node | None]] = [(obj, "", None)]
        seen: set[int] = set(parts)
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
        return listed_containers(self.m, spec)

    def argo_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[FoundPod]:
        """Argo templates hold one ``container`` (or ``script``) and volumes at two levels."""
        spec = self.m.get(obj, "spec")
        if scalar(self.m.get(obj, "kind")) == "CronWorkflow":
            spec = self.m.get(spec, "workflowSpec")
        workflow_volumes = tuple(sequence(self.m.get(spec, "volumes")))
        claims = tuple(sequence(self.m.get(spec, "volumeClaimTemplates")))
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
                yield FoundPod(
                    role, template, tuple(containers), workflow_volumes, metadata=metadata, claim_templates=claims
                )

    def trainer_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[FoundPod]:
        """Kubeflow TrainJob: ``spec.trainer`` is the container; overrides may add volumes and mounts."""
        if scalar(self.m.get(obj, "kind")) != "TrainJob":
            return
        trainer = self.m.path(obj, "spec", "trainer")
        if isinstance(trainer, MappingNode):
            volumes, mounts = self.trainer_overrides(obj)
            yield FoundPod(owner, trainer, ((trainer, "trainer", ""),), volumes, metadata=metadata, extra_mounts=mounts)

    def trainer_overrides(self, obj: MappingNode) -> tuple[tuple[Node, ...], tuple[Node, ...]]:
        """The volumes and the trainer's volume mounts a TrainJob's overrides add to its runtime's ``node`` job:
        ``podTemplateOverrides[].spec`` (Trainer v2.1) or ``podSpecOverrides[]`` (v2.0), their ``volumes`` and the
        ``volumeMounts`` of their container override named ``node``. A 64Gi /dev/shm mounted so was said to be 64 MiB
        (audit72c)."""
        volumes: list[Node] = []
        mounts: list[Node] = []
        spec = self.m.get(obj, "spec")
        overrides = [(item, self.m.get(item, "spec")) for item in sequence(self.m.get(spec, "podTemplateOverrides"))]
        overrides += [(item, item) for item in sequence(self.m.get(spec, "podSpecOverrides"))]
        for target, override in overrides:
            jobs = {scalar(self.m.get(job, "name")) for job in sequence(self.m.get(target, "targetJobs"))}
            if TRAINER_NODE not in jobs or not isinstance(override, MappingNode):
                continue
            volumes += sequence(self.m.get(override, "volumes"))
            for container in sequence(self.m.get(override, "containers")):
                if scalar(self.m.get(container, "name")) == TRAINER_NODE:
                    mounts += sequence(self.m.get(container, "volumeMounts"))
        return tuple(volumes), tuple(mounts)

    def kserve_pods(self, obj: MappingNode, owner: WorkloadId, metadata: tuple[Node, ...]) -> Iterator[FoundPod]:
        """KServe predictors may hold a model spec (``pytorch:``, ``model:``) that is a container in disguise."""
        predictor = self.m.path(obj, "spec", "predictor")
        if not isinstance(predictor, MappingNode):
            return
        for key in KSERVE_MODEL_KEYS:
            model = self.m.get(predictor, key)
            if isinstance(model, MappingNode):
                yield FoundPod(owner, predictor, ((model, "predictor", key),), metadata=metadata)

    # -- containers -> workloads -----------------------------------------------------------------------------

    def workloads(self, documents: list[Node]) -> list[Workload]:
        result: list[Workload] = []
        seen: Counter[WorkloadId] = Counter()
        objects = list(self.objects(documents))
        self.trained = self.trainjob_runtimes(objects)
        for obj in objects:  # an OpenShift Template's objects are a template's, the file's other objects not
            reader = self.reader.for_template() if is_openshift_template(obj, self.m) else self.reader
            found = False
            for pod in self.pods(obj):
                found = True
                self.note_key_problem(pod.spec)
                result.extend(reader.pod_workloads(pod, seen))
            if not found:
                self.note_unread_workload(obj)
        return result

    def note_unread_workload(self, obj: MappingNode) -> None:
        """Say an object of a kind whose pods shmlint does not read (an operator's own CRD: KaiwoJob, ...) that asks
        for GPUs and names what runs: what its operator starts is not checked, and the report says so rather than
        nothing (audit67b). Read as far as ``MAX_UNREAD_NODES`` mappings."""
        api = scalar(self.m.get(obj, "apiVersion")) or ""
        group = api.partition("/")[0] if "/" in api else ""
        if "." not in group or group.endswith(".k8s.io"):  # Kubernetes' own kinds: their pods are all read
            return
        kind = scalar(self.m.get(obj, "kind")) or ""
        if not kind or kind in _NO_WORKLOAD_KINDS or self.m.get(obj, "spec") is None:
            return
        gpu = runs = None
        for node in itertools.islice(walk_mappings(self.m.get(obj, "spec")), MAX_UNREAD_NODES):
            for key, (key_node, value) in self.m.items(node).items():
                if gpu is None and self._asks_for_gpus(key, value):
                    gpu = f"{key}: {scalar(value)}", key_node
                if runs is None and key in _RUN_KEYS and scalar(value):
                    runs = key
            if gpu is not None and runs is not None:
                metadata = self.m.get(obj, "metadata")
                name = scalar(self.m.get(metadata, "name")) or "?"
                line = self.reader.span(gpu[1]).line
                why = (
                    f"{kind}/{name} asks for GPUs ({gpu[0]}) and names what runs ({runs}), but its kind holds no pod "
                    "spec shmlint reads: the containers its operator makes are not checked"
                )
                self.notices.append(Notice(self.reader.source.path, f"line {line}: {why}"))
                return

    def _asks_for_gpus(self, key: str, value: Node) -> bool:
        text = scalar(value) or ""
        if self.reader.signals.is_gpu_resource(key):
            return positive_count(text)
        return key.lower() in _GPU_COUNT_KEYS and positive_count(text)


#: kinds that describe GPUs without running anything (a CRD's schema, GPU operators' and node pools' settings)
_NO_WORKLOAD_KINDS = frozenset(
    {"CustomResourceDefinition", "ClusterPolicy", "NVIDIADriver", "NodePool", "NodeClass", "ConfigMap", "Secret"}
)
#: keys of an operator's object that say how many GPUs it asks for, and keys that name what it runs
_GPU_COUNT_KEYS = frozenset({"gpus", "gpu", "numgpus", "num_gpus", "gpucount", "gpu_count", "gpuspernode"})
_RUN_KEYS = frozenset({"image", "entrypoint", "command", "args", "model", "script"})
#: mappings of one object read for that notice
MAX_UNREAD_NODES = 2000

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


def is_openshift_template(document: Node, m: Mappings | None = None) -> bool:
    """An OpenShift ``Template``: its ``objects`` are written with ``${PARAMETER}`` placeholders that ``oc process``
    fills from its ``parameters``, so a placeholder there is a value to come, as in an envsubst template."""
    m = m or Mappings()
    return (
        isinstance(document, MappingNode)
        and scalar(m.get(document, "kind")) == "Template"
        and (scalar(m.get(document, "apiVersion")) or "").split("/")[0] in ("v1", "template.openshift.io")
    )


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
    source: SourceText,
    documents: list[Node],
    signals: Signals,
    runtimes: RuntimeIndex | None = None,
    placeholders: bool = False,
    embedded: bool = False,
) -> tuple[list[Workload], list[Notice]]:
    """The workloads and the notices of a file's objects. ``runtimes``: the KServe ServingRuntimes of the checked
    files, which complete InferenceService predictors; ``placeholders``: the file is a template envsubst renders
    (``PodReader``)."""
    m = Mappings()
    reader = PodReader(source, signals, runtimes, m, placeholders, embedded)
    if "deviceClassName" in source.text:  # the file's resource claim templates and claims (a List's items too)
        from shmlint.formats.kubernetes.device_claims import device_classes  # for such a file only

        objects = list(_Extractor(reader).objects(documents))
        reader = PodReader(source, signals, runtimes, m, placeholders, embedded, device_classes(m, objects))
    extractor = _Extractor(reader)
    return extractor.workloads(documents), extractor.notices


def extract_pod_spec(
    source: SourceText, spec: MappingNode, owner: WorkloadId, signals: Signals, m: Mappings
) -> list[Workload]:
    """The containers of one pod spec embedded in another format (AWS Batch on EKS), judged as Kubernetes judges
    them; ``m`` reads its keys (CloudFormation spells them ``Containers``, ``VolumeMounts``...)."""
    reader = PodReader(source, signals, None, m)
    pod = FoundPod(owner, spec, tuple(_Extractor(reader).containers(spec)))
    return list(reader.pod_workloads(pod, Counter()))


def _launched_ranks(words: list[str]) -> int | None:
    """The rank count an mpirun (mpiexec, horovodrun) in these words asks for: ``-np 16``, ``-np=16``; read up to
    the program it launches (a Python interpreter or script), whose own ``-n`` is not the launcher's."""
    launched = False
    for index, word in enumerate(words):
        program = word.rpartition("/")[2]
        if launched and (program.startswith("python") or program.endswith(".py")):
            return None
        launched = launched or program in MPI_LAUNCHERS
        name, equals, value = word.partition("=")
        if launched and name in MPI_RANK_OPTIONS:
            value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
            return int(value) if is_count(value, 6) and int(value) > 0 else None
    return None
