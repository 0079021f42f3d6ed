"""``shmlint.parsers.argv``: an option's values as the program's own parser reads them."""

from __future__ import annotations

import pytest

from shmlint.parsers.argv import option_values

NAMES = ("--model-repository", "--model-store")


@pytest.mark.parametrize(
    ("words", "values"),
    [
        (["--model-repository=/m"], ["/m"]),
        (["--model-store", "/m", "--x=1"], ["/m"]),
        (["--model-repository=/a", "--log-verbose=1", "--model-store", "/b"], ["/a", "/b"]),
        (["--model-repository"], [""]),  # the line ends before its value
        (["--model-repository="], [""]),
        (["--model-repository-x=/m", "/m"], []),  # another option that only starts the same
        (["--model-repository==/m"], ["=/m"]),  # the first = ends the name
    ],
)
def test_option_values(words: list[str], values: list[str]) -> None:
    assert option_values(words, NAMES) == values
