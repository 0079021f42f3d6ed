"""Ansible playbooks and task files: which YAML lists are Ansible, the shell tasks' command lines with their exact
places in every scalar style, Jinja as values known at run time, the container modules' arguments and the fix
that writes ``shm_size`` in them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.formats.ansible.jinja import jinja_as_variables
from shmlint.formats.ansible.tasks import is_ansible
from shmlint.model import Finding, ShmKind, WorkloadFormat
from shmlint.parsers.yamlnodes import compose
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import default_engine
from tests.test_format_units import _formats_loaded

IMAGE = "nvcr.io/nvidia/pytorch:24.05-py3"
RUN = f"docker run --gpus all {IMAGE} torchrun --nproc-per-node 8 train.py"


def _check(engine: Engine, text: str, path: str = "site.yml") -> list[Finding]:
    return list(engine.check_source(SourceText(path, text), FileKind.YAML, path).findings)


def _is_ansible(text: str, path: str = "x.yml") -> bool:
    return is_ansible(path, compose(SourceText(path, text)))


def _fixed(engine: Engine, text: str, path: str = "site.yml") -> str:
    result = fix_source(engine, SourceText(path, text), FileKind.YAML, path)
    assert not result.problems
    return result.text


# -- which YAML lists are Ansible ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("- hosts: all\n  tasks:\n    - shell: echo\n", "x.yml"),
        ("- import_playbook: other.yml\n- hosts: gpu\n  roles: [a]\n", "x.yml"),
        ("- name: t\n  shell: echo\n  register: out\n", "x.yml"),  # a keyword only Ansible writes
        ("- name: t\n  ansible.builtin.command: echo\n", "x.yml"),  # a collection's module
        ("- name: t\n  shell: echo\n", "roles/gpu/tasks/main.yml"),  # an Ansible folder
        ("- name: t\n  shell: echo\n", "playbooks/run.yml"),
        ("- block:\n    - shell: echo\n  when: gpu\n", "x.yml"),
        ("- include: other.yml\n- hosts: gpu\n  tasks: []\n", "x.yml"),  # the old include, in a playbook
        ("- include: setup.yml\n- name: t\n  shell: echo\n  register: r\n", "x.yml"),  # and in a task list
        ("- name: t\n  shell: echo\n  with_items: [a]\n", "x.yml"),
        ("- name: t\n  get_url: {url: x}\n- name: u\n  shell: echo\n", "x.yml"),  # a well-known module
        ("- name: t\n  docker_container: {image: x}\n", "x.yml"),
    ],
)
def test_plays_and_task_lists_are_ansible(text: str, path: str) -> None:
    assert _is_ansible(text, path)


@pytest.mark.parametrize(
    "text",
    [
        "- name: t\n  command: echo\n",  # a list of name/command pairs could be any tool's: no telling sign
        "- name: web\n  image: nginx\n  command: run\n",  # two keys that are not keywords: not a task
        "- a\n- b\n",
        "- name: t\n  shell: echo\n---\n- name: u\n",  # Ansible reads one document
        "[]\n",
        "- hosts: all\n- name: t\n  shell: echo\n  register: r\n",  # plays and tasks do not mix
        "- hosts: all\n  image: x\n",  # not a play keyword
        "- {1: x, shell: echo}\n",
        "services:\n  a:\n    command: echo\n",
    ],
)
def test_other_yaml_lists_are_not(text: str) -> None:
    assert not _is_ansible(text)


def test_a_kubernetes_manifest_never_loads_the_format(tmp_path: Path) -> None:
    """Its ``command:`` is a list, which the claim's cheap test tells from a shell task without importing it."""
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: t\nspec:\n  template:\n    spec:\n      containers:\n"
        f"        - name: t\n          image: {IMAGE}\n          command:\n            - torchrun\n"
        "          resources:\n            limits:\n              nvidia.com/gpu: 8\n",
        encoding="utf-8",
    )
    assert not any(m.startswith("shmlint.formats.ansible") for m in _formats_loaded(manifest))


