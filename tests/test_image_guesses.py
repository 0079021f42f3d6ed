"""The image a container runs, found in the repository by a guess: the Dockerfile beside a compose file or a
Kubernetes manifest whose services pull their image, the one beside a ``docker run`` line whose image is the
repository's own, and the files such an image copies (one by one, replaced by later copies, hidden by mounts)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shmlint.runner import check_paths
from shmlint.settings import Settings

_PULLED = "services:\n  app:\n    image: acme/own-app:latest\n    runtime: nvidia\n"


@pytest.mark.parametrize(
    ("compose", "severity"),
    [
        # the project's own image, pulled instead of built: the Dockerfile beside the file builds it
        (_PULLED, "error"),
        # a service of the file builds: the Dockerfile beside is that build's, not the pulled image's
        (_PULLED + "  web:\n    build: .\n", "info"),
        # a build of the image's name elsewhere wins over the Dockerfile beside
        (_PULLED.replace("own-app", "other"), "info"),
        # two accelerator or torch services pulling two images the data does not know: the Dockerfile builds one of
        # them at most, and nothing says which (a vLLM server and the FastAPI proxy in front of it, found in an
        # audit: the proxy took the server's Dockerfile), so neither takes it
        (_PULLED + "  proxy:\n    image: acme/fastapi_vllm_proxy:1\n", "info"),
        # a service that is neither (a database) leaves the guess to the one that is
        (_PULLED + "  db:\n    image: acme/own-db:1\n", "error"),
        # nor does one whose image another file builds (build.sh builds acme/other): it never takes the guess
        (_PULLED + "  worker:\n    image: acme/other:latest\n    runtime: nvidia\n", "error"),
        # one image under two registries' spellings is one image
        (_PULLED + "  copy:\n    image: docker.io/acme/own-app:2\n    runtime: nvidia\n", "error"),
    ],
)
def test_a_compose_service_that_pulls_its_image_takes_the_dockerfile_beside(
    tmp_path: Path, compose: str, severity: str
) -> None:
    (tmp_path / "compose.yaml").write_text(compose)
    (tmp_path / "Dockerfile").write_text("FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "Dockerfile").write_text('FROM ubuntu:22.04\nCMD ["./serve"]\n')
    (tmp_path / "build.sh").write_text("docker build -t acme/other other\n")
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    (app,) = [f for f in findings if f.code == "SHM001" and 'service "app"' in f.message]
    assert app.severity.label == severity
    assert ("built by Dockerfile:1" in app.detail) == (severity == "error")


def test_a_known_image_or_a_documents_example_never_takes_the_dockerfile_beside(tmp_path: Path) -> None:
    """An image the data knows by name (a Jupyter image) is not what the Dockerfile beside builds, and a compose
    example in a document never takes the Dockerfile beside it (its images are as often third-party ones). A
    Dockerfile the repository also builds under another name stays the pulled image's: the two real cases found
    were one project's image under a placeholder user name (``yourusername/yolo-auto-trainer``) or an older tag
    (``step-audio-r1``)."""
    (tmp_path / "Dockerfile").write_text(
        'FROM pytorch/pytorch:2.3.0\nCMD ["torchrun", "--nproc_per_node", "4", "t.py"]\n'
    )
    (tmp_path / "build.sh").write_text("docker build -t yourusername/notebook .\n")
    (tmp_path / "README.md").write_text(
        "```yaml\nservices:\n  app:\n    image: acme/own-app\n    runtime: nvidia\n```\n"
    )
    found = {}
    for image in ("acme/notebook", "quay.io/jupyter/pytorch-notebook"):
        (tmp_path / "compose.yaml").write_text(f"services:\n  notebook:\n    image: {image}\n    runtime: nvidia\n")
        findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
        found[image] = {(Path(f.span.path).name, f.severity.label) for f in findings if f.code == "SHM001"}
    assert found == {
        "acme/notebook": {("compose.yaml", "error"), ("README.md", "info")},
        "quay.io/jupyter/pytorch-notebook": {("compose.yaml", "info"), ("README.md", "info")},
    }


_TRAINER = "from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=8)\n"
_TORCHRUN_CMD = 'CMD ["torchrun", "--nproc_per_node", "4", "t.py"]\n'
_TORCHRUN_DOCKERFILE = "FROM python:3.11\n" + _TORCHRUN_CMD


@pytest.mark.parametrize(
    ("service", "dockerfile", "severity"),
    [
        # an unrelated ENTRYPOINT beside would run the command as its arguments: the guess adds, never hides
        (
            "image: acme/trainer\n    command: python train.py",
            'FROM node:20\nENTRYPOINT ["docker-entrypoint.sh"]\nCMD ["node", "server.js"]\n',
            "error",
        ),
        # loaders without workers in the guessed image's code do not make a container free
        ("image: acme/trainer", 'FROM python:3.11\nCMD ["python", "idle.py"]\n', "info"),
        # the Dockerfile's own base is the image it starts from, not the one it builds
        (
            "image: ghcr.io/acme/cuda-base:12.1",
            'FROM ghcr.io/acme/cuda-base:12.1\nCMD ["torchrun", "--nproc_per_node", "4", "t.py"]\n',
            "info",
        ),
        # a name left to a variable is any image, however compose interpolates it
        ("image: ${IMAGE:-}", _TORCHRUN_DOCKERFILE, "info"),
        ('image: "${IMAGE}:${TAG}"', _TORCHRUN_DOCKERFILE, "info"),
        # the own base with another registry spelling is still the base; another tag of the name is not
        ("image: docker.io/acme/cuda-base:12.1", "FROM acme/cuda-base:12.1\n" + _TORCHRUN_CMD, "info"),
        ("image: acme/trainer:latest", "FROM acme/trainer:base\n" + _TORCHRUN_CMD, "error"),
        # an earlier release pulled only to copy a cache from is not where the running stage starts
        (
            "image: acme/trainer:latest",
            "FROM acme/trainer:latest AS previous\nFROM python:3.11\nCOPY --from=previous /c /c\n" + _TORCHRUN_CMD,
            "error",
        ),
        # a digest names no tag: compared by digest
        ("image: acme/cuda-base@sha256:" + "0" * 64, "FROM acme/cuda-base\n" + _TORCHRUN_CMD, "error"),
        (
            "image: acme/cuda-base@sha256:" + "0" * 64,
            "FROM acme/cuda-base@sha256:" + "0" * 64 + "\n" + _TORCHRUN_CMD,
            "info",
        ),
        # an ENTRYPOINT the walk cannot see through leaves the guess undecided: the command's loader without
        # workers does not make it free either
        (
            "image: acme/trainer\n    command: python idle.py",
            'FROM python:3.11\nENTRYPOINT ["/opt/vendor/launch"]\n',
            "info",
        ),
        # an ENTRYPOINT whose code spends the walk's budget does not hide the command's own code
        (
            "image: acme/trainer\n    command: python train.py",
            'FROM python:3.11\nENTRYPOINT ["python", "wrap.py"]\n',
            "error",
        ),
    ],
)
def test_the_dockerfile_beside_is_a_guess_that_only_adds_evidence(
    tmp_path: Path, service: str, dockerfile: str, severity: str
) -> None:
    (tmp_path / "compose.yaml").write_text(f"services:\n  app:\n    {service}\n    runtime: nvidia\n")
    (tmp_path / "Dockerfile").write_text(dockerfile)
    (tmp_path / "train.py").write_text(_TRAINER)
    (tmp_path / "idle.py").write_text("from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=0)\n")
    (tmp_path / "wrap.py").write_text("".join(f"import m{i}\n" for i in range(60)))
    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(f"VALUE = {i}\n")
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == [severity]


@pytest.mark.parametrize(
    ("image", "severity"),
    [("ghcr.io/acme/trainer:${TAG}", "error"), ("${REGISTRY}/trainer", "error"), ("${IMAGE}", "info")],
)
def test_a_manifest_image_whose_registry_or_tag_is_a_variable_still_names_the_image_beside(
    tmp_path: Path, image: str, severity: str
) -> None:
    (tmp_path / "Dockerfile").write_text(_TORCHRUN_DOCKERFILE)
    (tmp_path / "pod.yaml").write_text(_OWN_POD.replace("acme/own-app", image).replace("gpu: 1", "gpu: 4"))
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == [severity]


def test_a_guess_left_undecided_both_ways_keeps_naming_the_files_it_read(tmp_path: Path) -> None:
    """On a tie the guess stays: the undecided finding says what was read through it."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  app:\n    image: acme/trainer\n    command: python train.py\n    runtime: nvidia\n"
    )
    (tmp_path / "Dockerfile").write_text('FROM python:3.11\nENTRYPOINT ["/opt/vendor/launch"]\n')
    (tmp_path / "train.py").write_text("import sys\nDataLoader(ds, num_workers=int(sys.argv[1]))\n")
    (finding,) = [f for f in check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings if f.code == "SHM001"]
    assert finding.severity.label == "info" and "Dockerfile" in finding.detail


