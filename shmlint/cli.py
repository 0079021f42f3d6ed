"""Command line: ``shmlint check``, ``fix``, ``rules``, ``explain``.

Heavy modules (reporters for other formats, the fix machinery, jsonschema) are imported inside the command that
needs them, so ``shmlint check one.yaml`` in a pre-commit hook starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn

import click

from shmlint import __version__
from shmlint.settings import UNDECIDED, Settings
from shmlint.severity import Severity

if TYPE_CHECKING:
    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.fix.run import FileOutcome
    from shmlint.model import FileResult, Finding, Report
    from shmlint.source import SourceText

    #: files' text by path, and the diff of each shown finding's fix (``--show-source``)
    SourceContext = tuple[dict[str, SourceText], dict[Finding, str]]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SEVERITIES = click.Choice(["info", "warning", "error"])


def _codes(values: tuple[str, ...]) -> frozenset[str]:
    """Codes from ``--select SHM001,missing-shm``; an unknown code or slug is a usage error."""
    from shmlint.catalog import lookup

    codes = set()
    for value in values:
        for item in filter(None, (part.strip() for part in value.split(","))):
            rule = lookup(item)
            if rule is None:
                raise click.BadParameter(f"unknown rule '{item}' (see `shmlint rules`)")
            codes.add(rule.code)
    return frozenset(codes)


class _Group(click.Group):
    """Commands that live with the validation harness or the language server are imported only when they run, so ``check`` in a
    pre-commit hook does not pay for them."""

    LAZY: ClassVar[dict[str, str]] = {
        "validate": "shmlint.validate.commands",
        "size": "shmlint.validate.commands",
        "server": "shmlint.server.command",
        "policy": "shmlint.policy.command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY:
            import importlib

            command: click.Command = getattr(importlib.import_module(self.LAZY[name]), name)
            return command
        return super().get_command(ctx, name)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shmlint")
def cli() -> None:
    """Find GPU and PyTorch containers whose /dev/shm is too small, before they crash."""


def _overrides(select: tuple[str, ...], ignore: tuple[str, ...], fail_on: str | None, **extra: object) -> dict:
    """Settings fields the command line sets explicitly; they win over configuration files."""
    changes: dict[str, object] = {key: value for key, value in extra.items() if value is not None}
    if select:
        changes["select"] = _codes(select)
    if ignore:
        changes["ignore"] = _codes(ignore)
    if fail_on:
        changes["fail_on"] = Severity.parse(fail_on)
    return changes


def _configured(paths: tuple[str, ...], config: Path | None, overrides: dict) -> list[tuple[Settings, list[str]]]:
    """Paths grouped by the configuration that applies to each (the nearest above it, or --config)."""
    from shmlint.config import ConfigError, find_config, load_effective

    groups: dict[Path | None, list[str]] = {}
    try:
        for path in paths:
            groups.setdefault(config or find_config(path), []).append(path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    result = []
    for config_path, members in groups.items():
        try:
            effective = load_effective(members[0], config_path)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        settings = effective.settings._replace(**overrides)
        if settings.fix_shm_bytes < settings.min_shm_bytes:
            _fix_size_below_minimum(settings, "fix_shm_bytes" in overrides, effective.origins.get("fix-size"))
        result.append((settings, members))
    return result


def _fix_size_below_minimum(settings: Settings, from_command_line: bool, origin: str | None) -> None:
    """A configured ``fix-size`` below ``min-shm-size`` would have every fix write a size the check flags: a
    configuration error. ``--shm-size`` is one run's explicit request: honoured, with a warning."""
    from shmlint.sizes import format_kubernetes

    below = (
        f"the fix size {format_kubernetes(settings.fix_shm_bytes)} is below min-shm-size "
        f"{format_kubernetes(settings.min_shm_bytes)}: the check flags the size fixes write as too small (shm-too-small)"
    )
    if not from_command_line:
        raise click.ClickException(f"{origin or 'fix-size'}: {below}")
    click.echo(f"shmlint: warning: --shm-size: {below}", err=True)


