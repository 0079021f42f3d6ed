"""Dev containers, CI job containers and GitLab runners: the readers with positions (JSONC, TOML tables,
Groovy tokens), discovery by name, and what the extractors make of the options each format spells."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, discover, kind_for_name
from shmlint.engine import Engine
from shmlint.model import ShmKind, WorkloadFormat
from shmlint.parsers import jsonc
from shmlint.parsers.groovy import tokens
from shmlint.parsers.toml_tables import tables
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.job_container_proofs import plain

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def _strings(node: jsonc.JNode) -> list[jsonc.JString]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if isinstance(current, jsonc.JString):
            found.append(current)
        elif isinstance(current, jsonc.JArray):
            stack.extend(current.items)
        elif isinstance(current, jsonc.JObject):
            for key, value in current.members:
                found.append(key)
                stack.append(value)
    return found


def _jsonc(value: object, rng: st.DataObject) -> str:
    """``value`` written as JSONC: comments and trailing commas wherever the draw puts them."""
    if isinstance(value, list | dict):
        pairs = list(value.items()) if isinstance(value, dict) else [(None, item) for item in value]
        parts = []
        for key, item in pairs:
            comment = rng.draw(st.sampled_from(["", " // c\n", " /* c */ "]))
            head = f"{json.dumps(key)}:{comment}" if key is not None else comment
            parts.append(head + _jsonc(item, rng))
        trailing = "," if parts and rng.draw(st.booleans()) else ""
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        return opening + "\n, ".join(parts) + trailing + "\n" + closing
    return json.dumps(value)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.data())
def test_jsonc_reads_what_json_reads_with_comments_and_trailing_commas(value: object, data: st.DataObject) -> None:
    text = _jsonc(value, data)
    node = jsonc.parse(text)
    assert plain(node) == value
    for string in _strings(node):  # every string's offsets hold exactly its JSON spelling
        assert json.loads(text[string.start : string.end]) == string.value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]",:/*\\ \n01tfaeln-', max_size=60))
def test_jsonc_refuses_broken_text_with_its_own_error(text: str) -> None:
    try:
        jsonc.parse(text)
    except jsonc.JsoncError as exc:
        assert 0 <= exc.offset <= len(text)


def test_jsonc_nesting_is_bounded_by_memory_not_recursion() -> None:
    depth = 50_000
    node = jsonc.parse("[" * depth + "]" * depth)
    for _ in range(depth - 1):
        assert isinstance(node, jsonc.JArray)
        node = node.items[0]


def test_jsonc_keeps_the_last_of_repeated_keys_and_rejects_single_quotes() -> None:
    root = jsonc.parse('{"runArgs": ["--gpus", "all"], "runArgs": []}')
    assert isinstance(root, jsonc.JObject) and root.get("runArgs") == jsonc.JArray((), 42, 44)
    with pytest.raises(jsonc.JsoncError):
        jsonc.parse("{'runArgs': []}")  # JSON5, which the dev container CLI does not read


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("devcontainer.json", FileKind.DEVCONTAINER),
        (".devcontainer.json", FileKind.DEVCONTAINER),
        ("gpu.devcontainer.json", FileKind.DEVCONTAINER),
        ("config.toml", FileKind.GITLAB_RUNNER),
        ("Jenkinsfile", FileKind.JENKINSFILE),
        ("Jenkinsfile.gpu", FileKind.JENKINSFILE),
        ("nightly.jenkinsfile", FileKind.JENKINSFILE),
        ("package.json", FileKind.JSON),  # any other JSON: its content decides (ECS/Batch, CloudFormation)
        ("pyproject.toml", None),
    ],
)
def test_kind_by_name(name: str, kind: FileKind | None) -> None:
    assert kind_for_name(name) is kind


def test_a_walk_finds_every_dev_container_location(tmp_path: Path) -> None:
    for name in (".devcontainer/devcontainer.json", ".devcontainer.json", ".devcontainer/cuda/devcontainer.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
    found = {Path(c.path).relative_to(tmp_path).as_posix(): c.kind for c in discover([tmp_path])}
    assert found == {
        ".devcontainer.json": FileKind.DEVCONTAINER,
        ".devcontainer/cuda/devcontainer.json": FileKind.DEVCONTAINER,
        ".devcontainer/devcontainer.json": FileKind.DEVCONTAINER,
    }


def _check(engine: Engine, name: str, text: str, kind: FileKind):  # type: ignore[no-untyped-def]
    return engine.check_source(SourceText(name, text), kind, Path(name))


def test_github_expressions_are_opaque_values_never_options(engine: Engine) -> None:
    workflow = (
        "on: push\njobs:\n  a:\n    runs-on: gpu\n    container:\n      image: ${{ inputs.image }}\n"
        "      options: ${{ inputs.docker-options }} --gpus all\n    steps:\n      - run: make\n"
        "  b:\n    runs-on: gpu\n    container:\n      image: pytorch/pytorch\n"
        "      options: --gpus all --shm-size ${{ inputs.shm }}\n    steps:\n      - run: make\n"
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    first, second = (w for w in result.workloads if w.format is WorkloadFormat.CI_JOB)
    assert [s.kind for s in first.shm] == [ShmKind.UNKNOWN]  # may carry options: SHM001 only as a warning
    assert first.image == "${{ inputs.image }}"
    assert [(s.kind, s.size.bytes if s.size else 0) for s in second.shm] == [(ShmKind.MEMORY, None)]
    assert [(f.code, f.severity.label, f.span.line) for f in result.findings] == [
        ("SHM001", "info", 5)
    ]  # image unknown


def test_gitlab_ci_images_are_not_judged(engine: Engine) -> None:
    """GitLab CI has no per-job docker options: the runner's config.toml sizes /dev/shm (see the README)."""
    pipeline = "train:\n  image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n  script:\n    - python train.py\n"
    result = _check(engine, ".gitlab-ci.yml", pipeline, FileKind.YAML)
    assert not result.workloads and not result.findings


