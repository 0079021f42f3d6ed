"""The package's layering, held by its imports: every import (lazy ones inside functions included) points to the
same layer or a lower one, so the flow discover -> parse -> Workloads -> rules -> Findings -> report/fix runs one
way; and the structured identity that replaced parsing display names."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from shmlint.discover import Candidate, FileKind
from shmlint.engine import Engine
from shmlint.model import WorkloadFormat, WorkloadId
from tests.support import ROOT

PACKAGE = ROOT / "shmlint"

#: lowest first; a unit is a top-level module or subpackage of shmlint
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"named_tuple", "lazy_regex", "required_words", "data", "numbers", "visible"}),
    frozenset(
        {
            "shmlint",
            "severity",
            "source",
            "sizes",
            "signals",
            "patterns",
            "configured_patterns",
            "model",
            "results",
            "infile",
            "git_index",
        }
    ),
    # discover and what a format is (format_descriptor; file_formats, the one place that says what a file is)
    # name the parsers' node types in the signatures of the formats' readers
    frozenset(
        {
            "discover",
            "format_descriptor",
            "file_formats",
            "settings",
            "prefilter",
            "parsers",
            "runtime",
            "catalog",
            "catalog_files",
            "effective",
            "dataloader",
            "need",
            "sizing",
        }
    ),
    frozenset({"containers"}),
    frozenset({"extract", "edits", "rules", "hints", "suppress", "project", "formats"}),
    frozenset({"engine"}),
    frozenset(
        {
            "render",
            "runner",
            "fix",
            "outfile",
            "baseline",
            "report",
            "validate",
            "parallel",
            "config",
            "config_error",
            "config_problems",
            "session",
            "text_input",
            "cli_options",
        }
    ),
    frozenset({"docs", "cli", "__main__", "server", "github_action", "build_data", "policy", "scaffold"}),
)


def _layer(unit: str) -> int:
    return next(index for index, units in enumerate(LAYERS) if unit in units)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "shmlint":
            names = [f"shmlint.{alias.name}" for alias in node.names] if node.module == "shmlint" else [node.module]
            found.update(names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "shmlint")
    return found


def _modules() -> list[tuple[str, Path]]:
    result = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        result.append((".".join(part for part in relative.parts if part != "__init__"), path))
    return result


def test_every_unit_has_a_layer() -> None:
    units = {_unit(module) for module, _ in _modules()}
    placed = set().union(*LAYERS)
    assert units <= placed, f"give these a layer in LAYERS: {sorted(units - placed)}"


@pytest.mark.parametrize(("module", "path"), _modules(), ids=[module for module, _ in _modules()])
def test_imports_point_down_the_layers(module: str, path: Path) -> None:
    own = _layer(_unit(module))
    upward = sorted(
        target for target in _imports(path) if _unit(target) in set().union(*LAYERS) and _layer(_unit(target)) > own
    )
    assert not upward, f"{module} (layer {own}) imports from a higher layer: {upward}"


#: calls that look at the disk: the formats and extractors ask the run's ProjectIndex (``ProjectFiles``) instead
_DISK_CALLS = frozenset(
    {"isfile", "isdir", "exists", "lexists", "islink", "getsize", "listdir", "scandir", "realpath", "stat", "lstat"}
    | {"read_text", "read_bytes", "iterdir", "glob", "rglob", "is_file", "is_dir", "is_symlink", "chart_root"}
)
_READERS = ("formats", "extract")


def _disk_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            walk = isinstance(func, ast.Attribute) and func.attr == "walk" and ast.unparse(func.value) == "os"
            if name in _DISK_CALLS or name == "open" or walk:
                found.append(f"line {node.lineno}: {ast.unparse(func)}()")
        elif isinstance(node, ast.ImportFrom):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in _DISK_CALLS]
    return found


@pytest.mark.parametrize(
    ("module", "path"),
    [(m, p) for m, p in _modules() if _unit(m) in _READERS],
    ids=[m for m, _ in _modules() if _unit(m) in _READERS],
)
def test_formats_and_extractors_never_touch_the_disk(module: str, path: Path) -> None:
    """The files beside a checked one (compose overrides, ``extends``, ``-f`` sets, a dev container, a Helm chart)
    come from the run's ProjectIndex, bounded, lazy and inside the repository: never an ``open`` or a probe here."""
    assert _disk_calls(path) == [], f"{module} looks at the disk: ask ProjectFiles (shmlint/project/index.py)"


