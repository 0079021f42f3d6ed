"""How much work a parser that builds a whole tree at once would do, counted before it starts.

``ast.parse`` and the JSONC reader build every node of a file before shmlint sees any: 1 MB of ``1,1,1,...``
took ``ast.parse`` 10 s and 527 MB. Their cost grows with the tokens, not the bytes, so the tokens are counted
first (a linear scan that stops at the budget), and a file beyond the budget is reported as too complex.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex

#: a word or any other visible character: at least one token of the file's syntax each (a string's words count
#: too, so the estimate errs on the side of more work)
_TOKEN = LazyRegex(r"\w+|[^\w\s]", re.ASCII)
TOO_COMPLEX = "too complex to check in bounded work"


def beyond(text: str, budget: int) -> int | None:
    """The offset of the first token beyond ``budget`` tokens, None when the text stays within it."""
    for count, token in enumerate(_TOKEN.finditer(text), 1):
        if count > budget:
            return token.start()
    return None