def test_a_yaml_list_that_is_not_ansible_loads_no_reader(tmp_path: Path) -> None:
    """A list with a signal and a ``command:`` string is asked, answered by the task rules, and has no finding."""
    listing = tmp_path / "jobs.yml"
    listing.write_text(f"- name: train\n  command: {RUN}\n", encoding="utf-8")
    loaded = _formats_loaded(listing)
    assert "shmlint.formats.ansible.tasks" in loaded and "shmlint.formats.ansible.extract" not in loaded


# -- shell tasks ----------------------------------------------------------------------------------------------------


def _places(findings: list[Finding]) -> list[tuple[int, int]]:
    return [(f.span.line, f.span.column) for f in findings]


def test_shell_tasks_in_every_scalar_style_point_at_docker(engine: Engine) -> None:
    text = (
        "- hosts: gpu\n"
        "  tasks:\n"
        f"    - shell: {RUN}\n"  # plain: line 3, column 14
        f"    - command: '{RUN}'\n"  # single-quoted: column 17
        "    - ansible.builtin.shell: |\n"
        f"        set -e\n        {RUN}\n"  # literal block: line 7, column 9
        "    - ansible.builtin.command:\n"
        "        cmd: >\n"
        "          docker run --gpus all\n"  # folded: line 10, column 11
        f"          {IMAGE} torchrun --nproc-per-node 8 train.py\n"
        '    - raw: "docker run --gpus all '
        f'{IMAGE} torchrun --nproc-per-node 8 train.py"\n'  # double-quoted: line 12, column 13
    )
    findings = _check(engine, text)
    assert _places(findings) == [(3, 14), (4, 17), (7, 9), (10, 11), (12, 13)]
    assert {f.code for f in findings} == {"SHM001"}


def test_jinja_is_a_value_never_a_flag(engine: Engine) -> None:
    sized = f"- hosts: a\n  tasks:\n    - shell: docker run --gpus all --shm-size={{{{ shm }}}} {IMAGE} torchrun t.py\n"
    assert not _check(engine, sized)  # sized at run time: nothing to say
    mounted = f'- hosts: a\n  tasks:\n    - shell: "docker run --gpus all -v {{{{ d }}}}:/data {IMAGE} torchrun t.py"\n'
    (finding,) = _check(engine, mounted)
    assert finding.workload is not None and finding.workload.image == IMAGE  # the Jinja word did not eat the image
    options = (
        f'- hosts: a\n  tasks:\n    - shell: "docker run --gpus all {{{{ docker_opts }}}} {IMAGE} torchrun t.py"\n'
    )
    workloads = [f.workload for f in _check(engine, options) if f.workload is not None]
    assert all(ShmKind.UNKNOWN in {s.kind for s in w.shm} for w in workloads)


@given(
    st.lists(
        st.one_of(
            st.text(alphabet="ab -=$'\"{}%#\n", max_size=12),
            st.text(alphabet="abc._|( )'", max_size=20).map(lambda inner: "{{" + inner + "}}"),
            st.text(alphabet="abc ", max_size=10).map(lambda inner: "{%" + inner + "%}"),
        ),
        max_size=12,
    )
)
@settings(max_examples=300, deadline=None)
def test_jinja_masking_keeps_every_offset(pieces: list[str]) -> None:
    text = "".join(pieces)
    masked = jinja_as_variables(text, [(0, len(text))])
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    assert re.search(r"\{\{[^\n]*?\}\}|\{%[^\n]*?%\}", masked) is None  # every one on a line is a variable or blank
    kept = [i for i, c in enumerate(text) if c not in "{}%" and masked[i] != c]
    assert all(re.search(r"\{[{%#][^\n]*?[}%#]\}", text[: i + 200][max(0, i - 200) :]) for i in kept)  # {# #} too


def test_shell_task_fix_inserts_after_run(engine: Engine) -> None:
    text = f'- hosts: a\n  tasks:\n    - shell: "{RUN}"  # keep me\n      register: out\n'
    fixed = _fixed(engine, text)
    assert fixed == text.replace("docker run ", "docker run --shm-size=8g ", 1)


# -- docker_container and podman_container --------------------------------------------------------------------------


