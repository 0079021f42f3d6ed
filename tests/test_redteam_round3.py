"""Issue 27 (red team, round 3), the items that stopped a whole run, passed it silently or made it hang: one test
per item, each rebuilding the red team's input at a size that was clearly slow before and is quick now, and
asserting on the bound or the behaviour (wall-clock figures are bench/redteam.py's)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import DEFECT, Engine
from shmlint.numbers import MAX_INT, ascii_float, ascii_int, read_int
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import SHMLINT_ENV, run_shmlint

ROOT = Path(__file__).resolve().parent.parent
ENV = SHMLINT_ENV
BIG = "9" * 5000  # int() of it raises ("Exceeds the limit (4300 digits)")
SUPERSCRIPT = "\u00b2"  # "²".isdigit() is True, int("²") raises


shmlint = run_shmlint


def check(name: str, text: str, kind: FileKind, settings: Settings | None = None) -> list[str]:
    """The findings of one file checked in-process, as ``CODE message`` lines."""
    result = Engine(settings or Settings(undecided="show")).check_source(SourceText(name, text), kind, name)
    return [f"{finding.code} {finding.message}" for finding in result.findings]


# -- item 8: one shared reading of numbers -----------------------------------------------------------------------


@pytest.mark.parametrize("text", [SUPERSCRIPT, "\u0661", "1\u00b2", BIG, "", "-1", "1.5", "0x10", " "])
def test_read_int_refuses_what_is_not_ascii_digits_or_too_long(text: str) -> None:
    read = read_int(text)
    assert read.value is None and read.problem


def test_read_int_bounds_and_leading_zeros() -> None:
    assert read_int("0008", maximum=8).value == 8
    assert read_int("9", maximum=8) == (None, "out of range (at most 8)")
    assert read_int(str(MAX_INT)).value == MAX_INT
    assert read_int(str(MAX_INT + 1)).value is None
    assert read_int("1_000").value is None
    assert ascii_int("0" * 5000 + "7") == 7  # leading zeros are not "too long"


@hypothesis.given(st.text(max_size=30) | st.integers(min_value=0).map(str), st.integers(min_value=0))
def test_read_int_never_raises_and_stays_in_bounds(text: str, maximum: int) -> None:
    read = read_int(text, maximum=maximum)
    assert (read.value is None) is bool(read.problem)
    assert read.value is None or 0 <= read.value <= maximum
    plain = text.strip()
    if plain.isascii() and plain.isdigit() and len(plain) < 30 and int(plain) <= min(maximum, MAX_INT):
        assert read.value == int(plain)
    number = ascii_float(text)
    assert number is None or number - number == 0


@pytest.mark.parametrize("text", ["\u0661", BIG, "inf", "nan", "1e999", SUPERSCRIPT])
def test_ascii_float_refuses_non_ascii_long_and_infinite(text: str) -> None:
    assert ascii_float(text) is None


NUMBER_SITES = [
    ("run.sh", f"docker run --gpus {SUPERSCRIPT} pytorch/pytorch python train.py\n", FileKind.SHELL),
    ("run2.sh", f"docker run --gpus {BIG} pytorch/pytorch python train.py\n", FileKind.SHELL),
    ("run3.sh", f"docker run --gpus count={BIG} pytorch/pytorch python train.py\n", FileKind.SHELL),
    (
        "pod.yaml",
        "kind: Pod\nspec:\n  containers:\n  - name: t\n    image: pytorch/pytorch\n"
        f"    resources:\n      limits:\n        nvidia.com/gpu: {SUPERSCRIPT}\n",
        FileKind.YAML,
    ),
    (
        ".devcontainer/devcontainer.json",
        f'{{"image": "pytorch/pytorch", "runArgs": ["--gpus", "all"], "hostRequirements": {{"cpus": {BIG}}}}}',
        FileKind.DEVCONTAINER,
    ),
    (
        "task.json",
        '{"family": "x", "containerDefinitions": [{"name": "t", "image": "pytorch/pytorch", '
        f'"memory": {BIG}, "resourceRequirements": [{{"type": "GPU", "value": "{SUPERSCRIPT}"}}]}}]}}',
        FileKind.JSON,
    ),
    (
        "flow.py",
        "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n"
        f"    @kubernetes(gpu=0x{BIG}, shared_memory=0x{BIG})\n    @step\n    def start(self):\n        import torch\n",
        FileKind.PYTHON,
    ),
    (
        "flow2.py",
        "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n"
        f'    @kubernetes(gpu="{SUPERSCRIPT}", shared_memory="{SUPERSCRIPT}")\n    @step\n    def start(self):\n'
        "        import torch\n",
        FileKind.PYTHON,
    ),
    (
        "main.tf",
        'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "pytorch/pytorch"\n'
        f'      resources {{\n        limits = {{ "nvidia.com/gpu" = {BIG} }}\n      }}\n    }}\n  }}\n}}\n',
        FileKind.TERRAFORM,
    ),
    (
        "config.toml",
        '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    image = "pytorch/pytorch"\n    gpus = "all"\n'
        f"    shm_size = {BIG}\n",
        FileKind.GITLAB_RUNNER,
    ),
    ("Dockerfile.md", f"```dockerfile\nFROM a\nFROM b\nCOPY --from={BIG} /x /y\n```\n", FileKind.MARKDOWN),
]


@pytest.mark.parametrize(("name", "text", "kind"), NUMBER_SITES, ids=[site[0] for site in NUMBER_SITES])
def test_an_odd_or_huge_number_is_never_an_internal_error(name: str, text: str, kind: FileKind) -> None:
    """Every site the red team reached: a result (a finding, or the value read as unknown), never an exception
    (which the engine would now turn into a DEFECT finding: asserted absent)."""
    findings = check(name, text, kind)
    assert not any(DEFECT in finding for finding in findings), findings


@pytest.mark.parametrize(
    ("name", "text", "kind", "where"),
    [
        ("main.tf", NUMBER_SITES[8][1], FileKind.TERRAFORM, "number longer than 64 characters"),
        ("config.toml", NUMBER_SITES[9][1], FileKind.GITLAB_RUNNER, "Number too long"),
        (".devcontainer/devcontainer.json", NUMBER_SITES[4][1], FileKind.DEVCONTAINER, "number longer than 64"),
    ],
)
def test_a_number_too_long_to_read_is_an_shm000_with_its_place(
    name: str, text: str, kind: FileKind, where: str
) -> None:
    result = Engine(Settings(undecided="show")).check_source(SourceText(name, text), kind, name)
    (finding,) = [finding for finding in result.findings if finding.code == "SHM000"]
    assert where in finding.message
    assert finding.span.line > 1 or finding.span.column > 1  # placed at the number, not at the top of the file


def test_a_defect_in_one_file_is_that_files_finding_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence for a tree: an exception of shmlint's own while checking one file read from disk is
    that file's SHM000, every other file is reported and --output written, and the command says so on stderr and
    exits 2 (a tool error, never a pass). ``check_source`` itself still raises, so fuzzing sees every defect."""
    from click.testing import CliRunner

    import shmlint.engine as engine_module
    from shmlint.cli import cli
    from shmlint.discover import Candidate

    real = engine_module.extract_file

    def broken(source: SourceText, *args: object) -> object:
        if source.path.endswith("bad.sh"):
            raise ValueError("a defect")
        return real(source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_module, "extract_file", broken)
    (tmp_path / "bad.sh").write_text("docker run --gpus all img\n", encoding="utf-8")
    (tmp_path / "good.sh").write_text("docker run --gpus all pytorch/pytorch torchrun train.py\n", encoding="utf-8")
    engine = Engine(Settings(undecided="show"))
    with pytest.raises(ValueError, match="a defect"):
        engine.check_source(SourceText("bad.sh", "x\n"), FileKind.SHELL, "bad.sh")
    (finding,) = engine.check_candidate(Candidate(str(tmp_path / "bad.sh"), FileKind.SHELL, explicit=True)).findings
    assert finding.code == "SHM000" and DEFECT in finding.message and "ValueError: a defect" in finding.message
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(cli, ["check", ".", "--format", "json", "--output", "out.json"])
    assert run.exit_code == 2 and "internal error on 1 file(s), first bad.sh" in run.output, run.output
    reported = {(f["path"], f["code"]) for f in json.loads((tmp_path / "out.json").read_text())["findings"]}
    assert reported == {("bad.sh", "SHM000"), ("good.sh", "SHM001")}


