"""Airflow's ``KubernetesPodOperator`` (the cncf.kubernetes provider) read as the pod it starts: its ``image``,
``cmds`` and ``arguments``, GPUs in ``container_resources`` (a ``V1ResourceRequirements`` or the dict for one),
and the /dev/shm its ``volumes`` and ``volume_mounts`` give (``shmlint.formats.python.k8s_objects``). A
``pod_template_file``, ``pod_template_dict`` or ``full_pod_spec`` may hold more, and volumes held in a value made
elsewhere are not known: both are unknown sources, never the runtime's 64 MiB. No fix: a volume is a new statement
the operator's author writes."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from shmlint.containers import base_dir, torch_evidence
from shmlint.formats.python.calls import CallReader, command_words, text_value
from shmlint.formats.python.k8s_objects import gpu_limits, listed, mounted_shm
from shmlint.model import Launch, ShmKind, ShmMechanism, ShmSource, Workload, WorkloadFormat, WorkloadId

#: the operator's options that give the pod from elsewhere, whose /dev/shm is not read here
POD_FROM_ELSEWHERE = ("pod_template_file", "pod_template_dict", "full_pod_spec")


class PodOperator:
    """Reads ``KubernetesPodOperator(...)`` calls through a module's ``CallReader``."""

    def __init__(self, reader: CallReader) -> None:
        self.reader = reader

    def workloads(self, call: ast.Call) -> Iterator[Workload]:
        reader = self.reader
        options = reader.keywords(call)
        task = options.get("task_id")
        named = given if (given := text_value(task)) is not None else "KubernetesPodOperator"
        resources = options.get("container_resources") or options.get("resources")
        gpu, counts = gpu_limits(reader, resources.node if resources is not None else None, "container_resources")
        image = options.get("image")
        image_name = text_value(image)
        image_span = reader.span(image.node) if image is not None else None
        torch = tuple(torch_evidence(image_name, image_span, (), None, reader.signals))
        entrypoint = tuple(command_words(options["cmds"], reader)) if "cmds" in options else ()
        arguments = tuple(command_words(options["arguments"], reader)) if "arguments" in options else ()
        yield Workload(
            id=WorkloadId(WorkloadFormat.PYTHON, "Airflow KubernetesPodOperator", named, "", "pod"),
            span=reader.span(call),
            gpu=tuple(gpu),
            torch=torch,
            shm=tuple(self.shm(call)),
            image=image_name,
            command=" ".join((*entrypoint, *arguments)),
            accelerator_count=max(counts) if counts else None,
            launch=Launch(base_dir(reader.source.path), entrypoint, arguments) if entrypoint or arguments else None,
        )

    def shm(self, call: ast.Call) -> Iterator[ShmSource]:
        reader = self.reader
        options = reader.keywords(call)
        for option in POD_FROM_ELSEWHERE:
            if option in options:
                span = reader.span(options[option].node)
                yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.MERGED_SPEC, span, f"{option} (not read)")
        yield from reader.spread(call)
        mounts_given = options.get("volume_mounts")
        if mounts_given is None:
            return
        mounts = listed(mounts_given.node)
        volumes_given = options.get("volumes")
        volumes = listed(volumes_given.node) if volumes_given is not None else []
        if mounts is None or volumes is None:
            span = reader.span(mounts_given.node)
            yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, "volume_mounts (resolved at run time)")
            return
        yield from mounted_shm(reader, volumes, mounts, "volume_mounts /dev/shm")
