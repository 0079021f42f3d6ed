"""``docker compose run SERVICE COMMAND`` in a repository's scripts and documents: the command a GPU service runs
there instead of its own, taken as its later steps (at most a warning, said with where it is written; audit80c: a
README's kohya training run in a service whose own command starts a web UI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.formats.compose.file_sets import _given
from shmlint.runner import check_paths
from shmlint.settings import Settings

COMPOSE = """\
services:
  trainer:
    image: acme/kohya:1
    command: python gui.py --listen 0.0.0.0
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: all, capabilities: [gpu]}]
"""
TRAIN = "python sdxl_train_network.py --config_file cfg.toml"


@pytest.mark.parametrize(
    ("line", "given"),
    [
        ("docker compose -f docker-compose.yml run --rm -e A=1 -v x:/y trainer python t.py", ("trainer", 11)),
        ("docker-compose --project-name p run -T trainer sh -c 'python t.py'", ("trainer", 6)),
        ("docker compose run trainer", ("trainer", 4)),  # its own command
        ("docker compose run --entrypoint sh trainer -c x", None),  # an entrypoint of its own
        ("docker compose up trainer", None),
        ("docker compose exec -T -w /app -e A=1 trainer python t.py", ("trainer", 9)),
        ("podman compose exec --index 2 trainer bash", ("trainer", 6)),
        ("docker compose exec $SERVICE python t.py", None),  # a service known only at run time
    ],
)
def test_a_compose_run_or_exec_names_the_service_and_the_command_it_gives_it(
    line: str, given: tuple[str, int] | None
) -> None:
    assert _given(line.split()) == given


def _findings(root: Path, files: dict[str, str]):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [f for f in check_paths(Settings(undecided="show"), [root], jobs=1).findings if f.code == "SHM001"]


def test_a_documented_run_of_a_gpu_service_is_its_later_steps(tmp_path: Path) -> None:
    readme = f"# Train\n\n```bash\ndocker compose run --rm trainer {TRAIN}\n```\n"
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, "README.md": readme})
    assert (finding.span.path.endswith("docker-compose.yml"), finding.severity.label) == (True, "warning")
    assert "(docker compose run, README.md:4)" in finding.message and finding.fix is not None


@pytest.mark.parametrize(
    "readme",
    [
        f"```bash\ndocker compose -f other.yml run trainer {TRAIN}\n```\n",  # another project's file
        f"```bash\ndocker compose run other {TRAIN}\n```\n",  # another service
        "```bash\ndocker compose run trainer python gui.py --port 1\n```\n",  # nothing that needs /dev/shm
    ],
)
def test_runs_of_other_files_services_or_harmless_commands_decide_nothing(tmp_path: Path, readme: str) -> None:
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, "README.md": readme})
    assert finding.severity.label == "info"


def test_a_service_without_an_accelerator_takes_no_runs(tmp_path: Path) -> None:
    cpu = COMPOSE.split("    deploy:")[0]
    readme = f"```bash\ndocker compose run trainer {TRAIN}\n```\n"
    assert not _findings(tmp_path, {"docker-compose.yml": cpu, "README.md": readme})


def test_a_run_reads_the_file_compose_reads_there(tmp_path: Path) -> None:
    """With ``-f`` the path from the script's folder, without it a default file of the script's own folder: never a
    same-named file of another folder, nor another file of the folder (the review)."""
    run = f"```bash\ndocker compose -f a/docker-compose.yml run --rm trainer {TRAIN}\n```\n"
    files = {"a/docker-compose.yml": COMPOSE, "b/docker-compose.yml": COMPOSE, "README.md": run}
    found = {f.span.path.rsplit("/", 2)[-2]: f.severity.label for f in _findings(tmp_path / "named", files)}
    assert found == {"a": "warning", "b": "info"}
    plain = f"```bash\ndocker compose run --rm trainer {TRAIN}\n```\n"
    files = {"docker/docker-compose.yml": COMPOSE, "README.md": plain}  # compose reads no file of a folder below
    assert [f.severity.label for f in _findings(tmp_path / "below", files)] == ["info"]
    files = {"docker-compose.serve.yml": COMPOSE, "README.md": plain}  # nor a file of another name
    assert [f.severity.label for f in _findings(tmp_path / "other", files)] == ["info"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Makefile", f"train:\n\t@docker compose run --rm trainer {TRAIN}\n"),  # a recipe's prefix is make's
        ("README.md", f"It's one command:\n\n```bash\ndocker compose run --rm trainer {TRAIN}\n```\n"),  # prose
    ],
)
def test_a_run_is_read_as_its_file_runs_it(tmp_path: Path, name: str, text: str) -> None:
    """A Makefile's recipes and a document's code blocks are the shell they run: the review found a Makefile's
    ``@docker compose run`` missed, and one apostrophe of prose before a README's block hid its run."""
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, name: text})
    assert finding.severity.label == "warning" and f"(docker compose run, {name}:" in finding.message


