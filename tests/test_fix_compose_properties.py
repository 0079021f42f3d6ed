"""Property tests: generated compose files in many styles, fixed, must parse, re-check with nothing fixable left,
not change on a second fix, keep every untouched line byte-identical, stay valid against the compose-spec schema,
and change only the flagged services (never an anchor shared with other services).

Styles: 2/4-space indentation, flush or indented sequences, block or flow service mappings, comments (on the
service key, between keys, after the last key), a shared ``x-base: &base`` anchor merged with ``<<: *base`` into
several services of which only some are GPU, ``x-`` extension fields (top level and in services), plain/double/
single-quoted values, CRLF, a BOM, no final newline, ``---``/``...`` markers, trailing top-level keys, a last key
whose value is a literal block, a multi-line flow list or a multi-line plain scalar; GPU via ``deploy`` devices,
``gpus: all``, ``runtime: nvidia`` or a torch image; /dev/shm absent, too small, big enough, ``build.shm_size``
only, a short ``tmpfs`` (scalar or list) or a long-form tmpfs volume; memory limits via ``mem_limit`` or
``deploy.resources.limits`` (the size written is then at most half of it); safe fixes only, or with unsafe ones.

Shapes where a fix is known to go wrong have their own tests below the property (each names the bug).
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from shmlint.discover import FileKind
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.sizes import GIB, MIB, parse_docker
from shmlint.source import SourceText
from tests import proofs
from tests.support import default_engine

ENGINE = default_engine()
#: a folder that does not exist: no Dockerfile, override or extends file can be read next to the generated file
PATH = Path("/nonexistent-shmlint-generated/compose.yaml")
NAMES = ("trainer", "web", "worker", "cache")
NEUTRAL_IMAGES = ("httpd:2.4", "redis:7", "ghcr.io/acme/app:1.0", "postgres:16")
#: an image whose software needs /dev/shm with no GPU key (the NGC PyTorch image alone is undecided: what runs decides)
TORCH_IMAGE = "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3"
SMALL = ("64m", '"64mb"', "'128M'", "67108864")
BIG = ('"8gb"', "8g", "'16gb'")
LIMITS = {"1g": GIB, "4g": 4 * GIB, "16g": 16 * GIB}


@dataclass(frozen=True)
class Service:
    gpu: str  # "none", "devices", "gpus", "runtime", "torch-image"
    shm: str  # "none", "small", "big", "build-only", "tmpfs-scalar", "tmpfs-list", "tmpfs-volume"
    flow: bool  # the whole service written {...} on its key's line
    merge: bool  # starts with <<: *base (when the document has the anchor)
    memory: str | None  # a key of LIMITS
    memory_in_deploy: bool  # deploy.resources.limits.memory instead of mem_limit
    quote: str  # "", '"' or "'" around the image
    comments: bool
    extension: bool  # an x-note: field in the service
    environment: str  # "none", "list", "map"
    command: str  # "none", "plain", "literal" (a | block), "flow-lines" ([a,\n b]), "plain-lines" (folded plain)
    order: tuple[int, ...]  # the order of the service's keys
    small: int  # index into SMALL / BIG


@dataclass(frozen=True)
class Document:
    indent: int
    flush: bool
    crlf: bool
    bom: bool
    final_newline: bool
    anchor: str  # "none", "block", "flow"
    anchor_gpu: bool  # the anchor itself makes every service that merges it a GPU service
    version: bool
    top_extension: bool
    header_comment: bool
    blank_between: bool
    trailer: str  # "none", "volumes", "networks"
    markers: bool  # "---" before and "..." after the document


services_st = st.builds(
    Service,
    gpu=st.sampled_from(["none", "devices", "gpus", "runtime", "torch-image"]),
    shm=st.sampled_from(["none", "small", "big", "build-only", "tmpfs-scalar", "tmpfs-list", "tmpfs-volume"]),
    flow=st.booleans(),
    merge=st.booleans(),
    memory=st.sampled_from([None, None, *LIMITS]),
    memory_in_deploy=st.booleans(),
    quote=st.sampled_from(["", '"', "'"]),
    comments=st.booleans(),
    extension=st.booleans(),
    environment=st.sampled_from(["none", "list", "map"]),
    command=st.sampled_from(["none", "plain", "literal", "flow-lines", "plain-lines"]),
    order=st.permutations(range(8)).map(tuple),
    small=st.integers(0, 2),
)
documents_st = st.builds(
    Document,
    indent=st.sampled_from([2, 4]),
    flush=st.booleans(),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    anchor=st.sampled_from(["none", "block", "flow"]),
    anchor_gpu=st.booleans(),
    version=st.booleans(),
    top_extension=st.booleans(),
    header_comment=st.booleans(),
    blank_between=st.booleans(),
    trailer=st.sampled_from(["none", "volumes", "networks"]),
    markers=st.booleans(),
)


# -- rendering -------------------------------------------------------------------------------------------------


def _image(service: Service, n: int) -> str:
    image = TORCH_IMAGE if service.gpu == "torch-image" else NEUTRAL_IMAGES[n % len(NEUTRAL_IMAGES)]
    return f"{service.quote}{image}{service.quote}"


def _flow_service(doc: Document, service: Service, n: int) -> str:
    parts: list[str] = []
    if service.merge and doc.anchor != "none":
        parts.append("<<: *base")
    parts.append(f"image: {_image(service, n)}")
    limits = f"limits: {{memory: {service.memory.upper()}}}" if service.memory and service.memory_in_deploy else ""
    if service.gpu == "devices":
        reservations = "reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}"
        parts.append(f"deploy: {{resources: {{{', '.join(filter(None, [limits, reservations]))}}}}}")
    elif limits:
        parts.append(f"deploy: {{resources: {{{limits}}}}}")
    if service.gpu == "gpus":
        parts.append("gpus: all")
    if service.gpu == "runtime":
        parts.append("runtime: nvidia")
    if service.memory and not service.memory_in_deploy:
        parts.append(f"mem_limit: {service.memory}")
    if service.shm == "small":
        parts.append(f"shm_size: {SMALL[service.small]}")
    elif service.shm == "big":
        parts.append(f"shm_size: {BIG[service.small]}")
    elif service.shm == "build-only":
        parts.append('build: {context: ., shm_size: "2gb"}')
    elif service.shm == "tmpfs-scalar":
        parts.append("tmpfs: /dev/shm")
    elif service.shm == "tmpfs-list":
        parts.append("tmpfs: [/dev/shm, /run]")
    elif service.shm == "tmpfs-volume":
        parts.append("volumes: [./data:/data, {type: tmpfs, target: /dev/shm}]")
    if service.extension:
        parts.append("x-note: keep me")
    if service.command != "none":
        parts.append("command: [python, train.py]")
    if service.environment == "list":
        parts.append("environment: [MODE=train]")
    elif service.environment == "map":
        parts.append('environment: {MODE: "train"}')
    comment = "  # one line" if service.comments else ""
    return f"{NAMES[n]}: {{{', '.join(parts)}}}{comment}"


def _block_service(doc: Document, service: Service, n: int) -> list[str]:
    """Lines relative to the service key's column."""
    i = " " * doc.indent
    dash = "" if doc.flush else i  # where a block sequence's dash sits, relative to its key

    entries: list[list[str]] = []
    entries.append([f"image: {_image(service, n)}" + ("  # pinned" if service.comments else "")])
    deploy_resources: list[str] = []
    if service.memory and service.memory_in_deploy:
        deploy_resources += [f"{i}limits:", f"{i}{i}memory: {service.memory.upper()}"]
    if service.gpu == "devices":
        devices = f"{i}{i}{i}devices:"
        item = f"{i}{i}{i}{dash}"
        deploy_resources += [
            f"{i}reservations:",
            devices,
            f"{item}- driver: nvidia",
            f"{item}  count: all",
            f"{item}  capabilities: [gpu]",
        ]
    if deploy_resources:
        entries.append(["deploy:", f"{i}resources:", *[f"{i}{line}" for line in deploy_resources]])
    if service.gpu == "gpus":
        entries.append(["gpus: all"])
    if service.gpu == "runtime":
        entries.append(['runtime: "nvidia"' if service.quote else "runtime: nvidia"])
    if service.memory and not service.memory_in_deploy:
        entries.append([f"mem_limit: {service.memory}"])
    if service.shm == "small":
        entries.append([f"shm_size: {SMALL[service.small]}" + ("  # too small" if service.comments else "")])
    elif service.shm == "big":
        entries.append([f"shm_size: {BIG[service.small]}"])
    elif service.shm == "build-only":
        entries.append(["build:", f"{i}context: .", f'{i}shm_size: "2gb"'])
    elif service.shm == "tmpfs-scalar":
        entries.append(["tmpfs: /dev/shm"])
    elif service.shm == "tmpfs-list":
        entries.append(["tmpfs:", f"{dash}- /run", f"{dash}- /dev/shm"])
    elif service.shm == "tmpfs-volume":
        entries.append(["volumes:", f"{dash}- ./data:/data", f"{dash}- type: tmpfs", f"{dash}  target: /dev/shm"])
    if service.extension:
        entries.append([f"x-note: {service.quote}keep me{service.quote}"])
    if service.environment == "list":
        entries.append(["environment:", f"{dash}- MODE=train"])
    elif service.environment == "map":
        entries.append(["environment:", f'{i}MODE: "train"'])
    if service.command == "plain":
        entries.append(["command: python train.py"])
    elif service.command == "literal":
        entries.append(["command: |", f"{i}python train.py", f"{i}--epochs 1"])
    elif service.command == "flow-lines":
        entries.append(["command: [python,", f"{i}train.py]"])
    elif service.command == "plain-lines":
        entries.append(["command: python", f"{i}train.py"])
    if service.comments:
        entries.append(["# a comment between keys"])
    ordered = [entries[k] for k in sorted(range(len(entries)), key=lambda k: service.order[k % 8] * 8 + k)]
    lines = [f"{NAMES[n]}:" + ("   # the service" if service.comments else "")]
    if service.merge and doc.anchor != "none":
        lines.append(f"{i}<<: *base")
    lines += [f"{i}{line}" for entry in ordered for line in entry]
    if service.comments:
        lines.append(f"{i}# a comment after the last key")
    return lines


