"""Configuration errors: every problem of a file at once, each with its key path, line and column, in words (never
the schema's regular expression); ruamel.yaml is imported only when a configuration file exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shmlint.config import ConfigError, find_config, load_effective
from tests.hostile import BIG, POD_TEMPLATE, RUN_SCRIPT, assert_clean_error
from tests.support import ROOT, run_shmlint, run_shmlint_bytes

SCHEMA = json.loads((ROOT / "shmlint" / "config_schema.json").read_text())
RAW_SCHEMA_WORDS = ("^(SHM", "does not match", "is not valid under any of the given schemas", "Additional properties")


def problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as error:
        load_effective(path.parent, path)
    return [line.removeprefix(f"{path}:") for line in str(error.value).splitlines()]


def test_select_with_a_wrong_code_says_so_in_words(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("select: [SHM01]\n")
    assert problems(tmp_path / ".shmlint.yaml") == [
        "1:10: select[0]: 'SHM01' is not a rule code or slug (see `shmlint rules`)"
    ]


def test_every_problem_of_a_yaml_file_at_once_with_its_place(tmp_path: Path) -> None:
    config = tmp_path / ".shmlint.yaml"
    config.write_text(
        "select: [SHM01, missing-shm, SHM099]\n"
        "ignore: host-ipc\n"
        "per-file-ignores:\n"
        '  "docs/*.md": [SHM001, nope]\n'
        "severity:\n"
        "  SHM003: loud\n"
        "  SHM77: error\n"
        "fail-on: never\n"
        "min-shm-size: lots\n"
        "selct: [SHM001]\n"
        'torch-images: ["(unclosed"]\n'
    )
    found = problems(config)
    assert found[0] == " 10 problems in the configuration:"
    assert found[1:] == [
        "1:10: select[0]: 'SHM01' is not a rule code or slug (see `shmlint rules`)",
        "1:30: select[2]: 'SHM099' is not a rule code or slug (see `shmlint rules`)",
        "2:9: ignore: must be a list, not 'host-ipc'",
        "4:25: per-file-ignores[\"docs/*.md\"][1]: 'nope' is not a rule code or slug (see `shmlint rules`)",
        "6:11: severity.SHM003: must be one of info, warning, error, not 'loud'",
        "7:3: severity.SHM77: 'SHM77' is not a rule code or slug (see `shmlint rules`)",
        "8:10: fail-on: must be one of info, warning, error, not 'never'",
        "9:15: min-shm-size: 'lots' is not a size (e.g. 8Gi or 8g, or a whole number of bytes)",
        "10:1: selct: unknown key (did you mean 'select'? known keys: " + ", ".join(SCHEMA["properties"]) + ")",
        "11:16: torch-images[0]: '(unclosed' is not a regular expression: missing ), unterminated subpattern at "
        "position 0",
    ]


def test_yaml_syntax_error_has_its_place(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("select: [SHM001]\nselect: [SHM002]\n")
    (found,) = problems(tmp_path / ".shmlint.yaml")
    assert found.startswith("2:1: not valid YAML") and "duplicate key" in found


def test_pyproject_problems_are_placed_by_searching_the_tool_table(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[project]\nname = "x"\nselect = "not ours"\n\n'
        "[tool.shmlint]\n"
        'select = ["SHM01",\n  "SHM099"]\n'
        'fail-on = "never"\n'
        'severity = {SHM005 = "fatal"}\n\n'
        "[tool.shmlint.per-file-ignores]\n"
        '"docs/*.md" = ["nope"]\n'
    )
    assert problems(config)[1:] == [
        "6:11: select[0]: 'SHM01' is not a rule code or slug (see `shmlint rules`)",
        "7:3: select[1]: 'SHM099' is not a rule code or slug (see `shmlint rules`)",
        "8:11: fail-on: must be one of info, warning, error, not 'never'",
        "9:22: severity.SHM005: must be one of info, warning, error, not 'fatal'",
        "12:16: per-file-ignores[\"docs/*.md\"][0]: 'nope' is not a rule code or slug (see `shmlint rules`)",
    ]


@pytest.mark.parametrize(
    ("text", "place"),
    [("[tool.shmlint]\nselect = [SHM001]\n", "2:11:"), ('[tool.shmlint]\nselect = ["SHM001"\n', "3:1:")],
    ids=["bare-word", "unclosed-at-the-end"],
)
def test_pyproject_syntax_error_has_its_place(tmp_path: Path, text: str, place: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    (found,) = problems(tmp_path / "pyproject.toml")
    assert found.startswith(f"{place} not valid TOML"), found


#: a value of the wrong type for each key, and the words its message must hold
WRONG = {
    "array": ("7", "must be a list"),
    "object": ("[a]", "must be a mapping"),
    "severity": ("loud", "must be one of info, warning, error"),
    "choice": ("loud", "must be one of"),
    "size": ("[1]", "is not a size"),
}


def _kind(schema: dict) -> str:
    ref = schema.get("$ref", "")
    definition = SCHEMA["$defs"].get(ref.rsplit("/", 1)[-1], schema) if ref else schema
    if ref.endswith("/severity"):
        return "severity"
    if "enum" in definition:
        return "choice"
    if ref.endswith("/size"):
        return "size"
    return definition.get("type", "array")


KEYS = [key for key, schema in SCHEMA["properties"].items() if _kind(schema) in WRONG]


def _words(key: str) -> str:
    """What the message must say: a choice names its own choices (render: auto, always, never)."""
    schema = SCHEMA["properties"][key]
    if _kind(schema) == "choice":
        return "must be one of " + ", ".join(schema["enum"])
    return WRONG[_kind(schema)][1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.sampled_from(KEYS), min_size=1, max_size=6, unique=True), data=st.data())
def test_each_wrong_key_is_reported_on_its_own_line_in_words(tmp_path: Path, keys: list[str], data) -> None:
    order = data.draw(st.permutations(keys))
    config = tmp_path / ".shmlint.yaml"
    config.write_text("".join(f"{key}: {WRONG[_kind(SCHEMA['properties'][key])][0]}\n" for key in order))
    found = problems(config)
    body = found[1:] if len(order) > 1 else found
    assert len(body) == len(order), found
    for line, (key, text) in enumerate(zip(order, body, strict=True), start=1):
        words = _words(key)
        assert text.startswith(f"{line}:{len(key) + 3}: {key}: ") and words in text, text
        assert not any(raw in text for raw in RAW_SCHEMA_WORDS), text


def _imports(tmp_path: Path, config: str | None) -> str:
    (tmp_path / "compose.yaml").write_text("services:\n  web:\n    image: nginx\n")
    if config is not None:
        (tmp_path / ".shmlint.yaml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "shmlint", "check", "compose.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stderr


def test_ruamel_is_imported_only_when_a_configuration_file_exists(tmp_path: Path) -> None:
    assert "ruamel" not in _imports(tmp_path, None)
    assert "ruamel" in _imports(tmp_path, "min-shm-size: 1Gi\n")


def test_a_pyproject_without_our_table_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["shmlint"]\n[project.scripts]\nshmlint = "shmlint.cli:main"\n'
        "[tool.ruff]\nline-length = 100\n"
    )
    assert "tomllib" not in _imports(tmp_path, None)


@pytest.mark.parametrize(
    "table",
    [
        '[tool.shmlint]\nfail-on = "never"\n',
        '[ tool . "shmlint" ]\nfail-on = "never"\n',
        '[tool]\nshmlint = {fail-on = "never"}\n',
        'tool.shmlint.fail-on = "never"\n',
    ],
)
def test_every_spelling_of_the_tool_table_is_read(tmp_path: Path, table: str) -> None:
    (tmp_path / "pyproject.toml").write_text(table)
    with pytest.raises(ConfigError, match="fail-on: must be one of info, warning, error, not 'never'"):
        load_effective(tmp_path)  # found by looking up from the folder, not named


def test_an_alias_bomb_under_known_keys_is_reported(tmp_path: Path) -> None:
    lines = ['x-0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"x-{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 12)]
    lines += ["select: *a11", "exclude: *a11", "per-file-ignores: {'*': *a11}", "ignore: [*a11, *a11]"]
    (tmp_path / ".shmlint.yaml").write_text("\n".join(lines) + "\n")
    found = problems(tmp_path / ".shmlint.yaml")
    assert found == [" more than 100,000 values once its aliases are expanded (an alias bomb?)"]


def test_aliases_within_reason_are_fine(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("x-codes: &codes [SHM01]\nselect: *codes\nignore: *codes\n")
    found = problems(tmp_path / ".shmlint.yaml")
    assert "1:18: select[0]: 'SHM01' is not a rule code or slug (see `shmlint rules`)" in found  # where it is written
    assert "1:18: ignore[0]: 'SHM01' is not a rule code or slug (see `shmlint rules`)" in found


@pytest.mark.parametrize("kind", ["bad-toml", "not-utf8", "folder", "fifo"])
def test_unusable_configuration_is_an_error(tmp_path: Path, kind: str) -> None:
    """Found: passed over silently (the lookup moved on to parent folders)."""
    if kind == "bad-toml":
        (tmp_path / "pyproject.toml").write_text("[tool.shmlint\nselect = 1\n", encoding="utf-8")
    elif kind == "not-utf8":
        (tmp_path / "pyproject.toml").write_bytes(b"[tool.shmlint]\n# \xff\xfe\n")
    elif kind == "folder":
        (tmp_path / ".shmlint.yaml").mkdir()
    else:
        os.mkfifo(tmp_path / ".shmlint.yaml")
    (tmp_path / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    run = run_shmlint_bytes("check", "pod.yaml", cwd=tmp_path, timeout=30)
    assert_clean_error(run, str(tmp_path))


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
    run = run_shmlint("check", "a.sh", cwd=tmp_path)
    assert run.returncode == 2 and "internal error" not in run.stderr, run.stderr
    assert needle in run.stderr, run.stderr


def test_an_escaped_tool_table_is_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "train.sh").write_text(RUN_SCRIPT)
    assert run_shmlint("check", ".", cwd=tmp_path).returncode == 1  # the finding the configuration turns off
    (tmp_path / "pyproject.toml").write_text('[tool."shml\\u0069nt"]\nignore = ["SHM001"]\n')
    result = run_shmlint("check", ".", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"


def _spelled(word: str, draw: st.DrawFn) -> str:
    """``word`` as a TOML key: bare, literal-quoted, or basic-quoted with some letters as ``\\u``/``\\U`` escapes."""
    style = draw(st.sampled_from(["bare", "literal", "basic"]))
    if style == "bare":
        return word
    if style == "literal":
        return f"'{word}'"
    escaped = draw(st.lists(st.sampled_from(["", "u", "U"]), min_size=len(word), max_size=len(word)))
    letters = (
        c if e == "" else f"\\u{ord(c):04x}" if e == "u" else f"\\U{ord(c):08X}"
        for c, e in zip(word, escaped, strict=True)
    )
    return f'"{"".join(letters)}"'


@st.composite
def tool_tables(draw: st.DrawFn) -> str:
    tool, ours, dot = _spelled("tool", draw), _spelled("shmlint", draw), draw(st.sampled_from([".", " . "]))
    value = 'ignore = ["SHM001"]'
    forms = [
        f"[{tool}{dot}{ours}]\n{value}\n",
        f"[{tool}]\n{ours}{dot}{value}\n",
        f"[{tool}]\n{ours} = {{ {value} }}\n",
        f"{tool}{dot}{ours}{dot}{value}\n",
        f"{tool} = {{ {ours} = {{ {value} }} }}\n",
    ]
    return draw(st.sampled_from(forms)) + '\n[project]\nname = "x"\n'


@hypothesis.given(tool_tables())
def test_every_spelling_of_the_tool_table_is_found(text: str) -> None:
    import tomllib

    assert "shmlint" in tomllib.loads(text)["tool"]  # the generator's premise: valid TOML, our table
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "pyproject.toml").write_text(text)
        assert find_config(folder) == Path(folder) / "pyproject.toml"


def test_a_project_that_only_names_shmlint_is_not_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["shmlint"]\n')
    assert find_config(tmp_path) is None


@pytest.mark.parametrize(
    "line",
    [
        "fail-on: 2020-01-01",  # YAML reads a date: not JSON, and the problem's excerpt could not show it
        "severity: {SHM001: 1979-05-27}",
        "fix-size: !!binary aGVsbG8=",
        "exclude: [1]",  # not text: the pattern cost check read it as text
        "extend-exclude: [[a]]",
        "fix-size: 8Ei",  # past any machine's memory: the fix wrote a size the check then refused
    ],
)
def test_values_of_every_kind_are_a_problem_with_a_place_never_an_internal_error(tmp_path: Path, line: str) -> None:
    (tmp_path / ".shmlint.yaml").write_text(line + "\n")
    (tmp_path / "run.sh").write_text("docker run --gpus all vllm/vllm-openai:latest --model m\n")
    done = run_shmlint("check", ".", cwd=tmp_path)
    assert done.returncode == 2 and ".shmlint.yaml:1:" in done.stderr, done.stderr
    assert "internal error" not in done.stderr
