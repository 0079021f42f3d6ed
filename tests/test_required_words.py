"""The scanner of ``shmlint.required_words`` never claims a word a match can lack (the prefilter would skip a real
finding, a ``LazyRegex`` would miss a match): checked on patterns built at random from what it reads and what it
gives up on, and on texts near the matches of every shipped pattern; and it still finds the words it should."""

from __future__ import annotations

import re
import signal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shmlint.lazy_regex import LazyRegex
from shmlint.required_words import required_words, requirements
from tests.test_data_modules import PATTERNS

#: characters the random patterns and texts are made of: letters in both cases, a blank and punctuation
ALPHABET = "abAB -._/"
ASCII = st.characters(codec="ascii")


def _search(pattern: str, text: str) -> re.Match[str] | None:
    """``re.search`` under a one-second alarm: a random pattern can backtrack for hours even on a short text (nested
    quantifiers), and ``re`` checks signals while it runs; such an example is discarded, not waited for."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        return re.search(pattern, text, re.IGNORECASE)
    except TimeoutError:
        assume(False)
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _holds(text: str, pattern: str) -> None:
    """Every requirement of the pattern is met by an ASCII text it matches (a random pattern's search is not
    linear: a text is kept short, and its search is bounded in time)."""
    if len(text) <= 24 and text.isascii() and _search(pattern, text):
        lowered = text.lower()
        for words in requirements(pattern):
            assert any(word in lowered for word in words), (pattern, text, words)


def _quantified(atom: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    quantifiers = st.sampled_from(["", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,3}", "{,2}", "+?", "*?", "??"])
    return st.tuples(atom, quantifiers).map("".join)


LITERALS = st.sampled_from([*ALPHABET, r"\.", r"\-", r"\ ", r"\/"])
NO_WORD = st.sampled_from(["[ab]", "[^a]", "[-.]", "[]a]", ".", r"\d", r"\w", r"\s"])
PLACES = st.sampled_from(["^", "$", r"\b", r"\B", r"\A", r"\Z"])


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        sequence = st.lists(st.one_of(_quantified(inner), PLACES), min_size=1, max_size=4).map("".join)
        groups = st.tuples(st.sampled_from(["(", "(?:", "(?>", "(?P<g>", "(?i:", "(?=", "(?!"]), sequence).map(
            lambda parts: f"{parts[0]}{parts[1]})"
        )
        alternation = st.lists(sequence, min_size=2, max_size=3).map(lambda items: "(?:" + "|".join(items) + ")")
        behind = st.sampled_from(["(?<=a)", "(?<!b)", "(?<=\\.)"])
        return st.one_of(groups, alternation, behind)

    atoms = st.recursive(st.one_of(LITERALS, NO_WORD), extend, max_leaves=8)
    top = st.lists(st.one_of(_quantified(atoms), PLACES), min_size=1, max_size=6).map("".join)
    return st.lists(top, min_size=1, max_size=3).map("|".join)


@settings(max_examples=300, deadline=None)
@given(pattern=_patterns(), data=st.data())
def test_no_text_a_random_pattern_matches_lacks_a_word_it_requires(pattern: str, data) -> None:
    """Texts of the patterns' own characters, and the pattern's literal characters as a text, each also changed
    a little (hypothesis's ``from_regex`` can search without end for a text that a random pattern never matches)."""
    try:
        re.compile(pattern)
    except re.error:
        assume(False)
    literal = re.sub(r"\\(.)|\(\?(?:[:>=!]|P<g>|i:|<[=!])|[][()^$|*+?{}\\]", r"\1", pattern)
    for text in (literal, *(data.draw(st.text(alphabet=ALPHABET, max_size=10)) for _ in range(3))):
        _holds(text, pattern)
        _holds(_mutated(text, data), pattern)


def _mutated(sample: str, data) -> str:
    """A text near a match: a slice removed or repeated, a case changed, a character of the pattern's put in."""
    if not sample:
        return sample
    start = data.draw(st.integers(0, len(sample) - 1))
    end = data.draw(st.integers(start, min(len(sample), start + 4)))
    how = data.draw(st.sampled_from(["drop", "repeat", "case", "insert"]))
    if how == "drop":
        return sample[:start] + sample[end:]
    if how == "repeat":
        return sample[:end] + sample[start:end] + sample[end:]
    if how == "case":
        return sample[:start] + sample[start:end].swapcase() + sample[end:]
    return sample[:start] + data.draw(st.sampled_from("-_. /=0aAbB")) + sample[start:]


@settings(max_examples=300, deadline=None)
@given(pattern=st.sampled_from([regex for regex, _ in PATTERNS]), data=st.data())
def test_no_text_near_a_match_of_a_shipped_pattern_lacks_its_words(pattern: str, data) -> None:
    text = data.draw(st.from_regex(re.compile(pattern, re.IGNORECASE), alphabet=ASCII))
    for _ in range(6):
        text = _mutated(text, data)
        _holds(text, pattern)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"(^|/)sglang$", ("sglang",)),
        (r"--num[_-]workers[= ]+[1-9]", ("workers",)),
        (r"(?:(^|/)aitoolkit$)|(?:(^|/)ai-toolkit$)", ("ai-toolkit", "aitoolkit")),
        (r"(mpirun|mpiexec)\b", ("mpiexec", "mpirun")),
        (r"a(b|c*)d", ("a",)),  # the branch with an empty choice requires nothing
        (r"x(abc)+y", ("abc",)),
        (r"x(abc)*y", ("x",)),
        (r"trai?ning", ("ning",)),  # a character that may be absent ends the run before it (and starts the next)
        (r"ab+cd", ("bcd",)),  # one that repeats ends the run after it and starts the next
        (r"-m +vllm\.entrypoints\b", ("vllm.entrypoints",)),
        (r"(?i)vllm", ("vllm",)),
        (r"(?s-i:vllm).", ("vllm",)),
        (r"sglang(?!-router)", ("sglang",)),  # a lookaround's content is never required
        (r"(?<=/)vllm", ("vllm",)),
        (r"(?P<engine>vllm)", ("vllm",)),
        (r"[]a]bc", ("bc",)),
        (r"[a-z]+", None),
        (r"(?:a|b)", ("a", "b")),
        (r"ſtart", ("tart",)),  # a letter outside ASCII is never a word: IGNORECASE matches it with "s"
        (r"text generation", ("generation",)),  # no word holds a blank
    ],
)
def test_required_words(pattern, words) -> None:
    assert required_words(pattern) == words


