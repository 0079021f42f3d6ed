"""The rule catalog is the public contract: stable codes, valid entries, current docs, and a wheel that ships it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml

from shmlint import docs
from shmlint.catalog import FixAvailability, catalog_dir, load_catalog, lookup
from shmlint.catalog_files import slug_of
from shmlint.severity import Severity
from tests.support import ROOT

RULES = ROOT / "rules"
DOCS = ROOT / "docs" / "rules"

#: codes and slugs already released: people have them in configuration files and suppression comments, so they
#: never change meaning and are never reused. A subset check: a new rule does not touch this list.
RELEASED = {
    "SHM000": "invalid-input",
    "SHM001": "missing-shm",
    "SHM002": "shm-not-mounted",
    "SHM003": "shm-unbounded",
    "SHM004": "shm-exceeds-memory-limit",
    "SHM005": "shm-too-small",
    "SHM006": "shm-disk-backed",
    "SHM007": "host-ipc",
    "SHM008": "host-shm-mount",
    "SHM009": "build-shm-only",
    "SHM010": "shm-size-ignored",
    "SHM011": "invalid-size",
    "SHM012": "nccl-shm-disabled",
}

RULE_FILES = sorted(RULES.glob("shm*.yaml"))


def _raw(path: Path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((RULES / "schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda path: path.name)
def test_entry_validates_against_schema(path: Path, validator: jsonschema.Draft202012Validator) -> None:
    errors = sorted(validator.iter_errors(_raw(path)), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(error.path)}: {error.message}" for error in errors)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda path: path.name)
def test_file_name_is_code_and_slug(path: Path) -> None:
    data = _raw(path)
    assert path.name == f"{data['code'].lower()}_{data['slug'].replace('-', '_')}.yaml"


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda path: path.name)
def test_implementation_is_the_module_of_the_same_name(path: Path) -> None:
    """The registry imports ``shmlint.rules.<file stem>``: the field a reader follows must name that module."""
    assert _raw(path)["implementation"] == f"shmlint.rules.{path.stem}"
    assert (ROOT / "shmlint" / "rules" / f"{path.stem}.py").is_file()


def test_the_catalog_is_the_top_level_rules_folder_in_a_checkout() -> None:
    assert Path(catalog_dir()) == RULES.resolve()


def test_released_codes_keep_their_slugs() -> None:
    catalog = load_catalog()
    assert {code: catalog[code].slug for code in RELEASED if code in catalog} == RELEASED


def test_codes_are_numbered_without_gaps() -> None:
    """A rule is never renumbered or removed (it may be deprecated), so the codes run from SHM000 on."""
    assert list(load_catalog()) == [f"SHM{number:03d}" for number in range(len(load_catalog()))]


def test_slugs_are_unique() -> None:
    slugs = [rule.slug for rule in load_catalog().values()]
    assert len(slugs) == len(set(slugs))


def test_lookup_by_code_or_slug() -> None:
    rule = lookup("SHM001")
    assert rule is not None and rule.slug == "missing-shm"
    assert lookup("shm001") is rule
    assert lookup("missing-shm") is rule
    assert lookup("SHM999") is None
    assert lookup("no-such-rule") is None


def test_load_catalog_returns_independent_dicts() -> None:
    first = load_catalog()
    first.pop("SHM001")
    assert "SHM001" in load_catalog()
    with pytest.raises(AttributeError):  # nor can a caller change a rule for the others
        first["SHM002"].severity = Severity.INFO
    assert load_catalog()["SHM002"].severity is Severity.ERROR


def test_severities_and_fix_fields_convert() -> None:
    rule = load_catalog()["SHM003"]
    assert rule.severity is Severity.WARNING
    assert rule.fix.availability is FixAvailability.ALWAYS
    assert rule.fix.applicability is not None and rule.fix.applicability.value == "unsafe"
    assert load_catalog()["SHM007"].fix.applicability is None


def test_examples_are_well_formed() -> None:
    for rule in load_catalog().values():
        for example in rule.examples:
            where = f"{rule.code} example {example.title!r}"
            assert example.bad != example.good, where
            assert rule.code not in example.also, where
            assert set(example.also) <= set(load_catalog()), where
            for text in (example.bad, example.good, example.fixed):
                assert text is None or text.endswith("\n"), f"{where}: a file ends with a newline"


def test_yaml_examples_parse_except_the_invalid_input_one() -> None:
    """Examples must fail for the reason they illustrate, not because of a typo in the YAML."""
    for rule in load_catalog().values():
        for example in rule.examples:
            if not example.filename.endswith((".yaml", ".yml")):
                continue
            for kind, text in (("bad", example.bad), ("good", example.good), ("fixed", example.fixed)):
                if text is None:
                    continue
                if rule.code == "SHM000" and kind == "bad":
                    with pytest.raises(yaml.YAMLError):
                        list(yaml.load_all(text, Loader=yaml.CSafeLoader))
                else:
                    list(yaml.load_all(text, Loader=yaml.CSafeLoader))


def test_docs_are_up_to_date() -> None:
    stale = docs.stale_docs(DOCS)
    assert not stale, f"docs/rules is stale ({', '.join(stale)}): run `python -m shmlint.docs` and commit the result"
    generated = {f"{code}.md" for code in load_catalog()} | {docs.INDEX_NAME}
    extra = sorted(path.name for path in DOCS.glob("*.md") if path.name not in generated)
    assert not extra, f"docs/rules has files the generator does not write: {extra}"


def test_rendered_rule_page_has_the_parts() -> None:
    page = docs.rule_page(load_catalog()["SHM001"])
    assert page.splitlines()[0] == "# SHM001 missing-shm"
    for part in ("**Severity:** error", "## How to fix", "## Examples", "## Sources", "```yaml", "```bash"):
        assert part in page
    assert "````markdown" in page  # a Markdown example with its own fences gets a longer fence


def test_docs_check_mode_reports_stale_files(tmp_path: Path) -> None:
    assert docs.main(["--check", str(tmp_path)]) == 1
    assert docs.main([str(tmp_path)]) == 0
    assert docs.main(["--check", str(tmp_path)]) == 0


@pytest.mark.slow
def test_wheel_ships_the_catalog_and_loads_it(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "shmlint/data/rules/shm001_missing_shm.yaml" in names
        assert "shmlint/rules/shm001_missing_shm.py" in names
        assert "shmlint/data/rules/schema.json" in names
        assert "shmlint/catalog.py" in names
        assert {f"shmlint/data/rules/{path.name}" for path in RULE_FILES} <= names
        assert not any(name.startswith("rules/") for name in names)  # no top-level package named "rules"
        installed = tmp_path / "site"
        archive.extractall(installed)

    probe = (
        "import json, shmlint.catalog as c, shmlint.rules.registry as r; "
        "rules = c.load_catalog(); "
        "print(json.dumps({'module': c.__file__, 'dir': str(c.catalog_dir()), 'codes': list(rules), "
        "'registry': [rule.code for rule in r.rules()]}))"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True, capture_output=True, text=True
    )
    seen = json.loads(result.stdout)
    assert Path(seen["module"]).is_relative_to(installed)
    assert Path(seen["dir"]) == installed / "shmlint" / "data" / "rules"
    assert seen["codes"] == seen["registry"] == sorted(load_catalog())


def test_the_slug_a_finding_takes_from_the_file_name_is_the_entrys() -> None:
    """Findings take their slug from the catalog file's name (no YAML parsed); the entry must say the same."""
    for code, entry in load_catalog().items():
        assert slug_of(code) == entry.slug
        assert slug_of(code.lower()) == entry.slug
    assert slug_of("SHM999") is None
