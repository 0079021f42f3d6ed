"""How NCCL reads an integer parameter from its environment, e.g. ``NCCL_SHM_DISABLE``.

NCCL's ``ncclLoadParam`` (src/misc/param.cc, every 2.x release) reads the variable with ``strtoll(value, NULL,
0)``: leading blanks and a sign are skipped, ``0x`` means hexadecimal and a leading ``0`` octal, the digits end
at the first character that is not one, and a value that does not fit in 64 bits (``errno`` set) falls back to
the default. Nothing after the digits is checked. ``src/transport/shm.cc`` then turns the SHM transport off only
when the parameter ``== 1``. So ``1``, ``01``, ``0x1``, ``+1`` and ``1abc`` disable it; ``true``, ``yes``, ``2``
and the empty string do not, whatever Kubernetes or compose make of those words.
"""

from __future__ import annotations

from shmlint.lazy_regex import LazyRegex

SHM_DISABLE = "NCCL_SHM_DISABLE"

#: strtoll with base 0: C ``isspace`` blanks, a sign, then hexadecimal, octal or decimal digits
_C_INTEGER = LazyRegex(r"[ \t\n\v\f\r]*([+-]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))")
_INT64_MAX = 2**63 - 1


def integer(value: str) -> int | None:
    """The integer NCCL reads from ``value``; None where NCCL keeps the parameter's default (empty, too large)."""
    if not value:
        return None
    match = _C_INTEGER.match(value)
    if match is None:
        return 0  # no digits: strtoll returns 0 and glibc sets no error
    sign, hexadecimal, octal, decimal = match.groups()
    if len((hexadecimal or octal or decimal).lstrip("0")) > 24:  # beyond 64 bits in any base: out of range
        return None
    number = int(hexadecimal, 16) if hexadecimal else int(octal, 8) if octal else int(decimal)
    if number > _INT64_MAX + (sign == "-"):
        return None
    return -number if sign == "-" else number


def disables_shm(value: str) -> bool:
    """True when ``NCCL_SHM_DISABLE=value`` turns NCCL's shared-memory transport off."""
    return integer(value) == 1