def test_a_compose_based_dev_container_says_where_it_is_judged(engine: Engine) -> None:
    text = '{"dockerComposeFile": ["../compose.yaml"], "service": "trainer", "runArgs": ["--gpus", "all"]}'
    result = _check(engine, "devcontainer.json", text, FileKind.DEVCONTAINER)
    assert not result.workloads and not result.findings
    (notice,) = result.notices
    assert 'service "trainer" of ../compose.yaml' in notice.message


def test_invalid_jsonc_and_toml_are_reported_where_they_break(engine: Engine) -> None:
    broken = _check(engine, "devcontainer.json", '{\n  "runArgs": ["--gpus" "all"]\n}\n', FileKind.DEVCONTAINER)
    assert [(f.code, f.span.line, f.span.column) for f in broken.findings] == [("SHM000", 2, 24)]
    runner = "[[runners]]\n  executor = 'docker'\n  [runners.docker]\n    gpus = \n"
    broken = _check(engine, "config.toml", runner, FileKind.GITLAB_RUNNER)
    assert [(f.code, f.span.line) for f in broken.findings] == [("SHM000", 4)]
    other = _check(engine, "config.toml", "this is not = = TOML\n", FileKind.GITLAB_RUNNER)
    assert not other.findings  # not a runner's file: another tool's syntax is not ours to judge


TOML_KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
TOML_VALUES = (
    st.integers(0, 10**10) | st.text(alphabet="abc /:=#[]", max_size=8) | st.lists(st.integers(0, 9), max_size=3)
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(TOML_KEYS, st.dictionaries(TOML_KEYS, TOML_VALUES, max_size=4)), max_size=4, unique_by=lambda t: t[0]
    )
)
def test_toml_tables_find_every_key_tomllib_reads(sections: list[tuple[str, dict]]) -> None:
    lines = []
    for name, values in sections:
        lines.append(f"[{name}]  # section")
        for key, value in values.items():
            if isinstance(value, list):
                lines.append(f"{key} = [\n" + "".join(f"  {item},\n" for item in value) + "]")
            else:
                lines.append(f"{key} = {json.dumps(value)}")
    text = "\n".join(lines) + "\n"
    assert tomllib.loads(text) == {name: values for name, values in sections}
    found = {table.name: table for table in tables(text)}
    for name, values in sections:
        keys = {key.key: key for key in found[name].keys}
        assert set(keys) == set(values)
        for key, value in values.items():
            written = text[keys[key].value_start : keys[key].value_end]
            if isinstance(value, str):
                assert json.loads(f'"{written}"') == value or json.loads(written) == value
            elif isinstance(value, int):
                assert int(written) == value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="docker{}()'\"/*\\\n $.argsimage", max_size=80))
