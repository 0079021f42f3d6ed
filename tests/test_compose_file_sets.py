"""Compose files merged as the repository runs them (``-f`` sets in scripts, Makefiles and docs, ``COMPOSE_FILE`` in
``.env``), and build files that run nothing: an override is never judged alone as if it were the whole project, and
no fix lowers the /dev/shm the merged service gets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.formats.compose.extract import extract_compose
from shmlint.formats.compose.file_sets import _file_options, named_sets
from shmlint.model import Notice, Workload
from shmlint.parsers.yamlnodes import compose
from shmlint.project.index import MAX_ENTRIES, ProjectFiles
from shmlint.signals import Signals
from shmlint.source import SourceText
from tests.support import run_shmlint

BASE = "services:\n  train:\n    image: ghcr.io/acme/train:1\n    command: torchrun --nproc_per_node=2 train.py\n    shm_size: 128g\n"
GPU = "services:\n  train:\n    deploy:\n      resources:\n        reservations:\n          devices:\n"
GPU += "            - capabilities: [gpu]\n"
UNSIZED_BASE = (
    "services:\n  train:\n    image: ghcr.io/acme/train:1\n    command: torchrun --nproc_per_node=2 train.py\n"
)
DEV_CONTAINER = '{"dockerComposeFile": "../docker-compose.yml", "service": "train", "hostRequirements": {"gpu": true}}'
SET = "docker compose -f docker-compose.yml -f docker-compose.gpu.yml up -d\n"


def tree(tmp_path: Path, base: str = BASE, **others: str) -> Path:
    (tmp_path / "docker-compose.yml").write_text(base)
    (tmp_path / "docker-compose.gpu.yml").write_text(GPU)
    for name, text in others.items():
        (tmp_path / name.replace("_", ".")).write_text(text)
    return tmp_path


def findings(invoke, *paths: Path) -> list[tuple[str, str, int]]:
    result = invoke("check", "--format", "json", *map(str, paths))
    return [(Path(f["path"]).name, f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def test_an_override_named_with_its_base_in_a_makefile_is_judged_merged(tmp_path: Path, invoke) -> None:
    tree(tmp_path, Makefile=f"up:\n\t{SET}")
    assert findings(invoke, tmp_path / "docker-compose.gpu.yml") == []  # the base's 128g applies
    result = invoke("check", str(tmp_path / "docker-compose.gpu.yml"))
    assert "judged merged with the compose files docker-compose.yml, docker-compose.gpu.yml, as Makefile:2" in (
        result.stdout
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Makefile", f"up:\n\t@{SET}"),  # make's ``@`` is no part of the command
        ("Makefile", f"COMPOSE = {SET.replace(' up -d', '')}up:\n\t$(COMPOSE) up -d\n"),  # a variable's command
        ("README.md", f"Run `docker compose up -d` on a CPU or `{SET.strip()}` on a GPU.\n"),  # inline code
        ("README.md", f"It's one command:\n\n```sh\n{SET}```\n"),  # an apostrophe of prose before the block
    ],
)
def test_a_set_is_named_as_its_file_writes_the_command(tmp_path: Path, invoke, name: str, text: str) -> None:
    tree(tmp_path, **{name.replace(".", "_"): text})
    result = invoke("check", str(tmp_path / "docker-compose.gpu.yml"))
    assert f"as {name}:" in result.stdout and "judged merged" in result.stdout, result.stdout


def test_no_fix_lowers_the_merged_size(tmp_path: Path, invoke) -> None:
    tree(tmp_path, run_sh=f"#!/bin/sh\n{SET}")
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert invoke("fix", "--write", "--undecided=show", str(tmp_path)).exit_code == 0
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("up", [1, 3])
def test_a_set_named_in_a_folder_above_is_used(tmp_path: Path, invoke, up: int) -> None:
    """A repository's root Makefile names ``-f docker/compose.yaml -f docker/compose.gpu.yaml``: checked alone (as
    pre-commit hands it over) or with the tree, the override is judged merged, and no fix lowers the base's 128g."""
    (tmp_path / ".git").mkdir()
    folder = tmp_path.joinpath(*(["d"] * up))
    tree(folder.mkdir(parents=True) or folder)
    named = "/".join(["d"] * up)
    (tmp_path / "Makefile").write_text(
        f"up:\n\tdocker compose -f {named}/docker-compose.yml -f {named}/docker-compose.gpu.yml up\n"
    )
    assert findings(invoke, folder / "docker-compose.gpu.yml") == []
    before = (folder / "docker-compose.gpu.yml").read_text()
    assert invoke("fix", "--write", "--undecided=show", str(tmp_path)).exit_code == 0
    assert (folder / "docker-compose.gpu.yml").read_text() == before