def render(doc: Document, services: list[Service]) -> str:
    i = " " * doc.indent
    lines: list[str] = ["---"] if doc.markers else []
    if doc.header_comment:
        lines += ["# generated compose file", ""]
    if doc.version:
        lines.append('version: "3.8"')
    if doc.anchor == "block":
        lines += ["x-base: &base", f"{i}restart: unless-stopped", f"{i}labels:", f"{i}{i}team: ml"]
        if doc.anchor_gpu:
            lines.append(f"{i}runtime: nvidia")
    elif doc.anchor == "flow":
        gpu = ", runtime: nvidia" if doc.anchor_gpu else ""
        lines.append(f"x-base: &base {{restart: unless-stopped, labels: {{team: ml}}{gpu}}}")
    if doc.top_extension:
        lines += ["x-extra:", f"{i}owner: ml-team"]
    lines.append("services:")
    for n, service in enumerate(services):
        if doc.blank_between and n:
            lines.append("")
        if service.flow:
            lines.append(i + _flow_service(doc, service, n))
        else:
            lines += [i + line if line else line for line in _block_service(doc, service, n)]
    if doc.trailer == "volumes":
        lines += ["volumes:", f"{i}data: {{}}"]
    elif doc.trailer == "networks":
        lines += ["networks:", f"{i}default:", f"{i}{i}name: ml"]
    if doc.markers:
        lines.append("...")
    newline = "\r\n" if doc.crlf else "\n"
    return newline.join(lines) + (newline if doc.final_newline else "")


