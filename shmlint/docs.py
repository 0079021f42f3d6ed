"""Markdown docs generated from the rule catalog, so docs/rules/ and the README's rules table can never drift from
what shmlint checks.

Regenerate with ``python -m shmlint.docs`` (``--check`` only reports stale files); a test fails when the
committed files differ from what this module writes.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from shmlint.catalog import CatalogEntry, FixAvailability, load_catalog
from shmlint.file_formats import describe, formats
from shmlint.format_descriptor import FileNames
from shmlint.model import Applicability

INDEX_NAME = "README.md"
REGENERATE = "python -m shmlint.docs"
#: the project README's rules table sits between these two lines
TABLE_START = f"<!-- rules table: generated from rules/*.yaml by `{REGENERATE}`. Do not edit by hand. -->"
TABLE_END = "<!-- end of rules table -->"

#: fence languages by file name ending; the first match wins, anything else is plain text
_LANGUAGES = (
    ("dockerfile", "dockerfile"),
    ("makefile", "makefile"),
    (".yaml", "yaml"),
    (".yml", "yaml"),
    (".sh", "bash"),
    (".bash", "bash"),
    (".md", "markdown"),
    (".markdown", "markdown"),
    (".json", "json"),
    (".tf", "hcl"),
    (".py", "python"),
)


def rule_page(rule: CatalogEntry) -> str:
    """One rule's page: what it finds, why, how to fix it, examples and sources."""
    lines = [
        f"# {rule.name}",
        "",
        f"- **Severity:** {rule.severity.label}",
        f"- **Formats:** {', '.join(describe(fmt).label for fmt in rule.formats)}",
        f"- **Automatic fix:** {_fix_label(rule)}",
        "",
        _sentence(rule.summary),
        "",
        "## Why this matters",
        "",
        rule.rationale,
        "",
        "## How to fix",
        "",
        rule.how_to_fix,
        "",
        "### `shmlint fix`",
        "",
        _fix_paragraph(rule),
        "",
        "## Examples",
    ]
    for example in rule.examples:
        language = _language(example.filename)
        lines += ["", f"### {example.title}", ""]
        also = f" (together with {', '.join(example.also)})" if example.also else ""
        lines += [f"**Reported**{also} in `{example.filename}`:", "", _fenced(example.bad, language), ""]
        if example.fixed is not None:
            lines += ["**After `shmlint fix`:**", "", _fenced(example.fixed, language), ""]
        lines += ["**Not reported:**", "", _fenced(example.good, language)]
    lines += ["", "## Sources", ""]
    lines += [f"- [{source.title}]({source.url})" for source in rule.sources]
    return "\n".join(lines) + "\n"


def index_page(rules: Iterable[CatalogEntry]) -> str:
    """The table of all rules, linking to each rule's page."""
    lines = [
        "# shmlint rules",
        "",
        "shmlint judges the /dev/shm of GPU and PyTorch workloads: containers that request GPUs, use a GPU",
        "runtime or `--gpus`, run torch-like images (PyTorch, vLLM, Triton, ...) or launchers such as `torchrun`.",
        "",
        "Every rule has a stable code and slug; either can be used to select, ignore or suppress it.",
        "Severities are defaults that configuration may change.",
        "",
        *rules_table(rules, ""),
    ]
    return "\n".join(lines) + "\n"


def rules_table(rules: Iterable[CatalogEntry], pages: str) -> list[str]:
    """The table's lines; ``pages`` is the path from the reader to docs/rules/ (empty inside it)."""
    lines = ["| Code | Name | Severity | Fix | Summary |", "| --- | --- | --- | --- | --- |"]
    for rule in rules:
        summary = rule.summary.replace("|", "\\|")
        link = f"[{rule.code}]({pages}{rule.code}.md)"
        lines.append(f"| {link} | {rule.slug} | {rule.severity.label} | {_fix_label(rule)} | {summary} |")
    return lines


def readme_with_table(readme: str, rules: Iterable[CatalogEntry]) -> str:
    """The README text with the lines between its table markers replaced by the current table."""
    start, end = readme.find(TABLE_START), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"the README lacks the rules table markers {TABLE_START!r} ... {TABLE_END!r}")
    table = "\n".join(rules_table(rules, "docs/rules/"))
    return f"{readme[: start + len(TABLE_START)]}\n{table}\n{readme[end:]}"


def expected_docs(rules: Sequence[CatalogEntry]) -> dict[str, str]:
    """Every generated file name in docs/rules/ with its content, marked as generated (``explain`` shows no mark)."""
    pages = {f"{rule.code}.md": _generated_note(f"rules/{rule.filename}") + rule_page(rule) for rule in rules}
    pages[INDEX_NAME] = _generated_note("rules/*.yaml") + index_page(rules)
    return pages


