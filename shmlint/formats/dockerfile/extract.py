"""An image's own start: the ``CMD``/``ENTRYPOINT`` a Dockerfile's running stage writes, as ``docker run IMAGE``
starts it, with the runtime's 64 MiB /dev/shm. Torch work (a torch base or a RUN that installs torch, a torch
launcher as its command) or an image built for CUDA GPUs; what it runs is followed into the repository as a compose
service that builds the Dockerfile is (``shmlint.project.follow``), so only its software's decided need makes a
finding (``Workload.decided_only``).

A start that is only a shell (``bash``, ``/bin/sh``) is where a person types, not a program: no start of its own."""

from __future__ import annotations

import os
import posixpath

from shmlint.discover import StrPath
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.dockerfile import run_facts, torch_evidence_text
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

#: a base image built for NVIDIA GPUs: CUDA images, NGC's, and tags that name CUDA or a GPU build
_CUDA_BASE = LazyRegex(r"(?i)\bcuda\b|nvcr\.io/nvidia/|(?<![a-z])cu\d{2,3}(?![0-9])|[-_:.]gpu\b|/cuda[:@-]")
#: programs that only hold a terminal
_SHELLS = frozenset({"sh", "bash", "zsh", "ash", "dash", "fish"})


def image_start(source: SourceText, path: StrPath, signals: Signals) -> Workload | None:
    """The container ``docker run IMAGE`` starts from this Dockerfile, when it writes a start of its own and is torch
    or GPU work; None otherwise."""
    text = source.text
    facts = run_facts(text)
    written = facts.entrypoint or facts.cmd  # an ENTRYPOINT's line, else the CMD's
    words = [*(facts.entrypoint[0] if facts.entrypoint else ()), *(facts.cmd[0] if facts.cmd else ())]
    if written is None or _only_a_shell(words):
        return None
    command = " ".join(words)
    span = _line_span(source, written[1])
    torch_reason = torch_evidence_text(text, signals) or (
        f"command {found}" if (found := signals.torch_command(command)) else None
    )
    torch = (Evidence(torch_reason, span),) if torch_reason else ()
    cuda = next((base for base, _ in facts.bases if _CUDA_BASE.search(base)), None)
    gpu = (Evidence(f"FROM {cuda}: an image built for CUDA GPUs", span),) if cuda else ()
    if not torch and not gpu:
        return None
    folder, name = os.path.split(os.fspath(path))
    return Workload(
        id=WorkloadId(WorkloadFormat.DOCKERFILE, "image", name),
        span=span,
        gpu=gpu,
        torch=torch,
        command=command,
        launch=Launch(folder or ".", build_context=".", dockerfile=name, manifest=os.fspath(path)),
        decided_only=True,
    )


def _only_a_shell(words: list[str]) -> bool:
    """Whether the start is a shell with nothing to run (``CMD ["bash"]``, ``ENTRYPOINT ["/bin/bash"]``)."""
    if words[:2] == ["/bin/sh", "-c"] and len(words) == 3:  # the shell form: the words it runs
        words = words[2].split()
    return not words or (len(words) <= 2 and posixpath.basename(words[0]) in _SHELLS and words[1:] in ([], ["-l"]))


def _line_span(source: SourceText, line: int) -> Span:
    """The instruction's first word on its line (where a suppression comment above it applies)."""
    starts = source.line_starts
    start = starts[min(max(line, 1), len(starts)) - 1]
    text = source.line_text(line)
    word = len(text) - len(text.lstrip())
    end = start + word + len(text.lstrip().split(maxsplit=1)[0]) if text.strip() else start
    return source.span(start + word, end)