def test_a_finding_through_the_dockerfile_beside_says_it_was_taken_so(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(_PULLED)
    (tmp_path / "Dockerfile").write_text('FROM python:3.11\nCOPY . /app\nWORKDIR /app\nCMD ["python", "train.py"]\n')
    (tmp_path / "train.py").write_text(_TRAINER)
    (finding,) = [f for f in check_paths(Settings(), [tmp_path], jobs=1).findings if f.code == "SHM001"]
    assert finding.severity.label == "error" and "train.py:2 DataLoader(num_workers=8)" in finding.detail
    assert "in the image built from Dockerfile: the Dockerfile beside the file, taken to build it" in finding.detail
    (tmp_path / "Dockerfile").write_text(
        "FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
    )  # the base decides: said so too
    (finding,) = [f for f in check_paths(Settings(), [tmp_path], jobs=1).findings if f.code == "SHM001"]
    assert "built by Dockerfile:1 (the Dockerfile beside the file, taken to build it)" in finding.detail


def test_a_compose_file_of_any_name_takes_the_dockerfile_beside(tmp_path: Path) -> None:
    """The example a document or a here-document holds is told apart by where it is read, not by a file suffix:
    a compose file named without one (``docker-compose``) is a compose file of its own."""
    (tmp_path / "docker-compose").write_text(_PULLED)
    (tmp_path / "Dockerfile").write_text("FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n")
    (tmp_path / "run.sh").write_text(f"cat > compose.yaml <<'EOF'\n{_PULLED}EOF\n")
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert sorted((Path(f.span.path).name, f.severity.label) for f in findings if f.code == "SHM001") == [
        ("docker-compose", "error"),
        ("run.sh", "info"),
    ]


_OWN_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: main\n"
    "      image: acme/own-app\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
)


