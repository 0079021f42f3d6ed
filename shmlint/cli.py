"""Command line: ``shmlint check``, ``fix``, ``rules``, ``explain``.

Heavy modules (reporters for other formats, the fix machinery, jsonschema) are imported inside the command that
needs them, so ``shmlint check one.yaml`` in a pre-commit hook starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from shmlint import __version__
from shmlint.model import Severity

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


def _use_colour() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shmlint")
def cli() -> None:
    """Find GPU and PyTorch containers whose /dev/shm is too small, before they crash."""


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Only these rules (codes or slugs, comma-separated).")
@click.option("--ignore", multiple=True, help="Skip these rules (codes or slugs, comma-separated).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to a file.")
@click.option("--fail-on", type=SEVERITIES, default="warning", show_default=True, help="Lowest severity that fails.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings fail the run.")
@click.option("--quiet", "-q", is_flag=True, help="Only findings, no notes or summary.")
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Build workloads even for files with no signal.")
def check(
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    output_format: str,
    output: Path | None,
    fail_on: str,
    exit_zero: bool,
    quiet: bool,
    statistics: bool,
    no_prefilter: bool,
) -> None:
    """Check files and folders (default: the current folder)."""
    from shmlint.engine import Engine
    from shmlint.settings import Settings

    settings = Settings(
        select=_codes(select),
        ignore=_codes(ignore),
        fail_on=Severity.parse(fail_on),
        prefilter=not no_prefilter,
    )
    report = Engine(settings).check_paths(paths or (Path("."),))
    if output_format == "json":
        from shmlint.report import json as reporter

        text = reporter.render(report)
    else:
        from shmlint.report import text as reporter_text

        text = reporter_text.render(
            report, colour=output is None and _use_colour(), quiet=quiet, show_statistics=statistics
        )
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    sys.exit(EXIT_FINDINGS if report.failed(settings.fail_on) and not exit_zero else EXIT_CLEAN)


def _size(text: str | None) -> int | None:
    if text is None:
        return None
    from shmlint.sizes import parse_docker, parse_kubernetes

    parsed = parse_kubernetes(text)
    if parsed.bytes is None:
        parsed = parse_docker(text)
    if parsed.bytes is None or parsed.bytes <= 0:
        raise click.BadParameter(f"'{text}' is not a size (e.g. 8Gi or 8g)", param_hint="--shm-size")
    return parsed.bytes


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--write", is_flag=True, help="Apply the fixes instead of showing them.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour.")
@click.option("--select", multiple=True, help="Only fix these rules (codes or slugs).")
@click.option("--ignore", multiple=True, help="Do not fix these rules (codes or slugs).")
@click.option("--shm-size", "shm_size", help="Size to write (default 8Gi; at most half a memory limit).")
def fix(
    paths: tuple[Path, ...],
    write: bool,
    unsafe_fixes: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    shm_size: str | None,
) -> None:
    """Show (or with --write apply) the fixes as a unified diff; exit 1 when something would change."""
    from shmlint.discover import discover
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.fix.diff import unified
    from shmlint.fix.write import WriteError, write_atomic
    from shmlint.settings import Settings

    settings = Settings(select=_codes(select), ignore=_codes(ignore))
    size = _size(shm_size)
    if size is not None:
        settings = Settings(select=settings.select, ignore=settings.ignore, fix_shm_bytes=size)
    engine = Engine(settings)
    changed = fixed = failures = 0
    for candidate in discover(paths or (Path("."),), settings.exclude):
        checked = engine.check_candidate(candidate)
        if checked.source is None or not any(f.fixable for f in checked.findings):
            continue
        result = fix_source(engine, checked.source, candidate.kind, candidate.path, unsafe=unsafe_fixes)
        for problem in result.problems:
            click.echo(f"{candidate.path}: {problem}", err=True)
        if not result.changed:
            continue
        changed += 1
        fixed += len(result.applied)
        if not write:
            click.echo(unified(str(candidate.path), checked.source.text, result.text), nl=False)
            continue
        try:
            write_atomic(candidate.path, result.source.encode(result.text), result.source.encode())
        except WriteError as exc:
            failures += 1
            click.echo(f"{candidate.path}: {exc}", err=True)
            continue
        click.echo(f"{candidate.path}: fixed {len(result.applied)} finding(s)")
    verb = "Fixed" if write else "Would fix"
    click.echo(f"{verb} {fixed} finding(s) in {changed} file(s).", err=not write)
    if failures:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if changed and not write else EXIT_CLEAN)


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
    from shmlint.docs import render_rule

    found = lookup(rule)
    if found is None:
        raise click.BadParameter(f"unknown rule '{rule}' (see `shmlint rules`)", param_hint="RULE")
    click.echo(render_rule(found))


def main() -> NoReturn:
    """Console entry point: any unexpected error is a clear message and exit code 2, never a traceback."""
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