def anchor_lines(text: str) -> list[str]:
    """The lines of the ``x-base`` anchor block, with their line breaks."""
    lines = text.splitlines(keepends=True)
    start = next(k for k, line in enumerate(lines) if line.lstrip("\ufeff").startswith("x-base: &base"))
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    return lines[start:end]


# -- what the fixed file means ---------------------------------------------------------------------------------


def _loaded_services(text: str) -> dict:
    return (yaml.safe_load(text) or {}).get("services") or {}


def _effective_shm(service: dict) -> int | None:
    """The /dev/shm size compose would give: a sized tmpfs mount at /dev/shm wins over shm_size."""
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict) and volume.get("type") == "tmpfs" and volume.get("target") == "/dev/shm":
            size = (volume.get("tmpfs") or {}).get("size")
            return None if size is None else parse_docker(str(size)).bytes
    tmpfs = service.get("tmpfs")
    entries = [tmpfs] if isinstance(tmpfs, str) else list(tmpfs or [])
    for entry in entries:
        target, _, options = str(entry).partition(":")
        if target.rstrip("/") == "/dev/shm":
            size = next((o[5:] for o in options.split(",") if o.startswith("size=")), None)
            return parse_docker(size).bytes if size else None
    size = service.get("shm_size")
    return None if size is None else parse_docker(str(size)).bytes


