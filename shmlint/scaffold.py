"""``python -m shmlint.scaffold rule``: the files of a new rule, ready to be filled in.

Writes the catalog entry ``rules/shmNNN_slug.yaml`` (valid against rules/schema.json), the module
``shmlint/rules/shmNNN_slug.py`` with ``check`` and ``RULE``, a bad and a good fixture per format (and the fixed one
when the rule has a fix), then regenerates the rule docs and the README's rules table. It takes the next free code,
refuses a code or slug the catalog has, and never overwrites a file. Every place left to write says
``TODO(scaffold)``; docs/adding-a-rule.md is the checklist, and the tests it names fail until it is done.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: what every line the author has to write says, so that a test can tell a scaffolded rule from a finished one
TODO = "TODO(scaffold)"
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
CODE = re.compile(r"SHM(\d{3})")
SEVERITIES = ("error", "warning", "info")
FIXES = ("never", "safe", "unsafe")


@dataclass(frozen=True, slots=True)
class Template:
    """A format the scaffold writes fixtures for: its catalog name, fixtures folder, file suffix, and an input that
    reports nothing (a GPU/torch container with a sized /dev/shm), written with a comment line in front."""

    folder: str
    suffix: str
    comment: str
    clean: str


TEMPLATES = {
    "kubernetes": Template(
        "k8s",
        ".yaml",
        "#",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\nspec:\n  containers:\n  - name: main\n"
        "    image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n    command: [torchrun, train.py]\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: 1\n        memory: 32Gi\n"
        "    volumeMounts:\n    - name: dshm\n      mountPath: /dev/shm\n  volumes:\n  - name: dshm\n"
        "    emptyDir:\n      medium: Memory\n      sizeLimit: 8Gi\n",
    ),
    "compose": Template(
        "compose",
        ".compose.yaml",
        "#",
        "services:\n  trainer:\n    image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n"
        '    command: torchrun train.py\n    gpus: all\n    shm_size: "8gb"\n',
    ),
    "command": Template(
        "shell",
        ".sh",
        "#",
        "#!/bin/sh\ndocker run --rm --gpus all --shm-size=8g pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime "
        "torchrun train.py\n",
    ),
}
#: the example file name per format: what decides how the example is read (rules/schema.json, ``filename``)
EXAMPLE_NAMES = {"kubernetes": "pod.yaml", "compose": "compose.yaml", "command": "run.sh"}


class ScaffoldError(Exception):
    """Why nothing was written."""


@dataclass(frozen=True, slots=True)
class NewRule:
    code: str
    slug: str
    summary: str
    severity: str
    formats: tuple[str, ...]
    fix: str

    @property
    def stem(self) -> str:
        return f"{self.code.lower()}_{self.slug.replace('-', '_')}"


def existing_rules(root: Path) -> dict[str, str]:
    """Code -> slug of every catalog entry, read from the file names (``shm013_ipc_none.yaml``)."""
    found = {}
    for path in sorted((root / "rules").glob("shm[0-9][0-9][0-9]_*.yaml")):
        number, _, words = path.stem.partition("_")
        found[number.upper()] = words.replace("_", "-")
    return found


def next_code(root: Path) -> str:
    return f"SHM{len(existing_rules(root)):03d}"


def refusal(rule: NewRule, root: Path) -> str | None:
    """Why ``rule`` cannot be added to the checkout at ``root`` (None: it can)."""
    if not SLUG.fullmatch(rule.slug) or len(rule.slug) > 40:
        return f"slug {rule.slug!r}: lower-case words joined by '-', at most 40 characters"
    if not CODE.fullmatch(rule.code):
        return f"code {rule.code!r}: SHM and three digits"
    if not 10 <= len(rule.summary) <= 160 or "\n" in rule.summary:
        return "summary: one line of 10 to 160 characters"
    existing = existing_rules(root)
    if rule.code in existing:
        return f"{rule.code} exists ({existing[rule.code]}); codes are never reused"
    if rule.slug in existing.values():
        return f"slug {rule.slug!r} exists ({next(c for c, s in existing.items() if s == rule.slug)})"
    if rule.code != next_code(root):
        return f"{rule.code} would leave a gap: the codes run without one, and the next is {next_code(root)}"
    unknown = sorted(set(rule.formats) - set(TEMPLATES))
    if unknown or not rule.formats:
        return f"formats: one or more of {', '.join(TEMPLATES)} (others: add their fixtures by hand), not {unknown}"
    return None


def _literal(key: str, text: str, indent: int) -> str:
    """``key: |`` and ``text`` as a YAML literal block at ``indent``."""
    pad = " " * indent
    return f"{pad}{key}: |\n" + "".join(f"{pad}  {line}\n" if line else "\n" for line in text.splitlines())


def _example_text(rule: NewRule, fmt: str, kind: str) -> str:
    template = TEMPLATES[fmt]
    what = {
        "bad": f"change this input so that it shows what {rule.code} {rule.slug} reports",
        "good": f"a near miss of {rule.code} {rule.slug}: close to the bad input, and nothing is reported",
        "fixed": f"what `shmlint fix` makes of the bad input for {rule.code} {rule.slug}",
    }[kind]
    text = template.clean
    line = f"{template.comment} {TODO}: {what}\n"
    return text.replace("\n", "\n" + line, 1) if text.startswith("#!") else line + text


def catalog_entry(rule: NewRule) -> str:
    """The YAML of the entry: every field the schema requires, each still to be written."""
    fmt = rule.formats[0]
    if rule.fix == "never":
        fix = "fix:\n  availability: never\n" + _literal("description", f"{TODO}: why there is no automatic fix.", 2)
    else:
        fix = f"fix:\n  availability: sometimes\n  applicability: {rule.fix}\n"
        fix += _literal("description", f"{TODO}: what shmlint fix writes, and when it does not.", 2)
    example = f"  - title: {TODO} what the example shows\n    filename: {EXAMPLE_NAMES[fmt]}\n"
    for kind in ("bad", "good") if rule.fix == "never" else ("bad", "good", "fixed"):
        example += _literal(kind, _example_text(rule, fmt, kind), 4)
    return (
        f"code: {rule.code}\nslug: {rule.slug}\nimplementation: shmlint.rules.{rule.stem}\n"
        f"severity: {rule.severity}\nsummary: {json.dumps(rule.summary)}\n"
        + _literal("rationale", f"{TODO}: why this matters, with the runtime behaviour behind it and its sources.", 0)
        + f"sources:\n  - title: {TODO} the documentation or issue the rationale rests on\n"
        "    url: https://example.com/todo-scaffold\n"
        + _literal("how_to_fix", f"{TODO}: what to change by hand, per format.", 0)
        + f"{fix}formats: [{', '.join(rule.formats)}]\nexamples:\n{example}"
    )


def rule_module(rule: NewRule) -> str:
    return (
        f'"""{rule.code} {rule.slug}: {rule.summary}."""\n\n'
        "from __future__ import annotations\n\n"
        "from collections.abc import Iterator\n\n"
        "from shmlint.model import Finding, Workload\n"
        "from shmlint.rules.rule import Rule, RuleContext\n\n\n"
        "def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:\n"
        f"    # {TODO}: yield ctx.report(RULE, message, span, workload, fix) for what the catalog entry describes\n"
        "    yield from ()\n\n\n"
        f'RULE = Rule("{rule.code}", check)\n'
    )


def planned_files(rule: NewRule, root: Path) -> dict[Path, str]:
    """Every file the scaffold writes, with its text."""
    files = {
        root / "rules" / f"{rule.stem}.yaml": catalog_entry(rule),
        root / "shmlint" / "rules" / f"{rule.stem}.py": rule_module(rule),
    }
    for fmt in rule.formats:
        template = TEMPLATES[fmt]
        folder = root / "fixtures" / template.folder
        bad = folder / f"{rule.code}-{rule.slug}{template.suffix}"
        files[bad] = _example_text(rule, fmt, "bad")
        files[folder / f"good-{rule.code}-{rule.slug}{template.suffix}"] = _example_text(rule, fmt, "good")
        if rule.fix != "never":
            files[bad.with_name(bad.name + ".fixed")] = _example_text(rule, fmt, "fixed")
    return files


def scaffold(rule: NewRule, root: Path) -> list[Path]:
    """Write the rule's files under ``root`` (a checkout) and regenerate its docs; nothing is written on a refusal
    or when any of the files exists."""
    why = refusal(rule, root)
    if why:
        raise ScaffoldError(why)
    files = planned_files(rule, root)
    there = [str(path.relative_to(root)) for path in files if path.exists()]
    if there:
        raise ScaffoldError(f"would overwrite {', '.join(there)}")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # "x": never over a file made meanwhile
            handle.write(text)
    regenerate_docs(root)
    return list(files)


def regenerate_docs(root: Path) -> None:
    """``python -m shmlint.docs`` of the checkout at ``root`` (its own package and catalog, not this process's)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "shmlint.docs"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ScaffoldError(f"the files are written, but python -m shmlint.docs failed: {done.stderr.strip()}")


def default_root() -> Path:
    """The source checkout this package lives in."""
    return Path(__file__).resolve().parent.parent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shmlint.scaffold", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("rule", help="the catalog entry, module and fixtures of a new rule")
    new.add_argument("--code", help="SHMnnn: the next free code (the default; codes run without gaps)")
    new.add_argument("--slug", required=True, help="kebab-case name, e.g. shm-too-small")
    new.add_argument("--summary", required=True, help="one line: what the rule reports")
    new.add_argument("--severity", choices=SEVERITIES, default="warning")
    new.add_argument(
        "--format", dest="formats", action="append", choices=sorted(TEMPLATES), help="repeatable; default kubernetes"
    )
    new.add_argument("--fix", choices=FIXES, default="never", help="the fix the rule will offer (default: none)")
    new.add_argument("--root", type=Path, default=None, help="the checkout to write into (default: this one)")
    args = parser.parse_args(argv)
    root = (args.root or default_root()).resolve()
    if not (root / "rules" / "schema.json").is_file() or not (root / "shmlint" / "rules").is_dir():
        print(f"error: {root} is not a shmlint checkout (no rules/schema.json)", file=sys.stderr)
        return 2
    formats = tuple(dict.fromkeys(args.formats or ["kubernetes"]))
    rule = NewRule(args.code or next_code(root), args.slug, args.summary, args.severity, formats, args.fix)
    try:
        written = scaffold(rule, root)
    except ScaffoldError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print("regenerated docs/rules/ and the README's rules table; next: the checklist in docs/adding-a-rule.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
