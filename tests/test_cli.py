"""The command line as a user meets it: exit codes, options, configuration, suppressions, stdin.

In-process through ``invoke`` (click's CliRunner); the ``smoke`` tests run the real ``python -m shmlint`` entry point.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import shmlint
from shmlint.catalog import load_catalog
from shmlint.cli import files_as_paths
from tests.support import FIXTURES, run_shmlint

GPU_POD = (FIXTURES / "k8s" / "SHM001-crlf.yaml").read_bytes().decode().replace("\r\n", "\n")
SMALL_SHM = (FIXTURES / "k8s" / "SHM005-too-small.yaml").read_text()


def test_smoke_version_and_rules(shmlint_process) -> None:
    assert shmlint_process("--version").stdout == f"shmlint, version {shmlint.__version__}\n"
    rules = shmlint_process("rules").stdout.splitlines()
    assert [line.split()[0] for line in rules] == list(load_catalog())


def test_explain_by_code_and_slug(invoke) -> None:
    by_code, by_slug = invoke("explain", "SHM001"), invoke("explain", "missing-shm")
    assert by_code.exit_code == 0 and by_code.stdout == by_slug.stdout
    assert "# SHM001 missing-shm" in by_code.stdout and "```" in by_code.stdout
    assert invoke("explain", "SHM999").exit_code == 2


def test_exit_codes(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    flagged = invoke("check", str(tmp_path))
    assert flagged.exit_code == 1
    assert f"{tmp_path / 'pod.yaml'}:7:5: SHM001 [error]" in flagged.stdout
    assert invoke("check", str(tmp_path), "--exit-zero").exit_code == 0
    assert invoke("check", str(tmp_path), "--ignore", "missing-shm").exit_code == 0
    assert invoke("check", str(tmp_path), "--select", "SHM999").exit_code == 2
    assert invoke("check", str(tmp_path / "missing.yaml")).exit_code == 2  # a usage error, before any work


def test_info_findings_pass_by_default(tmp_path: Path, invoke) -> None:
    pod = (FIXTURES / "k8s" / "SHM012-nccl-disabled.yaml").read_text()
    (tmp_path / "pod.yaml").write_text(pod)
    assert invoke("check", str(tmp_path)).exit_code == 0
    assert invoke("check", str(tmp_path), "--fail-on", "info").exit_code == 1


def test_json_output(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    result = invoke("check", "--format", "json", str(tmp_path))
    document = json.loads(result.stdout)
    assert document["schema_version"] == 1
    (finding,) = document["findings"]
    assert finding["code"] == "SHM001" and finding["slug"] == "missing-shm" and finding["fixable"] is True
    assert (finding["line"], finding["column"]) == (7, 5) and finding["end_line"] >= finding["line"]


def test_colour_only_on_a_terminal(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    assert "\x1b[" not in invoke("check", str(tmp_path), env={"NO_COLOR": None}).stdout


def test_smoke_stdin_uses_the_given_name(shmlint_process) -> None:
    result = shmlint_process("check", "-", "--stdin-filename", "deploy/pod.yaml", input=GPU_POD)
    assert result.returncode == 1 and result.stdout.startswith("deploy/pod.yaml:7:5: SHM001")
    markdown = "```sh\ndocker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n```\n"
    result = shmlint_process("check", "-", "--stdin-filename", "README.md", input=markdown)
    assert "README.md:2:1: SHM001" in result.stdout


def test_configuration_nearest_wins_and_errors_exit_2(tmp_path: Path, invoke) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "pod.yaml").write_text(SMALL_SHM)
    assert invoke("check", str(tmp_path)).exit_code == 1
    (tmp_path / ".shmlint.yaml").write_text("min-shm-size: 128Mi\n")
    assert invoke("check", str(tmp_path)).exit_code == 0
    (tmp_path / "team" / "pyproject.toml").write_text('[tool.shmlint]\nmin-shm-size = "2Gi"\n')
    assert invoke("check", str(tmp_path / "team")).exit_code == 1  # the nearer file wins
    (tmp_path / "team" / "pyproject.toml").write_text('[tool.shmlint]\nseverity = {SHM005 = "fatal"}\n')
    broken = invoke("check", str(tmp_path / "team"))
    assert broken.exit_code == 2 and "severity.SHM005" in broken.stderr and "Traceback" not in broken.stderr
    described = invoke("config", str(tmp_path), "--config", str(tmp_path / ".shmlint.yaml"))
    assert 'min-shm-size: "128Mi"' in described.stdout and str(tmp_path / ".shmlint.yaml") in described.stdout


def test_per_file_ignores_and_extra_signals(tmp_path: Path, invoke) -> None:
    """The pod's software is not known (undecided): ``undecided: strict`` makes its SHM001 fail the run."""
    (tmp_path / "pod.yaml").write_text(GPU_POD.replace("nvidia.com/gpu", "example.com/accelerator"))
    assert invoke("check", "--undecided=strict", str(tmp_path)).exit_code == 0
    (tmp_path / ".shmlint.yaml").write_text("gpu-resources: [example.com/*]\n")
    assert invoke("check", "--undecided=strict", str(tmp_path)).exit_code == 1
    (tmp_path / ".shmlint.yaml").write_text(
        "gpu-resources: [example.com/*]\nper-file-ignores: {'pod.yaml': [SHM001]}\n"
    )
    assert invoke("check", "--undecided=strict", str(tmp_path)).exit_code == 0


