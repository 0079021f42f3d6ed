"""Deeply nested YAML is refused the same way across the PyYAML range pyproject allows, whatever refuses it.

PyYAML up to 6.0.3 composes any depth and shmlint's event pass refuses more than ``MAX_DEPTH`` levels; from
6.0.4 its libyaml refuses 1,000 levels itself (block nesting too), with its own message. Either way the file is
an SHM000 finding at the place it goes too deep, and nothing shallower is refused. ``.ci/run`` runs this file
again with the lowest (6.0) and the newest (6.0.4) PyYAML.
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from shmlint.parsers.yamlnodes import (
    FLOW_OPENERS_IN_C,
    MAX_DEPTH,
    YamlError,
    _may_be_too_deep,
    _most_flow_openers,
    compose,
)
from shmlint.source import SourceText
from tests.support import NESTING_REFUSED

#: the first PyYAML whose libyaml bounds nesting itself
OWN_BOUND = (6, 0, 4)


def version() -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", yaml.__version__)[:3])


SHAPES = {
    "flow-sequences": lambda depth: "a: " + "[" * depth + "]" * depth + "\n",
    "flow-mappings": lambda depth: "a: " + "{a: " * depth + "1" + "}" * depth + "\n",
    "block-sequences": lambda depth: "- " * depth + "x\n",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shallower_than_the_bound_is_composed(shape: str) -> None:
    assert len(compose(SourceText("ok.yaml", SHAPES[shape](MAX_DEPTH - 1)))) == 1


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 20 * MAX_DEPTH])
def test_deeper_than_the_bound_is_refused_with_a_place(shape: str, depth: int) -> None:
    text = SHAPES[shape](depth)
    with pytest.raises(YamlError, match=NESTING_REFUSED) as raised:
        compose(SourceText("deep.yaml", text))
    assert raised.value.line == 1 and 0 < raised.value.offset <= len(text)


def test_who_refuses_follows_the_pyyaml_version() -> None:
    """Where the versions differ: exactly ``MAX_DEPTH`` block levels compose up to 6.0.3 and are refused by
    libyaml from 6.0.4; the message says whose bound it was."""
    text = SHAPES["block-sequences"](MAX_DEPTH)
    if version() >= OWN_BOUND:
        with pytest.raises(YamlError, match="exceeded maximum nesting depth"):
            compose(SourceText("deep.yaml", text))
    else:
        assert len(compose(SourceText("deep.yaml", text))) == 1
        with pytest.raises(YamlError, match=f"nesting deeper than {MAX_DEPTH} levels"):
            compose(SourceText("deep.yaml", SHAPES["flow-sequences"](MAX_DEPTH)))


def test_the_allowed_range_is_the_tested_range() -> None:
    """.ci/run runs this file at the lower bound pyproject allows and at the newest release it names."""
    import tomllib

    from tests.support import ROOT

    with (ROOT / "pyproject.toml").open("rb") as handle:
        dependencies = tomllib.load(handle)["project"]["dependencies"]
    (allowed,) = [d for d in dependencies if d.startswith("PyYAML")]
    lower = re.fullmatch(r"PyYAML>=([\d.]+),<7", allowed)
    assert lower, allowed
    bounds = re.search(r'^PYYAML_BOUNDS="([\d.]+) ([\d.]+)"$', (ROOT / ".ci" / "run").read_text(), re.MULTILINE)
    assert bounds and bounds.group(1) == lower.group(1), "the lowest PyYAML tested is the lowest allowed"
    assert tuple(map(int, bounds.group(2).split("."))) >= OWN_BOUND  # the newest tested has libyaml's own bound


_LINE = st.tuples(
    st.integers(0, MAX_DEPTH + 50), st.booleans(), st.sampled_from(["a: b", "- x", "[1, [2]]", "{a: {}}"])
)


@given(st.lists(_LINE, min_size=1, max_size=12), st.integers(0, 40))
def test_the_cheap_depth_bounds_answer_as_their_rules_say(lines: list[tuple[int, bool, str]], openers: int) -> None:
    """The shortcuts (no run of blanks as long as the budget; few flow openers in the whole text) give the answers
    of the rules written out: the largest indentation against what the openers and dashes leave of the depth, and
    the most flow openers of any one document."""
    text = "\n".join(("\t" if tab else "") + " " * indent + body for indent, tab, body in lines)
    text += "\n---\n" + "[" * openers + "\n" + "#" * max(0, MAX_DEPTH - len(text))
    budget = MAX_DEPTH - text.count("[") - text.count("{") - text.count("-")
    deep = budget <= 0 or re.search(rf"^[ \t]{{{budget},}}", text, re.MULTILINE) is not None
    assert _may_be_too_deep(text) == deep
    documents = re.split(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", text, flags=re.MULTILINE)
    most = max(part.count("[") + part.count("{") for part in documents)
    assert (_most_flow_openers(text) > FLOW_OPENERS_IN_C) == (most > FLOW_OPENERS_IN_C)
