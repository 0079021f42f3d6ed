"""The linter's explanations for pods (``Finding.detail`` of ``shmlint/rules/``: a denial has room for the whole
reason, where the linter's one-line message is short), as templates both policy languages render: each names a
container's record field in braces. What the linter puts in parentheses (the evidence) is the evidence the policy
has: the tier entry's ``what`` rather than the matched text, the image rather than the image and command."""

from __future__ import annotations

import re

from shmlint.file_formats import describe
from shmlint.model import WorkloadFormat
from shmlint.policy.knowledge import HOST_IPC, HOST_SHM_MOUNT, MISSING_SHM, NCCL_SHM_DISABLED, SHM_UNBOUNDED

_REMEDY = describe(WorkloadFormat.KUBERNETES).remedy

#: (code, variant) -> template; the variants: the missing-shm rule's tier (2 decided, 1 undecided), the unbounded
#: rule's BOUNDED (a memory limit bounds the volume: info), the host-IPC rule's OWN_SHM (the container mounts its
#: own /dev/shm over the host's: info) or None
BOUNDED = "bounded"
OWN_SHM = "ownShm"
#: the rules whose finding is info where a variant holds (a field of the same name on each judged container)
INFO_VARIANTS = {SHM_UNBOUNDED.code: BOUNDED, HOST_IPC.code: OWN_SHM}
TEMPLATES: dict[tuple[str, int | str | None], str] = {
    (MISSING_SHM.code, 2): (
        "{display} runs software that uses /dev/shm ({what}) with no sized /dev/shm, so it gets the runtime default of "
        f"64 MiB and can crash there; {_REMEDY}"
    ),
    (MISSING_SHM.code, 1): (
        "{display} has an accelerator ({what}) and no sized /dev/shm, so it gets 64 MiB; whether its software (image "
        "{image}) uses /dev/shm is not known (DataLoader workers and NCCL between local processes do, and crash "
        f"there): if it does, {_REMEDY}; to settle it, name the image or command in configuration (shm-images / "
        "shm-commands, or shm-free-images / shm-free-commands) or declare its loader with the annotation "
        "shmlint.io/dataloader"
    ),
    (SHM_UNBOUNDED.code, None): (
        '{display}: /dev/shm comes from emptyDir volume "{volumeName}" with no size: it may grow until the node runs '
        "out of memory (and policies such as Kyverno's may cap it silently); give it an explicit size"
    ),
    (SHM_UNBOUNDED.code, BOUNDED): (
        '{display}: /dev/shm comes from emptyDir volume "{volumeName}" with no size: the container\'s memory limit '
        "({memory}) bounds it (and policies such as Kyverno's may cap it silently); give it an explicit size"
    ),
    (HOST_IPC.code, None): (
        "{display} uses the host IPC namespace (hostIPC: true): /dev/shm is large, but the container shares the "
        "host's IPC objects and Pod Security 'baseline' forbids it; prefer a sized memory-backed /dev/shm"
    ),
    (HOST_IPC.code, OWN_SHM): (
        '{display} uses the host IPC namespace (hostIPC: true) and mounts its own /dev/shm (volume "{volumeName}"), '
        "which shadows the host's: host IPC gives its /dev/shm nothing, so it is there for other IPC (GPU memory "
        "shared between pods, MPS, System V segments); the container still shares the host's IPC objects and Pod "
        "Security 'baseline' forbids it"
    ),
    (HOST_SHM_MOUNT.code, None): (
        "{display} mounts the host's /dev/shm (hostPath volume \"{volumeName}\" ({hostPath})): it shares the host's "
        "shared memory with every other user of it, bounded only by the host's own tmpfs (half its RAM by default), "
        "not by anything the manifest says; prefer a sized memory-backed /dev/shm"
    ),
    (NCCL_SHM_DISABLED.code, None): (
        "{display} sets env NCCL_SHM_DISABLE={nccl}: NCCL then moves intra-node GPU traffic from shared memory to "
        "slower paths; size /dev/shm instead and drop the variable"
    ),
}

_FIELD = re.compile(r"\{(\w+)\}")


def parts(template: str) -> list[tuple[bool, str]]:
    """(is a field, text) in order."""
    pieces: list[tuple[bool, str]] = []
    position = 0
    for match in _FIELD.finditer(template):
        pieces.append((False, template[position : match.start()]))
        pieces.append((True, match.group(1)))
        position = match.end()
    pieces.append((False, template[position:]))
    return [piece for piece in pieces if piece[1]]
