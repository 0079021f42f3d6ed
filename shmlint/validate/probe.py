"""A real torch DataLoader run that says whether /dev/shm was big enough: ``python -m shmlint.validate.probe``.

The loader's workers build every batch in /dev/shm. The main loop consumes batches slowly, as a
training step does: each step lasts until every prefetch slot is filled again, however loaded the machine (a fixed
sleep is not enough when the workers get little CPU), and drops its batch before taking the next. The peak is then
``workers * prefetch + 1`` batches on every run (a loop that still holds the old batch while the next arrives needs
one more now and then: the estimate's ``+ 2`` covers it).

Prints one JSON line: ``{"outcome": "ok" | "shm-error" | "other-error", "signature": ..., "detail": ...,
"batches": n, "seconds": s}`` and exits 0, 3 or 4. Only ``main`` imports torch, so the harness can import
``interpret`` and ``classify`` without it.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

EXIT_OK, EXIT_SHM, EXIT_OTHER = 0, 3, 4
FILL_TIMEOUT_SECONDS = 30.0


class Outcome(StrEnum):
    OK = "ok"
    SHM_ERROR = "shm-error"
    OTHER_ERROR = "other-error"


#: every way torch reports a /dev/shm that is too small, with the name the table shows
SIGNATURES = (
    ("allocate", "unable to allocate shared memory(shm) for file"),
    ("write", "unable to write to file </torch_"),
    ("worker-bus-error", "Unexpected bus error encountered in worker"),
    ("worker-killed-bus-error", "is killed by signal: Bus error"),
)
SIGBUS_SIGNATURE = "sigbus"
_EXIT_CODES = {Outcome.OK: EXIT_OK, Outcome.SHM_ERROR: EXIT_SHM, Outcome.OTHER_ERROR: EXIT_OTHER}


def classify(text: str) -> str | None:
    """The shm failure ``text`` shows, if any: the first signature found."""
    return next((name for name, needle in SIGNATURES if needle in text), None)


@dataclass(frozen=True)
class ProbeResult:
    """What a DataLoader probe saw, as one JSON line the harness reads back."""

    outcome: Outcome
    signature: str | None = None  # which shm failure (SIGNATURES names or ``sigbus``)
    detail: str = ""
    batches: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        return json.dumps(
            {
                "outcome": self.outcome.value,
                "signature": self.signature,
                "detail": self.detail,
                "batches": self.batches,
                "seconds": round(self.seconds, 3),
            }
        )

    @property
    def shown(self) -> str:
        return f"{self.outcome.value} ({self.signature})" if self.signature else self.outcome.value


def interpret(returncode: int, stdout: str, stderr: str, *, timed_out: bool = False) -> ProbeResult:
    """What a finished probe process means, from its JSON line or, when it died before printing one, from its
    exit status and stderr (a SIGBUS in the main process, a worker's bus-error message, a time limit)."""
    if timed_out or returncode == 124:
        return ProbeResult(Outcome.OTHER_ERROR, None, "timed out")
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                data = json.loads(line)
                result = ProbeResult(
                    Outcome(data["outcome"]), data["signature"], data["detail"], data["batches"], data["seconds"]
                )
            except (ValueError, KeyError, TypeError):
                continue
            if result.outcome is Outcome.OTHER_ERROR and classify(stderr):  # a worker's message says why it died
                return ProbeResult(Outcome.SHM_ERROR, classify(stderr), result.detail, result.batches, result.seconds)
            return result
    if returncode in (-signal.SIGBUS, 128 + signal.SIGBUS):
        return ProbeResult(Outcome.SHM_ERROR, SIGBUS_SIGNATURE, "killed by SIGBUS")
    signature = classify(stderr)
    if signature:
        return ProbeResult(Outcome.SHM_ERROR, signature, _last_line(stderr))
    return ProbeResult(Outcome.OTHER_ERROR, None, f"exit {returncode}: {_last_line(stderr) or 'no output'}")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


@dataclass(frozen=True)
class Profile:
    """One DataLoader as the probe runs it."""

    workers: int
    batch_size: int
    sample_bytes: int
    prefetch_factor: int = 2
    procs: int = 1
    batches: int = 0  # 0: workers * prefetch + 3, see batch_count
    step_seconds: float = 0.02

    @property
    def batch_count(self) -> int:
        """A batch that did not fit fails in its worker but surfaces only when the loop reaches it: the first
        full pipeline holds batches up to ``workers * prefetch``, so consume a little past that."""
        return self.batches or self.workers * self.prefetch_factor + 3

    def argv(self, python: str) -> list[str]:
        """The command line that runs this probe with ``python``."""
        return [
            python,
            "-m",
            "shmlint.validate.probe",
            "--workers",
            str(self.workers),
            "--batch",
            str(self.batch_size),
            "--sample-bytes",
            str(self.sample_bytes),
            "--prefetch",
            str(self.prefetch_factor),
            "--procs",
            str(self.procs),
            "--batches",
            str(self.batch_count),
            "--step-seconds",
            str(self.step_seconds),
        ]


class _BuiltBatches:
    """Counts the batches the workers have finished building (or failed to), through a pipe, which uses no
    /dev/shm of its own; the collate function writes a byte per batch, inherited by the forked workers."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        self.count = 0

    def collate(self, samples: list) -> object:  # runs in a worker
        from torch.utils.data import default_collate

        try:
            return default_collate(samples)  # in a worker: straight into a new /dev/shm segment
        finally:
            os.write(self.write_end, b"\x01")

    def wait_for(self, target: int, timeout: float) -> None:
        """Until ``target`` batches are built; a stuck worker surfaces in the next ``next()``, not here."""
        deadline = time.monotonic() + timeout
        while self.count < target:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.read_end], [], [], remaining)[0]:
                return
            self.count += len(os.read(self.read_end, 4096))


def _run_loader(profile: Profile) -> ProbeResult:
    import torch
    from torch.utils.data import DataLoader, Dataset

    class Samples(Dataset):
        def __len__(self) -> int:
            return 1 << 30

        def __getitem__(self, index: int) -> torch.Tensor:
            return torch.full((profile.sample_bytes,), index % 251, dtype=torch.uint8)

    torch.set_num_threads(1)
    built = _BuiltBatches()
    in_flight = profile.workers * profile.prefetch_factor
    started = time.monotonic()
    consumed = 0
    try:
        loader = DataLoader(
            Samples(),
            batch_size=profile.batch_size,
            num_workers=profile.workers,
            prefetch_factor=profile.prefetch_factor if profile.workers else None,
            collate_fn=built.collate,
            multiprocessing_context="fork" if profile.workers else None,  # the workers inherit the pipe
        )
        batches = iter(loader)
        for index in range(profile.batch_count):
            batch = next(batches)
            # the training step: it lasts until every batch asked for (the prefetched ones and the one just
            # requested in exchange for this) is built, however busy the machine, so each step holds the full
            # pipeline; then the step's own time
            built.wait_for(in_flight + index + 1, FILL_TIMEOUT_SECONDS)
            time.sleep(profile.step_seconds)
            del batch
            consumed += 1
        del batches
    except Exception as exc:  # noqa: BLE001 - any failure is an outcome to report, not a crash
        text = f"{type(exc).__name__}: {exc}"
        signature = classify(text)
        outcome = Outcome.SHM_ERROR if signature else Outcome.OTHER_ERROR
        return ProbeResult(outcome, signature, _last_line(text), consumed, time.monotonic() - started)
    return ProbeResult(Outcome.OK, None, "", consumed, time.monotonic() - started)


def _run_processes(profile: Profile) -> ProbeResult:
    """``procs`` loaders at once in one /dev/shm, like torchrun's processes in one container; the worst wins."""
    single = replace(profile, procs=1)
    started = time.monotonic()
    children = [
        subprocess.Popen(single.argv(sys.executable), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(profile.procs)
    ]
    try:
        outputs = [child.communicate() for child in children]
        results = [interpret(child.returncode, *output) for child, output in zip(children, outputs, strict=False)]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    rank = {Outcome.SHM_ERROR: 0, Outcome.OTHER_ERROR: 1, Outcome.OK: 2}
    worst = min(results, key=lambda r: rank[r.outcome])
    batches = sum(r.batches for r in results)
    return ProbeResult(worst.outcome, worst.signature, worst.detail, batches, time.monotonic() - started)


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (from ``timeout`` or a harness cleaning up) unwinds normally, so the loader stops its workers."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shmlint.validate.probe", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--sample-bytes", type=int, required=True)
    parser.add_argument("--prefetch", type=int, default=2)
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument("--batches", type=int, default=0)
    parser.add_argument("--step-seconds", type=float, default=0.02)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)  # "suggested max number of worker": intended here
    signal.signal(signal.SIGTERM, _terminate)
    profile = Profile(
        args.workers, args.batch, args.sample_bytes, args.prefetch, args.procs, args.batches, args.step_seconds
    )
    result = _run_processes(profile) if profile.procs > 1 else _run_loader(profile)
    print(result.line(), flush=True)
    return _EXIT_CODES[result.outcome]


if __name__ == "__main__":
    sys.exit(main())
