"""The step of the GitHub Action (``action.yml``): ``shmlint check`` with the action's inputs, its outputs, and a
job summary.

Inputs arrive as environment variables (``SHMLINT_PATHS``, ``SHMLINT_FORMAT``, ``SHMLINT_FAIL_ON``,
``SHMLINT_CONFIG``, ``SHMLINT_SARIF``), never spliced into script text, and reach ``shmlint check`` as separate
arguments after ``--``: a path cannot become an option or a shell command. The check runs twice: once for the
report the user asked for (annotations, or SARIF for code scanning), which decides the exit code, and once as
JSON, the documented format, from which the outputs and the summary table are written. A report other than
annotations is printed with workflow commands stopped (``::stop-commands::``, resumed by a token no input knows):
a file name or a value that begins a line with ``::`` stays text.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

from shmlint.visible import markdown

EXIT_ERROR = 2
#: GitHub refuses a step summary above 1 MiB; the table stops well before
MAX_ROWS = 500


class InputError(Exception):
    """An input the action cannot use; the message names it."""


def paths_input(value: str) -> list[str]:
    """One path per line, or separated by spaces when on one line; empty means the workspace."""
    lines = value.splitlines() if "\n" in value.strip() else value.split()
    return [line.strip() for line in lines if line.strip()] or ["."]


def boolean_input(name: str, value: str) -> bool:
    if value.strip().lower() in ("", "false"):
        return False
    if value.strip().lower() == "true":
        return True
    raise InputError(f"input '{name}' must be 'true' or 'false', not {value!r}")


def check_arguments(env: dict[str, str], report: str, output: Path | None) -> list[str]:
    """``shmlint check`` arguments for one report: the options the inputs set, then ``--`` and the paths."""
    arguments = ["check", "--format", report]
    if output is not None:
        arguments += ["--output", str(output)]
    if fail_on := env.get("SHMLINT_FAIL_ON", "").strip():
        arguments += ["--fail-on", fail_on]
    if config := env.get("SHMLINT_CONFIG", "").strip():
        arguments += ["--config", config]
    return [*arguments, "--", *paths_input(env.get("SHMLINT_PATHS", ""))]


def cell(text: object) -> str:
    """Text safe in one Markdown table cell: no line break or control character, no ``|`` ending the cell, no
    markup (HTML, emphasis, code) changing what the reader sees."""
    return markdown(str(text))


def summary(document: dict[str, Any], exit_code: int) -> str:
    """The job summary: a verdict line and one table row per finding (at most ``MAX_ROWS``)."""
    findings = document.get("findings", [])
    files = document.get("summary", {}).get("files", 0)
    verdict = "passed" if exit_code == 0 else "failed" if exit_code == 1 else "could not check everything"
    lines = [f"### shmlint: {verdict}", ""]
    if not findings:
        lines.append(f"No findings in {files} file(s).")
        return "\n".join(lines) + "\n"
    unsafe = sum(1 for f in findings if (f.get("fix") or {}).get("applicability") == "unsafe")
    safe = sum(1 for f in findings if f.get("fixable")) - unsafe
    hidden = f", {unsafe} more with `--unsafe-fixes`" if unsafe else ""
    with_findings = len({f.get("path") for f in findings})
    lines += [
        f"{len(findings)} finding(s) in {with_findings} of {files} file(s); {safe} fixable with "
        f"`shmlint fix --write`{hidden}.",
        "",
        "| Severity | Rule | Location | Message | Fix |",
        "| --- | --- | --- | --- | --- |",
    ]
    for finding in findings[:MAX_ROWS]:
        fix = finding.get("fix") or {}
        where = f"{finding['path']}:{finding['line']}:{finding['column']}"
        rule = f"{finding['code']} {finding['slug']}"
        fix_text = f"{fix['title']} ({fix['applicability']})" if fix else ""
        row = (finding["severity"], rule, where, finding["message"], fix_text)
        lines.append("| " + " | ".join(cell(value) for value in row) + " |")
    if len(findings) > MAX_ROWS:
        lines += ["", f"... and {len(findings) - MAX_ROWS} more (see the annotations or the SARIF file)."]
    return "\n".join(lines) + "\n"


def write_outputs(path: str, values: dict[str, str]) -> None:
    """Step outputs in the multi-line form, with a delimiter no value can contain."""
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in values.items():
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


@contextlib.contextmanager
def commands_stopped() -> Iterator[None]:
    """The runner ignores workflow commands in what is printed inside (the report's own lines included)."""
    token = f"shmlint-{uuid.uuid4()}"
    print(f"::stop-commands::{token}", flush=True)
    try:
        yield
    finally:
        print(f"::{token}::", flush=True)


def run(env: dict[str, str]) -> int:
    sarif = boolean_input("sarif", env.get("SHMLINT_SARIF", ""))
    report_format = env.get("SHMLINT_FORMAT", "").strip() or "github"
    temp = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())
    sarif_file = temp / "shmlint.sarif" if sarif else None
    if sarif_file is not None:
        sarif_file.unlink(missing_ok=True)  # an earlier run's log must never be uploaded as this one's
    shmlint = [sys.executable, "-m", "shmlint"]
    arguments = check_arguments(env, "sarif" if sarif else report_format, sarif_file)
    if report_format == "github" and not sarif:
        main = subprocess.run([*shmlint, *arguments], check=False)
    else:
        with commands_stopped():
            main = subprocess.run([*shmlint, *arguments], check=False)
    with tempfile.TemporaryDirectory(dir=temp) as folder:
        json_file = Path(folder) / "shmlint.json"
        arguments = check_arguments(env, "json", json_file)
        # the same check again: its errors are the first run's, already printed once
        again = subprocess.run(
            [*shmlint, *arguments[:1], "--exit-zero", "--quiet", *arguments[1:]],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        if again.returncode != 0 and main.returncode != EXIT_ERROR:
            print(again.stderr, end="", file=sys.stderr)
        try:
            document = json.loads(json_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            document = {}
    if sarif_file is not None and main.returncode == EXIT_ERROR:
        # a log of a run that failed (a usage or configuration error: nothing checked) would tell code scanning
        # that every open alert is fixed: none is uploaded, and the step fails on the error
        sarif_file.unlink(missing_ok=True)
        print("::warning title=shmlint::shmlint check failed (exit 2): no SARIF uploaded", file=sys.stderr)
    outputs = {"findings": str(len(document.get("findings", []))), "exit-code": str(main.returncode)}
    outputs["sarif-file"] = str(sarif_file) if sarif_file is not None and sarif_file.is_file() else ""
    if env.get("GITHUB_OUTPUT"):
        write_outputs(env["GITHUB_OUTPUT"], outputs)
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as handle:
            handle.write(summary(document, main.returncode))
    return main.returncode


def main() -> None:
    try:
        code = run(dict(os.environ))
    except InputError as exc:
        from shmlint.report.github import escape_data

        print(f"::error title=shmlint::{escape_data(str(exc))}", file=sys.stderr)
        code = EXIT_ERROR
    sys.exit(code)


if __name__ == "__main__":
    main()
