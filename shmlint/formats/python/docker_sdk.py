"""The docker SDK's ``client.containers.run(...)``/``.create(...)`` (and Airflow's ``DockerOperator``, which
passes the same options on to it) read into the docker options judge's view
(``shmlint.containers.docker``): ``shm_size``, ``ipc_mode``, ``tmpfs``, ``mem_limit``, a GPU ``DeviceRequest`` or
runtime, ``environment``, and what it starts (``command``, ``entrypoint``, ``working_dir``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers import base_dir
from shmlint.containers.docker import (
    ENV,
    GPU,
    IPC,
    MOUNT,
    RUNTIME,
    SHM_SIZE,
    TMPFS,
    DockerOptions,
    Setting,
    judge_docker,
    tmpfs_size,
)
from shmlint.formats.python.calls import (
    Arg,
    CallReader,
    called_name,
    command_words,
    flat_strings,
    method_name,
    text_value,
)
from shmlint.model import Workload, WorkloadFormat, WorkloadId
from shmlint.runtime.shm import is_shm_path


class DockerSdk:
    """Reads docker SDK calls through a module's ``CallReader``."""

    def __init__(self, reader: CallReader) -> None:
        self.reader = reader

    def workloads(self, call: ast.Call) -> Iterator[Workload]:
        """The docker SDK's ``containers.run``/``create``, read into the docker options judge's view."""
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if not (isinstance(receiver, ast.Attribute) and receiver.attr == "containers"):
            return
        options = self.reader.keywords(call)
        image = options.get("image") or (Arg(call.args[0], self.reader.value(call.args[0])) if call.args else None)
        command = options.get("command") or (
            Arg(call.args[1], self.reader.value(call.args[1])) if len(call.args) > 1 else None
        )
        name = WorkloadId(WorkloadFormat.PYTHON, "docker SDK", f"containers.{method_name(call)}", "", "container")
        yield self.container(call, options, image, command, name, sizes.DOCKER)

    def operator(self, call: ast.Call) -> Iterator[Workload]:
        """Airflow's ``DockerOperator``: the docker SDK's options under the same names (the docker provider passes
        ``shm_size``, ``ipc_mode``, ``device_requests``, ``mem_limit``, ``environment``, ``command``,
        ``entrypoint`` and ``working_dir`` on to ``create_host_config``/``create_container``), named by its
        ``task_id``; its ``shm_size`` is typed as an integer of bytes, and written so."""
        options = self.reader.keywords(call)
        task = options.get("task_id")
        named = given if (given := text_value(task)) is not None else "DockerOperator"
        name = WorkloadId(WorkloadFormat.PYTHON, "Airflow DockerOperator", named, "", "container")
        yield self.container(call, options, options.get("image"), options.get("command"), name, "bytes")

    def container(
        self,
        call: ast.Call,
        options: dict[str, Arg],
        image: Arg | None,
        command: Arg | None,
        name: WorkloadId,
        unit: str,
    ) -> Workload:
        """A container the call starts, from the docker SDK's keywords; a fix writes its size in ``unit``."""
        entrypoint, working_dir, memory = (
            options.get("entrypoint"),
            options.get("working_dir"),
            options.get("mem_limit"),
        )
        image_name = text_value(image)
        view = DockerOptions(
            base_dir=base_dir(self.reader.source.path),
            settings=(*self.gpu(options), *self.environment(options), *self.shm(options)),
            image=image_name,
            image_span=self.reader.span(image.node) if image is not None else None,
            entrypoint=tuple(command_words(entrypoint, self.reader)) if entrypoint is not None else (),
            arguments=tuple(command_words(command, self.reader)) if command is not None else (),
            command_span=self.reader.span(command.node) if command is not None else None,
            working_dir=text_value(working_dir) or "",
            memory=self.reader.size(memory, sizes.DOCKER) if memory is not None else None,
            unresolved=tuple(self.reader.spread(call)),
        )
        return judge_docker(view, self.reader.signals).workload(
            name, self.reader.span(call), self.reader.call_target(call, "shm_size", unit)
        )

    def gpu(self, options: dict[str, Arg]) -> Iterator[Setting]:
        """A ``DeviceRequest`` for GPUs (capabilities ``gpu`` or the ``nvidia`` driver), then the ``runtime``."""
        requests = options.get("device_requests")
        for node in ast.walk(requests.node) if requests is not None else ():
            if isinstance(node, ast.Call) and called_name(node) == "DeviceRequest":
                inner = self.reader.keywords(node)
                capabilities = inner.get("capabilities")
                driver = inner.get("driver")
                if (capabilities is not None and "gpu" in flat_strings(capabilities.node)) or (
                    driver is not None and driver.value == "nvidia"
                ):
                    yield Setting(GPU, None, f"device_requests {self.reader.text(node)}", self.reader.span(node))
        runtime = options.get("runtime")
        if runtime is not None:
            value = text_value(runtime)
            yield Setting(RUNTIME, value, f"runtime={value}", self.reader.span(runtime.node))

    def shm(self, options: dict[str, Arg]) -> Iterator[Setting]:
        size = options.get("shm_size")
        if size is not None:
            yield Setting(SHM_SIZE, None, "shm_size", self.reader.span(size.node), self.reader.size(size, sizes.DOCKER))
        ipc = options.get("ipc_mode")
        if ipc is not None:
            value = text_value(ipc)
            yield Setting(IPC, value, f"ipc_mode={self.reader.text(ipc.node)}", self.reader.span(ipc.node))
        yield from self.mounts(options)
        tmpfs = options.get("tmpfs")
        if tmpfs is None or not isinstance(tmpfs.node, ast.Dict):
            return
        for key, node in zip(tmpfs.node.keys, tmpfs.node.values, strict=True):
            path = self.reader.value(key) if key is not None else None
            if isinstance(path, str) and is_shm_path(path):
                setting = self.reader.value(node)
                text, span = self.reader.text(node), self.reader.span(node)
                value = setting if isinstance(setting, str) else None
                yield Setting(TMPFS, value, "tmpfs /dev/shm", span, tmpfs_size(value, text, span))

    def mounts(self, options: dict[str, Arg]) -> Iterator[Setting]:
        """``mounts=[Mount("/dev/shm", None, type="tmpfs", tmpfs_size=...)]`` (``docker.types.Mount``: target,
        source, then ``type``, ``volume`` by default): a tmpfs, the host's folder or a volume over /dev/shm, as
        ``--mount`` is read (the review: an Airflow DockerOperator's tmpfs mount was not seen, and its fix added a
        ``shm_size`` the mount hides). A list made elsewhere, or a mount whose target is not known, is unresolved."""
        given = options.get("mounts")
        if given is None:
            return
        if not isinstance(given.node, ast.List | ast.Tuple):
            yield Setting(MOUNT, None, "mounts (resolved at run time)", self.reader.span(given.node))
            return
        for mount in given.node.elts:
            fields = self.reader.keywords(mount) if isinstance(mount, ast.Call) else {}
            positional = mount.args if isinstance(mount, ast.Call) else []
            target = fields.get("target") or (
                Arg(positional[0], self.reader.value(positional[0])) if positional else None
            )
            source = fields.get("source") or (
                Arg(positional[1], self.reader.value(positional[1])) if len(positional) > 1 else None
            )
            span = self.reader.span(mount)
            if target is None or not isinstance(target.value, str):
                yield Setting(MOUNT, None, "mounts entry (target resolved at run time)", span)
                continue
            if not is_shm_path(target.value):
                continue
            kind = fields["type"].value if "type" in fields else "volume"
            if not isinstance(kind, str):
                yield Setting(MOUNT, None, "mounts /dev/shm (type resolved at run time)", span)
            elif kind == "tmpfs":
                size = fields.get("tmpfs_size")
                sized = self.reader.size(size, sizes.DOCKER) if size is not None else None
                yield Setting(MOUNT, kind, "mounts tmpfs /dev/shm", span, sized)
            elif kind == "bind":
                host = text_value(source)
                yield Setting(MOUNT, kind, f"mounts bind of {host or 'a host folder'} at /dev/shm", span, host=host)
            else:
                yield Setting(MOUNT, kind, f"mounts {kind} at /dev/shm", span)

    def environment(self, options: dict[str, Arg]) -> Iterator[Setting]:
        env = options.get("environment")
        if env is None:
            return
        if isinstance(env.node, ast.Dict):
            for key, value in zip(env.node.keys, env.node.values, strict=True):
                name, setting = (self.reader.value(key) if key is not None else None), self.reader.value(value)
                if isinstance(name, str) and isinstance(setting, str | int):
                    text = f"{name}={setting}"
                    yield Setting(ENV, text, f"environment {text}", self.reader.span(value))
        elif isinstance(env.node, ast.List | ast.Tuple):
            for element in env.node.elts:
                entry = self.reader.value(element)
                if isinstance(entry, str) and "=" in entry:
                    yield Setting(ENV, entry, f"environment {entry}", self.reader.span(element))
