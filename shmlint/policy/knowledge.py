"""The linter's knowledge as data an admission policy can hold: the tier data's software entries with their
patterns as lists, the accelerator signals, the rules' codes, slugs and severities, all translated to RE2.

Read at run time from ``shmlint/data/shm_need.yaml`` (the source the compiled copy is built from) and
``shmlint/signals.py``, so entries added there reach the next generated policy without an edit here.
"""

from __future__ import annotations

from shmlint.catalog import lookup
from shmlint.formats.kubernetes.device_claims import GPU_CLAIM
from shmlint.formats.kubernetes.pod_reader import NO_SHARE, SHARED_CONTAINER_ANNOTATION, SHARED_GPU_ANNOTATIONS
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Tier
from shmlint.named_tuple import NamedTuple
from shmlint.policy.re2 import (
    SPACE,
    Re2Pattern,
    UnsupportedPattern,
    glob_to_re2,
    literal_alternatives,
    to_re2,
    to_re2_pattern,
)
from shmlint.rules.rule import Rule
from shmlint.rules.shm001_missing_shm import RULE as MISSING_SHM
from shmlint.rules.shm003_shm_unbounded import RULE as SHM_UNBOUNDED
from shmlint.rules.shm007_host_ipc import RULE as HOST_IPC
from shmlint.rules.shm008_host_shm_mount import RULE as HOST_SHM_MOUNT
from shmlint.rules.shm012_nccl_shm_disabled import RULE as NCCL_SHM_DISABLED
from shmlint.rules.shm013_ipc_none import RULE as IPC_NONE
from shmlint.runtime.shm import SHM_PATH
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.signals import NO_GPU_VISIBLE, NON_WORKLOAD_TAGS

#: the rules an admission policy can judge on a pod, in catalog order
POD_RULES = (MISSING_SHM, SHM_UNBOUNDED, HOST_IPC, HOST_SHM_MOUNT, NCCL_SHM_DISABLED, IPC_NONE)
#: a pod has no field for ``ipc: none`` (a runtime setting): this rule is listed, never reported at admission
NO_POD_FIELD = (IPC_NONE,)

#: ``NCCL_SHM_DISABLE`` values NCCL reads as 1 (``shmlint.runtime.nccl``: strtoll with base 0, then ``== 1``):
#: blanks, an optional ``+``, then 1 in decimal, octal or hexadecimal, ended by a character that is no digit of it
NCCL_DISABLES = r"^[\t-\r ]*\+?(?:0[xX]0*1(?:[^0-9a-fA-F]|\z)|0+1(?:[^0-7]|\z)|1(?:[^0-9]|\z))"
#: a resource count above zero as ``shmlint.signals.positive_count`` reads it: blanks and quotes around an ASCII
#: decimal (``shmlint.numbers.ascii_float``: a sign, digits with one point, an exponent) with a digit other than 0.
#: Not said here: the linter's 64-character bound on decimals with a point or exponent, and exponents so large or
#: small that the float overflows or underflows (no count is written so)
_BLANK = f"[{SPACE}]*"
_MANTISSA = r"(?:[0-9]*[1-9][0-9]*(?:\.[0-9]*)?|[0-9]*\.[0-9]*[1-9][0-9]*)"
POSITIVE_COUNT = rf"^{_BLANK}[\"']*{_BLANK}\+?{_MANTISSA}(?:[eE][+-]?[0-9]+)?{_BLANK}[\"']*{_BLANK}\z"
#: a memory limit above zero (the linter's ``memory_limit.bytes``, rounded up): at admission it is a valid quantity,
#: whose number has a digit other than 0 before any suffix or exponent
POSITIVE_QUANTITY = r"^\+?0*\.?0*[1-9]"
#: a DataLoader hint (``shmlint.dataloader.parse_hint``) that declares workers, with the keys a hint needs
DATALOADER_KEYS = ("workers", "batch", "sample", "dtype", "procs", "prefetch")
DATALOADER_WORKERS = r"(?:^|[\s\"'])workers=0*[1-9][0-9]{0,3}(?:[\s\"']|\z)"


