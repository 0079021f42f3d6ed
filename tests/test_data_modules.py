"""The data modules a run reads (``shmlint/data/shm_need.py``, ``signal_words.py``) are what their sources give,
so editing the tier YAML or the signals without rewriting them (``python -m shmlint.build_data``) cannot go
unnoticed; and the words each pattern carries are words every match of it contains, so skipping a pattern whose
words are absent loses nothing."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint import build_data, need, prefilter
from shmlint.data import shm_need, signal_words
from shmlint.lazy_regex import LazyRegex
from shmlint.required_words import required_words
from shmlint.signals import Signals

#: each shipped pattern with its words (the need data keeps them as one string, each word followed by a blank)
PATTERNS = [
    (regex, tuple(words.split()) if words is not None else None)
    for item in shm_need.SOFTWARE
    for pattern in item[4:7]
    if pattern is not None
    for regex, words in (pattern,)
] + [(pattern, words) for pattern, words in signal_words.PATTERN_WORDS.items()]


@pytest.mark.parametrize("path", sorted(build_data.expected()), ids=lambda path: path.name)
def test_each_data_module_is_what_the_builder_writes(path) -> None:
    text = build_data.expected()[path]
    assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run `python -m shmlint.build_data`"


def test_the_builtin_prefilter_words_are_the_worked_out_ones() -> None:
    """The words a run reads for the built-in signals are what it would work out, and configured signals still
    get their own (the control: a configured image pattern adds its word)."""
    assert prefilter.prefilter_words(Signals()) == prefilter.words_for(Signals())
    extended = Signals(torch_images=(*Signals().torch_images, r"(^|/)myorg-trainer$"))
    assert "myorg-trainer" in (prefilter.prefilter_words(extended) or ())


def test_the_compiled_copy_holds_every_entry_and_pattern_of_the_yaml() -> None:
    """The control for the comparison above: the copy is not an empty shell that compares equal to nothing."""
    data = build_data.read_need_yaml()
    assert [item[0] for item in shm_need.SOFTWARE] == [item["id"] for item in data["software"]]
    joined = "".join(pattern for pattern, _ in PATTERNS)
    for item in data["software"]:
        for patterns in item.get("match", {}).values():
            assert all(f"(?:{p})" in joined for p in patterns)


def test_a_run_reads_the_compiled_copy(monkeypatch) -> None:
    """The control: ``builtin()`` reads the compiled copy, so a different copy gives different knowledge."""
    monkeypatch.setattr(shm_need, "MULTI_DEVICE_MIN", 7)
    need.builtin.cache_clear()
    try:
        assert need.builtin().multi_device_min == 7
    finally:
        need.builtin.cache_clear()


@pytest.mark.parametrize("pattern", PATTERNS, ids=[words[0] if words else "none" for _, words in PATTERNS])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_match_of_a_shipped_pattern_holds_one_of_its_words(pattern, data) -> None:
    regex, words = pattern
    assert words == required_words(regex)
    text = data.draw(st.from_regex(re.compile(regex, re.IGNORECASE)))
    if words is not None and text.isascii():
        assert any(word in text.lower() for word in words), (regex, text)
    assert (LazyRegex(regex, re.IGNORECASE, words).search(text) is None) == (re.search(regex, text, re.I) is None)


def test_every_shipped_pattern_has_words() -> None:
    """The prefilter and the lazy patterns stay effective: the scanner finds words in every shipped pattern."""
    assert len(PATTERNS) > 100
    assert [regex for regex, words in PATTERNS if words is None] == []
