"""KServe InferenceServices are judged with the ServingRuntime they name (explicitly or by model format and
``autoSelect``), as KServe merges it; a runtime that is not among the checked files is a warning that says so,
and no fix is offered that would replace the runtime's /dev/shm (KServe merges volumes by name)."""

from __future__ import annotations

import shutil
from pathlib import Path

from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.severity import Severity
from tests.support import FIXTURES

PROJECT = FIXTURES / "kserve"
#: the runtime and the InferenceServices that name it (builtin-runtimes.yaml stands on its own)
FILES = [PROJECT / "runtime.yaml", PROJECT / "inferenceservices.yaml"]


def _by_workload(paths: list[Path]) -> dict[str, tuple[str, Severity, bool]]:
    report = check_paths(Settings(undecided="show"), paths)
    return {f.workload.id.name: (f.code, f.severity, f.fixable) for f in report.findings if f.workload}


def test_runtime_in_the_checked_files_provides_dev_shm() -> None:
    findings = _by_workload(FILES)
    assert "llama" not in findings  # runtime: vllm-runtime mounts a 16Gi Memory emptyDir
    assert "auto" not in findings  # huggingface is auto-selected by the same runtime
    assert findings["elsewhere"] == ("SHM001", Severity.INFO, False)  # undecided: the runtime is not known


def test_runtime_outside_the_checked_files_is_never_an_error_and_has_no_fix() -> None:
    findings = _by_workload([PROJECT / "inferenceservices.yaml"])
    assert set(findings) == {"llama", "elsewhere"}  # "auto" gets KServe's built-in huggingface runtime
    assert all(
        code == "SHM001" and severity <= Severity.WARNING and not fixable
        for code, severity, fixable in findings.values()
    )


def test_fix_never_shrinks_the_runtime_dev_shm(tmp_path: Path, invoke) -> None:
    """Regression: the fix used to add an 8Gi ``dshm`` volume to the InferenceService, which KServe merges over
    the runtime's 16Gi one."""
    project = tmp_path / "kserve"
    project.mkdir()
    for path in FILES:
        shutil.copyfile(path, project / path.name)
    before = {p.name: p.read_bytes() for p in project.iterdir()}
    for target in (project, project / "inferenceservices.yaml"):
        result = invoke("fix", "--write", "--unsafe-fixes", str(target))
        assert result.exit_code == 0, result.output
        assert {p.name: p.read_bytes() for p in project.iterdir()} == before


def test_unresolved_message_names_the_runtime() -> None:
    report = check_paths(Settings(undecided="show"), FILES)
    (finding,) = report.findings
    assert 'ServingRuntime "my-private-runtime"' in finding.detail and "not among the checked files" in finding.detail


def test_kserve_builtin_runtimes_are_known_data() -> None:
    """Without the runtime among the files, KServe's own runtimes decide: kserve-huggingfaceserver mounts a Memory
    emptyDir at /dev/shm (no finding), kserve-torchserve mounts none (judged as written)."""
    findings = _by_workload([PROJECT / "builtin-runtimes.yaml"])
    assert "hf" not in findings
    assert findings["torch"][0] == "SHM001" and findings["torch"][2]  # fixable: nothing of the runtime is replaced


def test_the_runners_mark_is_in_every_runtime_kind() -> None:
    """The runner skips files without ``RUNTIME_MARK`` before loading the KServe code: every kind must hold it."""
    from shmlint.extract.kserve import RUNTIME_KINDS
    from shmlint.runner import RUNTIME_MARK

    assert all(RUNTIME_MARK.decode() in kind for kind in RUNTIME_KINDS)


_RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: tgis-runtime
spec:
  supportedModelFormats:
    - name: pytorch
      autoSelect: true
  containers:
    - name: kserve-container
      image: quay.io/opendatahub/text-generation-inference:fast
      command: ["text-generation-launcher"]
      args: ["--model-name=/mnt/models/"]
"""
_SERVICE = """\
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
spec:
  predictor:
    model:
      modelFormat:
        name: pytorch
      {runtime}
      {command}
      resources:
        limits:
          nvidia.com/gpu: {gpus}
"""


def _service(tmp_path: Path, *, gpus: int, runtime: str = "runtime: tgis-runtime", command: str = "") -> dict:
    (tmp_path / "runtime.yaml").write_text(_RUNTIME)
    (tmp_path / "service.yaml").write_text(_SERVICE.format(name="s", runtime=runtime, command=command, gpus=gpus))
    report = check_paths(Settings(undecided="show"), [tmp_path])
    return {f.workload.id.name: f for f in report.findings if f.workload}


def test_a_predictor_runs_its_runtimes_software(tmp_path: Path) -> None:
    """Found (audit51b, topsail): a TGIS ServingRuntime served on 8 GPUs by the InferenceServices that name it was
    undecided, as the predictor, which names no image or command, was judged without the runtime's. KServe runs the
    runtime's container with the predictor's resources: TGI on 8 GPUs starts a shard a GPU over NCCL."""
    finding = _service(tmp_path, gpus=8)["s"]
    assert finding.severity is Severity.ERROR and '(its ServingRuntime "tgis-runtime")' in finding.message
    assert _service(tmp_path, gpus=1)["s"].severity is Severity.INFO  # one shard: undecided
    by_format = _service(tmp_path, gpus=8, runtime="")["s"]  # selected for its model format
    assert by_format.severity is Severity.ERROR
    own = _service(tmp_path, gpus=8, command='image: acme/server:1\n      command: ["python", "serve.py"]')["s"]
    assert own.severity is Severity.INFO and "text-generation" not in own.detail  # its own image and command run
