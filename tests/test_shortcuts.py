"""The shortcuts that spare a run compiling patterns answer what the patterns answer: globs by string tests,
compose names by a word every name pattern holds, control characters by ``str.isprintable``, paths written as
pathlib writes them without loading pathlib."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import chart_root, clean_path, path_parts
from shmlint.formats.compose import COMPOSE_NAME_PATTERNS, is_compose_name
from shmlint.signals import Globs, Signals
from shmlint.visible import _UNSAFE, visible

#: glob pieces: letters, the separators of resource and device names, and fnmatch's own characters
PIECES = st.sampled_from(["a", "b", "n", "/", ".", "-", "*", "?", "[ab]", "[!a]", "nvidia.com/", "/dev/"])
GLOBS = st.lists(st.lists(PIECES, max_size=6).map("".join), max_size=4)
NAMES = st.text(st.sampled_from("abn/.-[]!*?"), max_size=12)


@given(globs=GLOBS, name=NAMES)
def test_globs_match_as_fnmatchcase(globs: list[str], name: str) -> None:
    assert Globs(globs).match(name) == any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def test_the_built_in_globs_need_no_regular_expression() -> None:
    signals = Signals()
    for globs in (signals.gpu_resources, signals.gpu_devices, signals.counted_resources):
        assert Globs(globs)._others is None  # exact names and prefix* only: answered by string tests


@given(name=st.text(st.sampled_from("composedckr-.yamlCOMPOSE"), max_size=24))
def test_compose_names_as_the_globs_say(name: str) -> None:
    assert all("compose" in pattern for pattern in COMPOSE_NAME_PATTERNS)  # what the shortcut relies on
    assert is_compose_name(name) == any(fnmatch.fnmatchcase(name.lower(), p) for p in COMPOSE_NAME_PATTERNS)


@given(text=st.text(max_size=20))
def test_visible_escapes_exactly_what_the_pattern_finds(text: str) -> None:
    expected = _UNSAFE.sub(lambda m: visible(m.group(0)), text) if _UNSAFE.search(text) else text
    assert visible(text) == expected
    assert (visible(text) == text) == (_UNSAFE.search(text) is None)


@given(path=st.lists(st.sampled_from(["a", "b", "/", ".", ".."]), max_size=12).map("".join))
def test_clean_path_writes_a_path_as_pathlib_does(path: str) -> None:
    expected = str(PurePosixPath(path)) if not path.startswith("//") or path.startswith("///") else None
    if expected is not None:  # pathlib keeps exactly two leading slashes (a POSIX special case shmlint never sees)
        assert clean_path(path) == expected
        assert path_parts(clean_path(path)) == [p for p in PurePosixPath(path).parts if p != "/"]


def test_chart_root_finds_the_chart_above_a_template(tmp_path, monkeypatch) -> None:
    chart = tmp_path / "charts" / "trainer"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("name: trainer\n", encoding="utf-8")
    assert chart_root(str(chart / "templates" / "job.yaml")) == str(chart)
    assert chart_root(str(tmp_path / "other.yaml")) is None  # the control: no chart above
    monkeypatch.chdir(chart)
    assert chart_root("templates/job.yaml") == "."  # a relative path reaches the current folder, as Path.parents do