def test_a_manifest_example_in_a_document_never_takes_the_dockerfile_beside(tmp_path: Path) -> None:
    """As for compose: a Pod written in a README or a here-document is an example whose image is as often a
    third-party one; the manifest file beside the Dockerfile takes it."""
    (tmp_path / "Dockerfile").write_text(
        'FROM pytorch/pytorch:2.3.0\nCMD ["torchrun", "--nproc_per_node", "4", "t.py"]\n'
    )
    (tmp_path / "pod.yaml").write_text(_OWN_POD)
    (tmp_path / "README.md").write_text(f"```yaml\n{_OWN_POD}```\n")
    (tmp_path / "run.sh").write_text(f"kubectl apply -f - <<'EOF'\n{_OWN_POD}EOF\n")
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert sorted((Path(f.span.path).name, f.severity.label) for f in findings if f.code == "SHM001") == [
        ("README.md", "info"),
        ("pod.yaml", "error"),
        ("run.sh", "info"),
    ]


_GPU_BUILD = (
    "services:\n  t:\n    build: .\n    deploy:\n      resources:\n        reservations:\n          devices:\n"
    "            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n"
)


@pytest.mark.parametrize(
    ("copy", "run"),
    [
        ("COPY docker/start.sh /start.sh", '["/start.sh"]'),
        ("COPY --chmod=755 docker/start.sh /usr/local/bin/", '["start.sh"]'),  # into a folder on the PATH
        ("COPY docker/start.sh /usr/local/bin/", '["/usr/local/bin/start.sh"]'),
        ('COPY ["docker/start.sh", "/opt/run.sh"]', '["sh", "/opt/run.sh"]'),
        ("WORKDIR /app\nCOPY docker/start.sh .", '["./start.sh"]'),  # relative to the working directory
    ],
)
def test_a_script_the_image_copies_as_a_file_is_followed(tmp_path: Path, copy: str, run: str) -> None:
    """``COPY docker/start.sh /start.sh`` then ``CMD ["/start.sh"]``: the script the container starts is the
    repository's file, wherever the image puts it."""
    (tmp_path / "compose.yaml").write_text(_GPU_BUILD)
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "start.sh").write_text("#!/bin/sh\nexec python /src/train.py\n")
    (tmp_path / "train.py").write_text(_TRAINER)
    (tmp_path / "Dockerfile").write_text(f"FROM python:3.11\n{copy}\nCOPY train.py /src/train.py\nCMD {run}\n")
    (finding,) = [f for f in check_paths(Settings(), [tmp_path], jobs=1).findings if f.code == "SHM001"]
    assert finding.severity.label == "error" and "train.py:2 DataLoader(num_workers=8)" in finding.detail


