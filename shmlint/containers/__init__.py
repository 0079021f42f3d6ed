"""One judge per container model, shared by every format that writes one.

- ``pod``: a Kubernetes pod spec (YAML manifests, Terraform's Kubernetes provider, AWS Batch on EKS);
- ``docker``: docker/podman run options (a ``docker run`` line and the formats that pass its options, Terraform's
  ``docker_container``, the Python docker SDK);
- ``ecs``: an AWS ECS/Batch container definition (JSON, CloudFormation, Terraform).

Each judge reads a small view that the format's adapter builds from its own positioned syntax (YAML nodes, HCL
blocks, Python ``ast`` calls, command words, JSON values) and returns what the container is: its GPU and torch evidence, its /dev/shm sources, its
memory limit and what it launches. Extractors only adapt syntax, name the workload and say where a fix goes.

This module is what every judge returns (``Judged``) and the pieces they share.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from shmlint.model import Evidence, Launch, ShmSource, Size, Workload, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.runtime import nccl
from shmlint.signals import Signals
from shmlint.source import Span

if TYPE_CHECKING:
    from shmlint.model import FixTarget


#: a plain ``NAME=value`` the container is given: name, value, where the file writes it (a tuple: one value class
#: fewer to build when a one-file check starts)
EnvVar = tuple[str, str, Span]


class Judged(NamedTuple):
    """One container's GPU and torch evidence, /dev/shm sources, memory limit and launch."""

    gpu: tuple[Evidence, ...]
    torch: tuple[Evidence, ...]
    shm: tuple[ShmSource, ...]
    memory_limit: Size | None
    nccl_shm_disabled: Evidence | None
    image: str | None
    command: str
    accelerator_count: int | None = None
    launch: Launch | None = None

    def workload(self, identity: WorkloadId, span: Span, target: FixTarget, **more: Any) -> Workload:
        """The container as a Workload; ``identity`` names it as its format does, ``target`` is its fixer's and
        ``more`` the format's own fields (annotations, an operator that manages /dev/shm)."""
        return Workload(
            id=identity,
            span=span,
            gpu=self.gpu,
            torch=self.torch,
            shm=self.shm,
            memory_limit=self.memory_limit,
            nccl_shm_disabled=self.nccl_shm_disabled,
            target=target,
            image=self.image,
            command=self.command,
            accelerator_count=self.accelerator_count,
            launch=self.launch,
            **more,
        )


def base_dir(path: str) -> str:
    """The folder of the file that defines a container: where the relative paths it starts are looked for."""
    return os.path.dirname(path) or "."


def gpu_env(env: Iterable[EnvVar], signals: Signals, label: str = "env") -> Iterator[Evidence]:
    """Variables that hand the container GPUs (``NVIDIA_VISIBLE_DEVICES=all``), quoted as ``label NAME=value``."""
    for name, value, span in env:
        if signals.is_gpu_env(name, value):
            yield Evidence(f"{label} {name}={value}", span)


def nccl_disabled(env: Iterable[EnvVar], label: str = "env") -> Evidence | None:
    """``NCCL_SHM_DISABLE`` set so that NCCL leaves /dev/shm alone (``shmlint.runtime.nccl``)."""
    for name, value, span in env:
        if name == nccl.SHM_DISABLE and nccl.disables_shm(value):
            return Evidence(f"{label} {name}={value}", span)
    return None


def torch_evidence(
    image: str | None, image_span: Span | None, words: Iterable[str], command_span: Span | None, signals: Signals
) -> Iterator[Evidence]:
    """A torch image, and a command that starts torch (``torchrun``), where they are written."""
    if image and image_span is not None and signals.is_torch_image(image):
        yield Evidence(f"image {image}", image_span)
    launcher = signals.torch_command(" ".join(words))
    if launcher and command_span is not None:
        yield Evidence(f"command {launcher}", command_span)