@pytest.mark.parametrize(("named", "merged"), [(SET, True), (SET.replace("gpu.yml", "cpu.yml"), False)])
def test_a_set_named_by_file_names_alone_above_is_the_folders_that_holds_them(
    tmp_path: Path, invoke, named: str, merged: bool
) -> None:
    """A README at the top runs ``docker compose -f docker-compose.yml -f docker-compose.gpu.yml up`` after its
    ``cd docker`` (audit69d): no such files are at the top, and both are in ``docker/``: the set is that folder's.
    A set one of whose files is not there is not."""
    (tmp_path / ".git").mkdir()
    folder = tmp_path / "docker"
    folder.mkdir()
    tree(folder)
    (tmp_path / "README.md").write_text(f"```sh\ncd docker\n{named}```\n")
    result = invoke("check", "--undecided=show", str(tmp_path))
    assert ("as README.md:3 runs them" in result.stdout) == merged, result.stdout


def test_a_set_in_dot_env_is_used(tmp_path: Path, invoke) -> None:
    tree(tmp_path, UNSIZED_BASE, _env="COMPOSE_FILE=docker-compose.yml:docker-compose.gpu.yml\n")
    # the GPU comes from the override, the service lives in the base: the finding is there, with its fix
    assert findings(invoke, tmp_path) == [("docker-compose.yml", "SHM001", 2)]
    assert invoke("fix", "--write", str(tmp_path)).exit_code == 0
    base = yaml.safe_load((tmp_path / "docker-compose.yml").read_text())
    assert base["services"]["train"]["shm_size"] == "8gb"


def test_a_base_without_any_signal_is_still_read_when_a_set_names_it(tmp_path: Path, invoke) -> None:
    plain = "services:\n  train:\n    image: ghcr.io/acme/train:1\n    command: [python, -m, trainer]\n"
    tree(tmp_path, plain)
    base = str(tmp_path / "docker-compose.yml")
    assert "SHM001" not in invoke("check", "--undecided=show", base).stdout  # alone: no accelerator, nothing to say
    (tmp_path / "README.md").write_text(f"Run it:\n\n```sh\n{SET}```\n")
    assert "docker-compose.yml:2:3: SHM001 [info]" in invoke("check", "--undecided=show", base).stdout


def test_a_part_of_a_service_beside_is_not_judged_alone(tmp_path: Path, invoke) -> None:
    """Nobody names the set: the override's service has neither an image nor a build (compose cannot run it alone)
    and the file beside defines it with an image, so it is a part of that service, said in a note, never a
    finding a fix could lower the base's 128g through. The control: with no such file beside it is judged."""
    tree(tmp_path)
    for number in range(30):  # a folder of many files: compose files beside are looked for among them all
        (tmp_path / f"a{number}.txt").write_text("")
    result = invoke("check", "--undecided=show", str(tmp_path / "docker-compose.gpu.yml"))
    assert "SHM001" not in result.stdout and 'service "train" has neither an image nor a build' in result.stdout
    before = (tmp_path / "docker-compose.gpu.yml").read_text()
    assert invoke("fix", "--write", "--undecided=show", str(tmp_path)).exit_code == 0
    assert (tmp_path / "docker-compose.gpu.yml").read_text() == before
    (tmp_path / "docker-compose.yml").unlink()
    result = invoke("check", "--undecided=show", str(tmp_path / "docker-compose.gpu.yml"))
    assert "SHM001 [info]" in result.stdout and "judged merged" not in result.stdout


