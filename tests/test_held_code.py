"""Containers that only hold their accelerators (a shell, ``sleep infinity``, a notebook, a dev container) are
judged by the training programs in the repository folders they hold (``shmlint.project.held``); a script that
passes only its own arguments (``image "$@"``) runs the image's CMD when it is run as written; a dev container's
build, workspace and waiting command are what its tools start (``shmlint.formats.devcontainer``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shmlint.model import Finding
from shmlint.project.held import MAX_LISTED, MAX_PROGRAMS, held_training
from shmlint.project.index import ProjectIndex, Reader
from shmlint.runner import check_paths
from shmlint.settings import Settings

LOADER = "from torch.utils.data import DataLoader\n\nloader = DataLoader(ds, num_workers=4)\n"
GPU_SHELL = "docker run -it --gpus all -v {source}:/work acme/dev {command}\n"


def _shm001(root: Path, *paths: str) -> dict[str, Finding]:
    report = check_paths(Settings(undecided="show"), [root / p for p in paths] or [root], jobs=1)
    return {Path(f.span.path).relative_to(root).as_posix(): f for f in report.findings if f.code == "SHM001"}


def _label(finding: Finding) -> str:
    """The finding's severity, or ``held`` for the undecided finding that names a training program the container
    holds, found by its name: what may run there, which nothing in the repository says runs there."""
    return (
        "held" if finding.severity.label == "info" and "found by its name" in finding.detail else finding.severity.label
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize("command", ["bash", "/bin/bash", "sleep infinity", "tail -f /dev/null", "jupyter lab"])
def test_a_holder_of_a_folder_with_a_training_program_is_undecided_and_names_it(tmp_path: Path, command: str) -> None:
    """Audits 70d, 85d and 86c: a training program found by its name in a folder a shell holds was what ran there
    once in eleven failing findings; it is said in the undecided finding, which does not fail the gate."""
    _write(tmp_path, {"run.sh": GPU_SHELL.format(source="./src", command=command), "src/train.py": LOADER})
    finding = _shm001(tmp_path)["run.sh"]
    assert _label(finding) == "held"
    assert "src/train.py:3 DataLoader(num_workers=4)" in finding.detail
    assert "the container holds at /work" in finding.detail


@pytest.mark.parametrize(
    "files",
    [
        {"src/serve.py": LOADER},  # not a program people run to train
        {"src/tests/train_test.py": LOADER},  # tests are not the container's work
        {"src/a/b/c/train.py": LOADER},  # deeper than MAX_BELOW
        {"src/train.py": "from torch.utils.data import DataLoader\n\nloader = DataLoader(ds, num_workers=0)\n"},
    ],
)
def test_a_holder_of_code_that_does_not_train_with_workers_stays_undecided(tmp_path: Path, files: dict) -> None:
    _write(tmp_path, {"run.sh": GPU_SHELL.format(source="./src", command="bash"), **files})
    assert _label(_shm001(tmp_path)["run.sh"]) == "info"


def test_a_container_that_runs_a_program_of_its_own_is_not_judged_by_what_it_holds(tmp_path: Path) -> None:
    files = {"run.sh": GPU_SHELL.format(source="./src", command="python3 /work/serve.py"), "src/train.py": LOADER}
    _write(tmp_path, {**files, "src/serve.py": "import torch\n"})
    assert _shm001(tmp_path)["run.sh"].severity.label == "info"


def test_a_relative_mount_is_found_from_the_folder_above_a_script(tmp_path: Path) -> None:
    _write(tmp_path, {"docker/run.sh": GPU_SHELL.format(source="./src", command="bash"), "src/train.py": LOADER})
    assert _label(_shm001(tmp_path)["docker/run.sh"]) == "held"


@pytest.mark.parametrize(
    "mount",
    [
        '-v "$(pwd)"/src:/w',
        '--mount type=bind,source="$(pwd)"/src,target=/w,readonly',  # audit84b: a challenge runtime's test container
        "--mount=type=bind,src=${PWD}/src,dst=/w",
    ],
)
def test_a_bind_mount_of_the_working_directory_is_followed_however_it_is_written(tmp_path: Path, mount: str) -> None:
    _write(tmp_path, {"run.sh": f"docker run --gpus all {mount} acme/dev python /w/train.py\n", "src/train.py": LOADER})
    finding = _shm001(tmp_path)["run.sh"]
    assert finding.severity.label == "error" and "src/train.py:3 DataLoader(num_workers=4)" in finding.detail


@pytest.mark.parametrize("source", ['"$$(pwd)"/src', "$(CURDIR)/src", "$(shell pwd)/src", "$${PWD}/src"])
def test_a_makefiles_bind_mount_of_its_own_folder_is_followed(tmp_path: Path, source: str) -> None:
    """The review: a recipe writes the folder make runs in as make does (``$(CURDIR)``, ``$(shell pwd)``) or escapes
    the shell's (``$$(pwd)``)."""
    recipe = f"train:\n\tdocker run --gpus all -v {source}:/w acme/dev python /w/train.py\n"
    _write(tmp_path, {"Makefile": recipe, "src/train.py": LOADER})
    finding = _shm001(tmp_path)["Makefile"]
    assert finding.severity.label == "error" and "src/train.py:3 DataLoader(num_workers=4)" in finding.detail


