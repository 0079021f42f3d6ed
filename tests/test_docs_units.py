"""The readers and extractors of the documentation, Ray, Quadlet and systemd surfaces, case by case."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, kind_for_name
from shmlint.edits.codeblock import verified
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.formats.kubernetes.target import PodTarget
from shmlint.model import BlockTarget, Edit, WorkloadFormat
from shmlint.parsers.embedded.markdown import markdown_code_blocks, markdown_yaml_blocks, mask_markdown
from shmlint.parsers.embedded.rst import mask_rst, rst_code_blocks, rst_yaml_blocks
from shmlint.parsers.systemd_unit import read_unit, section_end, value
from shmlint.settings import Settings
from shmlint.source import SourceText, alone

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: pytorch/pytorch\n"
#: the pod with a GPU: a torch image alone on the CPU is no missing-/dev/shm claim (cpu_only_pytorch)
GPU_POD = POD + "    resources: {limits: {nvidia.com/gpu: 1}}\n"


def check(engine: Engine, name: str, text: str):  # type: ignore[no-untyped-def]
    kind = kind_for_name(name) or FileKind.YAML
    return engine.check_source(SourceText(name, text), kind, Path(name))


def codes(engine: Engine, name: str, text: str) -> list[str]:
    return [f"{f.span.line}:{f.span.column} {f.code}" for f in check(engine, name, text).findings]


def fixed(engine: Engine, name: str, text: str) -> str:
    kind = kind_for_name(name) or FileKind.YAML
    return fix_source(engine, SourceText(name, text), kind, Path(name)).text


# -- discovery ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("guide.rst", FileKind.RST),
        ("index.qmd", FileKind.MARKDOWN),
        ("page.mdx", FileKind.MARKDOWN),
        ("trainer.container", FileKind.UNIT),
        ("vllm.service", FileKind.UNIT),
        ("cluster.yaml", FileKind.YAML),
    ],
)
def test_new_kinds_are_found_by_name(name: str, kind: FileKind) -> None:
    assert kind_for_name(name) is kind


# -- Markdown, MDX, Quarto code blocks ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", ["yaml", "yml", "YAML", "{.yaml}", "yaml title=pod.yaml", "{yaml}"])
def test_yaml_fences_are_yaml_blocks(info: str) -> None:
    text = f"# t\n\n```{info}\na: 1\n```\n"
    (block,) = markdown_yaml_blocks(text)
    assert text[slice(*block)] == "a: 1\n"


@pytest.mark.parametrize("info", ["json", "python", "yamlfmt", "bash", ""])
def test_other_fences_are_not_yaml_blocks(info: str) -> None:
    assert markdown_yaml_blocks(f"```{info}\na: 1\n```\n") == []


def test_the_shell_mask_still_takes_only_shell_fences() -> None:
    text = "```yaml\ndocker run --gpus all img\n```\n```bash\ndocker run a\n```\n"
    assert [line.strip() for line in mask_markdown(text).split("\n") if line.strip()] == ["docker run a"]
    assert [language for _, language in markdown_code_blocks(text)] == ["yaml", "bash"]


def test_a_block_in_a_list_item_keeps_its_indentation_and_the_file_positions(engine: Engine) -> None:
    body = "".join(f"   {line}\n" for line in GPU_POD.splitlines()).replace("pytorch/pytorch", "pytorch/pytorch:latest")
    text = "1. Apply:\n\n   ```yaml\n" + body + "   ```\n"
    (finding,) = check(engine, "README.md", text).findings
    assert (finding.span.line, finding.span.column) == (10, 8)  # ``- name: c`` inside the item
    assert finding.workload is not None and finding.workload.format is WorkloadFormat.KUBERNETES


def test_each_block_is_its_own_file(engine: Engine) -> None:
    """A compose block and a Kubernetes block in one README: neither sees the other's keys."""
    compose = "services:\n  t:\n    image: pytorch/pytorch\n    runtime: nvidia\n"
    text = f"```yaml\n{compose}```\n\n```yaml\n{GPU_POD}```\n"
    formats = sorted(f.workload.format.value for f in check(engine, "README.md", text).findings if f.workload)
    assert formats == ["compose", "kubernetes"]


def test_a_block_that_does_not_parse_is_a_notice_not_a_finding(engine: Engine) -> None:
    result = check(engine, "README.md", "```yaml\nimage: pytorch/pytorch\nresources: [nvidia.com/gpu\n```\n")
    assert not result.findings
    assert any("YAML code block not checked" in notice.message for notice in result.notices)


def test_yaml_blocks_past_the_limit_are_said_not_checked(engine: Engine) -> None:
    from shmlint.extract.dispatch import MAX_YAML_BLOCKS

    gpu = GPU_POD
    result = check(engine, "README.md", f"```yaml\n{gpu}```\n" * (MAX_YAML_BLOCKS + 1))
    assert len(result.findings) == MAX_YAML_BLOCKS
    assert any(f"first {MAX_YAML_BLOCKS} of {MAX_YAML_BLOCKS + 1}" in notice.message for notice in result.notices)