VLLM_BASE = "services:\n  vllm:\n    build:\n      context: ./vllm\n    ipc: host\n"
ROCM_OVERLAY = (
    "services:\n  vllm:\n    devices:\n      - /dev/kfd\n      - /dev/dri\n    build:\n      args:\n        BASE: rocm/vllm\n"
    "    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]\n"
)


def test_an_overlay_whose_build_only_gives_args_is_a_part_of_the_service_beside(tmp_path: Path, invoke) -> None:
    """Found on an untuned repository (audit49): an overlay that gives the base's build other ``args`` and runs vLLM
    on AMD GPUs was an error, while the base beside it (merged with it by the project's own launcher) shares the
    host's IPC. A build with no context of its own is a part of the service beside, or, with no Dockerfile in its
    folder to build, of one elsewhere. The control: alone beside a Dockerfile, such a build builds it, and the
    service is judged."""
    (tmp_path / "compose.vllm.yml").write_text(VLLM_BASE)
    (tmp_path / "compose.x.vllm.rocm.yml").write_text(ROCM_OVERLAY)
    result = invoke("check", "--undecided=show", str(tmp_path / "compose.x.vllm.rocm.yml"))
    assert "SHM001" not in result.stdout, result.stdout
    assert 'service "vllm" builds with neither a context nor a Dockerfile, and compose.vllm.yml beside' in result.stdout
    (tmp_path / "compose.vllm.yml").unlink()
    result = invoke("check", "--undecided=show", str(tmp_path / "compose.x.vllm.rocm.yml"))
    assert "SHM001" not in result.stdout and "its folder holds no Dockerfile" in result.stdout, result.stdout
    (tmp_path / "Dockerfile").write_text("FROM rocm/vllm\n")
    result = invoke("check", "--undecided=show", str(tmp_path / "compose.x.vllm.rocm.yml"))
    assert "compose.x.vllm.rocm.yml:2:3: SHM001 [info]" in result.stdout, result.stdout


def test_the_service_beside_is_found_among_every_listed_compose_file(tmp_path: Path, invoke) -> None:
    """The base was looked for among the first 16 compose files of the folder only: in a folder of 40 overlays it
    was not found, and each overlay was judged alone as if it had 64 MiB. Now every listed compose file is read
    once a run for the services it defines whole."""
    for number in range(40):
        (tmp_path / f"compose.a{number:02d}.yml").write_text(f"services:\n  app{number}:\n    image: app:1\n")
    (tmp_path / "compose.x.train.nvidia.yml").write_text(GPU)
    (tmp_path / "compose.zz.train.yml").write_text(BASE)
    result = invoke("check", "--undecided=show", str(tmp_path / "compose.x.train.nvidia.yml"))
    assert "SHM001" not in result.stdout
    assert 'service "train" has neither an image nor a build, and compose.zz.train.yml beside' in result.stdout


def test_a_service_with_neither_image_nor_build_in_a_folder_too_big_to_list_is_a_part(tmp_path: Path, invoke) -> None:
    """More entries than a folder's listing holds: the file that defines the service may be among the rest, and
    compose cannot run a service with neither an image nor a build alone, so it is a part, said in a note. The
    control: the same file in a small folder with no base beside is judged."""
    for number in range(MAX_ENTRIES + 10):
        (tmp_path / f"compose.a{number:03d}.yml").write_text(f"services:\n  app{number}:\n    image: app:1\n")
    (tmp_path / "compose.x.train.nvidia.yml").write_text(GPU)
    result = invoke("check", "--undecided=show", str(tmp_path / "compose.x.train.nvidia.yml"))
    assert "SHM001" not in result.stdout
    assert "folder has more entries than are listed" in result.stdout
    alone = tmp_path / "small"
    alone.mkdir()
    (alone / "compose.x.train.nvidia.yml").write_text(GPU)
    assert "SHM001 [info]" in invoke("check", "--undecided=show", str(alone)).stdout