def test_a_held_program_in_a_folder_reads_the_config_it_names_from_there(tmp_path: Path) -> None:
    """audit83c: ``scripts/train_sparse.py`` is run in ``scripts/`` and reads ``read_config("../cfg/train.yaml")``,
    whose ``no_workers: 8`` its loaders take."""
    code = 'from torch.utils.data import DataLoader\n\ncfg = read_config("../cfg/train.yaml")\n'
    code += 'loader = DataLoader(ds, num_workers=cfg["no_workers"])\n'
    files = {"run.sh": GPU_SHELL.format(source=".", command="bash"), "scripts/train_sparse.py": code}
    _write(tmp_path, {**files, "cfg/train.yaml": "batch_size: 64\nno_workers: 8\n"})
    finding = _shm001(tmp_path)["run.sh"]
    assert _label(finding) == "held"
    assert 'scripts/train_sparse.py:4 DataLoader(num_workers=cfg["no_workers"]), no_workers: 8 in the config' in (
        finding.detail
    )
    _write(tmp_path, {"cfg/train.yaml": "batch_size: 64\nno_workers: 0\n"})
    assert _label(_shm001(tmp_path)["run.sh"]) == "info"
    # two configs the code reads give the key two values: which one the loader takes is not known (the review)
    both = code.replace("loader = ", "serve = read_config('../cfg/serve.yaml')\nloader = ")
    _write(tmp_path, {"scripts/train_sparse.py": both, "cfg/serve.yaml": "no_workers: 0\n"})
    _write(tmp_path, {"cfg/train.yaml": "no_workers: 8\n"})
    assert _label(_shm001(tmp_path)["run.sh"]) == "info"


def test_a_folder_held_at_a_path_the_hosts_shell_fills_in_is_held(tmp_path: Path) -> None:
    """audit82c: ``-v /home/me/repo:$HOME/src/repo``, the author's clone at a path of the host's HOME."""
    run = "docker run -it -d --gpus all -v {source}:$HOME/src/{name} acme/dev /bin/bash\n"
    root = tmp_path / "lidarnet"
    _write(root, {"docker/run.sh": run.format(source=f"/home/me/{root.name}", name=root.name), "train.py": LOADER})
    finding = _shm001(root)["docker/run.sh"]
    assert _label(finding) == "held" and "train.py:3 DataLoader(num_workers=4)" in finding.detail


@pytest.mark.parametrize(("arguments", "label"), [('"$@"', "error"), ("$@", "error"), ('"$1"', "info")])
def test_a_run_of_only_the_scripts_arguments_starts_the_images_cmd(tmp_path: Path, arguments: str, label: str) -> None:
    _write(
        tmp_path,
        {
            "build.sh": "docker build -t acme/trainer .\n",
            "Dockerfile": 'FROM python:3.11\nCOPY . /app\nCMD ["python", "/app/train.py"]\n',
            "start.sh": f"docker run --gpus all acme/trainer {arguments}\n",
            "train.py": LOADER,
        },
    )
    assert _shm001(tmp_path)["start.sh"].severity.label == label


def _devcontainer(root: Path, body: dict, folder: str = ".devcontainer") -> str:
    name = f"{folder}/devcontainer.json"
    _write(root, {name: json.dumps(body, indent=2)})
    return name


def test_a_dev_container_holds_its_workspace(tmp_path: Path) -> None:
    name = _devcontainer(tmp_path, {"image": "acme/dev", "runArgs": ["--gpus", "all"]})
    _write(tmp_path, {"train.py": LOADER})
    finding = _shm001(tmp_path)[name]
    assert _label(finding) == "held"
    assert f"holds at /workspaces/{tmp_path.name}" in finding.detail


def test_a_dev_container_in_a_named_folder_holds_the_workspace_at_its_workspace_folder(tmp_path: Path) -> None:
    body = {"image": "acme/dev", "runArgs": ["--gpus", "all"], "workspaceFolder": "/code"}
    name = _devcontainer(tmp_path, body, ".devcontainer/gpu")
    _write(tmp_path, {"train.py": LOADER})
    assert "holds at /code" in _shm001(tmp_path)[name].detail


def test_a_dev_container_that_mounts_something_else_holds_no_workspace(tmp_path: Path) -> None:
    body = {"image": "acme/dev", "runArgs": ["--gpus", "all"], "workspaceMount": "source=/data,target=/w,type=bind"}
    name = _devcontainer(tmp_path, body)
    _write(tmp_path, {"train.py": LOADER})
    assert _shm001(tmp_path)[name].severity.label == "info"


