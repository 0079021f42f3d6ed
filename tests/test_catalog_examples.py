"""Every catalog example runs: ``bad`` reports exactly its rule (plus what ``also`` lists), ``good`` reports
nothing, and where the rule has a fix, fixing ``bad`` gives ``fixed``, which re-checks with no finding at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.catalog import CatalogEntry, Example, load_catalog
from shmlint.discover import FileKind, kind_by_name
from shmlint.fix.apply import fix_source
from shmlint.source import SourceText
from tests.support import default_engine

ENGINE = default_engine()
EXAMPLES = [(rule, example) for rule in load_catalog().values() for example in rule.examples]


def check(example: Example, text: str):
    kind = kind_by_name(Path(example.filename)) or FileKind.YAML
    return ENGINE.check_source(SourceText(example.filename, text), kind, Path(example.filename)), kind


def ids(pair: tuple[CatalogEntry, Example]) -> str:
    return f"{pair[0].code}:{pair[1].title}"


@pytest.mark.parametrize("pair", EXAMPLES, ids=ids)
def test_bad_reports_exactly_its_rule(pair: tuple[CatalogEntry, Example]) -> None:
    rule, example = pair
    result, _ = check(example, example.bad)
    assert {f.code for f in result.findings} == {rule.code, *example.also}


@pytest.mark.parametrize("pair", EXAMPLES, ids=ids)
def test_good_reports_nothing(pair: tuple[CatalogEntry, Example]) -> None:
    result, _ = check(pair[1], pair[1].good)
    assert not result.findings, [f.message for f in result.findings]


@pytest.mark.parametrize("pair", [p for p in EXAMPLES if p[1].fixed is not None], ids=ids)
def test_fixed_is_what_fix_makes(pair: tuple[CatalogEntry, Example]) -> None:
    example = pair[1]
    result, kind = check(example, example.bad)
    fixed = fix_source(ENGINE, result.source, kind, Path(example.filename), unsafe=True)
    assert fixed.text == example.fixed
    after, _ = check(example, fixed.text)
    assert not after.findings, [f"{f.code} {f.message}" for f in after.findings]  # the fixed file checks clean


def test_every_fixable_rule_shows_a_fix() -> None:
    missing = [
        rule.code
        for rule in load_catalog().values()
        if rule.fix.availability.value != "never" and not any(e.fixed for e in rule.examples)
    ]
    assert not missing, f"fixable rules without a `fixed` example: {missing}"