def test_a_set_with_a_path_known_only_at_run_time_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "up.sh").write_text('docker compose -f docker-compose.yml -f "$GPU_FILE" up\n')
    assert named_sets(ProjectFiles(None, 1 << 20), str(tmp_path)) == []


def test_options_after_the_subcommand_are_the_subcommands(tmp_path: Path) -> None:
    (tmp_path / "logs.sh").write_text(
        "docker compose -f a.yml logs -f b.yml\ndocker-compose --file=a.yml -f b.yml up\n"
    )
    (found,) = named_sets(ProjectFiles(None, 1 << 20), str(tmp_path))
    assert found.files == (str(tmp_path / "a.yml"), str(tmp_path / "b.yml")) and found.where == "logs.sh:2"


def test_global_options_with_values_are_skipped() -> None:
    words = ["podman", "compose", "-p", "x", "--env-file", "e", "-f", "a.yml", "--profile", "gpu", "-f", "b.yml", "up"]
    assert list(_file_options(words, [False] * len(words))) == ["a.yml", "b.yml"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("docker compose -f a.yml$\"'\\\n\t;&|()=")), max_size=200))
def test_any_script_text_is_read_without_error(text: str) -> None:
    words = text.split()
    assert all(f is None or isinstance(f, str) for f in _file_options(words, [False] * len(words)))


def test_a_build_file_runs_nothing(tmp_path: Path, invoke) -> None:
    build = "services:\n  vllm:\n    build: .\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
    (tmp_path / "docker-compose.build.yml").write_text(build)
    result = invoke("check", str(tmp_path / "docker-compose.build.yml"))
    assert result.exit_code == 0 and "a build file (every service only builds an image)" in result.stdout
    (tmp_path / "docker-compose.yml").write_text(build)  # the same service in a file `up` runs: judged
    assert ("docker-compose.yml", "SHM001", 2) in findings(invoke, tmp_path / "docker-compose.yml")


COMPOSE_BASE = "services:\n  trainer:\n    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n{shm}"


COMPOSE_OVERRIDE = """\
services:
  trainer:
    command: torchrun --nproc_per_node=2 train.py
{shm}    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: all
              capabilities: [gpu]
"""


