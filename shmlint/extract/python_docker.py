"""The docker SDK's ``client.containers.run(...)``/``.create(...)`` read into the docker options judge's view
(``shmlint.containers.docker``): ``shm_size``, ``ipc_mode``, ``tmpfs``, ``mem_limit``, a GPU ``DeviceRequest`` or
runtime, ``environment``, and what it starts (``command``, ``entrypoint``, ``working_dir``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers.docker import DockerOptions, Spelled, judge_docker
from shmlint.containers.judged import EnvVar, base_dir
from shmlint.extract.python_calls import Arg, CallReader, called_name, command_words, flat_strings, method_name
from shmlint.model import Evidence, Workload, WorkloadFormat, WorkloadId
from shmlint.runtime.shm import is_shm_path
from shmlint.source import Span


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
        entrypoint, working_dir = options.get("entrypoint"), options.get("working_dir")
        size, memory = options.get("shm_size"), options.get("mem_limit")
        view = DockerOptions(
            base_dir=base_dir(self.reader.source.path),
            image=self.spelled(image) if image is not None else None,
            entrypoint=tuple(command_words(entrypoint, self.reader)) if entrypoint is not None else (),
            arguments=tuple(command_words(command, self.reader)) if command is not None else (),
            command_span=self.reader.span(command.node) if command is not None else None,
            working_dir=working_dir.value if working_dir is not None and isinstance(working_dir.value, str) else "",
            env=tuple(self.environment(options)),
            env_label="environment",
            shm_size=(self.reader.size(size, sizes.DOCKER), self.reader.span(size.node)) if size is not None else None,
            ipc=self.spelled(options["ipc_mode"], "ipc_mode=") if "ipc_mode" in options else None,
            tmpfs=tuple(self.tmpfs(options)),
            runtime=self.runtime(options.get("runtime")),
            device_requests=tuple(self.device_requests(options)),
            memory=self.reader.size(memory, sizes.DOCKER) if memory is not None else None,
            unresolved=tuple(self.reader.spread(call)),
        )
        yield judge_docker(view, self.reader.signals).workload(
            WorkloadId(WorkloadFormat.PYTHON, "docker SDK", f"containers.{method_name(call)}", "", "container"),
            self.reader.span(call),
            self.reader.call_target(call, "shm_size", sizes.DOCKER),
        )

    def spelled(self, arg: Arg, prefix: str = "") -> Spelled:
        """A keyword's string value (None when it is not a literal string), quoted as ``prefix`` and its text."""
        value = arg.value if isinstance(arg.value, str) else None
        return Spelled(value, prefix + self.reader.text(arg.node), self.reader.span(arg.node))

    def runtime(self, arg: Arg | None) -> Spelled | None:
        if arg is None:
            return None
        value = arg.value if isinstance(arg.value, str) else None
        return Spelled(value, f"runtime={value}", self.reader.span(arg.node))

    def device_requests(self, options: dict[str, Arg]) -> Iterator[Evidence]:
        requests = options.get("device_requests")
        for node in ast.walk(requests.node) if requests is not None else ():
            if isinstance(node, ast.Call) and called_name(node) == "DeviceRequest":
                inner = self.reader.keywords(node)
                capabilities = inner.get("capabilities")
                driver = inner.get("driver")
                if (capabilities is not None and "gpu" in flat_strings(capabilities.node)) or (
                    driver is not None and driver.value == "nvidia"
                ):
                    yield Evidence(f"device_requests {self.reader.text(node)}", self.reader.span(node))

    def environment(self, options: dict[str, Arg]) -> Iterator[EnvVar]:
        env = options.get("environment")
        if env is None:
            return
        if isinstance(env.node, ast.Dict):
            for key, value in zip(env.node.keys, env.node.values, strict=True):
                name, setting = (self.reader.value(key) if key is not None else None), self.reader.value(value)
                if isinstance(name, str) and isinstance(setting, str | int):
                    yield EnvVar(name, str(setting), self.reader.span(value))
        elif isinstance(env.node, ast.List | ast.Tuple):
            for element in env.node.elts:
                text = self.reader.value(element)
                if isinstance(text, str) and "=" in text:
                    name, _, setting = text.partition("=")
                    yield EnvVar(name, setting, self.reader.span(element))

    def tmpfs(self, options: dict[str, Arg]) -> Iterator[tuple[Span, Spelled]]:
        tmpfs = options.get("tmpfs")
        if tmpfs is None or not isinstance(tmpfs.node, ast.Dict):
            return
        for key, value in zip(tmpfs.node.keys, tmpfs.node.values, strict=True):
            path = self.reader.value(key) if key is not None else None
            if isinstance(path, str) and is_shm_path(path):
                setting = self.reader.value(value)
                span = self.reader.span(value)
                yield span, Spelled(setting if isinstance(setting, str) else None, self.reader.text(value), span)