def test_a_templated_block_is_left_alone(engine: Engine) -> None:
    text = "```yaml\n" + POD.replace("pytorch/pytorch", "{{ .Values.image }}") + "  runtimeClassName: nvidia\n```\n"
    assert not check(engine, "README.md", text).findings


def test_a_fix_outside_its_block_or_breaking_it_is_refused() -> None:
    text = "x\n```yaml\na: 1\n```\n"
    start, end = markdown_yaml_blocks(text)[0]
    target = BlockTarget(start, end, PodTarget(0, 0, frozenset()))
    block = SourceText("README.md", alone(text, start, end))
    assert verified([Edit(end, end, "b: 2\n")], target, block) == [Edit(end, end, "b: 2\n")]
    assert verified([Edit(end + 1, end + 1, "b: 2\n")], target, block) == []  # past the block
    assert verified([Edit(start, start, "  - [\n")], target, block) == []  # the block would not parse


def test_html_comment_before_a_block_and_yaml_comment_inside_suppress(engine: Engine) -> None:
    gpu = GPU_POD
    assert codes(engine, "README.md", f"```yaml\n{gpu}```\n")
    assert not codes(engine, "README.md", f"<!-- shmlint: ignore[SHM001] -->\n```yaml\n{gpu}```\n")
    inside = gpu.replace("  - name: c", "  # shmlint: ignore[missing-shm]\n  - name: c")
    assert not codes(engine, "README.md", f"```yaml\n{inside}```\n")


# -- reStructuredText --------------------------------------------------------------------------------------------


def test_rst_directives_options_and_bodies() -> None:
    text = (
        "Title\n=====\n\n.. code-block:: YAML\n   :caption: pod\n   :linenos:\n\n   a: 1\n\n   b: 2\n\nAfter.\n\n"
        ".. code:: console\n\n   $ docker run img\n\n.. sourcecode:: python\n\n   x = 1\n"
    )
    blocks = [(language, [line.strip() for _, line in body]) for body, language in rst_code_blocks(text)]
    assert blocks == [("yaml", ["a: 1", "", "b: 2"]), ("console", ["$ docker run img"]), ("python", ["x = 1"])]
    (yaml_block,) = rst_yaml_blocks(text)
    assert text[slice(*yaml_block)] == "   a: 1\n\n   b: 2\n"


def test_rst_literal_blocks_need_the_blank_line_and_explicit_markup_is_not_a_paragraph() -> None:
    text = "Run this::\n\n    docker run a\n\nNot this::\n    docker run b\n\n.. note::\n\n   docker run c\n"
    assert [[line.strip() for _, line in body] for body, _ in rst_code_blocks(text)] == [["docker run a"]]


def test_rst_code_blocks_nested_in_other_directives_are_found() -> None:
    text = ".. tab-set::\n\n   .. tab-item:: Docker\n\n      .. code-block:: bash\n\n         docker run a\n"
    assert [language for _, language in rst_code_blocks(text)] == ["bash"]


def test_rst_comment_suppresses_the_whole_directive_after_it(engine: Engine) -> None:
    run = "   docker run --rm \\\n     --gpus all \\\n     pytorch/pytorch python train.py\n"
    text = f"T\n=\n\n.. code-block:: bash\n\n{run}"
    assert codes(engine, "guide.rst", text) == ["6:4 SHM001"]
    assert not codes(engine, "guide.rst", text.replace("\n\n.. code", "\n\n.. shmlint: ignore[SHM001]\n\n.. code"))
    assert not check(
        engine, "guide.rst", text.replace("\n\n.. code", "\n\n.. shmlint: ignore[SHM001]\n.. code")
    ).findings


@pytest.mark.parametrize(
    "prompt", ["$ ", "host1$ ", "user@gpu-box:~/src$ ", "(venv) $ ", "(main) $> ", "(base) user@box:~$ "]
)
def test_console_prompts_are_stripped(engine: Engine, prompt: str) -> None:
    """An active environment's name before the prompt (conda's, venv's) and ``$>`` are prompts too (audit63b:
    GaNDLF's six ``(main) $> docker run`` lines were not read)."""
    text = f".. code-block:: console\n\n   {prompt}docker run --gpus all pytorch/pytorch\n   output line\n"
    assert codes(engine, "guide.rst", text) == [f"3:{4 + len(prompt)} SHM001"]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=" \t\n.:-abcyml$`~{}", max_size=200))
