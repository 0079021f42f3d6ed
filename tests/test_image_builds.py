"""The run's index of images built in the repository (``shmlint.project.builds``): how image names match, how each
form of build is read, its bounds, and what a matched build decides (and what it never changes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.project import builds
from shmlint.project.build_lines import build_command, make_variables
from shmlint.project.builds import BuildIndex, ImageBuild, find_builds, image_key, image_tag
from shmlint.runner import check_paths
from shmlint.settings import Settings

# ---------------------------------------------------------------- image names


@pytest.mark.parametrize(
    ("reference", "key"),
    [
        ("trainer", "trainer"),
        ("acme/trainer:v1", "acme/trainer"),
        ("ghcr.io/acme/trainer:v1", "acme/trainer"),
        ("localhost:5000/trainer", "trainer"),
        ("registry.internal:5000/acme/trainer@sha256:abc", "acme/trainer"),
        ("docker.io/library/ubuntu:22.04", "ubuntu"),
        ("Acme/Trainer", "acme/trainer"),
        ("${REGISTRY}/acme/trainer:${TAG}", "acme/trainer"),
        ("$(REGISTRY)/trainer:$(TAG)", "trainer"),
        ("$REGISTRY/trainer", "trainer"),
        ("${{ env.REGISTRY }}/acme/trainer:latest", "acme/trainer"),
        ("${REGISTRY:-ghcr.io/acme}/trainer", "trainer"),
        ("ghcr.io/${{ github.repository }}", None),  # a variable in the path itself: nothing to match exactly
        ("${REGISTRY}/${NAME}", None),
        ("$IMAGE", None),
        ("${IMAGE:-ghcr.io/acme/trainer:v1}", "acme/trainer"),  # the name the file gives, as run without IMAGE
        ('${IMAGE-"acme/trainer"}', "acme/trainer"),
        ("${IMAGE:-$DEFAULT}", None),
        ("acme/trainer space", None),
        ("", None),
    ],
)
def test_image_key(reference: str, key: str | None) -> None:
    assert image_key(reference) == key


_COMPONENT = st.from_regex(
    r"[a-z0-9]{1,8}(?:[_-][a-z0-9]{1,6})?", fullmatch=True
)  # no dot: a first component with one is a host
_PATHS = st.lists(_COMPONENT, min_size=1, max_size=3).map("/".join)
_REGISTRIES = st.sampled_from(["ghcr.io", "localhost:5000", "registry.example.com:443", "${REGISTRY}", "$(REG)"])
_TAGS = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,12}", fullmatch=True)


@given(_PATHS, _REGISTRIES, _TAGS)
def test_registry_and_tag_never_change_the_key(path: str, registry: str, tag: str) -> None:
    assert image_key(f"{registry}/{path}:{tag}") == image_key(path) == path.removeprefix("library/")


@given(_PATHS, _COMPONENT)
def test_a_namespace_is_part_of_the_name(path: str, namespace: str) -> None:
    """``org/app`` is not ``app``: a path must match exactly, whatever the registries."""
    assert image_key(f"ghcr.io/{namespace}/{path}") != image_key(f"ghcr.io/{path}") or namespace == "library"


@given(st.text(max_size=300))
def test_image_key_never_raises(text: str) -> None:
    key = image_key(text)
    assert key is None or (key == key.lower() and "$" not in key and ":" not in key)


# ---------------------------------------------------------------- build command lines


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ("docker build -t acme/app .", (("acme/app",), "", ".", (), "")),
        (
            "docker build --tag=acme/app -f docker/Dockerfile.gpu ctx",
            (("acme/app",), "docker/Dockerfile.gpu", "ctx", (), ""),
        ),
        ("docker build -tacme/app -fDockerfile.x .", (("acme/app",), "Dockerfile.x", ".", (), "")),
        (
            "sudo env DOCKER_BUILDKIT=1 docker buildx build --platform linux/amd64 --push -t a -t b --build-arg X=1 "
            "--build-arg Y --target runtime .",
            (("a", "b"), "", ".", (("X", "1"),), "runtime"),
        ),
        ("podman build --file Containerfile --tag app .", (("app",), "Containerfile", ".", (), "")),
        ("nerdctl build -t app .", (("app",), "", ".", (), "")),
        ("nvidia-docker build -t app .", (("app",), "", ".", (), "")),  # every engine CLI container lines name
        ("podman-remote build -t app .", (("app",), "", ".", (), "")),
        ("docker.exe build -t app .", (("app",), "", ".", (), "")),  # a PowerShell or WSL script's engine
        ("docker image build -t app .", (("app",), "", ".", (), "")),
        ("docker --context remote build -t app .", (("app",), "", ".", (), "")),
        ("docker build .", None),  # no name: nothing can refer to it
        ("docker build -t app", None),  # no context
        ("docker build -t app . extra", None),  # not a build docker would run
        ("docker buildx bake -f x.hcl", None),
        ("docker run -t app", None),
        ("make build", None),
    ],
)
def test_build_command(argv: str, expected: tuple | None) -> None:
    found = build_command(argv.split(), "/repo", "build.sh:1")
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.images, found.dockerfile, found.context, found.args, found.target) == expected


@given(
    st.lists(
        st.sampled_from(["docker", "build", "buildx", "-t", "-f", "--tag", "x", ".", "--", "-", "=a"]), max_size=12
    )
)
def test_build_command_never_raises(words: list[str]) -> None:
    found = build_command(words, "/repo", "f:1")
    assert found is None or (found.images and found.context)


# ---------------------------------------------------------------- the forms of build in a repository


def _index(root: Path, files: dict[str, str]) -> BuildIndex:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    kinds = {".sh": "shell", ".md": "markdown", ".rst": "rst", ".yml": "yaml", ".yaml": "yaml"}
    listed = [
        (str(root / name), "makefile" if name.endswith("Makefile") else kinds.get(Path(name).suffix, "dockerfile"))
        for name in files
    ]
    return find_builds(listed, [os.path.realpath(root)], 1 << 20)


def test_forms_of_build(tmp_path: Path) -> None:
    index = _index(
        tmp_path,
        {
            "docker/Dockerfile": "FROM python:3.11\n",
            "docker/Dockerfile.gpu": "FROM nvcr.io/nvidia/pytorch:24.07-py3\n",
            "Makefile": "IMG ?= x\nimage:\n\tdocker build -t $(REGISTRY)/make-app -f docker/Dockerfile.gpu .\n",
            "scripts/build.sh": 'N=script-app\ndocker build -t "$N:dev" -f docker/Dockerfile .\n',
            "docs/README.md": "```yaml\nservices:\n  s:\n    image: doc-app\n    build: {context: ../docker}\n```\n",
            ".github/workflows/ci.yml": (
                "on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: docker/build-push-action@v6\n        with:\n          context: .\n"
                "          file: docker/Dockerfile.gpu\n          tags: |\n            ghcr.io/acme/action-app:latest\n"
                "          build-args: |\n            BASE=x\n"
            ),
            "skaffold.yaml": (
                "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n    - image: skaffold-app\n"
                "      context: docker\n      docker:\n        dockerfile: Dockerfile.gpu\n        target: run\n"
            ),
        },
    )
    root = os.path.realpath(tmp_path)
    gpu, cpu = os.path.join(root, "docker", "Dockerfile.gpu"), os.path.join(root, "docker", "Dockerfile")
    assert [b.dockerfile for b in index.of("ghcr.io/make-app:1")] == [gpu]
    assert index.of("make-app")[0].where == "Makefile:3"
    assert [(b.dockerfile, b.where) for b in index.of("script-app")] == [(cpu, "scripts/build.sh:2")]
    assert [b.dockerfile for b in index.of("doc-app")] == [cpu]
    (action,) = index.of("acme/action-app")
    assert (action.dockerfile, action.args, action.where) == (gpu, (("BASE", "x"),), ".github/workflows/ci.yml:6")
    (skaffold,) = index.of("skaffold-app")
    assert (skaffold.dockerfile, skaffold.target) == (gpu, "run")
    assert index.of("action-app") == ()  # the namespace is part of the name
    assert not index.truncated


def test_builds_of_one_name_kept_once_each(tmp_path: Path) -> None:
    index = _index(
        tmp_path,
        {
            "Dockerfile": "FROM a\n",
            "Dockerfile.cpu": "FROM b\n",
            "a.sh": "docker build -t app .\ndocker build -t app:v2 .\n",  # the same build twice: one
            "b.sh": "docker build -t app -f Dockerfile.cpu .\n",  # another: two ways
        },
    )
    assert [b.where for b in index.of("app")] == ["a.sh:1", "b.sh:1"]


def test_an_images_tag_tells_its_builds_apart(tmp_path: Path) -> None:
    """Found (audit52b): ``app:cuda`` said built two ways, where only one build tags it ``cuda``. Of different
    builds, those of the run's own tag (the same build under two tags keeps both); a tag a variable gives may be
    any, beside those; a run whose tag no build writes, or whose tag is a variable, still sees them all."""
    index = _index(
        tmp_path,
        {
            "Dockerfile": "FROM a\n",
            "Dockerfile.cuda": "FROM b\n",
            "Dockerfile.rocm": "FROM c\n",
            "Makefile": (
                "build:\n\tdocker build -t app:local .\n\tdocker build -t app:dev .\n"
                "cuda:\n\tdocker build -t app:cuda -f Dockerfile.cuda .\n"
            ),
            "rocm.sh": "docker build -t app:$TAG -f Dockerfile.rocm .\n",
        },
    )
    assert [b.where for b in index.of("registry.local:5000/app:cuda")] == ["Makefile:5", "rocm.sh:1"]
    assert [b.where for b in index.of("app:dev")] == ["Makefile:2", "rocm.sh:1"]
    # latest: no build writes it (a variable's may be it, and so may any other: found in review, a variable's
    # build taken alone as the image's)
    assert [b.where for b in index.of("app")] == ["Makefile:2", "Makefile:5", "rocm.sh:1"]
    assert [b.where for b in index.of("app:$TAG")] == ["Makefile:2", "Makefile:5", "rocm.sh:1"]
    assert [image_tag(i) for i in ("a/b", "a/b:1.0", "reg:5000/a/b", "a/b:${T}", "a/b@sha256:00", "${I:-a/b:2}")] == [
        "latest",
        "1.0",
        "latest",
        "",
        "latest",
        "2",
    ]
    assert image_tag("r/jetbot:jupyter-$V-${L4T}") == "jupyter-*"


def test_a_tag_written_in_part_picks_the_builds_it_may_be(tmp_path: Path) -> None:
    """audit88d: ``$REMOTE/jetbot:jupyter-$VERSION-$L4T`` is built once (``jupyter/build.sh``), among five builds of
    ``jetbot`` whose tags start otherwise (``base-...``, ``camera-...``): the written part of a tag tells them
    apart, and a tag a variable gives whole may still be any."""
    for part in ("base", "camera", "jupyter"):
        (tmp_path / part).mkdir()
        (tmp_path / part / "Dockerfile").write_text(f"FROM {part}\n")
        (tmp_path / part / "build.sh").write_text(f"docker build -t $R/jetbot:{part}-$V-$L4T {part}\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "Dockerfile").write_text("FROM other\n")
    (tmp_path / "any.sh").write_text("docker build -t jetbot:$TAG other\n")
    scripts = [(str(tmp_path / p / "build.sh"), "shell") for p in ("base", "camera", "jupyter")]
    index = find_builds([*scripts, (str(tmp_path / "any.sh"), "shell")], [str(tmp_path)], 1 << 20)
    assert sorted(b.where for b in index.of("$R/jetbot:jupyter-$V-$L4T")) == ["any.sh:1", "jupyter/build.sh:1"]
    assert sorted(b.where for b in index.of("jetbot:jupyter-1.0-r32")) == ["any.sh:1", "jupyter/build.sh:1"]
    assert len(index.of("jetbot:$TAG")) == 4  # any of them
    assert len(index.of("jetbot:other-1")) == 4  # none is written so: any of them


def test_nothing_outside_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Dockerfile").write_text("FROM nvcr.io/nvidia/pytorch:24.07-py3\n")
    repo = tmp_path / "repo"
    (repo / "linked").mkdir(parents=True)
    (repo / "linked" / "Dockerfile").symlink_to(outside / "Dockerfile")
    index = _index(
        repo,
        {
            "build.sh": (
                "docker build -t up ../outside\ndocker build -t linked linked\ndocker build -t abs -f /etc/passwd .\n"
                "docker build -t remote https://github.com/x/y.git\ndocker build -t dyn -f $DF .\n"
            )
        },
    )
    assert index.builds == ()


def test_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builds, "MAX_BUILDS", 3)
    index = _index(
        tmp_path, {"Dockerfile": "FROM a\n", "b.sh": "".join(f"docker build -t app{i} .\n" for i in range(10))}
    )
    assert len(index.builds) == 3 and index.truncated


# ---------------------------------------------------------------- what a build decides, end to end

_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: job
spec:
  template:
    spec:
      containers:
        - name: main
          image: {image}
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def _check(root: Path, files: dict[str, str]) -> list[tuple[str, str]]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    report = check_paths(Settings(undecided="show"), [root], jobs=1)
    return [(f.severity.label, f"{f.message}\n{f.detail}") for f in report.findings if f.code == "SHM001"]


def test_a_known_name_is_never_changed_by_a_build(tmp_path: Path) -> None:
    """vLLM by name needs /dev/shm whatever a CPU Dockerfile of that name says; a holder by name stays free."""
    found = _check(
        tmp_path,
        {
            "Dockerfile": 'FROM python:3.11-slim\nCMD ["sleep", "infinity"]\n',
            "build.sh": "docker build -t vllm/vllm-openai .\ndocker build -t nvidia/dcgm-exporter .\n",
            "deploy/a.yaml": _JOB.format(image="nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3"),
        },
    )
    assert [severity for severity, _ in found] == ["error"]
    assert "built by" not in found[0][1]


def test_undecided_build_leaves_it_undecided(tmp_path: Path) -> None:
    """A build whose Dockerfile shows nothing keeps the container undecided: a build is evidence only where it
    shows something (never a failing finding by itself)."""
    found = _check(
        tmp_path,
        {
            "Dockerfile": 'FROM ubuntu:22.04\nCMD ["./serve"]\n',
            "build.sh": "docker build -t acme/tool .\n",
            "deploy/a.yaml": _JOB.format(image="acme/tool:1"),
        },
    )
    assert [severity for severity, _ in found] == ["info"]
    # what was read, why it was, and that the program it starts is not in the checked files
    assert "nor from Dockerfile (build at build.sh:1; ./serve is not in the checked files)" in found[0][1]


def test_index_built_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = builds.find_builds

    def counted(files, roots, limit):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(files, roots, limit)

    monkeypatch.setattr(builds, "find_builds", counted)
    found = _check(
        tmp_path,
        {
            "Dockerfile": "FROM ultralytics/ultralytics:8.3.0\n",
            "build.sh": "docker build -t acme/train .\n",
            **{f"deploy/{i}.yaml": _JOB.format(image="acme/train") for i in range(5)},
        },
    )
    assert len(calls) == 1
    assert [severity for severity, _ in found] == ["error"] * 5
    assert all("(build at build.sh:1)" in text for _, text in found)


def test_image_build_value_is_hashable() -> None:
    """The index rides on ``ProjectIndex``, the key of the per-process engine cache."""
    assert hash(BuildIndex((("a", (ImageBuild("/r/Dockerfile", "/r"),)),)))


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=400))
def test_hostile_build_files_never_raise(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "f")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as file:
            file.write(text)
        for kind in ("shell", "makefile", "markdown", "rst", "yaml"):
            find_builds([(path, kind)], [os.path.realpath(folder)], 1 << 20)


def test_builds_that_read_alike_are_one_image(tmp_path: Path) -> None:
    """A compose build with an argument nothing changes and a README's plain build of the same Dockerfile are one
    image; an argument that changes the base makes two, and nothing is followed."""
    dockerfile = "ARG PY=3.12\nARG BASE=ultralytics/ultralytics:8.3.0\nFROM ${BASE}\n"
    same = _check(
        tmp_path / "same",
        {
            "Dockerfile": dockerfile,
            "compose.yaml": "services:\n  app:\n    build:\n      context: .\n      args: {PY: '3.11'}\n    image: app\n",
            "build.sh": "docker build -t app .\n",
            "deploy/a.yaml": _JOB.format(image="app"),
        },
    )
    assert [severity for severity, text in same if text.startswith("Job/job")] == ["error"]
    other = _check(
        tmp_path / "other",
        {
            "Dockerfile": dockerfile,
            "compose.yaml": "services:\n  app:\n    build:\n      context: .\n      args: {BASE: 'ubuntu'}\n    image: app\n",
            "build.sh": "docker build -t app .\n",
            "deploy/a.yaml": _JOB.format(image="app"),
        },
    )
    ((severity, text),) = [(severity, text) for severity, text in other if text.startswith("Job/job")]
    assert severity == "info"
    assert "app is built 2 different ways (build.sh:1 Dockerfile; compose.yaml:2 Dockerfile)" in text


def test_a_run_takes_the_one_build_its_own_file_writes_of_an_image_built_several_ways(tmp_path: Path) -> None:
    """audit87c: a course's folders each build ``myimage:1.0`` from their own Dockerfile; a guide that builds it and
    runs it runs its own build. A file that writes none of them, or two, follows none."""
    serve = 'FROM python:3.11\nCMD ["python", "serve.py"]\n'
    train = 'FROM pytorch/pytorch\nCOPY . /app\nCMD ["python", "/app/train.py"]\n'
    build = "```bash\ndocker build -t myimage:1.0 .\n```\n"
    files = {
        "a/Dockerfile": serve,
        "a/README.md": build,
        "c/Dockerfile": train,
        "c/train.py": "from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=4)\n",
    }
    run = "```bash\ndocker build -t myimage:1.0 .\ndocker run --gpus all myimage:1.0\n```\n"
    assert [severity for severity, _ in _check(tmp_path / "own", {**files, "c/README.md": run})] == ["error"]
    elsewhere = {**files, "c/README.md": build, "run.md": "```bash\ndocker run --gpus all myimage:1.0\n```\n"}
    ((severity, text),) = _check(tmp_path / "none", elsewhere)
    assert severity == "info" and "myimage:1.0 is built 2 different ways" in text


def test_makefile_variables_and_ci_steps(tmp_path: Path) -> None:
    """A Makefile's own defaults name the image (a registry variable still stands for any registry), and CI
    ``run:`` steps and GitLab scripts are read as shell."""
    index = _index(
        tmp_path,
        {
            "docker/Dockerfile": "FROM a\n",
            "Makefile": (
                "REGISTRY ?= ghcr.io/acme\nNAME := trainer\nIMAGE = $(REGISTRY)/$(NAME)\nGIT := $(shell git rev-parse HEAD)\n"
                "image:\n\tdocker build -t $(IMAGE):$(GIT) -f docker/Dockerfile .\n"
                "other:\n\tdocker build -t $(UNSET)/x/$(UNSET2) -f docker/Dockerfile .\n"
            ),
            ".github/workflows/b.yml": (
                "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: |\n"
                "          docker build -t acme/ci-app -f docker/Dockerfile .\n"
            ),
            ".gitlab-ci.yml": "build:\n  script:\n    - docker build -t acme/lab-app -f docker/Dockerfile .\n",
        },
    )
    assert [b.where for b in index.of("ghcr.io/acme/trainer:1")] == ["Makefile:6"]
    assert index.of("other.registry/trainer") == ()  # the default names acme/trainer, nothing else
    assert [b.where for b in index.of("acme/ci-app")] == [".github/workflows/b.yml:7"]
    assert [b.where for b in index.of("acme/lab-app")] == [".gitlab-ci.yml:3"]
    assert make_variables("A ?= x\nA := y\n\tB = z\nC = $(shell pwd)\n") == {"A": "y", "B": "z"}  # as make gives them
    assert make_variables("ifeq ($(X),1)\nIMAGE = a\nelse\nIMAGE = b\nendif\n") == {}  # two possible values: none


def test_make_variables_bounded() -> None:
    """Values that double each round stop at a bound instead of growing without end."""
    text = "".join(f"V{i} = $(V{i + 1})$(V{i + 1})\n" for i in range(40)) + "V40 = " + "x" * 400 + "\n"
    found = make_variables(text)
    assert all(len(value) <= 512 for value in found.values())
    assert found["V40"] == "x" * 400


def test_compose_service_takes_a_workflow_build(tmp_path: Path) -> None:
    """A compose service that only names its image is judged by the Dockerfile a workflow builds it from, and says
    where; a service with a build of its own keeps it (its plain Ubuntu base decides nothing)."""
    found = _check(
        tmp_path,
        {
            "docker/train.Dockerfile": "FROM ultralytics/ultralytics:8.3.0\n",
            ".github/workflows/image.yml": (
                "on: push\njobs:\n  image:\n    runs-on: ubuntu-latest\n    steps:\n"
                "      - uses: docker/build-push-action@v6\n        with:\n          file: docker/train.Dockerfile\n"
                "          tags: ${{ env.REGISTRY }}/acme/train:${{ github.sha }}\n"
            ),
            "deploy/compose.yaml": (
                "services:\n  train:\n    image: ghcr.io/acme/train:main\n    gpus: all\n"
                "  other:\n    image: ghcr.io/acme/other:main\n    build: ./other\n    gpus: all\n"
            ),
            "deploy/other/Dockerfile": "FROM ubuntu:22.04\n",
        },
    )
    assert [severity for severity, _ in found] == ["error", "info"]
    assert "train.Dockerfile:1 (build at .github/workflows/image.yml:6)" in found[0][1]


def test_cd_before_the_build(tmp_path: Path) -> None:
    """``cd tools/image && docker build .`` in a walkthrough under docs/: the folder the ``cd`` names, below the
    top of the repository; ``cd $X`` or ``cd ..`` is not followed."""
    index = _index(
        tmp_path,
        {
            "tools/image/Dockerfile": "FROM a\n",
            "Dockerfile": "FROM b\n",
            "docs/walk.md": (
                "```bash\ncd tools/image && docker build -t acme/tool .\n```\n"
                "```bash\ncd $HOME\ndocker build -t acme/top .\n```\n"
            ),
        },
    )
    root = os.path.realpath(tmp_path)
    assert [b.dockerfile for b in index.of("acme/tool")] == [os.path.join(root, "tools", "image", "Dockerfile")]
    assert [b.dockerfile for b in index.of("acme/top")] == [os.path.join(root, "Dockerfile")]


_GUIDE = """# Serving