def _task(module: str, body: str) -> str:
    return f"- hosts: gpu\n  tasks:\n    - name: train\n      {module}:\n" + "".join(
        f"        {line}\n" for line in body.strip("\n").split("\n")
    )


@pytest.mark.parametrize(
    ("module", "gpu", "count"),
    [
        ("docker_container", "device_requests:\n  - driver: nvidia\n    count: -1", None),
        ("docker_container", "device_requests:\n  - capabilities: [[gpu]]\n    count: 2", 2),
        ("community.docker.docker_container", "device_requests:\n  - device_ids: ['0', '1']\n    driver: nvidia", 2),
        ("docker_container", "runtime: nvidia", None),
        ("docker_container", "env:\n  NVIDIA_VISIBLE_DEVICES: all", None),
        ("docker_container", "devices:\n  - /dev/nvidia0:/dev/nvidia0:rwm", None),
        ("containers.podman.podman_container", "device:\n  - nvidia.com/gpu=all", None),
        ("podman_container", "gpus: all", None),
    ],
)
def test_container_modules_gpus(engine: Engine, module: str, gpu: str, count: int | None) -> None:
    text = _task(module, f"name: t\nimage: {IMAGE}\ncommand: torchrun --nproc-per-node 8 train.py\n{gpu}")
    (finding,) = _check(engine, text)
    assert finding.code == "SHM001" and (finding.span.line, finding.span.column) == (4, 7)
    workload = finding.workload
    assert workload is not None and workload.id.format is WorkloadFormat.ANSIBLE and workload.gpu
    assert workload.accelerator_count == count


@pytest.mark.parametrize(
    ("image", "named"),
    [
        # a template in the tag or the registry leaves the name the data knows the image by (audit72a)
        (
            "nvcr.io/nvidia/k8s/dcgm-exporter:{{ version | default('3.3.5') }}-ubuntu22.04",
            "nvcr.io/nvidia/k8s/dcgm-exporter",
        ),
        ("{{ registry }}/dcgm-exporter:{{ version }}", "dcgm-exporter"),
        ("{{ image }}", None),
        ("acme/trainer-{{ flavour }}:1", None),
        ("acme/trainer:{{ " + "x | default('y') " * 20 + "}}", None),  # an expression too long to read (the review)
    ],
)
def test_an_image_written_with_jinja_is_named_as_far_as_it_is_written(
    engine: Engine, image: str, named: str | None
) -> None:
    text = _task("docker_container", f'name: t\nimage: "{image}"\nruntime: nvidia')
    (workload,) = engine.check_source(SourceText("site.yml", text), FileKind.YAML, "site.yml").workloads
    assert workload.image == named


def test_an_exporter_image_with_a_templated_tag_is_known_to_need_nothing() -> None:
    """Not even an undecided finding listed: the data knows the exporter needs no /dev/shm."""
    listed = Engine(Settings(undecided="show"))
    text = _task("docker_container", 'name: t\nimage: "nvidia/dcgm-exporter:{{ v }}"\nruntime: nvidia')
    assert _check(listed, text) == []
    assert [f.code for f in _check(listed, text.replace("nvidia/dcgm-exporter:{{ v }}", "{{ v }}"))] == ["SHM001"]


