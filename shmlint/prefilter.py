"""The text prefilter: a file without any GPU/torch/shm word cannot hold a workload finding, so it is parsed for
syntax only. Runs on every file, so it is a few substring searches; configured signals are searched as one
pattern."""

from __future__ import annotations

import fnmatch
import re

from shmlint.signals import ACCELERATORS, Signals

_BASE_WORDS = (
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


def _words() -> tuple[str, ...]:
    """The base words, and each accelerator signal's literal text from the one table (resources up to a glob,
    runtimes, variables, device nodes) that no shorter word already finds: ``--runtime=habana`` passes as surely
    as ``habana.ai/gaudi``."""
    words = list(_BASE_WORDS)
    signals = (
        text.split("*", 1)[0].lower()
        for accelerator in ACCELERATORS
        for text in (*accelerator.runtimes, *accelerator.resources, *accelerator.envs, *accelerator.devices)
    )
    for text in signals:
        if not any(word in text for word in words):
            words.append(text)
    return tuple(words)


#: lower-case words that every built-in GPU/torch/shm signal contains
WORDS = _words()


class Prefilter:
    """Whether a text may hold a workload finding; ``enabled=False`` lets every text through (for tests)."""

    def __init__(self, signals: Signals, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._configured = _configured_pattern(signals)

    def passes(self, text: str) -> bool:
        if not self.enabled:
            return True
        lowered = text.lower()
        if any(word in lowered for word in WORDS):
            return True
        return self._configured is not None and self._configured.search(text) is not None


def _configured_pattern(signals: Signals) -> re.Pattern[str] | None:
    """What configuration added to the built-in signals, as one pattern."""
    defaults = Signals()
    extra = [p for p in signals.torch_images if p not in defaults.torch_images]
    extra += [p for p in signals.torch_commands if p not in defaults.torch_commands]
    extra += [
        fnmatch.translate(g).removesuffix(r"\Z") for g in signals.gpu_resources if g not in defaults.gpu_resources
    ]
    return re.compile("|".join(f"(?:{p})" for p in extra), re.IGNORECASE | re.MULTILINE) if extra else None
