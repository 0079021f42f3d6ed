"""PowerShell and cmd scripts read as the POSIX shell they map to character for character: offsets and lines are
the file's own, and a ``docker run`` split over lines with each shell's escape is read as the same run written for
``sh``."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, kind_for_name
from shmlint.engine import Engine
from shmlint.parsers.embedded.windows_scripts import batch_as_shell, powershell_as_shell
from shmlint.settings import Settings
from shmlint.source import SourceText

ENGINE = Engine(Settings())


def findings(name: str, text: str) -> list[tuple[str, int, str]]:
    kind = kind_for_name(name)
    assert kind is not None, name
    result = ENGINE.check_source(SourceText(name, text), kind, Path(name))
    return [(f.code, f.span.line, f.severity.name.lower()) for f in result.findings]


def test_every_name_the_hooks_tags_take_is_read_as_a_windows_script() -> None:
    """The pre-commit hooks take identify's ``powershell`` and ``batch`` tags: each such name is read as its
    script (a ``.psd1`` module manifest read as YAML could fail the gate as SHM000)."""
    from identify import identify

    for name, kind in (
        ("train.ps1", FileKind.POWERSHELL),
        ("Train.psm1", FileKind.POWERSHELL),
        ("Train.psd1", FileKind.POWERSHELL),
        ("TRAIN.BAT", FileKind.BATCH),
        ("run.cmd", FileKind.BATCH),
    ):
        assert identify.tags_from_filename(name.lower()) & {"powershell", "batch"}, name
        assert kind_for_name(name) is kind, name


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab `^%!~@&#<>'\"\\\r\n\x0b\x85\u2028:$-=1()rREMmif")), max_size=300))
def test_the_masks_keep_every_offset_and_line_break(text: str) -> None:
    for as_shell in (powershell_as_shell, batch_as_shell):
        masked = as_shell(text).text
        assert len(masked) == len(text)
        assert [i for i, c in enumerate(masked) if c in "\r\n"] == [i for i, c in enumerate(text) if c in "\r\n"]


OPTIONS = st.lists(
    st.sampled_from(["--rm", "--gpus all", "--shm-size=1g", "--ipc=host", "-v /data:/data", "-e A=1", "--init"]),
    max_size=5,
)
COMMANDS = st.sampled_from(["python train.py --num-workers 8", "python serve.py", "", "nvidia-smi"])


@settings(max_examples=80, deadline=None)
@given(OPTIONS, COMMANDS, st.booleans())
def test_a_run_split_with_each_shells_escape_reads_as_the_posix_one(options, command, crlf) -> None:
    """The same ``docker run`` written for sh (``\\``), PowerShell (backtick) and cmd (caret), one option a line:
    the same findings on the same lines."""
    newline = "\r\n" if crlf else "\n"
    words = ["docker run", *options, "pytorch/pytorch:2.3.0", *([command] if command else [])]
    posix = findings("run.sh", f" \\{newline}  ".join(words) + newline)
    assert findings("run.ps1", f" `{newline}  ".join(words) + newline) == posix
    assert findings("run.bat", f" ^{newline}  ".join(words) + newline) == posix


def test_what_is_not_a_command_is_not_read() -> None:
    """Comments, a here-string (data) and cmd's comment lines hold runs that never start; the call operator and the
    echo-hiding ``@`` are not words of the command."""
    ps = (
        "<#\ndocker run --gpus all pytorch/pytorch python a.py --num-workers 8\n#>\n"
        '$yaml = @"\ndocker run --gpus all pytorch/pytorch python b.py --num-workers 8\n"@\n'
        "# docker run --gpus all pytorch/pytorch python c.py --num-workers 8\n"
        "& docker run --gpus all pytorch/pytorch python d.py --num-workers 8\n"
    )
    assert findings("run.ps1", ps) == [("SHM001", 8, "error")]
    bat = (
        "REM docker run --gpus all pytorch/pytorch python a.py --num-workers 8\r\n"
        ":: docker run --gpus all pytorch/pytorch python b.py --num-workers 8\r\n"
        "@docker run --gpus all pytorch/pytorch python c.py --num-workers 8\r\n"
    )
    assert findings("run.bat", bat) == [("SHM001", 3, "error")]


def test_cmd_variables_are_values_known_when_the_script_runs() -> None:
    """``%SHM%`` and ``%1`` stand for values given at run time: a size there is not read as 64 MiB, and a path is
    no literal; ``C:\\data`` keeps its backslashes as plain characters."""
    sized = "docker run --gpus all --shm-size=%SHM% pytorch/pytorch python t.py --num-workers 8\r\n"
    assert findings("run.bat", sized) == findings("run.sh", sized.replace("%SHM%", "$SHM")) == []
    assert findings("run.bat", sized.replace("%SHM%", "32m")) == [("SHM005", 1, "warning")]  # a literal is read
    assert batch_as_shell("-v %CD%\\data:/d %1").text == "-v $CD_/data:/d $1"
    assert powershell_as_shell('-v "C:\\data:/d" `"x`"').text == '-v "C:/data:/d" \\"x\\"'


def test_a_build_written_in_a_windows_script_names_the_images_dockerfile(tmp_path: Path, invoke) -> None:
    """``docker build -f docker/Dockerfile.train -t acme/trainer:1 .`` in a PowerShell script: a manifest elsewhere
    that runs the image is judged by what that Dockerfile runs. The control: without the script, undecided."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "Dockerfile.train").write_text(
        'FROM pytorch/pytorch\nCOPY train.py /app/\nCMD ["python", "/app/train.py"]\n'
    )
    (tmp_path / "train.py").write_text("from torch.utils.data import DataLoader\nDataLoader(data, num_workers=8)\n")
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  containers:\n  - name: t\n    image: acme/trainer:1\n"
        "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    (tmp_path / "build.ps1").write_text("& docker build `\n  -f docker/Dockerfile.train `\n  -t acme/trainer:1 .\n")
    said = invoke("check", "--undecided=show", str(tmp_path)).stdout
    assert "pod.yaml:6:5: SHM001 [error]" in said and "train.py:2 DataLoader(num_workers=8)" in said, said
    script = (tmp_path / "build.ps1").read_text()
    (tmp_path / "build.ps1").write_bytes(codecs.BOM_UTF16_LE + script.encode("utf-16-le"))  # Windows PowerShell 5
    assert "pod.yaml:6:5: SHM001 [error]" in invoke("check", "--undecided=show", str(tmp_path)).stdout
    (tmp_path / "build.ps1").unlink()
    assert "pod.yaml:6:5: SHM001 [info]" in invoke("check", "--undecided=show", str(tmp_path)).stdout


