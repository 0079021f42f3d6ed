"""Python launchers -> one Workload per GPU step, task or container they start, read with ``ast`` (never run).

- Metaflow: a step decorated ``@batch``, ``@kubernetes`` or ``@resources`` (``gpu=``, ``shared_memory=`` and
  ``memory=`` in MiB). Without ``shared_memory`` Metaflow sets nothing (``defaults`` in
  ``metaflow/plugins/aws/batch/batch_decorator.py`` and ``.../kubernetes/kubernetes_decorator.py``), so the
  runtime's 64 MiB applies.
- Kubeflow Pipelines v2: a task given ``set_accelerator_limit``/``set_gpu_limit``/``set_accelerator_type``, and
  the ``kfp.kubernetes.empty_dir_mount(task, ..., mount_path="/dev/shm", medium="Memory")`` calls on it.
- Flyte: ``@task`` with a GPU in ``requests``/``limits``/``resources`` (``Resources(gpu=...)``) or an
  ``accelerator``, and its ``shared_memory`` option (``True``: sized like the memory limit; ``"8Gi"``).
- The docker SDK: ``containers.run(...)``/``containers.create(...)``, and Airflow's ``DockerOperator(...)`` that
  passes the same options on to it, read by ``shmlint.formats.python.docker_sdk`` and judged as Terraform's
  ``docker_container`` is (``shmlint.containers.docker``).

Values and positions come from ``shmlint.formats.python.calls``: module-level ``NAME = literal`` constants are
resolved; any other expression is unknown, which lowers a finding to a warning where it could carry a size.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from itertools import pairwise

from shmlint import sizes
from shmlint.containers import base_dir
from shmlint.extract.commandline import ShellText, extract_commands
from shmlint.formats.python import STARTS_A_RUN
from shmlint.formats.python.calls import (
    UNKNOWN,
    Arg,
    CallReader,
    Sibling,
    called_name,
    device_counts,
    method_name,
    module_constants,
    safe_offset,
    text_value,
)
from shmlint.formats.python.docker_sdk import DockerSdk
from shmlint.formats.python.k8s_objects import mounted_shm, volume_source
from shmlint.formats.python.pod_operator import PodOperator
from shmlint.formats.python.sagemaker_local import SageMakerLocal
from shmlint.formats.python.shell_runs import ShellRuns
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.numbers import ascii_int, bounded_int
from shmlint.parsers.work import TOO_COMPLEX, beyond
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText

#: more syntax nodes than any real launcher module; a larger file is refused as too complex, not walked
MAX_NODES = 200_000
#: the most tokens (``parsers.work``) handed to ``ast.parse``: about 1 MB of ordinary code, 100 MB of nodes
MAX_TOKENS = 200_000
METAFLOW_COMPUTE = ("batch", "kubernetes", "resources")
#: more local processes than a launcher call could mean: a larger literal is no count
MAX_PROCESSES = 4096
#: a launcher's options in an argument list that count its local processes (``["--num_gpus", "6"]``, ``--num_gpus=6``)
_COUNT_OPTIONS = ("--num_gpus", "--nproc_per_node")
KFP_ACCELERATOR = ("set_accelerator_limit", "set_gpu_limit", "set_accelerator_type")
#: KFP v1's ``ContainerOp`` calls that give a task volumes (``add_pvolumes({"/dev/shm": ...})``)
KFP_V1_VOLUMES = ("add_pvolumes", "add_volume", "add_volume_mount")
FLYTE_GPU_RESOURCES = ("requests", "limits", "resources")
FLYTE_TORCH_CONFIGS = ("PyTorch", "Elastic")  # flytekitplugins-kfpytorch: a Memory /dev/shm unless told otherwise


class PythonError(Exception):
    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


class PythonSyntax(PythonError):
    """A rejection that may be a newer Python's syntax (``newer_syntax``): nothing says the file is wrong, only
    that this interpreter cannot check it."""


def extract_python(source: SourceText, signals: Signals, sibling: Sibling | None = None) -> list[Workload]:
    """Raises ``PythonError`` for a file that is not Python or is too large to walk. ``sibling``: the constants of
    a module beside the file by its dotted name (None: not there), for those it imports."""
    too_many = beyond(source.text, MAX_TOKENS)
    if too_many is not None:  # ast.parse builds every node first: 1 MB of "1," took 10 s and 527 MB
        line, column = source.position(too_many)
        raise PythonError(f"{TOO_COMPLEX} (more than {MAX_TOKENS:,} tokens; split the file)", line, column, too_many)
    try:
        tree = ast.parse(source.text)
    except SyntaxError as exc:
        from shmlint.formats.python.newer_syntax import may_be_newer  # only for a file this Python rejects

        line, column = exc.lineno or 1, exc.offset or 1
        rejected = source.line_text(line) if 0 < line <= len(source.line_starts) else ""  # Python may count past
        error = PythonSyntax if may_be_newer(exc.msg, rejected) else PythonError
        message = exc.msg if error is PythonSyntax else f"invalid Python: {exc.msg}"
        raise error(message, line, column, safe_offset(source, line)) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise PythonError(f"invalid Python: {type(exc).__name__}", 1, 1, 0) from None
    if sum(1 for _ in zip(ast.walk(tree), range(MAX_NODES + 1), strict=False)) > MAX_NODES:
        raise PythonError(f"too complex to check: more than {MAX_NODES:,} syntax nodes (split the file)", 1, 1, 0)
    return list(_Reader(source, signals, tree, sibling).workloads())


def constants_of(text: str) -> dict[str, object] | None:
    """A sibling module's constants (``module_constants``), None where it is not Python a bounded walk reads."""
    if beyond(text, MAX_TOKENS) is not None:
        return None
    try:
        return module_constants(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Reader(CallReader):
    """Metaflow steps, Flyte tasks and KFP tasks; docker SDK calls go to ``shmlint.formats.python.docker_sdk``,
    SageMaker local-mode estimators to ``shmlint.formats.python.sagemaker_local``."""

    # -- the launchers -----------------------------------------------------------------------------------------

    def workloads(self) -> Iterator[Workload]:
        docker = DockerSdk(self)
        pods = PodOperator(self)
        sagemaker = SageMakerLocal(self) if "sagemaker" in self.source.text else None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self.metaflow(node)
                yield from self.flyte(node)
            elif isinstance(node, ast.Call) and method_name(node) in ("run", "create"):
                yield from docker.workloads(node)
            elif isinstance(node, ast.Call) and called_name(node) == "DockerOperator":
                yield from docker.operator(node)
            elif isinstance(node, ast.Call) and called_name(node) == "KubernetesPodOperator":
                yield from pods.workloads(node)
            elif isinstance(node, ast.Call) and sagemaker is not None and node.keywords:
                yield from sagemaker.workloads(node)
        yield from self.kfp()
        if STARTS_A_RUN.search(self.source.text) is not None:
            yield from self.shell_runs()

    def shell_runs(self) -> Iterator[Workload]:
        """Container runs the code starts through a process or a shell (``shmlint.formats.python.shell_runs``),
        read as command lines at their offsets; one built as a list gets no fix (a new option is no list item)."""
        runs = ShellRuns(self)
        masked = runs.read()
        if masked is None:
            return
        for workload in extract_commands(self.source, ShellText(masked), self.signals):
            listed = any(start <= workload.span.start < end for start, end in runs.lists)
            yield workload._replace(target=None) if listed else workload

    def metaflow(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Workload]:
        decorators = [(d, name) for d in function.decorator_list if (name := called_name(d)) in METAFLOW_COMPUTE]
        if not decorators or not any(called_name(d) == "step" for d in function.decorator_list):
            return
        gpu: list[Evidence] = []
        torch: list[Evidence] = []
        shm: list[ShmSource] = []
        memory: Size | None = None
        image_name: str | None = None
        counts: list[int] = []  # GPUs per decorator's gpu=N, for the multi-GPU tier
        layer = next((name for _, name in decorators if name != "resources"), "resources")
        for decorator, name in decorators:
            options = self.keywords(decorator) if isinstance(decorator, ast.Call) else {}
            if self.positive(options.get("gpu")):
                gpu.append(Evidence(f"@{name}(gpu={self.text(options['gpu'].node)})", self.span(decorator)))
                counts += device_counts(options["gpu"])
            image = options.get("image")
            if image is not None and isinstance(image.value, str):
                image_name = image.value
                if self.signals.is_torch_image(image.value):
                    torch.append(Evidence(f"image {image.value}", self.span(image.node)))
            if "shared_memory" in options:
                arg = options["shared_memory"]
                mechanism = ShmMechanism.TMPFS_MOUNT if layer == "kubernetes" else ShmMechanism.NAMESPACE_SIZE
                description = f"@{name}(shared_memory=...)"
                shm.append(
                    ShmSource(ShmKind.MEMORY, mechanism, self.span(arg.node), description, self.size(arg, "mib"))
                )
            if "memory" in options and options["memory"].value is not UNKNOWN:
                memory = self.size(options["memory"], "mib")
            if isinstance(decorator, ast.Call):
                shm.extend(self.spread(decorator))
        chosen = next((d for d, name in decorators if name == layer), decorators[0][0])
        gpus = max(counts) if counts else None
        yield Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "Metaflow step", function.name, "", f"@{layer}"),
            span=self.span(chosen),
            gpu=tuple(gpu),
            torch=tuple(torch),
            shm=tuple(shm),
            memory_limit=memory,
            target=self.call_target(chosen, "shared_memory", "mib"),
            image=image_name,
            # Metaflow starts the step's own code in the image (``python flow.py ... step``), never its
            # entrypoint: the software the image is named for is no evidence (audit59b: a DeepSpeed image on CPU
            # and download steps), unless the configuration names the image
            image_runs=False,
            accelerator_count=gpus,
            launched_by=self.metaflow_processes(function, gpus or 0) if gpu else None,
        )

    def metaflow_processes(self, function: ast.FunctionDef | ast.AsyncFunctionDef, gpus: int) -> str | None:
        """Several local processes that a Metaflow launcher extension starts in a GPU step's container: ``@deepspeed``
        one per GPU the step asks for (outerbounds/metaflow-deepspeed's decorator takes ``n_slots`` from ``gpu`` and
        passes ``--num_gpus n_slots``), or a ``run(...)`` call in the step that says how many
        (``current.torch.run(nproc_per_node=8)``, ``torchrun_args={"nproc_per_node": 8}``: metaflow-torchrun's
        default is 1; ``deepspeed_args=["--num_gpus=6"]``). NCCL between them uses /dev/shm."""
        if gpus >= 2 and any(called_name(d) == "deepspeed" for d in function.decorator_list):
            return f"Metaflow's @deepspeed: one DeepSpeed process per GPU of the step, {gpus} with NCCL between them"
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and method_name(node) == "run":
                count = self.local_processes(node)
                if count >= 2:
                    return f"{self.text(node.func)}(... {count} local processes) with NCCL between them"
        return None

    def local_processes(self, call: ast.Call) -> int:
        """The local processes a launcher extension's ``run`` call asks for (0 when it says none)."""
        options = self.keywords(call)
        counted = [options["nproc_per_node"].value] if "nproc_per_node" in options else []
        for key in ("torchrun_args", "deepspeed_args"):
            arg = options.get(key)
            if arg is not None and isinstance(arg.node, ast.Dict):
                counted += [
                    self.value(value)
                    for name, value in zip(arg.node.keys, arg.node.values, strict=True)
                    if name is not None and self.value(name) in ("nproc_per_node", "num_gpus")
                ]
            elif arg is not None and isinstance(arg.node, ast.List | ast.Tuple):
                values = [self.value(item) for item in arg.node.elts]
                counted += [
                    value.partition("=")[2]
                    for value in values
                    if isinstance(value, str) and value.partition("=")[0] in _COUNT_OPTIONS and "=" in value
                ]
                counted += [after for word, after in pairwise(values) if word in _COUNT_OPTIONS]
        numbers = [count for value in counted if (count := _count(value)) is not None]
        return max(numbers, default=0)

    def flyte(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Workload]:
        decorator = next((d for d in function.decorator_list if called_name(d) == "task"), None)
        if decorator is None or not isinstance(decorator, ast.Call):
            return  # a bare @task asks for no GPU
        options = self.keywords(decorator)
        gpu: list[Evidence] = []
        counts: list[int] = []  # GPUs per Resources(gpu=N), for the multi-GPU tier
        memory: Size | None = None
        for key in FLYTE_GPU_RESOURCES:
            resources = options.get(key)
            if resources is None or not isinstance(resources.node, ast.Call):
                continue
            inner = self.keywords(resources.node)
            if self.positive(inner.get("gpu")) or _first(inner.get("gpu")):
                gpu.append(Evidence(f"{key}=Resources(gpu={self.text(inner['gpu'].node)})", self.span(resources.node)))
                counts += device_counts(inner["gpu"])
            if key != "requests" and "mem" in inner and isinstance(inner["mem"].value, str):
                memory = self.size(inner["mem"], sizes.KUBERNETES)
        if "accelerator" in options:
            gpu.append(
                Evidence(
                    f"accelerator={self.text(options['accelerator'].node)}", self.span(options["accelerator"].node)
                )
            )
        if not gpu:
            return
        shm = list(self.spread(decorator))
        managed = None
        config = options.get("task_config")
        if config is not None and isinstance(config.node, ast.Call) and called_name(config.node) in FLYTE_TORCH_CONFIGS:
            increase = self.keywords(config.node).get("increase_shared_mem")
            if increase is None or increase.value is not False:
                managed = "flytekit's PyTorch plugin (increase_shared_mem)"
        if "shared_memory" in options:
            shm.append(self.flyte_shared_memory(options["shared_memory"]))
        if "pod_template" in options:
            template = options["pod_template"]
            description = f"pod_template={self.text(template.node)}"
            shm.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.MERGED_SPEC, self.span(template.node), description))
        yield Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "Flyte task", function.name, "", "@task"),
            span=self.span(decorator),
            gpu=tuple(gpu),
            shm=tuple(shm),
            memory_limit=memory,
            shm_managed_by=managed,
            target=self.call_target(decorator, "shared_memory", sizes.KUBERNETES),
            accelerator_count=max(counts) if counts else None,
        )

    def flyte_shared_memory(self, arg: Arg) -> ShmSource:
        span = self.span(arg.node)
        if arg.value is True:  # sized like the task's memory limit: bounded only by it
            return ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "shared_memory=True")
        if arg.value is False or arg.value is None:
            return ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, f"shared_memory={self.text(arg.node)}")
        return ShmSource(
            ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "shared_memory", self.size(arg, sizes.KUBERNETES)
        )

    def kfp(self) -> Iterator[Workload]:
        """Per function scope: tasks given an accelerator, and the /dev/shm mounts made on them by name. A file
        that defines the accelerator methods is the SDK's own implementation (its ``self.set_accelerator_type``
        calls configure no task), and a call on ``self`` or ``cls`` is a method calling its class, not a task."""
        functions = [n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        if any(function.name in KFP_ACCELERATOR for function in functions):
            return
        scopes: list[ast.AST] = [self.tree, *functions]
        for scope in scopes:
            accelerated: dict[str, list[ast.Call]] = {}
            mounts: dict[str, list[ast.Call]] = {}
            volumes: dict[str, list[ast.Call]] = {}  # KFP v1's ContainerOp volume calls
            chains = _chain_names(scope)
            for node in _own_nodes(scope):
                if not isinstance(node, ast.Call):
                    continue
                method = method_name(node)
                if method in KFP_ACCELERATOR:
                    task = chains.get(id(node)) or _task_key(node)
                    if task is not None and task not in ("self", "cls"):
                        accelerated.setdefault(task, []).append(node)
                elif called_name(node) == "empty_dir_mount" and node.args and isinstance(node.args[0], ast.Name):
                    mounts.setdefault(node.args[0].id, []).append(node)
                elif method in KFP_V1_VOLUMES:
                    task = chains.get(id(node)) or _task_key(node)
                    if task is not None:
                        volumes.setdefault(task, []).append(node)
            made_by = self.kfp_components and accelerated  # the file's components: which one made each task
            assigned = _assignments(scope) if made_by else {}
            for task, calls in accelerated.items():
                task_volumes = volumes.get(task, [])
                workload = self.kfp_task(task, calls, mounts.get(task, []), self.kfp_v1_shm(task_volumes))
                component = self.kfp_components.get(_factory(calls[0], assigned) or "") if made_by else None
                yield self.kfp_component(workload, component) if component is not None else workload

    def kfp_v1_shm(self, calls: list[ast.Call]) -> list[ShmSource]:
        """The /dev/shm a KFP v1 ``ContainerOp`` is given: ``add_pvolumes({"/dev/shm": volume})``, a
        ``PipelineVolume`` (a name the module assigns once too), or an ``add_volume_mount`` at /dev/shm of the
        volume of that name an ``add_volume`` gives the task (``k8s_objects``). An ``empty_dir`` of the ``Memory``
        medium is a Memory emptyDir (sized by its ``size_limit``/``sizeLimit``), another one disk; any other volume
        is not understood (a claim, a value made elsewhere), never the 64 MiB default."""
        found: list[ShmSource] = []
        for call in calls:
            if method_name(call) != "add_pvolumes" or not call.args or not isinstance(call.args[0], ast.Dict):
                continue
            for key, value in zip(call.args[0].keys, call.args[0].values, strict=True):
                path = self.value(key) if key is not None else UNKNOWN
                if isinstance(path, str) and is_shm_path(path):
                    held = self.module_expressions.get(value.id) if isinstance(value, ast.Name) else value
                    found.append(self.pipeline_volume(held, call))
        volumes = [c.args[0] for c in calls if method_name(c) == "add_volume" and c.args]
        mounts = [c.args[0] for c in calls if method_name(c) == "add_volume_mount" and c.args]
        found += mounted_shm(self, volumes, mounts, "add_volume_mount /dev/shm")
        return found

    def pipeline_volume(self, volume: ast.expr | None, call: ast.Call) -> ShmSource:
        """A ``PipelineVolume`` at /dev/shm: its ``volume=V1Volume(...)`` read as a client volume, else its
        ``empty_dir={...}`` dict."""
        inner = (
            next((k.value for k in volume.keywords if k.arg == "volume"), None)
            if isinstance(volume, ast.Call)
            else None
        )
        if inner is None and isinstance(volume, ast.Call):
            inner = volume  # ``PipelineVolume(empty_dir={"medium": "Memory"})`` has the fields of a volume itself
        return volume_source(self, inner, call, "add_pvolumes /dev/shm")

    @functools.cached_property
    def kfp_components(self) -> dict[str, ast.FunctionDef]:
        """The file's KFP lightweight components (``@dsl.component``, ``@component``): the function's own code is
        what runs in the container of a task made from it."""
        return {
            node.name: node
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef) and any(called_name(d) == "component" for d in node.decorator_list)
        }

    def kfp_component(self, workload: Workload, component: ast.FunctionDef) -> Workload:
        """A task made from one of the file's components: its ``base_image`` is the image, and the function's
        code is the program it runs, read as ``python -c`` code is, its lines numbered as the file's (audit66a and
        audit68b: an Ultralytics ``train(workers=4)`` in the component was not read)."""
        decorator = next(d for d in component.decorator_list if called_name(d) == "component")
        options = self.keywords(decorator) if isinstance(decorator, ast.Call) else {}
        image_name = text_value(options.get("base_image"))
        code = ast.get_source_segment(self.source.text, component) or ""
        code = "\n" * (component.lineno - 1) + code if code else ""  # its lines numbered as the file's
        torch = []
        if image_name is not None and self.signals.is_torch_image(image_name):
            torch.append(Evidence(f"base_image {image_name}", self.span(options["base_image"].node)))
        launch = Launch(base_dir(self.source.path), (), ("python", "-c", f"{code}\n{component.name}()\n"))
        return workload._replace(image=image_name, torch=(*workload.torch, *torch), launch=launch if code else None)

    def kfp_task(
        self, task: str, calls: list[ast.Call], mounts: list[ast.Call], v1_shm: list[ShmSource] | None = None
    ) -> Workload:
        gpu = []
        counts: list[int] = []  # the accelerator limit, for the multi-GPU tier
        for call in calls:
            arg = Arg(call.args[0], self.value(call.args[0])) if call.args else None
            if method_name(call) == "set_accelerator_type" or self.positive(arg):
                gpu.append(Evidence(f"{method_name(call)}({self.text(arg.node) if arg else ''})", self.span(call)))
            if arg is not None and method_name(call) != "set_accelerator_type":
                counts += device_counts(arg)
        shm: list[ShmSource] = []
        for mount in mounts:
            options = self.keywords(mount)
            path = options.get("mount_path") or (
                Arg(mount.args[2], self.value(mount.args[2])) if len(mount.args) > 2 else None
            )
            if path is None or path.value is UNKNOWN:
                shm.append(
                    ShmSource(
                        ShmKind.UNKNOWN,
                        ShmMechanism.EXPANSION,
                        self.span(mount),
                        "empty_dir_mount (path resolved at run time)",
                    )
                )
                continue
            if not (isinstance(path.value, str) and is_shm_path(path.value)):
                continue
            medium = options.get("medium")
            size = options.get("size_limit")
            if medium is not None and medium.value == "Memory":
                sized = self.size(size, sizes.KUBERNETES) if size is not None else None
                shm.append(
                    ShmSource(
                        ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, self.span(mount), "empty_dir_mount /dev/shm", sized
                    )
                )
            elif medium is not None and medium.value is UNKNOWN:
                shm.append(
                    ShmSource(
                        ShmKind.UNKNOWN,
                        ShmMechanism.EXPANSION,
                        self.span(mount),
                        "empty_dir_mount (medium resolved at run time)",
                    )
                )
            else:
                shm.append(
                    ShmSource(
                        ShmKind.DISK, ShmMechanism.VOLUME, self.span(mount), "empty_dir_mount without medium Memory"
                    )
                )
        shm += v1_shm or []
        return Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "KFP task", task, "", "task"),
            span=self.span(calls[0]),
            gpu=tuple(gpu),
            shm=tuple(shm),
            accelerator_count=max(counts) if counts else None,
        )