def _limit(service: dict) -> int | None:
    memory = service.get("mem_limit") or (
        ((service.get("deploy") or {}).get("resources") or {}).get("limits") or {}
    ).get("memory")
    return parse_docker(str(memory)).bytes if memory else None


def _unsized_tmpfs(service: dict) -> bool:
    """A tmpfs at /dev/shm without a size (SHM003), as opposed to no /dev/shm setting or a too-small size."""
    tmpfs = service.get("tmpfs")
    entries = [tmpfs] if isinstance(tmpfs, str) else list(tmpfs or [])
    long_form = any(
        isinstance(v, dict) and v.get("type") == "tmpfs" and v.get("target") == "/dev/shm"
        for v in service.get("volumes") or []
    )
    short_form = any(str(entry).partition(":")[0].rstrip("/") == "/dev/shm" for entry in entries)
    return (long_form or short_form) and _effective_shm(service) is None


def _expected_size(limit: int | None, old: dict) -> int:
    """8 GiB, never below what the workload gets (an unsized tmpfs under a memory limit gets the whole limit), at
    most half the memory limit (``shmlint.sizing``)."""
    if limit and _unsized_tmpfs(old):
        return (limit // 2 // MIB) * MIB
    size = min(8 * GIB, limit // 2) if limit else 8 * GIB
    return (size // MIB) * MIB


def _flagged(findings, unsafe: bool) -> set[str]:  # type: ignore[no-untyped-def]
    return {
        f.workload.name.split('"')[1]
        for f in findings
        if f.fix is not None and f.workload is not None and (unsafe or f.fix.applicability is Applicability.SAFE)
    }


def _wanted(findings, unsafe: bool) -> list:  # type: ignore[no-untyped-def]
    return [f for f in findings if f.fix is not None and (unsafe or f.fix.applicability is Applicability.SAFE)]


def check_fix(doc: Document, services: list[Service], unsafe: bool) -> None:
    text = render(doc, services)
    data = (codecs.BOM_UTF8 if doc.bom else b"") + text.encode("utf-8")
    source = SourceText.from_bytes(str(PATH), data)
    assert source.text == text and source.bom == (codecs.BOM_UTF8 if doc.bom else b"")
    before = ENGINE.check_source(source, FileKind.YAML, PATH)
    assert not [f for f in before.findings if f.code == "SHM000"], text
    # recognised as compose, one workload per service (unless nothing in it could matter: the prefilter skips it)
    assert len(before.workloads) == len(services) or not ENGINE.prefilter.passes(text), text
    flagged = _flagged(before.findings, unsafe)

    with proofs.recording_rounds() as rounds:
        result = fix_source(ENGINE, source, FileKind.YAML, PATH, unsafe=unsafe)
    assert not result.problems, result.problems
    assert result.changed == bool(flagged), (flagged, text)
    if currently_in_test_context():  # hypothesis statistics: what the examples exercised
        for finding in result.applied:
            event(f"fixed {finding.code}")
        event(f"{len(flagged)} of {len(services)} services flagged")

    # parses, nothing (wanted) fixable left, a second fix changes nothing
    fixed_source = SourceText.from_bytes(str(PATH), source.encode(result.text))
    assert fixed_source.text == result.text and fixed_source.bom == source.bom
    after = ENGINE.check_source(fixed_source, FileKind.YAML, PATH)
    assert not [f for f in after.findings if f.code == "SHM000"], result.text
    left = _wanted(after.findings, unsafe)
    assert not left, ([f"{f.code} {f.message}" for f in left], result.text)
    assert not fix_source(ENGINE, fixed_source, FileKind.YAML, PATH, unsafe=unsafe).changed, result.text

    proofs.assert_no_new_duplicate_keys(text, result.text)  # compose rejects a key written twice

    # byte-minimal: untouched lines identical, new lines indented like their siblings, line breaks kept
    edit_map = proofs.assert_byte_minimal(text, result.text, rounds)
    proofs.assert_line_breaks_kept(text, result.text)
    service_key_column = 2 * doc.indent
    for line in edit_map.inserted:  # a service-level shm_size, or a size under a long-form tmpfs volume
        indent = len(line) - len(line.lstrip(" "))
        if line.lstrip(" ").startswith("shm_size: "):
            assert indent == service_key_column, (line, result.text)
        else:
            assert line.lstrip(" ").startswith(("tmpfs:", "size: ")) and indent > service_key_column, (
                line,
                result.text,
            )
    for n in edit_map.rewritten:  # only a flow service's line, or the line of the size being set
        line = text.splitlines()[n].lstrip("\ufeff").strip()
        flow_service = line.split(":")[0] in NAMES and "{" in line
        assert flow_service or line.startswith(("shm_size:", "tmpfs:", "- /dev/shm", "volumes: [")), (
            line,
            result.text,
        )

    # the anchor is never edited, and only flagged services change (and they get the expected size)
    if doc.anchor != "none":
        assert "".join(anchor_lines(text)) in result.text, result.text
    old, new = _loaded_services(text), _loaded_services(result.text)
    assert list(old) == list(new)
    for name in old:
        if name not in flagged:
            assert new[name] == old[name], (name, result.text)
            continue
        changed = {k for k in set(old[name]) | set(new[name]) if old[name].get(k) != new[name].get(k)}
        assert changed <= {"shm_size", "tmpfs", "volumes"}, (name, changed, result.text)
        expected = _expected_size(_limit(new[name]), old[name])
        assert _effective_shm(new[name]) == expected, (name, new[name], result.text)

    assert proofs.assert_compose_still_valid(text, result.text), text  # every generated file is valid compose


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents_st, st.lists(services_st, min_size=1, max_size=4), st.booleans())
@example(  # the hardest shape: one anchor, merged into a GPU and a plain service, CRLF + BOM, no final newline
    Document(2, False, True, True, False, "block", False, True, True, True, True, "volumes", False),
    [
        Service("devices", "none", False, True, None, False, '"', True, True, "map", "literal", tuple(range(8)), 0),
        Service("none", "none", False, True, None, False, "", False, False, "none", "none", tuple(range(8)), 0),
        Service("gpus", "build-only", True, True, "4g", False, "'", True, True, "list", "plain", tuple(range(8)), 0),
    ],
    False,
)
def test_generated_compose_files_fix_cleanly(doc: Document, services: list[Service], unsafe: bool) -> None:
    # a literal block that ends a file without a final newline changes value when anything is added after it:
    # a known bug with a test of its own (test_a_block_scalar_last_in_the_service_keeps_its_value)
    assume(not render(doc, services).endswith("--epochs 1"))
    check_fix(doc, services, unsafe)


# -- values written after the last key -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "    command: |\n      python train.py\n      --epochs 1",  # clip, the file's last line, no final newline
        "    command: |+\n      python train.py\n\n\n",  # keep: the trailing blank lines are part of the value
        "    command: >+\n      python train.py\n\n",
    ],
    ids=["literal-at-end-of-file", "literal-keep", "folded-keep"],
)
def test_a_block_scalar_last_in_the_service_keeps_its_value(command: str) -> None:
    """``shm_size`` added after a service whose last value is a block scalar must not change that value."""
    text = "services:\n  trainer:\n    image: ultralytics/ultralytics:8.3.0\n    runtime: nvidia\n" + command
    source = SourceText(str(PATH), text)
    result = fix_source(ENGINE, source, FileKind.YAML, PATH)
    assert result.changed
    old, new = _loaded_services(text)["trainer"], _loaded_services(result.text)["trainer"]
    assert new.get("shm_size") == "8gb"
    assert new["command"] == old["command"], f"command changed from {old['command']!r} to {new['command']!r}"