def test_a_message_names_a_cmd_variable_as_the_script_writes_it() -> None:
    """``%ARGS%`` is read as the shell's ``$ARGS_``; the message names what the file says."""
    engine_result = ENGINE.check_source(
        SourceText("run.bat", "docker run %ARGS% --gpus all vllm/vllm-openai --model m -tp 2\r\n"),
        FileKind.BATCH,
        Path("run.bat"),
    )
    (finding,) = engine_result.findings
    assert "%ARGS% is unresolved" in finding.message, finding.message


REVIEWED_BAT = (
    "@echo off\r\n"
    "echo Don't close this window while training runs\r\n"  # an apostrophe is no quote in cmd
    'echo "Press Ctrl+C to stop\r\n'  # cmd closes a quote at the line's end
    'echo "^"\r\n'  # a caret in quotes is a plain character
    "docker run --gpus all pytorch/pytorch python train.py --num-workers 8\r\n"
    'if "%1"=="gpu" docker run --gpus all pytorch/pytorch python a.py --num-workers 8\r\n'
    "IF DEFINED GPU docker run --gpus all pytorch/pytorch python b.py --num-workers 8\r\n"
    "call docker run --gpus all pytorch/pytorch python c.py --num-workers 8\r\n"
    'start "" docker run --gpus all pytorch/pytorch python d.py --num-workers 8\r\n'
    "docker run --gpus all --shm-size=!SHM! pytorch/pytorch python e.py --num-workers 8\r\n"
    "for %%s in (16g) do docker run --gpus all --shm-size=%%s pytorch/pytorch python f.py --num-workers 8\r\n"
    "docker run --gpus all --shm-size=%~1 pytorch/pytorch python g.py\r\n"
    "docker run --gpus all --shm-size %SHM:~0,3% pytorch/pytorch python h.py\r\n"
    "if exist x (\r\n"
    "  docker.exe run --gpus all pytorch/pytorch python i.py --num-workers 8\r\n"
    ") else (\r\n"
    "  docker run --gpus all pytorch/pytorch python j.py --num-workers 8\r\n"
    ")\r\n"
    "REM old way:\x0b docker run --gpus all pytorch/pytorch python k.py --num-workers 8\r\n"
)


def test_cmd_quotes_prefixes_and_run_time_values_read_as_cmd_reads_them() -> None:
    """From the review: an apostrophe or a quote left open hid every later run; one-line ``if``, ``call``,
    ``start``, a block's parentheses and ``docker.exe`` hid theirs; ``!SHM!``, ``%%s``, ``%~1`` and ``%SHM:~0,3%``
    were sizes that failed the gate as SHM011; a vertical tab in a ``REM`` line split it into a command."""
    assert findings("run.bat", REVIEWED_BAT) == [("SHM001", line, "error") for line in (5, 6, 7, 8, 9, 15, 17)]