@pytest.mark.parametrize(("override", "label"), [(None, "info"), (True, "info"), (False, "error")])
def test_a_dev_container_runs_its_images_server_only_when_its_command_is_not_overridden(
    tmp_path: Path, override: bool | None, label: str
) -> None:
    body: dict = {"image": "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3", "runArgs": ["--gpus", "all"]}
    if override is not None:
        body["overrideCommand"] = override
    name = _devcontainer(tmp_path, body)
    assert _shm001(tmp_path)[name].severity.label == label


def test_a_dev_containers_build_is_followed_and_its_base_is_only_where_people_work(tmp_path: Path) -> None:
    body = {"build": {"dockerfile": "../docker/Dockerfile", "context": ".."}, "runArgs": ["--gpus", "all"]}
    name = _devcontainer(tmp_path, body)
    _write(tmp_path, {"docker/Dockerfile": "FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"})
    finding = _shm001(tmp_path)[name]
    assert finding.severity.label == "info"  # a vLLM base, but the tools start a wait
    assert "docker/Dockerfile" in finding.detail  # the build was read


def test_training_programs_looked_for_are_bounded(tmp_path: Path) -> None:
    for i in range(MAX_LISTED + 20):
        _write(tmp_path, {f"d{i:03}/train.py": "import torch\n"})
    reader = Reader(ProjectIndex.for_paths([tmp_path]), {})
    listed: list[str] = []
    files = reader.index.tree(reader.index.max_bytes)
    original = type(files).files_in

    def counted(self: object, folder: str) -> tuple[str, ...]:
        listed.append(folder)
        return original(self, folder)  # type: ignore[arg-type]

    type(files).files_in = counted  # type: ignore[method-assign]
    try:
        held_training([("/w", str(tmp_path.resolve()))], 1, reader)
    finally:
        type(files).files_in = original  # type: ignore[method-assign]
    assert len(listed) <= MAX_LISTED
    assert reader.files <= MAX_PROGRAMS  # each program read once (none imports anything)


def test_a_holder_without_an_accelerator_is_not_judged_by_what_it_holds(tmp_path: Path) -> None:
    _write(tmp_path, {"run.sh": "docker run -it -v ./src:/work pytorch/pytorch bash\n", "src/train.py": LOADER})
    assert "run.sh" not in _shm001(tmp_path) or _shm001(tmp_path)["run.sh"].severity.label != "error"


@pytest.mark.parametrize(
    "name",
    ["test_train.py", "train_test.py", "mylib/train_utils.py", "training_args.py", "train_dataset.py", "trainer.py"],
)
def test_tests_and_library_modules_are_not_training_programs(tmp_path: Path, name: str) -> None:
    loader = "from torch.utils.data import DataLoader\n\ndef make(ds):\n    return DataLoader(ds, num_workers=4)\n"
    _write(tmp_path, {"run.sh": GPU_SHELL.format(source=".", command="bash"), name: loader})
    assert _label(_shm001(tmp_path)["run.sh"]) == "info"


def test_a_batch_job_script_runs_on_the_clusters_nodes_not_in_the_holder(tmp_path: Path) -> None:
    job = "#!/bin/bash\n#SBATCH --nodes=2\nsrun torchrun --nproc_per_node 8 train_lib.py\n"
    _write(tmp_path, {"run.sh": GPU_SHELL.format(source=".", command="bash"), "scripts/train_slurm.sh": job})
    assert _label(_shm001(tmp_path)["run.sh"]) == "info"


def test_a_folder_listed_only_in_part_is_asked_for_the_likely_names(tmp_path: Path) -> None:
    _write(tmp_path, {f"src/mod_{i:03}.py": "" for i in range(300)})
    _write(tmp_path, {"run.sh": GPU_SHELL.format(source="./src", command="bash"), "src/train.py": LOADER})
    assert _label(_shm001(tmp_path)["run.sh"]) == "held"


@pytest.mark.parametrize(
    "script",
    [
        'run_gpu() { docker run --gpus all acme/trainer "$@"; }\nrun_gpu python /app/serve.py\n',
        'set -- python /app/serve.py\ndocker run --gpus all acme/trainer "$@"\n',
        'if [ $# -eq 0 ]; then exit 1; fi\ndocker run --gpus all acme/trainer "$@"\n',
        'MODE=$1\nshift\ndocker run --gpus all acme/trainer "$@"\n',
    ],
)
def test_a_script_that_uses_its_arguments_is_not_read_as_run_without_any(tmp_path: Path, script: str) -> None:
    _write(
        tmp_path,
        {
            "build.sh": "docker build -t acme/trainer .\n",
            "Dockerfile": 'FROM python:3.11\nCOPY . /app\nCMD ["python", "/app/train.py"]\n',
            "start.sh": script,
            "train.py": LOADER,
        },
    )
    assert _shm001(tmp_path)["start.sh"].severity.label == "info"