def test_rst_and_markdown_masks_keep_every_offset(text: str) -> None:
    for masked in (mask_rst(text), mask_markdown(text)):
        assert len(masked) == len(text)
        assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    for start, end in [*rst_yaml_blocks(text), *markdown_yaml_blocks(text)]:
        assert 0 <= start <= end <= len(text) + 1


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab \n\r\t", max_size=80), st.data())
def test_a_piece_read_alone_has_the_file_positions(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    newline = "\n" if "\n" in text else "\r"  # what ends a line (``SourceText``): code blocks end at one
    end = data.draw(st.sampled_from([i + 1 for i, c in enumerate(text) if c == newline and i >= start] + [len(text)]))
    piece = alone(text, start, end)
    assert piece[start:] == text[start:end] and len(piece) == end
    source, read_alone = SourceText("f", text), SourceText("f", piece)
    for offset in range(start, end + 1):
        assert read_alone.position(offset) == source.position(offset)


# -- systemd units -----------------------------------------------------------------------------------------------


def test_unit_reader_keeps_repeated_keys_continuations_and_offsets() -> None:
    text = "junk before any section\n[Service]\r\nEnvironment=A=1\r\nEnvironment=B=2\r\n; c\r\nExecStart=/bin/x \\\r\n  -y\r\n"
    entries = read_unit(text)
    assert [(e.section, e.key) for e in entries] == [("Service", "Environment")] * 2 + [("Service", "ExecStart")]
    assert [value(text, e) for e in entries] == ["A=1", "B=2", "/bin/x -y"]
    assert text[entries[2].start : entries[2].end] == "/bin/x \\\r\n  -y"
    assert section_end(entries, "Service") == entries[2].line_end and section_end(entries, "Container") is None


@pytest.mark.parametrize("prefix", ["", "-", "@", "+", "!!", "-+"])
@pytest.mark.parametrize("engine_name", ["/usr/bin/docker", "podman"])
def test_exec_start_runs_are_container_commands(engine: Engine, prefix: str, engine_name: str) -> None:
    text = f"[Service]\nExecStart={prefix}{engine_name} run --gpus all pytorch/pytorch python t.py\n"
    assert codes(engine, "t.service", text) == [f"2:{11 + len(prefix)} SHM001"]
    after = fixed(engine, "t.service", text)
    assert after == text.replace(" run ", " run --shm-size=8g ", 1)


def test_only_exec_start_pre_post_count_and_only_in_service(engine: Engine) -> None:
    run = "docker run --gpus all pytorch/pytorch"
    text = f"[Unit]\nExecStart={run}\n[Service]\nExecStop={run}\nExecStartPre={run}\nExecStartPost=-{run}\n"
    assert codes(engine, "t.service", text) == ["5:14 SHM001", "6:16 SHM001"]


def test_semicolon_comment_suppresses_in_units(engine: Engine) -> None:
    text = "[Service]\n; shmlint: ignore[SHM001]\nExecStart=docker run --gpus all pytorch/pytorch\n"
    assert not codes(engine, "t.service", text)


# -- Podman Quadlet ----------------------------------------------------------------------------------------------


QUADLET = "[Container]\nImage=docker.io/pytorch/pytorch:latest\n{keys}\n[Install]\nWantedBy=default.target\n"


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ("AddDevice=nvidia.com/gpu=all", ["2:1 SHM001"]),
        ("AddDevice=-/dev/nvidia0", ["2:1 SHM001"]),  # "-": only when the device exists
        ("AddDevice=nvidia.com/gpu=all\nShmSize=16g", []),
        ("AddDevice=nvidia.com/gpu=all\nShmSize=64m", ["4:9 SHM005"]),
        ("PodmanArgs=--gpus all --shm-size=16g", []),
        (
            "PodmanArgs=--device nvidia.com/gpu=all \\\n  --ipc=none",
            ["4:3 SHM013"],
        ),  # no /dev/shm at all: SHM013 says it
        ("AddDevice=nvidia.com/gpu=all\nPod=training.pod", []),  # the pod's IPC namespace: not ours to size
        ("Environment=NVIDIA_VISIBLE_DEVICES=all FOO=1", ["2:1 SHM001"]),
        ("Exec=python train.py --num-workers 4", ["2:1 SHM001"]),  # Exec is the command: DataLoader workers
        ("Exec=python train.py", []),  # a torch image on the CPU without workers: no claim (cpu_only_pytorch)
        ("Environment=FOO=1", []),  # no GPU variable: the same CPU torch image
    ],
)
def test_quadlet_keys_are_the_options_they_stand_for(engine: Engine, keys: str, expected: list[str]) -> None:
    assert codes(engine, "t.container", QUADLET.format(keys=keys)) == expected


def test_quadlet_fix_adds_shm_size_at_the_end_of_the_container_section(engine: Engine) -> None:
    text = QUADLET.format(keys="AddDevice=nvidia.com/gpu=all")
    assert fixed(engine, "t.container", text) == text.replace("gpu=all\n", "gpu=all\nShmSize=8g\n")
    crlf = text.replace("\n", "\r\n")
    assert fixed(engine, "t.container", crlf) == crlf.replace("gpu=all\r\n", "gpu=all\r\nShmSize=8g\r\n")


def test_quadlet_tmpfs_without_a_size_gets_one(engine: Engine) -> None:
    text = QUADLET.format(keys="AddDevice=nvidia.com/gpu=all\nTmpfs=/dev/shm")
    assert codes(engine, "t.container", text) == ["4:1 SHM003"]
    after = fix_source(engine, SourceText("t.container", text), FileKind.UNIT, Path("t.container"), unsafe=True)
    assert after.text == text.replace("Tmpfs=/dev/shm", "Tmpfs=/dev/shm:size=8g")


def test_a_unit_without_image_or_container_section_has_no_quadlet_workload(engine: Engine) -> None:
    assert not check(engine, "t.container", "[Container]\nAddDevice=nvidia.com/gpu=all\n").workloads
    assert not check(engine, "t.container", "[Service]\nExecStart=/bin/true\n").workloads