def write_docs(folder: Path) -> list[Path]:
    """Write the docs into ``folder``, touching only files whose content changed; returns those paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in expected_docs(list(load_catalog().values())).items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            written.append(path)
    return written


def stale_docs(folder: Path) -> list[str]:
    """Names of generated files in ``folder`` that are missing or differ from what would be written."""
    stale = []
    for name, text in expected_docs(list(load_catalog().values())).items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def write_readme(path: Path) -> bool:
    """Bring the README's rules table up to date; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    wanted = readme_with_table(text, load_catalog().values())
    if wanted != text:
        path.write_text(wanted, encoding="utf-8", newline="\n")
    return wanted != text


def stale_readme(path: Path) -> bool:
    """The README's rules table differs from what would be written."""
    text = path.read_text(encoding="utf-8")
    return readme_with_table(text, load_catalog().values()) != text


FORMATS_NAME = "formats.md"


def formats_page() -> str:
    """The formats shmlint reads, one row per format package (``shmlint/formats/<name>/``), from its descriptor."""
    lines = [
        "# Formats",
        "",
        "Each format is a package under `shmlint/formats/` (see [Adding a format](architecture.md#adding-a-format)).",
        "",
        "| Format | Package | Files by name | YAML it takes | How the fix is spelled | Fixtures |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for found in sorted(formats(), key=lambda f: f.label.lower()):
        files = "; ".join(_names(rule) for rule in found.files) or "-"
        yaml = (
            "by content"
            if found.yaml and (found.yaml.words or found.yaml.marker)
            else "any other"
            if found.yaml
            else "-"
        )
        fixtures = ", ".join(f"`fixtures/{folder}`" for folder in found.fixtures)
        remedy = found.remedy.replace("|", "\\|")
        lines.append(f"| {found.label} | `{found.name}` | {files} | {yaml} | {remedy} | {fixtures} |")
    return _generated_note("shmlint/formats/*/__init__.py") + "\n".join(lines) + "\n"


def _names(rule: FileNames) -> str:
    shown = [*rule.names, *rule.lower_names, *(f"*{e}" for e in rule.endings), *(f"{b}*" for b in rule.beginnings)]
    return f"{rule.kind.value}: " + ", ".join(f"`{name}`" for name in shown)


def default_formats() -> Path:
    """docs/formats.md of the source checkout this module lives in."""
    return default_folder().parent / FORMATS_NAME


def default_folder() -> Path:
    """docs/rules/ of the source checkout this module lives in."""
    return Path(__file__).resolve().parent.parent / "docs" / "rules"


def default_readme() -> Path:
    """README.md of the source checkout this module lives in."""
    return Path(__file__).resolve().parent.parent / "README.md"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m shmlint.docs [--check] [FOLDER]``: regenerate (or with --check, verify) the rule docs.

    Without FOLDER: docs/rules/, the README's rules table and docs/formats.md of the checkout; with it, only that
    folder."""
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [arg for arg in args if arg != "--check"]
    if len(paths) > 1 or any(arg.startswith("-") for arg in paths):
        print("usage: python -m shmlint.docs [--check] [FOLDER]", file=sys.stderr)
        return 2
    folder = Path(paths[0]) if paths else default_folder()
    readme = None if paths else default_readme()
    pages = {} if paths else {default_formats(): formats_page()}
    if check:
        stale = [folder / name for name in stale_docs(folder)]
        stale += [readme] if readme is not None and stale_readme(readme) else []
        stale += [
            path for path, text in pages.items() if not path.is_file() or path.read_text(encoding="utf-8") != text
        ]
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print(f"run `{REGENERATE}` to regenerate", file=sys.stderr)
        return 1 if stale else 0
    written = write_docs(folder)
    written += [readme] if readme is not None and write_readme(readme) else []
    for path, text in pages.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            written.append(path)
    for path in written:
        print(f"wrote {path}")
    return 0


def _generated_note(source: str) -> str:
    return f"<!-- Generated from {source} by `{REGENERATE}`. Do not edit by hand. -->\n\n"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _fix_label(rule: CatalogEntry) -> str:
    availability = rule.fix.availability
    if availability is FixAvailability.NEVER or rule.fix.applicability is None:
        return "none"
    return f"{availability.value} ({rule.fix.applicability.value})"


def _fix_paragraph(rule: CatalogEntry) -> str:
    fix = rule.fix
    if fix.availability is FixAvailability.NEVER or fix.applicability is None:
        return fix.description
    when = "Every finding of this rule carries" if fix.availability is FixAvailability.ALWAYS else "Some findings carry"
    safe = fix.applicability is Applicability.SAFE
    how = "applied by `shmlint fix`" if safe else "applied only with `--unsafe-fixes`"
    return f"{when} a {fix.applicability.value} fix, {how}.\n\n{fix.description}"


def _language(filename: str) -> str:
    lowered = filename.lower()
    for ending, language in _LANGUAGES:
        if lowered.endswith(ending):
            return language
    return "text"


def _fenced(text: str, language: str) -> str:
    """A fenced block longer than any backtick run inside, so Markdown examples with their own fences survive."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


if __name__ == "__main__":
    sys.exit(main())
