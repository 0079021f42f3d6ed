"""What an image built here starts, followed into the repository: supervisord's programs, a command under an init
process (``tini -s --``), files a wildcard COPY puts in place, and a trainer's TOML config (audit79a: an
all-in-one training image run by supervisord was "need unknown"); and KubeRay's /dev/shm, which it does not mount
where the group sets ``plasma-directory`` (audit79b)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.model import Finding
from shmlint.parsers.dockerfile import _copy
from shmlint.parsers.programs import program
from shmlint.project.launchers import supervisord_config
from shmlint.project.supervisor import programs, sections
from shmlint.runner import check_paths
from shmlint.settings import Settings

COMPOSE = "services:\n  app:\n    build: .\n    runtime: nvidia\n"
TRAINER = "from torch.utils.data import DataLoader\n\nloader = DataLoader(ds, num_workers=4)\n"
SUPERVISED = """\
[supervisord]
nodaemon=true

[program:ui]
command=python -m http.server 8080

[program:trainer]
command = /bin/bash -lc
    'cd /opt/app && exec python train.py'   ; the trainer, started with the container
autostart=true

[program:later]
command=python never.py
autostart=false
"""


def _shm001(root: Path, files: dict[str, str]) -> list[Finding]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    report = check_paths(Settings(undecided="show"), [root], jobs=1)
    return [f for f in report.findings if f.code == "SHM001"]


def test_supervisords_programs_are_read_as_supervisord_reads_them() -> None:
    started, unread = programs(SUPERVISED, "/etc/supervisor", {})
    assert not unread
    assert [(p.line, p.argv) for p in started] == [
        (4, ("python", "-m", "http.server", "8080")),
        (7, ("/bin/bash", "-lc", "cd /opt/app && exec python train.py")),  # continued, comment dropped
    ]
    expanded, _ = programs(
        "[program:x]\ncommand=%(ENV_PY)s %(here)s/%(program_name)s.py %(ENV_NO)s\n", "/d", {"PY": "py"}
    )
    assert expanded[0].argv == ("py", "/d/x.py", "\x00ENV_NO")  # what is not known stays marked unknown
    assert programs("[program:x]\ncommand=python 'unclosed\n", "/", {}) == ([], True)


@pytest.mark.parametrize(
    ("words", "config"),
    [
        (["-n", "-c", "/etc/s.conf"], "/etc/s.conf"),
        (["--configuration=/x.conf"], "/x.conf"),
        (["-c/y.conf"], "/y.conf"),
        (["-n"], ""),  # its default places
        (["-c"], None),  # no value: not started
        (["-nc", "/x.conf"], "/x.conf"),  # getopt's flags, then -c and the next word
        (["-uc", "root"], ""),  # -u takes "c" as its value
    ],
)
def test_supervisords_configuration_option(words: list[str], config: str | None) -> None:
    assert supervisord_config(words) == config


@given(st.text(alphabet=st.sampled_from("[]=:;# \t\nprogam:cdxyz%()sENV_'\"\\"), max_size=300))
def test_any_text_reads_as_sections_without_an_error(text: str) -> None:
    for _name, line, keys in sections(text):
        assert line >= 1 and all(isinstance(value, str) for value in keys.values())
    programs(text, "/", {})


def test_an_image_run_by_supervisord_is_judged_by_the_programs_it_starts(tmp_path: Path) -> None:
    dockerfile = (
        "FROM python:3.11\nCOPY supervisord.conf /etc/supervisor/supervisord.conf\nCOPY app /opt/app\n"
        'ENTRYPOINT ["/usr/bin/tini", "-s", "--"]\n'
        'CMD ["/bin/bash", "-lc", "exec /usr/bin/supervisord -n -c /etc/supervisor/supervisord.conf"]\n'
    )
    files = {"compose.yaml": COMPOSE, "Dockerfile": dockerfile, "supervisord.conf": SUPERVISED}
    (finding,) = _shm001(tmp_path, {**files, "app/train.py": TRAINER, "app/never.py": TRAINER})
    assert finding.severity.label == "error"
    assert "app/train.py:3 DataLoader(num_workers=4)" in finding.message + (finding.detail or "")


def test_programs_copied_where_the_package_includes_them(tmp_path: Path) -> None:
    """No configuration of the repository's: Debian's package reads /etc/supervisor/conf.d/*.conf, where the image
    copies its programs (by a wildcard too)."""
    dockerfile = (
        "FROM python:3.11\nRUN apt-get install -y supervisor\nCOPY conf/*.conf /etc/supervisor/conf.d/\n"
        "COPY train.py /opt/train.py\n"
        'CMD ["supervisord", "-n"]\n'
    )
    files = {"compose.yaml": COMPOSE, "Dockerfile": dockerfile, "train.py": TRAINER}
    conf = {"conf/trainer.conf": "[program:trainer]\ncommand=python /opt/train.py\n"}
    (finding,) = _shm001(tmp_path, {**files, **conf})
    assert finding.severity.label == "error"
    (quiet,) = _shm001(tmp_path / "quiet", {**files, "conf/trainer.conf": "[program:ui]\ncommand=sleep 1d\n"})
    assert quiet.severity.label == "info"  # what it starts uses no /dev/shm that is seen


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["/usr/bin/tini", "-s", "--", "python", "x.py"], ["python", "x.py"]),
        (["tini", "-g", "-p", "SIGTERM", "python", "x.py"], ["python", "x.py"]),
        (["/usr/local/bin/dumb-init", "--single-child", "--", "sh", "run.sh"], ["sh", "run.sh"]),
        (["tini"], []),
    ],
)
def test_an_init_process_in_front_of_the_command_is_passed_over(argv: list[str], words: list[str]) -> None:
    assert program(argv) == words


def test_a_copy_of_several_sources_or_a_wildcard_keeps_each_source() -> None:
    assert _copy("scripts/*.sh scripts/*.py /opt/pilot/", "") == [
        ("/opt/pilot", "scripts/*.sh"),
        ("/opt/pilot", "scripts/*.py"),
    ]
    assert _copy('["a.sh", "b.sh", "dest"]', "/app") == [("/app/dest", "a.sh"), ("/app/dest", "b.sh")]
    assert _copy("--from=build /out /opt", "", elsewhere=True) == [("/opt", "")]
    assert _copy("$SRC /opt", "") == [("/opt", "")]


def test_a_wildcard_copy_puts_the_files_it_matches_in_place(tmp_path: Path) -> None:
    dockerfile = 'FROM python:3.11\nCOPY scripts/*.sh scripts/*.py /opt/app/\nCMD ["/opt/app/start.sh"]\n'
    files = {"compose.yaml": COMPOSE, "Dockerfile": dockerfile, "scripts/start.sh": "python /opt/app/train.py\n"}
    (finding,) = _shm001(tmp_path, {**files, "scripts/train.py": TRAINER})
    assert finding.severity.label == "error" and "train.py:3" in (finding.detail or "")
    (other,) = _shm001(tmp_path / "other", {**files, "scripts/train.txt": TRAINER})
    assert other.severity.label == "info"  # ``*.py`` matches no ``train.txt``: nothing at /opt/app/train.py


def test_a_folder_copied_to_the_working_folder_holds_what_its_commands_name(tmp_path: Path) -> None:
    """``WORKDIR /app`` then ``COPY app .``: ``python serve.py`` in the entrypoint is ``app/serve.py`` (audit79b:
    it was "not in the checked files")."""
    dockerfile = 'FROM python:3.11\nWORKDIR /app\nCOPY start.sh .\nCOPY app .\nCMD ["./start.sh"]\n'
    files = {"compose.yaml": COMPOSE, "Dockerfile": dockerfile, "start.sh": "python serve.py\n"}
    (finding,) = _shm001(tmp_path, {**files, "app/serve.py": TRAINER})
    assert finding.severity.label == "error" and "app/serve.py:3" in (finding.detail or "")


@pytest.mark.parametrize(("workers", "label"), [("4", "error"), ("0", "info")])
def test_a_trainers_toml_config_sets_its_loader_workers(tmp_path: Path, workers: str, label: str) -> None:
    """kohya sd-scripts' ``max_data_loader_n_workers`` in the TOML its ``--config_file`` names."""
    compose = COMPOSE.replace(
        "build: .", "image: acme/lora\n    command: [python, train_network.py, --config_file, cfg.toml]"
    )
    toml = f'pretrained_model_name_or_path = "m"\nmax_data_loader_n_workers = {workers}\n'
    (finding,) = _shm001(tmp_path, {"compose.yaml": compose, "cfg.toml": toml, "train_network.py": "import x\n"})
    assert finding.severity.label == label
    if label == "error":
        assert "cfg.toml:2 max_data_loader_n_workers: 4" in finding.message


RAY = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: t}
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - {name: head, image: rayproject/ray:2.9.0}
  workerGroupSpecs:
  - groupName: gpu
    rayStartParams: {PARAMS}
    template:
      spec:
        containers:
        - name: worker
          image: rayproject/ray:2.9.0-gpu
          command: ["torchrun", "--nproc-per-node=4", "train.py"]
          resources:
            limits: {nvidia.com/gpu: 4, memory: 64Gi}
"""


@pytest.mark.parametrize(("params", "codes"), [("{}", []), ("{plasma-directory: /tmp}", ["error"])])
def test_kuberay_mounts_no_shm_where_the_group_sets_a_plasma_directory(tmp_path: Path, params: str, codes) -> None:
    (tmp_path / "rc.yaml").write_text(RAY.replace("{PARAMS}", params))
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert [f.severity.label for f in report.findings if f.code == "SHM001"] == codes


DGL = """\
apiVersion: {GROUP}/v1alpha1
kind: DGLJob
metadata: {name: sage}
spec:
  dglReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: acme/sage:1
            command: ["torchrun", "--nproc-per-node=2", "train.py"]
            resources: {limits: {nvidia.com/gpu: 2}}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: worker
            image: acme/sage:1
            command: ["torchrun", "--nproc-per-node=4", "train.py"]
            resources: {limits: {nvidia.com/gpu: 4, memory: 64Gi}}
"""


@pytest.mark.parametrize(("group", "roles"), [("qihoo.net", ["Launcher"]), ("example.com", ["Launcher", "Worker"])])
def test_the_dgl_operator_mounts_shm_in_its_workers_not_its_launcher(tmp_path: Path, group: str, roles) -> None:
    """Qihoo360's dgl-operator appends a Memory emptyDir at /dev/shm to each worker's first container
    (dgljob_controller.go, audit81c); its launcher gets none, and another group's DGLJob is no such operator's."""
    (tmp_path / "dgl.yaml").write_text(DGL.replace("{GROUP}", group))
    report = check_paths(Settings(), [tmp_path], jobs=1)
    found = [f for f in report.findings if f.code == "SHM001"]
    assert [f.message.split(",")[0].split()[-1] for f in found] == roles, [f.message for f in found]
    assert all(f.severity.label == "error" for f in found)


@pytest.mark.parametrize(("gpus", "label"), [("2", "error"), ("1", "info"), ("all", "info")])
def test_a_monai_label_server_needs_shm_on_two_counted_gpus(tmp_path: Path, gpus: str, label: str) -> None:
    """Its training task spawns one NCCL process per visible GPU; one GPU or an uncounted request is undecided."""
    run = f"docker run --gpus {gpus} projectmonai/monailabel:latest monailabel start_server --app apps/radiology\n"
    (finding,) = _shm001(tmp_path, {"run.sh": run})
    assert finding.severity.label == label


PORTAL = """\
import subprocess
from pathlib import Path

TRAINER = Path("/opt/pilot/apps/trainer/train.sh")


def start():
    return subprocess.Popen([str(TRAINER)], cwd=TRAINER.parent)
"""


def test_a_web_apps_started_script_is_found_by_the_path_its_constant_holds(tmp_path: Path) -> None:
    """supervisord starts a portal (``uvicorn app:app --app-dir DIR``, the folder named after the reference), whose
    code starts a training script by a module constant (``str(TRAINER)``, ``TRAINER = Path(...)``); that script's
    long set-up comes before its training command (audit79a)."""
    setup = "".join(f"check_{n} || die missing {n}\n" for n in range(80))  # its own functions' calls, kept
    files = {
        "compose.yaml": COMPOSE,
        "Dockerfile": "FROM python:3.11\nCOPY scripts/*.sh /opt/pilot/\nCOPY apps /opt/pilot/apps\n"
        'CMD ["supervisord", "-c", "/opt/pilot/apps/supervisord.conf"]\n',
        "apps/supervisord.conf": "[program:portal]\ncommand=/opt/pilot/portal.sh\n",
        "scripts/portal.sh": 'APP_DIR="/opt/pilot/apps/portal"\nexec uvicorn app:app --port 80 --app-dir "${APP_DIR}"\n',
        "apps/portal/app.py": PORTAL,
        "apps/trainer/train.sh": setup + "python train.py --num_workers 4\n",
    }
    (finding,) = _shm001(tmp_path, files)
    assert finding.severity.label == "error" and "train.sh:81 python train.py --num_workers 4" in finding.message


def test_a_case_clauses_patterns_are_no_programs(tmp_path: Path) -> None:
    """``./.env|./data/*)`` in a script's ``case`` was read as programs the repository lacks (audit79a's note
    "./.env is not in the checked files")."""
    script = 'case "$1" in\n  ./.env|./data/*) exit 0 ;;\n  *) python serve.py ;;\nesac\n'
    files = {"compose.yaml": COMPOSE, "Dockerfile": 'FROM python:3.11\nCOPY . /app\nCMD ["sh", "/app/run.sh"]\n'}
    (finding,) = _shm001(tmp_path, {**files, "run.sh": script, "serve.py": "print(1)\n"})
    assert "not in the checked files" not in (finding.detail or "")


BUILT = 'FROM python:3.11\nRUN apt-get install -y supervisor\n{copies}CMD ["/usr/bin/supervisord", "-n"{config}]\n'


@pytest.mark.parametrize(
    ("copies", "config", "label"),
    [
        # the repository's own supervisord.conf is not the image's unless the image copies it (the review)
        ("COPY conf/web.conf /etc/supervisor/conf.d/web.conf\n", "", "info"),
        ("COPY conf/web.conf /etc/supervisor/conf.d/web.conf\n", ', "-c", "/etc/supervisor/supervisord.conf"', "info"),
        (
            "COPY supervisord.conf /etc/supervisor/supervisord.conf\n",
            ', "-c", "/etc/supervisor/supervisord.conf"',
            "error",
        ),
        # a whole folder copied: its configuration and the includes below it
        ("COPY docker/supervisor /etc/supervisor\n", ', "-c", "/etc/supervisor/supervisord.conf"', "error"),
    ],
)
def test_supervisord_reads_only_what_the_container_holds(tmp_path: Path, copies: str, config: str, label: str) -> None:
    files = {
        "compose.yaml": COMPOSE,
        "Dockerfile": BUILT.format(copies=copies + "COPY . /opt/app\n", config=config),
        "conf/web.conf": "[program:web]\ncommand=python /opt/app/serve.py\n",
        "serve.py": "print(1)\n",
        "supervisord.conf": "[program:trainer]\ncommand=python /opt/app/train.py\n",
        "docker/supervisor/supervisord.conf": "[include]\nfiles = conf.d/*.conf\n",
        "docker/supervisor/conf.d/trainer.conf": "[program:trainer]\ncommand=python /opt/app/train.py\n",
        "train.py": TRAINER,
    }
    (finding,) = _shm001(tmp_path, files)
    assert finding.severity.label == label


def test_supervisords_inline_comments_are_no_words_of_a_command() -> None:
    text = "[program:api]\ncommand=python serve.py --num-workers 0   # was --num-workers 8\n"
    assert programs(text, "/", {})[0][0].argv == ("python", "serve.py", "--num-workers", "0")


def test_find_exec_starts_a_program(tmp_path: Path) -> None:
    """``find`` is no plumbing: its ``-exec`` runs a program (the review: the option evidence was dropped)."""
    script = "find /app/configs -name '*.yaml' -exec python train.py --num-workers 4 --config {} \\;\n"
    files = {"compose.yaml": COMPOSE, "Dockerfile": 'FROM python:3.11\nCOPY . /app\nCMD ["bash", "/app/run.sh"]\n'}
    (finding,) = _shm001(tmp_path, {**files, "run.sh": script})
    assert finding.severity.label == "error"