#: paths as click checks them; whether a file can be read is found out where it is read (an unreadable path is an
#: SHM000 finding, an unreadable configuration or baseline a clear error), never a usage error
A_PATH = click.Path(readable=False)
A_FILE = click.Path(dir_okay=False, readable=False, path_type=Path)
EXISTING_FILE = click.Path(exists=True, dir_okay=False, readable=False, path_type=Path)

COMMON_CHECK_OPTIONS = [
    click.option("--select", multiple=True, help="Only these rules (codes or slugs, comma-separated)."),
    click.option("--ignore", multiple=True, help="Skip these rules (codes or slugs, comma-separated)."),
    click.option(
        "--config",
        type=EXISTING_FILE,
        help="Configuration file.",
    ),
    click.option(
        "--respect-gitignore/--no-respect-gitignore",
        default=None,
        help="Leave out what .gitignore files name when walking folders (default: on).",
    ),
    click.option(
        "--force-exclude/--no-force-exclude",
        default=None,
        help="Leave out what exclude/extend-exclude name even when it is named here (as pre-commit names files).",
    ),
    click.option(
        "--undecided",
        type=click.Choice(UNDECIDED),
        help="Findings about accelerators whose software's /dev/shm need is not known: counted in the summary "
        "(summary, default), listed as info (show), or warnings that fail the run (strict).",
    ),
]


def _common(function):  # type: ignore[no-untyped-def]
    for option in reversed(COMMON_CHECK_OPTIONS):
        function = option(function)
    return function