class Software(NamedTuple):
    """One tier-data entry as a policy holds it: patterns in RE2, the tier as its number (needs 2 > unknown 1 >
    free 0, the linter's order)."""

    id: str
    tier: int
    what: str
    commands: tuple[Re2Pattern, ...]
    images: tuple[Re2Pattern, ...]
    image_tags: tuple[Re2Pattern, ...]
    accelerator_only: bool
    command_wins: bool = False  # a command match drops every image match
    host_centric: bool = False  # on TPUs alone this entry does not stop ``tpu_alone``
    min_devices: int = 0  # counted GPUs the container must request for the entry to match (0: any)
    per_device: bool = False  # one process per GPU: a container given exactly one counted GPU is no match
    runs_command: bool = False  # the image's entrypoint runs the command given (``need.image_runs_it``)


class RuleInfo(NamedTuple):
    """A rule's code, slug and configured severity; ``undecided``: the severity of its findings on an accelerator
    whose software is not known (SHM001) as the ``undecided`` setting makes it, "" when they are not reported;
    ``judged``: whether a pod says enough to judge it."""

    code: str
    slug: str
    severity: str
    undecided: str
    judged: bool


class Knowledge(NamedTuple):
    """Everything a generated policy decides with; built from the data files by ``export``."""

    software: tuple[Software, ...]
    multi_device_min: int
    multi_device_tier: int  # the tier of several counted GPUs when no entry matched
    tpu_alone_tier: int  # the tier of TPUs alone (every accelerator evidence matches ``tpu_evidence``), -1: none
    tpu_evidence: str
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
    positive_quantity: str  # a memory limit above zero
    dataloader_hint: str  # a well-formed ``shmlint.io/dataloader`` value
    dataloader_workers: str
    rules: tuple[RuleInfo, ...]
    #: GPUs given otherwise than by resources (``PodReader.granted``): the share annotations, the one that names the
    #: container a share is for, a share of none, and a resource claim's names that stand for a GPU
    share_annotations: tuple[str, ...]
    shared_container: str
    no_share: str
    gpu_claim: str


def _patterns(patterns: list[str] | tuple[str, ...] | None) -> tuple[Re2Pattern, ...]:
    return tuple(to_re2_pattern(pattern) for pattern in patterns or ())


