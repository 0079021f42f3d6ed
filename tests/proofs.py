"""What makes a fix trustworthy, asserted the same way for fixtures, generated documents and the corpus.

- Kubernetes: every document (and every pod spec inside a CRD, wrapped as a Pod) that validated against the
  Kubernetes schema before the fix still validates after it.
- compose: a file that validated against the Compose Specification schema still does.
- shell: a script that passed ``bash -n`` still does.
- byte-minimal: every original line is byte-identical afterwards or rewritten in place by one edit
  (``recording_rounds`` + ``assert_byte_minimal``).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

K8S_VERSION = "1.30"


def _documents(text: str) -> list[Any]:
    return [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]


def _pod_specs(document: Any) -> list[dict]:
    """Every mapping with a ``containers`` list, wherever a CRD keeps it."""
    found: list[dict] = []
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("containers"), list) and all(isinstance(c, dict) for c in node["containers"]):
                found.append(node)
                continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _k8s_valid(resource: dict) -> bool:
    import kubernetes_validate

    try:
        kubernetes_validate.validate(resource, K8S_VERSION, strict=True)
    except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError):
        return False
    except Exception:
        return False
    return True


def _k8s_units(text: str) -> list[dict]:
    """Whole documents plus each pod spec wrapped as a Pod, so CRDs are validated where it matters."""
    units: list[dict] = []
    for document in _documents(text):
        if isinstance(document, dict):
            units.append(document)
            for spec in _pod_specs(document):
                units.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"}, "spec": spec})
    return units


def assert_kubernetes_still_valid(before: str, after: str) -> int:
    """Returns how many units were validated both before and after (so callers can see it did something)."""
    old, new = _k8s_units(before), _k8s_units(after)
    assert len(old) <= len(new)
    checked = 0
    for index, unit in enumerate(old):
        if _k8s_valid(unit):
            checked += 1
            assert _k8s_valid(new[index]), f"fix broke Kubernetes schema validity of {new[index].get('kind')}"
    return checked


@functools.cache
def _compose_validator() -> Any:
    """The Compose Specification schema as check-jsonschema (a test dependency) vendors it."""
    from importlib.resources import files

    import jsonschema

    vendored = files("check_jsonschema.builtin_schemas.vendor").joinpath("compose-spec.json")
    schema = json.loads(vendored.read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def compose_valid(text: str) -> bool:
    documents = _documents(text)
    return len(documents) == 1 and _compose_validator().is_valid(documents[0])


def assert_compose_still_valid(before: str, after: str) -> bool:
    if not compose_valid(before):
        return False
    assert compose_valid(after), "fix broke compose schema validity"
    return True


def duplicate_keys(text: str) -> list[str]:
    """Keys written twice in one mapping (``key@line``). PyYAML quietly keeps the last one, but docker compose and
    kubectl reject such a file, so a fix must never write a key that is already there."""
    found: list[str] = []
    seen: set[int] = set()
    stack: list[Any] = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in keys:
                        found.append(f"{key.value}@{key.start_mark.line + 1}")
                    keys.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return found


def assert_no_new_duplicate_keys(before: str, after: str) -> None:
    old = {entry.split("@")[0] for entry in duplicate_keys(before)}
    new = [entry for entry in duplicate_keys(after) if entry.split("@")[0] not in old]
    assert not new, f"the fix wrote a key twice in one mapping: {new}"


def strict_load_error(text: str) -> str | None:
    """Why ruamel.yaml's safe loader, a second, independent and strict reader (it refuses duplicate keys and
    unhashable keys, like docker compose and kubectl), cannot build the data; None when it can."""
    from ruamel.yaml import YAML

    try:
        for _ in YAML(typ="safe", pure=True).load_all(text):
            pass
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def assert_strict_readers_still_load(before: str, after: str) -> None:
    if strict_load_error(before) is None:
        assert strict_load_error(after) is None, (strict_load_error(after), after)


def assert_akash_still_valid(before: str, after: str) -> None:
    """An Akash SDL a fix wrote to still loads strictly, with no key written twice, and every /dev/shm mount of a
    service names a volume of its profile's storage of the ``ram`` class (the only one Akash backs with memory)."""
    assert_strict_readers_still_load(before, after)
    assert_no_new_duplicate_keys(before, after)
    (sdl,) = [d for d in _documents(after) if isinstance(d, dict)]
    for name, service in sdl["services"].items():
        mounted = [
            v for v, p in ((service.get("params") or {}).get("storage") or {}).items() if p.get("mount") == "/dev/shm"
        ]
        profile = next(iter(sdl["deployment"][name].values()))["profile"]
        storage = sdl["profiles"]["compute"][profile]["resources"].get("storage") or []
        classes = {v.get("name", "default"): (v.get("attributes") or {}).get("class") for v in storage}
        assert all(classes.get(volume) in ("ram", "beta2") for volume in mounted), (name, mounted, classes)