```dockerfile
# the image
FROM nvidia/cuda:12.6-devel-ubuntu22.04
RUN pip install vllm==0.10.0
CMD ["vllm", "serve", "/models/m", "--tensor-parallel-size", "2"]
```

Build and run it:

```bash
docker build -t acme/served .
docker run --gpus all -p 8000:8000 acme/served
```
"""


def test_a_dockerfile_written_in_the_guide_that_builds_it(tmp_path: Path) -> None:
    """A guide that writes a Dockerfile as a code block, then builds and runs it: the block is the image's
    Dockerfile, quoted at the guide's own lines."""
    found = _check(tmp_path, {"docs/serve.md": _GUIDE})
    ((severity, text),) = found
    assert severity == "error"
    assert "built by docs/serve.md:7 (build at docs/serve.md:13)" in text


@pytest.mark.parametrize(
    ("files", "dockerfile", "base"),
    [
        # an untagged block that starts with FROM is a Dockerfile; Python's `from x import y` is not
        ({"g.md": "```\nFROM a\nCMD x\n```\n```\ndocker build -t t .\n```\n"}, "g.md", "a"),
        ({"g.md": "```\nfrom a import b\n```\n```\ndocker build -t t .\n```\n"}, None, ""),
        # the last block before the build line, never one after it
        (
            {"g.md": "```dockerfile\nFROM a\n```\n```Dockerfile\nFROM b\n```\n```sh\ndocker build -t t .\n```\n"},
            "g.md",
            "b",
        ),
        ({"g.md": "```bash\ndocker build -t t .\n```\n```dockerfile\nFROM a\n```\n"}, None, ""),
        # a file the build names is read, the document's block only stands in when there is none
        (
            {"Dockerfile": "FROM f\n", "g.md": "```dockerfile\nFROM a\n```\n```sh\ndocker build -t t .\n```\n"},
            "Dockerfile",
            "f",
        ),
        ({"g.md": "```dockerfile\nFROM a\n```\n```sh\ndocker build -t t -f Dockerfile.gpu .\n```\n"}, None, ""),
        ({"g.md": "```dockerfile\nFROM a\n```\n```sh\ndocker build -t t -f sub/Dockerfile .\n```\n"}, None, ""),
        ({"g.md": "```dockerfile\nFROM a\n```\n```sh\ndocker build -t t -f ./Dockerfile .\n```\n"}, "g.md", "a"),
        # a fragment the guide adds (no FROM) is no Dockerfile of its own; ARG lines may come before FROM
        (
            {"g.md": "```dockerfile\nFROM a\n```\n```dockerfile\nENV PORT=1\n```\n```sh\ndocker build -t t .\n```\n"},
            "g.md",
            "a",
        ),
        (
            {"g.md": "```\n# syntax=docker/dockerfile:1\nARG V=1\nFROM a\n```\n```sh\ndocker build -t t .\n```\n"},
            "g.md",
            "a",
        ),
        # reStructuredText's code directive
        ({"g.rst": ".. code-block:: dockerfile\n\n   FROM a\n\n::\n\n   docker build -t t .\n"}, "g.rst", "a"),
    ],
)
def test_which_dockerfile_block_a_build_reads(
    tmp_path: Path, files: dict[str, str], dockerfile: str | None, base: str
) -> None:
    index = _index(tmp_path, files)
    built = index.of("t")
    if dockerfile is None:
        assert built == ()
        return
    (build,) = built
    assert build.dockerfile == os.path.join(os.path.realpath(tmp_path), dockerfile)
    text = Path(build.dockerfile).read_text()
    read = text[build.block[0] : build.block[1]] if build.block else text
    assert read[read.index("FROM") :].split()[:2] == ["FROM", base]


