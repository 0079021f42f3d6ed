"""``python -m shmlint.scaffold rule``: it writes a rule the registry and the catalog accept, refuses a code or slug
that exists or a gap, never overwrites, and leaves the checklist of docs/adding-a-rule.md to its author."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from shmlint.scaffold import FIXES, TEMPLATES, TODO, NewRule, ScaffoldError, catalog_entry, planned_files, scaffold
from tests.support import ROOT
from tests.test_rule_registry import checklist

SCHEMA = yaml.safe_load((ROOT / "rules" / "schema.json").read_text(encoding="utf-8"))
NEXT = f"SHM{len(list((ROOT / 'rules').glob('shm*.yaml'))):03d}"


def new_rule(**changes: object) -> NewRule:
    fields: dict[str, object] = {
        "code": NEXT,
        "slug": "scaffolded-rule",
        "summary": "A rule written by the scaffold's test",
        "severity": "warning",
        "formats": ("compose", "command"),
        "fix": "safe",
        **changes,
    }
    return NewRule(**fields)  # type: ignore[arg-type]


def catalog_copy(tmp_path: Path) -> Path:
    """A root with the catalog and the rules package folder: enough to refuse, never enough to write docs."""
    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    (tmp_path / "shmlint" / "rules").mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize("fix", FIXES)
@pytest.mark.parametrize("fmt", sorted(TEMPLATES))
def test_the_entry_is_valid_against_the_schema_and_its_examples_parse(fix: str, fmt: str) -> None:
    entry = yaml.safe_load(catalog_entry(new_rule(formats=(fmt,), fix=fix)))
    jsonschema.validate(entry, SCHEMA)
    assert entry["implementation"] == f"shmlint.rules.{NEXT.lower()}_scaffolded_rule"
    (example,) = entry["examples"]
    assert ("fixed" in example) == (fix != "never")
    for kind in ("bad", "good", "fixed"):
        if fmt != "command" and kind in example:
            yaml.safe_load(example[kind])  # the YAML formats' examples are YAML
        assert kind not in example or TODO in example[kind]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"code": "SHM001"}, "SHM001 exists (missing-shm); codes are never reused"),
        ({"slug": "ipc-none"}, "slug 'ipc-none' exists (SHM013)"),
        ({"code": "SHM999"}, f"SHM999 would leave a gap: the codes run without one, and the next is {NEXT}"),
        ({"slug": "Not_Kebab"}, "slug 'Not_Kebab': lower-case words joined by '-', at most 40 characters"),
        ({"code": "SHM1"}, "code 'SHM1': SHM and three digits"),
        ({"summary": "short"}, "summary: one line of 10 to 160 characters"),
        ({"formats": ("terraform",)}, "formats: one or more of kubernetes, compose, command"),
    ],
)
def test_a_refused_rule_writes_nothing(tmp_path: Path, changes: dict[str, object], why: str) -> None:
    root = catalog_copy(tmp_path)
    before = sorted(root.rglob("*"))
    with pytest.raises(ScaffoldError) as refused:
        scaffold(new_rule(**changes), root)
    assert str(refused.value).startswith(why)
    assert sorted(root.rglob("*")) == before


def test_it_never_overwrites_a_file(tmp_path: Path) -> None:
    root = catalog_copy(tmp_path)
    rule = new_rule()
    good = next(path for path in planned_files(rule, root) if path.name.startswith("good-"))
    good.parent.mkdir(parents=True)
    good.write_text("mine\n", encoding="utf-8")
    with pytest.raises(ScaffoldError, match=f"would overwrite fixtures/compose/{good.name}"):
        scaffold(rule, root)
    assert good.read_text(encoding="utf-8") == "mine\n"
    assert not (root / "rules" / f"{rule.stem}.yaml").exists()


def python(*args: str, importing: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``cwd`` with the shmlint of the checkout ``importing`` and little else in the environment."""
    environment = {"PYTHONPATH": str(importing), "PATH": "/usr/bin:/bin", **env}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=environment, capture_output=True, text=True, check=False, timeout=900
    )


def test_outside_a_checkout_it_is_an_error(tmp_path: Path) -> None:
    words = ["rule", "--slug", "x-y", "--summary", "a summary line", "--root", str(tmp_path)]
    scaffolded = python("-m", "shmlint.scaffold", *words, importing=ROOT, cwd=tmp_path)
    assert scaffolded.returncode == 2 and "is not a shmlint checkout" in scaffolded.stderr
    assert list(tmp_path.iterdir()) == []


CHECKOUT = ("shmlint", "rules", "fixtures", "docs", "tests", "README.md", "pyproject.toml")


@pytest.mark.slow
def test_a_scaffolded_rule_passes_the_structural_checklist_items_and_fails_the_rest(tmp_path: Path) -> None:
    """In a copy of the checkout: the command writes the files, and the tests of the checklist's first five items
    pass while each later item has a test that fails (what the author has left to do)."""
    copy = tmp_path / "checkout"
    for name in CHECKOUT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, copy / name)
    words = ["--slug", "scaffolded-rule", "--summary", "A rule written by the scaffold's test", "--fix", "unsafe"]
    words += ["--format", "compose", "--format", "command", "--root", str(copy)]
    made = python("-m", "shmlint.scaffold", "rule", *words, importing=copy, cwd=copy)
    assert made.returncode == 0, made.stderr
    assert f"wrote rules/{NEXT.lower()}_scaffolded_rule.yaml" in made.stdout
    assert (copy / "docs" / "rules" / f"{NEXT}.md").is_file()
    assert f"[{NEXT}](docs/rules/{NEXT}.md)" in (copy / "README.md").read_text(encoding="utf-8")
    items = checklist()
    files = sorted({file for tests in items.values() for file, _ in tests})
    options = ["-p", "no:cacheprovider", "-n", "0", "-q", "-rfE", "-m", "not slow and not validation"]
    no_corpus = str(tmp_path / "no-corpus")
    done = python("-m", "pytest", *options, *files, importing=copy, cwd=copy, SHMLINT_CORPUS=no_corpus)
    failed = set(re.findall(r"^(?:FAILED|ERROR) tests/\w+\.py::(\w+)", done.stdout, re.MULTILINE))
    titles = list(items)
    for title in titles[:5]:
        assert not {name for _, name in items[title]} & failed, (title, failed, done.stdout[-3000:])
    for title in titles[5:]:
        assert {name for _, name in items[title]} & failed, (title, "passes right after the scaffold")
    cases = re.findall(r"^FAILED tests/\w+\.py::\w+\[([^\]]*)\]", done.stdout, re.MULTILINE)
    assert cases and all(NEXT in case for case in cases), cases  # only the new rule's examples and fixtures fail
