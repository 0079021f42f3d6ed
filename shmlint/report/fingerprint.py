"""Fingerprints: what identifies a finding across runs and commits, for baselines and for the services that
track results (SARIF ``partialFingerprints``, GitLab ``fingerprint``), so all of them recognise a finding alike.

A fingerprint hashes the rule, the file and who the workload is, never a line or message wording: adding lines
above a finding, moving a workload or rewording a message does not make it new.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Sequence

from shmlint.model import Finding
from shmlint.report.common import posix_path


def _identity(finding: Finding) -> str:
    """The rule, the file and who the workload is; never a line, never message wording (which names sizes and
    positions): moving a workload or rewording a message does not make a finding new."""
    workload = finding.workload.id[:-1] if finding.workload else ()  # all but the occurrence, counted below
    return "\0".join(("v2", finding.code, _stable_path(finding.span.path), *map(str, workload)))


def _stable_path(path: str) -> str:
    """The file as every run names it, however the command line spelled it (``ex/run.sh``, ``./ex/run.sh``, an
    absolute path, ``.`` from inside ``ex``): relative to the top of its git work tree, which is how a run from
    that top spells it (so baselines written there before keep matching). Outside a work tree, and for standard
    input's name, the path as given."""
    from shmlint.infile import repository_top

    if not os.path.isabs(path) and not os.path.exists(path):
        return posix_path(path)
    where = os.path.abspath(path)
    top = repository_top(os.path.dirname(where))
    if not os.path.lexists(os.path.join(top, ".git")):
        return posix_path(path)
    return posix_path(os.path.relpath(where, top))


def fingerprint(finding: Finding, occurrence: int = 0) -> str:
    """A hash of what the finding says and where (file and workload), not of its line.

    ``occurrence`` tells apart findings that would otherwise be identical (the same rule for two ``docker run``
    lines with the same flags in one file): the first is 0, the next 1, in file order.
    """
    return _hash(_identity(finding), occurrence)


def _hash(identity: str, occurrence: int) -> str:
    key = f"{identity}\0{occurrence}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(key, digest_size=16).hexdigest()


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """The fingerprint of each finding, numbering identical ones by their order in ``findings``."""
    seen: Counter[str] = Counter()
    result = []
    for finding in findings:
        identity = _identity(finding)
        result.append(_hash(identity, seen[identity]))
        seen[identity] += 1
    return result