def test_two_blocks_of_one_guide_are_two_images(tmp_path: Path) -> None:
    """One name built from two blocks of a guide reads as two builds, so neither is followed for it."""
    index = _index(
        tmp_path,
        {
            "g.md": "```dockerfile\nFROM a\n```\n```sh\ndocker build -t t .\n```\n```dockerfile\nFROM b\n```\n```sh\ndocker build -t t .\n```\n"
        },
    )
    assert len(index.of("t")) == 2


_PIECES = st.lists(
    st.one_of(
        st.from_regex(r"[a-z]{1,6}", fullmatch=True).map(lambda base: ("dockerfile", base)),
        st.just(("build", "")),
        st.sampled_from([("prose", "Some words.\n"), ("prose", "```python\nfrom a import b\n```\n")]),
    ),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(_PIECES)
def test_each_build_of_a_guide_reads_the_block_before_it(pieces: list[tuple[str, str]]) -> None:
    import tempfile

    text, expected, last = "", set(), None
    for kind, value in pieces:
        if kind == "dockerfile":
            text += f"```dockerfile\nFROM {value}\n```\n"
            last = value
        elif kind == "build":
            text += "```sh\ndocker build -t t .\n```\n"
            if last is not None:
                expected.add(last)
        else:
            text += value
    with tempfile.TemporaryDirectory() as folder:
        index = _index(Path(folder), {"g.md": text})
        read = {text[b.block[0] : b.block[1]].split()[1] for b in index.of("t") if b.block}
    assert read == expected


def test_a_guides_block_gives_way_to_a_build_that_reads_a_file(tmp_path: Path) -> None:
    """A README that shows a short Dockerfile for the name a script builds from the real one explains the image;
    the script's build is the image's, not one of two different ways."""
    index = _index(
        tmp_path,
        {
            "docker/Dockerfile": "FROM real\n",
            "build.sh": "docker build -t t -f docker/Dockerfile .\n",
            "README.md": "```dockerfile\nFROM shown\n```\n```sh\ndocker build -t t .\n```\n",
        },
    )
    (build,) = index.of("t")
    assert build.block is None and build.dockerfile == os.path.join(os.path.realpath(tmp_path), "docker", "Dockerfile")


def test_a_context_named_for_the_clone_is_the_repository(tmp_path: Path) -> None:
    """audit54a (retinanet-examples): a guide clones the repository and builds it by the clone's folder name
    (``docker build -t odtk:latest retinanet-examples/``): no folder of that name is in the repository, which is
    that folder. Another name stays unbuilt."""
    root = tmp_path / "checkout"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = https://github.com/acme/detector.git\n')
    readme = (
        "```bash\ngit clone https://github.com/acme/detector\ndocker build -t acme/det:1 detector/\n"
        "docker run --gpus all acme/det:1\n```\n"
    )
    dockerfile = 'FROM python:3.11\nCMD ["torchrun", "--nproc_per_node", "4", "train.py"]\n'
    ((severity, text),) = _check(root, {"README.md": readme, "Dockerfile": dockerfile})
    assert severity == "error" and "Dockerfile:2" in text, text
    ((severity, text),) = _check(root, {"README.md": readme.replace("detector/", "other/")})
    assert severity == "info", text


@pytest.mark.parametrize(
    ("dockerfile", "run", "severity"),
    [
        ("Dockerfile", "docker run --gpus all $(docker build . -q -t trainer)\n", "error"),  # the ID the build prints
        ("Dockerfile", "docker run --gpus all $(sudo docker build --tag=trainer -q .)\n", "error"),
        ("dockerfile", "docker build -t trainer .\ndocker run --gpus all trainer\n", "error"),  # lower case
        ("dockerfile", "docker run --gpus all $(docker build . -q -t trainer)\n", "error"),  # both (audit65a)
        ("Dockerfile", "docker run --gpus all $(docker build -q .)\n", "info"),  # an ID without a tag names nothing
    ],
)
def test_a_run_of_the_image_a_script_builds_reads_its_build(
    tmp_path: Path, dockerfile: str, run: str, severity: str
) -> None:
    """``docker run $(docker build -q -t NAME .)`` runs the image that build makes, and a context's lower-case
    ``dockerfile`` is what docker and BuildKit read when it holds no ``Dockerfile`` (moby/moby#10858)."""
    found = _check(
        tmp_path,
        {
            dockerfile: 'FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n',
            "t.py": "from torch.utils.data import DataLoader\nDataLoader(range(9), num_workers=8)\n",
            "run.sh": run,
        },
    )
    assert [label for label, _ in found] == [severity]
    assert ("t.py:2 DataLoader(num_workers=8)" in found[0][1]) == (severity == "error")


@pytest.mark.parametrize(
    ("name", "kind"),
    [("Dockerfile", "dockerfile"), ("dockerfile", "dockerfile"), ("containerfile", "dockerfile"), ("DOCKERFILE", None)],
)
def test_the_names_a_build_reads_as_its_dockerfile_are_dockerfiles(name: str, kind: str | None) -> None:
    from shmlint.discover import kind_by_name

    found = kind_by_name(Path("ctx") / name)
    assert (found.value if found is not None else None) == kind


_TRAINER = "from torch.utils.data import DataLoader\nDataLoader(range(9), num_workers=6)\n"


@pytest.mark.parametrize(
    ("dockerfile", "code", "severity"),
    [
        ('FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n', _TRAINER, "error"),
        ('FROM python:3.11\nRUN pip install torch==2.4.1\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n', _TRAINER, "error"),
        ('FROM python:3.11\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n', _TRAINER, None),  # torch by no build or name
        ('FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n',
         "import torch\nprint(torch.ones(2))\n", None),  # torch work on the CPU whose walk shows no need
    ],
)  # fmt: skip
def test_a_cpu_container_of_an_image_the_repository_builds_with_torch_is_torch_work(
    tmp_path: Path, dockerfile: str, code: str, severity: str | None
) -> None:
    """A ``docker run`` with no GPU of an image the repository builds FROM a torch image, or with torch installed,
    runs torch work on the CPU (audit67a: a challenge's template built FROM pytorch/pytorch, six loader workers):
    what its code shows decides, as for a GPU container; a build without torch, or code without a need, says
    nothing."""
    found = _check(
        tmp_path,
        {"Dockerfile": dockerfile, "t.py": code, "run.sh": "docker build -t trainer .\ndocker run --rm trainer\n"},
    )
    assert [label for label, _ in found] == ([severity] if severity else [])
    if severity:
        assert "t.py:2 DataLoader(num_workers=6)" in found[0][1]


def test_a_cpu_pod_of_an_image_the_repository_builds_with_torch_is_torch_work(tmp_path: Path) -> None:
    """The same for a Kubernetes container that asks for no GPU in a file the text prefilter reads (a served
    model's GPU Deployment beside it): its image's build, in a Makefile, is FROM PyTorch. (A file with no GPU,
    torch, shm or build word at all is read for syntax only: ``shmlint.prefilter``.)"""
    pod = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: train\n          image: registry.example.com/acme/trainer:v1\n"
        "      restartPolicy: Never\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: serve\nspec:\n"
        "  containers:\n    - name: serve\n      image: registry.example.com/acme/server:v1\n      command: [sleep, infinity]\n"
        "      resources:\n        limits:\n          nvidia.com/gpu: 1\n"
    )
    files = {
        "Makefile": "build:\n\tdocker build -t registry.example.com/acme/trainer:v1 .\n",
        "Dockerfile": 'FROM nvcr.io/nvidia/pytorch:24.05-py3\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n',
        "t.py": _TRAINER,
        "k8s/job.yaml": pod,
    }
    (trainer, holder) = _check(tmp_path, files)
    assert trainer[0] == "error" and "t.py:2 DataLoader(num_workers=6)" in trainer[1], trainer
    assert holder[0] == "info" and 'container "serve"' in holder[1]
    files["Makefile"] = "build:\n\tdocker build -t registry.example.com/acme/other:v1 .\n"  # another image
    assert [severity for severity, _ in _check(tmp_path, files)] == ["info"]


