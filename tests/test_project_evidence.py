"""Evidence from the project (``shmlint.project``): each resolver on its own, the whole walk on the fixture
repositories of ``fixtures/project``, and the bounds (a repository of thousands of files costs the files named).
Python read with ``ast`` on its own is ``test_project_python.py``'s."""

from __future__ import annotations

import os
import pickle
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.model import (
    CodeFact,
    Launch,
    MountedConfig,
    Need,
    ProjectFacts,
    Tier,
)
from shmlint.need import builtin, decide
from shmlint.parsers.dockerfile import run_facts
from shmlint.parsers.programs import is_python, shell_operand
from shmlint.project import pyoptions
from shmlint.project.follow import STARTED_FILES, gather
from shmlint.project.index import ProjectFiles, ProjectIndex, Reader
from shmlint.project.launchers import UNKNOWN, Target, target
from shmlint.project.shellvars import MAX_ITEMS, expand_word, script_commands
from shmlint.runner import check_paths, project_for
from shmlint.settings import Settings
from shmlint.signals import Signals
from tests.support import FIXTURES
from tests.support import gather_facts as _gather
from tests.support import pod_workload as _workload
from tests.support import read_python as _read

PROJECTS = sorted(p for p in (FIXTURES / "project").iterdir() if p.is_dir())


# ---------------------------------------------------------------- shell expansion


def test_expand_word_forms() -> None:
    env = {"A": ("x",), "ARR": ("--a", "b c")}
    assert expand_word("$A", env) == ("x",)
    assert expand_word("pre${A}post", env) == ("prexpost",)
    assert expand_word("${B:-8}", env) == ("8",)
    assert expand_word("${ARR[@]}", env) == ("--a", "b c")
    assert expand_word("$@", env, ["1", "2"]) == ("1", "2")
    assert expand_word("$2", env, ["1", "2"]) == ("2",)
    assert expand_word("$B", env) == (UNKNOWN + "$B",)  # not given by the text: marked, never a guess
    assert expand_word("$(nproc)", env)[0].startswith(UNKNOWN)


def test_script_commands_assignments_arrays_and_arguments() -> None:
    text = (
        '#!/bin/bash\nN=${N:-2}\nexport CFG=c.yaml\nARGS=(--config "$CFG")\nARGS+=(--n $N)\n'
        'torchrun --nproc_per_node $N train.py "${ARGS[@]}" "$@"\n'
    )
    lines = script_commands(text, {"N": ("4",)}, ["--x", "1"])
    assert lines[-1].line == 6
    assert lines[-1].argv == (
        "torchrun", "--nproc_per_node", "4", "train.py", "--config", "c.yaml", "--n", "4", "--x", "1",
    )  # fmt: skip


_NAMES = st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True)
_SAFE = st.from_regex(r"[a-z0-9./=-]{1,12}", fullmatch=True)


@given(_NAMES, _SAFE)
def test_assigned_variable_expands_to_its_value(name: str, value: str) -> None:
    (line,) = [c for c in script_commands(f"{name}={value}\nrun ${name} ${{{name}}}\n", {}) if c.argv[0] == "run"]
    assert line.argv == ("run", value, value)


@given(_NAMES, st.lists(_SAFE, min_size=1, max_size=8))
def test_array_expands_to_its_items(name: str, items: list[str]) -> None:
    text = f'{name}=({" ".join(items)})\nrun "${{{name}[@]}}" end\n'
    (line,) = [c for c in script_commands(text, {}) if c.argv[0] == "run"]
    assert line.argv == ("run", *items, "end")


@pytest.mark.parametrize("items", [["do"], ["if", "x", "fi"], ["a", "done"], ["then", "while"]])
def test_array_items_that_are_reserved_words_are_items(items: list[str]) -> None:
    """``A=(do)`` is an array holding the word ``do``, not a subshell opening a loop body."""
    text = f'A=({" ".join(items)})\nrun "${{A[@]}}" end\n'
    (line,) = [c for c in script_commands(text, {}) if c.argv[0] == "run"]
    assert line.argv == ("run", *items, "end")


@settings(max_examples=200)
@given(st.text(alphabet="ab$={}()[]@\"' \n:-x", max_size=300))
def test_expansion_never_raises_and_stays_bounded(text: str) -> None:
    for line in script_commands(text, {"a": ("1",)}, ["p"]):
        assert len(line.argv) <= MAX_ITEMS * 300


# ---------------------------------------------------------------- launchers


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["python", "-u", "train.py", "--lr", "1"], Target("python", "train.py", ("--lr", "1"))),
        (["python3", "-m", "pkg.mod", "a"], Target("module", "pkg.mod", ("a",))),
        (["torchrun", "--nproc_per_node", "8", "t.py", "x"], Target("python", "t.py", ("x",), "torchrun")),
        (
            ["accelerate", "launch", "--config_file", "a.yaml", "t.py"],
            Target("python", "t.py", (), "accelerate launch"),
        ),
        (["deepspeed", "--num_gpus", "2", "t.py"], Target("python", "t.py", (), "deepspeed")),
        (
            ["python", "-m", "torch.distributed.run", "--nproc_per_node=2", "t.py"],
            Target("python", "t.py", (), "python -m torch.distributed.run"),
        ),
        (["torchrun", "-m", "pkg.train"], Target("module", "pkg.train", (), "torchrun")),
        (["bash", "-c", "python a.py"], Target("inline", "python a.py", ())),
        (["/bin/ash", "-c", "python a.py"], Target("inline", "python a.py", ())),  # Alpine's shell
        (["ash", "run.sh"], Target("shell", "run.sh", ())),
        (["exec", "env", "A=1", "bash", "run.sh", "x"], Target("shell", "run.sh", ("x",))),
        (["./run.sh"], Target("shell", "./run.sh", ())),
        (["./scripts/export.py", "-o", "x"], Target("python", "./scripts/export.py", ("-o", "x"))),
        (["python", "-c", "import x"], Target("code", "import x", ())),
        (["python3", "-u", "-c", "import x", "a"], Target("code", "import x", ("a",))),
        (["python", "-c"], None),
        (["sleep", "infinity"], None),
        (["pytest", "-v", "-k", "dist", "tests/test_d.py::test_a"], Target("python", "tests/test_d.py", ())),
        (["python", "-m", "pytest", "-x", "tests/t.py"], Target("python", "tests/t.py", ())),
        (["pytest", "tests/"], None),  # a folder: which files run is pytest's collection, not read
        # a project's environment runner runs the command after its own options
        (["uv", "run", "python", "src/deploy.py"], Target("python", "src/deploy.py", ())),
        (["uv", "run", "--with", "x", "--no-sync", "torchrun", "t.py"], Target("python", "t.py", (), "torchrun")),
        (["conda", "run", "-n", "env", "--no-capture-output", "python", "t.py"], Target("python", "t.py", ())),
        (["/usr/bin/poetry", "run", "--", "bash", "run.sh"], Target("shell", "run.sh", ())),
        (["uv", "pip", "install", "torch"], None),  # not ``run``: nothing is started
        (["uv", "run", "--index-url", "https://x", "python", "t.py"], Target("python", "t.py", ())),
        (
            ["uv", "run", "-m", "torch.distributed.run", "t.py"],
            Target("python", "t.py", (), "python -m torch.distributed.run"),
        ),
        # a server imports the application its reference names; a host and port is none
        (["uvicorn", "main:app", "--host", "0.0.0.0", "--port", "7580"], Target("imported", "main", ())),
        (
            ["gunicorn", "-b", "0.0.0.0:8000", "-k", "uvicorn.workers.UvicornWorker", "api.server:create_app()"],
            Target("imported", "api/server", ()),
        ),
        (["python", "-m", "uvicorn", "--reload", "app.main:app"], Target("imported", "app/main", ())),
        (["gunicorn", "--bind", "localhost:8000"], None),  # the application is in a config file: not read
        # an option's value is never the application, whatever it looks like
        (
            ["gunicorn", "--workers", "3", "--bind", "unix:myproject.sock", "-m", "007", "wsgi:app"],
            Target("imported", "wsgi", ()),
        ),
        (["gunicorn", "-c", "python:config.gunicorn", "app:app"], Target("imported", "app", ())),
        (["uvicorn", "--header", "server:custom", "main:app"], Target("imported", "main", ())),
        (["gunicorn", "--preload", "myproject.wsgi"], Target("imported", "myproject/wsgi", ())),  # Django's form
        # the folder the module is imported from
        (["uvicorn", "--app-dir", "backend", "main:app"], Target("imported", "main", (), search=("backend/main",))),
        (["gunicorn", "--chdir=/srv/api", "app:app"], Target("imported", "/srv/api/app", ())),
        (["gunicorn", "-w4", "-b:8000", "main:app"], Target("imported", "main", ())),  # values attached
        (["granian", "--interface", "asgi", "--respawn-failed-workers", "main:app"], Target("imported", "main", ())),
        # sys.path gains the folder; the working directory still finds the module
        (
            ["gunicorn", "--pythonpath", "/srv,/srv/lib", "app:app"],
            Target("imported", "app", (), search=("/srv/app", "/srv/lib/app")),
        ),
        (["uvicorn", "--app-dir", "$DIR", "main:app"], None),  # not known as written
        (["gradio", "deploy", "--app-file", "app.py"], None),  # uploads to a Space: nothing runs here
        (
            ["streamlit", "run", "app.py", "--", "--model", "x"],
            Target("python", "app.py", ("--model", "x"), app="streamlit"),
        ),
        (["python", "-m", "streamlit", "run", "ui/app.py"], Target("python", "ui/app.py", (), app="streamlit")),
        (
            ["fastapi", "run", "src/main.py", "--port", "80"],
            Target("python", "src/main.py", ("--port", "80"), app="fastapi"),
        ),
        (["gradio", "app.py"], Target("python", "app.py", (), app="gradio")),
        (["streamlit", "hello"], None),  # a demo of its own: no file of the repository
        # a Celery worker imports its application's module, where its tasks are defined
        (["celery", "-A", "worker.tasks", "worker", "--pool=solo"], Target("imported", "worker/tasks", ())),
        (["python", "-m", "celery", "--app=proj.app:celery", "worker"], Target("imported", "proj/app", ())),
        (["celery", "-Aproj", "worker"], Target("imported", "proj", ())),
        (["celery", "-A", "$APP", "worker"], None),  # not a module name: not read
    ],
)
def test_launcher_targets(argv: list[str], expected: Target | None) -> None:
    assert target(argv) == expected


