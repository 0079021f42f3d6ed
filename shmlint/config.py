"""Configuration: ``.shmlint.yaml`` or ``[tool.shmlint]`` in ``pyproject.toml``, the nearest above the checked path.

A file is validated against the JSON Schema shipped beside this module (one clear message naming the key path on
failure), then merged over the defaults; command-line options win over both. Every effective value remembers
where it came from, for ``shmlint config``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from shmlint import sizes
from shmlint.settings import Settings
from shmlint.severity import Severity

YAML_NAMES = (".shmlint.yaml", ".shmlint.yml")
DEFAULT = "default"
COMMAND_LINE = "command line"


class ConfigError(Exception):
    """An unreadable or invalid configuration; the message names the file and the key path."""


@dataclass(frozen=True)
class Effective:
    """The settings of a run and where each value came from (for ``shmlint config``)."""

    settings: Settings
    origins: dict[str, str] = field(default_factory=dict)  # option -> "default" | file path | "command line"
    path: Path | None = None


def find_config(start: Path) -> Path | None:
    """The nearest configuration at or above ``start`` (a file's folder, or the folder itself)."""
    try:
        folder = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: look from where the link is
        folder = start.absolute()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        for name in YAML_NAMES:
            path = candidate / name
            if path.is_file():
                return path
            if os.path.lexists(path):  # a folder, a FIFO, a broken link: there, but not a file that can be used
                raise ConfigError(f"{path}: not a regular file: cannot be used as configuration")
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def _has_tool_table(pyproject: Path) -> bool:
    """Whether the file configures shmlint; one that cannot be read is an error rather than passed over (it may
    hold the ``[tool.shmlint]`` table the run should follow)."""
    import tomllib

    try:
        return "shmlint" in tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
    except OSError as exc:
        raise ConfigError(f"{pyproject}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{pyproject}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from None


def read_config(path: Path) -> dict[str, Any]:
    import tomllib

    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        if path.name == "pyproject.toml":
            data = tomllib.loads(text).get("tool", {}).get("shmlint", {})
        else:
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'YAML'}: {exc}") from None
    data = {} if data is None else data
    _validate(path, data)
    return data


def _validate(path: Path, data: Any) -> None:
    import json

    import jsonschema  # only when a configuration file exists: it is slow to import

    schema = json.loads((Path(__file__).parent / "config_schema.json").read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        raise ConfigError(f"{path}: {where}: {error.message}")


def _codes(path: Path, key: str, values: Iterable[str]) -> frozenset[str]:
    from shmlint.catalog import lookup

    codes = set()
    for value in values:
        rule = lookup(value)
        if rule is None:
            raise ConfigError(f"{path}: {key}: unknown rule '{value}' (see `shmlint rules`)")
        codes.add(rule.code)
    return frozenset(codes)


def _size(path: Path, key: str, value: str | int) -> int:
    if isinstance(value, int):
        return value
    size = sizes.parse_either(value)
    if size is None:
        raise ConfigError(f"{path}: {key}: '{value}' is not a size (e.g. 8Gi or 8g)")
    return size


def _regexes(path: Path, key: str, values: list[str]) -> tuple[str, ...]:
    """Checked with the engine that will match them (``regex``, under a time budget: see ``shmlint.signals``)."""
    import regex

    for value in values:
        try:
            regex.compile(value, regex.VERSION0)
        except regex.error as exc:
            raise ConfigError(f"{path}: {key}: '{value}' is not a regular expression: {exc}") from None
    return tuple(values)


def _check_patterns(path: Path, data: Mapping[str, Any]) -> None:
    from shmlint.patterns import too_costly

    for key in ("exclude", "extend-exclude", "per-file-ignores"):
        for pattern in data.get(key, ()):
            problem = too_costly(pattern)
            if problem is not None:
                raise ConfigError(f"{path}: {key}: {problem}")


def apply_config(settings: Settings, data: Mapping[str, Any], path: Path) -> tuple[Settings, dict[str, str]]:
    """Settings with the file's values laid over them, and which options the file set."""
    changes: dict[str, Any] = {}
    origin = str(path)
    signals = settings.signals
    if "select" in data:
        changes["select"] = _codes(path, "select", data["select"])
    if "ignore" in data:
        changes["ignore"] = _codes(path, "ignore", data["ignore"])
    if "per-file-ignores" in data:
        changes["per_file_ignores"] = tuple(
            (glob, _codes(path, f"per-file-ignores.{glob}", codes)) for glob, codes in data["per-file-ignores"].items()
        )
    if "severity" in data:
        changes["severity_overrides"] = tuple(
            (next(iter(_codes(path, f"severity.{rule}", [rule]))), Severity.parse(level))
            for rule, level in data["severity"].items()
        )
    if "fail-on" in data:
        changes["fail_on"] = Severity.parse(data["fail-on"])
    for key in ("render", "unrendered"):  # the schema holds them to their choices
        if key in data:
            changes[key] = data[key]
    for key, attribute in (
        ("min-shm-size", "min_shm_bytes"),
        ("fix-size", "fix_shm_bytes"),
        ("max-file-size", "max_file_bytes"),
    ):
        if key in data:
            changes[attribute] = _size(path, key, data[key])
    if "gpu-resources" in data:
        signals = replace(signals, gpu_resources=signals.gpu_resources + tuple(data["gpu-resources"]))
    if "torch-images" in data:
        signals = replace(
            signals, torch_images=signals.torch_images + _regexes(path, "torch-images", data["torch-images"])
        )
    if "torch-commands" in data:
        extra = _regexes(path, "torch-commands", data["torch-commands"])
        signals = replace(signals, torch_commands=signals.torch_commands + extra)
    if signals is not settings.signals:
        changes["signals"] = signals
    for key in ("shm-images", "shm-commands", "shm-free-images", "shm-free-commands"):
        if key in data:
            changes[key.replace("-", "_")] = _regexes(path, key, data[key])
    _check_patterns(path, data)
    exclude = tuple(data["exclude"]) if "exclude" in data else settings.exclude
    if "exclude" in data or "extend-exclude" in data:
        changes["exclude"] = exclude + tuple(data.get("extend-exclude", ()))
    if "respect-gitignore" in data:
        changes["respect_gitignore"] = data["respect-gitignore"]
    changes["pattern_root"] = os.path.dirname(os.path.abspath(path))  # patterns are relative to the file's folder
    return replace(settings, **changes), {key: origin for key in data}


def load_effective(start: Path, explicit: Path | None = None) -> Effective:
    """Defaults, then the configuration file that applies to ``start`` (or ``--config``)."""
    path = explicit if explicit is not None else find_config(start)
    if path is None:
        return Effective(Settings())
    settings, origins = apply_config(Settings(), read_config(path), path)
    return Effective(settings, origins, path)


def describe(effective: Effective) -> str:
    """The effective configuration as YAML-ish lines, each with where its value came from."""
    import json

    s = effective.settings
    values: dict[str, Any] = {
        "select": sorted(s.select) or "all",
        "ignore": sorted(s.ignore),
        "per-file-ignores": {glob: sorted(codes) for glob, codes in s.per_file_ignores},
        "severity": {code: level.label for code, level in s.severity_overrides},
        "fail-on": s.fail_on.label,
        "min-shm-size": sizes.format_kubernetes(s.min_shm_bytes),
        "fix-size": sizes.format_kubernetes(s.fix_shm_bytes),
        "max-file-size": s.max_file_bytes,
        "gpu-resources": list(s.signals.gpu_resources),
        "torch-images": list(s.signals.torch_images),
        "torch-commands": list(s.signals.torch_commands),
        "exclude": list(s.exclude),
        "respect-gitignore": s.respect_gitignore,
        "render": s.render,
        "unrendered": s.unrendered,
    }
    lines = [f"# configuration file: {effective.path or 'none'}"]
    for key, value in values.items():
        origin = effective.origins.get(key, effective.origins.get("extend-exclude") if key == "exclude" else None)
        lines.append(f"{key}: {json.dumps(value)}  # from {origin or DEFAULT}")
    return "\n".join(lines) + "\n"