# -- Ray cluster launcher ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shown() -> Engine:
    """An engine whose configuration says Ray needs /dev/shm (``shm-commands``): Ray alone does not (its object
    store moves to /tmp when /dev/shm is too small, ``ray-object-store``), and the launcher's sizing of /dev/shm
    is read the same whatever the need."""
    return Engine(Settings(shm_commands=(r"\bray start\b",)))


RAY = "cluster_name: c\nprovider:\n  type: local\n  head_ip: 10.0.0.1\ndocker:\n  image: rayproject/ray-ml:latest-gpu\n{docker}"


@pytest.mark.parametrize(
    ("docker", "expected"),
    [
        ("", []),  # Ray sizes /dev/shm itself
        ("  disable_shm_size_detection: true\n", ["7:3 SHM001", "7:3 SHM001"]),
        ("  disable_shm_size_detection: false\n", []),
        ("  disable_shm_size_detection: 'false'\n", ["7:3 SHM001", "7:3 SHM001"]),  # a non-empty string: true
        ("  disable_shm_size_detection: 0\n", []),
        ("  disable_shm_size_detection: yes\n", ["7:3 SHM001", "7:3 SHM001"]),
        ("  disable_shm_size_detection: true\n  run_options: ['--shm-size 16g']\n", []),
        ('  run_options: ["--ulimit nofile=65536:65536 --shm-size=128m"]\n', ["7:57 SHM005", "7:57 SHM005"]),
        ("  disable_shm_size_detection: true\n  head_run_options: [--shm-size=16g]\n", ["7:3 SHM001"]),
        ("  run_options: [--ipc=host]\n", []),  # Ray still adds --shm-size, and the host's /dev/shm is used
    ],
)
def test_ray_sizes_shm_unless_told_not_to(shown: Engine, docker: str, expected: list[str]) -> None:
    assert [c for c in codes(shown, "cluster.yaml", RAY.format(docker=docker)) if "SHM007" not in c] == expected


def test_ray_fix_adds_to_run_options_in_block_flow_or_new(shown: Engine) -> None:
    disabled = "  disable_shm_size_detection: true\n"
    block = RAY.format(docker=disabled + "  run_options:\n    - --ulimit nofile=65536:65536\n")
    assert fixed(shown, "c.yaml", block) == block + "    - --shm-size=8g\n"
    flow = RAY.format(docker=disabled + '  run_options: ["--gpus all"]\n')
    assert fixed(shown, "c.yaml", flow) == flow.replace('all"]', 'all", --shm-size=8g]')
    bare = RAY.format(docker=disabled)
    assert fixed(shown, "c.yaml", bare) == bare + '  run_options: ["--shm-size=8g"]\n'


def test_ray_use_podman_and_a_config_without_provider(engine: Engine) -> None:
    podman = check(engine, "c.yaml", RAY.format(docker="  use_podman: true\n  disable_shm_size_detection: true\n"))
    assert {w.id.format for w in podman.workloads} == {WorkloadFormat.RAY}
    assert {w.id.kind for w in podman.workloads} == {"Ray cluster"}
    not_ray = RAY.format(docker="").replace("provider:\n  type: local\n  head_ip: 10.0.0.1\n", "")
    assert not check(engine, "c.yaml", not_ray).workloads


def test_ray_node_type_docker_keys_replace_the_cluster_ones(shown: Engine) -> None:
    text = RAY.format(docker="  disable_shm_size_detection: true\n") + (
        "available_node_types:\n"
        "  head:\n    resources: {}\n    docker: {run_options: [--shm-size=4g]}\n"
        "  gpu:\n    resources: {GPU: 2}\n    docker: {disable_shm_size_detection: false}\n"
        "  cpu:\n    resources: {CPU: 4}\n"
        "head_node_type: head\n"
    )
    result = check(shown, "c.yaml", text)
    assert sorted(w.id.role for w in result.workloads) == ["cpu", "gpu", "head (head)"]
    assert [f.workload.id.role for f in result.findings if f.code == "SHM001" and f.workload] == ["cpu"]
    gpu = next(w for w in result.workloads if w.id.role == "gpu")
    assert gpu.shm_managed_by and any("GPU: 2" in e.text for e in gpu.gpu)


def test_ray_run_options_keep_their_positions(engine: Engine) -> None:
    text = RAY.format(docker='  run_options:\n    - "--gpus all"\n    - --shm-size=64m\n')
    result = check(engine, "c.yaml", text)
    workload = result.workloads[0]
    assert [(e.text, e.span.line, e.span.column) for e in workload.gpu] == [("--gpus all", 8, 8)]
    size = next(s.size for s in workload.shm if s.size)
    assert (size.text, size.span.line, size.span.column) == ("64m", 9, 18)
    assert SourceText("c.yaml", text).text[size.span.start : size.span.end] == "64m"


# -- MyST directive fences (found on bench fresh2: clip-as-service's ````{tab} blocks were never read) ----------


def test_a_myst_directive_fence_is_read_for_the_code_blocks_inside_it() -> None:
    text = "````{tab} PyTorch\n```bash\ndocker run --gpus all a\n```\n````\n```{note}\nprose\n```\n"
    assert [(language, [line for _, line in block]) for block, language in markdown_code_blocks(text)] == [
        ("bash", ["docker run --gpus all a"])
    ]
    assert [line.strip() for line in mask_markdown(text).split("\n") if line.strip()] == ["docker run --gpus all a"]


