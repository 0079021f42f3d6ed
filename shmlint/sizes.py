"""Size spellings: Kubernetes quantities and the docker/podman/compose ``RAMInBytes`` grammar.

The two look alike and differ in ways that bite: Kubernetes rejects ``8GB`` and reads ``8G`` as decimal, docker
reads every unit as binary and (since go-units 0.5) rejects ``8Gi``.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

KIB = 1024
MIB = 1024**2
GIB = 1024**3
DEFAULT_SHM_BYTES = 64 * MIB
#: SHM005's threshold for a workload that declares no DataLoader (``min-shm-size``)
DEFAULT_MIN_SHM_BYTES = GIB
#: the largest size shmlint's settings take (``fix-size``, ``min-shm-size``): more memory than any machine has, and
#: every dialect spells it (``64Ti``, ``64t``) where a larger one is past docker's int64 or the mount's reading
MAX_SETTING_BYTES = 64 * 1024**4

KUBERNETES = "kubernetes"
DOCKER = "docker"
#: a tmpfs mount's ``size=`` option, handed to the kernel as it is written (``--tmpfs /dev/shm:size=8g``): its
#: ``memparse`` grammar, and a new size is written bare inside the option string
TMPFS = "tmpfs"

_K8S_SUFFIXES = {
    "": 1,
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "Pi": 1024**5,
    "Ei": 1024**6,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}
_K8S_RE = LazyRegex(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m))?$", re.ASCII)
_DOCKER_RE = LazyRegex(r"^(\d+(?:\.\d*)?|\.\d+) ?(b|[kmgtp](?:b|ib)?)?$", re.IGNORECASE | re.ASCII)
_DOCKER_UNITS = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_TMPFS_RE = LazyRegex(r"^(0x[0-9a-f]{1,16}|\d{1,20})([kmgtpe])?$", re.IGNORECASE | re.ASCII)
_K8S_BINARY_LIKE = LazyRegex(r"^(\d+(?:\.\d+)?) ?([KMGTP])i$", re.IGNORECASE | re.ASCII)


class ParsedSize(NamedTuple):
    """A size read in one dialect: its bytes, or why it is invalid and a spelling that means the same."""

    bytes: int | None
    error: str | None = None
    suggestion: str | None = None


def parse_kubernetes(text: str) -> ParsedSize:
    """Read a Kubernetes resource quantity (``8Gi``, ``500M``, ``1e9``, ``1073741824``) as bytes, rounded up.

    Exact integer arithmetic (no floats, no decimal module): ``0.1Gi`` is a whole number of bytes.
    """
    if len(text) > 64:  # checked before any pattern runs: a long run of digits makes regexes backtrack
        return ParsedSize(None, f"'{text[:40]}...' is not a Kubernetes quantity (too long)")
    match = _K8S_RE.match(text.strip())
    if not match:
        return ParsedSize(None, f"'{text}' is not a Kubernetes quantity (use Ki, Mi, Gi or k, M, G; e.g. 8Gi)")
    number, exponent, suffix = match.groups()
    negative = number.startswith("-")
    whole, _, fraction = number.lstrip("+-").partition(".")
    numerator = int(whole or "0") * 10 ** len(fraction) + int(fraction or "0")
    denominator = 10 ** len(fraction)
    if exponent:
        power = int(exponent[1:])
        if abs(power) > 30:
            return ParsedSize(None, f"'{text}' is out of range")
        if power >= 0:
            numerator *= 10**power
        else:
            denominator *= 10**-power
    if suffix == "m":
        denominator *= 1000
    else:
        numerator *= _K8S_SUFFIXES[suffix or ""]
    if negative and numerator:
        return ParsedSize(None, f"'{text}' is negative")
    return ParsedSize(-(-numerator // denominator))


def parse_docker(text: str) -> ParsedSize:
    """Read a size the way docker, podman and compose do (go-units ``RAMInBytes``): every unit is binary."""
    stripped = text.strip()
    if len(stripped) > 64:
        return ParsedSize(None, f"'{stripped[:40]}...' is not a docker size (too long)")
    match = _DOCKER_RE.match(stripped)
    if match:
        number, unit = match.groups()
        value = float(number) * _DOCKER_UNITS.get((unit or "b")[0].lower(), 1)
        if value >= 2**63:  # docker keeps sizes in an int64
            return ParsedSize(None, f"'{text}' is too large")
        return ParsedSize(int(value))
    k8s_like = _K8S_BINARY_LIKE.match(stripped)
    if k8s_like:
        number, unit = k8s_like.groups()
        fixed = f"{number}{unit.lower()}b"
        return ParsedSize(
            None,
            f"'{text}' is a Kubernetes spelling that docker rejects; docker writes it '{fixed}'",
            suggestion=fixed,
        )
    return ParsedSize(None, f"'{text}' is not a docker size (a number with b, k, m, g, t or p, e.g. 8g)")


def parse_tmpfs(text: str) -> ParsedSize:
    """Read a tmpfs ``size=`` the way the kernel does (``memparse``, then nothing may follow): a whole number with
    one of k, m, g, t, p, e in either case (``0x`` hexadecimal, a leading ``0`` octal, as ``memparse`` reads);
    docker passes such options to the mount unread, so ``8gb`` or ``1.5g`` make the container fail to start. A
    share of RAM (``50%``) is a size known only where it runs: no bytes, and no error."""
    if text.strip().endswith("%") and text.strip()[:-1].isdigit():
        return ParsedSize(None)
    match = _TMPFS_RE.match(text.strip())
    if match:  # ``strtoull`` with base 0: ``0x`` is hexadecimal, a leading ``0`` octal
        number, unit = match.groups()
        base = 16 if number[:2].lower() == "0x" else 8 if len(number) > 1 and number[0] == "0" else 10
        value = _int_in(number, base)
        if value is not None:
            value *= 1024 ** (" kmgtpe".index(unit.lower()) if unit else 0)
            return ParsedSize(value) if value < 2**64 else ParsedSize(None, f"'{text}' is too large")
    docker = parse_docker(text)
    suggestion = format_docker(docker.bytes) if docker.bytes else None
    return ParsedSize(
        None, f"'{text}' is not a tmpfs size (the kernel reads a whole number with k, m or g, e.g. 8g)", suggestion
    )


def _int_in(number: str, base: int) -> int | None:
    """The number in that base; None where a digit is not one of it (``08``: the kernel stops at ``8``)."""
    try:
        return int(number, base)
    except ValueError:
        return None


def parse(text: str, dialect: str) -> ParsedSize:
    if dialect == TMPFS:
        return parse_tmpfs(text)
    return parse_kubernetes(text) if dialect == KUBERNETES else parse_docker(text)


def parse_either(text: str) -> int | None:
    """Bytes for a size in either dialect (a Kubernetes quantity, else docker's grammar), None when neither reads
    it: shmlint's own options and configuration accept whichever spelling the user is used to."""
    parsed = parse_kubernetes(text)
    if parsed.bytes is None:
        parsed = parse_docker(text)
    return parsed.bytes


def _largest_binary_unit(value: int) -> tuple[int, int]:
    """(number, power) with value == number * 1024**power and the largest power that divides exactly."""
    power = 0
    while value and value % 1024 == 0 and power < 4:
        value //= 1024
        power += 1
    return value, power


def format_kubernetes(value: int) -> str:
    """``8Gi`` style; exact, never rounded."""
    number, power = _largest_binary_unit(value)
    return f"{number}{['', 'Ki', 'Mi', 'Gi', 'Ti'][power]}"


def format_docker(value: int) -> str:
    """``8g`` style for command lines; exact, never rounded."""
    number, power = _largest_binary_unit(value)
    return f"{number}{['', 'k', 'm', 'g', 't'][power]}"


def format_compose(value: int) -> str:
    """``8gb`` style, the spelling the compose documentation uses for ``shm_size``."""
    number, power = _largest_binary_unit(value)
    return f"{number}{['b', 'kb', 'mb', 'gb', 'tb'][power]}"


def human(value: int) -> str:
    """For messages: ``64 MiB``, ``1.5 GiB``."""
    for unit, scale in (("TiB", 1024**4), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if value >= scale:
            amount = value / scale
            return f"{amount:.0f} {unit}" if amount == int(amount) else f"{amount:.1f} {unit}"
    return f"{value} B"