def test_a_makefiles_dollar_at_is_the_targets_name(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "build.sh": "docker build -t acme/trainer .\n",
            "Dockerfile": 'FROM python:3.11\nCOPY . /app\nCMD ["python", "/app/train.py"]\n',
            "Makefile": "serve eval:\n\tdocker run --gpus all acme/trainer $@\n",
            "train.py": LOADER,
        },
    )
    assert _shm001(tmp_path)["Makefile"].severity.label == "info"


@pytest.mark.parametrize(("forward", "label"), [("", "info"), (' "$@"', "info")])
def test_a_forwarding_run_of_a_holder_image_is_judged_as_the_holder(tmp_path: Path, forward: str, label: str) -> None:
    """The image's CMD is ``sleep infinity`` on a vLLM base: a holder either way, its base is only where people work."""
    _write(
        tmp_path,
        {
            "build.sh": "docker build -t acme/holder .\n",
            "Dockerfile": 'FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\nENTRYPOINT []\nCMD ["sleep", "infinity"]\n',
            "start.sh": f"docker run --gpus all acme/holder{forward}\n",
        },
    )
    assert _shm001(tmp_path)["start.sh"].severity.label == label


def test_a_forwarding_run_of_a_shell_image_is_judged_by_what_it_holds(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "build.sh": "docker build -t acme/dev .\n",
            "Dockerfile": 'FROM python:3.11\nCMD ["bash"]\n',
            "start.sh": 'docker run -it --gpus all -v ./src:/w acme/dev "$@"\n',
            "src/train.py": LOADER,
        },
    )
    assert _label(_shm001(tmp_path)["start.sh"]) == "held"


def test_a_workspace_mount_of_a_subfolder_holds_only_that_folder(tmp_path: Path) -> None:
    mount = "source=${localWorkspaceFolder}/notebooks,target=/workspace,type=bind"
    name = _devcontainer(tmp_path, {"image": "acme/dev", "runArgs": ["--gpus", "all"], "workspaceMount": mount})
    _write(tmp_path, {"train.py": LOADER, "notebooks/readme.txt": ""})
    assert _label(_shm001(tmp_path)[name]) == "info"
    _write(tmp_path, {"notebooks/train.py": LOADER})
    assert "holds at /workspace" in _shm001(tmp_path)[name].detail


def test_a_dev_container_checked_from_its_own_folder_holds_the_same_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _devcontainer(tmp_path, {"image": "acme/dev", "runArgs": ["--gpus", "all"]})
    _write(tmp_path, {"train.py": LOADER})
    (tmp_path / ".git").mkdir()  # a repository: its top is the tree the file is read in
    monkeypatch.chdir(tmp_path / ".devcontainer")
    report = check_paths(Settings(undecided="show"), [Path("devcontainer.json")], jobs=1)
    assert [_label(f) for f in report.findings if f.code == "SHM001"] == ["held"], name


def test_a_holder_the_file_execs_into_is_judged_by_nothing_it_holds(tmp_path: Path) -> None:
    """The file says what runs in it (``docker exec dev python serve.py``): not the training program it holds."""
    run = 'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev sleep infinity\n'
    _write(tmp_path, {"run.sh": run + "docker exec -it dev python /ws/serve.py\n", "train.py": LOADER})
    assert _shm001(tmp_path)["run.sh"].severity.label == "info"
    _write(tmp_path, {"run.sh": run + "docker exec -it other python /ws/serve.py\n"})
    assert _label(_shm001(tmp_path)["run.sh"]) == "held"  # another container's exec says nothing of it


@pytest.mark.parametrize(
    ("own", "execed", "label"),
    [
        ("sleep infinity", "docker exec dev python /ws/train.py", "error"),  # audit84c's probe
        ("tail -f /dev/null", "docker exec -it -w /ws dev bash -c 'python train.py'", "error"),
        ("bash", "docker container exec dev python /ws/train.py --epochs 1", "error"),
        ("sleep infinity", "docker exec other python /ws/serve.py", "held"),  # another's: judged by what it holds
        ("python /ws/serve.py", "docker exec dev python /ws/train.py", "info"),  # its own program runs, not a holder
        ("bash -c 'sleep 1d'", "docker exec dev python /ws/train.py", "info"),  # a command string: not read so
    ],
)
def test_what_a_file_runs_in_its_holder_by_name_is_what_runs_there(
    tmp_path: Path, own: str, execed: str, label: str
) -> None:
    run = f'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev {own}\n{execed}\n'
    _write(tmp_path, {"run.sh": run, "train.py": LOADER, "serve.py": "import torch\n"})
    finding = _shm001(tmp_path)["run.sh"]
    assert _label(finding) == label
    if label == "error":
        assert "train.py:3 DataLoader(num_workers=4)" in finding.detail and "run in it by docker exec" in finding.detail
    if label == "held":
        assert "the container holds at /ws" in finding.detail