@pytest.mark.parametrize(
    ("info", "language"),
    [
        ("{code-block} bash", "bash"),
        ("{code} yaml", "yaml"),
        ("{bash}", "bash"),
        ("{.yaml}", "yaml"),
        ("{python}", "python"),
    ],
)
def test_code_directives_and_quarto_cells_name_their_language(info: str, language: str) -> None:
    assert [name for _, name in markdown_code_blocks(f"```{info}\nx\n```\n")] == [language]


def test_indented_text_inside_a_directive_is_not_code() -> None:
    text = "```{admonition} Tip\n:class: tip\n\n    docker run --gpus all img\n```\n"
    assert list(markdown_code_blocks(text)) == []


_LINES = ["````{tab} A", "```bash", "docker run x", "```", "````", "", "    y", "```{note}"]
# a notes file's session: a paragraph run line, typed commands, a continuation, prose, a heading
_SESSION_LINES = [
    "docker run -it --gpus all img bash",
    "python train.py --w 2 \\",
    "  --x 1",
    "cd /d",
    "and so on",
    "# H",
]


@given(st.lists(st.sampled_from(_LINES + _SESSION_LINES)))
def test_blocks_keep_the_file_offsets_of_their_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    for block, _ in markdown_code_blocks(text):
        for offset, line in block:
            assert text[offset : offset + len(line)] == line


def test_a_paragraph_line_that_runs_a_container_is_read_as_a_command(engine: Engine) -> None:
    """A README that writes its command as a plain line, options first, with the lines its backslashes continue."""
    text = (
        "# Train\n\nRun it with:\n\n"
        "podman run --device nvidia.com/gpu=all -e N=1 \\\n  vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n\n"
        "Then docker run --gpus all img is mentioned in a sentence.\n"
    )
    (finding,) = check(engine, "README.md", text).findings
    assert (finding.span.line, finding.span.column, finding.severity.label) == (5, 1, "error")
    assert "--tensor-parallel-size 2" in finding.message


def test_a_run_command_written_as_inline_code_is_read_as_one(engine: Engine) -> None:
    """A tutorial's step written as inline code in a sentence (audit77a: ``1. Start it: `docker run ... -i -t
    your-docker-image:v1.0 /bin/bash`, then follow the rest``): each span is a command of its own, which ends with
    the span (the next span on the line is another command), its findings are at most info (the review: a sentence
    may only mention it), and its fix stays inside the backticks."""
    text = (
        "# Serve\n\n1. Start it: `docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`, or "
        "``docker run --gpus all -it img bash`` for a shell.\n"
    )
    findings = check(engine, "README.md", text).findings
    # at most info: a sentence may only mention a command (``Don't do `docker run ...```, a changelog's entry)
    assert [(f.span.line, f.span.column, f.severity.label) for f in findings] == [(3, 15, "info"), (3, 93, "info")]
    assert "--tensor-parallel-size 2" in findings[0].message and "bash" not in findings[0].message
    # a span that follows another span's closing backtick in a code block is no inline command (the review)
    fenced = "```bash\nHOST=`hostname` docker run --gpus all img python t.py --num-workers 4\n```\n"
    assert [f.severity.label for f in check(engine, "README.md", fenced).findings] == ["error"]
    after = fixed(engine, "README.md", text)
    assert after == text.replace("`docker run --gpus", "`docker run --shm-size=8g --gpus")  # the shell's too


def test_a_run_in_a_code_span_of_three_backticks_is_read(engine: Engine) -> None:
    """audit87b: ``3- Run the docker image: ```docker run -it -d --gpus all --name x anomalib``` `` (a list item's
    sentence with a code span of three backticks, not a fence: it is not at the line's start)."""
    text = "# A\n\n3- Run the docker image: ```docker run -it -d --gpus all --name x anomalib```\n"
    (finding,) = check(engine, "README.md", text).findings
    assert (finding.span.line, finding.span.column, finding.severity.label) == (3, 29, "info")
    assert fixed(engine, "README.md", text) == text.replace("```docker run -it", "```docker run --shm-size=8g -it")


def test_a_sentences_run_whose_guide_types_commands_into_it_is_at_most_a_warning(engine: Engine) -> None:
    """audit87c: "Launch the container as `docker run -it --gpus all ... pytorch-dev` and, within the container,
    start with" a block of commands: the guide uses the sentence as an instruction. Its section's blocks are typed
    there, and where the shell is still open at the section's end, the guide's later steps too."""
    run = "# Single GPU\n\nLaunch it as `docker run -it --gpus all -v $(pwd):/w dev` and, within the container:\n\n"
    first = "```bash\npython single.py 50 10\n```\n\n"
    later = (
        "# Multi GPU\n\nInside the running container, launch\n\n```bash\ntorchrun --nproc_per_node=8 multi.py\n```\n"
    )
    (finding,) = check(engine, "README.md", run + first + later).findings
    assert finding.severity.label == "warning", finding.message
    assert "the guide's later steps in the container, README.md:14" in finding.message
    typed = first.replace("python single.py 50 10", "torchrun --nproc_per_node=8 multi.py")
    (finding,) = check(engine, "README.md", run + typed).findings
    assert finding.severity.label == "warning" and "typed in the container, README.md:6" in finding.message
    closed = first.replace("python single.py 50 10", "python single.py 50 10\nexit")
    (finding,) = check(engine, "README.md", run + closed + later).findings  # the shell was left: later is the host's
    assert finding.severity.label == "info"