def test_a_long_form_tmpfs_volume_with_options_gets_a_size() -> None:
    """``type: tmpfs`` at /dev/shm with ``tmpfs: {mode: ...}`` but no size: SHM003 says fixable (an unsafe fix
    without a memory limit: any size bounds what could use the node's memory), so fix it."""
    text = (
        "services:\n"
        "  trainer:\n"
        "    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
        "    volumes:\n"
        "      - type: tmpfs\n"
        "        target: /dev/shm\n"
        "        tmpfs:\n"
        "          mode: 1777\n"
    )
    source = SourceText(str(PATH), text)
    assert [f.code for f in _wanted(ENGINE.check_source(source, FileKind.YAML, PATH).findings, True)] == ["SHM003"]
    result = fix_source(ENGINE, source, FileKind.YAML, PATH, unsafe=True)
    after = ENGINE.check_source(SourceText(str(PATH), result.text), FileKind.YAML, PATH)
    left = _wanted(after.findings, True)
    assert not left, f"still fixable after the fix: {[f'{f.code} {f.message}' for f in left]}\n{result.text}"
    volume = _loaded_services(result.text)["trainer"]["volumes"][0]
    assert volume["tmpfs"]["mode"] == 1777 and volume["tmpfs"]["size"] == 8 * GIB


