"""One place per rule: the registry, the catalog, the rule modules, the fixtures and the README agree.

A rule is its catalog entry ``rules/shmNNN_slug.yaml`` (what it is), the module ``shmlint/rules/shmNNN_slug.py`` the
entry names (how it is found; the registry runs it), and its fixtures. These tests fail when any of them is missing
or when a code is written anywhere else.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shmlint import docs
from shmlint.catalog import CatalogEntry, load_catalog
from shmlint.discover import FileKind, discover, kind_by_name
from shmlint.engine import Engine
from shmlint.file_formats import describe, formats, yaml_claim
from shmlint.model import WorkloadFormat
from shmlint.rules.registry import rules
from shmlint.scaffold import TODO
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import ROOT

PACKAGE = ROOT / "shmlint"
FOLDER = PACKAGE / "rules"
CATALOG_FOLDER = ROOT / "rules"
FIXTURES = ROOT / "fixtures"
#: the fixture folders test_fixtures.py runs, and the format their files are in (from the format descriptors)
FIXTURE_FORMATS = {folder: found.workload_format for found in formats() for folder in found.fixtures}
#: what shmlint/rules/ holds besides the rule modules, and rules/ besides the catalog entries
FRAMEWORK = {"__init__.py", "registry.py", "rule.py", "common.py"}
CATALOG_FRAMEWORK = {"schema.json"}
CATALOG = load_catalog()
ENGINE = Engine(Settings(undecided="show"))


def test_the_registry_lists_every_catalog_rule_once_in_code_order() -> None:
    assert [rule.code for rule in rules()] == list(CATALOG)


@pytest.mark.parametrize("entry", CATALOG.values(), ids=lambda entry: entry.code)
def test_each_catalog_entry_names_the_module_that_finds_it(entry: CatalogEntry) -> None:
    assert (CATALOG_FOLDER / entry.filename).is_file()
    assert entry.implementation == f"shmlint.rules.{entry.stem}"
    module = importlib.import_module(entry.implementation)
    assert module.RULE.code == entry.code
    assert module.RULE in rules()
    assert module.RULE.check is None or module.RULE.check.__module__ == module.__name__


def test_the_rules_folders_hold_the_rules_and_their_framework_only() -> None:
    """A module without a catalog entry would never run; an entry without a module fails the registry."""
    stems = {entry.stem for entry in CATALOG.values()}
    modules = {path.name for path in FOLDER.iterdir() if path.name != "__pycache__"}
    assert modules == FRAMEWORK | {f"{stem}.py" for stem in stems}
    entries = {path.name for path in CATALOG_FOLDER.iterdir()}
    assert entries == CATALOG_FRAMEWORK | {f"{stem}.yaml" for stem in stems}


def test_a_new_catalog_entry_is_run_without_a_list_to_edit(tmp_path: Path) -> None:
    """The registry is derived from the catalog: an entry and its module are all it takes (here: a copy of SHM012
    under a new code, in a copy of the package, so the checkout is untouched)."""
    shutil.copytree(PACKAGE, tmp_path / "shmlint", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CATALOG_FOLDER, tmp_path / "rules")
    stem = "shm999_test_only"
    module = (FOLDER / "shm012_nccl_shm_disabled.py").read_text(encoding="utf-8").replace("SHM012", "SHM999")
    (tmp_path / "shmlint" / "rules" / f"{stem}.py").write_text(module, encoding="utf-8")
    (tmp_path / "rules" / f"{stem}.yaml").write_text(
        (CATALOG_FOLDER / "shm012_nccl_shm_disabled.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    probe = "from shmlint.rules.registry import rules; print(' '.join(rule.code for rule in rules()))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [*CATALOG, "SHM999"]


def _code_literals(path: Path) -> list[tuple[int, str]]:
    """String constants that mention a rule code, docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, documented) and ast.get_docstring(node)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.search(r"SHM\d{3}", node.value)
    ]


#: the one code the settings layer (below the rules) must name: a file that cannot be read is reported whatever
#: ``select`` says, so ``Settings.enabled`` knows that code itself
SETTINGS_INPUT_ERROR = ("shmlint/settings.py", "'SHM000'")


def test_a_code_is_written_only_in_its_own_rule_module() -> None:
    """Everything else asks the rule object or the catalog, so a rule lives in one place."""
    stray = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = re.match(r"shm(\d{3})_", path.name)
        for line, value in _code_literals(path):
            if (path.relative_to(ROOT).as_posix(), repr(value)) == SETTINGS_INPUT_ERROR:
                continue
            if path.parent != FOLDER or own is None or value != f"SHM{own.group(1)}":
                stray.append(f"{path.relative_to(ROOT)}:{line}: {value!r}")
    assert not stray