@pytest.mark.parametrize("between", ["docker rm -f dev\n", "docker stop dev\n", "docker container kill dev\n", ""])
def test_what_is_execd_after_a_container_is_stopped_runs_in_another(tmp_path: Path, between: str) -> None:
    """The review: ``docker rm``/``stop``/``kill`` of the name end the container that was run by it."""
    run = 'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev sleep infinity\n'
    script = f"{run}docker exec dev python /ws/serve.py\n{between}docker exec dev python /ws/train.py\n"
    _write(tmp_path, {"run.sh": script, "train.py": LOADER, "serve.py": "import torch\n"})
    assert _shm001(tmp_path)["run.sh"].severity.label == ("error" if not between else "info")


def test_what_is_execd_in_another_section_of_a_guide_is_another_task(tmp_path: Path) -> None:
    run = 'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev sleep infinity'
    guide = f"## Serve\n\n```bash\n{run}\ndocker exec dev python /ws/serve.py\n```\n\n## Train\n\n```bash\n"
    guide += "docker exec dev python /ws/train.py\n```\n"
    _write(tmp_path, {"README.md": guide, "train.py": LOADER, "serve.py": "import torch\n"})
    assert _shm001(tmp_path)["README.md"].severity.label == "info"


def test_what_is_execd_beside_an_images_own_start_only_adds_to_it(tmp_path: Path) -> None:
    """The review: ``docker run -itd --name box IMAGE`` runs the image's ``CMD`` (a trainer here), and ``docker exec
    box nvidia-smi`` beside it takes nothing away; what is exec'd may add, at most as a warning."""
    dockerfile = 'FROM pytorch/pytorch\nCOPY . /app\nCMD ["python", "/app/train.py"]\n'
    script = "docker build -t myimg .\ndocker run -itd --name box --gpus all myimg\ndocker exec box nvidia-smi\n"
    _write(tmp_path, {"Dockerfile": dockerfile, "run.sh": script, "train.py": LOADER})
    assert _shm001(tmp_path)["run.sh"].severity.label == "error"


def test_each_run_of_a_name_holds_what_is_execd_until_the_next_run_of_it(tmp_path: Path) -> None:
    run = 'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev sleep infinity\n'
    script = f"docker exec dev python /ws/train.py\n{run}docker exec dev python /ws/serve.py\ndocker rm -f dev\n{run}"
    script += "docker exec dev python /ws/train.py\n"
    _write(tmp_path, {"run.sh": script, "train.py": LOADER, "serve.py": "import torch\n"})
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    found = sorted((f.span.line, f.severity.label) for f in report.findings if f.code == "SHM001")
    assert found == [(2, "info"), (5, "error")]  # the exec before the first run runs in neither


@pytest.mark.parametrize(("flags", "label"), [("-it -d", "warning"), ("-d", "info"), ("-itd", "warning")])
def test_a_terminal_kept_open_in_the_background_is_a_holder_of_what_is_execd(
    tmp_path: Path, flags: str, label: str
) -> None:
    """audit85a: ``docker run -it -d --name trainbox trainimg``, then ``docker exec -it trainbox python3 train.py``:
    beside the image's own start, which still runs, at most a warning (the review); detached without ``-i``, the
    image's own start runs and may be its server."""
    run = (
        f'docker run {flags} --name box --gpus all -v "$(pwd)":/ws acme/dev\ndocker exec -it box python /ws/train.py\n'
    )
    _write(tmp_path, {"run.sh": run, "train.py": LOADER})
    assert _shm001(tmp_path)["run.sh"].severity.label == label


def test_a_compose_files_relative_mount_is_its_own_folders(tmp_path: Path) -> None:
    """Compose reads ``./src`` from the compose file's folder: ``docker/src`` (absent here), never the top's."""
    compose = (
        "services:\n  dev:\n    image: acme/dev\n    command: sleep infinity\n    volumes: ['./src:/w']\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}\n"
    )
    _write(tmp_path, {"docker/compose.yaml": compose, "src/train.py": LOADER})
    assert _shm001(tmp_path)["docker/compose.yaml"].severity.label == "info"