@pytest.mark.parametrize("marker", ["", "3. ", "- ", "  "])
def test_a_line_that_is_one_inline_code_span_is_a_line_of_code(engine: Engine, marker: str) -> None:
    """audit84c: a README's steps each written as a line of inline code (`` `nvidia-docker run -it img bash` ``, then
    `` `python train.py ...` ``): the run is no sentence's mention, and the lines of code after it are typed in it."""
    text = f"# Run\n\n{marker}`docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`  \n"
    (finding,) = check(engine, "README.md", text).findings
    assert (finding.span.line, finding.severity.label) == (3, "error")
    assert fixed(engine, "README.md", text) == text.replace("`docker run --gpus", "`docker run --shm-size=8g --gpus")
    session = (
        f"{marker}`docker run -it --gpus all acme/llm:1 bash`\n\nThen serve:\n`vllm serve m --tensor-parallel-size 2`\n"
    )
    assert [f.severity.label for f in check(engine, "README.md", session).findings] == ["error"]
    sentence = f"{marker}`docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2` is what fails.\n"
    assert [f.severity.label for f in check(engine, "README.md", sentence).findings] == ["info"]
    # a command written so under a later heading is one of the guide's later steps (at most a warning), a value
    # alone is not
    later = f"{marker}`docker run -it --gpus all acme/llm:1 bash`\n\n## Serve\n`{{}}`\n"
    step = check(engine, "README.md", later.format("vllm serve m --tensor-parallel-size 2")).findings
    assert [f.severity.label for f in step] == ["warning"]
    value = check(engine, "README.md", later.format("vllm-tp2.yaml")).findings
    assert [f.severity.label for f in value] == ["info"]


@pytest.mark.parametrize(
    "text",
    [
        # the review: a span a sentence wraps onto a line of its own is still the sentence's
        "The command\n`docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`\nfails on old drivers.\n",
        "- The command\n  `docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`\n  fails on old drivers.\n",
        "1. `docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`\n   fails on old drivers.\n",
    ],
)
def test_a_code_span_a_sentence_wraps_is_a_mention(engine: Engine, text: str) -> None:
    assert [f.severity.label for f in check(engine, "README.md", f"# Run\n\n{text}").findings] == ["info"]


@pytest.mark.parametrize(
    "label",
    [
        "- Wrong: ",
        "**Symptom**: ",
        "Before the fix: ",
        "- Broken: ",
        "- Previously: ",
        "- Original command: ",
        "Run (crashes): ",
    ],
)
def test_a_line_of_code_labelled_not_to_run_is_a_mention(engine: Engine, label: str) -> None:
    text = f"# Run\n\n{label}`docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2`\n"
    assert [f.severity.label for f in check(engine, "README.md", text).findings] == ["info"]


@pytest.mark.parametrize(
    "span", ["`docker run --gpus all`", "`docker run --runtime=nvidia`", "- `nvidia-docker run -it`"]
)
def test_a_line_of_a_run_with_options_and_no_image_runs_nothing(engine: Engine, span: str) -> None:
    """The review: audit80b's rule for a sentence's span (options alone name nothing that runs) holds for a line."""
    assert not check(engine, "README.md", f"# Symptoms\n\n{span}\n").workloads


@pytest.mark.parametrize(
    "line",
    [
        "docker run is how a container starts --gpus all img",  # no option after run: a sentence
        "- docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2",  # a list item: prose
        "Say ``docker run img`` or `docker run` or ```docker run img``` in code.",  # no option first
        "The span `docker run --gpus all img --tensor-parallel-size 2 is never closed.",  # or `--gpus` after run
        "**Symptom**: `docker run --runtime=nvidia` fails, as `docker run --gpus all` does.",  # no image: options
        "<!-- old: `docker run --gpus all img python t.py --num-workers 4` -->",  # a comment on its line
        "Run `docker run --gpus all img python t.py --num-workers 4 \\` no more.",  # a span that goes on
        "docker run --gpus all vllm/vllm-openai:v0.6.0 needs --tensor-parallel-size 2 on two GPUs.",  # a sentence
        "docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n---",  # a setext heading
        "<!--\ndocker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n-->",  # commented out
        "Text <!-- old:\ndocker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n-->",  # opened mid-line
        "docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2 needs it.\r\n",  # CRLF sentence
        "docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\r\n===\r\n",  # CRLF heading
        "docker run -it --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2 and then\nthe rest of it.",
    ],
)
def test_prose_about_a_command_is_not_one(engine: Engine, line: str) -> None:
    assert not check(engine, "README.md", f"Text.\n\n{line}\n").workloads