def test_a_guide_that_types_training_into_a_cpu_container_of_a_torch_build_fails(tmp_path: Path) -> None:
    """The PhysioNet Challenge's example README (audit67a: a team's copy whose training has six loader workers): an
    indented transcript builds the image FROM PyTorch, opens its shell with no GPU, and trains at a prompt whose
    host it elides (``root@[...]:/challenge#``)."""
    readme = (
        "4. Build and run:\n\n        user@computer:~/example$ docker build -t image .\n\n        Sending build "
        "context to Docker daemon  [...]kB\n\n        user@computer:~/example$ docker run -it -v ~/example/model:"
        "/challenge/model image bash\n\n        root@[...]:/challenge# ls\n            Dockerfile  t.py\n\n"
        "        root@[...]:/challenge# python t.py -d training_data -m model -v\n\n"
        "        root@[...]:/challenge# exit\n        Exit\n"
    )
    dockerfile = "FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nRUN mkdir /challenge\nCOPY ./ /challenge\n"
    dockerfile += "WORKDIR /challenge\n"
    found = _check(tmp_path, {"README.md": readme, "Dockerfile": dockerfile, "t.py": _TRAINER})
    assert [(severity, "t.py:2 DataLoader(num_workers=6)" in text) for severity, text in found] == [("error", True)]