@pytest.mark.parametrize(
    ("makefile", "label", "evidence"),
    [
        # the repository's own word on what people run there (audit69a: a dev container's Makefile target trains
        # with 20 workers through a data module loaded by name, which the walk cannot reach)
        ("train-ddp:\n\tpython training/run.py --gpus=-1 --num_workers=20\n", "error", "Makefile:2 python training/"),
        ("train:\n\tpython training/run.py\n", "error", "training/run.py:3 DataLoader(num_workers=4)"),  # its code
        ("lint:\n\tpython -m ruff check .\n", "info", None),  # a tool, no training
        ("train:\n\tsrun -N 2 python training/run.py --num_workers=16\n", "info", None),  # a cluster's nodes (review)
        ("train:\n\tdocker run --gpus all acme/t python training/run.py --num_workers 8\n", "info", None),  # elsewhere
    ],
)
def test_a_holders_makefile_recipes_are_what_people_run_in_it(
    tmp_path: Path, makefile: str, label: str, evidence: str | None
) -> None:
    """A dev container holds its repository: the Python and launcher commands of the held folder's own Makefile
    are what people type in it (``make train-ddp``), read as its commands and followed into the code they run."""
    code = "from torch.utils.data import DataLoader\n\nloader = DataLoader(ds, num_workers=4)\n"
    run = "import importlib\n\nimportlib.import_module('data.' + name)\n"
    files = {"Makefile": makefile, "training/run.py": code if "--num_workers" not in makefile else run}
    _write(tmp_path, files)
    path = _devcontainer(tmp_path, {"image": "acme/dev:1", "runArgs": ["--gpus", "all"]})
    finding = _shm001(tmp_path)[path]
    assert finding.severity.label == label
    assert evidence is None or evidence in finding.detail, finding.detail


def test_a_makefile_of_many_recipes_is_read_once_and_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: a 500 KB Makefile held by nine dev containers was parsed, and its lines counted from the top, for
    every command of each: it is read once a run, and at most ``MAX_RECIPES`` of its commands are followed, once
    each."""
    from shmlint.project import held

    recipes = "".join(f"t{i}:\n\tpython training/run.py --step {i}\n" for i in range(5000))
    _write(tmp_path, {"Makefile": recipes, "training/run.py": "print(1)\n"})
    for index in range(3):
        _devcontainer(tmp_path, {"image": "acme/dev:1", "runArgs": ["--gpus", "all"]}, f".devcontainer/d{index}")
    followed: list[tuple[str, ...]] = []
    real = held.command_run

    def counting(folder: str, argv: tuple[str, ...], *rest: object) -> object:
        followed.append(argv)
        return real(folder, argv, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(held, "command_run", counting)
    assert len(_shm001(tmp_path)) == 3
    assert len(followed) == len(set(followed)) == held.MAX_RECIPES


@pytest.mark.parametrize(
    ("source", "label"),
    [
        ("/mnt/w/prj/GraduateWork/UNIT/", "held"),  # ends in the script's own folder: its author's clone of it
        ("/home/me/projects/UNIT", "held"),
        ("/mnt/data/UNIT-images", "info"),  # another folder
        ("/mnt/data", "info"),
        ("/datasets/UNIT", "info"),  # a dataset named like the folder is not its code
    ],
)
def test_a_mount_of_the_authors_path_to_the_scripts_folder_holds_that_folder(
    tmp_path: Path, source: str, label: str
) -> None:
    """audit77a: ``docker run ... --mount type=bind,source=/mnt/w/prj/GraduateWork/UNIT/,target=... -i -t unit:test``
    in ``UNIT/docker.sh``: the author's path to the folder the script is in; its training program is what runs."""
    _write(
        tmp_path,
        {
            "UNIT/docker.sh": GPU_SHELL.format(source=source, command="bash"),
            "UNIT/train.py": LOADER,
        },
    )
    assert _label(_shm001(tmp_path)["UNIT/docker.sh"]) == label


@pytest.mark.parametrize(
    ("dockerfile", "flags", "label"),
    [
        ("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch\n", "-it", "held"),
        ("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch\n", "", "info"),  # no terminal
        ('FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nCMD ["python", "serve.py"]\n', "-it", "info"),  # its CMD
        # a base whose own start is a server or a notebook: no CMD of the image's own does not make it a shell
        ("FROM vllm/vllm-openai:v0.9.0\nRUN pip install torch\n", "-it", "info"),
        ("FROM jupyter/pytorch-notebook\nRUN pip install torch\n", "-it", "info"),
        ("FROM acme/private-base:1\nRUN pip install torch\n", "-it", "info"),  # not known to start a shell
    ],
)
def test_a_terminal_in_an_image_built_here_that_starts_nothing_is_its_shell(
    tmp_path: Path, dockerfile: str, flags: str, label: str
) -> None:
    """``docker run -it IMAGE`` with no command, of an image whose Dockerfile has no CMD or ENTRYPOINT: the base
    image's shell, judged by the training programs it holds, as ``docker run -it IMAGE bash`` is."""
    _write(
        tmp_path,
        {
            "Dockerfile": dockerfile,
            "run.sh": f"docker build -t acme/dev .\ndocker run {flags} --gpus all -v $PWD:/work acme/dev\n",
            "train.py": LOADER,
            "serve.py": "print('serving')\n",
        },
    )
    assert _label(_shm001(tmp_path)["run.sh"]) == label


