"""What makes a workload GPU or torch: kept as data so configuration can extend it.

Every format asks the same questions here (is this resource a GPU, is this image torch-like, does this command
launch torch), so a Kubernetes container, a compose service and a ``docker run`` line are judged alike.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import cached_property

from shmlint.configured_patterns import ConfiguredPattern

GPU_RESOURCES = (
    "nvidia.com/gpu",
    "nvidia.com/gpu.shared",
    "nvidia.com/mig-*",
    "amd.com/gpu",
    "gpu.intel.com/i915",
    "gpu.intel.com/xe",
    "habana.ai/gaudi",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "aws.amazon.com/neurondevice",
    "google.com/tpu",
)

GPU_RUNTIMES = ("nvidia", "nvidia-cdi", "nvidia-legacy")

#: environment variables that hand GPUs to a container (NVIDIA's runtime, ROCm)
GPU_VISIBLE_ENVS = ("NVIDIA_VISIBLE_DEVICES", "AMD_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")

#: device nodes (globs) that hand a GPU or accelerator to a container: NVIDIA, AMD (kfd, dri), Intel (dri, accel),
#: AWS Neuron and WSL's GPU paravirtualisation (dxg)
GPU_DEVICES = ("/dev/nvidia*", "/dev/kfd", "/dev/dri", "/dev/dri/*", "/dev/accel*", "/dev/neuron*", "/dev/dxg")

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

#: KServe model formats served by a torch runtime (``predictor.model.modelFormat.name``, ``predictor.pytorch``)
TORCH_MODEL_FORMATS = ("pytorch", "huggingface", "triton")

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
    torch_model_formats: tuple[str, ...] = TORCH_MODEL_FORMATS
    utility_commands: tuple[str, ...] = UTILITY_COMMANDS

    @cached_property
    def _image_re(self) -> re.Pattern[str]:
        return _builtin_pattern(self.torch_images, TORCH_IMAGES)

    @cached_property
    def _command_re(self) -> re.Pattern[str]:
        return _builtin_pattern(self.torch_commands, TORCH_COMMANDS)

    @cached_property
    def _configured_image(self) -> ConfiguredPattern | None:
        return _configured("torch-images", self.torch_images, TORCH_IMAGES)

    @cached_property
    def _configured_command(self) -> ConfiguredPattern | None:
        return _configured("torch-commands", self.torch_commands, TORCH_COMMANDS)

    @property
    def configured(self) -> bool:
        """Configuration added torch patterns or GPU resources: the prefilter cannot know their words."""
        return (
            self._configured_image is not None
            or self._configured_command is not None
            or any(glob not in GPU_RESOURCES for glob in self.gpu_resources)
        )

    @cached_property
    def _gpu_resource_re(self) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in self.gpu_resources))

    @cached_property
    def _gpu_device_re(self) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in self.gpu_devices))

    @cached_property
    def _non_workload_tag_re(self) -> re.Pattern[str]:
        return re.compile("|".join(NON_WORKLOAD_TAGS), re.IGNORECASE)

    def is_gpu_resource(self, name: str) -> bool:
        return self._gpu_resource_re.match(name) is not None

    def is_gpu_runtime(self, name: str) -> bool:
        return name.strip().lower() in self.gpu_runtimes

    def is_gpu_device(self, device: str) -> bool:
        """A device request (``--device``, compose ``devices``) that hands over a GPU: a host node with an optional
        ``:container-path:permissions`` (``/dev/dri:/dev/dri``) or a CDI name (``nvidia.com/gpu=all``)."""
        if not device.startswith("/"):
            return self.is_gpu_resource(device.split("=", 1)[0])
        return self._gpu_device_re.match(device.split(":", 1)[0]) is not None

    def is_torch_model_format(self, name: str) -> bool:
        return name.lower() in self.torch_model_formats

    def is_gpu_env(self, name: str, value: str) -> bool:
        """``NVIDIA_VISIBLE_DEVICES=all`` and its ROCm cousins, unless set to expose nothing."""
        return name in self.gpu_envs and gpu_visible(value)

    def is_torch_image(self, image: str) -> bool:
        repository, tag = split_image(image)
        if tag and self._non_workload_tag_re.search(tag):
            return False
        if self._image_re.search(repository):
            return True
        return self._configured_image is not None and self._configured_image.search(repository) is not None

    def torch_command(self, command: str) -> str | None:
        """The part of a command line that launches torch, or None."""
        match = self._command_re.search(command)
        if match is None and self._configured_command is not None:
            found = self._configured_command.search(command)
            return found.strip() if found is not None else None
        return match.group(0).strip() if match else None

    def is_utility_command(self, words: list[str]) -> bool:
        return bool(words) and words[0].rsplit("/", 1)[-1] in self.utility_commands


def _builtin_pattern(patterns: tuple[str, ...], builtin: tuple[str, ...]) -> re.Pattern[str]:
    """The built-in patterns (reviewed here, linear on any input) with the standard engine."""
    return re.compile("|".join(f"(?:{p})" for p in patterns if p in builtin) or "(?!)", re.IGNORECASE)


def _configured(key: str, patterns: tuple[str, ...], builtin: tuple[str, ...]) -> ConfiguredPattern | None:
    """What configuration added to a built-in list, with the bounded engine; None when it added nothing."""
    extra = tuple(p for p in patterns if p not in builtin)
    return ConfiguredPattern(key, extra) if extra else None


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
