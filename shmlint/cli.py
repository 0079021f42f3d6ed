"""Command line: ``shmlint check``, ``config``, ``rules``, ``explain``; ``fix`` and the commands of the validation
harness, the language server and the policy export are loaded when they run.

Options become a ``session.Request`` (``shmlint.cli_options``), the session checks it, and this module shows the
report and decides the exit code. Heavy modules (reporters for other formats, the fix machinery, jsonschema) are
imported inside the command that needs them, so ``shmlint check one.yaml`` in a pre-commit hook starts fast.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, ClassVar, NoReturn

import click

from shmlint import __version__
from shmlint.cli_options import (
    A_FILE,
    A_REPORT_FILE,
    EXISTING_FILE,
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    PATHS,
    configuration_errors,
    emit,
    fail_on,
    gathered,
    options,
    shared,
)
from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from shmlint.model import Finding
    from shmlint.results import Report
    from shmlint.session import Options
    from shmlint.source import SourceText

    #: files' text by path, and the diff of each shown finding's fix (``--show-source``)
    SourceContext = tuple[dict[str, SourceText], dict[Finding, str]]


class _Group(click.Group):
    """Commands that live with the fixer, the validation harness or the language server are imported only when
    they run, so ``check`` in a pre-commit hook does not pay for them."""

    LAZY: ClassVar[dict[str, str]] = {
        "validate": "shmlint.validate.commands",
        "size": "shmlint.validate.commands",
        "server": "shmlint.server.command",
        "policy": "shmlint.policy.command",
        "fix": "shmlint.fix.command",
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


class Display(NamedTuple):
    """How the report is shown: the options that change nothing that is found."""

    output_format: str = "text"
    output: Path | None = None
    quiet: bool = False
    statistics: bool = False
    show_fixes: bool = False
    report_unused_suppressions: bool = False


@cli.command()
@PATHS
@shared
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif", "github", "junit", "gitlab"]),
    default="text",
    show_default=True,
)
@click.option("--output", type=A_REPORT_FILE, help="Write the report to a file ('-': standard output).")
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
@fail_on("Lowest severity that fails the run (default: warning).")
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
@click.option(
    "--no-prefilter",
    "prefilter",
    is_flag=True,
    callback=lambda ctx, param, value: False if value else None,
    hidden=True,
    help="Build workloads even for files with no signal.",
)
@options
@gathered(Display, "display")
def check(
    paths: tuple[str, ...],
    config: Path | None,
    options: Options,
    display: Display,
    baseline_file: Path | None,
    write_baseline_file: Path | None,
    exit_zero: bool,
    stdin_filename: str | None,
    apply_fixes: bool,
    unsafe_fixes: bool,
) -> None:
    """Check files and folders (default: the current folder; '-' reads standard input)."""
    from shmlint import session

    stdin_name = (stdin_filename or "-") if "-" in paths else None
    targets = tuple(p for p in paths if p != "-") or (() if stdin_name is not None else (".",))
    stream = sys.stdin.buffer if sys.stdin is not None else None
    request = session.Request(targets, stdin_name, stream, options, config)
    if unsafe_fixes and not apply_fixes:
        raise click.BadParameter("applies fixes: use it with --fix (or `shmlint fix`)", param_hint="--unsafe-fixes")
    if apply_fixes:  # as ruff's `check --fix`: the fixes written, then the check reports what is left
        if stdin_name is not None:
            raise click.BadParameter("'-': `check --fix` rewrites files; `shmlint fix -` prints standard input fixed")
        from shmlint.fix.command import fix_paths, fixable_paths

        fixable_paths(targets)
        # a file that could not be written is said on stderr; the report of what is left still follows (a CI
        # step reads it), and the run then exits with the error
        fix_failed = fix_paths(request, write=True, unsafe=unsafe_fixes, before_check=True) == EXIT_ERROR
    else:
        fix_failed = False
    with configuration_errors():
        report = session.check(request)
    report = _apply_baseline(report, baseline_file, write_baseline_file, display.quiet)
    if display.quiet and report.unrendered:  # never silent: a pre-commit hook runs `check --quiet`
        from shmlint.report.text import format_unrendered

        for record in report.unrendered:
            click.echo(format_unrendered(record), err=True)
    if display.report_unused_suppressions and display.output_format != "text":  # they fail the run: said on
        # stderr, since a machine format has no place for them
        from shmlint.report.text import format_unused_suppressions

        for line in format_unused_suppressions(report):
            click.echo(line, err=True)
    emit(_format_report(report, display), display.output)
    failed = report.failed_by_file() or (display.report_unused_suppressions and bool(report.unused_suppressions))
    from shmlint.engine import DEFECT

    defects = [f.path for f in report.files if f.findings and any(DEFECT in x.message for x in f.findings)]
    if defects:  # the report is whole, but shmlint failed on these files: a tool error, never a pass
        from shmlint.visible import visible

        first = visible(defects[0])
        click.echo(f"shmlint: internal error on {len(defects)} file(s), first {first}; please report it", err=True)
        sys.exit(EXIT_ERROR)
    if fix_failed:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if failed and not exit_zero else EXIT_CLEAN)


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


def _source_context(report: Report) -> SourceContext:
    """The text of the files whose findings are shown with their source (kept by the check), and each fix as a
    diff."""
    from shmlint.session import shown_sources

    sources = shown_sources(report)
    diffs: dict[Finding, str] = {}
    for result in report.files:
        if result.settings is None or not result.settings.show_source:
            continue
        for finding in result.findings:
            if finding.fix is not None and finding.span.path in sources:
                from shmlint.fix.preview import fix_diff

                if diff := fix_diff(finding, sources[finding.span.path]):
                    diffs[finding] = diff
    return sources, diffs


def _format_report(report: Report, display: Display) -> str:
    import importlib

    if display.output_format != "text":
        formatted: str = importlib.import_module(f"shmlint.report.{display.output_format}").format_report(report)
        return formatted
    from shmlint.report import text as reporter

    shown = any(r.settings is not None and r.settings.show_source for r in report.files)
    sources, diffs = _source_context(report) if shown else (None, None)
    return reporter.format_report(
        report,
        colour=display.output is None and reporter.wants_colour(sys.stdout),
        quiet=display.quiet,
        show_statistics=display.statistics,
        show_fixes=display.show_fixes,
        show_unused_suppressions=display.report_unused_suppressions,
        sources=sources,
        diffs=diffs,
    )


@cli.command("config")
@click.argument("path", required=False, type=click.Path(exists=True, readable=False))  # as check: a usage error
@click.option("--config", type=EXISTING_FILE, help="Configuration file.")
def show_config(path: str | None, config: Path | None) -> None:
    """Print the effective configuration for PATH and where each value comes from."""
    from shmlint.config import describe, load_effective

    with configuration_errors():
        click.echo(describe(load_effective(path or ".", config)), nl=False)


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


#: what the pre-commit hooks end their ``entry`` with: after it come the user's ``args``, then the file names
HOOK_FILES = "--hook-files"


def files_as_paths(argv: list[str]) -> list[str]:
    """``check`` and ``fix`` arguments that name a file that exists are paths, whatever they look like: a pull request
    may hold a file named ``--write-baseline=x.json`` or ``--ignore=SHM001``, which click would read as an option
    that turns the gate off. Before ``--``, such a word that starts with ``-`` (a glob's match) is moved after it.
    After ``HOOK_FILES`` (pre-commit appends the user's ``args`` and then the changed files to the hook's entry),
    every word that names a file is a path, and a word that starts with ``-`` and names none is one of the user's
    options, with the words after it that name no file as its values; the entry's own options before it stay."""
    if not argv or argv[0] not in ("check", "fix"):
        return argv
    if HOOK_FILES in argv:
        at = argv.index(HOOK_FILES)
        options, paths = _hook_arguments(argv[at + 1 :])
        return [*argv[:at], *options, "--", *paths]
    end = argv.index("--") if "--" in argv else len(argv)
    named = [arg for arg in argv[1:end] if arg.startswith("-") and arg != "-" and os.path.lexists(arg)]
    if not named:
        return argv
    kept = [arg for arg in argv[:end] if arg not in named]
    return [*kept, "--", *named, *argv[end + 1 :]]


def _hook_arguments(words: list[str]) -> tuple[list[str], list[str]]:
    """(the user's options, the paths) among what pre-commit puts after the hook's entry."""
    options: list[str] = []
    paths: list[str] = []
    values = False  # the words after an option that name no file are its values
    for word in words:
        if os.path.lexists(word):
            paths.append(word)
            values = False
        elif word.startswith("-") and word != "-":
            options.append(word)
            values = True
        else:
            (options if values else paths).append(word)
    return options, paths


def main() -> NoReturn:
    """Console entry point: any unexpected error is a clear message and exit code 2, never a traceback."""
    for stream in (sys.stdout, sys.stderr):  # undecodable bytes from files and file names print as \xNN escapes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        cli.main(args=files_as_paths(sys.argv[1:]), standalone_mode=False)
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