@pytest.mark.parametrize(
    "text",
    [
        GPU_POD.replace("  - name: gpu", "  # shmlint: ignore[SHM001]\n  - name: gpu"),
        GPU_POD.replace("  - name: gpu", "  - name: gpu  # shmlint: ignore[missing-shm]"),
        "# shmlint: ignore-file\n" + GPU_POD,
    ],
    ids=["line-above", "same-line-slug", "ignore-file"],
)
def test_suppression_comments(tmp_path: Path, text: str, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(text)
    result = invoke("check", str(tmp_path), "--report-unused-suppressions")
    assert result.exit_code == 0, result.stdout


def test_unused_suppressions_are_reported(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD.replace("kind: Pod", "kind: Pod  # shmlint: ignore[SHM007]"))
    plain = invoke("check", str(tmp_path), "--ignore", "SHM001")
    assert plain.exit_code == 0
    reported = invoke("check", str(tmp_path), "--ignore", "SHM001", "--report-unused-suppressions")
    assert reported.exit_code == 1 and "pod.yaml:2:12: unused suppression" in reported.stdout


def test_markdown_block_suppression(tmp_path: Path, invoke) -> None:
    block = "```sh\ndocker run --gpus all \\\n  pytorch/pytorch torchrun --nproc_per_node=2 train.py\n```\n"
    (tmp_path / "README.md").write_text("# Train\n\n<!-- shmlint: ignore[SHM001] -->\n" + block + "\n" + block)
    result = invoke("check", str(tmp_path))
    assert result.stdout.count("SHM001") == 1 and "README.md:10:1: SHM001" in result.stdout


def test_annotation_on_the_pod_template_suppresses(tmp_path: Path, invoke) -> None:
    deployment = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text()
    annotated = deployment.replace(
        "      labels:\n        app: trainer\n    spec:",
        "      labels:\n        app: trainer\n      annotations:\n        shmlint.io/ignore: SHM001\n    spec:",
    )
    assert annotated != deployment
    (tmp_path / "d.yaml").write_text(annotated)
    assert invoke("check", str(tmp_path)).exit_code == 0


def test_a_file_option_says_what_is_wrong_with_the_file(tmp_path: Path, invoke) -> None:
    """A missing configuration file, or a folder where a report file goes, is a usage error naming the option."""
    missing = invoke("check", str(tmp_path), "--config", str(tmp_path / "none.yaml"))
    assert missing.exit_code == 2 and "--config" in missing.stderr and "does not exist" in missing.stderr
    folder = invoke("check", str(tmp_path), "--output", str(tmp_path))
    assert folder.exit_code == 2 and "--output" in folder.stderr and "is a directory" in folder.stderr


@pytest.mark.parametrize("command", [(), ("check",), ("fix",), ("config",), ("rules",), ("explain",), ("size",)])
def test_h_is_help_for_every_command(command: tuple[str, ...], invoke) -> None:
    short, long = invoke(*command, "-h"), invoke(*command, "--help")
    assert short.exit_code == long.exit_code == 0
    assert short.stdout == long.stdout and "Usage: " in short.stdout and "-h, --help" in short.stdout


@pytest.mark.parametrize("name", ["--write-baseline=x.json", "--ignore=SHM001", "--exit-zero"])
def test_a_file_named_like_an_option_is_a_path(tmp_path: Path, name: str) -> None:
    """pre-commit appends the changed files' names to the hook's command: a pull request's file named
    ``--ignore=SHM001`` must not turn the gate off. Read as a path, it is one more file checked."""
    (tmp_path / "run.sh").write_text(
        "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    )
    (tmp_path / name).write_text("{}\n")
    done = run_shmlint("check", "--quiet", "--force-exclude", "run.sh", name, cwd=tmp_path)
    assert done.returncode == 1 and "run.sh:1:1: SHM001" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "x.json").exists()
    assert files_as_paths(["check", "--select", "SHM001", "run.sh"]) == ["check", "--select", "SHM001", "run.sh"]


@pytest.mark.parametrize("planted", ["--force-exclude", "--write", "--exit-zero", "--ignore=SHM001", "--config"])
def test_the_hooks_own_options_and_the_users_args_hold_against_planted_file_names(
    tmp_path: Path, planted: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's entry ends with ``--hook-files``: its own options before it stay options even when a file of the
    same name exists, the user's ``args`` after it stay options, and every file name is a path."""
    (tmp_path / ".shmlint.yaml").write_text('extend-exclude: ["vendor/"]\n')
    (tmp_path / "vendor").mkdir()
    vendored = "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    (tmp_path / "vendor" / "run.sh").write_text(vendored)
    (tmp_path / "run.sh").write_text(vendored)
    (tmp_path / planted).write_text("{}\n")
    argv = ["fix", "--write", "--force-exclude", "--hook-files", "--fail-on", "error"]
    argv += sorted(["run.sh", "vendor/run.sh", planted])
    monkeypatch.chdir(tmp_path)
    assert files_as_paths(argv)[:6] == ["fix", "--write", "--force-exclude", "--fail-on", "error", "--"]
    done = run_shmlint(*argv, cwd=tmp_path)
    assert (tmp_path / "vendor" / "run.sh").read_text() == vendored, done.stdout + done.stderr
    assert "--shm-size=8g" in (tmp_path / "run.sh").read_text(), done.stdout + done.stderr


@pytest.mark.parametrize("output", ["json", "sarif", "github", "junit", "gitlab"])
def test_an_unused_suppression_that_fails_the_run_is_said_in_every_format(tmp_path: Path, output: str) -> None:
    """``--report-unused-suppressions`` fails the run on one: a machine format has no place for it, so it is said on
    stderr (a run that fails with an empty report is a silent failure)."""
    (tmp_path / "b.sh").write_text("echo hi # shmlint: ignore[SHM001]\n")
    done = run_shmlint("check", "--report-unused-suppressions", "--format", output, "b.sh", cwd=tmp_path)
    assert done.returncode == 1 and "b.sh:1:9: unused suppression: ignore[SHM001]" in done.stderr, done.stderr


def test_a_file_reached_twice_is_checked_once(tmp_path: Path) -> None:
    """Named twice, spelled two ways, or named and inside a named folder: one finding, as ``fix`` writes it once."""
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "run.sh").write_text(
        "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    )
    done = run_shmlint("check", "ex/run.sh", "./ex/run.sh", "ex", str(tmp_path / "ex"), cwd=tmp_path)
    assert done.stdout.count("SHM001") == 1 and "in 1 of 1 file(s)" in done.stdout, done.stdout


def test_standard_input_takes_the_named_files_configuration_and_exclusions(tmp_path: Path) -> None:
    """``--stdin-filename sub/run.sh`` reads ``sub``'s configuration, and ``--force-exclude`` leaves out a name the
    configuration excludes, as the path form does (an editor's buffer, a hook's staged text)."""
    script = "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    for folder in ("sub", "gen"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.sh").write_text(script)
    (tmp_path / "sub" / ".shmlint.yaml").write_text("ignore: [SHM001]\n")
    (tmp_path / ".shmlint.yaml").write_text('extend-exclude: ["gen/"]\n')
    for args in (("--stdin-filename", "sub/run.sh"), ("--force-exclude", "--stdin-filename", "gen/run.sh")):
        done = run_shmlint("check", *args, "-", cwd=tmp_path, input=script)
        assert done.returncode == 0 and "SHM001" not in done.stdout, done.stdout
    done = run_shmlint("check", "--stdin-filename", "other.sh", "-", cwd=tmp_path, input=script)
    assert done.returncode == 1 and "SHM001" in done.stdout
    done = run_shmlint("fix", "--force-exclude", "--stdin-filename", "gen/run.sh", "-", cwd=tmp_path, input=script)
    assert done.returncode == 0 and done.stdout == script  # printed back as it came


def test_output_dash_is_standard_output_and_config_of_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text(
        "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    )
    done = run_shmlint("check", "--output", "-", "--format", "json", "run.sh", cwd=tmp_path)
    assert json.loads(done.stdout)["findings"] and not (tmp_path / "-").exists()
    run_shmlint("check", "--output", "./-", "--format", "json", "run.sh", cwd=tmp_path)
    assert json.loads((tmp_path / "-").read_text())["findings"]  # ``./-`` names a file
    assert run_shmlint("config", "nope", cwd=tmp_path).returncode == 2


def test_a_suppression_that_names_no_rule_says_which(tmp_path: Path) -> None:
    """A typo in ``ignore[SHM999]`` hides nothing: the unused-suppression report shows it and says it names no rule
    (it showed ``ignore[]``)."""
    (tmp_path / "u.sh").write_text("echo hi # shmlint: ignore[SHM999,SHM001]\n")
    done = run_shmlint("check", "--report-unused-suppressions", "u.sh", cwd=tmp_path)
    assert "ignore[SHM001,SHM999] matched nothing; SHM999 names no rule" in done.stdout, done.stdout
    (tmp_path / "u.sh").write_text("echo hi # shmlint: ignore[SHM999]\n")
    done = run_shmlint("check", "--report-unused-suppressions", "u.sh", cwd=tmp_path)
    assert "ignore[SHM999] matched nothing; SHM999 names no rule" in done.stdout, done.stdout


def test_a_file_two_configurations_reach_is_checked_and_fixed_once(tmp_path: Path) -> None:
    """``ex`` (no configuration) and ``ex/sub/run.sh`` (its folder's, ``fix-size: 16g``) both reach the script: one
    finding, one diff."""
    (tmp_path / "ex" / "sub").mkdir(parents=True)
    (tmp_path / "ex" / "sub" / "run.sh").write_text(
        "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    )
    (tmp_path / "ex" / "sub" / ".shmlint.yaml").write_text("fix-size: 16g\n")
    assert run_shmlint("check", "ex", "ex/sub/run.sh", cwd=tmp_path).stdout.count("SHM001") == 1
    assert run_shmlint("fix", "ex", "ex/sub/run.sh", cwd=tmp_path).stdout.count("+++ ") == 1
