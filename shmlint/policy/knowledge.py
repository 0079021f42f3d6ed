"""The linter's knowledge as data an admission policy can hold: the tier data's software entries with their
patterns as lists, the accelerator signals, the rules' codes, slugs and severities, all translated to RE2.

Read at run time from ``shmlint/data/shm_need.yaml`` (the source the compiled copy is built from) and
``shmlint/signals.py``, so entries added there reach the next generated policy without an edit here.
"""

from __future__ import annotations

from shmlint.catalog import lookup
from shmlint.model import Tier
from shmlint.named_tuple import NamedTuple
from shmlint.policy.re2 import glob_to_re2, literal_alternatives, to_re2
from shmlint.runtime.shm import SHM_PATH
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.signals import NO_GPU_VISIBLE, NON_WORKLOAD_TAGS

#: the rules an admission policy can judge on a pod, in catalog order
POD_RULES = ("SHM001", "SHM003", "SHM007", "SHM008", "SHM012", "SHM013")

#: ``NCCL_SHM_DISABLE`` values NCCL reads as 1 (``shmlint.runtime.nccl``: strtoll with base 0, then ``== 1``):
#: blanks, an optional ``+``, then 1 in decimal, octal or hexadecimal, ended by a character that is no digit of it
NCCL_DISABLES = r"^[\t-\r ]*\+?(?:0[xX]0*1(?:[^0-9a-fA-F]|\z)|0+1(?:[^0-7]|\z)|1(?:[^0-9]|\z))"
#: a resource count above zero as ``shmlint.signals.positive_count`` reads it (a Kubernetes quantity or a number)
_DIGITS = r"[0-9](?:_?[0-9])*"  # Python's digitpart: single underscores between digits
_NONZERO = r"(?:[0-9](?:_?[0-9])*_?)?[1-9](?:_?[0-9])*"  # a digitpart with a digit other than 0
POSITIVE_COUNT = (
    r"^[\s\v]*[\"']*[\s\v]*\+?(?:(?:"
    + _NONZERO
    + r"(?:\.(?:"
    + _DIGITS
    + r")?)?|(?:"
    + _DIGITS
    + r")?\."
    + _NONZERO
    + r")"
    r"(?:[eE][+-]?" + _DIGITS + r")?|(?i:inf(?:inity)?))[\s\v]*[\"']*[\s\v]*\z"
)
#: a DataLoader hint (``shmlint.dataloader.parse_hint``) that declares workers, with the keys a hint needs
DATALOADER_KEYS = ("workers", "batch", "sample", "dtype", "procs", "prefetch")
DATALOADER_WORKERS = r"(?:^|[\s\"'])workers=0*[1-9][0-9]{0,3}(?:[\s\"']|\z)"


class Software(NamedTuple):
    """One tier-data entry as a policy holds it: patterns in RE2, the tier as its number (needs 2 > unknown 1 >
    free 0, the linter's order)."""

    id: str
    tier: int
    what: str
    commands: tuple[str, ...]
    images: tuple[str, ...]
    image_tags: tuple[str, ...]
    accelerator_only: bool


class RuleInfo(NamedTuple):
    """A rule's code, slug and configured severity; ``warning``: what it says at most when the linter lowers it to a
    warning (SHM001 on software it does not know)."""

    code: str
    slug: str
    severity: str
    warning: str


class Knowledge(NamedTuple):
    """Everything a generated policy decides with; built from the data files by ``export``."""

    software: tuple[Software, ...]
    multi_device_min: int
    gpu_resource: str  # anchored alternation of the accelerator resource globs
    counted_resource: str
    gpu_runtime: str  # a runtimeClassName the extractor reads as an accelerator (trimmed, any case)
    gpu_envs: tuple[str, ...]
    counted_envs: tuple[str, ...]
    no_gpu_visible: str  # a visibility variable's value that exposes nothing
    gpu_device: str  # hostPath paths that hand over an accelerator device node
    torch_images: tuple[str, ...]
    non_workload_tag: str
    torch_commands: tuple[str, ...]
    utility_command: str  # the first word of a diagnostic's command (its last path part)
    shm_path: str  # a volumeMount path that is /dev/shm
    host_shm: str  # a hostPath path that is the host's /dev/shm
    nccl_disables: str
    positive_count: str
    dataloader_hint: str  # a well-formed ``shmlint.io/dataloader`` value
    dataloader_workers: str
    rules: tuple[RuleInfo, ...]


