"""How serious a finding is; a module of its own because settings and the command line need it before anything
else is loaded."""

from __future__ import annotations

from enum import IntEnum


class Severity(IntEnum):
    """Ordered so that ``--fail-on`` can compare: info < warning < error."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]
