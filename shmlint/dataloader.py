"""How much /dev/shm a DataLoader needs: the estimate, the recommended size, and the hint syntax that declares one.

Pure arithmetic (no torch): the CLI, SHM005 and the fixer share it. The formula follows how torch moves batches
(the worker loop and shared-memory collation of ``torch.utils.data``): every batch a worker builds is one
shared-memory segment, whole 4 KiB pages; up to ``workers * prefetch`` batches wait in flight while the main
process holds one and receives the next, so

    estimate = (workers * prefetch + 2) * pages(batch * sample_bytes) * procs

Measured with the validation probe (docs/validation.md): the smallest /dev/shm that passes a slow consumer is
``workers * prefetch + 1`` batches plus a few pages of semaphores, so the estimate keeps one batch of margin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shmlint.lazy_regex import LazyRegex
from shmlint.model import DataLoaderHint
from shmlint.numbers import ascii_int, read_int
from shmlint.sizes import (
    DEFAULT_MIN_SHM_BYTES,
    DEFAULT_SHM_BYTES,
    MIB,
    format_compose,
    format_docker,
    format_kubernetes,
    human,
)

PAGE = 4096

#: bytes per element of the dtypes people write in hints and on the command line (torch names and aliases)
DTYPE_BYTES = {
    "bool": 1,
    "uint8": 1,
    "int8": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int16": 2,
    "short": 2,
    "uint16": 2,
    "float16": 2,
    "half": 2,
    "bfloat16": 2,
    "int32": 4,
    "int": 4,
    "uint32": 4,
    "float32": 4,
    "float": 4,
    "int64": 8,
    "long": 8,
    "uint64": 8,
    "float64": 8,
    "double": 8,
    "complex64": 8,
    "complex128": 16,
}

#: ``# shmlint: dataloader workers=8 ...`` in YAML, shell, Makefiles and Markdown code blocks
HINT_COMMENT = LazyRegex(r"#\s*shmlint:\s*dataloader\b(?P<value>[^\n]*)")

_PAIR = LazyRegex(r"([a-z-]+)=(\S+)")
_SHAPE = LazyRegex(r"^\d+(x\d+)*$", re.ASCII)
_KEYS = frozenset({"workers", "batch", "sample", "dtype", "procs", "prefetch"})
#: the largest values a hint may declare: far above any real loader, low enough that the arithmetic and the
#: sizes printed from it stay small numbers (a 5,000-digit hint is refused, not computed)
MAX_COUNTS = {"workers": 1024, "batch": 1 << 20, "procs": 1024, "prefetch": 1024}
MAX_SAMPLE_BYTES = 1 << 40


class HintError(ValueError):
    """A hint that is there but cannot be read; the message says what to write instead."""


def sample_bytes(shape: str, dtype: str) -> int:
    """Bytes of one sample of ``shape`` (``3x224x224``) and ``dtype`` (``float32``)."""
    if not _SHAPE.match(shape):
        raise HintError(f"sample shape '{shape}' is not dimensions joined by 'x' (e.g. 3x224x224)")
    if dtype not in DTYPE_BYTES:
        raise HintError(f"unknown dtype '{dtype}' (one of {', '.join(sorted(DTYPE_BYTES))})")
    total = DTYPE_BYTES[dtype]
    for dim in shape.split("x"):
        size = ascii_int(dim, maximum=MAX_SAMPLE_BYTES)
        if size is None or (total := total * size) > MAX_SAMPLE_BYTES:
            raise HintError(f"sample '{shape}' is larger than {MAX_SAMPLE_BYTES:,} bytes: not a DataLoader sample")
    return total


def parse_hint(text: str) -> DataLoaderHint | None:
    """Read ``workers=8 batch=64 sample=3x224x224 dtype=float32 procs=4 prefetch=2`` (a leading ``dataloader``
    word is allowed); None when the text holds no ``key=value`` at all, HintError when it is malformed."""
    words = text.strip().strip("'\"").split()
    if words[:1] == ["dataloader"]:
        words = words[1:]
    if not words:
        return None
    pairs: dict[str, str] = {}
    for word in words:
        match = _PAIR.fullmatch(word)
        if match is None or match.group(1) not in _KEYS:
            raise HintError(f"'{word}' is not one of {', '.join(f'{k}=' for k in sorted(_KEYS))}")
        pairs[match.group(1)] = match.group(2)
    missing = [key for key in ("workers", "batch", "sample") if key not in pairs]
    if missing:
        raise HintError(f"a dataloader hint needs {', '.join(f'{k}=' for k in missing)}")
    numbers = {key: _count(key, pairs[key]) for key in ("workers", "batch", "procs", "prefetch") if key in pairs}
    if numbers["batch"] < 1 or numbers.get("procs", 1) < 1 or numbers.get("prefetch", 2) < 1:
        raise HintError("batch, procs and prefetch must be at least 1")
    return DataLoaderHint(
        workers=numbers["workers"],
        batch_size=numbers["batch"],
        sample_bytes=sample_bytes(pairs["sample"], pairs.get("dtype", "float32")),
        prefetch_factor=numbers.get("prefetch", 2),
        procs=numbers.get("procs", 1),
    )


def _count(key: str, value: str) -> int:
    number = read_int(value, maximum=MAX_COUNTS[key])
    if number.value is not None:
        return number.value
    if number.problem.startswith("out of range"):
        raise HintError(f"{key}={value[:20]}{'...' if len(value) > 20 else ''}: at most {MAX_COUNTS[key]:,}")
    raise HintError(f"{key}={value[:20]}: expected a whole number")


def round_pages(value: int) -> int:
    return -(-value // PAGE) * PAGE


def rounding_step(estimate_bytes: int) -> int:
    """The largest power of two <= 1/16 of the estimate, at least 1 MiB: sizes that read well (320Mi, 2688Mi)."""
    return max(MIB, 1 << max(0, (estimate_bytes // 16).bit_length() - 1))


def recommend(estimate_bytes: int) -> int:
    """The estimate rounded up to a multiple of ``rounding_step`` (at most ~6% more, which keeps it under 1.5x
    the measured need, docs/validation.md), and never below the runtime default: writing a smaller size would
    only take away room the container had without it (and NCCL and others share /dev/shm)."""
    step = rounding_step(estimate_bytes)
    return max(DEFAULT_SHM_BYTES, -(-estimate_bytes // step) * step)


@dataclass(frozen=True)
class Estimate:
    """The need of one container and the arithmetic behind it, for people (``lines``) and machines (``as_dict``)."""

    hint: DataLoaderHint
    batch_bytes: int  # one batch, whole pages
    batches_per_process: int
    estimate_bytes: int
    recommended_bytes: int

    def hint_comment(self, sample: str | None = None) -> str:
        """The hint that declares this loader, so SHM005 checks a size against this estimate (``sample``: the
        user's own ``3x224x224 dtype=float32``; by default the sample as bytes)."""
        h = self.hint
        sample = sample or f"{h.sample_bytes} dtype=uint8"
        return (
            f"# shmlint: dataloader workers={h.workers} batch={h.batch_size} sample={sample} "
            f"prefetch={h.prefetch_factor} procs={h.procs}"
        )

    def declare_lines(self, sample: str | None = None) -> list[str]:
        """Following the advice passes SHM005: without the hint it compares a size with ``min-shm-size``."""
        below = (
            f"; without it shm-too-small compares the size with min-shm-size ({human(DEFAULT_MIN_SHM_BYTES)} unless "
            f"configured), which {human(self.recommended_bytes)} is below"
            if self.recommended_bytes < DEFAULT_MIN_SHM_BYTES
            else ""
        )
        return [
            f"declare it:  {self.hint_comment(sample)}",
            f"             (on or above the workload: shm-too-small then checks its size against this estimate{below})",
        ]

    def lines(self, sample: str | None = None) -> list[str]:
        h = self.hint
        if h.workers == 0:
            size = self.recommended_bytes
            return [
                "workers:     0, so batches are built in the main process and never pass through /dev/shm",
                f"estimate:    0 B; recommended: the runtime default ({human(size)}) is enough",
                f"write it:    Kubernetes sizeLimit: {format_kubernetes(size)}, "
                f"docker/podman --shm-size={format_docker(size)}, compose shm_size: {format_compose(size)}",
                *self.declare_lines(sample),
            ]
        raw = h.batch_size * h.sample_bytes
        per_process = self.batches_per_process * self.batch_bytes
        pages = f" -> {self.batch_bytes:,} B in whole 4 KiB pages" if raw != self.batch_bytes else ""
        size = self.recommended_bytes
        return [
            f"per batch:   {h.batch_size} samples x {h.sample_bytes:,} B = {raw:,} B{pages} "
            f"({human(self.batch_bytes)})",
            f"in flight:   {h.workers} workers x prefetch {h.prefetch_factor} + 2 (held and being received by the "
            f"main process) = {self.batches_per_process} batches",
            f"per process: {self.batches_per_process} x {self.batch_bytes:,} B = {per_process:,} B "
            f"({human(per_process)})",
            f"container:   {h.procs} process(es) x {per_process:,} B = {self.estimate_bytes:,} B",
            f"estimate:    {self.estimate_bytes:,} B ({human(self.estimate_bytes)})",
            f"recommended: {size:,} B ({human(size)}): "
            + (
                f"the estimate rounded up to a multiple of {human(rounding_step(self.estimate_bytes))}"
                if size > DEFAULT_SHM_BYTES
                else f"the runtime default of {human(DEFAULT_SHM_BYTES)} already covers the estimate"
            ),
            f"write it:    Kubernetes sizeLimit: {format_kubernetes(size)}, "
            f"docker/podman --shm-size={format_docker(size)}, compose shm_size: {format_compose(size)}",
            *self.declare_lines(sample),
        ]

    def as_dict(self) -> dict[str, int]:
        h = self.hint
        return {
            "workers": h.workers,
            "prefetch_factor": h.prefetch_factor,
            "batch_size": h.batch_size,
            "sample_bytes": h.sample_bytes,
            "procs": h.procs,
            "batch_bytes": self.batch_bytes,
            "batches_per_process": self.batches_per_process,
            "estimate_bytes": self.estimate_bytes,
            "recommended_bytes": self.recommended_bytes,
        }


def estimate(hint: DataLoaderHint) -> Estimate:
    """The /dev/shm one container needs for this loader; zero when there are no worker processes."""
    batch_bytes = round_pages(hint.batch_size * hint.sample_bytes)
    in_flight = hint.workers * hint.prefetch_factor + 2 if hint.workers else 0
    total = in_flight * batch_bytes * hint.procs
    return Estimate(hint, batch_bytes, in_flight, total, recommend(total))