def test_prose_that_names_a_run_is_no_run(tmp_path: Path) -> None:
    readme = f"Do not type docker compose run trainer {TRAIN} here.\n"
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, "README.md": readme})
    assert finding.severity.label == "info"


def test_a_command_execd_in_a_gpu_service_is_its_later_steps(tmp_path: Path) -> None:
    """``docker compose exec trainer COMMAND`` runs in the service's running container, as a run does in a new one."""
    script = f"docker compose up -d\ndocker compose exec -T trainer {TRAIN}\n"
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, "train.sh": script})
    assert finding.severity.label == "warning" and "(docker compose exec, train.sh:2)" in finding.message


@pytest.mark.parametrize(
    ("readme", "said"),
    [
        # a shell opened in the service, then the guide's later section (audit85a: Run.md's exec, then training)
        (
            f"## Start\n\n```bash\ndocker compose up -d\ndocker compose exec trainer bash\n```\n\n## Train\n\n```\n{TRAIN}\n```\n",
            "the guide's later steps in the container, README.md:11",
        ),
        # typed after the shell in the same block
        (f"```bash\ndocker compose exec trainer bash\n{TRAIN}\n```\n", "typed in the container, README.md:3"),
    ],
)
def test_a_guides_session_in_a_shell_opened_in_a_gpu_service_is_its_later_steps(
    tmp_path: Path, readme: str, said: str
) -> None:
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, "README.md": readme})
    assert finding.severity.label == "warning" and said in finding.message, finding.message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("start.sh", f"docker compose exec trainer bash\n{TRAIN}\n"),  # a script's next line runs on the host
        ("README.md", f"```bash\ndocker compose exec other bash\n{TRAIN}\n```\n"),  # another service's shell
        ("README.md", f"```bash\ndocker compose exec trainer bash\nexit\n{TRAIN}\n```\n"),  # typed after it closed
    ],
)
def test_what_runs_after_a_shell_in_another_place_is_not_the_services(tmp_path: Path, name: str, text: str) -> None:
    (finding,) = _findings(tmp_path, {"docker-compose.yml": COMPOSE, name: text})
    assert finding.severity.label == "info"


@pytest.mark.parametrize(
    ("script", "label"),
    [
        (f"cd docker\ndocker-compose run train {TRAIN}\n", "warning"),  # audit87b: the folder compose reads there
        (f"cd docker && docker compose run train {TRAIN}\n", "warning"),
        (f"cd docker\ncd ..\ndocker compose run train {TRAIN}\n", "info"),  # back at the top: no compose file there
        (f"cd $DIR\ndocker compose run train {TRAIN}\n", "info"),  # not known: the script's own folder
        (f"docker compose run train {TRAIN}\n", "info"),
    ],
)
def test_a_run_after_a_cd_reads_the_compose_file_of_that_folder(tmp_path: Path, script: str, label: str) -> None:
    compose = COMPOSE.replace("trainer:", "train:")
    (finding,) = _findings(tmp_path, {"docker/docker-compose.yml": compose, "run.sh": script})
    assert finding.severity.label == label
