"""Helpers more than one rule uses: which /dev/shm declarations count, how to say what to do (each format's
spelling of the remedy is its descriptor's, ``shmlint.formats.describe``)."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import reaching_sources
from shmlint.model import STARTED_AT, ShmKind, ShmSource, Size, Tier, Workload
from shmlint.severity import Severity
from shmlint.sizes import human
from shmlint.visible import clipped, excerpt

#: how a workload without a way of its own (``Format.declare_loader``) declares its DataLoader
HINT_COMMENT = "a `# shmlint: dataloader workers=...` comment"


def uses_shm(workload: Workload) -> bool:
    """GPU/torch work whose software is not known to leave /dev/shm alone (tier ``free``, ``shmlint.need``): every
    rule about the container's /dev/shm asks this, so a workload known not to use it gets no finding from any of
    them. A workload no tier was decided for (the engine decides one for every GPU/torch workload) counts."""
    return workload.is_gpu_or_torch and (workload.need is None or workload.need.tier is not Tier.FREE)


def unknown_need(workload: Workload) -> bool:
    """Work whose software shmlint cannot place: a claim that it will crash would be a guess."""
    return workload.need is not None and workload.need.tier is Tier.UNKNOWN


def need_cap(workload: Workload) -> Severity | None:
    """The most a finding that rests on the workload's need may be: info for a command a sentence writes as inline
    code (``Workload.mentioned``: it may only mention it; a warning where the guide types commands into that
    container next, audit87c: "launch it as `docker run -it ...` and, within the container, ..."), a warning where
    that need came from a guide's later steps
    (``Workload.command_later``: probably, not surely, typed there); else what the catalog says. Findings that do
    not rest on it (a size docker rejects) keep their severity."""
    if workload.mentioned:  # a guide that goes on to type commands into it uses the sentence as an instruction
        return Severity.WARNING if workload.command_from else Severity.INFO
    return Severity.WARNING if workload.command_later else None


def claims_missing_shm(workload: Workload) -> bool:
    """Whether a rule that says "this workload has no usable /dev/shm" (SHM001, SHM002, SHM013) speaks: software
    that uses it, or unknown software on an accelerator (a warning). Unknown torch work on the CPU gets nothing: a
    torch image or a single process there does not touch /dev/shm (``cpu_only_pytorch`` in the data). Rules that
    judge a /dev/shm the workload already declares still do: the declaration says its author expects it used. A
    workload nobody is known to start (``Workload.decided_only``) speaks only where its software uses it."""
    if workload.decided_only:  # no container anyone is known to start: said only where its need is known
        return workload.is_gpu_or_torch and workload.need is not None and workload.need.tier is Tier.NEEDS
    return uses_shm(workload) and not (unknown_need(workload) and not workload.gpu)


def gpu_sources(workload: Workload, kind: ShmKind) -> Iterator[ShmSource]:
    """The /dev/shm declarations of one kind that reach the container of a workload that ``uses_shm``."""
    if uses_shm(workload):
        yield from (source for source in reaching_sources(workload) if source.kind is kind)


def first_source(workload: Workload, kind: ShmKind) -> ShmSource | None:
    """The workload's first declaration of one kind, applied or not."""
    return next((source for source in workload.shm if source.kind is kind), None)


def evidence(workload: Workload) -> str:
    """Why the workload counts as GPU/torch, for messages: its first two pieces of evidence."""
    return ", ".join(e.text for e in (*workload.gpu, *workload.torch)[:2])


def set_elsewhere(size: Size) -> bool:
    """A size written with a variable (``${SHM}``, ``${SHM:-1g}``): its value is set where the variable is (a
    ``.env``, the shell, a deploy script), which may give more than the file shows, so no fix writes a number over
    it (a fix never lowers what a workload gets elsewhere)."""
    return "$" in size.text


def written(size: Size) -> str:
    """A size as its file writes it, with the value it takes when the text does not say it: a variable's
    (``${SHM} (64 MiB)``), or the runtime's default a 0 stands for (docker's ``--shm-size 0``, compose's
    ``shm_size: 0``: ``0 (64 MiB)``), so the short message says what was judged, not only what is written."""
    if size.bytes is not None and (set_elsewhere(size) or size.runtime_default):
        return f"{size.text} ({human(size.bytes)})"
    return size.text


def who(workload: Workload) -> str:
    """The workload's name for a one-line message, cut in the middle: its end names the container."""
    return excerpt(" ".join(workload.name.split()), 30, 27)


def first_evidence(workload: Workload) -> str:
    """The first piece of evidence, short: the detail quotes the rest."""
    return clipped(evidence(workload).split(", ")[0], 44)


def need_evidence(workload: Workload) -> str:
    """What decided that the software uses /dev/shm, short: the matched image or command when the data says it
    (``torchrun ... (command torchrun train.py)``), else the reason itself."""
    because = workload.need.because if workload.need is not None else evidence(workload)
    decided, built, dockerfile = because.rpartition(", built by ")
    if built:  # the image built for it decides: what, and the Dockerfile line that says so (where the build of
        # that image is written is the detail's: ``Dockerfile:3 (build at Makefile:12)``)
        return f"{clipped(_matched(decided), 32)}, {dockerfile.partition(' (')[0].rpartition('/')[2]}"
    return _matched(because) + command_from(workload, because)


def command_from(workload: Workload, because: str) -> str:
    """Where the command that decided was read when its workload's own lines do not hold it (commands typed into
    an interactive container's shell): `` (typed in the container, README.md:23)``."""
    return f" ({workload.command_from})" if workload.command_from and "(command " in because else ""


def _matched(because: str) -> str:
    """The quote after what the data says (its words may hold parentheses of their own): the image or command it
    matched, or what a repository file shows and where; else those words."""
    matched = because.partition(" (")[0]
    starts = [i + 2 for i in range(len(because)) if because.startswith(" (", i)]
    for part in (because[start:] for start in starts):
        if not part.endswith(")"):
            continue
        if part.startswith(("image ", "command ")):
            matched = part[:-1].partition(" ")[2]  # the image or the command itself
            break
        if _file_and_line(part):
            matched = part[:-1]  # what the repository's file shows, where
            break
    if _file_and_line(matched):  # its file name: the detail has the whole path
        place, _, rest = matched.partition(" ")
        name = place.rpartition("/")[2]
        fact, started, where = rest.split("; ", 1)[0].rpartition(STARTED_AT)  # the first fact, where it is started
        if started:  # where it is started stays whole: it is how the reader finds the way there
            return f"{clipped(f'{name} {fact}', 44)}{STARTED_AT}{where.rpartition('/')[2]}"
        return clipped(f"{name} {rest}", 56)
    return clipped(matched, 40)


def _file_and_line(text: str) -> bool:
    """Whether ``text`` starts with a repository file and line (``scripts/run.sh:5 ...``, ``bin/train:50 ...``: a
    script without an extension is named by its folder)."""
    place, space, _ = text.partition(" ")
    return bool(space) and place.rpartition(":")[2].isdigit() and ("." in place or "/" in place)