def test_groovy_tokens_are_ordered_and_inside_the_text(text: str) -> None:
    end = 0
    for token in tokens(text):
        assert end <= token.start <= token.end <= len(text)
        end = token.end


def test_groovy_comments_in_strings_are_text_and_open_strings_stop_at_the_line_end() -> None:
    text = "args '--gpus all // not a comment'\nimage 'open\ndocker {"
    assert [(t.kind, t.text) for t in tokens(text)] == [
        ("name", "args"),
        ("string", "--gpus all // not a comment"),
        ("name", "image"),
        ("string", "open"),
        ("name", "docker"),
        ("punct", "{"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "kind", "text"),
    [
        ("Jenkinsfile", FileKind.JENKINSFILE, "docker { args '--gpus all' " * 20_000),
        ("Jenkinsfile", FileKind.JENKINSFILE, "docker.image('x').inside('--gpus all') {}\n" * 5_000),
        ("devcontainer.json", FileKind.DEVCONTAINER, '{"runArgs": [' + '"--gpus", "all", ' * 50_000 + '"x"]}'),
        ("config.toml", FileKind.GITLAB_RUNNER, '[[runners]]\n[runners.docker]\ngpus = "all"\n' * 1_500),
    ],
    ids=["nested-agents", "many-insides", "long-run-args", "many-runners"],
)
def test_hostile_files_are_checked(engine: Engine, name: str, kind: FileKind, text: str) -> None:
    """Each would take minutes with a rescan per agent or per word (bench/bounds.py times them)."""
    result = _check(engine, name, text, kind)
    assert result.findings


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]\"'= #\nabc0.-", max_size=80))
def test_toml_tables_read_any_text(text: str) -> None:
    for table in tables(text):
        for key in table.keys:
            assert 0 <= key.key_start <= key.value_start <= key.value_end <= key.line_end <= len(text)


def _job(container: str, steps: str, runs_on: str = "[self-hosted, gpu]") -> str:
    return f"on: push\njobs:\n  t:\n    runs-on: {runs_on}\n    container:\n{container}    steps:\n{steps}"