def test_an_image_named_for_the_scripts_folder_is_built_by_the_dockerfile_beside(tmp_path: Path) -> None:
    """audit77a: ``UNIT/docker.sh`` runs ``unit:test``, which ``UNIT/Dockerfile`` builds (no CMD: its base's shell),
    with the author's path to ``UNIT`` mounted; checked from the repository's top, whose name is another."""
    _write(
        tmp_path,
        {
            "UNIT/Dockerfile": "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch\n",
            "UNIT/docker.sh": (
                "docker run --mount type=bind,source=/mnt/w/prj/GraduateWork/UNIT/,target=/mnt/w/prj/GraduateWork/UNIT/"
                " --runtime nvidia -i -t unit:test\n"
            ),
            "UNIT/train.py": LOADER,
            "CycleGAN/docker.sh": "docker run --runtime nvidia -i -t unit:test\n",  # not named for its folder
        },
    )
    found = _shm001(tmp_path)
    assert _label(found["UNIT/docker.sh"]) == "held"
    assert "UNIT/train.py:3 DataLoader(num_workers=4)" in found["UNIT/docker.sh"].detail
    assert found["CycleGAN/docker.sh"].severity.label == "info"


@pytest.mark.parametrize(
    ("flags", "label"),
    [
        ("-w /work", "error"),  # the shell opens where the program is: ``python train.py`` is typed there
        ("--workdir=/work/", "error"),
        ("-w /work/other", "held"),  # another folder: found by its name only
        ("", "held"),
    ],
)
def test_a_training_program_in_the_holders_working_directory_decides(tmp_path: Path, flags: str, label: str) -> None:
    """audit83c: a compose service held open with ``entrypoint: /bin/bash`` and ``working_dir: /app/scripts``, the
    folder of its training scripts (a crash); audit85a: a shell in an image whose ``WORKDIR`` holds ``train.py``."""
    _write(
        tmp_path,
        {"run.sh": f"docker run -it --gpus all {flags} -v ./src:/work acme/dev bash\n", "src/train.py": LOADER},
    )
    finding = _shm001(tmp_path)["run.sh"]
    assert _label(finding) == label
    if label == "error":
        assert "(a training program in the repository's folder the container holds at /work, in its working" in (
            finding.detail
        )


def test_a_compose_services_working_directory_and_an_images_workdir_hold_what_runs(tmp_path: Path) -> None:
    compose = (
        "services:\n  dev:\n    build: {context: .., dockerfile: docker/Dockerfile}\n    volumes: ['../:/app']\n"
        "    working_dir: /app/scripts\n    entrypoint: /bin/bash\n    tty: true\n    stdin_open: true\n"
        "    runtime: nvidia\n"
    )
    dockerfile = "FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\nWORKDIR /app\nCOPY . /app\n"
    files = {"docker/compose.yml": compose, "docker/Dockerfile": dockerfile, "scripts/train_sparse.py": LOADER}
    _write(tmp_path, files)
    assert _label(_shm001(tmp_path)["docker/compose.yml"]) == "error"
    run = "docker build -t acme/dev -f docker/Dockerfile .\ndocker run -it --gpus all acme/dev bash\n"
    _write(tmp_path, {"run.sh": run, "train.py": LOADER})  # the image's WORKDIR, where it copies the repository
    assert _label(_shm001(tmp_path)["run.sh"]) == "error"


