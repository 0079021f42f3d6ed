"""Every rule, in code order, derived from the catalog: the engine runs them, the meta-tests hold them to it.

Each catalog entry ``rules/shm005_shm_too_small.yaml`` names its implementation, the module
``shmlint.rules.shm005_shm_too_small`` (a catalog test holds the ``implementation`` field to the file's name), so
adding a rule is a catalog entry, a module and fixtures, with no list to edit here. Only file names are read:
listing the rules costs one directory read, not parsing fourteen YAML files. Only files with a workload import
this module (and so the rules).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator

from shmlint.catalog_files import rule_stems
from shmlint.model import Finding, Workload
from shmlint.rules.rule import Rule, RuleContext


@functools.cache
def rules() -> tuple[Rule, ...]:
    """The ``RULE`` of every catalog entry's module, in code order; imported once per process."""
    found = []
    for stem in rule_stems():
        rule = importlib.import_module(f"{__package__}.{stem}").RULE
        if not isinstance(rule, Rule):
            raise TypeError(f"{__package__}.{stem}.RULE is not a Rule")
        found.append(rule)
    return tuple(found)


def run_rules(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    """The findings of every enabled rule that checks workloads, in code order."""
    for rule in rules():
        if rule.check is not None and ctx.settings.enabled(rule.code):
            yield from rule.check(workload, ctx)