def test_a_job_containers_run_steps_are_its_command(engine: Engine) -> None:
    """The steps run in the job's container (``docker exec``): a launcher there decides its need, and the message
    says where the command was read; a ``docker run`` in a step starts a container of its own, not this one's."""
    workflow = _job(
        "      image: pytorch/pytorch\n      options: --gpus all\n",
        "      - uses: actions/checkout@v4\n      - run: pip install -e .\n"
        "      - run: |\n          docker run --rm alpine true\n"
        "          torchrun --nproc_per_node 4 train.py\n",
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    (job,) = [w for w in result.workloads if w.format is WorkloadFormat.CI_JOB]
    assert "torchrun --nproc_per_node 4 train.py" in job.command and "alpine" not in job.command
    assert job.command_from == "the job's steps, lines 10-13"
    assert [(f.code, f.severity.label, f.span.line) for f in result.findings if f.code == "SHM001"] == [
        ("SHM001", "error", 5)
    ]


def test_a_job_container_whose_steps_only_query_the_gpu_is_not_judged_as_training(engine: Engine) -> None:
    """Steps that are all utility commands (``nvidia-smi``) make it a utility container, as on a command line."""
    workflow = _job(
        "      image: pytorch/pytorch\n      options: --gpus all\n",
        "      - run: nvidia-smi\n      - run: |\n          nvidia-smi -L\n",
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    (job,) = [w for w in result.workloads if w.format is WorkloadFormat.CI_JOB]
    assert not job.gpu and not result.findings


def test_a_conditional_exit_does_not_hide_the_rest_of_its_step(engine: Engine) -> None:
    """``nvidia-smi || exit 1`` exits only when the query fails: the launcher after it runs in the container
    (it was dropped, and the container with it as a utility); an ``exit`` the model cannot place (in an ``if``,
    in a pipeline) does not end the step either, and one that surely runs does."""
    workflow = _job(
        "      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n      options: --gpus all\n",
        "      - run: |\n          nvidia-smi || exit 1\n          torchrun --nproc_per_node=2 train.py\n",
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    (job,) = [w for w in result.workloads if w.format is WorkloadFormat.CI_JOB]
    assert job.command == "torchrun --nproc_per_node=2 train.py"  # the query decides nothing
    assert [(f.code, f.severity.label) for f in result.findings] == [("SHM001", "error")]
    nested = _job(
        "      image: pytorch/pytorch\n      options: --gpus all\n",
        '      - run: |\n          if [ -n "$SKIP" ]; then\n            exit 0\n          fi\n'
        "          exit 1 | tee log\n          torchrun --nproc_per_node=2 train.py\n"
        "      - run: |\n          pip list\n          exit 0\n          python unreached.py\n",
    )
    jobs = _check(engine, "ci.yml", nested, FileKind.YAML).workloads
    (job,) = [w for w in jobs if w.format is WorkloadFormat.CI_JOB]
    assert job.command == "[ -n $SKIP ] ; tee log ; torchrun --nproc_per_node=2 train.py ; pip list"


def test_a_conditional_exit_in_a_jenkins_sh_step_does_not_hide_the_rest(engine: Engine) -> None:
    jenkinsfile = (
        "pipeline {\n  agent { docker { image 'pytorch/pytorch'; args '--gpus all' } }\n  stages {\n"
        "    stage('t') {\n      steps {\n"
        "        sh '''\n          nvidia-smi || exit 1\n          torchrun --nproc_per_node=2 train.py\n        '''\n"
        "      }\n    }\n  }\n}\n"
    )
    result = _check(engine, "Jenkinsfile", jenkinsfile, FileKind.JENKINSFILE)
    (agent,) = result.workloads
    assert agent.command == "torchrun --nproc_per_node=2 train.py"
    assert [(f.code, f.severity.label) for f in result.findings] == [("SHM001", "error")]


@pytest.mark.parametrize(
    ("step", "unread"),
    [
        ("      - uses: ./.github/actions/train\n", "uses: ./.github/actions/train"),
        ("      - uses: org/train-action@v1\n      - uses: ./local\n", "uses: org/train-action@v1 and 1 more step(s)"),
        ("      - shell: python\n        run: import torch\n", "a run: step with shell: python"),
    ],
)
def test_actions_in_a_job_container_keep_its_utility_steps_undecided(engine: Engine, step: str, unread: str) -> None:
    """An action (``uses:``) or a ``run:`` step of another shell runs code in the job's container that is not
    read: run steps that are all utilities no longer make it a utility container; it stays undecided, and the
    message says what ran there unread. GitHub's checkout, cache and artifact actions only move files, and a
    ``docker://`` action runs in a container of its own."""
    workflow = _job(
        "      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n      options: --gpus all\n",
        f"      - uses: actions/checkout@v4\n      - run: nvidia-smi\n{step}",
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    (job,) = [w for w in result.workloads if w.format is WorkloadFormat.CI_JOB]
    assert job.gpu and job.command_from == f"the job's steps, line 10; {unread} ran in it unread"
    assert [(f.code, f.severity.label) for f in result.findings] == [("SHM001", "info")]
    assert f"({job.command_from})" in result.findings[0].detail
    only_files = _job(
        "      image: pytorch/pytorch\n      options: --gpus all\n",
        "      - uses: actions/checkout@v4\n      - run: nvidia-smi\n      - uses: docker://alpine:3\n",
    )
    assert not _check(engine, "ci.yml", only_files, FileKind.YAML).findings


def test_a_utility_first_decides_nothing_of_the_steps_after_it(engine: Engine) -> None:
    """``nvidia-smi`` and then a program shmlint does not know: undecided (the data's utility entry read the
    first command and made the whole job free of /dev/shm)."""
    workflow = _job(
        "      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n      options: --gpus all\n",
        "      - run: nvidia-smi\n      - run: python train.py\n",
    )
    result = _check(engine, "ci.yml", workflow, FileKind.YAML)
    (job,) = [w for w in result.workloads if w.format is WorkloadFormat.CI_JOB]
    assert job.command == "python train.py"
    assert [(f.code, f.severity.label) for f in result.findings] == [("SHM001", "info")]


@pytest.mark.parametrize(
    ("runs_on", "said"),
    [("linux-amd64-gpu-h100-latest-2", True), ("[self-hosted, gpu]", True), ("ubuntu-latest", False)],
)
def test_a_job_container_on_a_gpu_runner_without_a_gpu_option_is_a_notice(
    engine: Engine, runs_on: str, said: bool
) -> None:
    """Whether docker gives a container the runner's GPUs without ``--gpus`` is the runner's configuration: said,
    not guessed either way; a container that asks for a GPU itself is checked, not noted."""
    steps = "      - run: torchrun --nproc_per_node 2 train.py\n"
    bare = _check(
        engine, "ci.yml", _job("      image: nvcr.io/nvidia/pytorch:25.06-py3\n", steps, runs_on), FileKind.YAML
    )
    assert [n.message.split(":")[0] for n in bare.notices] == (["line 5"] if said else [])
    asked = _job("      image: nvcr.io/nvidia/pytorch:25.06-py3\n      options: --gpus all\n", steps, runs_on)
    assert not _check(engine, "ci.yml", asked, FileKind.YAML).notices


JENKINSFILE = """\
pipeline {
  agent none
  stages {
    stage('train') {
      agent {
        docker {
          image 'pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime'
          args '--gpus all'
        }
      }
      steps {
        sh 'pip install -e .'; sh "torchrun --nproc_per_node 4 train.py"
      }
    }
    stage('lint') {
      agent { docker { image 'python:3.11'; args '--gpus all' } }
      steps {
        sh 'nvidia-smi'
      }
    }
  }
}
node('gpu') {
  docker.image('nvcr.io/nvidia/pytorch:24.01-py3').inside('--gpus all') {
    sh(script: 'python train.py --num_workers 8')
  }
}
"""


def test_jenkins_docker_agents_run_their_sh_steps(engine: Engine) -> None:
    """A declarative agent runs the ``sh`` steps of the block that declares it (two steps on one line are two
    commands), not those of a stage with an agent of its own; ``.inside`` runs its closure's steps."""
    result = _check(engine, "Jenkinsfile", JENKINSFILE, FileKind.JENKINSFILE)
    train, lint, inside = result.workloads
    assert train.command == "pip install -e . ; torchrun --nproc_per_node 4 train.py"
    assert lint.command == "nvidia-smi" and not lint.gpu  # a utility: not judged as training
    assert inside.command == "python train.py --num_workers 8"
    assert inside.command_from == "the job's steps, line 25"
    assert [(f.code, f.severity.label, f.span.line) for f in result.findings] == [
        ("SHM001", "error", 6),
        ("SHM001", "error", 24),
    ]


JOB = """jobs:
  e2e:
    runs-on: [self-hosted, gpu]
    container:
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      options: --gpus all
    services:
      llm:
        image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
        options: --gpus all
    steps:
      - run: {step}
"""


@pytest.mark.parametrize(
    ("step", "tier"),
    [
        ("python -m pytest tests/unit", "unknown"),  # the image is where the tests run: a toolbox
        (
            "vllm serve facebook/opt-125m --tensor-parallel-size 2 & python -m pytest tests/e2e",
            "needs",
        ),  # the steps start the server
    ],
)
def test_a_ci_job_container_is_judged_by_its_steps_not_its_image(step: str, tier: str) -> None:
    """GitHub Actions starts a job's container with its entrypoint replaced (Jenkins' ``inside`` with ``cat``): only
    the steps run in it, so a server image is evidence only where a step starts the server; a service container
    runs its image's own entrypoint and keeps it."""
    path = ".github/workflows/e2e.yml"
    result = Engine(Settings()).check_source(SourceText(path, JOB.format(step=step)), FileKind.YAML, path)
    tiers = {w.id.container_kind: w.need.tier.name.lower() for w in result.workloads if w.need is not None}
    assert tiers == {"container": tier, "service": "needs"}, tiers


@pytest.mark.parametrize(("method", "tier"), [("inside", "unknown"), ("withRun", "needs")])
def test_jenkins_inside_runs_steps_and_with_run_starts_the_image(method: str, tier: str) -> None:
    """``inside`` runs the closure's steps in the container (started with ``cat``); ``withRun`` starts the image's
    own entrypoint beside a closure that runs on the agent."""
    text = f"node {{\n  docker.image('nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3').{method}('--gpus all') {{ c ->\n    sh 'python3 client.py'\n  }}\n}}\n"
    result = Engine(Settings()).check_source(SourceText("Jenkinsfile", text), FileKind.JENKINSFILE, "Jenkinsfile")
    ((workload),) = result.workloads
    assert workload.need is not None and workload.need.tier.name.lower() == tier


VENDORED_WORKFLOW = """on: push
jobs:
  t:
    runs-on: [self-hosted, gpu]
    container:
      image: pytorch/pytorch
      options: --gpus all --ipc=host
    steps:
      - run: python train.py --num-workers 8
"""


def test_a_workflow_below_the_repositorys_top_is_a_note_not_its_ci(tmp_path: Path, invoke) -> None:
    """Found on an untuned repository (audit50): a vendored copy of another project kept its
    ``.github/workflows``, and its GPU jobs' ``--ipc=host`` failed the gate 18 times, though GitHub runs only the
    workflows at the top of a repository. The control: the same file at the top is checked; without a ``.git``
    above, the folder holding ``.github`` is the top."""
    (tmp_path / ".git").mkdir()
    for folder in (tmp_path / "third_party" / "lib", tmp_path):
        (folder / ".github" / "workflows").mkdir(parents=True)
        (folder / ".github" / "workflows" / "gpu.yml").write_text(VENDORED_WORKFLOW)
    said = invoke("check", str(tmp_path)).stdout
    assert ".github/workflows/gpu.yml:7:27: SHM007" in said and "lib/.github/workflows/gpu.yml:7" not in said
    assert "third_party/lib/.github/workflows/gpu.yml: note: a GitHub workflow below the repository's top" in said
    lib = tmp_path / "third_party" / "lib"
    (lib / ".git").write_text("gitdir: ../../.git/modules/third_party/lib\n")  # a submodule: still not its CI
    said = invoke("check", str(tmp_path)).stdout
    assert "third_party/lib/.github/workflows/gpu.yml: note: a GitHub workflow below the repository's top" in said
    (lib / ".git").write_text("gitdir: /elsewhere/.git/worktrees/lib\n")  # a linked work tree is a top of its own
    assert "lib/.github/workflows/gpu.yml:7:27: SHM007" in invoke("check", str(lib)).stdout
    (lib / ".git").unlink()
    (lib / ".git").mkdir()  # a clone of its own (a home folder kept in git holds clones): its top, its CI
    assert "lib/.github/workflows/gpu.yml:7:27: SHM007" in invoke("check", str(tmp_path)).stdout
    (lib / ".git").rmdir()
    (tmp_path / ".git").rmdir()
    said = invoke("check", str(lib)).stdout
    assert "lib/.github/workflows/gpu.yml:7:27: SHM007" in said, said
