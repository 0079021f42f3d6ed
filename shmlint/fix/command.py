"""``shmlint fix``: each file's fixes as a diff, or written (``--write``); ``-`` prints standard input fixed.
``check --fix`` writes through ``fix_paths`` before it checks."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from shmlint import session
from shmlint.cli_options import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    PATHS,
    configuration_errors,
    emit,
    fail_on,
    options,
    shared,
    size,
)

if TYPE_CHECKING:
    from pathlib import Path

    from shmlint.fix.run import FileOutcome
    from shmlint.session import Options
    from shmlint.settings import Settings


@click.command()
@PATHS
@shared
@click.option("--write", is_flag=True, help="Apply the fixes instead of showing them.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour.")
@click.option(
    "--fix-size",
    "--shm-size",
    "fix_size",
    callback=size,
    help="Size to write (default 8Gi; at most half a memory limit); the fix-size setting.",
)
@fail_on("Lowest severity that fails the run when left after fixing.")
@click.option("--stdin-filename", help="Name for text read from '-': decides the format and appears in messages.")
@options
def fix(
    paths: tuple[str, ...],
    config: Path | None,
    options: Options,
    write: bool,
    unsafe_fixes: bool,
    stdin_filename: str | None,
) -> None:
    """Show the fixes as a unified diff (exit 1 when something would change), or apply them with --write (exit 1
    when findings at or above fail-on are left); '-' reads standard input and prints it fixed."""
    if "-" in paths:
        if len(paths) > 1:
            raise click.BadParameter(
                "'-' (standard input) is fixed on its own, not with other paths", param_hint="PATHS"
            )
        stream = sys.stdin.buffer if sys.stdin is not None else None
        request = session.Request(stdin_name=stdin_filename or "-", stdin=stream, options=options, config=config)
        sys.exit(fix_stdin(request, unsafe_fixes))
    fixable_paths(paths)
    request = session.Request(paths or (".",), options=options, config=config)
    sys.exit(fix_paths(request, write=write, unsafe=unsafe_fixes))


def _configured(request: session.Request, paths: tuple[str, ...]) -> list[session.Group]:
    """The groups of the request's paths; a fix size the command line sets below a group's minimum is honoured
    (one run's explicit request), with a warning."""
    with configuration_errors():
        groups = session.configure(paths, request.config, request.options)
    for settings, _ in groups:
        if request.options.fix_size is not None and (below := session.fix_size_below_minimum(settings)):
            click.echo(f"shmlint: warning: --fix-size: {below}", err=True)
    return groups


def fix_paths(request: session.Request, *, write: bool, unsafe: bool, before_check: bool = False) -> int:
    """Fix files: each file's diff (or, with ``write``, what was fixed and what is left), then the accounting.
    ``before_check`` (``check --fix``): only what was written, on standard error; the check reports what is left."""
    from pathlib import Path

    from shmlint.discover import discover
    from shmlint.fix.run import fix_candidates
    from shmlint.report.text import format_finding
    from shmlint.visible import visible

    jobs = []
    seen: set[str] = set()  # a file two named paths of different configurations reach: fixed once, by the first's
    for settings, members in _configured(request, request.paths):
        for candidate in discover(members, settings):
            where = os.path.abspath(candidate.path)
            if candidate.error is None and where in seen:
                continue
            seen.add(where)
            jobs.append((settings, candidate))
    outcomes: list[FileOutcome] = []
    for outcome in fix_candidates(jobs, write=write, unsafe=unsafe, roots=tuple(map(Path, request.paths))):
        outcomes.append(outcome)
        for problem in outcome.problems:
            click.echo(f"{visible(outcome.path)}: {visible(problem)}", err=True)
        if outcome.error is not None:
            click.echo(f"{visible(outcome.path)}: {visible(outcome.error)}", err=True)
        elif outcome.changed and write:
            click.echo(f"{visible(outcome.path)}: fixed {outcome.applied} finding(s)", err=before_check)
        elif outcome.changed:
            emit(outcome.diff)
    if before_check:
        fixed = sum(o.applied for o in outcomes)
        click.echo(f"Fixed {fixed} finding(s) in {sum(1 for o in outcomes if o.changed)} file(s).", err=True)
        return EXIT_ERROR if any(o.error is not None for o in outcomes) else EXIT_CLEAN
    if write:
        for outcome in outcomes:
            for finding in outcome.remaining:
                click.echo(format_finding(finding))
    for line in _summary(outcomes, write):
        click.echo(line, err=not write)
    if any(o.error is not None for o in outcomes):
        return EXIT_ERROR
    if write:
        return EXIT_FINDINGS if any(o.failing for o in outcomes) else EXIT_CLEAN
    return EXIT_FINDINGS if any(o.changed for o in outcomes) else EXIT_CLEAN


def _summary(outcomes: list[FileOutcome], write: bool) -> list[str]:
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


def fix_stdin(request: session.Request, unsafe: bool) -> int:
    """``fix -``: standard input fixed on standard output (the input as it was when nothing is fixable), the
    accounting and any finding left on standard error; exit 1 when findings at or above fail-on are left."""
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.fix.run import FileOutcome, left_over
    from shmlint.report.text import format_finding
    from shmlint.text_input import check_text, read_stream
    from shmlint.visible import visible

    named = session.stdin_path(request)
    settings: Settings = _configured(request, (named,))[0][0]  # the named file's configuration, as `check -` reads
    if session.stdin_excluded(named, settings):  # left out as `check -` leaves it out: printed back as it came
        stdout = sys.stdout.buffer if sys.stdout is not None else None
        if stdout is None or request.stdin is None:
            raise click.ClickException("standard input or output is closed")
        import shutil

        shutil.copyfileobj(request.stdin, stdout)
        stdout.flush()
        return EXIT_CLEAN
    engine = Engine(settings)
    text = read_stream(request.stdin, request.stdin_name or "-", settings.max_file_size)
    checked = check_text(engine, text)
    source, kind = checked.source, checked.kind
    if source is None or kind is None:  # not read whole, or not text: nothing can be printed back
        for finding in checked.result.findings:
            click.echo(format_finding(finding), err=True)
        return EXIT_ERROR
    result = fix_source(engine, source, kind, source.path, unsafe=unsafe, checked=checked.result)
    after = engine.check_source(source.with_text(result.text), kind, source.path) if result.changed else checked.result
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
    for line in _summary([outcome], write=True):
        click.echo(line, err=True)
    return EXIT_FINDINGS if outcome.failing else EXIT_CLEAN


def fixable_paths(paths: tuple[str, ...]) -> None:
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