def bash_ok(path: Path) -> bool:
    return subprocess.run(["bash", "-n", str(path)], capture_output=True, timeout=30, check=False).returncode == 0


def assert_bash_still_ok(tmp: Path, before: str, after: str) -> bool:
    original, fixed = tmp / "before.sh", tmp / "after.sh"
    original.write_text(before, encoding="utf-8", errors="surrogateescape")
    fixed.write_text(after, encoding="utf-8", errors="surrogateescape")
    if not bash_ok(original):
        return False
    assert bash_ok(fixed), "fix broke bash -n"
    return True


# -- byte-minimal edits ----------------------------------------------------------------------------------------
#
# The helpers below watch ``fix_source`` splice its edits (every round, in order) and follow each character of the
# original text to where it ends up, so a test can tell exactly which original lines survived byte for byte, which
# were rewritten in place, and which lines are new.


@contextlib.contextmanager
def recording_rounds() -> Iterator[list[tuple[str, list]]]:
    """Within the block, every ``splice(text, edits)`` made by ``shmlint.fix.apply`` is recorded as (text, edits)."""
    from unittest import mock

    from shmlint.fix import apply

    rounds: list[tuple[str, list]] = []
    real = apply.splice

    def spy(text: str, edits: list) -> str:
        rounds.append((text, list(edits)))
        return real(text, edits)

    with mock.patch.object(apply, "splice", spy):
        yield rounds


def line_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, ``end`` just past its ``\\n`` (or the end of the text)."""
    ranges: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        newline = text.find("\n", start)
        end = len(text) if newline == -1 else newline + 1
        ranges.append((start, end))
        start = end
    return ranges


@dataclass(frozen=True)
class EditMap:
    """Where the original text went: untouched lines, lines rewritten in place, lines that are new."""

    edits: int  # edits applied over all rounds
    kept: tuple[int, ...]  # 0-based original lines found byte-identical in the result
    rewritten: tuple[int, ...]  # 0-based original lines changed in place
    inserted: tuple[str, ...]  # non-empty result lines whose content is all new text


def _content_end(text: str, start: int, end: int) -> int:
    """Where a line's content stops: before its ``\r\n`` or ``\n``."""
    if end > start and text[end - 1] == "\n":
        end -= 1
        if end > start and text[end - 1] == "\r":
            end -= 1
    return end