def test_a_file_the_image_copies_under_a_bind_mount_is_not_what_the_container_sees(tmp_path: Path) -> None:
    """A bind mount over the copy's folder hides it: the script there is the mounted folder's, not the copy."""
    (tmp_path / "compose.yaml").write_text(_GPU_BUILD + "    volumes:\n      - ./other:/opt\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "start.sh").write_text("#!/bin/sh\nexec python /src/train.py\n")
    (tmp_path / "train.py").write_text(_TRAINER)
    (tmp_path / "Dockerfile").write_text(
        'FROM python:3.11\nCOPY docker/start.sh /opt/run.sh\nCOPY train.py /src/train.py\nCMD ["/opt/run.sh"]\n'
    )
    (finding,) = [f for f in check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings if f.code == "SHM001"]
    assert finding.severity.label == "info"


@pytest.mark.parametrize(
    ("image", "folder", "named"),
    [
        ("acme/diffusion-pipe:0.1", "diffusion-pipe-docker", True),
        ("ghcr.io/bob/yolo-trainer-docker:latest", "yolo-trainer-docker", True),
        ("acme/segmenter", "Segmenter", True),  # letter case aside
        ("acme/PedalNetRT:1", "PedalNetRT", True),
        ("acme/whisper-demo-ui", "whisper-finetune", False),  # another project's image named for the same model
        ("alice/diffusion-pipe-interface:latest", "diffusion-pipe-ui", False),  # one word more
        ("acme/gpu-server:1", "gpu-server-docker", False),  # only words many names hold
        ("acme/pytorch-training:1", "my-pytorch-training", False),
        ("nvcr.io/nvidia/pytorch:24.01-py3", "segmenter", False),
        ("acme/app", "app", False),
        ("acme/llama-2", "llama-3-docker", False),  # another version
        ("acme/yolo-v5", "yolo-v8", False),
    ],
)
def test_an_image_is_the_repositorys_by_the_same_distinctive_words(
    tmp_path: Path, image: str, folder: str, named: bool
) -> None:
    from shmlint.project.origin import repository_name
    from shmlint.project.own_image import named_for

    root = tmp_path / folder
    root.mkdir()
    assert named_for(image, repository_name(str(root))) is named


@pytest.mark.parametrize(
    ("config", "name"),
    [
        ('[remote "origin"]\n\turl = https://github.com/acme/Segmenter.git\n', "Segmenter"),
        ('[remote "upstream"]\n\turl = x\n[remote "origin"]\n\turl = git@github.com:acme/seg.git\n', "seg"),
        ('[remote "fork"]\n\turl = /srv/git/segmenter/\n', "segmenter"),  # no origin: the first remote
        ("[core]\n\tbare = false\n", "clone-folder"),  # no remote: the folder
        ("[core\n\x00 not a config", "clone-folder"),  # malformed: the folder
    ],
)
def test_a_clone_knows_its_repository_by_its_remotes_url(tmp_path: Path, config: str, name: str) -> None:
    from shmlint.project.origin import repository_name

    root = tmp_path / "clone-folder"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(config)
    assert repository_name(str(root)) == name


_OWN_RUN = "```bash\ndocker run --gpus all -it acme/{name}:latest\n```\n"
_OWN_DOCKERFILE = 'FROM python:3.11\nCOPY train.py /app/train.py\nCMD ["python", "/app/train.py"]\n'


def test_a_command_lines_image_named_for_the_repository_takes_the_dockerfile_beside(tmp_path: Path) -> None:
    """The README runs the image the project publishes (no file builds it by that name): the Dockerfile beside
    the README is taken, as a guess, to build it, and the finding says so."""
    root = tmp_path / "segmenter-docker"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "README.md").write_text(_OWN_RUN.format(name="segmenter"))
    (root / "Dockerfile").write_text(_OWN_DOCKERFILE)
    (root / "train.py").write_text(_TRAINER)
    (finding,) = [f for f in check_paths(Settings(), [root], jobs=1).findings if f.code == "SHM001"]
    assert finding.severity.label == "error" and "train.py:2 DataLoader(num_workers=8)" in finding.detail
    assert "the Dockerfile beside the file, taken to build it" in finding.detail