def _existing(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """A named path must exist (a typo must not pass a CI gate as "no findings"): a usage error, exit code 2, in
    ``check`` and ``fix`` alike; so is an empty argument (an unset variable in a script), which is not the current
    folder. A path that exists but cannot be read (a broken or looping link, no permission) is an SHM000 finding."""
    if any(value == "" for value in values):
        raise click.BadParameter("an empty path (an unset variable?); write '.' for the current folder", ctx, param)
    from shmlint.discover import clean_path

    paths = tuple(clean_path(value) for value in values)
    allow_dash = ctx.info_name in ("check", "fix")
    missing = [p for p in paths if not (allow_dash and p == "-") and not os.path.lexists(p)]
    if missing:
        raise click.BadParameter(f"no such file or folder: {', '.join(map(repr, missing))}", ctx, param)
    return paths


PATHS = click.argument("paths", nargs=-1, type=A_PATH, callback=_existing)


@cli.command()
@PATHS
@_common
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif", "github", "junit", "gitlab"]),
    default="text",
    show_default=True,
)
@click.option("--output", type=A_FILE, help="Write the report to a file.")
@click.option(
    "--baseline",
    "baseline_file",
    type=A_FILE,
    help="Report and fail only on findings this baseline file does not record.",
)
@click.option(
    "--write-baseline",
    "write_baseline_file",
    type=A_FILE,
    help="Record every current finding in this file as accepted (the run then passes).",
)
@click.option("--fail-on", type=SEVERITIES, help="Lowest severity that fails the run (default: warning).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings fail the run.")
@click.option("--quiet", "-q", is_flag=True, help="Only findings, no notes or summary.")
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option("--show-fixes", is_flag=True, help="Say after each finding what its fix would do.")
@click.option(
    "--show-source/--no-show-source",
    default=None,
    help="Text report: show each finding's lines with a marker under its span, and its fix's diff (show-source).",
)
@click.option("--report-unused-suppressions", is_flag=True, help="List suppressions that matched nothing (fails).")
@click.option("--stdin-filename", help="Name for text read from '-': decides the format and appears in findings.")
@click.option(
    "--render",
    type=click.Choice(["auto", "always", "never"]),
    help="Render kustomizations and Helm charts: auto (when installed; default), always, never.",
)
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply the fixes first (as `fix --write`), then check.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix: also apply fixes that may change behaviour.")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Build workloads even for files with no signal.")
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config: Path | None,
    respect_gitignore: bool | None,
    force_exclude: bool | None,
    undecided: str | None,
    output_format: str,
    output: Path | None,
    baseline_file: Path | None,
    write_baseline_file: Path | None,
    fail_on: str | None,
    exit_zero: bool,
    quiet: bool,
    statistics: bool,
    show_fixes: bool,
    show_source: bool | None,
    report_unused_suppressions: bool,
    stdin_filename: str | None,
    render: str | None,
    apply_fixes: bool,
    unsafe_fixes: bool,
    no_prefilter: bool,
) -> None:
    """Check files and folders (default: the current folder; '-' reads standard input)."""
    from shmlint.engine import DEFECT, Engine
    from shmlint.model import Report
    from shmlint.runner import check_paths

    overrides = _overrides(
        select,
        ignore,
        fail_on,
        prefilter=False if no_prefilter else None,
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        undecided=undecided,
        render=render,
        show_source=show_source,
    )
    stdin = "-" in paths
    targets = tuple(p for p in paths if p != "-") or (() if stdin else (".",))
    if unsafe_fixes and not apply_fixes:
        raise click.BadParameter("applies fixes: use it with --fix (or `shmlint fix`)", param_hint="--unsafe-fixes")
    if apply_fixes:  # as ruff's `check --fix`: the fixes written, then the check reports what is left
        if stdin:
            raise click.BadParameter("'-': `check --fix` rewrites files; `shmlint fix -` prints standard input fixed")
        _fixable_paths(targets)
        if _fix_paths(targets, config, overrides, write=True, unsafe=unsafe_fixes, before_check=True) == EXIT_ERROR:
            sys.exit(EXIT_ERROR)
    files: list[FileResult] = []
    fail_on_by_file: dict[str, Severity] = {}  # each file fails by the configuration that applies to it
    shown_by_file: dict[str, Settings] = {}  # files whose configuration shows source context
    for settings, members in _configured(targets, config, overrides) if targets else []:
        for result in check_paths(settings, members).files:
            files.append(result)
            fail_on_by_file[result.path] = settings.fail_on
            if settings.show_source:
                shown_by_file[result.path] = settings
    if stdin:  # the current folder's configuration
        settings = _configured((".",), config, overrides)[0][0]
        files.append(result := _check_stdin(Engine(settings), stdin_filename))
        fail_on_by_file[result.path] = settings.fail_on
        if settings.show_source:
            shown_by_file[result.path] = settings
    report = _apply_baseline(Report(tuple(files)), baseline_file, write_baseline_file, quiet)
    if quiet and report.unrendered:  # what was not rendered is never silent: a pre-commit hook runs `check --quiet`
        from shmlint.report.text import format_unrendered

        for record in report.unrendered:
            click.echo(format_unrendered(record), err=True)
    context = _source_context(report, shown_by_file) if shown_by_file and output_format == "text" else None
    text = _format_report(
        report, output_format, output, quiet, statistics, show_fixes, report_unused_suppressions, context
    )
    _emit(text, output)
    failed = report.failed_by_file(fail_on_by_file) or (report_unused_suppressions and bool(report.unused_suppressions))
    defects = [f.path for f in report.files if any(DEFECT in finding.message for finding in f.findings)]
    if defects:  # the report is whole, but shmlint failed on these files: a tool error, never a pass
        from shmlint.visible import visible

        first = visible(defects[0])
        click.echo(f"shmlint: internal error on {len(defects)} file(s), first {first}; please report it", err=True)
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if failed and not exit_zero else EXIT_CLEAN)


def _emit(text: str, output: Path | None = None) -> None:
    """The report to ``--output`` or standard output; a file or stream that cannot take it is a clean error."""
    from shmlint.outfile import OutputError, write_text_file

    try:
        if output is not None:
            write_text_file(output, text, "report")
            return
        if sys.stdout is None:
            raise OutputError("standard output is closed: the report cannot be printed (use --output FILE)")
        try:
            click.echo(text, nl=False)
        except OSError as exc:
            _silence_stdout()
            raise OutputError(f"standard output: cannot print the report: {exc.strerror or exc}") from None
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None