def _notebook(*cells: str) -> str:
    """A notebook of code cells, written as Jupyter writes one (a source line a line)."""
    body = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c.splitlines(keepends=True)} for c in cells]
    return json.dumps({"cells": body, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


_JUPYTER = "docker run -it --gpus all -v $PWD/labs:/work -w /work acme/jupyter jupyter lab --ip 0.0.0.0 {options}\n"


@pytest.mark.parametrize(
    ("notebook", "options", "label", "evidence"),
    [
        # audit87c: a course's Jupyter image; its notebooks' code runs in the server's kernels
        (_notebook("import torch\n", LOADER), "", "error", "labs/lab1.ipynb:"),
        (_notebook("%matplotlib inline\n!horovodrun -np 2 python train_dist.py\n"), "", "error", "horovodrun -np 2"),
        (_notebook("x = 1\n"), "", "info", None),
        (_notebook("import torch\n", LOADER), "--notebook-dir=/work/other", "info", None),  # it serves another folder
        (_notebook("import torch\n", LOADER), "--ServerApp.root_dir /work", "error", "lab1.ipynb:"),
    ],
)
def test_the_notebooks_a_jupyter_server_serves_are_its_work(
    tmp_path: Path, notebook: str, options: str, label: str, evidence: str | None
) -> None:
    _write(tmp_path, {"run.sh": _JUPYTER.format(options=options), "labs/lab1.ipynb": notebook, "labs/other/x.txt": ""})
    finding = _shm001(tmp_path)["run.sh"]
    assert finding.severity.label == label, finding.detail
    assert evidence is None or evidence in finding.detail, finding.detail
    if label == "error":  # the code's fact says where the server serves it; a command, the notebook's line
        assert "lab1.ipynb:" in finding.detail
        assert "horovodrun" in finding.detail or "a notebook its Jupyter server serves at /work" in finding.detail


@pytest.mark.parametrize(
    ("command", "workdir", "served"),
    [
        ("jupyter lab --ip=0.0.0.0 --notebook-dir=/workspace/python/", "", "/workspace/python"),
        ('/bin/sh -c jupyter-lab --no-browser --NotebookApp.token="" --notebook-dir=/w/nb', "", "/w/nb"),
        ("sh -c 'jupyter notebook --notebook-dir notebooks'", "/app", "/app/notebooks"),
        ("python3 -m jupyterlab --allow-root", "/ws", "/ws"),
        ("jupyter lab", "", ""),  # where it starts is not known
        ("jupyter nbconvert --to html x.ipynb", "/ws", ""),  # no server
        ("python train.py", "/ws", ""),
        ("jupyter lab --notebook-dir=$HOME", "/ws", ""),
        ("jupyter lab 'unclosed", "/ws", ""),
    ],
)
def test_the_folder_a_jupyter_server_serves(command: str, workdir: str, served: str) -> None:
    from shmlint.project.held import served_folder

    assert served_folder(command, workdir) == served


def test_a_notebooks_kernel_python_keeps_its_lines_and_leaves_the_shell_out() -> None:
    from shmlint.parsers.embedded.notebook import notebook_python

    text = _notebook(
        "import torch\n!pip install x \\\n  y\n%time z = 1\nfor i in range(2):\n    print(i)\n", "%%bash\necho hi\n"
    )
    python = notebook_python(text)
    lines = text.splitlines()
    kept = [(number, line) for number, line in enumerate(python.splitlines(), 1) if line]
    assert [line for _, line in kept] == ["import torch", "for i in range(2):", "    print(i)"]
    assert all(line.strip() in lines[number - 1] for number, line in kept)  # each on the file's own line


@pytest.mark.parametrize(
    ("lifecycle", "label", "said"),
    [
        # audit88c: what the tools run in the container as they create it is its work too
        (
            '"postCreateCommand": "bash scripts/finetune.sh"',
            "error",
            "the dev container's lifecycle commands, devcontainer.json:4",
        ),
        ('"postStartCommand": ["bash", "scripts/finetune.sh"]', "error", "lifecycle commands"),
        ('"postCreateCommand": {"deps": "pip install -r r.txt", "train": "bash scripts/finetune.sh"}', "error", None),
        ('"postCreateCommand": "pip install -r requirements.txt"', "info", None),  # set-up: it stays a holder
        ('"initializeCommand": "bash scripts/finetune.sh"', "info", None),  # on the host
        ('"postCreateCommand": "pip install x", "postAttachCommand": "bash scripts/finetune.sh"', "error", None),
    ],
)
def test_a_dev_containers_lifecycle_commands_run_in_it(
    tmp_path: Path, lifecycle: str, label: str, said: str | None
) -> None:
    body = '{\n  "image": "acme/dev:1",\n  "runArgs": ["--gpus", "all"],\n  ' + lifecycle + "\n}\n"
    _write(
        tmp_path,
        {".devcontainer/devcontainer.json": body, "scripts/finetune.sh": "torchrun --nproc_per_node 8 train.py\n"},
    )
    finding = _shm001(tmp_path)[".devcontainer/devcontainer.json"]
    assert finding.severity.label == label, finding.detail
    assert said is None or said in finding.detail


@pytest.mark.parametrize(
    ("guide", "label"),
    [
        # audit89d: a script starts the named container; the guide, another file, says what runs in it
        ("```bash\nsh ./run.sh\ndocker exec -ti dev python /ws/train.py\n```\n", "warning"),
        ("```bash\ndocker exec -ti other python /ws/train.py\n```\n", "info"),  # another container's name
        ("```bash\ndocker exec -ti dev nvidia-smi\n```\n", "info"),  # nothing that needs /dev/shm
    ],
)
def test_what_another_file_execs_into_a_named_container_may_add_to_it(tmp_path: Path, guide: str, label: str) -> None:
    run = 'docker run -d --name dev --gpus all -v "$(pwd)":/ws acme/dev sleep infinity\n'
    _write(tmp_path, {"run.sh": run, "README.md": guide, "train.py": LOADER})
    finding = _shm001(tmp_path)["run.sh"]
    assert finding.severity.label == label, finding.message
    if label == "warning":
        assert "run in it by docker exec, README.md:3" in finding.detail
