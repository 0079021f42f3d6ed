"""What makes a workload GPU or torch: kept as data so configuration can extend it.

Every format asks the same questions here (is this resource a GPU, is this image torch-like, does this command
launch torch), so a Kubernetes container, a compose service and a ``docker run`` line are judged alike.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple


class Accelerator(NamedTuple):
    """How one kind of accelerator reaches a container, in every format's terms."""

    name: str
    resources: tuple[str, ...]  # Kubernetes extended resources (globs), also CDI kinds and compose device drivers
    runtimes: tuple[str, ...]  # OCI runtimes: --runtime, compose runtime:, runtimeClassName, compose driver
    envs: tuple[str, ...]  # variables the runtime hands devices over by
    devices: tuple[str, ...]  # host device nodes (prefixes): --device, compose devices


#: one table of accelerator signals: every format reads its GPU evidence from here, so none misses what another
#: recognises (``--runtime=habana`` on a ``docker run`` line as well as ``habana.ai/gaudi`` in Kubernetes)
ACCELERATORS = (
    Accelerator(
        "NVIDIA",
        ("nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*"),
        ("nvidia", "nvidia-cdi", "nvidia-legacy"),
        ("NVIDIA_VISIBLE_DEVICES",),
        ("/dev/nvidia", "/dev/dxg"),  # dxg: GPUs under WSL2
    ),
    Accelerator(
        "AMD",
        ("amd.com/gpu",),
        ("amd",),  # the AMD Container Toolkit's runtime
        ("AMD_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"),
        ("/dev/kfd", "/dev/dri"),
    ),
    Accelerator("Intel GPU", ("gpu.intel.com/i915", "gpu.intel.com/xe"), (), (), ("/dev/dri",)),
    Accelerator(
        "Intel Gaudi (Habana)",
        ("habana.ai/gaudi",),
        ("habana",),
        ("HABANA_VISIBLE_DEVICES",),
        ("/dev/accel", "/dev/hl"),
    ),
    Accelerator(
        "AWS Neuron",
        ("aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "aws.amazon.com/neurondevice"),
        ("neuron",),
        ("AWS_NEURON_VISIBLE_DEVICES",),
        ("/dev/neuron",),
    ),
    Accelerator("Google TPU", ("google.com/tpu",), (), ("TPU_VISIBLE_CHIPS",), ("/dev/accel",)),
)

GPU_RESOURCES = tuple(name for accelerator in ACCELERATORS for name in accelerator.resources)
GPU_RUNTIMES = tuple(name for accelerator in ACCELERATORS for name in accelerator.runtimes)
#: environment variables that hand accelerators to a container
GPU_VISIBLE_ENVS = tuple(name for accelerator in ACCELERATORS for name in accelerator.envs)
GPU_DEVICES = tuple(dict.fromkeys(path for accelerator in ACCELERATORS for path in accelerator.devices))

#: regular expressions matched against the image reference without its tag or digest
TORCH_IMAGES = (
    r"(^|/)[^/]*torch[^/]*$",  # pytorch/pytorch, nvcr.io/nvidia/pytorch, kubeflow/pytorch-dist-mnist, torchserve
    r"(^|/)pytorch(/|$)",
    r"vllm",
    r"sglang",
    r"text-generation-inference",
    r"tritonserver",
    r"deepspeed",
    r"(^|/)nemo[^/]*$",
    r"(^|/)ray-ml$",
    r"(^|/)ray-llm$",
    r"(^|/)verl[^/]*$",
    r"huggingface/transformers-pytorch",
    r"(^|/)comfyui[^/]*$",
    r"(^|/)invokeai[^/]*$",
)

#: image tags that mark client or SDK images: the name says torch/triton but nothing trains or serves there
NON_WORKLOAD_TAGS = (r"(^|[-_.])(py3-)?(client)?sdk($|[-_.])",)

#: regular expressions matched against a container's command and arguments joined by spaces
TORCH_COMMANDS = (
    r"(^|[\s/])torchrun(\s|$)",
    r"-m\s+torch\.distributed\.(run|launch)\b",
    r"(^|[\s/])accelerate\s+launch\b",
    r"(^|[\s/])deepspeed(\s|$)",
    r"(^|[\s/])vllm\s+serve\b",
    r"-m\s+vllm\.entrypoints\b",
    r"-m\s+sglang\.launch_server\b",
    r"(^|[\s/])text-generation-launcher(\s|$)",
    r"(^|[\s/])tritonserver(\s|$)",
    r"(^|[\s/])torchserve(\s|$)",
    r"\bimport\s+torch\b",
    r"--num[_-]workers[=\s]+[1-9]",
)

#: a container whose command is one of these is a diagnostic or a benchmark client, not a GPU workload
UTILITY_COMMANDS = ("nvidia-smi", "perf_client", "perf_analyzer")

NO_GPU_VISIBLE = frozenset({"", "none", "void"})


@dataclass(frozen=True)
class Signals:
    """What marks a workload as GPU or torch; configuration can extend every list."""

    gpu_resources: tuple[str, ...] = GPU_RESOURCES
    gpu_runtimes: tuple[str, ...] = GPU_RUNTIMES
    gpu_envs: tuple[str, ...] = GPU_VISIBLE_ENVS
    gpu_devices: tuple[str, ...] = GPU_DEVICES
    torch_images: tuple[str, ...] = TORCH_IMAGES
    torch_commands: tuple[str, ...] = TORCH_COMMANDS
    utility_commands: tuple[str, ...] = UTILITY_COMMANDS

    @cached_property
    def _image_re(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.torch_images), re.IGNORECASE)

    @cached_property
    def _command_re(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.torch_commands), re.IGNORECASE)

    @cached_property
    def _gpu_resource_re(self) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in self.gpu_resources))

    @cached_property
    def _non_workload_tag_re(self) -> re.Pattern[str]:
        return re.compile("|".join(NON_WORKLOAD_TAGS), re.IGNORECASE)

    def is_gpu_resource(self, name: str) -> bool:
        return self._gpu_resource_re.match(name) is not None

    def is_gpu_runtime(self, name: str) -> bool:
        return name.strip().lower() in self.gpu_runtimes

    def is_gpu_device(self, path: str) -> bool:
        """A host device node that is an accelerator (``/dev/nvidia0``, ``/dev/dri/renderD128``, ``/dev/accel0``)."""
        return path.startswith(self.gpu_devices)

    def is_gpu_env(self, name: str, value: str) -> bool:
        """``NVIDIA_VISIBLE_DEVICES=all`` and its ROCm cousins, unless set to expose nothing."""
        return name in self.gpu_envs and gpu_visible(value)

    def is_torch_image(self, image: str) -> bool:
        repository, tag = split_image(image)
        if tag and self._non_workload_tag_re.search(tag):
            return False
        return bool(self._image_re.search(repository))

    def torch_command(self, command: str) -> str | None:
        """The part of a command line that launches torch, or None."""
        match = self._command_re.search(command)
        return match.group(0).strip() if match else None

    def is_utility_command(self, words: list[str]) -> bool:
        return bool(words) and words[0].rsplit("/", 1)[-1] in self.utility_commands


def split_image(image: str) -> tuple[str, str]:
    """``registry:5000/ns/name:tag@sha256:...`` -> (``registry:5000/ns/name``, ``tag``)."""
    reference = image.split("@", 1)[0]
    slash = reference.rfind("/")
    colon = reference.rfind(":")
    if colon > slash:
        return reference[:colon], reference[colon + 1 :]
    return reference, ""


def gpu_visible(value: str) -> bool:
    """``NVIDIA_VISIBLE_DEVICES`` exposes GPUs unless it is empty, ``none`` or ``void``."""
    return value.strip().lower() not in NO_GPU_VISIBLE


def positive_count(value: str) -> bool:
    """A resource count above zero; ``0``, ``"0"`` and unparsable counts are not GPUs."""
    try:
        return float(value.strip().strip("\"'")) > 0
    except ValueError:
        return False