# -- formats and fixtures ------------------------------------------------------------------------------------


def _file_format(name: str, text: str) -> WorkloadFormat:
    """The format a file is read as, by name and, for YAML, content (as the engine decides)."""
    kind = kind_by_name(Path(name)) or FileKind.YAML
    if kind in (FileKind.TERRAFORM, FileKind.PYTHON):
        return WorkloadFormat.TERRAFORM if kind is FileKind.TERRAFORM else WorkloadFormat.PYTHON
    if kind is not FileKind.YAML:
        return WorkloadFormat.COMMAND
    may_be_compose = next(yaml_claim(name, text)) is describe(WorkloadFormat.COMPOSE).yaml
    return WorkloadFormat.COMPOSE if may_be_compose else WorkloadFormat.KUBERNETES


def _fixture_files() -> list[tuple[Path, WorkloadFormat]]:
    return [
        (path, fmt)
        for folder, fmt in FIXTURE_FORMATS.items()
        for path in sorted((FIXTURES / folder).rglob("*"))
        if path.is_file() and path.suffix not in (".expected", ".fixed")
    ]


def _examples_by_rule_and_format() -> dict[tuple[str, WorkloadFormat, str], list[str]]:
    """(code, format, "bad" or "good") -> where a bad or good input of that rule in that format is."""
    found: dict[tuple[str, WorkloadFormat, str], list[str]] = {}
    for path, fmt in _fixture_files():
        bad, good = re.match(r"(SHM\d{3})-", path.name), re.match(r"good-(SHM\d{3})-", path.name)
        for match, kind in ((bad, "bad"), (good, "good")):
            if match:
                found.setdefault((match.group(1), fmt, kind), []).append(str(path.relative_to(ROOT)))
    for entry in CATALOG.values():
        for example in entry.examples:
            for kind, text in (("bad", example.bad), ("good", example.good)):
                where = f"{entry.filename}: {example.title}"
                found.setdefault((entry.code, _file_format(example.filename, text), kind), []).append(where)
    return found


@pytest.mark.parametrize("entry", CATALOG.values(), ids=lambda entry: entry.code)
def test_every_declared_format_has_a_bad_and_a_good_input(entry: CatalogEntry) -> None:
    """A bad and a good input per format the rule declares: a fixture (``SHMnnn-*`` and ``good-SHMnnn-*`` under
    fixtures/<format>/, run by test_fixtures.py) or a catalog example (run by test_catalog_examples.py)."""
    found = _examples_by_rule_and_format()
    missing = [
        f"{fmt.value} {kind}"
        for fmt in entry.formats
        for kind in ("bad", "good")
        if not found.get((entry.code, fmt, kind))
    ]
    assert not missing, f"{entry.code} declares formats it has no inputs for: {missing}"


def test_rules_report_only_in_the_formats_they_declare() -> None:
    inputs = [(str(path), path.read_text(encoding="utf-8", errors="replace")) for path, _ in _fixture_files()]
    inputs += [(example.filename, example.bad) for entry in CATALOG.values() for example in entry.examples]
    undeclared = set()
    for name, text in inputs:
        kind = kind_by_name(Path(name)) or FileKind.YAML
        result = ENGINE.check_source(SourceText(name, text), kind, Path(name))
        for finding in result.findings:
            fmt = finding.workload.format if finding.workload else _file_format(name, text)
            if fmt not in CATALOG[finding.code].formats:
                undeclared.add((finding.code, fmt.value, Path(name).name))
    assert not undeclared


def test_a_bad_fixture_reports_its_rule_in_its_format() -> None:
    """A fixture under fixtures/compose/ that reported only through another format would prove nothing."""
    wrong = []
    for path, fmt in _fixture_files():
        if not re.match(r"SHM\d{3}-", path.name) or path.name.startswith("SHM000"):
            continue
        (candidate,) = discover([path])
        findings = ENGINE.check_candidate(candidate).findings
        if not any(f.code == path.name[:6] and f.workload and f.workload.format is fmt for f in findings):
            wrong.append(str(path.relative_to(ROOT)))
    assert not wrong


def test_no_rule_is_left_as_scaffolded() -> None:
    """``python -m shmlint.scaffold rule`` marks every place to write; a rule is finished when none is left."""
    paths = [*CATALOG_FOLDER.glob("*.yaml"), *FOLDER.glob("shm*.py")]
    paths += [path for path in FIXTURES.rglob("*") if path.is_file() and re.search(r"SHM\d{3}", path.name)]
    left = [str(path.relative_to(ROOT)) for path in paths if TODO.encode() in path.read_bytes()]
    assert not left, f"left as scaffolded ({TODO}): {left}"


