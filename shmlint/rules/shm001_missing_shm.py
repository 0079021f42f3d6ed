"""SHM001 missing-shm: a GPU/torch workload with no /dev/shm declaration keeps the runtime's 64 MiB.

How sure the finding is follows the workload's tier (``shmlint.need``): software known to use /dev/shm is an error,
an accelerator whose software is not known either way a warning that says how to settle it, and software known not
to use /dev/shm no finding at all.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources
from shmlint.file_formats import describe
from shmlint.model import Finding, Fix, FixAction, ShmKind, ShmMechanism, ShmSource, Workload
from shmlint.rules.common import (
    HINT_COMMENT,
    claims_missing_shm,
    command_from,
    evidence,
    first_evidence,
    need_cap,
    need_evidence,
    unknown_need,
    who,
)
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity
from shmlint.sizes import DEFAULT_SHM_BYTES, human
from shmlint.visible import clipped

#: settings whose value is the size (a spread of options that might carry one is not: a fix adds its own beside it)
_SIZES = frozenset({ShmMechanism.NAMESPACE_SIZE, ShmMechanism.TMPFS_OPTION, ShmMechanism.TMPFS_MOUNT})


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    if not claims_missing_shm(workload) or workload.shm_managed_by:
        return
    applied = applied_sources(workload)
    unknown = [s for s in applied if s.kind is ShmKind.UNKNOWN]
    pending = any(s.kind in (ShmKind.UNMOUNTED, ShmKind.BUILD_ONLY) for s in workload.shm)
    if pending or len(unknown) < len(applied):
        return
    size = ctx.fix_size(workload)
    spelled = describe(workload.format)
    remedy, short = spelled.remedy, spelled.fix_in_short
    fix: Fix | None = Fix(FixAction.ADD_SHM, f"give /dev/shm {human(size.bytes)} ({size.why})", size_bytes=size.bytes)
    sized = next((s for s in unknown if s.mechanism in _SIZES), None)
    if size.bytes <= DEFAULT_SHM_BYTES < ctx.wanted(workload):  # capped under the default (half a small memory
        # limit): a size written would lower what it gets
        fix, short = None, f"raise its memory limit first ({size.why} is {human(size.bytes)})"
    elif sized is not None:  # the size itself is a variable, set where it is set, maybe above any number a fix
        # would write over it: no fix, and the remedy is where the variable is set
        fix, short = None, f"make sure {_setting(sized)} gives at least {human(size.bytes)}"
    if unknown_need(workload):
        named = _setting(unknown[0]) if unknown else ""  # a long one is the detail's (a KServe runtime's name)
        shm = "64 MiB /dev/shm" if not unknown else f"/dev/shm unresolved{f' ({named})' if len(named) <= 24 else ''}"
        gets = (
            f"a /dev/shm size not known here ({unknown[0].description} could carry one), so without one it gets 64 MiB"
            if unknown
            else "no sized /dev/shm, so it gets 64 MiB"
        )
        yield ctx.report(
            RULE,
            f"{who(workload)}: accelerator ({first_evidence(workload)}), {shm}, need unknown; if it uses it, {short}",
            workload.span,
            workload,
            fix,
            undecided=True,
            detail=f"{workload.name} has an accelerator ({evidence(workload)}) and {gets}; whether its software ({_software(workload)}) uses /dev/shm "
            f"is not known{_read(workload)} (DataLoader workers and NCCL between local processes do, and crash "
            f"there): if it does, {remedy}; to settle it, name the image or command in configuration (shm-images / shm-commands, "
            f"or shm-free-images / shm-free-commands) or declare its loader with "
            f"{spelled.declare_loader or HINT_COMMENT}",
        )
        return
    because = _decided(workload)
    if unknown:
        yield ctx.report(
            RULE,
            f"{who(workload)} needs /dev/shm ({need_evidence(workload)}); {_setting(unknown[0])} is unresolved; {short}",
            workload.span,
            workload,
            fix,
            at_most=Severity.WARNING,
            detail=f"{workload.name} runs software that uses /dev/shm ({because}) and no /dev/shm "
            f"size is written; {unknown[0].description} could carry one but cannot be resolved here: if it does "
            f"not, /dev/shm is 64 MiB; {remedy} to make it certain",
        )
        return
    yield ctx.report(
        RULE,
        f"{who(workload)} needs /dev/shm ({need_evidence(workload)}), has 64 MiB; {short}",
        workload.span,
        workload,
        fix,
        at_most=need_cap(workload),
        detail=f"{workload.name} runs software that uses /dev/shm ({because}) with no sized "
        f"/dev/shm, so it gets the runtime default of 64 MiB and can crash there; {remedy}",
    )


def _read(workload: Workload) -> str:
    """The repository files followed without settling it, and what was not followed and why, so the reader
    knows what was looked at."""
    facts = workload.project
    if facts is None:
        return ""
    kept = [f"{k.flag} is {k.program}'s own option ({k.place}), which its code gives to no loader" for k in facts.kept]
    said = [*([f"build at {facts.build}"] if facts.build else []), *kept[:1], *facts.notes]
    notes = f" ({'; '.join(said)})" if said else ""
    if not facts.followed:
        return notes
    more = f" and {len(facts.followed) - 3} more" if len(facts.followed) > 3 else ""
    return f" from its name, nor from {', '.join(facts.followed[:3])}{more}{notes}"


def _setting(source: ShmSource) -> str:
    """The setting a description names, without the explanation after it (that is the detail's): cut mid-way, the
    explanation would say nothing ("Fargate's own /dev/shm (F...")."""
    return clipped(source.description.split(" (", 1)[0].split(",", 1)[0], 36)


def _decided(workload: Workload) -> str:
    """The evidence that decided the tier, then the accelerator it runs on (when it has one)."""
    because = workload.need.because if workload.need is not None else evidence(workload)
    if workload.command_from:  # say where the command was read, and which when something else decided
        typed = command_from(workload, because)
        because += typed or f"; its command {clipped(workload.command, 50)} ({workload.command_from})"
    accelerator = ", ".join(e.text for e in workload.gpu[:2])
    return f"{because}; on {accelerator}" if accelerator else because


def _software(workload: Workload) -> str:
    """What shmlint could not place, for the message: the image and the command, as far as the file names them,
    and what the data knows of them that leaves it open (a launcher with one local process)."""
    parts = [f"image {workload.image}"] if workload.image else []
    typed = f" ({workload.command_from})" if workload.command_from else ""
    parts += [f"command {clipped(workload.command, 50)}{typed}"] if workload.command else []
    parts += [f"only utilities among the commands read{typed}"] if typed and not workload.command else []
    need = workload.need
    known = [_without_quote(need.because)] if need is not None and need.entry is not None else []
    return "; ".join(filter(None, [", ".join(parts), *known])) or "not named in the file"


def _without_quote(because: str) -> str:
    """A data entry's words without the command or image it quotes (the message names them already)."""
    for quoted in (" (command ", " (image "):
        because = because.split(quoted, 1)[0]
    return because


RULE = Rule("SHM001", check)