# -- an anchor that itself carries a /dev/shm setting -----------------------------------------------------------
#
# When the too-small ``shm_size`` or the unsized ``tmpfs`` is inherited through ``<<: *base``, the only place the
# value is written is the anchor, shared by every service that merges it. The fix must land in the flagged
# service's own mapping (or not be offered); editing the anchor changes the other services too.

ANCHORED = {
    "small": "x-base: &base\n  restart: unless-stopped\n  shm_size: 64m\n",
    "tmpfs": "x-base: &base\n  restart: unless-stopped\n  tmpfs:\n    - /dev/shm\n",
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(ANCHORED)),
    st.lists(st.sampled_from(["gpus", "runtime", "none"]), min_size=2, max_size=4).filter(
        lambda kinds: "none" in kinds and set(kinds) != {"none"}
    ),
    st.booleans(),
)
def test_setting_inherited_from_a_shared_anchor_is_fixed_in_the_service(
    anchored: str, kinds: list[str], flow: bool
) -> None:
    lines = ["services:"]
    for n, kind in enumerate(kinds):
        gpu = {"gpus": "gpus: all", "runtime": "runtime: nvidia", "none": None}[kind]
        keys = ["<<: *base", f"image: {NEUTRAL_IMAGES[n % 4]}", *([gpu] if gpu else [])]
        lines += [f"  {NAMES[n]}: {{{', '.join(keys)}}}"] if flow else [f"  {NAMES[n]}:", *[f"    {k}" for k in keys]]
    text = ANCHORED[anchored] + "\n".join(lines) + "\n"
    source = SourceText(str(PATH), text)
    before = ENGINE.check_source(source, FileKind.YAML, PATH)
    unsafe = anchored == "tmpfs"  # sizing an unsized tmpfs without a memory limit is an unsafe fix (SHM003)
    flagged = _flagged(before.findings, unsafe)
    assert flagged == {NAMES[n] for n, kind in enumerate(kinds) if kind != "none"}, (flagged, text)
    result = fix_source(ENGINE, source, FileKind.YAML, PATH, unsafe=unsafe)
    assert ANCHORED[anchored] in result.text, f"the shared anchor was edited:\n{result.text}"
    old, new = _loaded_services(text), _loaded_services(result.text)
    for name in old:
        if name not in flagged:
            assert new[name] == old[name], f"service {name} (not flagged) changed:\n{result.text}"


