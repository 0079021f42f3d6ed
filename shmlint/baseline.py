"""Baselines: adopt shmlint on an existing repository and fail only on findings that are new.

A finding is recognised by a fingerprint that leaves out where it is in the file, so adding or removing lines
above it does not make it new. The same fingerprints identify results in SARIF and GitLab reports, so those
services track a finding across commits the same way.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shmlint.model import Finding
from shmlint.report.common import posix_path
from shmlint.report.fingerprint import fingerprints
from shmlint.results import Report

#: 2: fingerprints from the workload's structured identity; 1 (shmlint 0.1) hashed normalised messages
SCHEMA_VERSION = 2
#: far above a real baseline (about 300 bytes a finding: 100,000 findings), far below what would exhaust memory
MAX_BASELINE_BYTES = 32 << 20


class BaselineError(Exception):
    """A baseline file that cannot be used; the message names the file and what is wrong with it."""


@dataclass(frozen=True)
class BaselineEntry:
    """One accepted finding; ``code``, ``path`` and ``message`` are there so a reviewer can read the file."""

    fingerprint: str
    code: str
    path: str
    message: str


@dataclass(frozen=True)
class Baseline:
    """Findings accepted when the baseline was written; a finding they match is not reported again."""

    entries: tuple[BaselineEntry, ...]


def write_baseline(path: Path, findings: Sequence[Finding]) -> None:
    """Record every finding as accepted; entries follow the findings' order so the file diffs well in review."""
    entries = [
        {"fingerprint": mark, "code": f.code, "path": posix_path(f.span.path), "message": f.message}
        for f, mark in zip(findings, fingerprints(findings), strict=True)
    ]
    document = {"schema_version": SCHEMA_VERSION, "tool": "shmlint", "entries": entries}
    from shmlint.outfile import OutputError, write_text_file

    try:
        write_text_file(path, json.dumps(document, indent=2) + "\n", "baseline")
    except OutputError as exc:
        raise BaselineError(str(exc)) from None


def load_baseline(path: Path) -> Baseline:
    """Read a file written by ``write_baseline``; anything else is a ``BaselineError``, never a traceback. Only a
    regular file is read, and only up to ``MAX_BASELINE_BYTES``: a FIFO would block the run, ``/dev/zero`` fill
    its memory."""
    from shmlint.infile import leaves_tree
    from shmlint.source import InputError, read_bytes

    if leaves_tree(str(path)):
        raise BaselineError(f"{path}: cannot read baseline: a link out of the repository, or a file inside .git")
    try:
        document = json.loads(read_bytes(path, MAX_BASELINE_BYTES, "for a baseline").decode("utf-8"))
    except InputError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc}") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{path}: baseline is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise BaselineError(f"{path}: baseline is not JSON: {exc.msg} ({where})") from None
    except ValueError:  # int() of thousands of digits (every syntax error is a JSONDecodeError)
        raise BaselineError(f"{path}: baseline holds a number too long to read") from None
    except RecursionError:  # thousands of nested brackets: the parser recurses once a level
        raise BaselineError(f"{path}: baseline is nested too deeply to be a shmlint baseline") from None
    if isinstance(document, dict) and document.get("schema_version") == 1:
        raise BaselineError(
            f"{path}: baseline written by shmlint 0.1, whose fingerprints shmlint no longer computes; "
            "write it again with --write-baseline"
        )
    if not isinstance(document, dict) or document.get("schema_version") != SCHEMA_VERSION:
        raise BaselineError(
            f"{path}: not a shmlint baseline (expected an object with schema_version {SCHEMA_VERSION}); "
            "write one with --write-baseline"
        )
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise BaselineError(f"{path}: baseline has no 'entries' list")
    return Baseline(tuple(_entry(path, index, item) for index, item in enumerate(entries)))


def _entry(path: Path, index: int, item: Any) -> BaselineEntry:
    fields = ("fingerprint", "code", "path", "message")
    if not isinstance(item, dict) or not all(isinstance(item.get(name), str) for name in fields):
        raise BaselineError(f"{path}: baseline entry {index} needs the text fields {', '.join(fields)}")
    return BaselineEntry(*(item[name] for name in fields))


def filter_new(findings: Sequence[Finding], baseline: Baseline) -> list[Finding]:
    """The findings the baseline does not account for; each baseline entry accounts for one finding only."""
    remaining = Counter(entry.fingerprint for entry in baseline.entries)
    new = []
    for finding, mark in zip(findings, fingerprints(findings), strict=True):
        if remaining[mark]:
            remaining[mark] -= 1
        else:
            new.append(finding)
    return new


def filter_report(report: Report, baseline: Baseline) -> Report:
    """The report with baselined findings left out, so every reporter and the exit status see only new ones."""
    new = {id(finding) for finding in filter_new(report.findings, baseline)}
    files = tuple(r._replace(findings=tuple(f for f in r.findings if id(f) in new)) for r in report.files)
    return Report(files, baselined=report.baselined + len(report.findings) - len(new))
