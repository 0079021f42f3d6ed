"""Configuration: ``.shmlint.yaml`` or ``[tool.shmlint]`` in ``pyproject.toml``, the nearest above the checked path.

A file is validated against the JSON Schema shipped beside this module, then merged over the defaults;
command-line options win over both. Every problem of a file is reported at once, each with its key path and its
line and column (``shmlint.config_problems``). Every effective value remembers where it came from, for
``shmlint config``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from shmlint import sizes
from shmlint.config_error import RULE_WORDS, ConfigError, Problem
from shmlint.lazy_regex import LazyRegex, compile_quietly
from shmlint.named_tuple import NamedTuple
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.visible import quoted

if TYPE_CHECKING:
    from pathlib import Path

    from shmlint.discover import StrPath

YAML_NAMES = (".shmlint.yaml", ".shmlint.yml")
DEFAULT = "default"
#: ``[tool.shmlint]``, ``tool.shmlint.x = ...``, a ``[tool]`` table, an inline ``tool = {...}``, or any ``\u``
#: escape (``[tool."shml\u0069nt"]`` is the same table: a key spells a letter only literally or by ``\u``/``\U``):
#: only then is pyproject.toml parsed (a project that merely names shmlint, as a dependency or a script, is not)
_MAY_HAVE_TOOL_TABLE = LazyRegex(
    r"""tool["']?\s*\.\s*["']?shmlint\b|^\s*\[\s*["']?tool["']?\s*\]|^\s*["']?tool["']?\s*=\s*\{|\\[uU]""",
    re.MULTILINE,
)
COMMAND_LINE = "command line"


class Effective(NamedTuple):
    """The settings of a run and where each value came from (for ``shmlint config``)."""

    settings: Settings
    origins: Mapping[str, str] = MappingProxyType({})  # option -> "default" | file path | "command line"
    path: Path | None = None
    extend_exclude: tuple[str, ...] = ()  # the file's extend-exclude, the tail of ``settings.exclude``


def find_config(start: StrPath) -> Path | None:
    """The nearest configuration at or above ``start`` (a file's folder, or the folder itself). The search runs on
    strings: pathlib is imported only for a configuration found (most one-file checks have none)."""
    folder = os.path.realpath(start)  # a symlink loop stays unresolved: look from where the link is
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        found = _config_in(folder)
        if found is not None:
            from pathlib import Path

            return Path(found)
        above = os.path.dirname(folder)
        if above == folder:
            return None
        folder = above


def _config_in(folder: str) -> str | None:
    """The configuration file in ``folder``, if any."""
    for name in YAML_NAMES:
        path = os.path.join(folder, name)
        if os.path.lexists(path):  # a folder, a FIFO, a link out of the tree: there, refused when it is read
            return path
    pyproject = os.path.join(folder, "pyproject.toml")
    return pyproject if os.path.lexists(pyproject) and _has_tool_table(pyproject) else None


def _has_tool_table(pyproject: str) -> bool:
    """Whether the file configures shmlint; one that cannot be read is an error rather than passed over (it may
    hold the ``[tool.shmlint]`` table the run should follow)."""
    from shmlint.infile import CONFIG_MAX_BYTES, InputFileError, read_steering_text

    if not os.path.isfile(pyproject) and not os.path.islink(pyproject):
        return False  # a folder or a FIFO of that name is not a project file
    try:
        text = read_steering_text(pyproject, CONFIG_MAX_BYTES)
    except InputFileError as exc:
        from pathlib import Path

        raise ConfigError(Path(pyproject), [Problem((), f"cannot read: {exc}")]) from None
    if _MAY_HAVE_TOOL_TABLE.search(text) is None:  # most projects' pyproject.toml: no TOML parser to import
        return False
    import tomllib

    from shmlint.parsers.toml_tables import load_toml

    try:
        tool = load_toml(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True  # ours or not, a broken file next to the code is reported rather than passed over
    return isinstance(tool, dict) and "shmlint" in tool


def _schema() -> dict[str, Any]:
    import json

    with open(os.path.join(os.path.dirname(__file__), "config_schema.json"), encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


class _Problems(list["Problem"]):
    """The meaning checks' problems (unknown rule, unreadable size, bad regular expression), all collected; the
    values the schema already refused (``flawed``) are left alone, so nothing is said twice."""

    def __init__(self, flawed: Iterable[tuple[str | int, ...]] = ()) -> None:
        super().__init__()
        self.flawed = frozenset(flawed)

    def ok(self, *key: str | int) -> bool:
        return not any(key[:length] in self.flawed for length in range(1, len(key) + 1))

    def add(self, key: tuple[str | int, ...], message: str, value: str | None = None, on_key: bool = False) -> None:
        self.append(Problem(key, message, on_key=on_key, value=value))


def read_config(path: Path) -> tuple[dict[str, Any], list[Problem], Callable[[Problem], Problem]]:
    """The file's values, the schema's problems with them, and how to place a problem in the file."""
    from shmlint.config_problems import read_document, schema_problems

    document = read_document(path)
    problems = schema_problems(document.data, _schema())
    if any(not problem.key for problem in problems):  # not a mapping at all: nothing else to say
        raise ConfigError(path, [document.locate(problem) for problem in problems])
    return document.data, problems, document.locate


def _codes(problems: _Problems, key: tuple[str | int, ...], values: Iterable[str]) -> frozenset[str]:
    from shmlint.catalog import lookup

    codes = set()
    for index, value in enumerate(values):
        if not problems.ok(*key, index):
            continue
        rule = lookup(value)
        if rule is None:
            problems.add((*key, index), f"{quoted(value)} {RULE_WORDS}", value)
        else:
            codes.add(rule.code)
    return frozenset(codes)


def _size(problems: _Problems, key: str, value: str | int) -> int | None:
    found: int | None
    if isinstance(value, int):
        found = value
    else:
        parsed = sizes.parse_kubernetes(value)
        if parsed.bytes is None:
            parsed = sizes.parse_docker(value)
        found = parsed.bytes
        if found is None:
            problems.add((key,), f"{quoted(value)} is not a size (e.g. 8Gi or 8g, or a whole number of bytes)", value)
    if found is not None and found > sizes.MAX_SETTING_BYTES:
        problems.add((key,), "larger than 64Ti, more than any machine's memory", str(value))
        return None
    return found


def _regexes(problems: _Problems, key: str, values: list[str]) -> tuple[str, ...]:
    """The values that are regular expressions; each other one is a problem (and the file an error)."""
    valid = []
    for index, value in enumerate(values):
        if not problems.ok(key, index):
            continue
        try:
            compile_quietly(value)
        except re.error as exc:
            problems.add((key, index), f"{quoted(value)} is not a regular expression: {exc}", value)
        else:
            valid.append(value)
    return tuple(valid)


def _check_patterns(problems: _Problems, data: Mapping[str, Any]) -> None:
    """Path patterns whose matching could take exponential time (``*a*a*b``) are refused."""
    from shmlint.patterns import too_costly

    for key in ("exclude", "extend-exclude", "per-file-ignores"):
        for index, pattern in enumerate(data.get(key, ())):
            if not isinstance(pattern, str):  # the schema says what it should be
                continue
            problem = too_costly(pattern)
            if problem is not None:
                problems.add((key, index), problem, pattern)


def apply_config(settings: Settings, data: Mapping[str, Any], problems: _Problems) -> tuple[Settings, set[str]]:
    """Settings with the file's values laid over them, and which options the file set; what the values cannot
    mean is added to ``problems``."""
    from shmlint.catalog import lookup

    changes: dict[str, Any] = {}
    signals = settings.signals
    data = {key: value for key, value in data.items() if problems.ok(key)}
    if "select" in data:
        changes["select"] = _codes(problems, ("select",), data["select"])
    if "ignore" in data:
        changes["ignore"] = _codes(problems, ("ignore",), data["ignore"])
    if "per-file-ignores" in data:
        changes["per_file_ignores"] = tuple(
            (glob, _codes(problems, ("per-file-ignores", glob), codes))
            for glob, codes in data["per-file-ignores"].items()
            if problems.ok("per-file-ignores", glob)
        )
    if "severity" in data:
        overrides = []
        for rule, level in data["severity"].items():
            found = lookup(rule) if problems.ok("severity", rule) else None
            if found is not None:
                overrides.append((found.code, Severity.parse(level)))
            elif problems.ok("severity", rule):
                problems.add(("severity", rule), f"{quoted(rule)} {RULE_WORDS}", on_key=True)
        changes["severity"] = tuple(overrides)
    if "fail-on" in data:
        changes["fail_on"] = Severity.parse(data["fail-on"])
    for key in ("render", "unrendered", "undecided"):  # the schema holds them to their choices
        if key in data:
            changes[key] = data[key]
    for key in ("min-shm-size", "fix-size", "max-file-size"):
        if key in data and (size := _size(problems, key, data[key])) is not None:
            changes[key.replace("-", "_")] = size
    if {"gpu-resources", "torch-images", "torch-commands"} & data.keys():
        resources = tuple(r for i, r in enumerate(data.get("gpu-resources", [])) if problems.ok("gpu-resources", i))
        images = _regexes(problems, "torch-images", data.get("torch-images", []))
        commands = _regexes(problems, "torch-commands", data.get("torch-commands", []))
        changes["signals"] = signals._replace(
            gpu_resources=signals.gpu_resources + resources,
            torch_images=signals.torch_images + images,
            torch_commands=signals.torch_commands + commands,
        )
    for key in ("shm-images", "shm-commands", "shm-free-images", "shm-free-commands"):
        if key in data:
            changes[key.replace("-", "_")] = _regexes(problems, key, data[key])
    _check_patterns(problems, data)
    exclude = tuple(data["exclude"]) if "exclude" in data else settings.exclude
    if "exclude" in data or "extend-exclude" in data:
        changes["exclude"] = exclude + tuple(data.get("extend-exclude", ()))
    if "respect-gitignore" in data:
        changes["respect_gitignore"] = data["respect-gitignore"]
    if "force-exclude" in data:
        changes["force_exclude"] = data["force-exclude"]
    if "show-source" in data:
        changes["show_source"] = data["show-source"]
    return settings._replace(**changes), set(data)


def load_effective(start: StrPath, explicit: Path | None = None) -> Effective:
    """Defaults, then the configuration file that applies to ``start`` (or ``--config``); every problem of the
    file, from the schema and from what the values mean, in one ``ConfigError``."""
    path = explicit if explicit is not None else find_config(start)
    if path is None:
        return Effective(Settings())
    data, problems, locate = read_config(path)
    meaning = _Problems(problem.key for problem in problems)
    settings, keys = apply_config(Settings(), data, meaning)
    settings = settings._replace(pattern_root=os.path.dirname(os.path.abspath(path)))  # patterns: from its folder
    if problems or meaning:
        raise ConfigError(path, [locate(problem) for problem in (*problems, *meaning)])
    extended = tuple(data.get("extend-exclude", ()))
    return Effective(settings, MappingProxyType(dict.fromkeys(keys, str(path))), path, extended)


def describe(effective: Effective) -> str:
    """The effective configuration as YAML-ish lines, each with where its value came from."""
    import json

    s = effective.settings
    values: dict[str, Any] = {
        "select": sorted(s.select) or "all",
        "ignore": sorted(s.ignore),
        "per-file-ignores": {glob: sorted(codes) for glob, codes in s.per_file_ignores},
        "severity": {code: level.label for code, level in s.severity},
        "fail-on": s.fail_on.label,
        "min-shm-size": sizes.format_kubernetes(s.min_shm_size),
        "fix-size": sizes.format_kubernetes(s.fix_size),
        "max-file-size": s.max_file_size,
        "gpu-resources": list(s.signals.gpu_resources),
        "torch-images": list(s.signals.torch_images),
        "torch-commands": list(s.signals.torch_commands),
        "shm-images": list(s.shm_images),
        "shm-commands": list(s.shm_commands),
        "shm-free-images": list(s.shm_free_images),
        "shm-free-commands": list(s.shm_free_commands),
        "exclude": list(s.exclude[: len(s.exclude) - len(effective.extend_exclude)]),
        "extend-exclude": list(effective.extend_exclude),
        "respect-gitignore": s.respect_gitignore,
        "force-exclude": s.force_exclude,
        "render": s.render,
        "unrendered": s.unrendered,
        "undecided": s.undecided,
        "show-source": s.show_source,
    }
    lines = [f"# configuration file: {effective.path or 'none'}"]
    for key, value in values.items():
        origin = effective.origins.get(key)
        lines.append(f"{key}: {json.dumps(value)}  # from {origin or DEFAULT}")
    return "\n".join(lines) + "\n"