def test_a_builds_torch_base_is_worked_out_once_an_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review: every CPU run of one image parsed its Dockerfile again (2,000 runs: 10 s); it is read once a run."""
    from shmlint.project import image_build

    calls: list[str] = []
    real = image_build._torch_build

    def counting(launch: object, image: str, *rest: object) -> str | None:
        calls.append(image)
        return real(launch, image, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(image_build, "_torch_build", counting)
    runs = "".join(f"docker run --rm trainer python /t.py --step {i}\n" for i in range(50))
    dockerfile = 'FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n'
    found = _check(
        tmp_path, {"Dockerfile": dockerfile, "t.py": _TRAINER, "run.sh": f"docker build -t trainer .\n{runs}"}
    )
    assert len(found) == 50 and calls == ["trainer"]


def test_a_cpu_compose_service_of_an_image_the_repository_builds_with_torch_is_torch_work(tmp_path: Path) -> None:
    """The review: compose read it as nothing where a ``docker run`` of the same image failed the gate. (A compose
    file read at all: a GPU service beside it, as for the pod; ``shmlint.prefilter``.)"""
    compose = (
        "services:\n  train:\n    image: acme/trainer:v1\n  serve:\n    image: acme/server:v1\n"
        "    command: sleep infinity\n    gpus: all\n"
    )
    files = {
        "build.sh": "docker build -t acme/trainer:v1 .\n",
        "Dockerfile": 'FROM pytorch/pytorch:2.4.1-cuda12.1-cudnn9-devel\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n',
        "t.py": _TRAINER,
        "deploy/compose.yaml": compose,
    }
    found = _check(tmp_path, files)
    assert [severity for severity, _ in found] == ["error", "info"], found
    assert 'service "train"' in found[0][1] and "t.py:2 DataLoader(num_workers=6)" in found[0][1]


@pytest.mark.parametrize(
    ("project", "label"), [("setup.py", "error"), ("pyproject.toml", "error"), ("README.md", "info")]
)
def test_a_src_layout_is_on_the_path_of_the_project_it_installs(tmp_path: Path, project: str, label: str) -> None:
    """audit87a: ``from acseg.data import ...`` in ``src/acseg/train.py`` reaches ``src/acseg/data.py`` of the
    Python project the image installs (``pip install -e .``: a src layout); with no project file, ``src/`` is not
    on the path."""
    compose = (
        "services:\n  a:\n    build: {context: .., dockerfile: ./docker/Dockerfile}\n"
        "    command: python /workspace/src/acseg/train.py\n    runtime: nvidia\n"
    )
    found = _check(
        tmp_path,
        {
            "docker/Dockerfile": f"FROM nvcr.io/nvidia/pytorch:23.10-py3\nCOPY {project} .\nCOPY src src\nRUN pip install -e .\n",
            "docker/compose.yaml": compose,
            project: "",
            "src/acseg/__init__.py": "",
            "src/acseg/train.py": "from acseg.data import make\nloader = make()\n",
            "src/acseg/data.py": "from torch.utils.data import DataLoader\ndef make():\n    return DataLoader(ds, num_workers=4)\n",
        },
    )
    assert [severity for severity, _ in found] == [label]
