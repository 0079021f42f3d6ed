"""The effective options of one run, built once from defaults, configuration files and the command line."""

from __future__ import annotations

import os

from shmlint.discover import DEFAULT_EXCLUDE, StrPath
from shmlint.named_tuple import NamedTuple
from shmlint.severity import Severity
from shmlint.signals import Signals
from shmlint.sizes import DEFAULT_MIN_SHM_BYTES
from shmlint.sizing import DEFAULT_FIX_BYTES

#: the code of a file that could not be read or parsed
INPUT_ERROR = "SHM000"

#: what becomes of findings that rest on an accelerator whose software's /dev/shm need is not known: counted in the
#: summary only (the default: a guess must not fail a gate), listed as info, or warnings (platform teams that want
#: every accelerator container sized)
UNDECIDED = ("summary", "show", "strict")


class Settings(NamedTuple):
    """The options of one run; immutable, so worker processes and configuration groups cannot disagree. Each field
    is named as its configuration key (``fix-size`` is ``fix_size``; sizes in bytes), and the command line's option
    of the same setting has that name too (``--fix-size``)."""

    min_shm_size: int = DEFAULT_MIN_SHM_BYTES  # SHM005 threshold when a workload declares no DataLoader profile
    fix_size: int = DEFAULT_FIX_BYTES  # size written by fixes (at most half a container's memory limit)
    signals: Signals = Signals()  # one shared default: immutable, and its compiled patterns are kept once
    select: frozenset[str] = frozenset()  # codes; empty means all
    ignore: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()  # (code, severity) a configuration sets
    fail_on: Severity = Severity.WARNING
    prefilter: bool = True  # skip building workloads for files with no GPU/torch/shm signal at all
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE  # gitignore-style patterns of paths not to check
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()  # (gitignore-style pattern, codes)
    pattern_root: str | None = None  # the folder patterns are relative to (the configuration's); None: the current
    respect_gitignore: bool = True  # leave out what .gitignore files name when walking folders
    force_exclude: bool = False  # exclude/extend-exclude also leave out paths named on the command line
    max_file_size: int = 10 * 1024 * 1024  # larger files are reported, not read
    # the tier model's data extended by configuration (regular expressions on images and commands)
    shm_images: tuple[str, ...] = ()  # software that needs /dev/shm
    shm_commands: tuple[str, ...] = ()
    shm_free_images: tuple[str, ...] = ()  # software known not to use it
    shm_free_commands: tuple[str, ...] = ()
    render: str = "auto"  # kustomizations and charts: "auto" (when the renderer is installed), "always", "never"
    unrendered: str = "note"  # what a unit left unrendered counts as: "note" (never fails), "warning", "error"
    # findings that rest on an accelerator whose software's /dev/shm need is not known (the ``unknown`` tier):
    # "summary" (counted in the summary, never listed or failing), "show" (listed as info) or "strict" (warnings)
    undecided: str = "summary"
    show_source: bool = False  # the text report shows each finding's lines, a marker under its span and its fix

    def ignored_for(self, path: StrPath) -> frozenset[str]:
        """Codes ``per-file-ignores`` switches off for this path; a pattern starting with ``!`` applies to every
        path it does not match (as in ruff)."""
        if not self.per_file_ignores:
            return frozenset()
        from shmlint.patterns import compiled, relative_posix

        relative = relative_posix(os.fspath(path), self.pattern_root)
        if relative is None:  # outside the configuration's folder: as written
            relative = os.fspath(path).replace(os.sep, "/").lstrip("/")
        return frozenset(
            code
            for pattern, codes in self.per_file_ignores
            if compiled((pattern.removeprefix("!"),)).matches(relative) != pattern.startswith("!")
            for code in codes
        )

    def enabled(self, code: str) -> bool:
        """``select`` chooses among the rules about workloads; SHM000 (the input could not be read or parsed) is
        not one of them: a typo or broken YAML must never pass as "no findings". Only ``ignore`` silences it."""
        if code == INPUT_ERROR:
            return code not in self.ignore
        return (not self.select or code in self.select) and code not in self.ignore

    def severity_for(self, code: str, default: Severity) -> Severity:
        return dict(self.severity).get(code, default)