_SESSION = "sudo docker run --rm -it --gpus all -v /data:/data acme/llm:1 bash\n"


@pytest.mark.parametrize(
    "typed",
    [
        "vllm serve m --tensor-parallel-size 2\n",
        "conda activate serve\ncd /data\nvllm serve m --tensor-parallel-size 2\n",
        "vllm serve m --tensor-parallel-size 2\n# Next step\n",  # an ATX heading ends the paragraph
        "vllm serve m \\\n  --tensor-parallel-size 2\n",  # a typed command its backslash continues
        "source /venv/bin/activate\nexport HF_HOME=/data\nvllm serve m --tensor-parallel-size 2\n",
    ],
)
def test_a_notes_paragraph_of_commands_is_a_session_typed_into_the_container(engine: Engine, typed: str) -> None:
    """A notes file that writes its terminal session as a paragraph, no code block: the run line that opens a
    shell, then the commands typed there, each a command as people type them. Those are the container's."""
    (finding,) = check(engine, "training_cmd.md", "# Serve\nsudo docker images\n" + _SESSION + typed).findings
    assert (finding.span.line, finding.severity.label) == (3, "error")
    assert "typed in the container, training_cmd.md:" in finding.detail


@pytest.mark.parametrize(
    "after",
    [
        "and then the server runs in it\n",  # prose: no option or file after its first word
        "vllm serve m --tensor-parallel-size 2.\n",  # a sentence's end
        "vllm serve m --tensor-parallel-size 2\n---\n",  # a setext heading's text
        "".join(f"ls -l /data/{i}\n" for i in range(70)) + "vllm serve m --tensor-parallel-size 2\n",  # too long
        # prose that names commands, options and files
        "inside it, start torchrun --nproc_per_node 8 train.py\n",
        "models are served by vllm serve with --tensor-parallel-size 2\n",
        "make sure the dataloader uses num_workers=8 and /data\n",
        "e.g. torchrun --nproc_per_node 8 train.py\n",
        "source code lives in /workspace and torchrun starts it\n",
        "more details in docs/README.md\n",
        "works with pytorch 2.1 and torchrun on 8 GPUs\n",
        "cd /workspace\ndocker containers started this way share 64 MiB\n",  # an engine line that is prose
        "python train.py, then evaluate\n",
        "python is 3.10 inside and vllm serve works for small models\n",
        "deepspeed is installed so training with deepspeed train.py needs no extra setup\n",
        "git clone https://x/y then run torchrun --nproc_per_node 8 train.py inside\n",
        "echo the result of torchrun --nproc_per_node 8 train.py to a file\n",
        "pip install deepspeed\n",  # an installer names software that does not run there
        "git clone https://github.com/microsoft/DeepSpeed\ncd DeepSpeed\n",
    ],
)
def test_a_run_line_followed_by_prose_in_its_paragraph_is_not_read(engine: Engine, after: str) -> None:
    assert not check(engine, "notes.md", "Text.\n\n" + _SESSION + after).workloads


def test_a_notes_session_reads_the_same_with_crlf(engine: Engine) -> None:
    text = "Text.\n\n" + _SESSION + "vllm serve m --tensor-parallel-size 2\npwd\ncd\n# Next\n"
    lf = [(f.span.line, f.severity.label) for f in check(engine, "notes.md", text).findings]
    crlf = [(f.span.line, f.severity.label) for f in check(engine, "notes.md", text.replace("\n", "\r\n")).findings]
    assert lf == crlf == [(3, "error")]


def test_a_session_that_installs_software_does_not_run_it(engine: Engine) -> None:
    """``pip install deepspeed`` typed into the container names DeepSpeed without running it."""
    text = "```bash\ndocker run -it --gpus all pytorch/pytorch:2.1 bash\npip install deepspeed\npython app.py\n```\n"
    (finding,) = check(engine, "README.md", text).findings
    assert finding.severity.label == "info"


def test_indented_code_may_follow_a_heading_directly() -> None:
    """CommonMark: a heading is no paragraph, so an indented code block may start on the next line (audit60b:
    ``# Build`` then ``    docker build -t my-tts-image .`` was not read, and the image not tied to its Dockerfile);
    indented text right after a paragraph line is still that paragraph."""
    text = "# Build\n    docker build -t img .\n\ntext\n    not code\n"
    assert [line.strip() for line in mask_markdown(text).split("\n") if line.strip()] == ["docker build -t img ."]


def test_a_command_line_does_not_hide_the_indented_code_after_a_list(engine: Engine) -> None:
    """A paragraph's command line ends a list item as any paragraph does: the indented block after it is code."""
    text = (
        "- item\n\ndocker run --gpus all img:1\n\n"
        "    sudo docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n"
    )
    found = {(f.span.line, f.severity.label) for f in check(engine, "README.md", text).findings}
    assert (5, "error") in found


def test_a_fenced_block_inside_an_html_comment_is_not_read(engine: Engine) -> None:
    text = "<!-- old instructions\n```bash\ndocker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n```\n-->\n"
    assert not check(engine, "README.md", text).workloads