@pytest.mark.parametrize(
    "image",
    [
        "other-project",  # another project's image: the Dockerfile beside builds something else
        "app",  # a word many names hold says nothing
    ],
)
def test_a_command_lines_image_not_named_for_the_repository_takes_no_dockerfile(tmp_path: Path, image: str) -> None:
    root = tmp_path / "segmenter-app"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "README.md").write_text(_OWN_RUN.format(name=image))
    (root / "Dockerfile").write_text(_OWN_DOCKERFILE)
    (root / "train.py").write_text(_TRAINER)
    findings = check_paths(Settings(undecided="show"), [root], jobs=1).findings
    (finding,) = [f for f in findings if f.code == "SHM001"]
    assert finding.severity.label == "info" and "Dockerfile" not in finding.detail


@pytest.mark.parametrize("kind", ["fifo", "outside", "folder", "git-link", "huge"])
def test_a_clones_config_that_is_no_file_of_the_tree_is_not_read(tmp_path: Path, kind: str) -> None:
    """A FIFO would block the run, a link out of the tree reads elsewhere: the folder's name is the name then."""
    from shmlint.project.origin import repository_name

    root = tmp_path / "clone-folder"
    (root / ".git").mkdir(parents=True)
    config = root / ".git" / "config"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text('[remote "origin"]\n\turl = https://github.com/acme/other.git\n')
    if kind == "fifo":
        os.mkfifo(config)
    elif kind == "outside":
        config.symlink_to(elsewhere)
    elif kind == "git-link":  # the .git folder itself a link to a clone elsewhere
        (root / ".git").rmdir()
        (tmp_path / "other" / ".git").mkdir(parents=True)
        (tmp_path / "other" / ".git" / "config").write_text(elsewhere.read_text())
        (root / ".git").symlink_to(tmp_path / "other" / ".git")
    elif kind == "huge":  # past MAX_CONFIG
        config.write_text(elsewhere.read_text() + "# " + "x" * 70_000 + "\n")
    else:
        config.mkdir()
    assert repository_name(str(root)) == "clone-folder"