REVIEWED_PS1 = """# Usage: .\\run.ps1 <#gpus>
$containerId = docker run -d --gpus all pytorch/pytorch python a.py --num-workers 8
$null = docker run --gpus all pytorch/pytorch python b.py --num-workers 8
Write-Host "open comment with <# in a string"
Write-Host "starting @"
docker run --gpus all pytorch/pytorch python c.py --num-workers 8
$dockerArgs = @('--gpus','all','--shm-size','16g')
docker run @dockerArgs pytorch/pytorch python d.py --num-workers 8
& "C:\\Program Files\\Docker\\docker.exe" run --gpus all pytorch/pytorch python e.py --num-workers 8
docker run $env:DOCKER_ARGS --gpus all pytorch/pytorch python f.py --num-workers 8
$x = @"
docker run --gpus all pytorch/pytorch python hidden.py --num-workers 8
"@
docker run --gpus all pytorch/pytorch python g.py --num-workers 8
<# never closed
docker run --gpus all pytorch/pytorch python hidden2.py --num-workers 8
"""


def test_powershell_comments_strings_assignments_and_splats_read_as_powershell_reads_them() -> None:
    """From the review: ``<#`` in a line comment or a string opened nothing in PowerShell but hid the rest here;
    ``$id = docker run`` and ``$null = ...`` were not read; ``@args`` was taken as the image (a false error);
    ``$env:ARGS`` likewise. A block comment never closed is said in a note."""
    result = ENGINE.check_source(SourceText("run.ps1", REVIEWED_PS1), FileKind.POWERSHELL, Path("run.ps1"))
    found = [(f.code, f.span.line, f.severity.name.lower()) for f in result.findings]
    expected = [2, 3, 6, 8, 9, 10, 14]
    assert found == [("SHM001", n, "warning" if n in (8, 10) else "error") for n in expected], found
    assert [n.message for n in result.notices] == [
        "line 15: a block comment (<#) is never closed: the rest of the file is not read"
    ]


SECOND_REVIEW_PS1 = "if ($x) {# it's the GPU run\n  docker run --gpus all pytorch/pytorch python a.py --num-workers 8\n}\ndocker run --gpus all $env:IMAGE python b.py --num-workers 8\nif ($x) { docker run --gpus all myorg/trainer:1 python c.py --num-workers 8 }\n0..3 | ForEach-Object { docker run --gpus all pytorch/pytorch python d.py --num-workers 8 }\ntry { docker run --gpus all pytorch/pytorch python e.py --num-workers 8 } catch { Write-Host x }\nfunction Train { docker run --gpus all pytorch/pytorch python f.py --num-workers 8 }\nSet-Location $root; $id = docker run -d --gpus all pytorch/pytorch python g.py --num-workers 8\n[string]$id = docker run --gpus all pytorch/pytorch python h.py --num-workers 8\n${id} = docker run --gpus all pytorch/pytorch python i.py --num-workers 8\ndocker run --gpus all pytorch/pytorch python j.py --num-workers 8 *> train.log\n$h = @{# the run's settings\n  a = 1 }\ndocker run --gpus all pytorch/pytorch python k.py --num-workers 8\n"
SECOND_REVIEW_BAT = 'for /f "tokens=*" %%i in (\'docker run -d --gpus all pytorch/pytorch python a.py --num-workers 8\') do set CID=%%i\r\nstart /b "" docker run --gpus all pytorch/pytorch python b.py --num-workers 8\r\nstart /D "%~dp0" docker run --gpus all pytorch/pytorch python c.py --num-workers 8\r\necho Set ${HOME first\r\ndocker run --gpus all pytorch/pytorch python d.py --num-workers 8\r\n'


def test_blocks_comments_after_braces_scopes_and_assignments_read_as_powershell_reads_them() -> None:
    """From the second review: a comment right after ``{`` (its apostrophe) hid the rest; one-line blocks made
    ``}`` the container's command or hid the run (``ForEach-Object { }``, ``try``, ``function``); ``$env:IMAGE``
    was read as options (``ENV_``); assignments after ``;``, typed, braced or indexed were not read; ``*>`` was a
    word."""
    assert findings("run.ps1", SECOND_REVIEW_PS1) == [
        ("SHM001", n, "error") for n in (2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15)
    ]


def test_cmd_for_commands_start_options_and_dollars_read_as_cmd_reads_them() -> None:
    """From the second review: ``for /f ... in ('docker run ...')`` runs the quoted command; ``start /b ""`` and
    ``start /D "dir"`` take options before the title; a ``$`` is a plain character in cmd (``${`` hid the rest)."""
    assert findings("run.bat", SECOND_REVIEW_BAT) == [("SHM001", n, "error") for n in (1, 2, 3, 5)]