def _plain(patterns: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Patterns matched as one list (the torch signals): a lookahead there is refused, not split."""
    found = []
    for pattern in _patterns(patterns):
        if pattern.unless is not None:
            raise UnsupportedPattern(f"{pattern.head!r}: a lookahead is exported in the tier data's lists only")
        found.append(pattern.head)
    return tuple(found)


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
            bool(entry.get("command_wins", False)),
            bool(entry.get("host_centric", False)),
            int(entry.get("min_devices", 0)),
            bool(entry.get("per_device", False)),
            bool(entry.get("entrypoint_runs_command", False)),
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
    tpu = data["accelerators"].get("tpu_alone")
    rules = []
    for rule in POD_RULES:
        entry = lookup(rule.code)
        if entry is None:
            raise LookupError(f"{rule.code} has no catalog entry")
        severity = settings.severity_for(rule.code, entry.severity)
        rules.append(
            RuleInfo(rule.code, entry.slug, severity.label, _undecided(settings, severity), rule not in NO_POD_FIELD)
        )
    return Knowledge(
        software=_configured_software(settings) + _software(data),
        multi_device_min=int(data["accelerators"]["multi_device"]["min_devices"]),
        multi_device_tier=int(Tier[data["accelerators"]["multi_device"]["tier"].upper()]),
        tpu_alone_tier=int(Tier[tpu["tier"].upper()]) if tpu else -1,
        tpu_evidence="|".join(f"(?:{p})" for p in _plain(tpu["evidence_patterns"] if tpu else ())) or "$^",
        gpu_resource="|".join(glob_to_re2(glob) for glob in signals.gpu_resources),
        counted_resource="|".join(glob_to_re2(glob) for glob in signals.counted_resources),
        gpu_runtime=r"(?i)^[\s\v]*(?:" + literal_alternatives(signals.gpu_runtimes) + r")[\s\v]*\z",
        gpu_envs=tuple(signals.gpu_envs),
        counted_envs=tuple(signals.counted_envs),
        no_gpu_visible=r"(?i)^[\s\v]*(?:" + literal_alternatives(sorted(NO_GPU_VISIBLE)) + r")[\s\v]*\z",
        gpu_device="|".join(glob_to_re2(glob) for glob in signals.gpu_devices),
        torch_images=_plain(list(signals.torch_images)),
        non_workload_tag="|".join(_plain(list(NON_WORKLOAD_TAGS))),
        torch_commands=_plain(list(signals.torch_commands)),
        utility_command=r"(?:^|/)(?:" + literal_alternatives(signals.utility_commands) + r")\z",
        shm_path=r"^[\s\v]*" + SHM_PATH + r"/*[\s\v]*\z",
        host_shm=r"^" + SHM_PATH + r"(?:/[\s\S]*)?\z",
        nccl_disables=NCCL_DISABLES,
        positive_count=POSITIVE_COUNT,
        positive_quantity=POSITIVE_QUANTITY,
        dataloader_hint=(
            r"^[\s\v]*[\"']?[\s\v]*(?:dataloader[\s\v]+)?(?:(?:"
            + "|".join(DATALOADER_KEYS)
            + r")=[^\s\v]+[\s\v]*)+[\"']?[\s\v]*\z"
        ),
        dataloader_workers=DATALOADER_WORKERS,
        rules=tuple(rules),
        share_annotations=SHARED_GPU_ANNOTATIONS,
        shared_container=SHARED_CONTAINER_ANNOTATION,
        no_share=to_re2(NO_SHARE, ignore_case=False),
        gpu_claim=to_re2(GPU_CLAIM),
    )


def _undecided(settings: Settings, severity: Severity) -> str:
    """As ``RuleContext.report`` lowers an undecided finding: not listed (summary), info (show), at most a warning
    (strict)."""
    if settings.undecided == "summary":
        return ""
    return min(severity, Severity.WARNING if settings.undecided == "strict" else Severity.INFO).label


def rule_info(k: Knowledge, rule: Rule) -> RuleInfo:
    return next(info for info in k.rules if info.code == rule.code)


def judged(k: Knowledge) -> tuple[RuleInfo, ...]:
    """The rules a policy reports, in catalog order."""
    return tuple(info for info in k.rules if info.judged)


def alternations(k: Knowledge, field: str) -> tuple[str, ...]:
    """Every entry's patterns of one field (``commands``, ``images``, ``image_tags``) as a few RE2 patterns, each
    pattern in its own group with its own flags: a policy tries them first, since most containers match no entry
    (a pattern's head: what its ``unless`` vetoes is decided per entry). Several, each of at most
    ``ALTERNATION_WEIGHT``: an engine compiles a counted repetition into that many copies, and one alternation of
    every command pattern outgrew the 10 MB program the Rust engines allow (Go's RE2 pays in compile time)."""
    chunks: list[list[str]] = [[]]
    weight = 0
    for pattern in (pattern.head for entry in k.software for pattern in getattr(entry, field)):
        cost = _weight(pattern)
        if chunks[-1] and weight + cost > ALTERNATION_WEIGHT:
            chunks.append([])
            weight = 0
        chunks[-1].append(f"(?:{pattern})")
        weight += cost
    return tuple("|".join(chunk) for chunk in chunks if chunk) or ("$^",)


#: the most one alternation of ``alternations`` weighs (``_weight``): about a quarter of the command patterns
ALTERNATION_WEIGHT = 4000
#: the upper bound of a counted repetition (``{0,256}``, ``{3}``)
_REPEAT_TOP = LazyRegex(r"\{(?:[0-9]{0,4},)?([0-9]{1,4})\}")


def _weight(pattern: str) -> int:
    """About how large an engine compiles ``pattern``: its length, and each counted repetition's copies."""
    return len(pattern) + sum(int(top) for top in _REPEAT_TOP.findall(pattern))