def test_an_indented_block_after_an_html_comment_is_a_block_of_its_own(engine: Engine) -> None:
    """An HTML comment ends the indented block before it; an indented line after it starts a new one (CommonMark),
    so the first is read on its own (more than four constructs left open blank it whole, not the second)."""
    text = (
        "Text.\n\n    echo $( $( $( $( $(\n<!--\nold\n-->\n"
        "    sudo docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n"
    )
    found = [(f.span.line, f.severity.label) for f in check(engine, "README.md", text).findings]
    assert found == [(7, "error")]


def test_a_continued_command_line_stops_at_a_fence(engine: Engine) -> None:
    """A paragraph command whose last backslash is followed by a fence: the fence opens a block of its own."""
    text = (
        "docker run --gpus all -it img \\\n```bash\n"
        "docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n```\n\n```yaml\na: 1\n```\n"
    )
    assert [language for _, language in markdown_code_blocks(text)] == ["", "bash", "yaml"]


def test_a_shell_block_inside_a_block_quote_is_read_and_fixed_there(engine: Engine) -> None:
    """A GitHub alert (``> [!NOTE]``) or any block quote holding a fenced shell block: read without the ``>``
    markers, at the file's own line and column, and fixed in place; a YAML block there is not read (its text is
    parsed from the file, markers and all)."""
    text = (
        "> [!NOTE]\n> Start the server:\n>\n> ```bash\n> docker run --gpus all vllm/vllm-openai:latest --model x\n"
        "> ```\n\n> ```yaml\n> services:\n>   t:\n>     image: vllm/vllm-openai:latest\n>     gpus: all\n> ```\n"
    )
    result = engine.check_source(SourceText("README.md", text), FileKind.MARKDOWN, Path("README.md"))
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("SHM001", 5, 3)]
    assert not result.notices
    fixed = fix_source(engine, SourceText("README.md", text), FileKind.MARKDOWN, Path("README.md")).text
    assert fixed == text.replace("> docker run --gpus", "> docker run --shm-size=8g --gpus")


def test_ray_nodes_run_their_start_commands(shown: Engine) -> None:
    """The launcher execs the node's start commands into its container (``ray start`` unless written otherwise):
    they are what runs there, whatever the image."""
    disabled = "  image: rayproject/ray-ml:2.9.0-gpu\n  disable_shm_size_detection: true\n  run_options: [--gpus all]\n"
    text = RAY.replace("  image: rayproject/ray-ml:latest-gpu\n{docker}", disabled)
    text += "head_start_ray_commands: [ray stop, ray start --head --port=6379]\n"
    messages = [f.message for f in shown.check_source(SourceText("c.yaml", text), FileKind.YAML, "c.yaml").findings]
    assert any("(ray start --head --port=6379 (head_start_ray_commands))" in m for m in messages), messages
    assert any("ray start (the launcher's default)" in m for m in messages), messages


@pytest.mark.parametrize(
    ("written", "command"),
    [
        ("head_start_ray_commands: []\n", ""),  # a list given replaces Ray's defaults: nothing is started
        ("head_start_ray_commands: [1, {a: b}, null, '', '   ', ' ray start --head ']\n", "ray start --head"),
        ("", "ray start"),  # none written: the launcher's default
    ],
)
def test_ray_start_commands_as_the_launcher_reads_them(engine: Engine, written: str, command: str) -> None:
    disabled = "  image: rayproject/ray-ml:2.9.0-gpu\n  disable_shm_size_detection: true\n  run_options: [--gpus all]\n"
    text = RAY.replace("  image: rayproject/ray-ml:latest-gpu\n{docker}", disabled) + written
    result = engine.check_source(SourceText("c.yaml", text), FileKind.YAML, "c.yaml")
    head = next(w for w in result.workloads if "head" in w.id.role)
    assert head.command == command


def test_a_shell_after_a_double_dash_is_the_session(engine: Engine) -> None:
    """audit56a (Step-Audio): ``IMAGE -- bash`` reaches the image's entrypoint as ``-- bash``; CUDA's and NGC's
    entrypoints end in ``exec "$@"``, which runs the shell: what is typed next is typed there. ``IMAGE --`` alone
    runs nothing there (``exec --``): no session (review)."""
    typed = "\ntorchrun --nproc_per_node 4 train.py\n```\n"
    (finding,) = check(
        engine, "README.md", "# Train\n```bash\ndocker run --rm -ti --gpus all img -- bash" + typed
    ).findings
    assert finding.severity.label == "error" and "typed in the container, README.md:4" in finding.detail
    (alone,) = check(engine, "README.md", "# Train\n```bash\ndocker run -it --gpus all img --" + typed).findings
    assert alone.severity.label == "info"


@pytest.mark.parametrize("note", ["(1) # the first GPU is used for logging", "(base) # a note"])
def test_a_parenthesised_note_with_a_hash_is_no_prompt(engine: Engine, note: str) -> None:
    """Root's ``#`` after a parenthesised word is a transcript's output, not a prompt: the block keeps its
    unprompted command (review: such a line turned the block into a transcript and hid it)."""
    text = f".. code-block:: console\n\n   docker run --gpus all pytorch/pytorch torchrun --nproc_per_node 4 t.py\n   {note}\n"
    assert codes(engine, "guide.rst", text) == ["3:4 SHM001"]