def _count(value: object) -> int | None:
    """A process count written as a literal (``8``, ``"8"``); None for anything else."""
    if isinstance(value, str):
        return ascii_int(value, maximum=MAX_PROCESSES)
    return bounded_int(value, maximum=MAX_PROCESSES)


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one scope, without descending into nested functions (they are scopes of their own)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


def _assignments(scope: ast.AST) -> dict[str, ast.expr]:
    """What each name the scope's own statements assign holds (the last ``name = value``), for ``_factory``."""
    return {
        node.targets[0].id: node.value
        for node in _own_nodes(scope)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    }


def _factory(call: ast.Call, assigned: dict[str, ast.expr]) -> str | None:
    """The function a configured task is made by (``train(...)`` in ``t = train(...)`` then
    ``t.set_gpu_limit(1)``, or ``train(...).set_gpu_limit(1)``), through the scope's assignments, a few deep."""
    node: ast.expr = call.func.value if isinstance(call.func, ast.Attribute) else call
    for _ in range(8):
        if isinstance(node, ast.Attribute) and node.attr == "container":
            node = node.value  # ``t.container.set_gpu_limit(1)``: the task's container
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _configures(node.func.attr):
            node = node.func.value
        elif isinstance(node, ast.Name) and node.id in assigned:
            node = assigned[node.id]
        else:
            break
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None