def test_a_tree_with_every_odd_number_still_reports_everything_and_writes_output(tmp_path: Path) -> None:
    for name, text, _ in NUMBER_SITES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    good = "docker run --gpus all pytorch/pytorch torchrun train.py\n"
    (tmp_path / "good.sh").write_text(good, encoding="utf-8")
    run = shmlint("check", ".", "--format", "sarif", "--output", "out.sarif", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    results = json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"]
    reported = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in results}
    assert {"good.sh", "main.tf", "config.toml"} <= reported
    assert not any(DEFECT in result["message"]["text"] for result in results)


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        (".shmlint.yaml", f"max-file-size: {BIG}\n", ".shmlint.yaml:1:16: not valid YAML: number too long"),
        (".shmlint.yaml", f"jobs: 0x{BIG}\n", "jobs: number out of range"),
        ("pyproject.toml", f"[tool.shmlint]\nmax-file-size = {BIG}\n", "pyproject.toml:2:17: not valid TOML"),
        ("pyproject.toml", f"[tool.shmlint]\njobs = 0x{BIG}\n", "jobs: number out of range"),
    ],
)
def test_a_huge_number_in_either_config_file_is_a_config_error(
    tmp_path: Path, name: str, text: str, needle: str
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "a.sh").write_text("echo\n", encoding="utf-8")
    run = shmlint("check", "a.sh", cwd=tmp_path)
    assert run.returncode == 2 and "internal error" not in run.stderr, run.stderr
    assert needle in run.stderr, run.stderr