def test_the_disk_check_sees_a_probe(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom x import chart_root\nos.path.isfile('a')\nopen('b')\nos.walk('.')\n")
    assert [line.split(":")[0] for line in _disk_calls(probe)] == ["line 2", "line 3", "line 4", "line 5"]


def test_engine_stays_small() -> None:
    assert len((PACKAGE / "engine.py").read_text(encoding="utf-8").splitlines()) < 200


COMMANDS = (
    "docker run --gpus all pytorch/pytorch python train.py\n\ndocker run --gpus all pytorch/pytorch python train.py\n"
)


def test_workload_identity_is_data_and_results_pickle(tmp_path: Path, engine: Engine) -> None:
    """Two identical command lines differ by occurrence only; a checked file's workloads and targets are plain
    data that cross process boundaries (no parser nodes)."""
    script = tmp_path / "train.sh"
    script.write_text(COMMANDS, encoding="utf-8")
    result = engine.check_candidate(Candidate(script, FileKind.SHELL, True))
    assert [w.id for w in result.workloads] == [
        WorkloadId(WorkloadFormat.COMMAND, "docker run", occurrence=0),
        WorkloadId(WorkloadFormat.COMMAND, "docker run", occurrence=1),
    ]
    assert [w.name for w in result.workloads] == ["docker run (line 1)", "docker run (line 3)"]
    restored = pickle.loads(pickle.dumps(result.slim()))
    assert restored.findings == result.findings and all(f.workload.target for f in restored.findings)


#: fix targets that are no single format's: any format's target inside a documentation code block, and where
#: every format that writes docker options (a command line, runArgs, CI options, units, Ray) adds one
SHARED_TARGETS = {("model.py", "BlockTarget"), ("extract/commandline.py", "CommandTarget")}


def test_fix_targets_live_with_their_formats() -> None:
    """A format's fix target is in its own ``formats/<name>/target.py``: a new format adds none to a shared module."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # (``project.launchers.Target`` is the program a command runs, not where a fix writes)
            if isinstance(node, ast.ClassDef) and node.name.endswith("Target") and node.name != "Target":
                found.add((path.relative_to(PACKAGE).as_posix(), node.name))
    assert found >= SHARED_TARGETS  # the scan sees them
    stray = sorted(
        (p, n) for p, n in found - SHARED_TARGETS if not (p.startswith("formats/") and p.endswith("/target.py"))
    )
    assert not stray, f"fix targets outside their format's target.py: {stray}"


@pytest.mark.parametrize("workload_format", list(WorkloadFormat))
def test_workload_display_follows_its_fields_not_its_format(workload_format: WorkloadFormat) -> None:
    """A format adds no branch to the model: what an identity names decides how it is shown."""
    contained = WorkloadId(workload_format, "Deployment", "trainer", "Worker", "container", "main")
    assert contained.display(7) == 'Deployment/trainer Worker, container "main"'
    assert contained._replace(container="").display(7) == "Deployment/trainer Worker, container"
    assert WorkloadId(workload_format, "service", "web").display(7) == 'service "web"'
    assert WorkloadId(workload_format, "docker run").display(7) == "docker run (line 7)"


def test_exit_code_does_not_depend_on_argument_order(tmp_path: Path, invoke) -> None:
    """Each folder's own fail-on decides for its files: with a (fail-on error) and b (fail-on info) over the same
    info finding, ``check a b`` and ``check b a`` both fail, because b's finding reaches b's threshold."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n"
        "    - {name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}\n  containers:\n"
        "    - name: main\n      image: pytorch/pytorch\n      resources: {limits: {nvidia.com/gpu: 2, memory: 64Gi}}\n"
        "      volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n      env: [{name: NCCL_SHM_DISABLE, value: '1'}]\n"
    )
    for name, fail_on in (("a", "error"), ("b", "info")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / ".shmlint.yaml").write_text(f"fail-on: {fail_on}\n", encoding="utf-8")
        (folder / "pod.yaml").write_text(pod, encoding="utf-8")
    forward = invoke("check", str(tmp_path / "a"), str(tmp_path / "b"))
    backward = invoke("check", str(tmp_path / "b"), str(tmp_path / "a"))
    assert "SHM012" in forward.output
    assert forward.exit_code == backward.exit_code == 1, (forward.output, backward.output)
    alone = invoke("check", str(tmp_path / "a"))
    assert alone.exit_code == 0, alone.output