def _compose_pair(folder: Path, base_shm: str, override_shm: str) -> dict[str, str]:
    files = {
        "compose.yaml": COMPOSE_BASE.format(shm=base_shm),
        "compose.override.yaml": COMPOSE_OVERRIDE.format(shm=override_shm),
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return files


def test_a_too_small_override_is_fixed_in_the_override(tmp_path: Path) -> None:
    """The finding is in compose.override.yaml, whose shm_size wins over compose.yaml's; the
    fix used to rewrite compose.yaml's (no change to what runs) and say "Fixed 1"."""
    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: 64m\n")
    fixed = run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 0 and "compose.override.yaml: fixed 1 finding(s)" in fixed.stdout, fixed.stderr
    assert (tmp_path / "compose.yaml").read_text() == files["compose.yaml"]
    assert 'shm_size: "8gb"' in (tmp_path / "compose.override.yaml").read_text()
    assert run_shmlint("check", ".", cwd=tmp_path).returncode == 0  # the finding is gone: the fix held


def test_a_fix_a_reset_would_undo_is_not_offered_written_nor_counted(tmp_path: Path) -> None:
    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: !reset null\n")
    checked = run_shmlint("check", ".", cwd=tmp_path)
    assert checked.returncode == 1 and "SHM001" in checked.stdout
    assert "fixable" not in checked.stdout  # not offered: an edit of either file would not be what runs
    fixed = run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr  # the finding stays, at fail-on: the run fails and says so
    assert "(0 fixed in 0 file(s), 1 remaining)" in fixed.stdout + fixed.stderr
    assert {name: (tmp_path / name).read_text() for name in files} == files  # nothing rewritten


def test_a_fix_the_override_does_not_undo_is_written_where_it_holds(tmp_path: Path) -> None:
    _compose_pair(tmp_path, "", "")  # the override defines the service, but no shm_size: the base's wins
    fixed = run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 0 and "(1 fixed in 1 file(s), 0 remaining)" in fixed.stdout, fixed.stderr
    assert "shm_size" in (tmp_path / "compose.yaml").read_text()
    assert run_shmlint("check", ".", cwd=tmp_path).returncode == 0  # and it holds


def test_the_editor_quick_fix_edits_the_override_where_the_value_wins(tmp_path: Path) -> None:
    from shmlint.fix.apply import splice
    from shmlint.server.analysis import Analyzer

    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: 64m\n")
    analyzer = Analyzer()
    base = analyzer.check(tmp_path / "compose.yaml", files["compose.yaml"], "dockercompose")
    assert base.result.findings == () and analyzer.fix_all(base) is None  # nothing to do in compose.yaml
    path = tmp_path / "compose.override.yaml"
    override = analyzer.check(path, files["compose.override.yaml"], "dockercompose")
    [finding] = override.result.findings
    assert finding.code == "SHM005"
    fixed = splice(files["compose.override.yaml"], analyzer.quick_fix(override, finding))
    assert fixed == files["compose.override.yaml"].replace("64m", '"8gb"')


class MemoryFiles(ProjectFiles):
    """A tree held in memory: what the compose format knows of the files beside one is what the index answers."""

    def __init__(self, texts: dict[str, str]) -> None:
        super().__init__((), 0)  # the disk behind it: nothing may be read
        self.texts = texts

    def has_file(self, path: str) -> bool:
        return os.path.normpath(path) in self.texts

    def files_in(self, folder: str) -> tuple[str, ...]:
        return tuple(sorted(os.path.basename(p) for p in self.texts if os.path.dirname(p) == folder))

    def folders_in(self, folder: str) -> tuple[str, ...]:
        return ()

    def source(self, path: os.PathLike[str] | str) -> SourceText | None:
        text = self.texts.get(os.path.normpath(path))
        return SourceText(os.fspath(path), text) if text is not None else None


@pytest.mark.parametrize(
    "others",
    [
        {"Makefile": f"up:\n\t{SET}"},  # a set a Makefile names
        {".env": "COMPOSE_FILE=docker-compose.yml:docker-compose.gpu.yml\n"},
        {"docker-compose.override.yml": GPU},  # a default file and its override
        {".devcontainer/devcontainer.json": DEV_CONTAINER},  # a dev container that asks for a GPU
    ],
)
def test_the_compose_format_reads_its_neighbours_only_through_the_index(tmp_path: Path, others: dict[str, str]) -> None:
    """The same files on disk (read by the engine's ProjectFiles) and held in memory where no disk has them give
    the same workloads and notes, paths aside: the extractor takes the project as data."""
    texts = {"docker-compose.yml": UNSIZED_BASE, "docker-compose.gpu.yml": GPU, **others}
    for name, text in texts.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    nowhere = "/nowhere/app"
    memory = MemoryFiles({os.path.join(nowhere, name): text for name, text in texts.items()})

    def extracted(folder: str, files: ProjectFiles) -> tuple[list[Workload], list[Notice]]:
        source = files.source(os.path.join(folder, "docker-compose.yml"))
        assert source is not None
        return extract_compose(source, compose(source), Signals(), base_dir=Path(folder), files=files)

    on_disk = extracted(str(tmp_path), ProjectFiles(None, 1 << 20))
    (train,) = on_disk[0]
    assert train.gpu  # from the other file: the base alone reserves none
    in_memory = extracted(nowhere, memory)
    assert repr(in_memory).replace(nowhere, "<tree>") == repr(on_disk).replace(str(tmp_path), "<tree>")