def test_a_huge_number_in_the_baseline_is_a_baseline_error(tmp_path: Path) -> None:
    (tmp_path / "bl.json").write_text(f'{{"version": 2, "findings": [{{"count": {BIG}}}]}}', encoding="utf-8")
    (tmp_path / "a.sh").write_text("echo\n", encoding="utf-8")
    run = shmlint("check", "a.sh", "--baseline", "bl.json", cwd=tmp_path)
    assert run.returncode == 2 and "internal error" not in run.stderr, run.stderr
    assert "baseline holds a number too long" in run.stderr


# -- item 13: a Quadlet unit is read in linear time ---------------------------------------------------------------


def test_quadlet_option_words_tokenise_each_piece_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 ``PodmanArgs=`` keys: the shell tokenizer sees each key's value once (it saw the whole prefix of the
    file for every key before: 100 KB took 60 s), and the words keep the file's offsets."""
    import shmlint.parsers.run_options as run_options

    seen: list[int] = []
    real = run_options.commands

    def counting(text: str):  # type: ignore[no-untyped-def]
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(run_options, "commands", counting)
    lines = ["[Container]", "Image=docker.io/pytorch/pytorch", "Exec=torchrun train.py", "AddDevice=nvidia.com/gpu=all"]
    lines += [f"PodmanArgs=--env A{index}=b" for index in range(2000)]
    text = "\n".join(lines) + "\n"
    findings = check("train.container", text, FileKind.UNIT)
    assert any(finding.startswith("SHM001") for finding in findings), findings
    assert len(seen) >= 2000 and sum(seen) <= len(text)
    words = run_options.option_words(text, [(text.index("--env A7="), text.index("--env A7=") + 11)])
    assert [(text[word.start : word.end], word.text) for word in words] == [("--env", "--env"), ("A7=b", "A7=b")]


# -- item 9: every folder the walk cannot enter is reported ------------------------------------------------------


def _refusing_scandir(monkeypatch: pytest.MonkeyPatch, refused: str) -> None:
    """As root (this machine's CI), permissions do not stop a walk: the folder's listing fails as it would."""
    real = os.scandir

    def scandir(path: str = ".") -> object:
        if os.path.basename(os.fspath(path)) == refused:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("named", [".", "zz"])
def test_the_last_folder_walked_or_the_named_one_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    from shmlint.discover import discover

    (tmp_path / "aa").mkdir()
    (tmp_path / "aa" / "pod.yaml").write_text("kind: Pod\n", encoding="utf-8")
    (tmp_path / "zz").mkdir()  # walked last (names are sorted)
    monkeypatch.chdir(tmp_path)
    _refusing_scandir(monkeypatch, "zz")
    errors = [(c.path, c.error) for c in discover([named]) if c.error is not None]
    assert errors == [("zz", "cannot read folder: Permission denied")]