@pytest.mark.parametrize(
    ("module", "shm", "kind"),
    [
        ("docker_container", "shm_size: 16g", ShmKind.MEMORY),
        ("docker_container", "shm_size: 17179869184", ShmKind.MEMORY),
        ("podman_container", "ipc: host", ShmKind.HOST_IPC),
        ("docker_container", "ipc_mode: host", ShmKind.HOST_IPC),
        ("docker_container", "tmpfs:\n  - /dev/shm:size=8g", ShmKind.MEMORY),
        ("podman_container", "tmpfs:\n  /dev/shm: size=8g", ShmKind.MEMORY),
        ("docker_container", "mounts:\n  - target: /dev/shm\n    type: tmpfs\n    tmpfs_size: 8g", ShmKind.MEMORY),
        ("docker_container", "volumes:\n  - /dev/shm:/dev/shm", ShmKind.HOST_PATH),
        ("docker_container", "volumes:\n  - shm:/dev/shm:rw", ShmKind.DISK),
        ("podman_container", "mount:\n  - type=tmpfs,destination=/dev/shm,tmpfs-size=8g", ShmKind.MEMORY),
        ("podman_container", "volumes:\n  - /dev/shm:/dev/shm", ShmKind.HOST_PATH),  # the alias
        ("docker_container", "volumes:\n  - /dev:/dev", ShmKind.HOST_PATH),  # the host's /dev, /dev/shm with it
        ("docker_container", "mounts:\n  - {type: bind, source: /dev, target: /dev}", ShmKind.HOST_PATH),
        ("docker_container", "shm_size: '{{ shm }}'", ShmKind.MEMORY),
    ],
)
def test_container_modules_shm(module: str, shm: str, kind: ShmKind) -> None:
    text = _task(module, f"image: {IMAGE}\nruntime: nvidia\ncommand: torchrun train.py\n{shm}")
    result = default_engine().check_source(SourceText("site.yml", text), FileKind.YAML, "site.yml")
    (workload,) = result.workloads
    assert [source.kind for source in workload.shm] == [kind]


def test_podman_mounts_its_own_shm_over_a_dev_bind() -> None:
    text = _task(
        "podman_container", f"image: {IMAGE}\nruntime: nvidia\ncommand: torchrun train.py\nvolumes:\n  - /dev:/dev"
    )
    result = default_engine().check_source(SourceText("site.yml", text), FileKind.YAML, "site.yml")
    (workload,) = result.workloads
    assert workload.shm == ()


def test_a_container_that_is_not_started_is_no_workload(engine: Engine) -> None:
    for state in ("absent", "stopped"):
        assert not _check(engine, _task("docker_container", f"image: {IMAGE}\nruntime: nvidia\nstate: {state}"))


def test_task_args_count_and_the_module_own_win(engine: Engine) -> None:
    text = (
        "- hosts: gpu\n  tasks:\n    - docker_container:\n        image: "
        f"{IMAGE}\n        command: torchrun train.py\n      args:\n        runtime: nvidia\n        shm_size: 8g\n"
    )
    assert not _check(engine, text)


def test_container_fix_adds_shm_size_after_the_last_argument(engine: Engine) -> None:
    text = _task("docker_container", f"image: {IMAGE}  # the trainer\nruntime: nvidia\ncommand: torchrun train.py")
    text += "      register: started\n"
    fixed = _fixed(engine, text)
    assert fixed == text.replace("torchrun train.py\n", "torchrun train.py\n        shm_size: 8g\n")
    assert not _check(engine, fixed)


def test_container_fix_in_a_flow_mapping_and_over_a_small_size(engine: Engine) -> None:
    flow = (
        f"- hosts: a\n  tasks:\n    - docker_container: {{image: {IMAGE}, runtime: nvidia, command: torchrun t.py}}\n"
    )
    assert _fixed(engine, flow) == flow.replace("torchrun t.py}", "torchrun t.py, shm_size: 8g}")
    empty = _task("docker_container", f"image: {IMAGE}\nruntime: nvidia\ncommand: torchrun t.py\nshm_size:")
    assert [f.code for f in _check(engine, empty)] == ["SHM001"]  # not set, as the module reads it
    assert _fixed(engine, empty) == empty.replace("shm_size:", "shm_size: 8g")
    small = _task("docker_container", f"image: {IMAGE}\nruntime: nvidia\ncommand: torchrun t.py\nshm_size: 64m # ok")
    assert _fixed(engine, small) == small.replace("shm_size: 64m # ok", "shm_size: 8g # ok")


