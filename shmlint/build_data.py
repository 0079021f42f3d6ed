"""``python -m shmlint.build_data``: write the data modules a run reads, so that it does not work them out on every
start; a test fails when a committed module differs from what this writes.

- ``shmlint/data/shm_need.py`` from ``shm_need.yaml`` (the tier data; the YAML keeps the sources and comments): the
  part a run reads, as tuples, each pattern with the words its matches contain;
- ``shmlint/data/signal_words.py`` from ``shmlint.signals``: the prefilter's words for the built-in signals and
  the words of each built-in torch pattern;
- ``shmlint/data/format_index.py`` from the format descriptors (``shmlint.formats``): which package names which
  files, claims YAML and spells which workload's fix, so that a run imports only the descriptors it needs.
"""

from __future__ import annotations

import pprint
import re
from pathlib import Path
from typing import Any

from shmlint.file_formats import formats
from shmlint.prefilter import words_for
from shmlint.required_words import required_words
from shmlint.signals import TORCH_COMMANDS, TORCH_IMAGES, Signals

DATA = Path(__file__).parent / "data"
NEED_YAML = DATA / "shm_need.yaml"
NEED_MODULE = DATA / "shm_need.py"
SIGNAL_WORDS_MODULE = DATA / "signal_words.py"
FORMAT_INDEX_MODULE = DATA / "format_index.py"


def read_need_yaml() -> dict[str, Any]:
    import yaml

    data: dict[str, Any] = yaml.load(
        NEED_YAML.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )
    return data


def _constant(value: object) -> str:
    return pprint.pformat(value, width=116, sort_dicts=False)


def _pattern(patterns: list[str]) -> tuple[str, str | None] | None:
    """The patterns as one expression, with its required words each followed by a blank: a string a start-up
    neither interns nor keeps apart (the word alone, ``'vllm'``, would be interned with the module; a hundred such
    made one flagged file's check cross a step of CPython's string table, 0.74 M instructions)."""
    joined = "|".join(f"(?:{p})" for p in patterns)
    words = required_words(joined) if joined else None
    return (joined, "".join(f"{word} " for word in words) if words is not None else None) if joined else None


def need_module_text(data: dict[str, Any]) -> str:
    """``shm_need.py`` for the YAML's ``data``."""
    software = tuple(
        (
            item["id"],
            item["tier"],
            item.get("what", item["id"]),
            item.get("source", ""),
            _pattern(item.get("match", {}).get("images", [])),
            _pattern(item.get("match", {}).get("image_tags", [])),
            _pattern(item.get("match", {}).get("commands", [])),
            bool(item.get("accelerator_only")),
            bool(item.get("command_wins")),
            bool(item.get("host_centric")),
            int(item.get("min_devices", 0)),
            bool(item.get("under_launchers")),
            bool(item.get("per_device")),
            bool(item.get("entrypoint_runs_command")),
        )
        for item in data.get("software", ())
    )
    kserve = data.get("kserve_runtimes", {})
    runtimes = tuple(
        (
            item["name"],
            tuple(name.lower() for name in item.get("formats", ())),
            bool(item.get("dev_shm")),
            (item.get("dev_shm") or {}).get("size_limit"),
        )
        for item in kserve.get("runtimes", ())
    )
    accelerators = data.get("accelerators", {})
    multi_device = accelerators.get("multi_device", {})
    tpu_alone = accelerators.get("tpu_alone")
    alone = (tpu_alone["tier"], _pattern(tpu_alone["evidence_patterns"])) if tpu_alone else None
    return (
        f'"""Written from {NEED_YAML.name} by `python -m shmlint.build_data`: do not edit (a test compares).\n\n'
        "SOFTWARE: (id, tier, what, source, images, image_tags, commands, accelerator_only, command_wins,\n"
        "host_centric, min_devices, under_launchers, per_device, entrypoint_runs_command), a pattern being (regular expression, the lower-case words one of which its every match\n"
        'contains, each followed by a blank, or None). TPU_ALONE: (tier, pattern searched in accelerator evidence) or None."""\n\n'
        f"SOFTWARE = {_constant(software)}\n\n"
        f"MULTI_DEVICE_MIN = {int(multi_device.get('min_devices', 2))}\n\n"
        f"MULTI_DEVICE_TIER = {multi_device.get('tier', 'needs')!r}\n\n"
        f"TPU_ALONE = {_constant(alone)}\n\n"
        f"KSERVE_RUNTIMES = {_constant(runtimes)}\n"
    )