def test_a_service_that_is_itself_the_anchor_does_not_drag_others_along() -> None:
    """``trainer: &base`` merged into ``web`` (not GPU): trainer's shm_size must not become web's."""
    text = (
        "services:\n"
        "  trainer: &base\n"
        "    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
        "    environment:\n"
        "      MODE: train\n"
        "  web:\n"
        "    <<: *base\n"
        "    image: httpd:2.4\n"
    )
    source = SourceText(str(PATH), text)
    findings = ENGINE.check_source(source, FileKind.YAML, PATH).findings
    assert [f.code for f in findings if f.workload and f.workload.name == 'service "trainer"'] == ["SHM001"]
    # any shm_size written into trainer's mapping would reach web through the merge: no fix is offered
    assert _flagged(findings, False) == set()
    result = fix_source(ENGINE, source, FileKind.YAML, PATH)
    assert not result.changed and "shm_size" not in _loaded_services(result.text)["web"]


@pytest.mark.parametrize("flow", [False, True], ids=["block", "flow"])
def test_a_service_written_as_an_alias_is_fixed_or_not_called_fixable(flow: bool) -> None:
    """``train: *gpu`` has no mapping of its own: either it is fixed, or its finding must not claim a fix."""
    anchor = (
        "x-gpu: &gpu {image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3}\n"
        if flow
        else "x-gpu: &gpu\n  image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
    )
    text = anchor + "services:\n  train: *gpu\n"
    source = SourceText(str(PATH), text)
    result = fix_source(ENGINE, source, FileKind.YAML, PATH)
    after = ENGINE.check_source(SourceText(str(PATH), result.text), FileKind.YAML, PATH)
    left = _wanted(after.findings, False)
    assert not left, f"`shmlint check` still calls this fixable after `shmlint fix`: {[f.message for f in left]}"


# -- keys that are already there, services that share an IPC namespace, extends ---------------------------------


def _fix_compose(text: str):  # type: ignore[no-untyped-def]
    source = SourceText(str(PATH), text)
    result = fix_source(ENGINE, source, FileKind.YAML, PATH)
    after = ENGINE.check_source(SourceText(str(PATH), result.text), FileKind.YAML, PATH)
    return result, after


def test_an_empty_shm_size_gets_a_value_instead_of_a_second_key() -> None:
    text = "services:\n  trainer:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n    shm_size:\n"
    result, after = _fix_compose(text)
    assert not _wanted(after.findings, False)
    assert not proofs.duplicate_keys(result.text), f"shm_size written twice:\n{result.text}"
    assert _loaded_services(result.text)["trainer"]["shm_size"] == "8gb"


def test_a_service_in_another_services_ipc_namespace_converges() -> None:
    """``ipc: service:a``: the GPU service's /dev/shm is a's. Its own shm_size does not count, so adding one does
    not fix the finding; the fixer must size a (or offer nothing), never stack shm_size keys round after round."""
    text = "services:\n  a:\n    image: httpd:2.4\n  b:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n    ipc: service:a\n"
    result, after = _fix_compose(text)
    assert not proofs.duplicate_keys(result.text), f"a key written several times:\n{result.text}"
    assert not _wanted(after.findings, False), f"still fixable after the fix:\n{result.text}"
    assert not fix_source(ENGINE, after.source, FileKind.YAML, PATH).changed


def test_a_size_inherited_through_extends_is_set_on_the_flagged_service() -> None:
    """``a`` extends ``base`` (not GPU) and inherits its 64m: raising it in ``base`` changes ``base`` too."""
    text = "services:\n  base:\n    image: httpd:2.4\n    shm_size: 64m\n  a:\n    extends: base\n    gpus: all\n"
    result, after = _fix_compose(text)
    assert not _wanted(after.findings, False)
    services = _loaded_services(result.text)
    assert services["base"]["shm_size"] == "64m", f"the fix of a changed base:\n{result.text}"
    assert services["a"]["shm_size"] == "8gb"