def _patterns(patterns: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(to_re2(pattern) for pattern in patterns or ())


def _software(data: dict) -> tuple[Software, ...]:
    return tuple(
        Software(
            entry["id"],
            int(Tier[entry["tier"].upper()]),
            " ".join(entry["what"].split()),
            _patterns(entry["match"].get("commands")),
            _patterns(entry["match"].get("images")),
            _patterns(entry["match"].get("image_tags")),
            bool(entry.get("accelerator_only", False)),
        )
        for entry in data["software"]
    )


def _configured_software(settings: Settings) -> tuple[Software, ...]:
    """Configuration's shm-images/shm-commands (needs) and shm-free-* (free), first as in ``need.configured``."""
    found = []
    for tier, images, commands in (
        (Tier.NEEDS, settings.shm_images, settings.shm_commands),
        (Tier.FREE, settings.shm_free_images, settings.shm_free_commands),
    ):
        if images or commands:
            name = tier.name.lower()
            found.append(
                Software(
                    f"configured-{name}",
                    int(tier),
                    f"configured as {name}",
                    _patterns(commands),
                    _patterns(images),
                    (),
                    False,
                )
            )
    return tuple(found)


def export(settings: Settings | None = None) -> Knowledge:
    """The knowledge of the shipped data, extended by ``settings`` (configuration) where given."""
    from shmlint.build_data import read_need_yaml

    settings = settings or Settings()
    signals = settings.signals
    data = read_need_yaml()
    rules = []
    for code in POD_RULES:
        entry = lookup(code)
        if entry is None:
            raise LookupError(f"{code} has no catalog entry")
        severity = settings.severity_for(code, entry.severity)
        rules.append(RuleInfo(code, entry.slug, severity.label, min(severity, Severity.WARNING).label))
    return Knowledge(
        software=_configured_software(settings) + _software(data),
        multi_device_min=int(data["accelerators"]["multi_device"]["min_devices"]),
        gpu_resource="|".join(glob_to_re2(glob) for glob in signals.gpu_resources),
        counted_resource="|".join(glob_to_re2(glob) for glob in signals.counted_resources),
        gpu_runtime=r"(?i)^[\s\v]*(?:" + literal_alternatives(signals.gpu_runtimes) + r")[\s\v]*\z",
        gpu_envs=tuple(signals.gpu_envs),
        counted_envs=tuple(signals.counted_envs),
        no_gpu_visible=r"(?i)^[\s\v]*(?:" + literal_alternatives(sorted(NO_GPU_VISIBLE)) + r")[\s\v]*\z",
        gpu_device="|".join(glob_to_re2(glob) for glob in signals.gpu_devices),
        torch_images=_patterns(list(signals.torch_images)),
        non_workload_tag="|".join(_patterns(list(NON_WORKLOAD_TAGS))),
        torch_commands=_patterns(list(signals.torch_commands)),
        utility_command=r"(?:^|/)(?:" + literal_alternatives(signals.utility_commands) + r")\z",
        shm_path=r"^[\s\v]*" + SHM_PATH + r"/*[\s\v]*\z",
        host_shm=r"^" + SHM_PATH + r"(?:/[\s\S]*)?\z",
        nccl_disables=NCCL_DISABLES,
        positive_count=POSITIVE_COUNT,
        dataloader_hint=(
            r"^[\s\v]*[\"']?[\s\v]*(?:dataloader[\s\v]+)?(?:(?:"
            + "|".join(DATALOADER_KEYS)
            + r")=[^\s\v]+[\s\v]*)+[\"']?[\s\v]*\z"
        ),
        dataloader_workers=DATALOADER_WORKERS,
        rules=tuple(rules),
    )


def alternation(k: Knowledge, field: str) -> str:
    """Every entry's patterns of one field (``commands``, ``images``, ``image_tags``) as one RE2 pattern, each in
    its own group with its own flags: a policy tries it first, since most containers match no entry."""
    patterns = [pattern for entry in k.software for pattern in getattr(entry, field)]
    return "|".join(f"(?:{pattern})" for pattern in patterns) or "$^"
