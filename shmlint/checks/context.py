"""What a check needs besides the workload: settings and the catalog's slug and severity for each code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from shmlint.catalog import lookup
from shmlint.effective import applied_sources
from shmlint.model import Finding, Fix, Format, ShmKind, ShmSource, Workload
from shmlint.settings import Settings
from shmlint.source import Span

#: how each format sizes /dev/shm, for messages that say what to do
REMEDY = {
    Format.KUBERNETES: "mount an emptyDir with medium: Memory and a sizeLimit at /dev/shm",
    Format.COMPOSE: "set shm_size on the service",
    Format.COMMAND: "add --shm-size (e.g. --shm-size=8g)",
}


def gpu_sources(workload: Workload, kind: ShmKind) -> Iterator[ShmSource]:
    """A GPU/torch workload's /dev/shm declarations of one kind that reach the container (none otherwise)."""
    if workload.is_gpu_or_torch:
        yield from (source for source in applied_sources(workload) if source.kind is kind)


@dataclass(frozen=True)
class CheckContext:
    """Settings and catalog lookups shared by every check of one run."""

    settings: Settings

    def wanted_size(self, workload: Workload) -> int:
        """What a fix writes: the recommendation for the workload's DataLoader hint, else the configured size."""
        if workload.dataloader is not None:
            from shmlint.sizing import estimate  # only workloads with a hint need the estimator

            return estimate(workload.dataloader).recommended_bytes
        return self.settings.fix_shm_bytes

    def minimum(self, workload: Workload) -> int:
        """Below this SHM005 speaks: the hint's estimated need, else the configured minimum."""
        if workload.dataloader is not None:
            from shmlint.sizing import estimate

            return estimate(workload.dataloader).estimate_bytes
        return self.settings.min_shm_bytes

    def finding(
        self, code: str, message: str, span: Span, workload: Workload | None, fix: Fix | None = None
    ) -> Finding:
        rule = lookup(code)
        assert rule is not None, code
        severity = self.settings.severity_for(code, rule.severity)
        # quoted file text can hold line breaks (an unterminated quote): a finding is always one line
        return Finding(code, rule.slug, severity, " ".join(message.split()), span, workload, fix)
