"""What the one-file ``shmlint check`` of a pre-commit hook must not load, so its start-up gains cannot silently go:
the tier data comes from its compiled copy (no YAML parse, no json), KServe's extractor reads that data only for a
built-in runtime, and reporters, fixers, renderers and the configuration machinery stay out of a plain run.

Observed in the real entry point with ``python -X importtime`` (as tests/test_startup.py does); no timing is
asserted, since a shared machine makes timings flaky, but what is imported is exact.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES
from tests.test_startup import imported

#: never on the path of a plain ``check`` of one file, clean or flagged
NEVER = (
    "pathlib",  # only for a configuration file found, or a file option given
    "dataclasses",  # the value types are NamedTuple classes
    "shmlint.extract.commandline",  # docker options and their fix target: other formats'
    "json",  # the tier data is a compiled module, and only reporters other than text write JSON
    "hashlib",
    "importlib.metadata",
    "jsonschema",
    "ruamel.yaml",
    "concurrent.futures",  # one file runs in this process
    "multiprocessing",
    "pathspec",  # only for exclude patterns beyond names
    "regex",  # only for configured patterns
    "shmlint.required_words",  # the built-in patterns' words are built data; only configured patterns need it
    "shmlint.build_data",
    "shmlint.extract.kserve",  # only a file that names a ServingRuntime, or an InferenceService's predictor
    "shmlint.config_problems",  # only a configuration file (the check runs without one)
    "shmlint.fix",
    "shmlint.render",
    "shmlint.validate",
    "shmlint.docs",
    "shmlint.policy",  # `shmlint policy` only
    "shmlint.baseline",
    "shmlint.report.json",
    "shmlint.report.sarif",
    "shmlint.report.junit",
    "shmlint.report.gitlab",
    "shmlint.report.github",
)
#: not for a file without workloads either: the tier model, its data and the rules
NOT_FOR_A_CLEAN_FILE = ("shmlint.need", "shmlint.data.shm_need", "shmlint.suppress")

CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n"


@functools.cache
def _started_with() -> frozenset[str]:
    """What this interpreter imports before any program runs (a ``.pth`` file in site-packages may load pathlib,
    as this machine's certificate hook does): not shmlint's doing, so not held against it."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True, check=True
    )
    return frozenset(imported(done.stderr))


def _loaded(shmlint_process, path: Path) -> tuple[int, set[str]]:
    """The modules the check imported beyond what the interpreter starts with."""
    done = shmlint_process("check", str(path), env={"PYTHONPROFILEIMPORTTIME": "1"}, cwd=path.parent)
    return done.returncode, imported(done.stderr) - _started_with()


def _among(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m in names or m.startswith(tuple(f"{n}." for n in names)))


@pytest.fixture
def flagged(tmp_path: Path) -> Path:
    """Outside the checkout, so no configuration file applies (as in a fresh repository)."""
    path = tmp_path / "flagged" / "pytorchjob.yaml"
    path.parent.mkdir()
    shutil.copy(FIXTURES / "k8s" / "SHM001-flow-style.yaml", path)
    return path


def test_a_clean_file_loads_neither_the_tier_model_nor_anything_heavy(shmlint_process, tmp_path: Path) -> None:
    clean = tmp_path / "configmap.yaml"
    clean.write_text(CLEAN, encoding="utf-8")
    code, modules = _loaded(shmlint_process, clean)
    assert code == 0
    assert "shmlint.engine" in modules  # the observation works
    assert not _among(modules, NEVER + NOT_FOR_A_CLEAN_FILE)


def test_a_flagged_file_reads_the_compiled_tier_data_and_nothing_heavy(shmlint_process, flagged: Path) -> None:
    code, modules = _loaded(shmlint_process, flagged)
    assert code == 1
    assert {"shmlint.need", "shmlint.data.shm_need", "shmlint.rules.registry"} <= modules  # the control
    assert not _among(modules, NEVER)
    assert "shmlint.suppress" not in modules  # no comment, annotation or per-file-ignore can apply here


#: a GPU container whose software nothing names: its SHM001 is undecided, counted in the summary and never listed
UNDECIDED = """apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
    - name: main
      image: registry.example/team/app:1
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def test_a_finding_held_to_info_parses_no_catalog_entry_and_loads_no_fixer(shmlint_process, tmp_path: Path) -> None:
    """Its severity is info whatever the catalog says (nothing is below info), and it is neither listed nor fixed:
    the rule's catalog entry is not parsed and no fixer is loaded to vet its fix."""
    path = tmp_path / "undecided" / "train.yaml"
    path.parent.mkdir()
    path.write_text(UNDECIDED, encoding="utf-8")
    code, modules = _loaded(shmlint_process, path)
    assert code == 0
    assert "shmlint.rules.registry" in modules  # the control: the rules ran
    assert not _among(modules, (*NEVER, "shmlint.catalog", "shmlint.edits"))