_SERVER_WORDS = st.sampled_from(
    [
        *("--bind", "-b", "-c", "--header", "--no-access-log", "--app-dir", "run", "--", "-"),
        *("unix:api.sock", "python:conf", "0.0.0.0:80", "main:app", "pkg.mod", "a.b:create()", "app.py", "x", "$D"),
    ]
)


@given(st.sampled_from(["uvicorn", "gunicorn", "hypercorn", "streamlit", "fastapi", "gradio"]), st.lists(_SERVER_WORDS))
def test_a_server_target_is_never_an_options_value(program: str, words: list[str]) -> None:
    """Whatever words follow a server or runner, what it names is one of them and never the value of an option
    that takes one (``--bind unix:api.sock``, ``-c python:conf``): a module is a word's part before its colon,
    below the folder ``--app-dir`` names; a file is one of the words."""
    found = target([program, *words])
    valued = {"--bind", "-b", "-c", "--header", "--app-dir"}
    positional, value_next = [], False
    for i, word in enumerate(words):  # what docker, click and argparse alike read as a value or an argument
        if value_next:
            value_next = False
        elif word.startswith("-") and word != "-":
            value_next = word in valued or word == "--"
        else:
            positional.append(i)
    if found is not None and found.kind == "imported":
        first = words[positional[0]]
        assert first.partition(":")[0].replace(".", "/") == found.name.rpartition("/")[2] or found.name.endswith(
            first.partition(":")[0].replace(".", "/")
        )
    elif found is not None and found.kind == "python":
        assert found.name in words


# ---------------------------------------------------------------- Dockerfile


def test_dockerfile_env_is_the_stage_chains_and_quoted_as_the_shell_reads_it() -> None:
    text = 'FROM a AS b\nENV X=1 Y="two words"\nFROM b\nENV X 2\nENV Z="unbalanced\nFROM c AS other\nENV O=1\n'
    assert run_facts(text, target="b").env == (("X", "1"), ("Y", "two words"))
    assert run_facts(text.replace("FROM c AS other\nENV O=1\n", "")).env == (("X", "2"), ("Y", "two words"))


@pytest.mark.parametrize(("value", "needs"), [("0", False), ("4", True)])
def test_the_images_env_is_what_the_code_reads_unless_the_container_sets_it(
    tmp_path: Path, value: str, needs: bool
) -> None:
    """``ENV WORKERS=0`` in the Dockerfile the service builds: ``os.environ.get("WORKERS", 8)`` reads 0 there (the
    review: nnU-Net's ``nnUNet_n_proc_DA=0`` set in the image was not read); the service's own environment wins."""
    (tmp_path / "Dockerfile").write_text(
        f"FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\nENV WORKERS={value}\nCOPY train.py /app/train.py\n"
        'CMD ["python", "/app/train.py"]\n'
    )
    (tmp_path / "train.py").write_text(
        "import os\nfrom torch.utils.data import DataLoader\n"
        "DataLoader(range(9), num_workers=int(os.environ.get('WORKERS', 8)))\n"
    )
    (tmp_path / "compose.yaml").write_text("services:\n  t:\n    build: .\n    gpus: all\n")
    found = [f.severity.label for f in check_paths(Settings(), [tmp_path]).findings if f.code == "SHM001"]
    assert found == (["error"] if needs else [])
    (tmp_path / "compose.yaml").write_text(
        f"services:\n  t:\n    build: .\n    gpus: all\n    environment: [WORKERS={4 if value == '0' else 0}]\n"
    )
    found = [f.severity.label for f in check_paths(Settings(), [tmp_path]).findings if f.code == "SHM001"]
    assert found == ([] if needs else ["error"])


def test_dockerfile_run_facts() -> None:
    text = 'FROM pytorch/pytorch:2 AS base\nCMD ["python", "a.py"]\nFROM base\nWORKDIR /app\nENTRYPOINT ["x"]\n'
    facts = run_facts(text)
    assert facts.bases == (("pytorch/pytorch:2", 1),)
    assert facts.entrypoint == (("x",), 5)
    assert facts.cmd is None  # an ENTRYPOINT resets the CMD the stage inherits
    assert facts.workdir == "/app"
    assert run_facts("FROM a\nCMD python s.py\n").cmd == (("/bin/sh", "-c", "python s.py"), 2)


# ---------------------------------------------------------------- index and reader


