"""The text prefilter: a file without any GPU/torch/shm word cannot hold a workload finding, so it is parsed for
syntax only. Runs on every file, so it is a few substring searches. Patterns from configuration are never run
over a whole file (a pull request can change them); when configuration adds signals, a file passes if it has any
of the keys or commands those signals are matched against (``CONFIGURED_CARRIERS``)."""

from __future__ import annotations

from shmlint.signals import Signals

#: lower-case words that every built-in GPU/torch/shm signal contains
WORDS = (
    "gpu",
    "nvidia",
    "torch",
    "shm",
    "ipc",
    "kfd",
    "/dev/dri",
    "gaudi",
    "neuron",
    "/tpu",
    "vllm",
    "sglang",
    "triton",
    "text-generation",
    "deepspeed",
    "accelerate",
    "nemo",
    "ray-",
    "verl",
    "comfyui",
    "invokeai",
    "build",
    "extends",
    "nccl",
    "num_workers",
    "num-workers",
    "shmlint",
)

#: where configured signals are looked for: image and command keys (Kubernetes, compose, Argo ``source``),
#: resource and device names, and container command lines (``docker``/``podman`` or an engine variable)
CONFIGURED_CARRIERS = (
    "image",
    "command",
    "args",
    "entrypoint",
    "source",
    "resources",
    "device",
    "docker",
    "podman",
    "container_",
)


class Prefilter:
    """Whether a text may hold a workload finding; ``enabled=False`` lets every text through (for tests)."""

    def __init__(self, signals: Signals, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._words = WORDS + CONFIGURED_CARRIERS if signals.configured else WORDS

    def passes(self, text: str) -> bool:
        if not self.enabled:
            return True
        lowered = text.lower()
        return any(word in lowered for word in self._words)