def signal_words_module_text() -> str:
    """``signal_words.py`` for the built-in signals."""
    words = {pattern: required_words(pattern) for pattern in (*TORCH_IMAGES, *TORCH_COMMANDS)}
    return (
        '"""Written from shmlint.signals by `python -m shmlint.build_data`: do not edit (a test compares)."""\n\n'
        "#: the prefilter's words for the built-in signals\n"
        f"PREFILTER_WORDS = {_constant(words_for(Signals()))}\n\n"
        "#: each built-in torch image and command pattern: the lower-case words one of which its every match holds\n"
        f"PATTERN_WORDS = {_constant(words)}\n"
    )


def _literal(pattern: str) -> str:
    """The longest run of a glob without wildcards: a name without it cannot match (no pattern is compiled)."""
    return max(re.split(r"[*?\[\]]", pattern), key=len)


def format_index_module_text() -> str:
    """``format_index.py`` for the format descriptors."""
    constant = _constant
    every = formats()
    rules = sorted(((rule, f.name) for f in every for rule in f.files), key=lambda pair: pair[0].rank)
    names = tuple(
        (rule.kind.value, package, rule.endings, rule.beginnings, rule.names, rule.lower_names)
        for rule, package in rules
    )
    claimed = sorted((f for f in every if f.yaml), key=lambda f: f.yaml.rank if f.yaml else 0)
    claims = tuple(
        (
            f.name,
            tuple((pattern, _literal(pattern)) for pattern in f.yaml.names),
            f.yaml.words,
            f.yaml.marker.pattern if f.yaml.marker else None,
            int(f.yaml.marker.flags) if f.yaml.marker else 0,
        )
        for f in claimed
        if f.yaml
    )
    without_signal = tuple(f.name for f in claimed if f.yaml and f.yaml.without_signal)
    return (
        '"""Written from shmlint/formats/*/__init__.py by `python -m shmlint.build_data`: do not edit (a test\n'
        "compares). What a run needs of every format before it knows which it reads, so that it imports only those.\n\n"
        "NAMES: the name rules in rank order, (kind, package, endings, beginnings, names, lower_names). SNIFFS: the\n"
        "packages that tell a file by its first bytes. YAML_CLAIMS: in the order they are asked, (package, name\n"
        "patterns each with its longest literal part, words, marker pattern, marker flags). WITHOUT_SIGNAL: the\n"
        "packages that may read YAML without a signal word. OWNERS: workload format -> the package that spells\n"
        'its fix."""\n\n'
        f"NAMES = {constant(names)}\n\n"
        f"SNIFFS = {constant(tuple(f.name for f in every if f.sniffs))}\n\n"
        f"YAML_CLAIMS = {constant(claims)}\n\n"
        f"WITHOUT_SIGNAL = {constant(without_signal)}\n\n"
        f"OWNERS = {constant({f.workload_format.value: f.name for f in every})}\n"
    )


def expected() -> dict[Path, str]:
    """Every data module and the text it must hold."""
    return {
        NEED_MODULE: need_module_text(read_need_yaml()),
        SIGNAL_WORDS_MODULE: signal_words_module_text(),
        FORMAT_INDEX_MODULE: format_index_module_text(),
    }


def write() -> list[Path]:
    """Rewrite the data modules that differ; the ones rewritten."""
    written = []
    for path, text in expected().items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
            written.append(path)
    return written


if __name__ == "__main__":
    changed = write()
    print("\n".join(f"wrote {path}" for path in changed) or "the data modules are current")