def _deeper_than_path_max(top: Path) -> None:
    """Twenty folders of 250-character names (5,000 characters: beyond PATH_MAX), made relative to each other."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for index in range(20):
            name = chr(ord("a") + index) * 250
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit", "gitlab"])
def test_a_tree_deeper_than_path_max_is_not_a_silent_pass(tmp_path: Path, fmt: str) -> None:
    _deeper_than_path_max(tmp_path)
    run = shmlint("check", ".", "--format", fmt, cwd=tmp_path)
    assert run.returncode == 1, (run.returncode, run.stdout[-500:], run.stderr[-500:])
    assert "cannot read folder: File name too long" in run.stdout
    assert "All checked" not in run.stdout + run.stderr


def test_fix_says_which_folder_it_could_not_enter(tmp_path: Path) -> None:
    _deeper_than_path_max(tmp_path)
    run = shmlint("fix", ".", cwd=tmp_path)
    assert run.returncode == 0 and "not fixed: cannot read folder: File name too long" in run.stderr, run.stderr


# -- item 14: '**' counts in the cost of a path pattern; a refused .gitignore pattern is said ------------------------

HOSTILE_GITIGNORE = "/".join(["**/x"] * 10)  # 50 bytes; against a 40-deep tree of x folders it took 5 min 22 s


def test_globstars_count_in_the_cost_model() -> None:
    from shmlint.patterns import PathPatterns, too_costly

    assert too_costly(HOSTILE_GITIGNORE) is not None
    assert too_costly("**/x/**/y") is not None  # two '**' with path after them: quadratic in the depth
    assert too_costly("**/x/**") is None and too_costly("x/**/y") is None  # linear
    patterns = PathPatterns(["*.pyc", HOSTILE_GITIGNORE])
    assert patterns.refused and patterns.matches("a/b.pyc") and not patterns.matches("/".join(["x"] * 40))


def test_a_refused_gitignore_pattern_is_reported_and_the_walk_is_quick(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deep = tmp_path.joinpath(*["x"] * 40)
    deep.mkdir(parents=True)
    (deep / "pod.yaml").write_text("kind: Pod\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text(HOSTILE_GITIGNORE + "\n", encoding="utf-8")
    run = shmlint("check", ".", "--format", "json", cwd=tmp_path)
    findings = json.loads(run.stdout)["findings"]
    assert [(f["path"], f["code"]) for f in findings] == [(".gitignore", "SHM000")], findings
    assert "patterns left out" in findings[0]["message"] and "'**'" in findings[0]["message"]


@pytest.mark.parametrize("key", ["exclude", "extend-exclude", "per-file-ignores"])
def test_a_costly_configured_pattern_is_a_config_error(tmp_path: Path, key: str) -> None:
    value = f"{{'{HOSTILE_GITIGNORE}': [SHM001]}}" if key == "per-file-ignores" else f"['{HOSTILE_GITIGNORE}']"
    (tmp_path / ".shmlint.yaml").write_text(f"{key}: {value}\n", encoding="utf-8")
    run = shmlint("check", ".", cwd=tmp_path)
    assert run.returncode == 2 and "to match in bounded time" in run.stderr, run.stderr


# -- item 15: configured patterns have one time budget per file ---------------------------------------------------


def test_configured_patterns_share_one_budget_per_file(tmp_path: Path) -> None:
    """200 images that each backtrack for about 25 ms under ``(a|aa)+!$``: each stays under the per-value budget,
    so the file took 200 x 25 ms, silently (a 174 KB pod: 3 minutes). Now the file's total is bounded and said."""
    from shmlint.configured_patterns import FILE_BUDGET_SECONDS, PATTERN_BUDGET_SECONDS

    assert FILE_BUDGET_SECONDS < 200 * 0.025 and PATTERN_BUDGET_SECONDS > 0.025
    lines = ["apiVersion: v1", "kind: Pod", "metadata: {name: p}", "spec:", "  containers:"]
    for index in range(200):
        lines += [
            f"  - name: c{index}",
            f"    image: {'a' * 20}!{index}",
            "    resources: {limits: {nvidia.com/gpu: 1}}",
        ]
    (tmp_path / "pod.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "other.yaml").write_text(lines[0] + "\n" + "\n".join(lines[1:8]) + "\n", encoding="utf-8")
    (tmp_path / ".shmlint.yaml").write_text('torch-images: ["(a|aa)+!$"]\n', encoding="utf-8")
    run = shmlint("check", ".", "--format", "json", "--undecided=show", cwd=tmp_path)
    findings = {(f["path"], f["code"]): f["message"] for f in json.loads(run.stdout)["findings"]}
    assert "on this file's values" in findings["pod.yaml", "SHM000"], findings
    assert ("other.yaml", "SHM001") in findings  # the next file has a budget of its own


# -- item 16: Terraform is parsed under a token budget ------------------------------------------------------------


def test_terraform_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark reads one token at a time and stops at ``MAX_TOKENS`` (9.5 MB took 5 min and 4.3 GB, 200 KB of
    ``1+1+...`` 10 s); the budget is lowered here so that the test is quick."""
    import shmlint.parsers.hcl as hcl

    monkeypatch.setattr(hcl, "MAX_TOKENS", 400)
    head = 'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "pytorch/pytorch"\n'
    tail = '      resources {\n        limits = { "nvidia.com/gpu" = 1 }\n      }\n    }\n  }\n}\n'
    small = check("small.tf", head + "      x = " + "+".join(["1"] * 150) + "\n" + tail, FileKind.TERRAFORM)
    assert [finding[:6] for finding in small] == ["SHM001"], small
    big = check("big.tf", head + "      x = " + "+".join(["1"] * 250) + "\n" + tail, FileKind.TERRAFORM)
    assert big == ["SHM000 too complex to check in bounded work (more than 400 tokens)"]


# -- item 19: Python and JSONC are parsed only within a token budget ----------------------------------------------


def test_work_counts_tokens_and_stops_at_the_budget() -> None:
    from shmlint.parsers.work import beyond

    assert beyond("a = [1, 2]", 7) is None  # a = [ 1 , 2 ]
    assert beyond("a = [1, 2]", 6) == len("a = [1, 2")  # the seventh token
    assert beyond("x" * 1000, 1) is None  # one word is one token, however long


def test_python_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ast.parse`` of 10 MB took 7.4 s and 2.0 GB (1 MB of ``1,``: 527 MB): the tokens are counted first."""
    import shmlint.formats.python.extract as launchers

    monkeypatch.setattr(launchers, "MAX_TOKENS", 1000)
    flow = "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n    @kubernetes(gpu=1)\n    @step\n"
    flow += "    def start(self):\n        import torch\n"
    assert not any(finding.startswith("SHM000") for finding in check("flow.py", flow, FileKind.PYTHON))
    (finding,) = check("flow.py", flow + "x = [" + "1, " * 600 + "]\n", FileKind.PYTHON)
    assert finding == "SHM000 too complex to check in bounded work (more than 1,000 tokens; split the file)"


def test_jsonc_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev container reader took 22-34 s and 1.1 GB on 9.5 MB."""
    import shmlint.parsers.jsonc as jsonc

    monkeypatch.setattr(jsonc, "MAX_TOKENS", 1000)
    head = '{"image": "pytorch/pytorch", "runArgs": ["--gpus", "all"], "x": ['
    name = ".devcontainer/devcontainer.json"
    assert [f[:6] for f in check(name, head + ",".join(["1"] * 400) + "]}", FileKind.DEVCONTAINER)] == ["SHM001"]
    (finding,) = check(name, head + ",".join(["1"] * 600) + "]}", FileKind.DEVCONTAINER)
    assert finding.startswith("SHM000") and "too complex to check in bounded work (more than 1,000 tokens)" in finding


# -- item 17: aliases are counted in characters; a finding quotes an excerpt ----------------------------------------

ALIASED_POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: c0
    image: pytorch/pytorch
    command: [torchrun, train.py]
    env: &env [{{name: NVIDIA_VISIBLE_DEVICES, value: "{value}"}}]
    resources: &res {{limits: {{nvidia.com/gpu: 1}}}}
{more}"""


def aliased_pod(containers: int, value_chars: int) -> str:
    more = "".join(f"  - {{name: c{i}, image: x, env: *env, resources: *res}}\n" for i in range(1, containers))
    return ALIASED_POD.format(value="0," * (value_chars // 2) + "1", more=more)


def test_aliases_expanding_past_the_character_budget_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """MAX_EXPANDED counted nodes only: 1.1 MB of YAML aliasing long values from thousands of containers ran past
    5 minutes. 200 containers x 2 KB is 400 KB expanded from 8 KB of text: over a budget lowered to 100 KB."""
    import shmlint.parsers.yamlnodes as yamlnodes

    monkeypatch.setattr(yamlnodes, "MAX_EXPANDED_CHARS", 100_000)
    text = aliased_pod(200, 2000)
    assert len(text) < 100_000
    (finding,) = check("pod.yaml", text, FileKind.YAML)
    assert finding == "SHM000 invalid YAML: aliases expand to more than 100,000 characters (a YAML alias bomb); refused"
    assert all(f.startswith("SHM001") for f in check("pod.yaml", aliased_pod(20, 2000), FileKind.YAML))


def test_a_finding_quotes_an_excerpt_of_a_long_value() -> None:
    from shmlint.rules.rule import MAX_DETAIL, MAX_MESSAGE, MAX_QUOTED_WORD, excerpted

    findings = check("pod.yaml", aliased_pod(3, 20_000), FileKind.YAML)
    assert len(findings) == 3 and all(len(f) < MAX_MESSAGE + 10 for f in findings)
    text = SourceText("pod.yaml", aliased_pod(3, 20_000))
    engine = Engine(Settings(undecided="show"))
    details = [f.detail for f in engine.check_source(text, FileKind.YAML, "pod.yaml").findings]
    assert len(details) == 3 and all(len(d) <= MAX_DETAIL for d in details)  # the long explanation quotes it
    assert "NVIDIA_VISIBLE_DEVICES=0,0,0" in details[0] and "0,0,0...,0,0," in details[0] and "0,0,1)" in details[0]
    assert all(len(word) <= MAX_QUOTED_WORD for word in excerpted("a " + "b" * 5000 + " c").split())
    long = excerpted(" ".join(["word"] * 1000) + " the remedy")
    assert len(long) <= MAX_MESSAGE and long.endswith("the remedy")


def test_a_unit_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear now (item 13), but every key is tokenised as shell: 10 MB of keys would still take a minute."""
    import shmlint.extract.dispatch as dispatch

    monkeypatch.setattr(dispatch, "MAX_PARSE_TOKENS", 500)
    head = "[Container]\nImage=docker.io/pytorch/pytorch\nExec=torchrun train.py\nAddDevice=nvidia.com/gpu=all\n"
    keys = "".join(f"PodmanArgs=--env A{index}=b\n" for index in range(100))  # 9 tokens a line
    (finding,) = check("train.container", head + keys, FileKind.UNIT)
    assert finding == "SHM000 too complex to check in bounded work (more than 500 tokens)"
    assert check("train.container", head + keys[:1000], FileKind.UNIT)[0].startswith("SHM001")


@pytest.mark.parametrize(
    ("name", "kind", "head", "line"),
    [
        (
            "config.toml",
            FileKind.GITLAB_RUNNER,
            '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    image = "pytorch/pytorch"\n    gpus = "all"\n',
            '[[runners]]\n  name = "r{i}"\n',
        ),
        (
            "Jenkinsfile",
            FileKind.JENKINSFILE,
            "pipeline { agent { docker { image 'pytorch/pytorch' } } }\n",
            "// {i}\n",
        ),
    ],
)
def test_runner_and_pipeline_files_beyond_the_token_budget_are_too_complex(
    monkeypatch: pytest.MonkeyPatch, name: str, kind: FileKind, head: str, line: str
) -> None:
    """Found by bench/redteam.py --round3: 10 MB took tomllib 16 s / 336 MB, the Groovy reader 26 s / 628 MB."""
    import shmlint.extract.dispatch as dispatch

    monkeypatch.setattr(dispatch, "MAX_PARSE_TOKENS", 300)
    assert not any(f.startswith("SHM000") for f in check(name, head, kind))
    (finding,) = check(name, head + "".join(line.format(i=i) for i in range(100)), kind)
    assert finding == "SHM000 too complex to check in bounded work (more than 300 tokens)"
