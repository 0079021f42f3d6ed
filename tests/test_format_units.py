"""One place per format: each package under shmlint/formats/ is a whole format, and these tests say what a new one
is missing. Each test is one item of the "Adding a format" checklist in docs/architecture.md, by its bold key:
the checklist and ``CHECKLIST`` below name the same items (a test holds that too)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shmlint import build_data, docs
from shmlint.discover import kind_for_name
from shmlint.file_formats import formats, yaml_claim
from shmlint.format_descriptor import FileKind, Format
from shmlint.model import WorkloadFormat
from shmlint.parsers.jsonnodes import compose_json
from shmlint.parsers.yamlnodes import YamlError, compose
from shmlint.source import SourceText
from tests.support import FIXTURES, ROOT

PACKAGES = ROOT / "shmlint" / "formats"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
FOLDERS = sorted(p.name for p in PACKAGES.iterdir() if p.is_dir() and not p.name.startswith("_"))
FORMATS = {found.name: found for found in formats()}


def test_package_every_folder_is_a_format_named_like_it() -> None:
    assert sorted(FORMATS) == FOLDERS, "each folder of shmlint/formats/ is a package that exports FORMAT"
    for name in FOLDERS:
        found = importlib.import_module(f"shmlint.formats.{name}").FORMAT
        assert isinstance(found, Format) and found.name == name, f"shmlint/formats/{name}: FORMAT names {found.name}"


@pytest.mark.parametrize("name", FOLDERS)
def test_descriptor_says_how_its_fix_is_spelled_and_written(name: str) -> None:
    found = FORMATS[name]
    assert found.label and found.remedy and found.fix_in_short, f"{name}: label, remedy and fix_in_short"
    writer = importlib.import_module(found.writer)
    assert callable(getattr(writer, "can_write", None)) and callable(getattr(writer, "edits_for", None)), (
        f"{name}: its writer {found.writer} has can_write and edits_for"
    )


def test_descriptor_one_format_per_workload_format() -> None:
    """A new format adds its member to ``WorkloadFormat`` (shmlint/model.py), one of the two central lists."""
    owners = [found.workload_format for found in FORMATS.values()]
    unowned = sorted(set(WorkloadFormat) - set(owners))
    assert not unowned, f"no format's descriptor names {unowned}: a WorkloadFormat member without its format"
    twice = sorted({owner for owner in owners if owners.count(owner) > 1})
    assert not twice, f"{twice} named by more than one descriptor: give the new format its own WorkloadFormat member"


@pytest.mark.parametrize("name", FOLDERS)
def test_detect_every_name_it_lists_is_its_kind(name: str) -> None:
    found = FORMATS[name]
    assert found.files or found.yaml, f"{name}: name rules (files) or a YAML claim say which files are its"
    for rule in found.files:
        examples = [
            *rule.names,
            *rule.lower_names,
            *(f"x{e}" for e in rule.endings),
            *(f"{b}x" for b in rule.beginnings),
        ]
        assert examples, f"{name}: a name rule for {rule.kind} names no file"
        for example in examples:
            assert kind_for_name(example) is rule.kind, f"{example} is not read as {rule.kind}: another rank wins"


def test_detect_ranks_and_kinds_are_unique() -> None:
    rules = [rule for found in FORMATS.values() for rule in found.files]
    assert len({rule.rank for rule in rules}) == len(rules), "each name rule has its own rank"
    named = [rule.kind for rule in rules]
    unnamed = sorted(set(FileKind) - set(named))
    assert not unnamed, f"no format's FileNames rule names {unnamed}: a FileKind member without a reader"
    twice = sorted({kind for kind in named if named.count(kind) > 1})
    assert not twice, (
        f"{twice} named by more than one FileNames rule: one format owns a kind's names; a new format of a syntax "
        "already read claims its files by content (YamlClaim, Sniff), a new syntax adds a FileKind member "
        "(shmlint/format_descriptor.py)"
    )
    claims = [found.yaml.rank for found in FORMATS.values() if found.yaml]
    assert len(set(claims)) == len(claims), "each YAML claim has its own rank"


@pytest.mark.parametrize("name", [name for name in FOLDERS if FORMATS[name].yaml])
def test_detect_its_fixtures_are_claimed_by_it(name: str) -> None:
    """At least one YAML or JSON fixture of a YAML format is taken by its own claim (compose's before Kubernetes')."""
    found = FORMATS[name]
    claimed = []
    for path in _fixture_files(found):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        source = SourceText(str(path), path.read_text(encoding="utf-8"))
        try:
            documents = compose_json(source) if path.suffix == ".json" else compose(source)
        except YamlError:
            continue
        first = next((c for c in yaml_claim(path.name, source.text) if c.detect(source, documents)), None)
        claimed.append(first is found.yaml)
    assert any(claimed), f"{name}: no fixture of its own is taken by its YAML claim"


@pytest.mark.parametrize("name", FOLDERS)
def test_read_every_kind_it_names_is_read(name: str) -> None:
    found = FORMATS[name]
    # Dockerfiles are evidence; YAML and YAML templates are read by the formats' claims (``YamlClaim``)
    kinds = {rule.kind for rule in found.files} - {FileKind.DOCKERFILE, FileKind.YAML, FileKind.YAML_TEMPLATE}
    assert not kinds or found.read is not None, f"{name}: names files of {sorted(kinds)} but has no read"


def test_index_is_current() -> None:
    text = build_data.expected()[build_data.FORMAT_INDEX_MODULE]
    assert build_data.FORMAT_INDEX_MODULE.read_text(encoding="utf-8") == text, "run `python -m shmlint.build_data`"


@pytest.mark.parametrize("name", FOLDERS)
def test_fixtures_exist_with_findings_and_clean_files(name: str) -> None:
    found = FORMATS[name]
    assert found.fixtures, f"{name}: its fixture folders under fixtures/"
    files = _fixture_files(found)
    assert any(p.name.startswith("SHM") for p in files), f"{name}: a fixture with a finding (SHMnnn-...)"
    assert any(p.name.startswith("good") for p in files), f"{name}: a clean fixture (good-...)"


def test_docs_formats_page_is_current() -> None:
    page = docs.default_formats()
    assert page.read_text(encoding="utf-8") == docs.formats_page(), f"run `{docs.REGENERATE}`"
    for found in FORMATS.values():
        assert f"| {found.label} | `{found.name}` |" in page.read_text(encoding="utf-8")


#: runs ``shmlint check PATH`` in this process and prints the format modules it loaded (``-X importtime`` does not
#: see them: the descriptors are imported by name, through importlib)
_LOADED = (
    "import runpy, sys\n"
    "sys.argv = ['shmlint', 'check', sys.argv[1]]\n"
    "try:\n    runpy.run_module('shmlint', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print(' '.join(sorted(m for m in sys.modules if m.startswith('shmlint.formats.'))), file=sys.stderr)\n"
)


def _formats_loaded(path: Path) -> set[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, str(path)], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


def test_a_run_imports_only_the_formats_it_reads(tmp_path: Path) -> None:
    """A flagged Kubernetes file loads its own format alone; a clean one no extractor and no writer."""
    flagged = tmp_path / "pytorchjob.yaml"
    flagged.write_text((FIXTURES / "k8s" / "SHM001-pytorchjob.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    loaded = _formats_loaded(flagged)
    assert {"shmlint.formats.kubernetes", "shmlint.formats.kubernetes.extract"} <= loaded  # the observation works
    assert {m.split(".")[2] for m in loaded} == {"kubernetes"}
    clean = tmp_path / "configmap.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n", encoding="utf-8")
    assert not [m for m in _formats_loaded(clean) if m.count(".") > 2]


#: the checklist's bold keys and the tests that hold each
CHECKLIST = {
    "package": test_package_every_folder_is_a_format_named_like_it,
    "descriptor": test_descriptor_says_how_its_fix_is_spelled_and_written,
    "detect": test_detect_every_name_it_lists_is_its_kind,
    "read": test_read_every_kind_it_names_is_read,
    "index": test_index_is_current,
    "fixtures": test_fixtures_exist_with_findings_and_clean_files,
    "docs": test_docs_formats_page_is_current,
}


def test_the_checklist_names_what_these_tests_check() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Adding a format", 1)[1].split("\n## ", 1)[0]
    keys = re.findall(r"^\d+\. \*\*([a-z]+)\*\*", section, re.MULTILINE)
    assert keys == list(CHECKLIST), "docs/architecture.md's 'Adding a format' items and CHECKLIST differ"
    for key, test in CHECKLIST.items():
        assert test.__name__.startswith(f"test_{key}_"), f"{test.__name__} does not hold item {key}"


def _fixture_files(found: Format) -> list[Path]:
    return [
        path
        for folder in found.fixtures
        for path in sorted((FIXTURES / folder).rglob("*"))
        if path.is_file() and path.suffix not in (".expected", ".fixed")
    ]