@pytest.mark.parametrize(
    "pattern",
    [
        r"\x41vllm",  # an escape other than punctuation
        r"\u212aubectl",  # the Kelvin sign, escaped
        r"(vllm)\1",  # a backreference
        r"(?x)v l l m",  # verbose: blanks and # mean something else
        r"(?:vllm){e<=1}",  # the regex engine's fuzzy match: a word may be misspelt
        r"vllm[[:alpha:]]x",  # a POSIX class to the regex engine
        r"(?(1)vllm|sglang)",  # a conditional
        r"(?#note)vllm",
        r"(?|vllm|sglang)",  # the regex engine's branch reset
        r"(?<name>vllm)",  # the regex engine's named group
        r"vllm)",  # unbalanced
        r"(vllm",
        r"vllm[",
        r"*vllm",
        r"vllm{",
        r"vllm\p{L}",
        "vllm\\",
        "(" * 5000 + "vllm" + ")" * 5000,  # deeper than the scanner recurses
    ],
)
def test_what_the_scanner_does_not_read_gives_no_word(pattern) -> None:
    assert requirements(pattern) == []
    assert required_words(pattern) is None


@pytest.mark.parametrize(
    ("pattern", "value"),
    [("sglang", "ſglang"), ("kubectl", "\u212aubectl"), ("tritonserver", "trıtonserver"), ("vllm-tpi", "vllm-tpİ")],
)
def test_a_value_whose_case_folds_outside_ascii_is_searched_in_full(pattern, value) -> None:
    """Under IGNORECASE an ASCII letter matches letters outside ASCII (``s`` the long s, ``k`` the Kelvin sign,
    ``i`` the dotted and dotless i) whose lower case may not hold it: such a value is never ruled out by words."""
    words = required_words(pattern)
    assert words == (pattern,)
    assert re.search(pattern, value, re.IGNORECASE)
    regex = LazyRegex(pattern, re.IGNORECASE, words)
    assert regex.search(value) is not None
    assert regex.search(f"team/{pattern.upper()}") is not None
    assert regex.search("other/image") is None
