"""The KServe ServingRuntimes of a run's checked files, as the run's index holds them (``ProjectIndex.runtimes``):
found by ``shmlint.extract.kserve`` before any file is checked, read by it to complete InferenceServices."""

from __future__ import annotations

from shmlint.model import ShmSource
from shmlint.named_tuple import NamedTuple


class RuntimeFormat(NamedTuple):
    """One entry of ``supportedModelFormats``."""

    name: str  # lower case
    auto_select: bool
    priority: int


class Runtime(NamedTuple):
    """A ServingRuntime found in the checked files: the /dev/shm its model-serving container (its first) gets, and
    what that container runs, which an InferenceService that names no image or command of its own runs."""

    kind: str
    name: str
    formats: tuple[RuntimeFormat, ...]
    shm: tuple[ShmSource, ...]  # what reaches the runtime's first container's /dev/shm
    image: str | None = None
    entrypoint: tuple[str, ...] = ()  # its ``command``
    arguments: tuple[str, ...] = ()  # its ``args``


class RuntimeIndex(NamedTuple):
    """Every runtime in the checked files, for resolving InferenceServices in any of them."""

    runtimes: tuple[Runtime, ...] = ()

    def named(self, name: str) -> Runtime | None:
        return next((runtime for runtime in self.runtimes if runtime.name == name), None)

    def for_format(self, model_format: str) -> Runtime | None:
        """The runtime KServe auto-selects for a model format: highest priority among those that allow it."""
        candidates = [
            (entry.priority, runtime)
            for runtime in self.runtimes
            for entry in runtime.formats
            if entry.name == model_format and entry.auto_select
        ]
        return max(candidates, key=lambda pair: pair[0])[1] if candidates else None