@given(
    st.lists(
        st.fixed_dictionaries(
            {"name": st.text(alphabet="ab {}:'\"#", max_size=8)},
            optional={
                "shell": st.text(alphabet="docker run -gpus={}nvidia'\" \n|>", max_size=40),
                "register": st.text(alphabet="ab", min_size=1, max_size=3),
                "docker_container": st.dictionaries(
                    st.sampled_from(["image", "shm_size", "runtime", "ipc_mode", "command", "tmpfs", "env"]),
                    st.one_of(st.text(max_size=8), st.integers(-5, 10**10), st.lists(st.text(max_size=5), max_size=2)),
                    max_size=4,
                ),
            },
        ),
        min_size=1,
        max_size=4,
    )
)
@settings(max_examples=150, deadline=None)
def test_any_task_list_is_read_without_an_exception(tasks: list[dict[str, object]]) -> None:
    import yaml

    text = yaml.safe_dump(tasks, default_flow_style=None) + "# nvidia\n"
    result = default_engine().check_source(SourceText("tasks/main.yml", text), FileKind.YAML, "tasks/main.yml")
    assert all(f.code != "SHM000" for f in result.findings), [f.message for f in result.findings]
    for finding in result.findings:
        assert 1 <= finding.span.line <= text.count("\n") + 1


def test_what_is_not_read_is_said(engine: Engine) -> None:
    text = (
        "- hosts: a\n  tasks:\n    - command:\n        argv: [docker, run, --gpus, all, img]\n"
        "    - docker_container: name=x image=nvidia/cuda runtime=nvidia\n    - command:\n        argv: [ls, -l]\n"
        "    - command:\n        argv: [/usr/bin/podman-remote, run, img]\n"
        "    - command:\n        argv: [nerdctl, run, img]\n"
        "    - command:\n        argv: [/mnt/c/bin/docker.exe, run, img]\n"
    )
    result = engine.check_source(SourceText("site.yml", text), FileKind.YAML, "site.yml")
    assert [n.message for n in result.notices] == [
        "line 3: a command task's argv list starting a container is not read",
        "line 5: docker_container arguments written as key=value text are not read",
        "line 8: a command task's argv list starting a container is not read",
        "line 10: a command task's argv list starting a container is not read",
        "line 12: a command task's argv list starting a container is not read",
    ]


