"""The GitHub Action: ``action.yml``'s structure, and its step script run here as the runner would run it, with fake
``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` files and the inputs as environment variables."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from shmlint.github_action import MAX_ROWS, cell, paths_input, summary
from tests.support import FIXTURES, ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")
POD = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text(encoding="utf-8")


def test_action_yml_is_a_complete_composite_action() -> None:
    assert {"name", "description", "inputs", "outputs", "runs"} <= ACTION.keys()
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"paths", "format", "fail-on", "config", "sarif", "setup-python", "python-version"}
    for name, spec in ACTION["inputs"].items():
        assert spec["description"] and "default" in spec, name
    for step in STEPS:
        assert "run" in step or "uses" in step
        if "run" in step:
            assert step["shell"] == "bash"


def test_every_input_reaches_a_step_through_env_only() -> None:
    environment = " ".join(
        str(value) for step in STEPS for key in ("env", "with") for value in step.get(key, {}).values()
    )
    conditions = " ".join(str(step.get("if", "")) for step in STEPS)
    for name in ACTION["inputs"]:
        assert f"inputs.{name} " in f"{environment} {conditions}".replace("}}", " }}"), name
    for step in STEPS:  # no expression at all in script text: nothing a workflow passes can become shell code
        assert "run" not in step or not EXPRESSION.search(step["run"]), step["name"]


def test_third_party_actions_are_pinned_by_commit() -> None:
    uses = [step["uses"] for step in STEPS if "uses" in step]
    assert uses and all(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", use) for use in uses), uses
    assert any(use.startswith("github/codeql-action/upload-sarif@") for use in uses)


def test_outputs_are_what_the_check_step_writes() -> None:
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.check.outputs.{name} }}}}"
    check = next(step for step in STEPS if step.get("id") == "check")
    assert "shmlint.github_action" in check["run"]


def test_the_action_installs_its_own_checkout() -> None:
    install = next(step for step in STEPS if step.get("id") == "install")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '"$ACTION_PATH"' in install["run"]


def test_the_action_sets_up_its_own_python_unless_told_not_to() -> None:
    """The runner's Python does not matter (ubuntu-22.04 has 3.10): setup-python installs one for shmlint alone."""
    setup = next(step for step in STEPS if step.get("id") == "python")
    assert setup["uses"].startswith("actions/setup-python@") and setup["if"] == "${{ inputs.setup-python != 'false' }}"
    assert setup["with"] == {"python-version": "${{ inputs.python-version }}", "update-environment": False}
    assert ACTION["inputs"]["setup-python"]["default"] == "true"
    assert re.fullmatch(r"3\.(1[1-9]|[2-9]\d)", ACTION["inputs"]["python-version"]["default"])
    assert "3.11 or newer" in ACTION["inputs"]["python-version"]["description"]
    install = next(step for step in STEPS if step.get("id") == "install")
    assert install["env"]["BASE_PYTHON"] == "${{ steps.python.outputs.python-path }}"


def test_a_python_older_than_3_11_is_a_clear_error(tmp_path: Path) -> None:
    """With setup-python off, the install step refuses an old Python with an error annotation, before pip."""
    old = tmp_path / "python3.10"
    old.write_text('#!/bin/sh\ncase "$1" in --version) echo "Python 3.10.12";; *) exit 1;; esac\n')
    old.chmod(0o755)
    install = next(step for step in STEPS if step.get("id") == "install")
    env = {"PATH": os.environ["PATH"], "BASE_PYTHON": str(old), "VENV": str(tmp_path / "venv"), "ACTION_PATH": "."}
    done = subprocess.run(["bash", "-e", "-c", install["run"]], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and not (tmp_path / "venv").exists()
    assert "::error title=shmlint::shmlint needs Python 3.11 or newer, found Python 3.10.12" in done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return tmp_path / "repo"


def run_step(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """The check step as the runner runs it in the checkout ``tmp_path / "repo"``; returns the process, the outputs
    and what it added to the summary."""
    runner = tmp_path / "runner"
    output, step_summary, temp = runner / "output", runner / "summary.md", runner / "temp"
    temp.mkdir(parents=True, exist_ok=True)
    output.write_text("")
    step_summary.write_text("earlier step\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SHMLINT_", "GITHUB_"))}
    env |= {f"SHMLINT_{key.upper()}": value for key, value in inputs.items()}
    env |= {
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(step_summary),
        "RUNNER_TEMP": str(temp),
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "shmlint.github_action"],
        cwd=tmp_path / "repo",
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done, parse_outputs(output.read_text()), step_summary.read_text().removeprefix("earlier step\n")


