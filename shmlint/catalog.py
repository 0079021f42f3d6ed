"""The rule catalog: one YAML file per rule in the top-level ``rules/`` folder, each naming the module that finds it.

The catalog is the single source for codes, slugs, default severities, docs and examples; the rule registry,
reporters, ``shmlint explain`` and the generated docs all read it from here. Nothing is loaded at import time, so a
plain ``shmlint check`` pays for the catalog only when something asks for it. Validation against
``rules/schema.json`` lives in the test suite, which keeps ``jsonschema`` out of the import path.
"""

from __future__ import annotations

import functools
import os
from enum import StrEnum
from typing import Any

import yaml

from shmlint.catalog_files import CatalogError, catalog_dir, file_of, rule_files
from shmlint.model import Applicability, WorkloadFormat
from shmlint.named_tuple import NamedTuple
from shmlint.severity import Severity

#: libyaml when PyYAML was built with it (about ten times faster); the pure-Python loader otherwise
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FixAvailability(StrEnum):
    ALWAYS = "always"  # every finding of the rule carries a fix
    SOMETIMES = "sometimes"  # only when the meaning is certain
    NEVER = "never"  # manual change only


class Source(NamedTuple):
    """An upstream page the rule's rationale rests on."""

    title: str
    url: str


class FixInfo(NamedTuple):
    """What ``shmlint fix`` can do for the rule; ``applicability`` is None when no fix exists."""

    availability: FixAvailability
    applicability: Applicability | None
    description: str


class Example(NamedTuple):
    """A file that triggers the rule (``bad``) and one that triggers nothing (``good``).

    ``filename`` decides how the text is read, exactly as discovery would read a file of that name.
    ``fixed`` is what ``shmlint fix`` makes of ``bad``; ``also`` lists other codes ``bad`` reports by design.
    """

    title: str
    filename: str
    bad: str
    good: str
    fixed: str | None = None
    also: tuple[str, ...] = ()


class CatalogEntry(NamedTuple):
    """One rule as its catalog file describes it: what it reports, why, how to fix it, and examples."""

    code: str
    slug: str
    implementation: str  # the module that finds the rule: ``shmlint.rules.`` + ``stem``
    severity: Severity
    summary: str
    rationale: str
    sources: tuple[Source, ...]
    how_to_fix: str
    fix: FixInfo
    formats: tuple[WorkloadFormat, ...]
    examples: tuple[Example, ...]
    predicts_shm_failure: bool = False  # a finding means a DataLoader crash: ``shmlint validate`` probes it

    @property
    def name(self) -> str:
        """``SHM001 missing-shm``: how docs and messages name a rule."""
        return f"{self.code} {self.slug}"

    @property
    def stem(self) -> str:
        """``shm001_missing_shm``: the name of the rule's catalog file and of its implementation module."""
        return f"{self.code.lower()}_{self.slug.replace('-', '_')}"

    @property
    def filename(self) -> str:
        """The catalog file this rule must live in."""
        return f"{self.stem}.yaml"


def load_catalog() -> dict[str, CatalogEntry]:
    """All rules by code, ordered by code. A fresh dict each call, so callers cannot change each other's view."""
    rules = [_rule_from_file(entry) for entry in rule_files()]
    codes = [rule.code for rule in rules]
    if len(set(codes)) != len(codes):
        raise CatalogError(f"duplicate codes in the rule catalog at {catalog_dir()}")
    return {rule.code: rule for rule in sorted(rules, key=lambda rule: rule.code)}


def lookup(code_or_slug: str) -> CatalogEntry | None:
    """Find a rule by code (any case: ``shm001``) or by slug (``missing-shm``).

    Only the rule's own file is read: its name is ``code_slug.yaml`` in lower case with ``_`` for ``-`` (a
    catalog test holds every file to that), so a rule that reports does not parse the others.
    """
    name = file_of(code_or_slug)
    return None if name is None else _rule_from_file(name)


@functools.cache
def _rule_from_file(name: str) -> CatalogEntry:
    """Read and convert one catalog file once per process; a frozen rule is safe to share."""
    try:
        with open(os.path.join(catalog_dir(), name), encoding="utf-8") as handle:
            data = yaml.load(handle.read(), Loader=_LOADER)
        return _rule_from_data(data)
    except (yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise CatalogError(f"{name}: invalid catalog entry: {error!r}") from error


def _rule_from_data(data: dict[str, Any]) -> CatalogEntry:
    fix = data["fix"]
    applicability = fix.get("applicability")
    return CatalogEntry(
        code=data["code"],
        slug=data["slug"],
        implementation=data["implementation"],
        severity=Severity.parse(data["severity"]),
        summary=data["summary"].strip(),
        rationale=data["rationale"].strip(),
        sources=tuple(Source(title=item["title"], url=item["url"]) for item in data["sources"]),
        how_to_fix=data["how_to_fix"].strip(),
        fix=FixInfo(
            availability=FixAvailability(fix["availability"]),
            applicability=Applicability(applicability) if applicability else None,
            description=fix["description"].strip(),
        ),
        formats=tuple(WorkloadFormat(name) for name in data["formats"]),
        examples=tuple(
            Example(
                title=item["title"],
                filename=item["filename"],
                bad=item["bad"],
                good=item["good"],
                fixed=item.get("fixed"),
                also=tuple(item.get("also", ())),
            )
            for item in data["examples"]
        ),
        predicts_shm_failure=bool(data.get("predicts_shm_failure", False)),
    )
