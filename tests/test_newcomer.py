"""What a newcomer runs first: the README's two commands, the same test command in CI, a fast loop without torch,
a suite that does not need pytest-xdist to start, and a collection that a missing optional package never stops."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib

import pytest

from tests.support import ROOT

INSTALL_AND_RUN = "python3 -m pip install . && python3 -m shmlint check fixtures/examples"
TEST_COMMAND = "python3 -m pip install -e '.[test,validation]' && python3 -m pytest"


def extras() -> dict[str, list[str]]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        found: dict[str, list[str]] = tomllib.load(handle)["project"]["optional-dependencies"]
    return found


def test_the_readme_starts_with_the_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```sh\n(.*?)```", text, re.DOTALL)
    assert first is not None and first.start() < text.index("\n## ")
    assert first.group(1).splitlines() == [INSTALL_AND_RUN, TEST_COMMAND]


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST_COMMAND in lines


def test_torch_is_in_the_validation_extra_only() -> None:
    found = extras()
    assert found["validation"] == ["torch==2.13.0"]
    assert not [d for d in found["test"] if d.lower().startswith("torch")]


def test_no_test_module_imports_torch() -> None:
    """The fast loop is collected without torch: tests that need it reach it through the validation harness (a
    probe process) and are marked ``validation``."""
    offenders = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(name.split(".")[0] == "torch" for name in names):
                offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders


def python(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the checkout, importing it, as a newcomer's shell would."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_plain_pytest_runs_without_xdist(tmp_path) -> None:
    """``addopts`` holds no ``-n``: with pytest-xdist switched off, pytest still starts and runs tests."""
    done = python("-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "tests/test_value_types.py")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\d+ passed", done.stdout)
    assert "PytestDeprecationWarning" not in done.stdout + done.stderr  # pytest-asyncio: a scope is configured


#: pytest with some packages made impossible to import, as on a machine that lacks them
WITHOUT = r"""
import sys
missing = set(sys.argv[1].split(","))
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in missing:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Missing())
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


@pytest.mark.slow
def test_collection_never_fails_for_a_missing_optional_package() -> None:
    """Without hypothesis, torch or atheris the suite is still collected: the modules that import one are skipped,
    each saying which package is missing and where it comes from (tests/conftest.py, ``OPTIONAL_PACKAGES``).
    ``--assert=plain``: pytest's rewriting hook would find the installed copy first; the hypothesis plugin goes with
    its package."""
    options = ["-p", "no:xdist", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--assert=plain"]
    done = python("-c", WITHOUT, "hypothesis,torch,atheris", *options, "--collect-only", "-q", "-rs", "tests")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    skipped = re.findall(r"SKIPPED \[1\] (tests/\S+): hypothesis is not installed \(the \[test\] extra\)", done.stdout)
    assert "tests/test_numbers.py" in skipped, done.stdout[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert re.match(r"\d+ tests collected", last) and not re.search(r"\d+ errors?", last), last