def parse_outputs(text: str) -> dict[str, str]:
    """``name<<DELIMITER`` ... ``DELIMITER`` blocks, as the runner reads them."""
    outputs, lines = {}, iter(text.splitlines())
    for line in lines:
        name, delimiter = line.split("<<", 1)
        values = []
        for value in lines:
            if value == delimiter:
                break
            values.append(value)
        outputs[name] = "\n".join(values)
    return outputs


def test_findings_become_annotations_outputs_a_table_and_a_failure(tmp_path: Path, repo: Path) -> None:
    (repo / "k8s").mkdir()
    (repo / "k8s" / "trainer.yaml").write_text(POD)
    (repo / "k8s" / "run.sh").write_text("docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n")
    done, outputs, table = run_step(tmp_path, paths="k8s")
    assert done.returncode == 1, done.stderr
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 2 and all(a.startswith(("::error ", "::warning ")) for a in annotations)
    assert outputs == {"findings": "2", "exit-code": "1", "sarif-file": ""}
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert rows[0] == "| Severity | Rule | Location | Message | Fix |"
    assert len(rows) == 2 + 2  # the header, its separator, a row per finding
    assert "k8s/trainer.yaml:17:11" in table and "k8s/run.sh:1:1" in table
    assert table.startswith("### shmlint: failed")


def test_sarif_instead_of_annotations(tmp_path: Path, repo: Path) -> None:
    (repo / "trainer.yaml").write_text(POD)
    done, outputs, table = run_step(tmp_path, paths="trainer.yaml", sarif="true", format="text")
    assert done.returncode == 1
    assert "::error" not in done.stdout and "SHM001" not in done.stdout  # code scanning shows them
    sarif = json.loads(Path(outputs["sarif-file"]).read_text())
    assert sarif["version"] == "2.1.0"
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["SHM001"]
    assert Path(outputs["sarif-file"]).parent == tmp_path / "runner" / "temp"
    assert outputs["findings"] == "1" and "| error | SHM001 missing-shm |" in table


def test_a_usage_error_is_said_once_and_leaves_no_sarif_to_upload(tmp_path: Path, repo: Path) -> None:
    """A red step from an error (nothing checked) uploads no SARIF: an empty log would tell code scanning that every
    open alert is fixed. A log an earlier run left in the runner's temporary folder is not taken for this one's."""
    stale = tmp_path / "runner" / "temp" / "shmlint.sarif"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text('{"version": "2.1.0", "runs": []}')
    done, outputs, _ = run_step(tmp_path, paths="missing.yaml", sarif="true")
    assert done.returncode == 2 and outputs["exit-code"] == "2" and outputs["sarif-file"] == ""
    assert done.stderr.count("no such file or folder: 'missing.yaml'") == 1, done.stderr
    assert "no SARIF uploaded" in done.stderr and not stale.exists()
    (repo / "trainer.yaml").write_text(POD)
    done, outputs, _ = run_step(tmp_path, paths="trainer.yaml missing.yaml", format="text")
    assert done.returncode == 2 and done.stderr.count("no such file or folder") == 1, done.stderr