# -- docs/adding-a-rule.md: the checklist and the tests agree ----------------------------------------------------

CHECKLIST = ROOT / "docs" / "adding-a-rule.md"
#: the tests of this file that hold the registry's own machinery rather than an item a new rule must tick
MACHINERY = {
    "test_a_new_catalog_entry_is_run_without_a_list_to_edit",
    "test_a_stale_readme_table_is_found_and_rewritten",
    "test_a_readme_without_the_markers_is_an_error",
    "test_a_clean_file_loads_no_rule_and_no_catalog_entry",
    "test_a_finding_reads_only_its_own_catalog_entry",
    "test_every_checklist_item_names_tests_that_exist",
    "test_every_test_of_the_registry_is_a_checklist_item_or_machinery",
}


def checklist() -> dict[str, list[tuple[str, str]]]:
    """Item title -> the (file, test) pairs it names, from the checklist in docs/adding-a-rule.md."""
    text = CHECKLIST.read_text(encoding="utf-8")
    items = re.findall(r"^- \[ \] \*\*(.+?)\*\*(.*?)(?=^- \[ \]|^$)", text, re.MULTILINE | re.DOTALL)
    return {title: re.findall(r"`(tests/\w+\.py)::(\w+)`", body) for title, body in items}


def test_every_checklist_item_names_tests_that_exist() -> None:
    items = checklist()
    assert len(items) >= 9, items
    for title, tests in items.items():
        assert tests, f"checklist item {title!r} names no test"
        for file, name in tests:
            defined = re.search(rf"^(async )?def {name}\(", (ROOT / file).read_text(encoding="utf-8"), re.MULTILINE)
            assert defined, f"checklist item {title!r} names {file}::{name}, which does not exist"


def test_every_test_of_the_registry_is_a_checklist_item_or_machinery() -> None:
    named = {name for tests in checklist().values() for file, name in tests if file == "tests/test_rule_registry.py"}
    here = set(re.findall(r"^def (test_\w+)\(", Path(__file__).read_text(encoding="utf-8"), re.MULTILINE))
    assert here - named - MACHINERY == set(), "add these to the checklist in docs/adding-a-rule.md or to MACHINERY"
    assert named | MACHINERY <= here


# -- the README's rules table ------------------------------------------------------------------------------


def test_the_readme_rules_table_is_current() -> None:
    assert not docs.stale_readme(ROOT / "README.md"), f"README.md's rules table is stale: run `{docs.REGENERATE}`"


def test_the_readme_table_lists_every_rule_with_its_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index(docs.TABLE_START) : readme.index(docs.TABLE_END)]
    for entry in CATALOG.values():
        assert f"| [{entry.code}](docs/rules/{entry.code}.md) | {entry.slug} | {entry.severity.label} |" in table


def test_a_stale_readme_table_is_found_and_rewritten(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    current = (ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(current.replace("| missing-shm |", "| missing-shared-memory |"), encoding="utf-8")
    assert docs.stale_readme(readme)
    assert docs.write_readme(readme)
    assert readme.read_text(encoding="utf-8") == current
    assert not docs.write_readme(readme)


def test_a_readme_without_the_markers_is_an_error() -> None:
    with pytest.raises(ValueError, match="markers"):
        docs.readme_with_table("# shmlint\n\n## Rules\n", CATALOG.values())


# -- start-up: the rules load only for a workload, the catalog only for the rule that reports -------------------

_PROBE = """
import json, sys
from shmlint import catalog
from shmlint.cli import main
sys.argv = ["shmlint", "check", sys.argv[1]]
try:
    main()
except SystemExit as exit:
    status = exit.code
print(json.dumps({
    "status": status,
    "rules": sorted(m for m in sys.modules if m.startswith("shmlint.rules")),
    "entries_read": catalog._rule_from_file.cache_info().currsize,
}))
"""


def _probe(path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_a_clean_file_loads_no_rule_and_no_catalog_entry(tmp_path: Path) -> None:
    clean = tmp_path / "config.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n")
    seen = _probe(clean)
    assert seen == {"status": 0, "rules": [], "entries_read": 0}


def test_a_finding_reads_only_its_own_catalog_entry() -> None:
    """Only the entry of the one rule that reports is parsed."""
    seen = _probe(FIXTURES / "shell" / "SHM001-missing-shm.sh")
    assert seen["status"] == 1
    assert "shmlint.rules.registry" in seen["rules"]
    assert seen["entries_read"] == 1