def _task_key(call: ast.Call) -> str | None:
    """The task a ``.set_accelerator_limit(...)`` chain configures: a variable name, or the call that makes the
    task (``train_op(...).set_gpu_limit(1)``), named by its line."""
    node = call.func.value if isinstance(call.func, ast.Attribute) else call
    if isinstance(node, ast.Attribute) and node.attr == "container":
        node = node.value  # ``t.container.set_gpu_limit(1)``: KFP v2's task's container settings
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _configures(node.func.attr):
        node = node.func.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return f"{called_name(node) or 'task'} (line {node.lineno})"
    return None


def _configures(method: str) -> bool:
    """A PipelineTask method that returns the task it configures (``set_...``, ``add_...``, ``after``)."""
    return method.startswith(("set_", "add_")) or method == "after"


def _chain_names(scope: ast.AST) -> dict[int, str]:
    """``task = op(...).set_gpu_limit(1)``: every call of the chain is the task named ``task``."""
    names: dict[int, str] = {}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value: ast.expr = node.value
            while isinstance(value, ast.Call):
                names[id(value)] = node.targets[0].id
                if not isinstance(value.func, ast.Attribute):
                    break
                value = value.func.value
    return names


def _first(arg: Arg | None) -> bool:
    """A Flyte GPU given as ``(request, limit)``: positive when its first element is."""
    if arg is None or not isinstance(arg.node, ast.Tuple | ast.List) or not arg.node.elts:
        return False
    first = arg.node.elts[0]
    if not isinstance(first, ast.Constant):
        return False
    value = first.value
    count = ascii_int(value) if isinstance(value, str) else bounded_int(value)
    return bool(count)
