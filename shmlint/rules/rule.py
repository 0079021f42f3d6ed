"""What a rule module defines (a ``Rule``) and what its check reports through (the run's ``RuleContext``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shmlint import sizing
from shmlint.catalog_files import slug_of
from shmlint.model import Finding, Fix, ShmSource, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.sizing import FixSize
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
        detail: str = "",
        default: Severity | None = None,
    ) -> Finding:
        """A finding of ``rule`` with its catalog slug and configured severity (lowered to ``at_most``);
        ``default``: its severity where the configuration names none, when not the catalog's.

        ``undecided``: the finding rests on software whose /dev/shm need is not known; it is info unless the
        ``undecided`` setting is strict, and then no more than a warning (a guess is never an error).
        ``detail``: the long explanation; a message cut to ``MAX_MESSAGE`` keeps its whole text there."""
        slug = slug_of(rule.code)
        if slug is None:
            raise LookupError(f"{rule.code} has no catalog entry")  # the registry meta-test rules this out
        if undecided:
            at_most = Severity.WARNING if self.settings.undecided == "strict" else Severity.INFO
        severity = self._severity(rule.code, at_most, default)
        # quoted file text can hold line breaks (an unterminated quote): a finding is always one line
        short = excerpted(message, MAX_MESSAGE)
        if not detail and short != " ".join(message.split()):
            detail = message
        return Finding(rule.code, slug, severity, short, span, workload, fix, undecided, excerpted(detail, MAX_DETAIL))

    def _severity(self, code: str, at_most: Severity | None, default: Severity | None = None) -> Severity:
        """The configured severity, else ``default`` or the catalog's, lowered to ``at_most``. Nothing is below
        info: a finding held to info (an undecided one) does not parse its catalog entry for a default it cannot
        use."""
        if at_most is Severity.INFO:
            return at_most
        if default is None:
            from shmlint.catalog import lookup

            entry = lookup(code)
            if entry is None:
                raise LookupError(f"{code} has no catalog entry")
            default = entry.severity
        severity = self.settings.severity_for(code, default)
        return severity if at_most is None else min(severity, at_most)

    def fix_size(self, workload: Workload, *, current: int | None = None, source: ShmSource | None = None) -> FixSize:
        """What a fix writes and why (``shmlint.sizing``: one policy for every rule)."""
        return sizing.fix_size(workload, self.settings.fix_size, current=current, source=source)

    def wanted(self, workload: Workload) -> int:
        """What a fix would write before any memory limit caps it (``shmlint.sizing``)."""
        return sizing.wanted(workload, self.settings.fix_size).bytes

    def floor(self, workload: Workload, source: ShmSource) -> tuple[int, str]:
        """Below this SHM005 speaks about ``source``, and why (``shmlint.sizing``)."""
        return sizing.floor(workload, self.settings.min_shm_size, source)


#: the longest word (a run without blanks: an image, an environment value) a finding quotes, the longest message
#: (one line, issue 28) and the longest detail; values read through YAML aliases made every finding of a file
#: quote kilobytes (issue 27)
MAX_QUOTED_WORD, MAX_MESSAGE, MAX_DETAIL = 60, 200, 1200


def excerpted(message: str, limit: int = MAX_MESSAGE) -> str:
    """The text on one line, each over-long word and the whole cut in the middle (the remedy at its end stays)."""
    line = " ".join(excerpt(word, 40, MAX_QUOTED_WORD - 43) for word in message.split())
    head = limit * 2 // 3
    return excerpt(line, head, limit - head - 5, " ... ")