def test_a_clean_tree_passes(tmp_path: Path, repo: Path) -> None:
    (repo / "configmap.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    done, outputs, table = run_step(tmp_path, paths="")
    assert done.returncode == 0
    assert outputs["findings"] == "0" and outputs["exit-code"] == "0"
    assert table == "### shmlint: passed\n\nNo findings in 1 file(s).\n"


@pytest.mark.slow
def test_fail_on_and_config_are_passed_on(tmp_path: Path, repo: Path) -> None:
    (repo / "run.sh").write_text("docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n")
    (repo / ".shmlint.yaml").write_text("severity: {missing-shm: warning}\n")
    done, outputs, _ = run_step(tmp_path, paths="run.sh")
    assert (done.returncode, outputs["findings"]) == (1, "1")  # a warning fails by default
    done, outputs, _ = run_step(tmp_path, paths="run.sh", fail_on="error")
    assert (done.returncode, outputs["findings"]) == (0, "1")
    (repo / "other.yaml").write_text("ignore: [missing-shm]\n")
    done, outputs, _ = run_step(tmp_path, paths="run.sh", config="other.yaml")
    assert (done.returncode, outputs["findings"]) == (0, "0")


def test_inputs_cannot_inject_options_or_commands(tmp_path: Path, repo: Path) -> None:
    (repo / "--format=text").write_text(POD)  # a path that looks like an option is a path
    done, outputs, _ = run_step(tmp_path, paths="--format=text")
    assert done.returncode == 1 and "::error " in done.stdout
    assert outputs["findings"] == "1"
    done, outputs, _ = run_step(tmp_path, paths='$(touch pwned) `touch pwned2`; touch "pwned3"')
    assert done.returncode == 2 and "no such file" in done.stderr
    assert not list(repo.glob("pwned*"))


def test_a_bad_sarif_input_is_an_error_annotation(tmp_path: Path, repo: Path) -> None:
    done, outputs, _ = run_step(tmp_path, sarif="yes")
    assert done.returncode == 2
    assert done.stderr.startswith("::error title=shmlint::input 'sarif' must be 'true' or 'false'")
    assert outputs == {}


def test_cells_cannot_break_the_table_or_add_markup() -> None:
    text = cell("a|b\nc\x1b[2J <img src=x> [link](http://x) *em* `code` C:\\dir")
    assert "\n" not in text and "\x1b" not in text
    assert re.search(r"(?<!\\)\|", text) is None  # every pipe escaped
    assert "<" not in text and "](" not in text.replace("\\](", "")
    assert "\\*em\\*" in text and "\\`code\\`" in text


def test_a_container_name_with_a_pipe_stays_in_its_cell() -> None:
    finding = {
        "code": "SHM001",
        "slug": "missing-shm",
        "severity": "error",
        "message": 'container "a|b" has no /dev/shm',
        "path": "x|y.yaml",
        "line": 1,
        "column": 1,
        "fixable": False,
        "fix": None,
    }
    [row] = [line for line in summary({"findings": [finding]}, 1).splitlines() if line.startswith("| error")]
    assert len(re.split(r"(?<!\\)\|", row)) == 5 + 2


def test_the_table_is_bounded() -> None:
    finding = {"code": "SHM001", "slug": "s", "severity": "error", "message": "m", "path": "p", "line": 1, "column": 1}
    text = summary({"findings": [finding] * (MAX_ROWS + 7)}, 1)
    assert text.count("| error |") == MAX_ROWS and "and 7 more" in text


@pytest.mark.parametrize(
    ("value", "paths"),
    [("", ["."]), ("k8s compose.yaml", ["k8s", "compose.yaml"]), ("a b/x.yaml\nc\n\n", ["a b/x.yaml", "c"])],
)
def test_paths_input(value: str, paths: list[str]) -> None:
    assert paths_input(value) == paths


def test_the_readme_documents_every_input_and_uses_only_real_ones() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**GitHub Action**") : readme.index("Without the action")]
    workflow = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    [step] = [step for step in workflow["jobs"]["shmlint"]["steps"] if step.get("uses", "").startswith("shmlint/")]
    assert set(step["with"]) <= set(ACTION["inputs"])
    for name in ACTION["inputs"]:
        assert f"| `{name}` |" in section, name
    for name in ACTION["outputs"]:
        assert f"`{name}`" in section, name
