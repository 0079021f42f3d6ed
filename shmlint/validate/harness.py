"""Workloads -> the /dev/shm shmlint's own model gives them -> a real DataLoader probe -> one table row each.

The point is to test the model the rules use (``effective_shm``), not a copy of it: a workload flagged by a rule
that predicts a shared-memory failure (``predicts_shm_failure`` in the catalog) must fail the probe with an shm
error, an unflagged one must pass, and after ``shmlint fix`` the flagged one must pass too.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace

from shmlint.catalog import load_catalog
from shmlint.dataloader import estimate
from shmlint.discover import Candidate
from shmlint.effective import ShmState, effective_shm
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import DataLoaderHint, Finding, ShmKind, ShmMechanism, Workload, WorkloadId
from shmlint.results import FileResult
from shmlint.sizes import GIB, MIB, human
from shmlint.validate.backends import Backend, BackendUnavailable, Provision, Reaper, ShmSpec
from shmlint.validate.probe import Outcome, ProbeResult, Profile, interpret

#: a measured default loader, for workloads that declare none: needs ~290 MiB
DEFAULT_PROFILE = DataLoaderHint(workers=4, batch_size=8, sample_bytes=4 * MIB)
DEFAULT_LIMIT_SECONDS = 120.0


@functools.cache
def flagging_codes() -> frozenset[str]:
    """The rules whose findings say "this container's /dev/shm is too small (or missing) to run": each must match a
    failing probe."""
    return frozenset(code for code, rule in load_catalog().items() if rule.predicts_shm_failure)


def shm_spec(workload: Workload) -> ShmSpec | str:
    """The /dev/shm to give the probe, straight from ``effective_shm``; a string says why it is not probed: the
    host's IPC namespace or /dev/shm (a probe would measure this machine, not the workload's node), or a /dev/shm
    that is shared, missing or unknown."""
    effective = effective_shm(workload)
    source = effective.source
    described = f" ({source.description})" if source is not None else ""
    if effective.state is ShmState.DEFAULT:
        return ShmSpec(Provision.DEFAULT)
    if effective.state is ShmState.OPERATOR:  # KubeRay's Memory emptyDir, no larger than the memory limit
        return ShmSpec(Provision.MOUNT_TMPFS, effective.bytes)
    if effective.state is ShmState.HOST and source is not None:
        what = "host IPC" if source.kind is ShmKind.HOST_IPC else "the host's /dev/shm"
        return f"not probed: {what}{described}, which only the workload's own node can reproduce"
    if effective.state in (ShmState.SIZED, ShmState.UNBOUNDED) and source is not None:
        if source.namespace_size:
            return ShmSpec(Provision.IPC_SIZE, effective.bytes)
        tmpfs = source.mechanism is ShmMechanism.TMPFS_OPTION
        return ShmSpec(Provision.TMPFS if tmpfs else Provision.MOUNT_TMPFS, effective.bytes)
    if effective.state is ShmState.DISK:
        return ShmSpec(Provision.DISK)
    return f"not probed: /dev/shm is {effective.state.value}{described}, nothing to reproduce"


@dataclass(frozen=True)
class ProbeLimits:
    """What ``validate`` takes from a manifest, bounded: a hint may declare loaders far larger than a probe should
    start (hints allow 1,024 workers and 1 TiB samples), and a manifest may size /dev/shm in petabytes. A probe
    above a bound is not run (its row says which bound); the probes running at once never hold more than
    ``max_memory`` between them."""

    max_memory: int = 2 * GIB
    max_workers: int = 32
    max_procs: int = 8
    max_prefetch: int = 16
    max_batch: int = 65_536

    def memory(self, profile: DataLoaderHint, shm: ShmSpec) -> int:
        """What a probe may hold: its /dev/shm peak (the estimate, or the tmpfs when smaller: a full tmpfs ends the
        probe) plus the batch each loader process builds in private memory before it reaches /dev/shm."""
        need = estimate(profile).estimate_bytes
        if shm.tmpfs_bytes is not None:
            need = min(need, shm.tmpfs_bytes)
        return need + profile.procs * max(profile.workers, 1) * profile.batch_size * profile.sample_bytes

    def admit(self, profile: DataLoaderHint, shm: ShmSpec) -> ShmSpec | str:
        """``shm`` as the probe mounts it, or why the probe is not run. A tmpfs larger than ``max_memory``, or with
        no size (half of this machine's memory), is mounted at ``max_memory``: an admitted loader never fills that
        much, so the outcome is the same on every machine."""
        counts = (
            ("workers", profile.workers, self.max_workers),
            ("procs", profile.procs, self.max_procs),
            ("prefetch", profile.prefetch_factor, self.max_prefetch),
            ("batch", profile.batch_size, self.max_batch),
        )
        for key, value, bound in counts:
            if value > bound:
                return f"not probed: {key}={value:,} is above the probe's bound of {bound:,}"
        if shm.provision is not Provision.DISK:
            shm = replace(shm, cap=self.max_memory)
        memory = self.memory(profile, shm)
        if memory > self.max_memory:
            return (
                f"not probed: the loader would hold about {human(memory)}, more than the probes' memory limit of "
                f"{human(self.max_memory)} (--max-memory)"
            )
        return shm


@dataclass(frozen=True)
class Case:
    """One workload to probe, as written or as ``shmlint fix`` leaves it."""

    path: str
    workload: str  # the display name, for the table
    identity: WorkloadId  # what matches the workload in the fixed file
    fixed: bool
    codes: tuple[str, ...]  # what ``check`` reports
    profile: DataLoaderHint
    declared: bool  # the profile comes from a hint; DEFAULT_PROFILE otherwise, marked in the table
    shm: ShmSpec | str  # a string: why it cannot be probed
    suppressed: tuple[str, ...] = ()  # what the rules found and an annotation, a comment or configuration hid
    undecided: tuple[str, ...] = ()  # what the rules found about software whose need is not known (only counted)

    @property
    def flagged(self) -> bool:
        """The model predicts an shm failure: a suppression accepts the risk, it does not remove it, and an
        undecided finding is a prediction the gate does not fail on."""
        return bool(flagging_codes().intersection(self.codes + self.suppressed + self.undecided))

    @property
    def fixable(self) -> bool:
        """``shmlint fix`` changes only what ``check`` reports: a suppressed finding stays as written."""
        return bool(flagging_codes().intersection(self.codes))


@dataclass(frozen=True)
class Row:
    """One fixture workload probed by one backend: the outcome beside what shmlint predicted."""

    case: Case
    backend: str
    result: ProbeResult | None  # None: not probed (see case.shm)
    seconds: float
    probe: int = 0  # the distinct probe this row shares with every workload of the same key (1-based); 0: none

    @property
    def verdict(self) -> str:
        """``yes`` when flagged exactly when the probe fails with an shm error (and a fixed workload is neither),
        ``NO`` otherwise or on any other failure, ``n/a`` when nothing could be probed."""
        if self.result is None:
            return "n/a"
        failed = self.result.outcome is Outcome.SHM_ERROR
        if self.result.outcome is Outcome.OTHER_ERROR or self.case.flagged != failed or (self.case.fixed and failed):
            return "NO"
        return "yes"


def _codes(findings: Iterable[Finding], workload: Workload) -> tuple[str, ...]:
    return tuple(sorted({f.code for f in findings if f.workload is workload}))


def _torch_workloads(result: FileResult) -> list[Workload]:
    """The workloads the missing-/dev/shm claim is about (``claims_missing_shm``): the probe runs a DataLoader with
    workers, which is what shmlint claims only of software that uses /dev/shm or unknown software on an accelerator;
    software known not to use it, and unknown torch work on the CPU, are not claimed to crash."""
    from shmlint.rules.common import claims_missing_shm

    return [w for w in result.workloads if claims_missing_shm(w)]


def _probed(profile: DataLoaderHint, shm: ShmSpec | str, limits: ProbeLimits) -> ShmSpec | str:
    return shm if isinstance(shm, str) else limits.admit(profile, shm)


def cases_for(engine: Engine, candidate: Candidate, limits: ProbeLimits = ProbeLimits()) -> list[Case]:
    """A case per GPU/torch workload in the file, and one more after ``shmlint fix`` for each flagged one (not
    probed when the fix writes nothing for it: that probe would only repeat the first); what a probe would take
    beyond ``limits`` is said in the case instead of run."""
    checked = engine.check_candidate(candidate)
    source = checked.source
    if source is None:
        return []
    cases = []
    workloads = _torch_workloads(checked)
    unsuppressed = engine.rules(workloads)  # the same rules before the suppression stage
    for workload in workloads:
        hint = workload.dataloader  # read by the extractors from the hint comment, annotation or label
        # without a hint, each training process the platform starts runs the default loader in the same /dev/shm
        profile = hint or DEFAULT_PROFILE._replace(procs=workload.processes or 1)
        codes = _codes(checked.findings, workload)
        undecided = _codes(checked.undecided, workload)
        suppressed = tuple(code for code in _codes(unsuppressed, workload) if code not in codes + undecided)
        shm = _probed(profile, shm_spec(workload), limits)
        case = Case(source.path, workload.name, workload.id, False, codes, profile, hint is not None, shm, suppressed)
        cases.append(replace(case, undecided=undecided))
    fixes = {f.workload.id for f in checked.findings if f.fix is not None and f.workload is not None}
    flagged = [case for case in cases if case.fixable and case.identity in fixes]
    unfixed = [case for case in cases if case.fixable and case.identity not in fixes]
    for case in unfixed:  # a fix that writes nothing leaves nothing new to probe
        why = f"no after-fix probe: `shmlint fix` has no fix for {', '.join(case.codes)} here"
        cases.append(replace(case, fixed=True, shm=why, suppressed=(), undecided=()))
    if not flagged:
        return cases
    fixed = fix_source(engine, source, candidate.kind, candidate.path)
    rechecked = engine.check_source(source.with_text(fixed.text), candidate.kind, candidate.path)
    by_identity = {w.id: w for w in _torch_workloads(rechecked)}
    for case in flagged:
        after = by_identity.get(case.identity)
        shm = (
            _probed(case.profile, shm_spec(after), limits)
            if after
            else "not probed: the fixed file no longer has this workload"
        )
        codes = _codes(rechecked.findings, after) if after else ()
        cases.append(replace(case, fixed=True, codes=codes, shm=shm, suppressed=(), undecided=()))
    return cases


def probe_profile(hint: DataLoaderHint) -> Profile:
    return Profile(hint.workers, hint.batch_size, hint.sample_bytes, hint.prefetch_factor, hint.procs)


def run_probe(backend: Backend, profile: Profile, shm: ShmSpec, limit: float = DEFAULT_LIMIT_SECONDS) -> ProbeResult:
    output = backend.run(profile.argv(sys.executable), shm, limit)
    return interpret(output.returncode, output.stdout, output.stderr, timed_out=output.timed_out)


def require_torch() -> None:
    if importlib.util.find_spec("torch") is None:
        raise BackendUnavailable(f"torch is not installed for {sys.executable}: pip install torch==2.13.0")


class MemoryBudget:
    """The memory the probes running at once may hold between them: a probe waits until its share is free (one
    probe alone always fits: ``ProbeLimits.admit`` refused any larger)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.held = 0
        self.peak = 0
        self._free = threading.Condition()

    @contextmanager
    def hold(self, amount: int) -> Iterator[None]:
        with self._free:
            self._free.wait_for(lambda: self.held == 0 or self.held + amount <= self.total)
            self.held += amount
            self.peak = max(self.peak, self.held)
        try:
            yield
        finally:
            with self._free:
                self.held -= amount
                self._free.notify_all()


def run_cases(
    cases: Iterable[Case],
    backends: Sequence[Backend],
    reaper: Reaper,
    *,
    jobs: int = 2,
    limit: float = DEFAULT_LIMIT_SECONDS,
    limits: ProbeLimits = ProbeLimits(),
    budget: MemoryBudget | None = None,
) -> list[Row]:
    """Every case on every backend, rows in the order of the cases. Cases with the same (backend, /dev/shm as the
    backend gives it, loader) share one probe, whose outcome is theirs alike: it is run once, ``jobs`` probes at a
    time and within ``limits.max_memory`` together. Interrupted (SIGTERM turned into an exception, Ctrl-C), it
    kills the running probes before waiting for its threads."""
    memory = budget or MemoryBudget(limits.max_memory)
    keys: dict[tuple[object, ...], int] = {}
    distinct: list[tuple[Case, Backend]] = []
    plan: list[tuple[Case, Backend, int]] = []  # -1: not probed
    for case in cases:
        for backend in backends:
            if isinstance(case.shm, str):
                plan.append((case, backend, -1))
                continue
            key = (backend.name, backend.probe_key(case.shm), probe_profile(case.profile))
            index = keys.setdefault(key, len(keys))
            if index == len(distinct):
                distinct.append((case, backend))
            plan.append((case, backend, index))

    def one(case: Case, backend: Backend) -> tuple[ProbeResult, float]:
        assert isinstance(case.shm, ShmSpec)
        with memory.hold(limits.memory(case.profile, case.shm)):
            started = time.monotonic()
            result = run_probe(backend, probe_profile(case.profile), case.shm, limit)
            return result, time.monotonic() - started

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [pool.submit(one, case, backend) for case, backend in distinct]
        outcomes = [future.result() for future in futures]
    except BaseException:
        reaper.kill_all()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [
        Row(case, backend.name, None, 0.0) if index < 0 else Row(case, backend.name, *outcomes[index], index + 1)
        for case, backend, index in plan
    ]


HEADER = ("workload", "backend", "effective /dev/shm", "findings", "probe", "agrees", "seconds", "probe #")


def table_cells(row: Row) -> tuple[str, ...]:
    case = row.case
    name = f"{case.path}: {case.workload}" + (" [after fix]" if case.fixed else "")
    if not case.declared:
        name += " [default loader]" if case.profile.procs == 1 else f" [default loader x {case.profile.procs}]"
    shm = case.shm.label if isinstance(case.shm, ShmSpec) else "?"
    probe = row.result.shown if row.result else str(case.shm)
    findings = [*case.codes, *(f"{code} (suppressed)" for code in case.suppressed)]
    findings += [f"{code} (undecided)" for code in case.undecided]
    shared = f"#{row.probe}" if row.probe else "-"
    return (name, row.backend, shm, ",".join(findings) or "-", probe, row.verdict, f"{row.seconds:.1f}", shared)


def render(rows: Sequence[Row]) -> str:
    """A Markdown table (readable in a terminal, pasteable in docs); a name's control characters and ``|`` are
    escaped, so each row stays one row."""
    from shmlint.visible import visible

    cells = [HEADER, *(tuple(visible(cell).replace("|", "\\|") for cell in table_cells(row)) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADER))]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=False)) + " |"

    return "\n".join([line(HEADER), "| " + " | ".join("-" * w for w in widths) + " |", *map(line, cells[1:])]) + "\n"