@given(
    indent=st.sampled_from([2, 4]),
    order=st.permutations(["image", "runtime", "command", "name"]),
    comment=st.booleans(),
    small=st.booleans(),
    after=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_container_fix_touches_only_its_line(
    indent: int, order: list[str], comment: bool, small: bool, after: bool
) -> None:
    """Whatever the order, indentation and comments, the fix adds one line (or changes one value) and the task
    then reads as sized."""
    values = {"image": IMAGE, "runtime": "nvidia", "command": "torchrun t.py", "name": "t"}
    pad = " " * indent
    inner = pad + "  " + pad  # under the module key, which sits after the task's dash
    lines = [f"{inner}{key}: {values[key]}{'  # why' if comment else ''}" for key in order]
    if small:
        lines.insert(1, f"{inner}shm_size: 64m")
    text = f"- hosts: a\n  tasks:\n{pad}- docker_container:\n" + "\n".join(lines) + "\n"
    if after:
        text += f"{pad}  register: out\n"
    engine = default_engine()
    fixed = _fixed(engine, text)
    before, now = text.splitlines(), fixed.splitlines()
    changed = [line for line in now if line not in before]
    assert len(changed) == 1 and "shm_size: 8g" in changed[0]
    assert len(now) == len(before) + (0 if small else 1)
    (workload,) = engine.check_source(SourceText("site.yml", fixed), FileKind.YAML, "site.yml").workloads
    assert [s.size.bytes for s in workload.shm if s.size] == [8 * 1024**3]


def test_a_playbook_in_a_documentation_block_is_fixed_inside_it(engine: Engine) -> None:
    playbook = _task("docker_container", f"image: {IMAGE}\nruntime: nvidia\ncommand: torchrun t.py")
    text = f"# Deploy\n\n```yaml\n{playbook}```\n"
    result = fix_source(engine, SourceText("README.md", text), FileKind.MARKDOWN, "README.md")
    assert not result.problems
    assert result.text == text.replace("torchrun t.py\n", "torchrun t.py\n        shm_size: 8g\n")


def test_a_size_merged_from_an_anchor_is_overridden_not_rewritten_there(engine: Engine) -> None:
    text = (
        "- hosts: a\n  vars:\n    base: &base {image: " + IMAGE + ", runtime: nvidia, shm_size: 64m}\n  tasks:\n"
        "    - docker_container:\n        <<: *base\n        command: torchrun t.py\n"
    )
    fixed = _fixed(engine, text)
    assert "shm_size: 64m}" in fixed  # the anchor, which other tasks may merge, is left alone
    assert fixed == text.replace("torchrun t.py\n", "torchrun t.py\n        shm_size: 8g\n")


def test_blocks_are_read_however_deep(engine: Engine) -> None:
    depth = 60
    text = "- hosts: a\n  tasks:\n"
    for level in range(depth):
        text += "  " * (level + 2) + "- block:\n"
    text += "  " * (depth + 2) + f"- shell: {RUN}\n"
    (finding,) = _check(engine, text)
    assert finding.span.line == depth + 3


def test_plain_variables_of_the_play_and_task_are_read(engine: Engine) -> None:
    text = (
        f"- hosts: gpu\n  vars:\n    trainer_image: {IMAGE}\n    shm: 64m\n  tasks:\n"
        "    - docker_container:\n        image: '{{ trainer_image }}'\n        runtime: nvidia\n"
        "        shm_size: '{{ shm }}'\n        command: '{{ cmd }}'\n      vars:\n        cmd: torchrun t.py\n"
    )
    (finding,) = _check(engine, text)
    workload = finding.workload
    assert finding.code == "SHM005" and workload is not None
    assert workload.image == IMAGE and workload.command == "torchrun t.py"


def test_a_roles_defaults_are_read_beside_its_task_file(tmp_path: Path) -> None:
    role = tmp_path / "roles" / "train"
    (role / "tasks").mkdir(parents=True)
    (role / "defaults").mkdir()
    (role / "defaults" / "main.yml").write_text(f"train_image: {IMAGE}\ntrain_shm: 16g\n", encoding="utf-8")
    task = "- name: t\n  docker_container:\n    image: '{{ train_image }}'\n    runtime: nvidia\n"
    (role / "tasks" / "main.yml").write_text(task + "    command: torchrun t.py\n", encoding="utf-8")
    engine = default_engine()
    (candidate,) = discover([role / "tasks" / "main.yml"])
    (finding,) = engine.check_candidate(candidate).findings
    assert finding.code == "SHM001" and finding.workload is not None and finding.workload.image == IMAGE
    (role / "tasks" / "main.yml").write_text(task + "    shm_size: '{{ train_shm }}'\n", encoding="utf-8")
    (candidate,) = discover([role / "tasks" / "main.yml"])
    assert not engine.check_candidate(candidate).findings


_DEFAULTED = """- hosts: gpu
  module_defaults:
    {key}:
      shm_size: {size}
  tasks:
    - name: train
      community.docker.docker_container:
        name: train
        image: pytorch/pytorch
        command: python train.py --num-workers 8
        device_requests:
          - count: -1
            capabilities: [[gpu]]
"""


@pytest.mark.parametrize(
    "key", ["community.docker.docker_container", "docker_container", "group/community.docker.docker"]
)
def test_a_plays_module_defaults_give_the_task_its_shm_size(key: str) -> None:
    """``module_defaults`` (of the module, or of its collection's group) give the task the arguments it does not
    write: 16g there is its /dev/shm (no finding, and no fix writing 8g under it); 64m there is raised by a
    ``shm_size`` of the task's own, which overrides it."""
    engine = default_engine()
    sized = SourceText("play.yml", _DEFAULTED.format(key=key, size="16g"))
    assert not engine.check_source(sized, FileKind.YAML, Path("play.yml")).findings
    small = SourceText("play.yml", _DEFAULTED.format(key=key, size="64m"))
    assert [f.code for f in engine.check_source(small, FileKind.YAML, Path("play.yml")).findings] == ["SHM005"]
    fixed = fix_source(engine, small, FileKind.YAML, Path("play.yml")).text
    assert fixed == small.text + "        shm_size: 8g\n"
