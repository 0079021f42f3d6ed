"""Renderers never reach the network and never take flags from the input.

Each reproduction is checked against a local HTTP server on 127.0.0.1 that counts requests (it stops itself), or a
stand-in renderer that records the arguments and environment it was given. kubectl is part of this machine image;
helm is not, so Helm is always a stand-in script on PATH.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import typing
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from shmlint.render.process import Sandbox, find_sandbox
from shmlint.results import FileResult, RenderRecord, RenderStatus, Report
from shmlint.settings import Settings
from shmlint.severity import Severity
from tests.hostile import POD, TORCHRUN_POD, assert_no_crash, decoded
from tests.support import (
    ROOT,
    git,
    pre_commit_env,
    pre_commit_work_tree,
    run_shmlint,
    run_shmlint_bytes,
    try_repo,
)

GPU_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
    - name: main
      image: pytorch/pytorch:2.3.0
      command: [torchrun, --nproc_per_node=2, train.py]
      resources:
        limits:
          nvidia.com/gpu: 1
"""
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"


def shmlint(*args: str, cwd: Path = ROOT, path: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``run_shmlint`` with environment variables as keywords, and ``path`` as the PATH renderers are found on."""
    return run_shmlint(*args, cwd=cwd, env={**env, **({"PATH": path} if path is not None else {})})


def kubectl() -> str:
    found = shutil.which("kubectl")
    if found is None:
        pytest.fail("kubectl is part of this machine image; the kustomize renderer cannot be tested without it")
    return found


class Counting(http.server.BaseHTTPRequestHandler):
    requests: list[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        body = GPU_POD.format(name="fetched").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 that records every request; it serves for at most 60 s and is always shut down."""
    requests: list[str] = []
    handler = type("Handler", (Counting,), {"requests": requests})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    timer = threading.Timer(60, httpd.shutdown)
    timer.start()
    try:
        yield f"127.0.0.1:{httpd.server_address[1]}", requests
    finally:
        timer.cancel()
        httpd.shutdown()
        httpd.server_close()


def test_the_server_is_reachable_so_zero_requests_means_something(server: tuple[str, list[str]]) -> None:
    import urllib.request

    address, requests = server
    with urllib.request.urlopen(f"http://{address}/probe", timeout=10) as answer:
        assert b"fetched" in answer.read()
    assert requests == ["/probe"]


# -- a folder name is never a flag --------------------------------------------------------------------------------


def flag_named_tree(tmp_path: Path) -> Path:
    """``shmlint check .`` in ``repo``: a folder named like a kubectl flag holds a kustomization. Old code ran
    ``kubectl kustomize --load-restrictor=LoadRestrictionsNone``, which built the repository's own kustomization
    without the load restrictor, so it read a file outside the repository into the report."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "pod.yaml").write_text(GPU_POD.format(name="outside-secret"))
    repo = tmp_path / "repo"
    flag = repo / "--load-restrictor=LoadRestrictionsNone"
    flag.mkdir(parents=True)
    (repo / "kustomization.yaml").write_text("resources:\n  - ../outside/pod.yaml\n")
    (flag / "kustomization.yaml").write_text("resources:\n  - settings.yaml\n")
    (flag / "settings.yaml").write_text(CONFIG_MAP)
    return repo


def test_a_folder_named_like_a_flag_is_rendered_as_a_folder(tmp_path: Path) -> None:
    kubectl()
    repo = flag_named_tree(tmp_path)
    result = shmlint("check", ".", "--format", "json", cwd=repo)
    assert "Traceback" not in result.stderr
    assert "outside-secret" not in result.stdout, result.stdout  # nothing from outside the repository
    units = {u["path"]: u for u in json.loads(result.stdout)["rendering"]["units"]}
    assert units["--load-restrictor=LoadRestrictionsNone"]["status"] == "rendered"
    assert units["."]["status"] == "failed"  # the restrictor kubectl applies by default refused ../outside
    assert "is not in or below" in units["."]["reason"]


def recording_program(folder: Path, name: str, output: str = "") -> Path:
    """A stand-in renderer that records its argv and environment (one JSON line per call) and prints ``output``."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{name}.calls"
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(log)!r}, 'a') as f: f.write(json.dumps({{'argv': sys.argv[1:], 'env': dict(os.environ)}}) + '\\n')\n"
        "if sys.argv[1:2] == ['version']: print('v3.99.0'); sys.exit(0)\n"
        f"sys.stdout.write({output!r})\n"
    )
    script.chmod(0o755)
    return log


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_kubectl_is_given_a_double_dash_and_an_absolute_path(tmp_path: Path) -> None:
    repo = flag_named_tree(tmp_path)
    (repo / "kustomization.yaml").write_text("resources:\n  - settings.yaml\n")
    (repo / "settings.yaml").write_text(CONFIG_MAP)
    log = recording_program(tmp_path / "bin", "kubectl", CONFIG_MAP)
    shmlint("check", ".", cwd=repo, path=f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin")
    builds = [c["argv"] for c in calls(log) if c["argv"][0] == "kustomize"]
    assert sorted(builds) == sorted(
        [["kustomize", "--", str(repo)], ["kustomize", "--", str(repo / "--load-restrictor=LoadRestrictionsNone")]]
    )


def chart(root: Path, template: str) -> Path:
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text(f"apiVersion: v2\nname: {root.name}\nversion: 0.1.0\n")
    (root / "values.yaml").write_text("gpus: 1\n")
    (root / "templates" / "pod.yaml").write_text(template)
    return root


TEMPLATE = GPU_POD.replace("name: {name}", "name: {{ .Release.Name }}").replace("gpu: 1", "gpu: {{ .Values.gpus }}")


def test_helm_gets_a_double_dash_an_absolute_path_and_a_minimal_environment(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    chart(repo / "-chart", TEMPLATE)
    log = recording_program(
        tmp_path / "bin", "helm", "# Source: -chart/templates/pod.yaml\n" + GPU_POD.format(name="x")
    )
    hostile = {
        "KUBECONFIG": "/secret/kubeconfig",
        "HELM_PLUGINS": "/evil/plugins",
        "HELM_REPOSITORY_CONFIG": "/evil/repos.yaml",
        "HTTPS_PROXY": "http://proxy.invalid:3128",
        "http_proxy": "http://proxy.invalid:3128",
        "GIT_SSH_COMMAND": "/evil/ssh",
        "AWS_SECRET_ACCESS_KEY": "secret",
    }
    result = shmlint("check", ".", cwd=repo, path=f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin", **hostile)
    assert result.returncode == 1 and "SHM001" in result.stdout, result.stdout + result.stderr
    recorded = calls(log)
    assert [c["argv"] for c in recorded] == [["version", "--short"], ["template", "--", str(repo / "-chart")]]
    for call in recorded:
        env = call["env"]
        assert not set(hostile) & set(env), env
        assert set(env) == {"PATH", "HOME", "TMPDIR", "LC_ALL", "HELM_NO_PLUGINS"}, env
        assert Path(env["HOME"]).name.startswith("shmlint-render-") and env["TMPDIR"] == env["HOME"]
    assert "Ran helm template v3.99.0: 1 Helm chart(s) rendered." in result.stdout


# -- remote resources, however they are spelled or wherever they are in the graph --------------

REMOTE_SPELLINGS = {
    "through a local base": ("resources:\n  - ../base\n", "resources:\n  - http://{address}/pod.yaml\n"),
    "as a YAML escape": ('resources:\n  - "\\x68ttp://{address}/pod.yaml"\n', None),
    "in upper case": ("resources:\n  - HTTP://{address}/pod.yaml\n", None),
    "as a patch file": ("resources:\n  - settings.yaml\npatches:\n  - path: Http://{address}/p.yaml\n", None),
    "as a generator file": ("configMapGenerator:\n  - name: c\n    files:\n      - k=hTTp://{address}/f\n", None),
    "as !!binary": ("resources:\n  - !!binary {encoded}\n", None),
    "in a component of a base": ("resources:\n  - ../base\n", "components:\n  - ../component\n"),
}


def remote_tree(tmp_path: Path, case: str, address: str) -> Path:
    import base64

    top, base = REMOTE_SPELLINGS[case]
    encoded = base64.b64encode(f"http://{address}/pod.yaml".encode()).decode()
    overlay, base_folder, component = tmp_path / "overlay", tmp_path / "base", tmp_path / "component"
    for folder in (overlay, base_folder, component):
        folder.mkdir()
        (folder / "settings.yaml").write_text(CONFIG_MAP)
    (overlay / "kustomization.yaml").write_text(top.format(address=address, encoded=encoded))
    (base_folder / "kustomization.yaml").write_text((base or "resources:\n  - settings.yaml\n").format(address=address))
    (component / "kustomization.yaml").write_text(
        f"apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - http://{address}/pod.yaml\n"
    )
    return overlay


@pytest.mark.parametrize("case", sorted(REMOTE_SPELLINGS))
def test_a_remote_resource_is_never_fetched(tmp_path: Path, server: tuple[str, list[str]], case: str) -> None:
    kubectl()
    address, requests = server
    overlay = remote_tree(tmp_path, case, address)
    result = shmlint("check", str(overlay), "--format", "json")
    assert requests == [], f"kubectl fetched {requests}"
    (unit,) = [u for u in json.loads(result.stdout)["rendering"]["units"] if u["path"] == str(overlay)]
    assert unit["status"] == "not-rendered" and "remote" in unit["reason"], unit


@pytest.mark.parametrize("mode", ["auto", "always"])
def test_the_network_is_cut_off_even_when_the_guard_is_bypassed(
    tmp_path: Path, server: tuple[str, list[str]], mode: str
) -> None:
    """The second line of defence alone: kubectl is run directly through the sandbox on a kustomization naming
    the server, and cannot reach it."""
    address, requests = server
    prefix = find_sandbox()
    assert prefix is not None, "unshare --net works on this machine image (as root); the sandbox must be found"
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(f"resources:\n  - http://{address}/pod.yaml\n")
    sandbox = Sandbox(prefix, tmp_path, 1 << 20)
    outcome = sandbox.run([kubectl(), "kustomize", "--", str(folder)])
    assert outcome.text is None and outcome.error
    connect = f"import socket; socket.create_connection(('127.0.0.1', {address.split(':')[1]}), timeout=5)"
    assert sandbox.run([sys.executable, "-c", connect]).error is not None
    assert requests == []
    assert sandbox.run([sys.executable, "-c", "print('ok')"]).text == "ok\n"  # the sandbox itself runs programs


def test_helm_charts_in_a_kustomization_are_not_inflated(tmp_path: Path) -> None:
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text("helmCharts:\n  - name: x\n    repo: oci://example.invalid/x\n")
    result = shmlint("check", str(folder), "--format", "json")
    (unit,) = json.loads(result.stdout)["rendering"]["units"]
    assert unit["status"] == "not-rendered" and "helmCharts" in unit["reason"]


# -- explicit and deterministic -----------------------------------------------------------------------------------

PATCH = GPU_POD.format(name="trainer")


def kustomization(tmp_path: Path) -> Path:
    folder = tmp_path / "overlay"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text("resources:\n  - pod.yaml\n")
    (folder / "pod.yaml").write_text(PATCH)
    return folder


def test_render_never_gives_the_same_answer_with_and_without_kubectl(tmp_path: Path) -> None:
    kubectl()
    folder = kustomization(tmp_path)
    with_kubectl = shmlint("check", str(folder), "--render", "never")
    without = shmlint("check", str(folder), "--render", "never", path=str(Path(sys.executable).parent))
    assert with_kubectl.stdout == without.stdout and with_kubectl.returncode == without.returncode == 1
    assert "not rendered: render is set to never" in with_kubectl.stdout


def test_render_never_from_configuration(tmp_path: Path) -> None:
    folder = kustomization(tmp_path)
    (tmp_path / ".shmlint.yaml").write_text("render: never\n")
    result = shmlint("check", str(folder), "--format", "json")
    (unit,) = json.loads(result.stdout)["rendering"]["units"]
    assert unit["status"] == "not-rendered" and unit["reason"] == "render is set to never"


def test_auto_says_which_renderer_ran_with_its_version(tmp_path: Path) -> None:
    kubectl()
    folder = kustomization(tmp_path)
    result = shmlint("check", str(folder), "--format", "sarif")
    properties = json.loads(result.stdout)["runs"][0]["properties"]["rendering"]
    (renderer,) = properties["renderers"]
    assert renderer["name"] == "kubectl kustomize" and renderer["version"].startswith("v5.")
    text = shmlint("check", str(folder)).stdout
    assert f"Ran kubectl kustomize {renderer['version']}: 1 kustomization(s) rendered." in text


def test_auto_without_kubectl_says_so_and_always_makes_it_an_error(tmp_path: Path) -> None:
    folder = kustomization(tmp_path)
    (folder / "pod.yaml").write_text(CONFIG_MAP)  # no finding at all: only rendering can fail the run
    python_only = str(Path(sys.executable).parent)
    auto = shmlint("check", str(folder), path=python_only)
    assert auto.returncode == 0 and f"{folder}: note: kustomization not rendered: kubectl is not on PATH" in auto.stdout
    always = shmlint("check", str(folder), "--render", "always", path=python_only)
    assert always.returncode == 1 and f"{folder}: error: kustomization not rendered" in always.stdout


@pytest.mark.parametrize(("level", "code"), [("note", 0), ("warning", 1), ("error", 1)])
def test_unrendered_decides_whether_an_unchecked_chart_fails(tmp_path: Path, level: str, code: int) -> None:
    root = chart(tmp_path / "mychart", TEMPLATE)
    (tmp_path / ".shmlint.yaml").write_text(f"unrendered: {level}\n")
    result = shmlint("check", str(root), path=str(Path(sys.executable).parent))
    assert result.returncode == code, result.stdout
    assert result.stdout.count("Helm chart not rendered") == 1  # once, by its record (not once more per template)


def test_a_plain_template_of_an_unrendered_chart_is_checked_as_the_yaml_it_renders_as(tmp_path: Path) -> None:
    """Helm renders a template with no action as it is written, so it is checked one by one, and the note says so
    (audit72a read the note as "not checked" for such a template)."""
    root = chart(tmp_path / "mychart", GPU_POD.format(name="plain").replace("gpu: 1", "gpu: 2"))
    (root / "templates" / "templated.yaml").write_text(TEMPLATE)
    result = shmlint("check", str(root), path=str(Path(sys.executable).parent))
    assert result.returncode == 1 and "pod.yaml:7:" in result.stdout and "templated.yaml" not in result.stdout
    assert "are not checked but for plain YAML ones" in result.stdout


def test_quiet_still_names_each_unchecked_chart_on_stderr(tmp_path: Path) -> None:
    """The pre-commit hook runs ``check --quiet`` on the changed files: a GPU template without /dev/shm."""
    root = chart(tmp_path / "mychart", TEMPLATE)
    template = root / "templates" / "pod.yaml"
    result = shmlint("check", "--quiet", str(template), path=str(Path(sys.executable).parent))
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{root}: note: Helm chart not rendered: helm is not on PATH; its templates, which ask for accelerators, are "
        "not checked but for plain YAML ones (lint its output with "
        f"`helm template {root} | shmlint check - --stdin-filename rendered.yaml`)"
    ]
    (tmp_path / ".shmlint.yaml").write_text("unrendered: error\n")
    gated = shmlint("check", "--quiet", str(template), path=str(Path(sys.executable).parent))
    assert gated.returncode == 1 and gated.stderr.count("Helm chart not rendered") == 1


def test_a_render_failure_is_shm000_with_the_renderers_first_error_line(tmp_path: Path) -> None:
    kubectl()
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text("bases:\n  - settings.yaml\nresources:\n  - settings.yaml\n")
    (folder / "settings.yaml").write_text(CONFIG_MAP)  # the same resource twice: kustomize refuses it
    result = shmlint("check", str(folder))
    (line,) = [line for line in result.stdout.splitlines() if "SHM000" in line]
    assert "failed: accumulating resources" in line and "settings.yaml" in line, line
    assert "Warning" not in line and "run.go" not in line and not line.endswith(">")


def test_a_renderer_that_hangs_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    prefix = find_sandbox()
    assert prefix is not None
    marker = tmp_path / "still-running"
    script = f"import subprocess, sys; subprocess.Popen(['sh', '-c', 'sleep 3; touch {marker}']); import time; time.sleep(60)"
    started = time.monotonic()
    outcome = Sandbox(prefix, tmp_path, 1 << 20, timeout=0.5).run([sys.executable, "-c", script])
    assert outcome.error == "did not finish within 0.5 s" and time.monotonic() - started < 10
    time.sleep(3.5)
    assert not marker.exists()  # the grandchild was killed with its process group


def test_output_beyond_the_size_limit_is_refused_not_read(tmp_path: Path) -> None:
    prefix = find_sandbox()
    assert prefix is not None
    script = "import sys; sys.stdout.write('x' * 5_000_000)"
    outcome = Sandbox(prefix, tmp_path, 1 << 20).run([sys.executable, "-c", script])
    assert outcome.text is None and "larger than 1,048,576 bytes" in (outcome.error or "")


@pytest.mark.slow
def test_the_pre_commit_hook_names_an_unchecked_chart(tmp_path: Path) -> None:
    """The real pre-commit on a changed chart template with a GPU and no /dev/shm, without helm: the hook passes
    (``unrendered`` is a note by default) but says which chart it could not check."""
    work = pre_commit_work_tree(tmp_path)
    chart(work / "mychart", TEMPLATE)
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not (Path(p) / "helm").exists())
    result = try_repo(work, env, "shmlint", "--files", "mychart/templates/pod.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mychart: note: Helm chart not rendered: helm is not on PATH" in result.stdout


def test_render_settings_are_validated_and_shown(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("render: sometimes\n")
    bad = shmlint("check", str(tmp_path))
    assert bad.returncode == 2 and "render" in bad.stderr and "Traceback" not in bad.stderr
    assert shmlint("check", str(tmp_path), "--render", "sometimes").returncode == 2
    (tmp_path / ".shmlint.yaml").write_text("render: never\nunrendered: warning\n")
    shown = shmlint("config", str(tmp_path)).stdout
    assert f'render: "never"  # from {tmp_path / ".shmlint.yaml"}' in shown
    assert f'unrendered: "warning"  # from {tmp_path / ".shmlint.yaml"}' in shown


def test_the_sandbox_works_for_a_user_who_is_not_root(
    server: tuple[str, list[str]], request: pytest.FixtureRequest, nobody_pythonpath: str
) -> None:
    """Not root: ``unshare --map-root-user --net`` (a user namespace) cuts the network off the same way."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.fail("this machine image runs tests as root with setpriv, which the test needs to become nobody")
    address, requests = server
    home = Path(tempfile.mkdtemp(prefix="shmlint-nobody-"))  # pytest's own folders are not open to nobody
    home.chmod(0o777)
    request.addfinalizer(lambda: shutil.rmtree(home, ignore_errors=True))
    script = (
        "import sys; from pathlib import Path; from shmlint.render.process import Sandbox, find_sandbox\n"
        "prefix = find_sandbox(); print(prefix)\n"
        f"connect = \"import socket; socket.create_connection(('127.0.0.1', {address.split(':')[1]}), timeout=5)\"\n"
        f"print(Sandbox(prefix, Path({str(home)!r}), 1 << 20).run([sys.executable, '-c', connect]))\n"
    )
    drop = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    done = subprocess.run(
        [*drop, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env={"PYTHONPATH": nobody_pythonpath, "PATH": os.environ["PATH"]},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    prefix, outcome = done.stdout.splitlines()
    assert "'--map-root-user', '--net'" in prefix
    assert outcome.startswith("Outcome(text=None, error=") and requests == []


def records_report() -> Report:
    rendered = RenderRecord("k/prod", "kustomization", "kubectl kustomize", RenderStatus.RENDERED, "v5.5.0")
    skipped = RenderRecord(
        "charts/x", "Helm chart", "helm template", RenderStatus.NOT_RENDERED, "", "helm is not on PATH", Severity.ERROR
    )
    return Report((FileResult("k/prod", render=rendered), FileResult("charts/x", render=skipped)))


def test_every_format_carries_what_was_rendered_and_what_was_not() -> None:
    from shmlint.report import github, junit, sarif, text
    from shmlint.report import json as json_report

    report = records_report()
    assert report.failed(Severity.ERROR) and report.failed_by_file(Severity.ERROR)
    warned = report.files[1].render._replace(severity=Severity.WARNING)
    judged = FileResult("charts/x", render=warned, settings=Settings(fail_on=Severity.ERROR))
    assert not Report((judged,)).failed_by_file(Severity.INFO)  # the result's own fail-on decides, not the default
    assert Report((judged._replace(settings=None),)).failed_by_file(Severity.INFO)
    units = json.loads(json_report.format_report(report))["rendering"]
    assert units["renderers"] == [{"name": "kubectl kustomize", "version": "v5.5.0"}]
    assert [(u["path"], u["status"], u["severity"]) for u in units["units"]] == [
        ("k/prod", "rendered", None),
        ("charts/x", "not-rendered", "error"),
    ]
    run = json.loads(sarif.format_report(report))["runs"][0]
    assert run["properties"]["rendering"] == units
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["level"] == "error" and "helm is not on PATH" in notification["message"]["text"]
    assert github.format_report(report).startswith("::error file=charts/x,title=shmlint::Helm chart not rendered")
    assert "charts/x: error: Helm chart not rendered: helm is not on PATH" in junit.format_report(report)
    lines = text.format_report(report).splitlines()
    assert lines[0] == "Ran kubectl kustomize v5.5.0: 1 kustomization(s) rendered."
    assert lines[1].startswith("charts/x: error: Helm chart not rendered: helm is not on PATH;")
    assert not Report((FileResult("k/prod", render=report.renders[0]),)).failed(Severity.INFO)


def test_a_note_never_fails_the_run() -> None:
    record = records_report().renders[1]._replace(severity=None)
    assert not Report((FileResult("charts/x", render=record),)).failed(Severity.INFO)


class _Recorder(BaseHTTPRequestHandler):
    requests: typing.ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Recorder.requests.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def http_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_check_never_fetches_urls_named_in_the_input(tmp_path: Path, http_server) -> None:
    """Found: a folder with a kustomization.yaml is rendered with ``kubectl kustomize`` whenever kubectl is on PATH,
    and kustomize fetches every remote resource the file names: ``shmlint check`` on an untrusted pull request makes
    network requests the pull request chooses (and waits up to 60 s per folder for them)."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: nothing would be rendered")
    port = http_server.server_address[1]
    (tmp_path / "kustomization.yaml").write_text(f"resources:\n- pod.yaml\n- http://127.0.0.1:{port}/remote.yaml\n")
    (tmp_path / "pod.yaml").write_text(POD)
    result = run_shmlint_bytes("check", ".", cwd=tmp_path, timeout=90)
    assert_no_crash(result)
    assert not _Recorder.requests, f"shmlint check fetched {_Recorder.requests}"


def test_kustomization_that_cannot_be_rendered_still_checks_its_files(tmp_path: Path) -> None:
    """Found: when ``kubectl kustomize`` fails, the folder's own files are dropped from the run (only an SHM000 on the
    kustomization is left), and the message carries kubectl's log prefix (time stamp and process id), so two runs
    over the same tree do not print the same bytes."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: nothing is rendered")
    (tmp_path / "kustomization.yaml").write_text("resources:\n- pod.yaml\n- missing.yaml\n")
    (tmp_path / "pod.yaml").write_text(POD)
    first = run_shmlint_bytes("check", ".", cwd=tmp_path, timeout=90)
    second = run_shmlint_bytes("check", ".", cwd=tmp_path, timeout=90)
    assert_no_crash(first)
    assert first.returncode == 1
    assert first.stdout == second.stdout, (decoded(first.stdout), decoded(second.stdout))
    assert b"pod.yaml:7:5: SHM001" in first.stdout, decoded(first.stdout)


def kustomize_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "overlay"
    for name, text in {"deploy.yaml": TORCHRUN_POD, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


PATCHER = "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: {path}\ntarget:\n  kind: Pod\n"


GENERATOR = "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: c\n{field}:\n- {value}\n"


REMOTE_BASE = "resources:\n- https://github.com/example/repo//base?ref=v1\n"


@pytest.mark.parametrize(
    "files",
    [
        {
            "kustomization.yaml": "transformers:\n- patcher.yaml\n",
            "patcher.yaml": PATCHER.format(path="http://x.test/p"),
        },
        {
            "kustomization.yaml": "transformers:\n- patcher.yaml\n",
            "patcher.yaml": PATCHER.format(path="git@github.com:example/repo.git"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="files", value="https://x.test/f"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="files", value="key=HTTPS://x.test/f"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="envs", value="s3::x/e"),
        },
        {"kustomization.yaml": "resources:\n- my base\n", "my base/kustomization.yaml": REMOTE_BASE},
        {"kustomization.yaml": "resources:\n- ' my base '\n", "my base/kustomization.yaml": REMOTE_BASE},
        {
            "kustomization.yaml": "generators:\n- gens\n",
            "gens/kustomization.yaml": "resources:\n- gen.yaml\n",
            "gens/gen.yaml": GENERATOR.format(field="files", value="http://x.test/f"),
        },
        {
            "kustomization.yaml": "components:\n- comp\n",
            "comp/kustomization.yaml": "kind: Component\ntransformers:\n- p.yaml\n",
            "comp/p.yaml": PATCHER.format(path="https://x.test/p"),
        },
        {"kustomization.yaml": "patches:\n- path: https://x.test/patch.yaml\n"},
    ],
    ids=[
        "transformer-http",
        "transformer-scp",
        "generator-file",
        "generator-key-file",
        "generator-env",
        "spaced-base",
        "spaced-base-padded",
        "generator-folder",
        "component-transformer",
        "patch-url",
    ],
)
def test_the_guard_refuses_every_remote_shape_before_kustomize_runs(tmp_path: Path, files: dict[str, str]) -> None:
    from shmlint.render.graph import walk

    graph = walk(kustomize_tree(tmp_path, files), 1 << 20)
    assert graph.blocker is not None and "remote" in graph.blocker


def test_local_plugins_and_urls_inside_plain_resources_do_not_block(tmp_path: Path) -> None:
    """A resource's own values (an env URL) are objects kustomize loads nothing from; local plugin paths are fine."""
    from shmlint.render.graph import walk

    pod = TORCHRUN_POD + "    env:\n    - name: U\n      value: https://x.test/api\n"
    files = {
        "kustomization.yaml": "resources:\n- deploy.yaml\n- my base\ntransformers:\n- patcher.yaml\n",
        "deploy.yaml": pod,
        "patcher.yaml": PATCHER.format(path="patch.yaml"),
        "patch.yaml": "kind: Pod\nmetadata:\n  name: p\n",
        "my base/kustomization.yaml": "resources:\n- pod.yaml\n",
        "my base/pod.yaml": pod,
    }
    graph = walk(kustomize_tree(tmp_path, files), 1 << 20)
    assert graph.blocker is None and len(graph.folders) == 2


@pytest.mark.parametrize("empty", ["patches: null", "patches: ~", "resources:\n- deploy.yaml\n- null", "patches:"])
def test_a_null_names_no_file(tmp_path: Path, empty: str) -> None:
    """``patches: null`` (found in an operator's generated kustomization, which kubectl kustomize builds) names no
    file: it was looked for as a file called ``null`` and left the unit unrendered."""
    from shmlint.render.graph import walk

    files = {"kustomization.yaml": f"resources:\n- deploy.yaml\n{empty}\n", "deploy.yaml": TORCHRUN_POD}
    graph = walk(kustomize_tree(tmp_path, files), 1 << 20)
    assert graph.blocker is None, graph.blocker
