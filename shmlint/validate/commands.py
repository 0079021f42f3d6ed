"""``shmlint validate`` and ``shmlint size``; registered on the main group with ``cli.add_command``.

Heavy imports (the engine, the harness) happen inside ``validate`` so ``shmlint check`` starts as fast as before.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import NoReturn

import click

from shmlint import dataloader
from shmlint.model import DataLoaderHint


class Unavailable(click.ClickException):
    """A backend or torch missing: a usage/setup problem (exit 2), not a disagreement (exit 1)."""

    exit_code = 2


def _terminated(signum: int, frame: object) -> NoReturn:
    """SIGTERM unwinds like an exception, so the harness kills every probe it started before exiting."""
    raise SystemExit(128 + signum)


def _backend_names(values: tuple[str, ...]) -> tuple[str, ...]:
    from shmlint.validate.backends import BACKENDS, backends_from_env

    try:
        names = tuple(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))
        names = names or backends_from_env(("namespace",))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="SHMLINT_VALIDATE_BACKENDS") from None
    unknown = [n for n in names if n not in BACKENDS]
    if unknown:
        raise click.BadParameter(
            f"unknown backend {', '.join(unknown)} (one of {', '.join(BACKENDS)})", param_hint="--backend"
        )
    if not names:
        raise click.BadParameter("no backend left to run", param_hint="--backend")
    return names


class _SizeType(click.ParamType):
    """A byte count: plain bytes, a Kubernetes quantity (4Mi) or a docker size (4m)."""

    name = "size"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from shmlint.sizes import parse_either

        text = str(value)
        size = parse_either(text)
        if size is None or size <= 0:
            self.fail(f"'{text}' is not a size (e.g. 602112, 4Mi or 4m)", param, ctx)
        return size


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--backend",
    "backends",
    multiple=True,
    help="namespace, podman, or both: --backend namespace,podman [default: SHMLINT_VALIDATE_BACKENDS, else namespace]",
)
@click.option(
    "--podman-arg",
    "podman_args",
    multiple=True,
    help="Extra `podman run` argument (repeat it); replaces SHMLINT_PODMAN_ARGS and the built-in defaults.",
)
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1, 64), help="Probes at a time.")
@click.option(
    "--timeout", "limit", default=120.0, show_default=True, type=click.FloatRange(1), help="Seconds one probe may run."
)
@click.option(
    "--max-memory",
    type=_SizeType(),
    default="2Gi",
    show_default=True,
    help="Memory the probes may hold together; a loader that needs more is reported, not run.",
)
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Configuration file.")
def validate(
    paths: tuple[Path, ...],
    backends: tuple[str, ...],
    podman_args: tuple[str, ...],
    jobs: int,
    limit: float,
    max_memory: int,
    config: Path | None,
) -> None:
    """Run a real torch DataLoader in the /dev/shm each workload would get, as written and after `shmlint fix`.

    Exit 0 when every finding that predicts a shared-memory failure meets one and every other workload (and every
    fixed one) passes; 1 when one does not; 2 when a backend or torch cannot run here.
    """
    from shmlint.config import ConfigError, load_effective
    from shmlint.discover import discover
    from shmlint.engine import Engine
    from shmlint.validate.backends import BackendUnavailable, Reaper, make_backend
    from shmlint.validate.harness import ProbeLimits, cases_for, render, require_torch, run_cases

    if not sys.platform.startswith("linux"):
        raise Unavailable(
            f"shmlint validate needs Linux (mount namespaces or podman) and this is {sys.platform}: "
            "run it on a Linux machine or in a Linux container"
        )
    names = _backend_names(backends)
    reaper = Reaper()
    chosen = [make_backend(name, reaper, podman_args or None) for name in names]
    try:
        require_torch()
        for backend in chosen:
            backend.check()
    except BackendUnavailable as exc:
        raise Unavailable(str(exc)) from None
    limits = ProbeLimits(max_memory=max_memory)
    started = time.monotonic()
    cases = []
    for path in paths or (Path("."),):
        try:
            settings = load_effective(path, config).settings
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        engine = Engine(settings)
        for candidate in discover([path], settings):
            cases.extend(cases_for(engine, candidate, limits))
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        rows = run_cases(cases, chosen, reaper, jobs=jobs, limit=limit, limits=limits)
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(render(rows), nl=False)
    disagreements = sum(row.verdict == "NO" for row in rows)
    probes = len({(row.backend, row.probe) for row in rows if row.probe})
    seconds = time.monotonic() - started
    click.echo(
        f"{len(rows)} row(s), {probes} distinct probe(s) in {int(seconds // 60)} min {seconds % 60:.0f} s, "
        f"{disagreements} disagreement(s).",
        err=True,
    )
    sys.exit(1 if disagreements else 0)


@click.command()
@click.option("--workers", required=True, type=click.IntRange(0), help="DataLoader num_workers.")
@click.option("--prefetch-factor", default=2, show_default=True, type=click.IntRange(1))
@click.option("--batch-size", required=True, type=click.IntRange(1))
@click.option("--sample-shape", help="Shape of one sample, e.g. 3x224x224 (with --dtype).")
@click.option(
    "--dtype",
    type=click.Choice(sorted(dataloader.DTYPE_BYTES)),
    help="Element type for --sample-shape  [default: float32]",
)
@click.option("--sample-bytes", type=_SizeType(), help="Bytes of one sample, instead of --sample-shape.")
@click.option(
    "--procs",
    default=1,
    show_default=True,
    type=click.IntRange(1),
    help="Training processes per container (torchrun --nproc_per_node).",
)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def size(
    workers: int,
    prefetch_factor: int,
    batch_size: int,
    sample_shape: str | None,
    dtype: str | None,
    sample_bytes: int | None,
    procs: int,
    output_format: str,
) -> None:
    """Estimate the /dev/shm a DataLoader needs and recommend a size, showing the arithmetic."""
    if (sample_shape is None) == (sample_bytes is None):
        raise click.UsageError("give exactly one of --sample-shape (with --dtype) or --sample-bytes")
    if dtype is not None and sample_shape is None:
        raise click.UsageError("--dtype goes with --sample-shape")
    if sample_shape is not None:
        try:
            sample_bytes = dataloader.sample_bytes(sample_shape, dtype or "float32")
        except dataloader.HintError as exc:
            raise click.BadParameter(str(exc), param_hint="--sample-shape") from None
    assert sample_bytes is not None
    result = dataloader.estimate(DataLoaderHint(workers, batch_size, sample_bytes, prefetch_factor, procs))
    sample = f"{sample_shape} dtype={dtype or 'float32'}" if sample_shape is not None else None
    if output_format == "json":
        document = {**result.as_dict(), "hint": result.hint_comment(sample), "arithmetic": result.lines(sample)}
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo("\n".join(result.lines(sample)))