def _copied_script_severities(root: Path, compose: str, dockerfile: str) -> list[str]:
    """SHM001's severities for a GPU service built from ``dockerfile``, whose ``docker/start.sh`` runs the
    trainer and ``docker/serve.sh`` only holds the container."""
    (root / "docker").mkdir(parents=True, exist_ok=True)
    (root / "compose.yaml").write_text(compose)
    (root / "docker" / "start.sh").write_text("#!/bin/sh\nexec python /src/train.py\n")
    (root / "docker" / "serve.sh").write_text("#!/bin/sh\nexec sleep infinity\n")
    (root / "train.py").write_text(_TRAINER)
    (root / "Dockerfile").write_text(dockerfile)
    findings = check_paths(Settings(undecided="show"), [root], jobs=1).findings
    return [f.severity.label for f in findings if f.code == "SHM001"]


@pytest.mark.parametrize("mount", ["./docker/serve.sh:/opt/run.sh", "/srv/ops:/opt", "/srv/ops/run.sh:/opt/run.sh"])
def test_any_mount_over_a_copied_file_hides_it(tmp_path: Path, mount: str) -> None:
    """A file or a folder mounted there, from the repository or not: the container sees the mount, not the copy."""
    compose = _GPU_BUILD + f"    volumes:\n      - {mount}\n"
    dockerfile = (
        'FROM python:3.11\nCOPY docker/start.sh /opt/run.sh\nCOPY train.py /src/train.py\nCMD ["/opt/run.sh"]\n'
    )
    assert _copied_script_severities(tmp_path, compose, dockerfile) == ["info"]


@pytest.mark.parametrize(
    "later",
    [
        "COPY docker/serve.sh /opt/run.sh",
        "COPY --from=builder /x/run.sh /opt/run.sh",  # another stage's file: not known
        "COPY docker/ /opt/",  # a folder with a file of that name (docker/run.sh holds the container)
        "COPY --from=builder /x /opt",  # another stage's folder
        "ADD ops.tar.gz /opt/",  # an archive unpacked over it
    ],
)
def test_a_later_copy_over_the_path_replaces_the_file(tmp_path: Path, later: str) -> None:
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "run.sh").write_text("#!/bin/sh\nexec sleep infinity\n")
    (tmp_path / "ops.tar.gz").write_bytes(b"\x1f\x8b")
    dockerfile = (
        "FROM python:3.11 AS builder\nFROM python:3.11\nCOPY docker/start.sh /opt/run.sh\n"
        f'COPY train.py /src/train.py\n{later}\nCMD ["/opt/run.sh"]\n'
    )
    assert _copied_script_severities(tmp_path, _GPU_BUILD, dockerfile) == ["info"]
    assert _copied_script_severities(tmp_path / "alone", _GPU_BUILD, dockerfile.replace(later, "")) == ["error"]


def test_a_later_folder_copy_without_that_file_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "other.sh").write_text("#!/bin/sh\nexec sleep infinity\n")
    dockerfile = 'FROM python:3.11\nCOPY docker/start.sh /opt/run.sh\nCOPY docker/ /opt/\nCOPY train.py /src/train.py\nCMD ["/opt/run.sh"]\n'
    assert _copied_script_severities(tmp_path, _GPU_BUILD, dockerfile) == ["error"]


def test_a_mount_over_a_file_copied_into_a_folder_hides_it(tmp_path: Path) -> None:
    compose = _GPU_BUILD + "    volumes:\n      - /srv/ops/x.sh:/usr/local/bin/start.sh\n"
    dockerfile = (
        'FROM python:3.11\nCOPY docker/start.sh /usr/local/bin/\nCOPY train.py /src/train.py\nCMD ["start.sh"]\n'
    )
    assert _copied_script_severities(tmp_path, compose, dockerfile) == ["info"]
    assert _copied_script_severities(tmp_path / "unmounted", _GPU_BUILD, dockerfile) == ["error"]
