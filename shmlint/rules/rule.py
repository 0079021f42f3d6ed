"""What a rule module defines (a ``Rule``) and what its check reports through (the run's ``RuleContext``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shmlint.catalog import lookup
from shmlint.model import Finding, Fix, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.source import Span
from shmlint.visible import excerpt

#: a rule's implementation: a pure function from one workload to its findings
Check = Callable[[Workload, "RuleContext"], Iterable[Finding]]


class Rule(NamedTuple):
    """A rule's handle: its code ties it to its catalog entry, its check finds it.

    Only the code is held here: slug, severity and docs stay in the catalog entry, read when the rule reports.
    """

    code: str
    check: Check | None  # None: reported by the engine, which owns reading and parsing (SHM000)


class RuleContext:
    """Settings and catalog lookups shared by every check of one run.

    A slotted class rather than a NamedTuple: it is a service, not a value, and costs nothing to define.
    """

    __slots__ = ("settings",)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def report(
        self,
        rule: Rule,
        message: str,
        span: Span,
        workload: Workload | None,
        fix: Fix | None = None,
        *,
        at_most: Severity | None = None,
        undecided: bool = False,
    ) -> Finding:
        """A finding of ``rule`` with its catalog slug and configured severity (lowered to ``at_most``).

        ``undecided``: the finding rests on software whose /dev/shm need is not known; it is info unless the
        ``undecided`` setting is strict, and then no more than a warning (a guess is never an error)."""
        entry = lookup(rule.code)
        if entry is None:
            raise LookupError(f"{rule.code} has no catalog entry")  # the registry meta-test rules this out
        severity = self.settings.severity_for(rule.code, entry.severity)
        if undecided:
            at_most = Severity.WARNING if self.settings.undecided == "strict" else Severity.INFO
        if at_most is not None:
            severity = min(severity, at_most)
        # quoted file text can hold line breaks (an unterminated quote): a finding is always one line
        return Finding(rule.code, entry.slug, severity, excerpted(message), span, workload, fix, undecided)

    def wanted_size(self, workload: Workload) -> int:
        """What a fix writes: the recommendation for the workload's DataLoader hint, else the configured size."""
        if workload.dataloader is not None:
            from shmlint.dataloader import estimate  # only workloads with a hint need the estimator

            return estimate(workload.dataloader).recommended_bytes
        return self.settings.fix_shm_bytes

    def minimum(self, workload: Workload) -> int:
        """Below this SHM005 speaks: the hint's estimated need, else the configured minimum."""
        if workload.dataloader is not None:
            from shmlint.dataloader import estimate

            return estimate(workload.dataloader).estimate_bytes
        return self.settings.min_shm_bytes


#: the first and last characters kept of a long word (a run without blanks: an image, an environment value) and
#: of a long message; values read through YAML aliases made every finding of a file quote kilobytes (issue 27)
WORD_ENDS, MESSAGE_ENDS = (100, 40), (800, 397)
MAX_QUOTED_WORD, MAX_MESSAGE = sum(WORD_ENDS) + 3, sum(MESSAGE_ENDS) + 3


def excerpted(message: str) -> str:
    """The message on one line, each over-long word and the whole cut in the middle (the remedy at its end
    stays)."""
    return excerpt(" ".join(excerpt(word, *WORD_ENDS) for word in message.split()), *MESSAGE_ENDS)