def test_reader_stays_inside_roots(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "secret"
    root.mkdir()
    outside.mkdir()
    (outside / "x.py").write_text("DataLoader(ds, num_workers=2)")
    os.symlink(outside / "x.py", root / "link.py")
    (root / "app").mkdir()
    (root / "app" / "train.py").write_text("")
    reader = Reader(ProjectIndex.for_paths([root]), {})
    assert reader.locate([str(root)], "link.py") is None
    assert reader.locate([str(root)], "../secret/x.py") is None
    assert reader.locate([str(root)], "/workspace/app/train.py") == str((root / "app" / "train.py").resolve())


def _no_stat(path: object) -> bool:
    raise AssertionError(f"asked the system about {path}: the folder's listing answers")


def test_project_files_answer_from_the_folder_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder is listed once; its files, and the names it does not hold, are answered from the listing (a
    compose file's overrides and ``.env``), a link out of the roots is still refused."""
    root, outside = tmp_path / "repo", tmp_path / "secret"
    root.mkdir()
    outside.mkdir()
    (root / "compose.yaml").write_text("services: {}\n")
    (root / "sub").mkdir()
    (outside / ".env").write_text("TOKEN=x\n")
    os.symlink(outside / ".env", root / ".env")
    files = ProjectFiles((str(root.resolve()),), 1 << 20)
    assert files.files_in(str(root)) and files.folders_in(str(root)) == ("sub",)
    monkeypatch.setattr(os.path, "isfile", _no_stat)
    assert files.has_file(str(root / "compose.yaml"))
    assert not files.has_file(str(root / "compose.override.yaml"))
    assert not files.has_file(str(root / "sub"))  # a folder is no file
    assert files.source(str(root / "docker-compose.override.yml")) is None
    assert not files.has_file(str(root / ".env")) and files.source(str(root / ".env")) is None  # a link out


def test_project_files_ask_the_system_where_the_listing_cannot_say(tmp_path: Path) -> None:
    """A folder past ``MAX_ENTRIES`` entries is listed only in part; a name the listing holds in another letter
    case may be the same file where the file system ignores case: both are asked of the system."""
    from shmlint.project.index import MAX_ENTRIES

    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for number in range(MAX_ENTRIES + 5):
        (crowded / f"f{number:04}.yaml").write_text("")
    (tmp_path / "Compose.Override.YML").write_text("services: {}\n")
    files = ProjectFiles((str(tmp_path.resolve()),), 1 << 20)
    assert len(files.files_in(str(crowded))) == MAX_ENTRIES
    assert all(files.has_file(str(crowded / f"f{number:04}.yaml")) for number in range(MAX_ENTRIES + 5))
    assert not files.has_file(str(crowded / "missing.yaml"))
    other_case = tmp_path / "compose.override.yml"
    assert files.has_file(str(other_case)) == os.path.isfile(other_case)


def test_reader_budget_and_size(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("#" * 2000)
    (tmp_path / "a.py").write_text("")
    index = ProjectIndex((str(tmp_path.resolve()),), max_files=1, max_bytes=1000)
    reader = Reader(index, {})
    assert reader.text(str(tmp_path.resolve() / "big.py")) is None  # above max_bytes: never read
    assert reader.text(str(tmp_path.resolve() / "a.py")) == ""
    assert reader.text(str(tmp_path.resolve() / "a.py")) is None and reader.exhausted  # one file per workload


def test_wrappers_followed_two_levels_not_three(tmp_path: Path) -> None:
    (tmp_path / "one.sh").write_text("bash two.sh\n")
    (tmp_path / "two.sh").write_text("bash three.sh\n")
    (tmp_path / "three.sh").write_text("torchrun --nproc_per_node 8 t.py\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("bash", "one.sh")))
    assert [f.where for f in facts.commands] == ["one.sh:1", "two.sh:1"]


@pytest.mark.parametrize(
    "option",
    [
        ["--pythonpath", "backend"],
        ["--chdir", "backend"],
        ["--pythonpath=lib,backend"],
        ["--chdir", ".", "--pythonpath", "backend"],
    ],
)
def test_a_servers_module_is_found_where_its_options_put_it(tmp_path: Path, option: list[str]) -> None:
    """gunicorn's ``--pythonpath`` puts folders on sys.path in front of the working directory, ``--chdir`` moves
    the working directory: the application module is read from there, not from a same-named file at the top."""
    (tmp_path / "backend").mkdir()
    (tmp_path / "backend" / "app.py").write_text(
        "from torch.utils.data import DataLoader\nDataLoader(d, num_workers=4)\n"
    )
    (tmp_path / "app.py").write_text("from torch.utils.data import DataLoader\nDataLoader(d, num_workers=0)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("gunicorn", *option, "-b", "0.0.0.0:80", "app:app")))
    assert [str(fact) for fact in facts.needs] == ["backend/app.py:2 DataLoader(num_workers=4)"]


def test_a_program_the_code_starts_is_read_with_a_budget_of_its_own(tmp_path: Path) -> None:
    """A web UI (many modules, the container's whole budget) whose training button starts a script: the script's
    loaders are the container's, said with where it is started; a second program it starts is not followed."""
    tabs = [f"tab{i}" for i in range(60)]
    (tmp_path / "app.py").write_text("import core\n" + "".join(f"import {t}\n" for t in tabs))
    for name in tabs:
        (tmp_path / f"{name}.py").write_text("import gradio\n")
    (tmp_path / "core.py").write_text(
        "import os, subprocess, sys\npython = sys.executable\n"
        "def train():\n    subprocess.run([python, os.path.join('rvc', 'train.py'), name])\n"
    )
    (tmp_path / "rvc").mkdir()
    (tmp_path / "rvc" / "train.py").write_text(
        "import subprocess\nsubprocess.run(['python', 'more.py'])\nDataLoader(ds, num_workers=4)\n"
    )
    (tmp_path / "more.py").write_text("DataLoader(ds, num_workers=9)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "app.py")))
    assert [str(f) for f in facts.needs] == ["rvc/train.py:3 DataLoader(num_workers=4), started at core.py:4"]
    assert [str(f) for f in facts.commands] == ["core.py:4 python rvc/train.py ?", "rvc/train.py:2 python more.py"]


def test_programs_started_are_followed_once_within_one_shared_budget(tmp_path: Path) -> None:
    """Nine starts of one helper leave room for the training script; eight programs importing many modules each
    read no more than the started programs' budget together."""
    starts = "".join("subprocess.run([sys.executable, 'helper.py'])\n" for _ in range(9))
    (tmp_path / "app.py").write_text(f"import subprocess, sys\n{starts}subprocess.run([sys.executable, 'train.py'])\n")
    (tmp_path / "helper.py").write_text("print('hi')\n")
    (tmp_path / "train.py").write_text("DataLoader(ds, num_workers=2)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "app.py")))
    assert [str(f) for f in facts.needs] == ["train.py:1 DataLoader(num_workers=2), started at app.py:11"]

    programs = [f"p{i}" for i in range(8)]
    (tmp_path / "app.py").write_text(
        "import subprocess, sys\n" + "".join(f"subprocess.run([sys.executable, '{p}.py'])\n" for p in programs)
    )
    for program in programs:
        modules = [f"{program}_m{j}" for j in range(15)]
        (tmp_path / f"{program}.py").write_text("".join(f"import {m}\n" for m in modules))
        for module in modules:
            (tmp_path / f"{module}.py").write_text("import numpy\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "app.py")))
    assert len(facts.followed) == 1 + STARTED_FILES  # the container's program, then the started ones' budget


def test_a_web_ui_whose_training_script_uses_workers_fails_and_says_where_it_is_started(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  ui:\n    build: .\n    command: [python, app.py]\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]}}}\n"
    )
    (tmp_path / "app.py").write_text("import core\n")
    (tmp_path / "core.py").write_text(
        "import os, subprocess, sys\npython = sys.executable\ndef train(name):\n"
        "    command = [python, os.path.join('rvc', 'train', 'train.py'), name]\n    subprocess.run(command)\n"
    )
    (tmp_path / "rvc" / "train").mkdir(parents=True)
    (tmp_path / "rvc" / "train" / "train.py").write_text(
        "from torch.utils.data import DataLoader\nloader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)\n"
    )
    (finding,) = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert finding.severity.label == "error"
    assert "(train.py:2 DataLoader(num_workers=4), started at core.py:4)" in finding.message
    assert "rvc/train/train.py:2" in finding.detail
    (tmp_path / "core.py").write_text("HOWTO = 'python rvc/train/train.py NAME'\ngr.Markdown(HOWTO)\n")
    assert [f.severity.label for f in check_paths(Settings(), [tmp_path], jobs=1).findings] == []


def test_a_started_helper_read_in_full_keeps_a_free_verdict(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "import subprocess, sys\nsubprocess.run([sys.executable, 'helper.py'])\nDataLoader(ds, num_workers=0)\n"
    )
    (tmp_path / "helper.py").write_text("print('ready')\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "app.py")))
    assert facts.needs == () and [str(f) for f in facts.free] == ["app.py:3 DataLoader(num_workers=0)"]
    (tmp_path / "helper.py").unlink()  # a program started that is not there could make loaders of its own
    assert _gather(tmp_path, Launch(str(tmp_path), ("python", "app.py"))).free == ()


@pytest.mark.parametrize(
    ("replaced", "severity"),
    [
        ("entrypoint: [python3, /vllm-workspace/start.sh]", "error"),
        ("entrypoint: [python3, /repo/dump.py]", None),
        # a shell string that sets up (text, a network check, a move) then runs the script
        ("entrypoint: [/bin/bash, -c]\n    command: ['echo go; curl -s x >/dev/null; python3 /repo/dump.py']", None),
        ("entrypoint: [bash, -lc, 'cd /repo && exec python3 dump.py']", None),
        ("entrypoint: [bash, -c, '. /venv/bin/activate && /bin/echo go && python3 /repo/dump.py']", None),
        ("entrypoint: [bash, -c, 'source /venv/bin/activate; python3 /repo/dump.py']", None),
        ("entrypoint: [bash, -c, 'source /vllm-workspace/serve.sh; python3 /repo/dump.py']", "error"),  # may serve
        ("entrypoint: [sh, -c, 'python3 /vllm-workspace/start.py']", "error"),  # not the repository's
        ("entrypoint: [bash, -c, 'python3 /repo/dump.py; vllm serve m']", "error"),  # the server runs too
        ("entrypoint: [bash, -c, 'python3 /repo/dump.py && python3 /repo/dump.py']", "error"),  # two: not read
    ],
)
def test_a_replaced_entrypoint_drops_the_image_only_for_a_script_of_the_repository(
    tmp_path: Path, replaced: str, severity: str | None
) -> None:
    """No accelerator, the image's entrypoint replaced by an interpreter, or by a shell string whose one program
    after its set-up is one: a script the repository holds is what runs (the image is only where); one it does not
    hold may be the image's own start. The image is a server's the configuration names (needs, torch): no shipped
    image is both on the CPU but NGC's, whose entrypoint runs any command given in place of its server."""
    (tmp_path / "compose.yaml").write_text(
        f"services:\n  a:\n    image: acme/llm-server:1\n    volumes: ['.:/repo']\n    {replaced}\n"
    )
    (tmp_path / "dump.py").write_text("import json\nprint(json.dumps({}))\n")
    server = "(^|/)llm-server$"
    settings = Settings(shm_images=(server,), signals=Signals(torch_images=(*Signals().torch_images, server)))
    findings = check_paths(settings, [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings] == ([severity] if severity else [])


def test_one_programs_options_are_not_the_next_ones(tmp_path: Path) -> None:
    """A script that runs two programs: the first's argparse default is not the second's value."""
    (tmp_path / "run.sh").write_text("python prep.py\npython train.py\n")
    (tmp_path / "prep.py").write_text("from opts import parse\n")
    (tmp_path / "opts.py").write_text("p.add_argument('--workers', default=8)\n")
    (tmp_path / "train.py").write_text("DataLoader(ds, num_workers=args.workers)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("bash", "run.sh")))
    assert facts.needs == () and facts.free == ()  # unknown, not 8 workers
    (tmp_path / "train.py").write_text("from opts import parse\nDataLoader(ds, num_workers=args.workers)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("bash", "run.sh")))
    assert [str(f) for f in facts.needs] == [
        "train.py:2 DataLoader(num_workers=args.workers), --workers default 8 at opts.py:1"
    ]


@pytest.mark.parametrize(
    ("script", "workers"),
    [
        ("export WORKERS=6\npython train.py\n", "WORKERS=6"),
        ("WORKERS=5\nexport WORKERS\npython train.py\n", "WORKERS=5"),
        ("WORKERS=3 python train.py\n", "WORKERS=3"),  # in that command's environment only
        ("WORKERS=6\npython train.py\n", None),  # not exported: the program sees the default, 0
    ],
)
def test_a_scripts_exports_reach_the_programs_environment(tmp_path: Path, script: str, workers: str | None) -> None:
    (tmp_path / "run.sh").write_text(script)
    (tmp_path / "train.py").write_text("import os\nDataLoader(ds, num_workers=int(os.environ.get('WORKERS', 0)))\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("bash", "run.sh")))
    if workers is None:
        assert facts.needs == () and facts.free
    else:
        assert [f"{workers} in the environment" in str(f) for f in facts.needs] == [True]


def test_script_lines_carry_their_environment() -> None:
    lines = script_commands("export A=1\nB=2\nC=3 run x\nrun y\n", {"E": ("e",)})
    assert [dict(line.env) for line in lines] == [{"E": ("e",), "A": ("1",), "C": ("3",)}, {"E": ("e",), "A": ("1",)}]


def test_local_imports_followed(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("from data import make\nmake()\n")
    (tmp_path / "data.py").write_text("def make():\n    return DataLoader(ds, num_workers=3)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert [str(f) for f in facts.needs] == ["data.py:2 DataLoader(num_workers=3)"]


ANIMATE = (
    "def normalize_kp(kp):\n    return kp\n\n\n"
    "def animate(ds):\n    for batch in DataLoader(ds, num_workers=4):\n        pass\n\n\n"
    "def train(ds):\n    return animate(ds)\n\n\n"
    "if __name__ == '__main__':\n    animate(ds)\n"
)


@pytest.mark.parametrize(
    ("demo", "needs"),
    [
        # audit59a (first-order-model): demo.py takes one helper; the loader is in a function never called
        ("from animate import normalize_kp\nnormalize_kp(1)\n", []),
        ("from animate import animate\nanimate(ds)\n", ["animate.py:6 DataLoader(num_workers=4)"]),
        ("from animate import train\ntrain(ds)\n", ["animate.py:6 DataLoader(num_workers=4)"]),  # through train()
        ("from animate import *\nanimate(ds)\n", ["animate.py:6 DataLoader(num_workers=4)"]),  # all of it
        ("import animate\nanimate.animate(ds)\n", ["animate.py:6 DataLoader(num_workers=4)"]),
        ("def main():\n    from animate import normalize_kp\n", ["animate.py:6 DataLoader(num_workers=4)"]),
    ],
)
def test_a_module_imported_by_name_counts_what_those_names_reach(tmp_path: Path, demo: str, needs: list) -> None:
    (tmp_path / "demo.py").write_text(demo)
    (tmp_path / "animate.py").write_text(ANIMATE)
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "demo.py")))
    assert [str(f) for f in facts.needs] == needs


def test_a_modules_top_level_code_runs_on_import(tmp_path: Path) -> None:
    """What the module runs when imported (not its ``__main__`` block) reaches its functions too."""
    (tmp_path / "demo.py").write_text("from animate import normalize_kp\n")
    (tmp_path / "animate.py").write_text(ANIMATE + "LOADER = animate(ds)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "demo.py")))
    assert [str(f) for f in facts.needs] == ["animate.py:6 DataLoader(num_workers=4)"]


def test_a_module_reached_again_for_other_names_is_read_for_them(tmp_path: Path) -> None:
    """Review: ``from utils import log`` read utils.py for ``log`` only, and data.py's ``from utils import
    make_loader`` was never read, so its loader was lost; read again, nothing the first read found is said twice."""
    (tmp_path / "train.py").write_text("from utils import log\nfrom data import build\nlog('x')\nbuild()\n")
    (tmp_path / "data.py").write_text("from utils import make_loader\ndef build():\n    return make_loader()\n")
    (tmp_path / "utils.py").write_text(
        "def log(m):\n    return DataLoader(ds, num_workers=2)\n\n\ndef make_loader():\n"
        "    return DataLoader(ds, num_workers=8)\n"
    )
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert [str(f) for f in facts.needs] == [
        "utils.py:2 DataLoader(num_workers=2)",
        "utils.py:6 DataLoader(num_workers=8)",
    ]


@pytest.mark.parametrize(
    "module",
    [
        # a decorator registers the function in a table the importer calls through
        "TASKS = {}\ndef register(f):\n    TASKS[f.__name__] = f\n    return f\ndef get(n):\n    return TASKS[n]\n"
        "@register\ndef train():\n    DataLoader(ds, num_workers=8)\n",
        # a class's body runs on import
        "def get():\n    return 1\nclass Data:\n    loader = DataLoader(ds, num_workers=8)\n",
        # so does a function's default value
        "def make():\n    return DataLoader(ds, num_workers=8)\ndef get(loader=make()):\n    return loader\n",
    ],
)
def test_what_runs_on_import_counts_for_a_module_imported_by_name(tmp_path: Path, module: str) -> None:
    (tmp_path / "train.py").write_text("from tasks import get\nget('train')\n")
    (tmp_path / "tasks.py").write_text(module)
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert [str(f).split(" ", 1)[1] for f in facts.needs] == ["DataLoader(num_workers=8)"]


def test_free_only_when_certain(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("DataLoader(ds, num_workers=0)\n")
    (tmp_path / "b.py").write_text("import transformers\nDataLoader(ds, num_workers=0)\n")
    assert _gather(tmp_path, Launch(str(tmp_path), ("python", "a.py"))).free
    assert not _gather(tmp_path, Launch(str(tmp_path), ("python", "b.py"))).free  # a busy import: not certain
    assert not _gather(tmp_path, Launch(str(tmp_path), ("python", "missing.py"))).free
    (tmp_path / "c.py").write_text("import acme_trainer\nDataLoader(ds, num_workers=0)\n")
    assert not _gather(tmp_path, Launch(str(tmp_path), ("python", "c.py"))).free  # a library that may make loaders
    (tmp_path / "d.py").write_text("import os, numpy\nimport torch\nDataLoader(ds, num_workers=0)\n")
    assert _gather(tmp_path, Launch(str(tmp_path), ("python", "d.py"))).free


def write_many_modules(folder: Path) -> None:
    """3,000 modules a walk would read, and train.py, the one a launch names."""
    for index in range(3000):
        (folder / f"m{index}.py").write_text("DataLoader(ds, num_workers=1)\n")
    (folder / "train.py").write_text("DataLoader(ds, num_workers=0)\n")


def follow_train_py(folder: Path) -> tuple[Reader, ProjectFacts]:
    """``python train.py`` in ``folder`` followed through a fresh index (bench/bounds.py times it)."""
    reader = Reader(ProjectIndex.for_paths([folder]), {})
    return reader, gather(Launch(str(folder), ("python", "train.py")), 1, reader)


def test_thousands_of_files_cost_only_those_named(tmp_path: Path) -> None:
    write_many_modules(tmp_path)
    reader, facts = follow_train_py(tmp_path)
    assert reader.files == 1 and facts.followed == ("train.py",)


# ---------------------------------------------------------------- the decision


def test_project_facts_decide_only_what_names_leave_undecided() -> None:
    knowledge = builtin()
    assert decide(_workload(), knowledge).tier is Tier.UNKNOWN  # type: ignore[union-attr]
    needs = ProjectFacts(needs=(CodeFact("t.py:4", "DataLoader(num_workers=2)"),))
    assert decide(_workload(project=needs), knowledge) == Need(Tier.NEEDS, "t.py:4 DataLoader(num_workers=2)", None)
    free = ProjectFacts(free=(CodeFact("t.py:4", "DataLoader(num_workers=0)"),))
    assert decide(_workload(project=free), knowledge).tier is Tier.FREE  # type: ignore[union-attr]
    named = _workload(image="nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3", project=free)  # the name decides
    assert decide(named, knowledge).tier is Tier.NEEDS  # type: ignore[union-attr]
    based = ProjectFacts(images=(CodeFact("Dockerfile:1", "FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3"),))
    assert "built by Dockerfile:1" in decide(_workload(project=based), knowledge).because  # type: ignore[union-attr]


def test_without_a_project_only_names_decide() -> None:
    (candidate,) = [c for c in discover([FIXTURES / "project" / "compose-wrapper"]) if c.path.endswith("compose.yaml")]
    result = Engine(Settings(undecided="show")).check_candidate(candidate)
    assert all(f.severity.label == "info" for f in result.findings)


# ---------------------------------------------------------------- the fixture repositories


@pytest.mark.parametrize("folder", PROJECTS, ids=lambda p: p.name)
def test_project_fixture(folder: Path, tmp_path: Path) -> None:
    """Each fixture is a repository of its own: checked as a copy, so what other fixtures of shmlint's repository
    build (an image of the same name) is not its (a run that checks a part of a repository reads all its builds)."""
    own = tmp_path / folder.name
    shutil.copytree(folder, own, symlinks=True)
    report = check_paths(Settings(undecided="show"), [own], jobs=1)
    actual = [
        (f"{os.path.relpath(f.span.path, own)}:{f.span.line}:{f.span.column} {f.code} {f.severity.label}", f)
        for f in report.findings
    ]
    expected = [line.split(" | ", 1) for line in (folder / "expected").read_text().splitlines() if line]
    assert [where for where, _ in actual] == [where for where, _ in expected]
    # paths in messages are the repository's: the copy is its own root, so the fixtures' folders are not in them
    inside = f"{folder.relative_to(FIXTURES.parent).as_posix()}/"
    for (_, finding), (_, words) in zip(actual, expected, strict=True):
        told = f"{finding.message}\n{finding.detail}"
        assert words.replace(inside, "") in told
        place = words.partition(" ")[0]
        if re.fullmatch(r"[\w./-]+\.\w+:\d+", place) and finding.severity.label == "error":
            assert place.rpartition("/")[2] in finding.message  # the one-line message names the file and line


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400), st.text(max_size=400), st.lists(st.text(max_size=20), max_size=5))
def test_gather_never_raises_on_hostile_files(script: str, code: str, arguments: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "run.sh").write_text(script + '\npython train.py "$@"\n', encoding="utf-8", errors="replace")
        (root / "train.py").write_text(code, encoding="utf-8", errors="replace")
        facts = _gather(root, Launch(str(root), ("bash", "run.sh"), tuple(arguments), env=(("A", "1"),)), devices=2)
        assert len(facts.followed) <= ProjectIndex((folder,)).max_files


def test_file_above_the_size_cap_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("DataLoader(ds, num_workers=4)\n" + "#" * (600 * 1024))
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert not facts.needs and not facts.free and not facts.followed


def test_index_root_is_the_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "job.yaml").write_text("")
    assert ProjectIndex.for_paths([tmp_path / "deploy" / "job.yaml"]).roots == (str(tmp_path.resolve()),)
    elsewhere = tmp_path / "deploy"
    (tmp_path / ".git").rmdir()
    assert ProjectIndex.for_paths([elsewhere / "job.yaml"]).roots == (str(elsewhere.resolve()),)


def test_a_command_line_is_not_paired_with_a_dockerfile_beside_it(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.6\n")
    assert not _gather(tmp_path, Launch(str(tmp_path), (), ("serve",))).images
    beside = Launch(str(tmp_path), (), ("serve",), dockerfile_beside=True)
    facts = _gather(tmp_path, beside, image="acme/app")
    assert facts.images and facts.guessed
    assert not _gather(
        tmp_path, beside, image="docker.io/vllm/vllm-openai:v0.6"
    ).images  # its own base is not its build
    assert not _gather(tmp_path, beside, image="$IMAGE").images  # nor is an image a variable names


def test_shell_strings_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("DataLoader(ds, num_workers=0)\n")
    many = "; ".join(["bash -c 'python t.py'"] * 20)  # more sh -c strings than MAX_INLINE: doubt, not a verdict
    assert not _gather(tmp_path, Launch(str(tmp_path), ("sh", "-c", many))).free
    shallow = _gather(tmp_path, Launch(str(tmp_path), ("sh", "-c", "bash -c 'python t.py'")))
    assert shallow.followed == ("t.py",) and shallow.free


def test_the_index_of_a_run_is_one_value_in_every_worker_and_another_in_the_next_run(tmp_path: Path) -> None:
    """A worker unpickles the run's index for each batch of files: the copies are equal (one engine a worker), the
    folders a copy has listed stay behind, and a later run (files written since) gets an index of its own."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "compose.yaml").write_text("services: {}\n")
    (tmp_path / "outside.yaml").write_text("services: {}\n")
    (repo / "linked.yaml").symlink_to(tmp_path / "outside.yaml")
    run = project_for(Settings(), [repo], list(discover([repo])))
    assert run.files is not None and run.files.has_file(str(repo / "compose.yaml"))
    assert not run.files.has_file(str(repo / "linked.yaml")) and run.files.source(repo / "linked.yaml") is None
    copy = pickle.loads(pickle.dumps(run))
    assert copy == run and hash(copy) == hash(run) and copy.files is not None and copy.files._is_file == {}
    assert project_for(Settings(), [repo], list(discover([repo]))) != run


def test_a_script_that_exports_thousands_of_names_passes_on_a_bounded_environment() -> None:
    """Each command's environment is a copy of the exported values: a hostile script exporting thousands of names,
    then assigning them between commands, would copy them all at each line. The names passed on are capped, and an
    exported value that changes is still what the next command gets."""
    from shmlint.project.shellvars import MAX_EXPORTED

    names = " ".join(f"A{i}" for i in range(5 * MAX_EXPORTED))
    lines = script_commands(f"export A0=first {names}\nA0=second\necho one\nA1=x\necho two\n", {})
    assert [line.argv for line in lines] == [("echo", "one"), ("echo", "two")]
    assert all(len(line.env) <= MAX_EXPORTED for line in lines)
    assert lines[0].env["A0"] == ("second",) and lines[1].env["A1"] == ("x",)


def test_two_config_paths_ending_in_one_key_leave_it_unknown() -> None:
    """Config settings are known by their last part: ``train.num_workers=8 val.num_workers=0`` gives neither to
    every loader; one path given twice takes its last value."""
    assert pyoptions.override("num_workers", ("train.num_workers=8", "val.num_workers=0")) == ""
    assert pyoptions.override("num_workers", ("data.num_workers=2", "data.num_workers=0")) == "0"
    assert pyoptions.override("num_workers", ("+data.num_workers=4",)) == "4"
    assert pyoptions.override("num_workers", ("--num_workers=4",)) is None
    # LightningCLI's (jsonargparse) dotted options, after the ``--config`` whose keys they set (audit86a's probe)
    assert pyoptions.override("num_workers", ("fit", "--config", "c.yaml", "--data.num_workers", "0")) == "0"
    assert pyoptions.override("num_workers", ("--data.init_args.num_workers=6",)) == "6"
    assert pyoptions.override("num_workers", ("--data.num_workers",)) == ""  # no value: not known


def test_the_config_names_a_program_opens_are_bounded() -> None:
    import ast

    code = "\n".join(f'open("c{i}.yaml")' for i in range(10 * pyoptions.MAX_OPENED_CONFIGS))
    nodes = list(ast.walk(ast.parse(code)))
    assert pyoptions.opened_configs(nodes) == [f"c{i}.yaml" for i in range(pyoptions.MAX_OPENED_CONFIGS)]


@pytest.mark.parametrize(
    ("word", "python"),
    [
        ("python", True),
        ("python3", True),
        ("/usr/bin/python3.11", True),
        ("python2.7", True),
        ("python4", False),
        ("python3.", False),
        ("python3.111", False),
        ("pythonw", False),
        ("ipython", False),
        ("", False),
    ],
)
def test_what_names_a_python_interpreter(word: str, python: bool) -> None:
    """One definition for the launcher reader and the entrypoint check (``shmlint.parsers.programs``)."""
    assert is_python(word) is python


# ---------------------------------------------------------------- ConfigMaps a container mounts


def _config_map(name: str, data: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{data}"


def _mounted(folder: Path, *mounts: MountedConfig, manifest: str = "job.yaml") -> dict[str, tuple[str, str]]:
    from shmlint.project.configmaps import mounted_files

    return mounted_files(mounts, str(folder / manifest), ProjectFiles((str(folder),), 1 << 20), 1 << 20)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.from_regex(r"([a-z(_0-9][a-z =()_0-9]{0,29})?", fullmatch=True), min_size=1, max_size=12),
    st.integers(0, 5),
    st.sampled_from(["|", "&code |", "!!str |", "&code\n    |"]),
)
def test_a_config_map_key_keeps_the_lines_of_its_manifest(body: list[str], before: int, indicator: str) -> None:
    """Line N of a key's text is line N of the manifest, wherever the literal block starts (an anchor or a tag
    before its indicator, on the key's line or the next)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        manifest = Path(folder) / "cm.yaml"
        block = "".join(f"    {line}\n" for line in body)
        manifest.write_text("# note\n" * before + _config_map("code", f"  run.py: {indicator}\n{block}"))
        ((_, text),) = _mounted(Path(folder), MountedConfig("/code", "code")).values()
        lines = manifest.read_text().splitlines()
        for number, line in enumerate(text.splitlines(), 1):
            if line:
                assert lines[number - 1].strip() == line.strip()


def test_config_map_items_sub_paths_and_styles(tmp_path: Path) -> None:
    """``items`` rename keys, a ``subPath`` mount puts one key at the mount path, and a folded value (whose lines
    move) is not read."""
    (tmp_path / "cm.yaml").write_text(
        _config_map("code", "  a.py: |\n    x = 1\n  b.sh: echo b\n  c.sh: >\n    echo c\n    echo d\n")
    )
    renamed = _mounted(tmp_path, MountedConfig("/app", "code", (("a.py", "main.py"),)))
    assert list(renamed) == ["/app/main.py"] and renamed["/app/main.py"][1].splitlines()[6] == "x = 1"
    one = _mounted(tmp_path, MountedConfig("/bin/b.sh", "code", (), "b.sh"))
    assert list(one) == ["/bin/b.sh"] and one["/bin/b.sh"][1].splitlines()[-1] == "echo b"
    assert _mounted(tmp_path, MountedConfig("/app", "code")).keys() == {"/app/a.py", "/app/b.sh"}
    assert _mounted(tmp_path, MountedConfig("/app", "missing")) == {}


def test_a_config_map_written_differently_in_two_files_beside_is_not_guessed(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(_config_map("code", "  run.sh: echo a\n"))
    (tmp_path / "b.yaml").write_text(_config_map("code", "  run.sh: echo b\n"))
    assert _mounted(tmp_path, MountedConfig("/s", "code")) == {}
    (tmp_path / "b.yaml").write_text(_config_map("code", "  run.sh: echo a\n"))
    assert list(_mounted(tmp_path, MountedConfig("/s", "code"))) == ["/s/run.sh"]


def test_a_config_map_of_another_namespace_is_not_the_pods(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text(
        _config_map("code", "  run.sh: echo staging\n").replace("name: code", "name: code\n  namespace: staging")
    )
    assert _mounted(tmp_path, MountedConfig("/s", "code", namespace="prod")) == {}
    assert list(_mounted(tmp_path, MountedConfig("/s", "code", namespace="staging"))) == ["/s/run.sh"]
    assert list(_mounted(tmp_path, MountedConfig("/s", "code"))) == ["/s/run.sh"]  # the pod says none: any


def test_generated_keys_are_read_inside_the_kustomization_and_within_bounds(tmp_path: Path) -> None:
    """A generator's files are read only for a mounted ConfigMap, only inside the kustomization's folder (as
    kustomize's load restrictor allows), and a key over the size limit is not read."""
    (tmp_path / "outside.py").write_text("x = 1\n")
    base = tmp_path / "k8s"
    base.mkdir()
    (base / "small.py").write_text("y = 2\n")
    (base / "big.py").write_text("#" * 2048 + "\n")
    (base / "kustomization.yaml").write_text(
        "configMapGenerator:\n- name: code\n  files:\n  - small.py\n  - main.py=big.py\n  - ../outside.py\n"
    )
    from shmlint.project.configmaps import mounted_files

    files = ProjectFiles((str(tmp_path),), 1 << 20)
    found = mounted_files([MountedConfig("/c", "code-5f9g7h8k2c")], str(base / "job.yaml"), files, 1024)
    assert {path: text for path, (_, text) in found.items()} == {"/c/small.py": "y = 2\n"}


def test_a_path_a_config_map_mount_covers_is_never_the_repositorys(tmp_path: Path) -> None:
    """The mount hides what the image has at that path: a ConfigMap that is not known (or not guessed between)
    leaves the program undecided, never read from the repository's file of the same name; a program a ConfigMap
    holds imports its sibling keys, not the repository's modules of the same name."""
    (tmp_path / "train.py").write_text("from torch.utils.data import DataLoader\nDataLoader(range(3), num_workers=8)\n")
    (tmp_path / "helpers.py").write_text(
        "from torch.utils.data import DataLoader\nDataLoader(range(3), num_workers=8)\n"
    )
    (tmp_path / "cm.yaml").write_text(
        _config_map(
            "code",
            "  main.py: |\n    from helpers import make\n  helpers.py: |\n"
            "    from torch.utils.data import DataLoader\n    DataLoader(range(3), num_workers=0)\n",
        )
    )
    manifest = str(tmp_path / "job.yaml")
    unknown = Launch(
        str(tmp_path), ("python", "/other/train.py"), manifest=manifest, configs=(MountedConfig("/other", "missing"),)
    )
    facts = _gather(tmp_path, unknown)
    assert not facts.needs and not facts.free
    sibling = Launch(
        str(tmp_path),
        ("python", "main.py"),
        working_dir="/code",
        manifest=manifest,
        configs=(MountedConfig("/code", "code"),),
    )
    facts = _gather(tmp_path, sibling)
    assert not facts.needs and [f.where for f in facts.free] == ["cm.yaml:10"]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=600))
def test_config_maps_never_raise_on_hostile_files(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "cm.yaml").write_text("kind: ConfigMap\n" + text, encoding="utf-8", errors="replace")
        (root / "odd.yml").write_text(_config_map("code", "  run.sh: |\n" + text), encoding="utf-8", errors="replace")
        hostile = "configMapGenerator:\n- name: code\n  files:\n" + text
        (root / "kustomization.yaml").write_text(hostile, encoding="utf-8", errors="replace")
        launch = Launch(
            folder, ("bash", "/s/run.sh"), manifest=str(root / "job.yaml"), configs=(MountedConfig("/s", "code"),)
        )
        _gather(root, launch, devices=2)


def test_a_generated_config_map_is_read_when_its_kustomization_is_not_rendered() -> None:
    """The kustomization's output names the ConfigMap with a hash (the fixture's own test renders it where
    kubectl is installed); unrendered, the Job names it plainly: both read ``src/finetune.py``."""
    folder = FIXTURES / "project" / "k8s-configmap-generator"
    report = check_paths(Settings(undecided="show", render="never"), [folder], jobs=1)
    (finding,) = report.findings
    assert finding.severity.label == "error" and "finetune.py:6 DataLoader(num_workers=6)" in finding.message


def test_a_program_in_a_submodule_not_checked_out_is_said(tmp_path: Path) -> None:
    """The code a container runs may live in a git submodule the checkout left empty: the undecided finding says
    so (and a program that is simply absent is said to be), never a silent 'need unknown'."""
    (tmp_path / ".gitmodules").write_text('[submodule "dlas"]\n\tpath = dlas\n\turl = https://example.com/dlas\n')
    (tmp_path / "dlas").mkdir()
    launch = Launch(str(tmp_path), (), ("python", "/app/dlas/train.py", "-opt", "x.yml"))
    assert _gather(tmp_path, launch).notes == ("/app/dlas/train.py is in git submodule dlas, which is not checked out",)
    (tmp_path / "dlas" / "README").write_text("checked out, without the program\n")
    assert _gather(tmp_path, launch).notes == ("/app/dlas/train.py is not in the checked files",)
    found = Launch(str(tmp_path), (), ("python", "dlas/README"))
    assert _gather(tmp_path, found).notes == ()


# ---------------------------------------------------------------- small torchvision image sets

_CIFAR = """
import os
import torch, torchvision
import torchvision.transforms as transforms
from torch.utils.data import BatchSampler, RandomSampler
from torchvision.datasets import MNIST
transform_train = transforms.Compose([
    transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
    transforms.Normalize((0.49, 0.48, 0.44), (0.2, 0.19, 0.2)),
])
trainset = torchvision.datasets.CIFAR10(root="/data", train=True, download=True, transform=transform_train)
loader = torch.utils.data.DataLoader(trainset, batch_size=BATCH, shuffle=True, num_workers=WORKERS)
"""


@pytest.mark.parametrize(
    ("batch", "workers", "devices", "small"),
    [(128, 2, 1, True), (128, 4, 1, True), (512, 4, 1, False), (128, 2, 8, False), (64, 16, 1, False)],
)
def test_workers_over_small_cifar_batches_are_no_need(batch: int, workers: int, devices: int, small: bool) -> None:
    """CIFAR-10's 3x32x32 images as float32: batches of 128 are 1.5 MiB; the loader is no need while what its
    workers hold in flight (for each local rank) stays under a quarter of the default /dev/shm."""
    facts = _read(_CIFAR.replace("BATCH", str(batch)).replace("WORKERS", str(workers)), devices=devices)
    if small:
        (fact,) = facts.zero_loaders
        assert not facts.needs and f"CIFAR10 batches of {batch} (" in fact.text and "in flight" in fact.text
    else:
        assert [f.text for f in facts.needs] == [f"DataLoader(num_workers={workers})"] and not facts.zero_loaders


@pytest.mark.parametrize(
    "change",
    [
        ("transforms.RandomCrop(32, padding=4)", "transforms.Resize(224)"),  # 3x224x224: 19 MiB a batch of 128
        ("transforms.RandomCrop(32, padding=4)", "transforms.Lambda(lambda x: x)"),  # a transform not known
        ("transform=transform_train", "transform=make_transform()"),  # transforms not known
        ("torchvision.datasets.CIFAR10(", "ImageFolder("),  # a dataset of any size
        ("trainset, batch_size", "torch.utils.data.Subset(trainset, range(10)), batch_size"),
        ("batch_size=BATCH", "batch_size=args.batch"),  # a batch size not followed
        ("shuffle=True", "batch_sampler=BatchSampler(RandomSampler(trainset), 4096, False)"),  # its own batches
        ("shuffle=True", "collate_fn=upscale"),  # a collate function may make the batch anything
        ("transform=transform_train", "transform=transform_train, target_transform=big"),
        ("trainset = torch", "trainset.transform = None\ntrainset = torch"),  # changed through an attribute
        ("transform_train = transforms", "transform_train.transforms.insert(0, None)\ntransform_train = transforms"),
        ("loader = torch", "for trainset in (None,):\n    pass\nloader = torch"),  # bound twice
        ("torchvision.datasets.CIFAR10(", "CIFAR(root='', train=True, "),  # not torchvision's
        ("transforms.RandomCrop(32, padding=4)", "transforms.RandomRotation(45, expand=True)"),  # grows the image
        ("transforms.ToTensor()", "transforms.ToTensor(), transforms.ConvertImageDtype(torch.float64)"),
        ("transforms.ToTensor()", "transforms.ToTensor(), transforms.ConvertImageDtype(float)"),  # float64
        ("loader = torch", "for ds in (trainset,):\n    ds.transform = None\nloader = torch"),  # changed via an alias
        ("loader = torch", "setattr(trainset, 'transform', None)\nloader = torch"),
        ("loader = torch", "upscale(trainset, 1024)\nloader = torch"),  # given to a function that may change it
        (  # a batch size bound again by a loop
            "loader = torch.utils.data.DataLoader(trainset, batch_size=BATCH",
            "bs = 128\nfor bs in (8192,):\n    pass\nloader = torch.utils.data.DataLoader(trainset, batch_size=bs",
        ),
        ("batch_size=BATCH", "batch_size=int(os.environ.get('BATCH_SIZE', BATCH))"),  # the container may set it
        ("loader = torch", "aug = trainset.transform\nloader = torch"),  # kept, then changeable
        ("loader = torch", "def save(d, p):\n    pass\nsave(trainset, 'x')\nloader = torch"),  # not a serialiser
        ("loader = torch", "transforms.ToTensor = object\nloader = torch"),  # torchvision's class replaced
        ("torch.utils.data.DataLoader(", "MyDataLoader("),  # not torch's loader
        (  # a class of the project's shadows torchvision's
            "trainset = torchvision.datasets.CIFAR10(",
            "from torchvision.datasets import CIFAR10\nclass CIFAR10(CIFAR10): pass\ntrainset = CIFAR10(",
        ),
    ],
)
def test_anything_not_known_about_the_batches_keeps_the_need(change: tuple[str, str]) -> None:
    facts = _read(_CIFAR.replace(*change).replace("BATCH", "128").replace("WORKERS", "2"))
    assert [f.text.removeprefix("My") for f in facts.needs] == ["DataLoader(num_workers=2)"]


def test_a_dataset_class_or_transform_of_the_same_name_from_another_package_is_not_torchvisions() -> None:
    """``CIFAR10`` from the project's own module, albumentations' ``A.Resize``: names alone say nothing."""
    own = "from torch.utils.data import DataLoader\nfrom mydata import CIFAR10\nimport torchvision.transforms as T\n"
    own += "loader = DataLoader(CIFAR10('/d', transform=T.ToTensor()), batch_size=128, num_workers=4)\n"
    other = "from torch.utils.data import DataLoader\nfrom torchvision.datasets import CIFAR10\nimport albumentations as A\n"
    other += "loader = DataLoader(CIFAR10('/d', transform=A.Resize(32, 2048)), batch_size=128, num_workers=4)\n"
    for code in (own, other):
        assert [f.text for f in _read(code).needs] == ["DataLoader(num_workers=4)"]


def test_reading_a_datasets_attributes_does_not_change_it() -> None:
    """Attributes read inside a call that only reads, a second import of the same package, pickling the set: still
    the tutorial's small batches."""
    code = _CIFAR.replace("BATCH", "128").replace("WORKERS", "2") + "print(len(trainset), trainset.classes)\n"
    code += "import pickle\nimport torchvision.datasets\npickle.dump(trainset, open('t.pkl', 'wb'))\n"
    assert not _read(code).needs and _read(code).zero_loaders


def test_an_abbreviated_option_on_the_command_line_makes_the_batch_size_unknown() -> None:
    code = (
        "import argparse, torch, torchvision\nimport torchvision.transforms as T\n"
        "p = argparse.ArgumentParser()\np.add_argument('--batch-size', type=int, default=128)\nargs = p.parse_args()\n"
        "ds = torchvision.datasets.CIFAR10('/d', transform=T.ToTensor())\n"
        "loader = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, num_workers=2)\n"
    )
    assert _read(code).zero_loaders and not _read(code).needs  # the default, 128
    assert _read(code, ("--batch-size", "160")).zero_loaders  # given in full: 1.9 MiB batches, still small
    assert _read(code, ("--batch", "8192")).needs  # argparse takes --batch for --batch-size


@pytest.mark.parametrize(
    "code",
    [
        "NUM_WORKERS = DEFAULT_WORKERS = 8\nloader = DataLoader(data, num_workers=NUM_WORKERS)\n",
        "def describe(num_workers):\n    return num_workers\nnum_workers = 8\nloader = DataLoader(data, num_workers=num_workers)\n",
    ],
)
def test_a_worker_count_is_followed_through_chained_names_and_beside_parameters(code: str) -> None:
    """Value following stays as loose as before: a followed worker count is evidence of a need."""
    assert [f.text.split(",")[0] for f in _read(code).needs] == [
        f"DataLoader(num_workers={code.split('num_workers=')[1].split(')')[0]})"
    ]


def test_a_dataset_bound_in_another_scope_is_not_followed() -> None:
    """A parameter named like a dataset bound elsewhere in the file is not that dataset."""
    code = (
        "from torch.utils.data import DataLoader\nfrom torchvision import datasets, transforms\n"
        "def smoke():\n    dataset = datasets.MNIST('/d', transform=transforms.ToTensor())\n    return len(dataset)\n"
        "def make(dataset):\n    return DataLoader(dataset, batch_size=256, num_workers=8)\n"
    )
    assert [f.text for f in _read(code).needs] == ["DataLoader(num_workers=8)"]


def test_an_mnist_loader_with_an_imported_class_and_a_grayscale_to_rgb_resize() -> None:
    code = (
        "from torch.utils.data import DataLoader\nfrom torchvision import datasets, transforms\n"
        "ds = datasets.MNIST('.', transform=transforms.Compose([transforms.Grayscale(3), transforms.Resize(64),"
        " transforms.ToTensor()]))\nloader = DataLoader(ds, batch_size=32, num_workers=4)\n"
    )
    (fact,) = _read(code).zero_loaders
    assert fact.text == "DataLoader(num_workers=4): MNIST batches of 32 (1.5 MiB), 15 MiB in flight"


def test_a_name_imported_from_a_local_package_may_be_a_submodule_not_read(tmp_path: Path) -> None:
    """``from helpers import make`` with ``helpers.py`` names a function read there: no doubt; ``from vendor import
    trainer`` or ``import vendor.fast_ops`` with a package ``vendor/`` may name a submodule that is not there (a
    submodule not checked out, a compiled module): doubt, never a workload called free."""
    loader = "from torch.utils.data import DataLoader\nval = DataLoader(range(10), batch_size=32)\n"
    (tmp_path / "helpers.py").write_text("def make():\n    return 1\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "__init__.py").write_text("")
    for line, free in (
        ("from helpers import make", True),
        ("from vendor import trainer", False),
        ("import vendor.fast_ops", False),
    ):
        (tmp_path / "train.py").write_text(f"{line}\n{loader}")
        facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
        assert bool(facts.free) is free, line


def test_a_long_missing_program_path_is_bounded_in_its_note(tmp_path: Path) -> None:
    name = "/" + "a/" * 20_000 + "run.py"
    (note,) = _gather(tmp_path, Launch(str(tmp_path), ("python", name))).notes
    assert len(note) < 200 and note.endswith("is not in the checked files")


@pytest.mark.parametrize(
    ("arguments", "operand"),
    [
        ("-c python train.py", (True, 1)),
        ("-lc python train.py", (True, 1)),
        ("-ec python train.py", (True, 1)),
        ("-cx python train.py", (True, 1)),
        ("--login -c python train.py", (True, 2)),
        ("-o pipefail -c python train.py", (True, 3)),
        ("-c -x python train.py", (True, 2)),
        ("run.sh --epochs 3", (False, 0)),
        ("-e run.sh", (False, 1)),
        ("-- -c.sh", (False, 1)),
        ("+x run.sh", (False, 1)),
        ("-euo pipefail -c python train.py", (True, 3)),
        ("--noprofile --norc -eo pipefail run.sh", (False, 4)),
        ("- run.sh", (False, 1)),
        ("-euoo pipefail nounset -c x", (True, 4)),
        ("-s run.sh", None),
        ("-sc x", (True, 1)),
        ("-s -c x", (True, 2)),
        ("-", None),
        ("--norc", None),
        ("-c", None),
        ("", None),
    ],
)
def test_what_a_shell_is_given_to_run(arguments: str, operand: tuple[bool, int] | None) -> None:
    """One reading of a shell's arguments for the launcher reader, the ssh-rank reader and the inline-program
    check: its options (``-o`` takes a value), then the ``-c`` string or a script file."""
    assert shell_operand(arguments.split()) == operand


def test_a_modules_imports_start_where_its_package_is_found(tmp_path: Path) -> None:
    """``python -m pkg.train`` of a src layout puts ``src/`` on ``sys.path``: ``import pkg.data`` is read there."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "train.py").write_text("from pkg.data import make\n\nmake()\n")
    (tmp_path / "src" / "pkg" / "data.py").write_text(
        "from torch.utils.data import DataLoader\n\ndef make():\n    return DataLoader(ds, num_workers=4)\n"
    )
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "-m", "pkg.train")))
    assert [str(fact) for fact in facts.needs] == ["src/pkg/data.py:4 DataLoader(num_workers=4)"]


def test_a_modules_src_folder_is_not_where_the_next_program_is_found(tmp_path: Path) -> None:
    """``python -m pkg.prep`` then ``python train.py``: the top's ``train.py`` runs, not ``src/train.py``."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "prep.py").write_text("import os\n")
    (tmp_path / "src" / "train.py").write_text(
        "from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=8)\n"
    )
    (tmp_path / "train.py").write_text("from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=0)\n")
    (tmp_path / "start.sh").write_text("python -m pkg.prep\npython train.py\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("sh", "start.sh")))
    assert not facts.needs and "train.py" in facts.followed


@pytest.mark.parametrize(
    ("imports", "workers", "needs"),
    [
        ("from consts import NUM_WORKERS", "NUM_WORKERS", ["NUM_WORKERS = 8 at consts.py:2"]),
        ("from consts import NUM_WORKERS as W", "W", ["NUM_WORKERS = 8 at consts.py:2"]),
        ("from consts import *", "NUM_WORKERS", ["NUM_WORKERS = 8 at consts.py:2"]),
        ("import consts", "consts.NUM_WORKERS", ["NUM_WORKERS = 8 at consts.py:2"]),
        ("from consts import NO_WORKERS", "NO_WORKERS", []),  # 0: a loader without workers
        ("from consts import MANY", "MANY", []),  # assigned by a call: not known
        ("from consts import NUM_WORKERS\nNUM_WORKERS = 0", "NUM_WORKERS", []),  # its own assignment wins
        ("NUM_WORKERS = 0\nfrom consts import NUM_WORKERS", "NUM_WORKERS", ["NUM_WORKERS = 8 at consts.py:2"]),
        ("NUM_WORKERS = 2\nfrom consts import MANY as NUM_WORKERS", "NUM_WORKERS", []),  # the import hides it
        ("from consts import *", "_PRIVATE", []),  # a star import leaves _private names
        ("from other import NUM_WORKERS", "NUM_WORKERS", []),  # not a module of the repository
    ],
)
def test_a_worker_count_imported_from_a_module_of_the_repository_is_followed(
    tmp_path: Path, imports: str, workers: str, needs: list[str]
) -> None:
    """``from consts import *`` then ``DataLoader(num_workers=NUM_WORKERS)``: the count is the module's (the
    importer's own statements read alone left it unknown, and the container undecided)."""
    consts = "import os\nNUM_WORKERS = 8\nNO_WORKERS = 0\nMANY = compute()\n_PRIVATE = 8\n"
    assert _imported_count_facts(tmp_path, consts, f"{imports}\n", workers) == needs


def test_a_star_import_of_a_module_with_all_binds_nothing_known(tmp_path: Path) -> None:
    """``__all__ = ["GPUS"]`` in consts.py: ``from consts import *`` leaves the importer's own ``NUM_WORKERS = 0``
    (the review: the module's 8 was taken, a false finding); which names ``__all__`` lists is not read."""
    consts = "__all__ = ['GPUS']\nGPUS = 4\nNUM_WORKERS = 8\n"
    assert _imported_count_facts(tmp_path, consts, "NUM_WORKERS = 0\nfrom consts import *\n", "NUM_WORKERS") == []
    assert _imported_count_facts(tmp_path, consts, "from consts import NUM_WORKERS\n", "NUM_WORKERS") == [
        "NUM_WORKERS = 8 at consts.py:3"
    ]  # imported by name, it is bound whatever __all__ lists


def _imported_count_facts(tmp_path: Path, consts: str, imports: str, workers: str) -> list[str]:
    """How the facts of ``train.py`` (``imports`` then a loader of ``workers``) say where its count comes from,
    beside ``consts.py`` and an ``overrides.py`` whose count the environment sets."""
    (tmp_path / "consts.py").write_text(consts)
    (tmp_path / "overrides.py").write_text("import os\nNUM_WORKERS = int(os.environ['W'])\n")
    (tmp_path / "train.py").write_text(
        f"{imports}from torch.utils.data import DataLoader\nDataLoader(range(9), num_workers={workers})\n"
    )
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    return [fact.text.rpartition(", ")[2] for fact in facts.needs]


def test_a_keyword_count_imported_from_a_module_is_followed(tmp_path: Path) -> None:
    (tmp_path / "settings.py").write_text("WORKERS = 4\n")
    (tmp_path / "train.py").write_text(
        "from settings import WORKERS\nfrom transformers import TrainingArguments\n"
        "TrainingArguments(output_dir='o', dataloader_num_workers=WORKERS)\n"
    )
    (fact,) = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs
    assert fact.where == "train.py:3" and fact.text.endswith("WORKERS = 4 at settings.py:1")


@pytest.mark.parametrize(
    ("consts", "train", "needs"),
    [
        # a later import binds the name again: Python keeps the last binding
        ("NUM_WORKERS = 8\n", "from consts import *\nfrom overrides import *\n", []),
        ("NUM_WORKERS = 8\n", "from consts import NUM_WORKERS\nfrom runtime_cfg import NUM_WORKERS\n", []),
        ("NUM_WORKERS = 8\n", "from overrides import *\nfrom consts import *\n", ["NUM_WORKERS = 8 at consts.py:1"]),
        # the module binds it another way too, or takes names from a star import: no number
        ("NUM_WORKERS = 8\nfrom runtime_cfg import NUM_WORKERS\n", "from consts import NUM_WORKERS\n", []),
        (
            "NUM_WORKERS = 8\ntry:\n    from local_settings import *\nexcept ImportError:\n    pass\n",
            "from consts import *\n",
            [],
        ),
        # the line that assigns the number a condition leaves
        (
            "import os\nNUM_WORKERS = 8\nif os.environ.get('SMALL'):\n    NUM_WORKERS = 2\nelse:\n    NUM_WORKERS = 4\n",
            "from consts import NUM_WORKERS\n",
            ["NUM_WORKERS = 2 at consts.py:4"],
        ),
    ],
)
def test_an_imported_number_is_the_last_binding_python_makes(
    tmp_path: Path, consts: str, train: str, needs: list[str]
) -> None:
    assert _imported_count_facts(tmp_path, consts, train, "NUM_WORKERS") == needs


def test_a_module_name_the_file_binds_again_is_not_the_module(tmp_path: Path) -> None:
    """``import config`` beside ``def build(ds, config)``: ``config.num_workers`` is the parameter's."""
    (tmp_path / "config.py").write_text("num_workers = 8\n")
    (tmp_path / "train.py").write_text(
        "import config\nfrom torch.utils.data import DataLoader\n"
        "def build(ds, config):\n    return DataLoader(ds, num_workers=config.num_workers)\n"
        "build(range(3), config)\n"
    )
    assert not _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs
    (tmp_path / "train.py").write_text(
        "import config\nfrom torch.utils.data import DataLoader\nDataLoader(range(3), num_workers=config.num_workers)\n"
    )
    (fact,) = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs
    assert fact.text.endswith("num_workers = 8 at config.py:1")


def test_an_unknown_keyword_count_reads_the_options_of_the_imported_modules(tmp_path: Path) -> None:
    """``TrainingArguments(dataloader_num_workers=args.workers)`` with ``--workers`` defined in ``opts.py``."""
    (tmp_path / "opts.py").write_text(
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--workers', type=int, default=4)\n"
    )
    (tmp_path / "train.py").write_text(
        "from opts import parser\nfrom transformers import TrainingArguments\nargs = parser.parse_args()\n"
        "TrainingArguments(output_dir='o', dataloader_num_workers=args.workers)\n"
    )
    (fact,) = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs
    assert fact.where == "train.py:4" and "--workers default 4 at opts.py:3" in fact.text


def test_an_imported_device_count_is_read_whatever_else_the_file_holds(tmp_path: Path) -> None:
    """A Lightning Trainer's ``devices=GPUS`` with ``GPUS`` from ``consts.py``: read on its own, not only when an
    unrelated loader of unknown workers made the file be read again (review)."""
    (tmp_path / "consts.py").write_text("GPUS = 4\n")
    (tmp_path / "train.py").write_text(
        "import lightning as L\nfrom consts import GPUS\nL.Trainer(accelerator='gpu', devices=GPUS).fit(model)\n"
    )
    (fact,) = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")), devices=4).needs
    assert fact == CodeFact("train.py:3", "Trainer(devices=GPUS) with 4 GPUs")


@pytest.mark.parametrize(
    ("call", "devices", "needs"),
    [
        ("ScalingConfig(num_workers=4, use_gpu=True)", 4, True),
        ("ScalingConfig(num_workers=WORKERS, use_gpu=True)", 2, True),  # WORKERS = 2 in the file
        ("ScalingConfig(num_workers=4, use_gpu=True)", 1, False),  # one GPU here: its peers are elsewhere
        ("ScalingConfig(num_workers=1, use_gpu=True)", 4, False),
        ("ScalingConfig(num_workers=4, use_gpu=False)", 4, False),  # gloo on the CPU
        ("ScalingConfig(num_workers=4)", 4, False),
        ("ScalingConfig(num_workers=n, use_gpu=True)", 4, False),  # a count not known
        # the workers run on a remote cluster, or talk gloo
        ("ScalingConfig(num_workers=4, use_gpu=True)); ray.init('ray://head:10001'", 4, False),
        ("ScalingConfig(num_workers=4, use_gpu=True), torch_config=TorchConfig(backend='gloo')", 4, False),
        ("ScalingConfig(num_workers=4, use_gpu=True), torch_config=TorchConfig(backend='nccl')", 4, True),
    ],
)
def test_ray_trains_gpu_workers_side_by_side_are_local_nccl_ranks(
    tmp_path: Path, call: str, devices: int, needs: bool
) -> None:
    """audit63a: a compose service of ROCm's Ray blog trains with Ray Train on 2 to 4 local GPUs."""
    (tmp_path / "train.py").write_text(
        "from ray.train import ScalingConfig\nfrom ray.train.torch import TorchTrainer\nWORKERS = 2\n"
        f"TorchTrainer(loop, scaling_config={call}).fit()\n"
    )
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")), devices=devices)
    assert [fact.where for fact in facts.needs] == (["train.py:4"] if needs else [])
    if needs:
        assert facts.needs[0].text.endswith(f"with {devices} GPUs: Ray Train workers with NCCL")


@pytest.mark.parametrize(("pages", "label"), [("pages", "error"), ("other", "info")])
def test_a_streamlit_apps_pages_are_its_code(tmp_path: Path, pages: str, label: str) -> None:
    """``streamlit run Home.py`` also runs the scripts of ``pages/`` beside it (a multipage app): a Train page that
    starts a training script with loader workers is the container's work (audit78b); a folder of another name is
    not the app's."""
    (tmp_path / pages).mkdir()
    (tmp_path / "Dockerfile").write_text(
        'FROM python:3.11\nCOPY . /app\nWORKDIR /app\nENTRYPOINT ["streamlit", "run", "Home.py"]\n'
    )
    (tmp_path / "compose.yaml").write_text("services:\n  ui:\n    build: .\n    gpus: all\n")
    (tmp_path / "Home.py").write_text("import streamlit as st\nst.title('Voice studio')\n")
    (tmp_path / pages / "2_Train.py").write_text(
        "import subprocess\nimport streamlit as st\n"
        "cmd = ' '.join(str(i) for i in [python_cmd, 'training_cli.py -e', st.text_input('name')])\n"
        "if st.button('train'):\n    subprocess.Popen(cmd, shell=True)\n"
    )
    (tmp_path / "training_cli.py").write_text(
        "from torch.utils.data import DataLoader\nDataLoader(ds, num_workers=4)\n"
    )
    [finding] = [f for f in check_paths(Settings(undecided="show"), [tmp_path]).findings if f.code == "SHM001"]
    assert finding.severity.label == label
    if label == "error":
        assert "training_cli.py:2 DataLoader(num_workers=4), started at pages/2_Train.py:3" in finding.detail


_PYTORCH_RUN = "docker run --gpus all -v $PWD:/w -w /w pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime python main.py\n"


@pytest.mark.parametrize(
    ("defaults", "label"),
    [
        # audit89d: PyAnomaly's yacs defaults, read where its loader takes ``cfg.DATASET.num_workers``
        ("config = CN()\nconfig.DATASET = CN()\nconfig.DATASET.num_workers = 16\n", "error"),
        ("_C = CN()\n_C.DATALOADER = CN()\n_C.DATALOADER.num_workers = 0\n", "info"),
        ("config = CN()\ndef setup():\n    config.DATASET.num_workers = 16\n", "info"),  # not the module's own
    ],
)
def test_a_config_objects_defaults_are_what_its_loaders_read(tmp_path: Path, defaults: str, label: str) -> None:
    main = (
        "from torch.utils.data import DataLoader\nfrom pkg.defaults import config as cfg\n\n"
        "loader = DataLoader(ds, num_workers=cfg.DATASET.num_workers)\n"
    )
    (tmp_path / "run.sh").write_text(_PYTORCH_RUN)
    (tmp_path / "main.py").write_text(main)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "defaults.py").write_text(
        "from yacs.config import CfgNode as CN\n" + defaults.replace("_C", "config")
    )
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    (finding,) = [f for f in report.findings if f.code == "SHM001"]
    assert finding.severity.label == label, finding.message
