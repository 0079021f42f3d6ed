"""Python launchers -> one Workload per GPU step, task or container they start, read with ``ast`` (never run).

- Metaflow: a step decorated ``@batch``, ``@kubernetes`` or ``@resources`` (``gpu=``, ``shared_memory=`` and
  ``memory=`` in MiB). Without ``shared_memory`` Metaflow sets nothing (``defaults`` in
  ``metaflow/plugins/aws/batch/batch_decorator.py`` and ``.../kubernetes/kubernetes_decorator.py``), so the
  runtime's 64 MiB applies.
- Kubeflow Pipelines v2: a task given ``set_accelerator_limit``/``set_gpu_limit``/``set_accelerator_type``, and
  the ``kfp.kubernetes.empty_dir_mount(task, ..., mount_path="/dev/shm", medium="Memory")`` calls on it.
- Flyte: ``@task`` with a GPU in ``requests``/``limits``/``resources`` (``Resources(gpu=...)``) or an
  ``accelerator``, and its ``shared_memory`` option (``True``: sized like the memory limit; ``"8Gi"``).
- The docker SDK: ``containers.run(...)``/``containers.create(...)`` with a GPU ``DeviceRequest`` or runtime, and
  ``shm_size``/``ipc_mode``/``tmpfs``/``mem_limit``.

Module-level ``NAME = literal`` constants are resolved; any other expression is unknown, which lowers a finding
to a warning where it could carry a size. Positions are character offsets (``ast`` columns are UTF-8 bytes).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from shmlint import sizes
from shmlint.model import Evidence, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_INT, ascii_int, bounded_int
from shmlint.parsers.work import TOO_COMPLEX, beyond
from shmlint.runtime import nccl
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import MAX_DEVICES, Signals, device_count, positive_count
from shmlint.source import SourceText, Span
from shmlint.targets import CallTarget

#: more syntax nodes than any real launcher module; a larger file is refused as too complex, not walked
MAX_NODES = 200_000
#: the most tokens (``parsers.work``) handed to ``ast.parse``: about 1 MB of ordinary code, 100 MB of nodes
MAX_TOKENS = 200_000
#: the most MiB a size may name (docker and Kubernetes keep bytes in an int64)
MAX_MIB = MAX_INT // sizes.MIB
METAFLOW_COMPUTE = ("batch", "kubernetes", "resources")
KFP_ACCELERATOR = ("set_accelerator_limit", "set_gpu_limit", "set_accelerator_type")
FLYTE_GPU_RESOURCES = ("requests", "limits", "resources")
FLYTE_TORCH_CONFIGS = ("PyTorch", "Elastic")  # flytekitplugins-kfpytorch: a Memory /dev/shm unless told otherwise
_UNKNOWN = object()


class PythonError(Exception):
    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


class _Arg(NamedTuple):
    """A keyword argument: its node and its value when literal or a resolved constant (else ``_UNKNOWN``)."""

    node: ast.expr
    value: object


def extract_python(source: SourceText, signals: Signals) -> list[Workload]:
    """Raises ``PythonError`` for a file that is not Python or is too large to walk."""
    too_many = beyond(source.text, MAX_TOKENS)
    if too_many is not None:  # ast.parse builds every node first: 1 MB of "1," took 10 s and 527 MB
        line, column = source.position(too_many)
        raise PythonError(f"{TOO_COMPLEX} (more than {MAX_TOKENS:,} tokens; split the file)", line, column, too_many)
    try:
        tree = ast.parse(source.text)
    except SyntaxError as exc:
        line, column = exc.lineno or 1, exc.offset or 1
        raise PythonError(f"invalid Python: {exc.msg}", line, column, _safe_offset(source, line)) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise PythonError(f"invalid Python: {type(exc).__name__}", 1, 1, 0) from None
    if sum(1 for _ in zip(ast.walk(tree), range(MAX_NODES + 1), strict=False)) > MAX_NODES:
        raise PythonError(f"too complex to check: more than {MAX_NODES:,} syntax nodes (split the file)", 1, 1, 0)
    return list(_Reader(source, signals, tree).workloads())


def _safe_offset(source: SourceText, line: int) -> int:
    starts = source.line_starts
    return starts[min(max(line, 1), len(starts)) - 1] if starts else 0


class _Reader:
    def __init__(self, source: SourceText, signals: Signals, tree: ast.Module) -> None:
        self.source, self.signals, self.tree = source, signals, tree
        self.constants = _module_constants(tree)
        self.lines = source.text.splitlines(keepends=True)

    # -- positions ---------------------------------------------------------------------------------------------

    def offset(self, line: int, column: int) -> int:
        """A character offset from ``ast``'s line and UTF-8 byte column."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        prefix = text.encode("utf-8", "surrogateescape")[:column].decode("utf-8", "surrogateescape")
        return _safe_offset(self.source, line) + len(prefix)

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]

    def span(self, node: ast.AST) -> Span:
        return self.source.span(self.start(node), self.end(node))

    def text(self, node: ast.AST) -> str:
        return self.source.text[self.start(node) : self.end(node)]

    # -- values --------------------------------------------------------------------------------------------------

    def value(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            operand = node.operand.value
            return -operand if isinstance(operand, int | float) and not isinstance(operand, bool) else _UNKNOWN
        if isinstance(node, ast.Name):
            return self.constants.get(node.id, _UNKNOWN)
        return _UNKNOWN

    def keywords(self, call: ast.Call) -> dict[str, _Arg]:
        return {k.arg: _Arg(k.value, self.value(k.value)) for k in call.keywords if k.arg is not None}

    def spread(self, call: ast.Call) -> Iterator[ShmSource]:
        """``**options`` in a call may carry the shm setting: an unknown source, which lowers a finding."""
        for keyword in call.keywords:
            if keyword.arg is None:
                description = f"**{self.text(keyword.value)} (resolved at run time)"
                yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, self.span(keyword), description)

    def size(self, arg: _Arg, dialect: str) -> Size:
        """A size in ``dialect``: ``mib`` (an integer of MiB), ``kubernetes`` or ``docker`` (int: bytes)."""
        span, text, value = self.span(arg.node), self.text(arg.node), arg.value
        if value is _UNKNOWN:
            return Size(text, None, span, dialect)
        if dialect == "mib":
            mib = (
                bounded_int(value, maximum=MAX_MIB) if not isinstance(value, str) else ascii_int(value, maximum=MAX_MIB)
            )
            if mib:
                return Size(text, mib * sizes.MIB, span, dialect)
            return Size(text, None, span, dialect, f"{text} is not a whole number of MiB (e.g. 8192)")
        if isinstance(value, int) and not isinstance(value, bool) and bounded_int(value) is None:
            return Size(text, None, span, dialect, f"{text[:40]} is out of range")
        if isinstance(value, int) and not isinstance(value, bool) and dialect == sizes.DOCKER:
            return Size(text, value, span, dialect)  # the docker SDK reads an integer as bytes
        if not isinstance(value, str | int) or isinstance(value, bool):
            return Size(text, None, span, dialect, f"{text} is not a size")
        parsed = sizes.parse(str(value), dialect)
        return Size(text, parsed.bytes, span, dialect, parsed.error, parsed.suggestion)

    def positive(self, arg: _Arg | None) -> bool:
        if arg is None or arg.value is _UNKNOWN or arg.value is None or isinstance(arg.value, bool):
            return False
        value = arg.value
        if isinstance(value, int | float):
            return value > 0  # a number from the source, however large: no str() of it (5000 digits raise)
        return isinstance(value, str) and positive_count(value)

    # -- the launchers -----------------------------------------------------------------------------------------

    def workloads(self) -> Iterator[Workload]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self.metaflow(node)
                yield from self.flyte(node)
            elif isinstance(node, ast.Call) and _method(node) in ("run", "create"):
                yield from self.docker(node)
        yield from self.kfp()

    def metaflow(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Workload]:
        decorators = [(d, name) for d in function.decorator_list if (name := _called_name(d)) in METAFLOW_COMPUTE]
        if not decorators or not any(_called_name(d) == "step" for d in function.decorator_list):
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
                counts += _counts(options["gpu"])
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
            if "memory" in options and options["memory"].value is not _UNKNOWN:
                memory = self.size(options["memory"], "mib")
            if isinstance(decorator, ast.Call):
                shm.extend(self.spread(decorator))
        chosen = next((d for d, name in decorators if name == layer), decorators[0][0])
        yield Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "Metaflow step", function.name, "", f"@{layer}"),
            span=self.span(chosen),
            gpu=tuple(gpu),
            torch=tuple(torch),
            shm=tuple(shm),
            memory_limit=memory,
            target=self.call_target(chosen, "shared_memory", "mib"),
            image=image_name,
            accelerator_count=max(counts) if counts else None,
        )

    def flyte(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[Workload]:
        decorator = next((d for d in function.decorator_list if _called_name(d) == "task"), None)
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
                counts += _counts(inner["gpu"])
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
        if (
            config is not None
            and isinstance(config.node, ast.Call)
            and _called_name(config.node) in FLYTE_TORCH_CONFIGS
        ):
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

    def flyte_shared_memory(self, arg: _Arg) -> ShmSource:
        span = self.span(arg.node)
        if arg.value is True:  # sized like the task's memory limit: bounded only by it
            return ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "shared_memory=True")
        if arg.value is False or arg.value is None:
            return ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, f"shared_memory={self.text(arg.node)}")
        return ShmSource(
            ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "shared_memory", self.size(arg, sizes.KUBERNETES)
        )

    def docker(self, call: ast.Call) -> Iterator[Workload]:
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not (isinstance(receiver, ast.Attribute) and receiver.attr == "containers"):
            return
        options = self.keywords(call)
        gpu = list(self.docker_gpu(options))
        image = options.get("image") or (_Arg(call.args[0], self.value(call.args[0])) if call.args else None)
        torch: list[Evidence] = []
        if image is not None and isinstance(image.value, str) and self.signals.is_torch_image(image.value):
            torch.append(Evidence(f"image {image.value}", self.span(image.node)))
        command = options.get("command") or (
            _Arg(call.args[1], self.value(call.args[1])) if len(call.args) > 1 else None
        )
        words = _words(command, self) if command is not None else []
        launcher = self.signals.torch_command(" ".join(words))
        if launcher and command is not None:
            torch.append(Evidence(f"command {launcher}", self.span(command.node)))
        shm = list(self.docker_shm(options)) + list(self.spread(call))
        memory = options.get("mem_limit")
        yield Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "docker SDK", f"containers.{_method(call)}", "", "container"),
            span=self.span(call),
            gpu=tuple(gpu),
            torch=tuple(torch),
            shm=tuple(shm),
            memory_limit=self.size(memory, sizes.DOCKER) if memory is not None else None,
            nccl_shm_disabled=self.docker_nccl(options),
            target=self.call_target(call, "shm_size", sizes.DOCKER),
            image=image.value if image is not None and isinstance(image.value, str) else None,
            command=" ".join(words),
        )

    def docker_gpu(self, options: dict[str, _Arg]) -> Iterator[Evidence]:
        requests = options.get("device_requests")
        for node in ast.walk(requests.node) if requests is not None else ():
            if isinstance(node, ast.Call) and _called_name(node) == "DeviceRequest":
                inner = self.keywords(node)
                capabilities = inner.get("capabilities")
                driver = inner.get("driver")
                if (capabilities is not None and "gpu" in _flat_strings(capabilities.node)) or (
                    driver is not None and driver.value == "nvidia"
                ):
                    yield Evidence(f"device_requests {self.text(node)}", self.span(node))
        runtime = options.get("runtime")
        if runtime is not None and isinstance(runtime.value, str) and self.signals.is_gpu_runtime(runtime.value):
            yield Evidence(f"runtime={runtime.value}", self.span(runtime.node))
        for key, value, node in self.environment(options):
            if self.signals.is_gpu_env(key, value):
                yield Evidence(f"environment {key}={value}", self.span(node))

    def environment(self, options: dict[str, _Arg]) -> Iterator[tuple[str, str, ast.expr]]:
        env = options.get("environment")
        if env is None:
            return
        if isinstance(env.node, ast.Dict):
            for key, value in zip(env.node.keys, env.node.values, strict=True):
                name, setting = (self.value(key) if key is not None else None), self.value(value)
                if isinstance(name, str) and isinstance(setting, str | int):
                    yield name, str(setting), value
        elif isinstance(env.node, ast.List | ast.Tuple):
            for element in env.node.elts:
                text = self.value(element)
                if isinstance(text, str) and "=" in text:
                    name, _, setting = text.partition("=")
                    yield name, setting, element

    def docker_nccl(self, options: dict[str, _Arg]) -> Evidence | None:
        for key, value, node in self.environment(options):
            if key == nccl.SHM_DISABLE and nccl.disables_shm(value):
                return Evidence(f"environment {key}={value}", self.span(node))
        return None

    def docker_shm(self, options: dict[str, _Arg]) -> Iterator[ShmSource]:
        if "shm_size" in options:
            arg = options["shm_size"]
            size = self.size(arg, sizes.DOCKER)
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, self.span(arg.node), "shm_size", size)
        if "ipc_mode" in options:
            arg = options["ipc_mode"]
            kind = ipc_mode(arg.value).kind if isinstance(arg.value, str) else ShmKind.UNKNOWN
            if kind is not None:
                yield ShmSource(kind, ShmMechanism.IPC_MODE, self.span(arg.node), f"ipc_mode={self.text(arg.node)}")
        tmpfs = options.get("tmpfs")
        if tmpfs is not None and isinstance(tmpfs.node, ast.Dict):
            for key, value in zip(tmpfs.node.keys, tmpfs.node.values, strict=True):
                path = self.value(key) if key is not None else None
                if isinstance(path, str) and is_shm_path(path):
                    yield ShmSource(
                        ShmKind.MEMORY,
                        ShmMechanism.TMPFS_OPTION,
                        self.span(value),
                        "tmpfs /dev/shm",
                        self.tmpfs_size(value),
                    )

    def tmpfs_size(self, node: ast.expr) -> Size | None:
        options = self.value(node)
        if not isinstance(options, str):
            return Size(self.text(node), None, self.span(node), sizes.DOCKER)
        for option in options.split(","):
            key, _, setting = option.partition("=")
            if key.strip() == "size":
                parsed = sizes.parse_docker(setting)
                return Size(setting, parsed.bytes, self.span(node), sizes.DOCKER, parsed.error, parsed.suggestion)
        return None

    def kfp(self) -> Iterator[Workload]:
        """Per function scope: tasks given an accelerator, and the /dev/shm mounts made on them by name."""
        scopes: list[ast.AST] = [self.tree] + [
            n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for scope in scopes:
            accelerated: dict[str, list[ast.Call]] = {}
            mounts: dict[str, list[ast.Call]] = {}
            chains = _chain_names(scope)
            for node in _own_nodes(scope):
                if not isinstance(node, ast.Call):
                    continue
                method = _method(node)
                if method in KFP_ACCELERATOR:
                    task = chains.get(id(node)) or _task_key(node)
                    if task is not None:
                        accelerated.setdefault(task, []).append(node)
                elif _called_name(node) == "empty_dir_mount" and node.args and isinstance(node.args[0], ast.Name):
                    mounts.setdefault(node.args[0].id, []).append(node)
            for task, calls in accelerated.items():
                yield self.kfp_task(task, calls, mounts.get(task, []))

    def kfp_task(self, task: str, calls: list[ast.Call], mounts: list[ast.Call]) -> Workload:
        gpu = []
        counts: list[int] = []  # the accelerator limit, for the multi-GPU tier
        for call in calls:
            arg = _Arg(call.args[0], self.value(call.args[0])) if call.args else None
            if _method(call) == "set_accelerator_type" or self.positive(arg):
                gpu.append(Evidence(f"{_method(call)}({self.text(arg.node) if arg else ''})", self.span(call)))
            if arg is not None and _method(call) != "set_accelerator_type":
                counts += _counts(arg)
        shm: list[ShmSource] = []
        for mount in mounts:
            options = self.keywords(mount)
            path = options.get("mount_path") or (
                _Arg(mount.args[2], self.value(mount.args[2])) if len(mount.args) > 2 else None
            )
            if path is None or path.value is _UNKNOWN:
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
            elif medium is not None and medium.value is _UNKNOWN:
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
        return Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "KFP task", task, "", "task"),
            span=self.span(calls[0]),
            gpu=tuple(gpu),
            shm=tuple(shm),
            accelerator_count=max(counts) if counts else None,
        )

    def call_target(self, node: ast.expr, keyword: str, unit: str) -> CallTarget:
        """Before the closing parenthesis of a call; for a bare decorator (``@batch``), right after its name."""
        end = self.end(node)
        return CallTarget(end - 1 if isinstance(node, ast.Call) else end, keyword, unit)