def assert_byte_minimal(before: str, after: str, rounds: list[tuple[str, list]]) -> EditMap:
    """Every original line is either byte-identical in ``after`` or rewritten in place (same line, its start and
    indentation kept, never split or deleted), and no more lines are rewritten than edits were made.

    A line is compared by its content and its line break: a new line inserted after a line's content (``...\n
    new`` before the old break) leaves that line byte-identical. The last line of a file without a final newline may
    gain a line break when something is added after it.
    """
    origin = list(range(len(before)))
    text = before
    edits = 0
    for index, (round_text, round_edits) in enumerate(rounds):
        assert round_text == text, "fix rounds do not chain: a round started from text the previous one did not make"
        candidate, candidate_origin = text, list(origin)
        for edit in sorted(round_edits, key=lambda e: (e.start, e.end), reverse=True):
            candidate = candidate[: edit.start] + edit.new_text + candidate[edit.end :]
            candidate_origin[edit.start : edit.end] = [-1] * len(edit.new_text)
        if index == len(rounds) - 1 and candidate != after and text == after:
            break  # the last round was dropped (it would have broken the file)
        text, origin = candidate, candidate_origin
        edits += len(round_edits)
    assert text == after, "the recorded edits do not produce the fixed text"

    old_lines = line_ranges(before)
    new_lines = line_ranges(after)
    starts = [start for start, _ in old_lines]
    old_content = [(start, _content_end(before, start, end)) for start, end in old_lines]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    intact: set[int] = set()
    inserted: list[str] = []
    home: dict[int, set[int]] = {}  # original line -> result lines holding some of its content
    for number, (start, end) in enumerate(new_lines):
        stop = _content_end(after, start, end)
        chars = origin[start:stop]
        owners = {line_of(c) for c in chars if c != -1 and c < old_content[line_of(c)][1]}
        for owner in owners:
            home.setdefault(owner, set()).add(number)
        if not owners:
            if stop > start:
                inserted.append(after[start:end])
            continue
        if len(owners) != 1 or -1 in chars:
            continue
        (owner,) = owners
        old_start, old_stop = old_content[owner]
        old_break, new_break = before[old_stop : old_lines[owner][1]], after[stop:end]
        last_without_break = owner == len(old_lines) - 1 and old_break == ""
        if chars == list(range(old_start, old_stop)) and (old_break == new_break or last_without_break):
            intact.add(owner)
    # an empty original line has no content to follow: it is kept when its line break still ends an empty line, or
    # moved one line down behind new text written right after it (an insertion "\nnew" before its break)
    for n, (old_start, old_stop) in enumerate(old_content):
        if old_start != old_stop:
            continue
        old_end = old_lines[n][1]
        if old_start == old_end:
            intact.add(n)  # an empty last line with no break: nothing to lose
            continue
        for number, (start, end) in enumerate(new_lines):
            stop = _content_end(after, start, end)
            if origin[stop:end] == list(range(old_stop, old_end)):
                home.setdefault(n, set()).add(number)
                previous = new_lines[number - 1] if number else None
                if start == stop or (
                    previous is not None
                    and all(c == -1 for c in origin[start:stop])
                    and _content_end(after, *previous) == previous[0]
                    and all(c == -1 for c in origin[previous[0] : previous[1]])
                    and after[slice(*previous)] == before[old_stop:old_end]
                ):
                    intact.add(n)
    rewritten = [n for n in range(len(old_lines)) if n not in intact]
    for n in rewritten:
        old = before[slice(*old_lines[n])]
        places = home.get(n, set())
        assert len(places) == 1, f"original line {n + 1} {old!r} was deleted or split across lines"
        (place,) = places
        new_start, new_end = new_lines[place]
        new = after[new_start:new_end]
        if old.strip("\r\n"):
            assert origin[new_start] == old_lines[n][0], f"original line {n + 1} {old!r} lost its start: now {new!r}"
        indentation = old[: len(old) - len(old.lstrip(" \t"))]
        assert new.startswith(indentation), f"original line {n + 1} {old!r} lost its indentation: now {new!r}"
    assert len(rewritten) <= edits, (
        f"{len(rewritten)} original lines rewritten by {edits} edits: "
        f"{[before[slice(*old_lines[n])] for n in rewritten]}"
    )
    return EditMap(edits, tuple(sorted(intact)), tuple(rewritten), tuple(inserted))


def assert_line_breaks_kept(before: str, after: str) -> None:
    """A CRLF file stays CRLF, an LF file gets no CR, a file without a final newline gets none."""
    if "\r\n" in before and before.count("\r\n") == before.count("\n"):
        assert after.count("\r\n") == after.count("\n"), "a CRLF file got LF-only line breaks"
    if "\r" not in before:
        assert "\r" not in after, "an LF file got CR characters"
    if before and not before.endswith("\n"):
        assert not after.endswith("\n"), "a file without a final newline got one"


def yaml_blocks(text: str, suffix: str) -> list[str]:
    """The YAML code blocks of a documentation file, and the manifests of its (or a script's) here-documents, each
    as its own text."""
    from shmlint.parsers.embedded.here_documents import manifests
    from shmlint.parsers.embedded.markdown import markdown_shell_blocks, markdown_yaml_blocks
    from shmlint.parsers.embedded.rst import rst_shell_blocks, rst_yaml_blocks

    if suffix == ".sh":
        here = manifests(text)
        return [here.text[start:end] for start, end, _ in here.blocks]
    rst = suffix == ".rst"
    here = manifests(text, (rst_shell_blocks if rst else markdown_shell_blocks)(text)[0])
    found = [
        *((start, end) for start, end, _ in here.blocks),
        *(rst_yaml_blocks(text) if rst else markdown_yaml_blocks(text)),
    ]
    return [here.text[start:end] for start, end in sorted(found)]


def assert_blocks_still_valid(before: str, after: str, suffix: str) -> int:
    """Each YAML code block of a documentation file that validated (Kubernetes or compose) still does; returns
    how many did before."""
    old, new = yaml_blocks(before, suffix), yaml_blocks(after, suffix)
    assert len(old) == len(new), "a fix changed how many YAML code blocks the file has"
    checked = 0
    for block, fixed in zip(old, new, strict=True):
        with contextlib.suppress(yaml.YAMLError):
            checked += assert_kubernetes_still_valid(block, fixed) + assert_compose_still_valid(block, fixed)
    return checked