def _silence_stdout() -> None:
    """After a failed write, what is still buffered would fail again when Python exits: send it nowhere."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _apply_baseline(report: Report, read: Path | None, write: Path | None, quiet: bool) -> Report:
    """Leave out the findings a baseline accepts; ``--write-baseline`` first records every current one."""
    path = write or read
    if path is None:
        return report
    from shmlint.baseline import BaselineError, filter_report, load_baseline, write_baseline

    try:
        if write is not None:
            write_baseline(write, report.findings)
        filtered = filter_report(report, load_baseline(path))
    except BaselineError as exc:
        raise click.ClickException(str(exc)) from None
    if not quiet:
        if write is not None:
            click.echo(f"Recorded {len(report.findings)} finding(s) in the baseline {write}.", err=True)
        elif hidden := len(report.findings) - len(filtered.findings):
            click.echo(f"{hidden} finding(s) accepted by the baseline {read} not shown.", err=True)
    return filtered


def _read_stdin(engine: Engine, name: str | None) -> tuple[SourceText, FileKind] | FileResult:
    """Standard input as a file named ``name`` and its kind, or the SHM000 result saying why it cannot be read."""
    from shmlint.discover import SNIFF_BYTES, FileKind, kind_by_content, kind_by_name
    from shmlint.source import InputError, SourceText

    display = name or "-"
    limit = engine.settings.max_file_bytes
    data = sys.stdin.buffer.read(limit + 1) if sys.stdin is not None else b""
    if len(data) > limit:  # the limit files have (``check - < /dev/zero`` would read forever)
        return engine.invalid(display, f"standard input is above the limit of {limit:,} bytes (max-file-size)")
    try:
        source = SourceText.from_bytes(display, data)
    except InputError as exc:
        return engine.invalid(display, str(exc))
    # the same rules as a named file without a telling name: its name first, then its first bytes, then YAML
    return source, kind_by_name(display) or kind_by_content(data[:SNIFF_BYTES]) or FileKind.YAML


def _check_stdin(engine: Engine, name: str | None) -> FileResult:
    from shmlint.model import FileResult

    read = _read_stdin(engine, name)
    return read if isinstance(read, FileResult) else engine.check_source(read[0], read[1], read[0].path)


def _source_context(report: Report, shown: dict[str, Settings]) -> SourceContext:
    """The text of the files whose findings are shown with their source, and each fix as a diff. Results come
    back from the check without their text (slimmed), so the files are read again; one that can no longer be read
    is shown without context."""
    from shmlint.infile import links_out
    from shmlint.source import InputError, SourceText, read_bytes

    sources: dict[str, SourceText] = {}
    diffs: dict[Finding, str] = {}
    for result in report.files:
        settings = shown.get(result.path)
        if settings is None:
            continue
        for finding in result.findings:
            path = finding.span.path
            if path not in sources and result.source is not None and result.source.path == path:
                sources[path] = result.source  # standard input: kept
            if path not in sources:
                if links_out(path):  # never shown: what discovery refused to read (shmlint.discover.LINKED_OUT)
                    continue
                try:
                    sources[path] = SourceText.from_bytes(path, read_bytes(path, settings.max_file_bytes))
                except InputError:
                    continue
            if finding.fix is not None:
                from shmlint.fix.preview import fix_diff

                if diff := fix_diff(finding, sources[path]):
                    diffs[finding] = diff
    return sources, diffs


def _format_report(
    report: Report,
    output_format: str,
    output: Path | None,
    quiet: bool,
    statistics: bool,
    show_fixes: bool,
    unused: bool,
    context: SourceContext | None = None,
) -> str:
    import importlib

    if output_format != "text":
        formatted: str = importlib.import_module(f"shmlint.report.{output_format}").format_report(report)
        return formatted
    from shmlint.report import text as reporter

    return reporter.format_report(
        report,
        colour=output is None and reporter.wants_colour(sys.stdout),
        quiet=quiet,
        show_statistics=statistics,
        show_fixes=show_fixes,
        show_unused_suppressions=unused,
        sources=context[0] if context else None,
        diffs=context[1] if context else None,
    )


@cli.command("config")
@click.argument("path", required=False, type=A_PATH)
@click.option("--config", type=EXISTING_FILE, help="Configuration file.")
def show_config(path: str | None, config: Path | None) -> None:
    """Print the effective configuration for PATH and where each value comes from."""
    from shmlint.config import ConfigError, describe, load_effective

    try:
        click.echo(describe(load_effective(path or ".", config)), nl=False)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _size(text: str | None) -> int | None:
    if text is None:
        return None
    from shmlint.sizes import parse_either

    size = parse_either(text)
    if size is None or size <= 0:
        raise click.BadParameter(f"'{text}' is not a size (e.g. 8Gi or 8g)", param_hint="--shm-size")
    return size


@cli.command()
@PATHS
@_common
@click.option("--write", is_flag=True, help="Apply the fixes instead of showing them.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour.")
@click.option("--shm-size", "shm_size", help="Size to write (default 8Gi; at most half a memory limit).")
@click.option("--fail-on", type=SEVERITIES, help="Lowest severity that fails the run when left after fixing.")
@click.option("--stdin-filename", help="Name for text read from '-': decides the format and appears in messages.")
def fix(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config: Path | None,
    respect_gitignore: bool | None,
    force_exclude: bool | None,
    undecided: str | None,
    write: bool,
    unsafe_fixes: bool,
    shm_size: str | None,
    fail_on: str | None,
    stdin_filename: str | None,
) -> None:
    """Show the fixes as a unified diff (exit 1 when something would change), or apply them with --write (exit 1
    when findings at or above fail-on are left); '-' reads standard input and prints it fixed."""
    overrides = _overrides(
        select,
        ignore,
        fail_on,
        fix_shm_bytes=_size(shm_size),
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        undecided=undecided,
    )
    if "-" in paths:
        if len(paths) > 1:
            raise click.BadParameter(
                "'-' (standard input) is fixed on its own, not with other paths", param_hint="PATHS"
            )
        sys.exit(_fix_stdin(config, overrides, unsafe_fixes, stdin_filename))
    _fixable_paths(paths)
    sys.exit(_fix_paths(paths or (".",), config, overrides, write=write, unsafe=unsafe_fixes))


def _fix_paths(
    paths: tuple[str, ...],
    config: Path | None,
    overrides: dict,
    *,
    write: bool,
    unsafe: bool,
    before_check: bool = False,
) -> int:
    """Fix files: each file's diff (or, with ``write``, what was fixed and what is left), then the accounting.
    ``before_check`` (``check --fix``): only what was written, on standard error; the check reports what is left."""
    from shmlint.discover import discover
    from shmlint.fix.run import fix_candidates
    from shmlint.report.text import format_finding
    from shmlint.visible import visible

    jobs = [
        (settings, candidate)
        for settings, members in _configured(paths, config, overrides)
        for candidate in discover(members, settings)
    ]
    outcomes: list[FileOutcome] = []
    for outcome in fix_candidates(jobs, write=write, unsafe=unsafe, roots=tuple(map(Path, paths))):
        outcomes.append(outcome)
        for problem in outcome.problems:
            click.echo(f"{visible(outcome.path)}: {visible(problem)}", err=True)
        if outcome.error is not None:
            click.echo(f"{visible(outcome.path)}: {visible(outcome.error)}", err=True)
        elif outcome.changed and write:
            click.echo(f"{visible(outcome.path)}: fixed {outcome.applied} finding(s)", err=before_check)
        elif outcome.changed:
            _emit(outcome.diff)
    if before_check:
        fixed = sum(o.applied for o in outcomes)
        click.echo(f"Fixed {fixed} finding(s) in {sum(1 for o in outcomes if o.changed)} file(s).", err=True)
        return EXIT_ERROR if any(o.error is not None for o in outcomes) else EXIT_CLEAN
    if write:
        for outcome in outcomes:
            for finding in outcome.remaining:
                click.echo(format_finding(finding))
    for line in _fix_summary(outcomes, write):
        click.echo(line, err=not write)
    if any(o.error is not None for o in outcomes):
        return EXIT_ERROR
    if write:
        return EXIT_FINDINGS if any(o.failing for o in outcomes) else EXIT_CLEAN
    return EXIT_FINDINGS if any(o.changed for o in outcomes) else EXIT_CLEAN


def _fix_summary(outcomes: list[FileOutcome], write: bool) -> list[str]:
    """As ruff counts: found = fixed + remaining; fixes left out for being unsafe; what still fails the run."""
    fixed = sum(o.applied for o in outcomes)
    remaining = sum(len(o.remaining) for o in outcomes)
    files = sum(1 for o in outcomes if o.changed)
    done = "fixed" if write else "fixable"
    lines = [f"Found {fixed + remaining} finding(s) ({fixed} {done} in {files} file(s), {remaining} remaining)."]
    if fixed and not write:
        lines[0] += " `shmlint fix --write` applies the fixes."
    if hidden := sum(o.hidden for o in outcomes):
        lines.append(f"{hidden} hidden fix(es) can be enabled with `--unsafe-fixes`.")
    if write and (failing := sum(o.failing for o in outcomes)):
        lines.append(f"{failing} finding(s) at or above fail-on remain (listed above): the run fails.")
    return lines


def _fix_stdin(config: Path | None, overrides: dict, unsafe: bool, name: str | None) -> int:
    """``fix -``: standard input fixed on standard output (the input as it was when nothing is fixable), the
    accounting and any finding left on standard error; exit 1 when findings at or above fail-on are left."""
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.fix.run import FileOutcome, left_over
    from shmlint.report.text import format_finding
    from shmlint.visible import visible

    settings = _configured((".",), config, overrides)[0][0]
    engine = Engine(settings)
    from shmlint.model import FileResult

    read = _read_stdin(engine, name)
    if isinstance(read, FileResult):  # not read whole, or not text: nothing can be printed back
        for finding in read.findings:
            click.echo(format_finding(finding), err=True)
        return EXIT_ERROR
    source, kind = read
    checked = engine.check_source(source, kind, source.path)
    result = fix_source(engine, source, kind, source.path, unsafe=unsafe, checked=checked)
    after = engine.check_source(source.with_text(result.text), kind, source.path) if result.changed else checked
    stdout = sys.stdout.buffer if sys.stdout is not None else None
    if stdout is None:
        raise click.ClickException("standard output is closed: the fixed text cannot be printed")
    stdout.write(source.encode(result.text))
    stdout.flush()
    for problem in result.problems:
        click.echo(f"{visible(source.path)}: {visible(problem)}", err=True)
    outcome = FileOutcome(
        source.path, len(result.applied), result.changed, **left_over(settings, after.findings, unsafe)
    )
    for finding in outcome.remaining:
        click.echo(format_finding(finding), err=True)
    for line in _fix_summary([outcome], write=True):
        click.echo(line, err=True)
    return EXIT_FINDINGS if outcome.failing else EXIT_CLEAN


def _fixable_paths(paths: tuple[str, ...]) -> None:
    """``fix`` rewrites files in place: a FIFO or a device cannot be fixed, which is an error rather than "Fixed 0"
    (standard input is read with '-' and printed fixed)."""
    import stat

    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # a missing path is reported where every path is checked
        if not stat.S_ISDIR(mode) and not stat.S_ISREG(mode):
            raise click.BadParameter(
                f"{path}: not a regular file (a FIFO, socket or device): nothing to fix", param_hint="PATHS"
            )


@cli.command()
def rules() -> None:
    """List every rule with its code, slug, severity and whether it can be fixed."""
    from shmlint.catalog import load_catalog

    for rule in load_catalog().values():
        click.echo(
            f"{rule.code}  {rule.slug:<26} {rule.severity.label:<8} fix:{rule.fix.availability.value:<10} {rule.summary}"
        )


@cli.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Show a rule's rationale, sources and examples (by code or slug)."""
    from shmlint.catalog import lookup
    from shmlint.docs import rule_page

    found = lookup(rule)
    if found is None:
        raise click.BadParameter(f"unknown rule '{rule}' (see `shmlint rules`)", param_hint="RULE")
    click.echo(rule_page(found))


def main() -> NoReturn:
    """Console entry point: any unexpected error is a clear message and exit code 2, never a traceback."""
    for stream in (sys.stdout, sys.stderr):  # undecodable bytes from files and file names print as \xNN escapes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_ERROR)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for a CI gate
        click.echo(f"shmlint: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo("Please report this with the file that caused it.", err=True)
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_CLEAN)
