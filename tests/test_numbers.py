"""``shmlint.numbers``: counts and numbers read from hostile text are ASCII digits only and bounded, and never
raise.
"""

from __future__ import annotations

import hypothesis
import pytest
from hypothesis import strategies as st

from shmlint.numbers import MAX_INT, ascii_float, ascii_int, read_int
from tests.hostile import BIG, SUPERSCRIPT


@pytest.mark.parametrize("text", [SUPERSCRIPT, "\u0661", "1\u00b2", BIG, "", "-1", "1.5", "0x10", " "])
def test_read_int_refuses_what_is_not_ascii_digits_or_too_long(text: str) -> None:
    read = read_int(text)
    assert read.value is None and read.problem


def test_read_int_bounds_and_leading_zeros() -> None:
    assert read_int("0008", maximum=8).value == 8
    assert read_int("9", maximum=8) == (None, "out of range (at most 8)")
    assert read_int(str(MAX_INT)).value == MAX_INT
    assert read_int(str(MAX_INT + 1)).value is None
    assert read_int("1_000").value is None
    assert ascii_int("0" * 5000 + "7") == 7  # leading zeros are not "too long"


@hypothesis.given(st.text(max_size=30) | st.integers(min_value=0).map(str), st.integers(min_value=0))
def test_read_int_never_raises_and_stays_in_bounds(text: str, maximum: int) -> None:
    read = read_int(text, maximum=maximum)
    assert (read.value is None) is bool(read.problem)
    assert read.value is None or 0 <= read.value <= maximum
    plain = text.strip()
    if plain.isascii() and plain.isdigit() and len(plain) < 30 and int(plain) <= min(maximum, MAX_INT):
        assert read.value == int(plain)
    number = ascii_float(text)
    assert number is None or number - number == 0


@pytest.mark.parametrize("text", ["\u0661", BIG, "inf", "nan", "1e999", SUPERSCRIPT])
def test_ascii_float_refuses_non_ascii_long_and_infinite(text: str) -> None:
    assert ascii_float(text) is None
