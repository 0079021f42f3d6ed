"""One editor buffer checked as ``shmlint check`` would check the file, and its fixes as text edits.

Only shmlint's own types: the protocol layer (``shmlint.server.protocol``) converts them for the editor. The text
is the buffer's, never the file on disk; the configuration, and the project whose files a container runs, are the
ones the command line would use for the path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from shmlint.config import find_config
from shmlint.config_error import ConfigError
from shmlint.discover import Candidate, FileKind, force_excluded
from shmlint.engine import Engine
from shmlint.model import Edit, Finding
from shmlint.results import FileResult
from shmlint.runner import project_for
from shmlint.session import settings_for
from shmlint.settings import Settings
from shmlint.source import SourceText
from shmlint.text_input import Text, check_text, kind_of

#: the editor's language identifiers that are YAML whatever the file is called (an untitled buffer, ``*.yaml.j2``)
YAML_LANGUAGES = frozenset({"yaml", "dockercompose"})


@dataclass(frozen=True)
class Checked:
    """A buffer as checked: its text, how it was read, what the engine found (``problem``: why it could not be
    checked at all, a configuration error)."""

    source: SourceText
    path: Path
    kind: FileKind | None
    result: FileResult
    engine: Engine | None = None
    problem: str | None = None


def minimal_edit(before: str, after: str) -> Edit | None:
    """The one replacement that turns ``before`` into ``after`` and touches the fewest characters, never cutting
    a ``\\r\\n`` in two (an editor cannot place a position between them). An insertion is placed as far left as
    it reads the same, where the fix put it (`` --shm-size=8g`` after ``run``, not ``shm-size=8g --`` inside
    ``--gpus``)."""
    if before == after:
        return None
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    if start and before[start - 1] == "\r":
        start -= 1
    tail = 0
    while tail < limit - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    if tail and before[len(before) - tail] == "\n" and before[len(before) - tail - 1 : len(before) - tail] == "\r":
        tail -= 1
    end, new = len(before) - tail, after[start : len(after) - tail]
    while start == end and new and start and before[start - 1] == new[-1] and before[start - 2 : start] != "\r\n":
        start, end, new = start - 1, end - 1, before[start - 1] + new[:-1]  # the same insertion, further left
    return Edit(start, end, new)


class Analyzer:
    """Checks buffers as ``shmlint check`` checks the files: the configuration that applies to each path, the same
    door (``text_input.check_text``) and the run's index for the path (``runner.project_for``: the repository a
    container's code is followed in, KServe runtimes, kustomize fragments), so the editor says what ``check PATH``
    says. Remembers settings (not results) between calls, and reads a configuration file again when it changes;
    files of the project are read afresh for every check."""

    def __init__(self, config: Path | None = None) -> None:
        self.config = config  # ``shmlint server --config``: one file for every buffer, as ``check --config``
        self._settings: dict[Path | None, tuple[tuple[int, int] | None, Settings]] = {}

    def settings_for(self, path: Path) -> Settings:
        """The settings ``shmlint check PATH`` would use; ``ConfigError`` when its configuration is broken. Undecided
        findings, only counted by ``check`` (``undecided: summary``), are listed: the editor shows them as hints."""
        config = self.config or find_config(path)
        stamp = _stamp(config)
        cached = self._settings.get(config)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        settings = settings_for(str(path), config)
        if settings.undecided == "summary":
            settings = settings._replace(undecided="show")
        self._settings[config] = (stamp, settings)
        return settings

    def check(self, path: Path, text: str, language: str | None = None) -> Checked:
        source = SourceText(str(path), text)
        buffer = Text(str(path), text, FileKind.YAML if language in YAML_LANGUAGES else None)
        kind = kind_of(buffer)
        if kind is None:  # not a file shmlint reads (the editor sent it anyway)
            return Checked(source, path, None, FileResult(source.path, source=source))
        try:
            settings = self.settings_for(path)
        except ConfigError as exc:
            return Checked(source, path, kind, FileResult(source.path, source=source), problem=str(exc))
        if force_excluded(str(path), settings):  # an open file exclude/extend-exclude names: as `check --force-exclude`
            return Checked(source, path, None, FileResult(source.path, source=source))
        # the repository's image builds are the checked buffer's own: a walk of the repository for every change of
        # a buffer would make a check of a few milliseconds take seconds (``check`` and the hooks do walk it)
        candidates = [Candidate(str(path), kind, explicit=True)]
        engine = Engine(settings, project_for(settings, [path], candidates, whole=False))
        checked = check_text(engine, buffer)
        if checked.source is None:  # above max-file-size, or binary: the finding says so, nothing can be fixed
            return Checked(source, path, checked.kind, checked.result)
        return Checked(checked.source, path, checked.kind, checked.result, engine)

    def quick_fix(self, checked: Checked, finding: Finding) -> list[Edit]:
        """The edits of one finding's fix, offsets into the checked text; none when the fix would break the file."""
        from shmlint.edits import edits_for
        from shmlint.fix.apply import breaks, splice

        if checked.kind is None or finding.fix is None:
            return []
        edits = edits_for(finding, checked.source)
        after = checked.source.with_text(splice(checked.source.text, edits))
        if not edits or breaks(after, checked.kind, checked.source) is not None:
            return []
        return edits

    def fix_all(self, checked: Checked) -> Edit | None:
        """Every safe fix, as ``shmlint fix`` makes them (rounds until nothing is left, the syntax guard), as the
        smallest single replacement of the checked text."""
        if checked.engine is None or checked.kind is None or not any(f.fixable for f in checked.result.findings):
            return None
        from shmlint.fix.apply import fix_source

        fixed = fix_source(checked.engine, checked.source, checked.kind, checked.path, checked=checked.result)
        return minimal_edit(checked.source.text, fixed.text)


def explain(finding: Finding) -> str:
    """Markdown for a hover: the finding, what the rule is about and how to fix it; the finding's own text (YAML
    values, file names) escaped, so it is shown, never rendered."""
    from shmlint.catalog import lookup
    from shmlint.report.common import rule_url
    from shmlint.visible import markdown

    lines = [f"**{finding.code} {finding.slug}** ({finding.severity.label})", "", markdown(finding.message)]
    if finding.detail:
        lines += ["", markdown(finding.detail)]
    rule = lookup(finding.code)
    if rule is not None:
        lines += ["", rule.summary, "", f"**How to fix:** {rule.how_to_fix}"]
    if finding.fix is not None:
        lines += ["", f"Quick fix ({finding.fix.applicability.value}): {markdown(finding.fix.title)}"]
    if url := rule_url(finding.code):
        lines += ["", f"[{finding.code} documentation]({url})"]
    return "\n".join(lines)


def _stamp(config: Path | None) -> tuple[int, int] | None:
    """When and how large the configuration file was, so an edited one is read again."""
    if config is None:
        return None
    try:
        info = os.stat(config)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