def _module_constants(tree: ast.Module) -> dict[str, object]:
    """``NAME = literal`` at module level, assigned once; a name assigned twice is not a constant."""
    found: dict[str, object] = {}
    assigned: set[str] = set()
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if target.id in assigned:
                found.pop(target.id, None)
                continue
            assigned.add(target.id)
            if isinstance(value, ast.Constant):
                found[target.id] = value.value
    return found


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one scope, without descending into nested functions (they are scopes of their own)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


def _called_name(node: ast.expr) -> str | None:
    """``batch`` for ``@batch``, ``@batch(...)``, ``@metaflow.batch(...)``."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _task_key(call: ast.Call) -> str | None:
    """The task a ``.set_accelerator_limit(...)`` chain configures: a variable name, or the call that makes the
    task (``train_op(...).set_gpu_limit(1)``), named by its line."""
    node = call.func.value if isinstance(call.func, ast.Attribute) else call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _configures(node.func.attr):
        node = node.func.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return f"{_called_name(node) or 'task'} (line {node.lineno})"
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


def _counts(arg: _Arg) -> list[int]:
    """The device count a literal ``gpu=2`` / ``"2"`` / ``set_accelerator_limit(2)`` names; none when unknown."""
    value = arg.value
    if isinstance(value, bool) or not isinstance(value, int | str):
        return []
    count = device_count(value) if isinstance(value, str) else bounded_int(value, maximum=MAX_DEVICES)
    return [count] if count is not None else []


def _first(arg: _Arg | None) -> bool:
    """A Flyte GPU given as ``(request, limit)``: positive when its first element is."""
    if arg is None or not isinstance(arg.node, ast.Tuple | ast.List) or not arg.node.elts:
        return False
    first = arg.node.elts[0]
    if not isinstance(first, ast.Constant):
        return False
    value = first.value
    count = ascii_int(value) if isinstance(value, str) else bounded_int(value)
    return bool(count)


def _flat_strings(node: ast.expr) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _words(command: _Arg, reader: _Reader) -> list[str]:
    """A command as words: a string split on spaces, or a list of literal strings."""
    if isinstance(command.value, str):
        return command.value.split()
    if isinstance(command.node, ast.List | ast.Tuple):
        return [word for element in command.node.elts if isinstance(word := reader.value(element), str)]
    return []
