"""The session layer: a typed request in, a report out, each result with the settings that judged it; one door for
text that was not read from its path (standard input, the editor, ``fix -``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.config_error import ConfigError
from shmlint.discover import FileKind, discover
from shmlint.engine import Engine
from shmlint.session import Options, Request, check, configure
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.text_input import Text, check_text, read_stream
from tests.support import FIXTURES

POD = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text(encoding="utf-8")
WARNED = (FIXTURES / "k8s" / "SHM003-unbounded-no-limit.yaml").read_text(encoding="utf-8")  # one warning


def test_every_option_is_a_setting_under_the_same_name() -> None:
    assert set(Options._fields) <= set(Settings._fields)
    given_ = Options(fail_on=Severity.ERROR, fix_size=2**30)
    laid = given_.over(Settings())
    assert (laid.fail_on, laid.fix_size) == (Severity.ERROR, 2**30)
    assert laid._replace(fail_on=Settings().fail_on, fix_size=Settings().fix_size) == Settings()
    assert Options().over(Settings(min_shm_size=5)) == Settings(min_shm_size=5)  # None: the configuration decides


def test_each_result_carries_the_settings_of_its_configuration(tmp_path: Path) -> None:
    """A warning fails under the default fail-on; each folder's own fail-on decides, whatever the order."""
    for team, fail_on in (("strict", "warning"), ("lenient", "error")):
        (tmp_path / team).mkdir()
        (tmp_path / team / ".shmlint.yaml").write_text(f"fail-on: {fail_on}\n")
        (tmp_path / team / "pod.yaml").write_text(WARNED)
    both = check(Request((str(tmp_path / "lenient"), str(tmp_path / "strict"))))
    by_folder = {Path(r.path).parent.name: r.settings for r in both.files}
    assert by_folder["strict"].fail_on is Severity.WARNING and by_folder["lenient"].fail_on is Severity.ERROR
    assert [f.severity for f in both.findings] == [Severity.WARNING, Severity.WARNING]
    assert both.failed_by_file()
    assert not check(Request((str(tmp_path / "lenient"),))).failed_by_file()


def test_shown_files_keep_their_text_so_nothing_is_read_again(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    shown = check(Request((str(tmp_path),), options=Options(show_source=True, undecided="show")))
    plain = check(Request((str(tmp_path),), options=Options(undecided="show")))
    assert [r.source is not None for r in shown.files if r.findings] == [True]
    assert all(r.source is None for r in plain.files)


def test_standard_input_is_checked_as_a_file_of_its_name(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    options = Options(undecided="show")
    from_file = check(Request((str(tmp_path / "pod.yaml"),), options=options)).findings
    request = Request(stdin_name=str(tmp_path / "pod.yaml"), stdin=io.BytesIO(POD.encode()), options=options)
    from_stdin = check(request).findings
    assert [(f.code, f.span, f.message) for f in from_stdin] == [(f.code, f.span, f.message) for f in from_file]


def test_the_door_refuses_what_a_file_read_would_refuse() -> None:
    engine = Engine(Settings(max_file_size=64))
    big = check_text(engine, Text("pod.yaml", "a: 1\n" * 20))
    assert big.source is None and "above the limit of 64 (max-file-size)" in big.result.findings[0].message
    streamed = check_text(engine, read_stream(io.BytesIO(b"x" * 1000), "-", 64))
    assert "standard input is above the limit of 64 bytes" in streamed.result.findings[0].message
    for data in ("a: 1\0", b"a: 1\0"):
        binary = check_text(Engine(Settings()), Text("pod.yaml", data))
        assert binary.result.findings[0].message == "binary file (NUL byte at offset 4)"
    assert check_text(engine, Text("notes.txt", "x", fallback=None)).kind is None  # not a file shmlint reads
    assert check_text(engine, Text("-", "kind: Pod\n")).kind is FileKind.YAML  # stdin's fallback


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(p for p in (FIXTURES / "k8s").glob("SHM*.yaml"))), st.booleans())
def test_the_door_agrees_with_a_file_read(path: Path, as_bytes: bool) -> None:
    """Bytes as read from a stream, or an editor's text: the same result as checking the file."""
    engine = Engine(Settings(undecided="show"))
    (candidate,) = discover([path])
    data = path.read_bytes()
    text = Text(str(path), data if as_bytes else data.decode("utf-8"))
    assert check_text(engine, text).result == engine.check_candidate(candidate)


def test_a_configured_fix_size_below_the_minimum_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("fix-size: 512Mi\n")
    with pytest.raises(ConfigError, match="fix-size: the fix size 512Mi is below min-shm-size 1Gi"):
        configure((str(tmp_path),), None, Options())
    ((given_size, _),) = configure((str(tmp_path),), None, Options(fix_size=2**28))  # the command line's request
    assert given_size.fix_size == 2**28
