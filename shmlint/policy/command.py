"""``shmlint policy``: print admission policies generated from the catalog and the tier data."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from shmlint.policy.manifests import HOWTO, TARGETS
from shmlint.rules.shm001_missing_shm import RULE as MISSING_SHM
from shmlint.settings import UNDECIDED

_HELP = (
    "Print admission policies that apply shmlint's pod rules in a cluster, generated from the same catalog and "
    "tier data as `check` (and the configuration file's shm-images, shm-commands, torch and GPU lists).\n\n"
    "TARGET: mutating (default: a Kubernetes MutatingAdmissionPolicy that mounts a sized Memory emptyDir at "
    "/dev/shm where {code} would report, undecided findings included), kyverno (the same mutation as a Kyverno MutatingPolicy), validating (a "
    "ValidatingAdmissionPolicy that warns with the linter's messages), gatekeeper (a ConstraintTemplate and "
    "constraint that warn), or all.\n\n"
    "Undecided: like `check`, the validating targets leave out {code} on an accelerator whose software is not known "
    "unless --undecided (or the configuration's undecided) is show or strict; the mutating targets give those "
    "containers /dev/shm whatever it says.\n\n"
    "Exemptions: a pod's shmlint.io/ignore annotation (codes or slugs, as `check` reads it), namespaces labelled "
    "shmlint.io/ignore, and --exclude-namespace (default kube-system).\n\n\b\n"
    + "\n\n\b\n".join(HOWTO[target] for target in TARGETS)
).replace("{code}", MISSING_SHM.code)


def _yaml(documents: list[dict]) -> str:
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _Dumper.add_representer(str, _text)
    text: str = yaml.dump_all(documents, Dumper=_Dumper, sort_keys=False, width=120, allow_unicode=True)
    return text


@click.command(help=_HELP)
@click.argument("target", type=click.Choice([*TARGETS, "all"]), default="mutating")
@click.option("--shm-size", "shm_size", default="8Gi", show_default=True, help="Size the mutation gives /dev/shm.")
@click.option("--deny", is_flag=True, help="Validating targets deny instead of warning (on every finding they report).")
@click.option(
    "--undecided",
    type=click.Choice(UNDECIDED),
    help="Validating targets: findings about accelerators whose software's /dev/shm need is not known are left out "
    "(summary, default, as check counts them only), reported as info (show) or as warnings (strict).",
)
@click.option(
    "--exclude-namespace",
    "exclude_namespaces",
    multiple=True,
    help="A namespace no policy applies to (repeat; default kube-system, replaced when given).",
)
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Configuration file.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the manifests to a file.")
def policy(
    target: str,
    shm_size: str,
    deny: bool,
    undecided: str | None,
    exclude_namespaces: tuple[str, ...],
    config: Path | None,
    output: Path | None,
) -> None:
    from shmlint.config import ConfigError, load_effective
    from shmlint.policy.knowledge import export
    from shmlint.policy.manifests import Options, documents, notes
    from shmlint.policy.re2 import UnsupportedPattern
    from shmlint.sizes import parse_either

    size = parse_either(shm_size)
    if size is None or size <= 0:
        raise click.BadParameter(f"'{shm_size}' is not a size (e.g. 8Gi or 8g)", param_hint="--shm-size")
    try:
        settings = load_effective(".", config).settings
        if undecided is not None:
            settings = settings._replace(undecided=undecided)
        knowledge = export(settings)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    except UnsupportedPattern as exc:
        raise click.ClickException(f"a pattern cannot be written for an admission policy: {exc}") from None
    targets = TARGETS if target == "all" else (target,)
    options = Options(size, deny, exclude_namespaces or ("kube-system",))
    lines = [line for target in targets for line in [*HOWTO[target].splitlines(), ""]]
    lines += [line for note in notes(knowledge) for line in textwrap.wrap(f"note: {note}", 116, subsequent_indent="  ")]
    header = "".join(f"# {line}".rstrip() + "\n" for line in lines)
    text = header + _yaml(documents(knowledge, targets, options))
    if output is None:
        click.echo(text, nl=False)
    else:
        from shmlint.outfile import OutputError, write_text_file

        try:
            write_text_file(output, text, "policy")
        except OutputError as exc:
            raise click.ClickException(str(exc)) from None
