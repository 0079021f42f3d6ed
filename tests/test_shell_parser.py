"""The shell tokenizer: which commands a text holds, their words, and where each word is."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.parsers.shell import BLOCK_END, MAX_DEPTH, Word, commands, first_unclosed, here_documents, top_level


def texts(source: str) -> list[list[str]]:
    return [[word.text for word in command.words] for command in commands(source)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("docker run --gpus all img", [["docker", "run", "--gpus", "all", "img"]]),
        ("a; b && c || d | e & f\ng", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]),
        ("echo 'it''s' \"a b\" c\\ d", [["echo", "its", "a b", "c d"]]),
        ('echo "docker run --gpus all x"', [["echo", "docker run --gpus all x"]]),
        ('echo "q: \\" \\$ \\\\ \\x"', [["echo", 'q: " $ \\ \\x']]),
        ("docker run \\\n  --rm \\\n\t\t--ipc=host img", [["docker", "run", "--rm", "--ipc=host", "img"]]),
        ("docker run \\  \n\t--rm img", [["docker", "run", "--rm", "img"]]),  # blanks after the backslash
        (
            "docker run --gpus=all \\ # note\n--shm-size=1g img",
            [["docker", "run", "--gpus=all", " #", "note"], ["--shm-size=1g", "img"]],
        ),
        ("docker run img # --shm-size=1g\nls", [["docker", "run", "img"], ["ls"]]),
        ("a#b c", [["a#b", "c"]]),
        (
            "if [ -x y ]; then docker run a; else podman run b; fi",
            [["[", "-x", "y", "]"], ["docker", "run", "a"], ["podman", "run", "b"]],
        ),
        ("while true; do docker run a; done", [["true"], ["docker", "run", "a"]]),
        ("for i in 1 2; do run $i; done", [["for", "i", "in", "1", "2"], ["run", "$i"]]),
        (
            "case $1 in start) docker run a;; stop) docker stop a;; esac",
            [["case", "$1", "in"], ["docker", "run", "a"], ["docker", "stop", "a"]],
        ),  # a clause's patterns are no commands (audit79a: ``./.env|./data/*)`` read as programs not found)
        (
            "case $x in\n  a) run a ;;\n\v\nrun b",  # a document's block shows a case in part: it ends with the block
            [["case", "$x", "in"], ["run", "a"], ["run", "b"]],
        ),
        (
            "case $x in\n  (a|b*) run a ;;\n  *) case $y in c) run c;; esac ;;\nesac\nrun d",
            [["case", "$x", "in"], ["run", "a"], ["case", "$y", "in"], ["run", "c"], ["run", "d"]],
        ),
        ("( cd x && docker run a )", [["cd", "x"], ["docker", "run", "a"]]),
        ("{ docker run a; }", [["docker", "run", "a"]]),
        ("f() { docker run a; }", [["f"], ["docker", "run", "a"]]),
        ("cat <<EOF\ndocker run --gpus all x\nEOF\nls", [["cat"], ["ls"]]),
        ("cat <<-'END' > f\n\tdocker run x\n\tEND\nls", [["cat"], ["ls"]]),
        ("docker run img 2>&1 | tee log", [["docker", "run", "img"], ["tee", "log"]]),
        ("docker run img >/dev/null 2>/dev/null </dev/null", [["docker", "run", "img"]]),
        ("docker run img &> log", [["docker", "run", "img"]]),
        ("sudo -E docker run a", [["sudo", "-E", "docker", "run", "a"]]),
        ("FOO=1 env -u X docker run a", [["FOO=1", "env", "-u", "X", "docker", "run", "a"]]),
        ("x 'unterminated", [["x", "unterminated"]]),
        ('x "unterminated $(y', [["x", "unterminated $(y"], ["y"]]),
        ("echo $'a\\tb'", [["echo", "a\tb"]]),
        ("(( i++ )); ls", [["ls"]]),
    ],
)
def test_words(source: str, expected: list[list[str]]) -> None:
    assert texts(source) == expected


def test_command_substitution_yields_its_commands_with_offsets() -> None:
    source = "DIR=$(cd $(dirname $0); pwd)\nID=$(docker run -d --gpus all img)"
    found = list(commands(source))
    assert [[w.text for w in c.words] for c in found] == [
        ["DIR=$(cd $(dirname $0); pwd)"],
        ["cd", "$(dirname $0)"],
        ["dirname", "$0"],
        ["pwd"],
        ["ID=$(docker run -d --gpus all img)"],
        ["docker", "run", "-d", "--gpus", "all", "img"],
    ]
    docker = found[-1].words[0]
    assert source[docker.start : docker.end] == "docker"
    assert found[4].words[0].dynamic


def test_backticks_and_process_substitution_are_commands_too() -> None:
    assert texts("IMAGE=`docker build . | awk '{print $3}'`") == [
        ["IMAGE=`docker build . | awk '{print $3}'`"],
        ["docker", "build", "."],
        ["awk", "{print $3}"],
    ]
    assert texts("diff <(docker run a) b")[1] == ["docker", "run", "a"]


def test_make_escaped_substitution_is_read_as_one() -> None:
    assert texts("docker run -v $$(pwd):/d img") == [["docker", "run", "-v", "$$(pwd):/d", "img"], ["pwd"]]


@pytest.mark.parametrize(
    ("source", "dynamic", "splat"),
    [
        ("plain", False, False),
        ("'$X'", False, False),
        ("\\$X", False, False),
        ("$X", True, True),
        ("${X}", True, True),
        ("${X:-a b}", True, True),
        ('"$X"', True, False),
        ('"${X}"', True, False),
        ('"${A[@]}"', True, True),
        ('"${A[*]}"', True, False),
        ('"$@"', True, True),
        ('"$*"', True, False),
        ("$@", True, True),
        ("$1", True, True),
        ("$(pwd)", True, True),
        ('"$(pwd)"', True, False),
        ("`pwd`", True, False),
        ("--net=$NET", True, True),
        ("$", False, False),
    ],
)
def test_dynamic_and_splat(source: str, dynamic: bool, splat: bool) -> None:
    (command,) = [c for c in commands(source) if c.words[0].start == 0]
    (word,) = command.words
    assert (word.dynamic, word.splat) == (dynamic, splat)


def test_offsets_are_those_of_the_raw_word() -> None:
    source = "  docker  run \\\n  -e 'A=1' \"$B\" --x=y"
    words = next(commands(source)).words
    assert [(w.text, source[w.start : w.end]) for w in words] == [
        ("docker", "docker"),
        ("run", "run"),
        ("-e", "-e"),
        ("A=1", "'A=1'"),
        ("$B", '"$B"'),
        ("--x=y", "--x=y"),
    ]


def test_crlf_line_endings() -> None:
    assert texts("docker run \\\r\n  --rm img\r\nls\r\n") == [["docker", "run", "--rm", "img"], ["ls"]]


@pytest.mark.parametrize(
    "source",
    [
        "a " * 50_000,
        "x" * 100_000,
        "$(" * 50_000,
        "`" * 100_000,
        "${" * 50_000,
        "\\" * 100_000,
        '"' + "$a" * 50_000,
        "'" * 100_000,
        "(" * 100_000,
        ")" * 100_000,
        "<<A\n" * 25_000,
        "docker run " + "-v a:b " * 14_000,
        "\u00a0" * 100_000,
    ],
    ids=lambda s: repr(s[:6]),
)
def test_long_lines_are_read(source: str) -> None:
    """Quadratic work would take minutes here (bench/bounds.py times these lines)."""
    assert all(0 <= word.start <= word.end <= len(source) for command in commands(source) for word in command.words)


def test_deep_nesting_does_not_recurse_without_bound() -> None:
    source = "$(" * (MAX_DEPTH * 5) + "docker run x" + ")" * (MAX_DEPTH * 5)
    found = list(commands(source))
    assert found and all(w.end <= len(source) for c in found for w in c.words)


_PIECES = st.sampled_from(
    [
        "a",
        "b1",
        " ",
        "\t",
        "\n",
        "\\",
        "\\\n",
        "'",
        '"',
        "$",
        "$(",
        "${",
        "$((",
        "`",
        "(",
        ")",
        "{",
        "}",
        ";",
        "&",
        "|",
        "<",
        ">",
        "<<",
        "<<-",
        "EOF",
        "#",
        "=",
        "-",
        "--x",
        "[@]",
        "@",
        "*",
        "if",
        "then",
        "case",
        "esac",
        "in",
        "\r",
        "\u00a0",
        "é",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_never_raises_and_offsets_are_in_bounds(source: str) -> None:
    for command in commands(source):
        assert command.words
        for word in command.words:
            assert isinstance(word, Word)
            assert 0 <= word.start <= word.end <= len(source)
            raw = source[word.start : word.end]
            if not any(c in raw for c in "\\'\"$`"):
                assert word.text == raw


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_any_text(source: str) -> None:
    for command in commands(source):
        for word in command.words:
            assert 0 <= word.start <= word.end <= len(source)


_BODY_LINES = st.lists(st.from_regex(r"[ a-z:{}$\t-]{0,20}", fullmatch=True).filter(lambda s: s != "EOF"), max_size=8)


@settings(max_examples=80, deadline=None)
@given(_BODY_LINES, _BODY_LINES, st.sampled_from(["EOF", "'EOF'", '"EOF"', "\\EOF"]))
def test_here_document_bodies_are_where_bash_reads_them(first: list[str], second: list[str], delimiter: str) -> None:
    """Each body runs from the line after its command to its delimiter line (excluded), quoted delimiter or not;
    two on one line follow each other; their words are never commands."""
    one, two = "".join(f"{line}\n" for line in first), "".join(f"{line}\n" for line in second)
    text = f"cat <<{delimiter} | kubectl apply -f - && cat <<X\n{one}EOF\n{two}X\necho done\n"
    bodies = here_documents(text)
    assert [text[b.start : b.end] for b in bodies] == [one, two]
    assert [c.words[0].text for c in commands(text)] == ["cat", "kubectl", "cat", "echo"]


def test_a_here_document_that_strips_tabs_and_one_left_open() -> None:
    text = "cat <<-END\n\tkind: Pod\n\tEND\ncat <<OPEN\nimage: x\n"
    stripped, unterminated = here_documents(text)
    assert stripped.strips_tabs and text[stripped.start : stripped.end] == "\tkind: Pod\n"
    assert not unterminated.strips_tabs and text[unterminated.start : unterminated.end] == "image: x\n"


def test_an_indented_delimiter_ends_a_here_document_only_in_documentation_blocks() -> None:
    """In a script, bash ends a body at its delimiter alone (an indented ``EOF`` inside a function's body is text);
    in a document's indented code block the block's indentation is not the shell's, so it ends there."""
    text = "f() {\n    cat > notes <<EOF\n    EOF\n    more text\nEOF\n}\ndocker run x\n"
    (script,) = here_documents(text)
    assert text[script.start : script.end] == "    EOF\n    more text\n"
    assert [c.words[0].text for c in commands(text)] == ["f", "cat", "docker"]
    block = "   cat <<EOF\n   kind: Pod\n   EOF\n   docker run x\n"
    (documented,) = here_documents(block, in_blocks=True)
    assert block[documented.start : documented.end] == "   kind: Pod\n"


@pytest.mark.parametrize(
    ("source", "opener"),
    [
        ("echo 'ok' \"ok\" $(ok) `ok` ${ok} $((1)) $'ok'\ncat <<EOF\nbody\nEOF\n", None),
        ("n=50'000 \\\n  more", "'"),
        ('echo "it is', '"'),
        ("echo $(date", "$("),
        ("echo `date", "`"),
        ("echo ${HOME", "{"),
        ("echo $'x", "$'"),
        ("cat <<EOF\nkind: Pod\n", None),  # a document's block ends it (BLOCK_END)
        ("cat <<EOF > env.sh \\", "<<"),  # its line never ends: it goes on past the block's end
        ('x="$(foo" bar', '"'),
        ("echo $'a\\'", "$'"),  # the quote after the backslash is escaped
        ("ARGS=(--gpus all", "("),  # an array never closed
        ("(cd build && make", "("),
        ("ARGS=(a b)\n(cd x; ls)\ncase x in (a) echo;; esac", None),
        ("x=`foo #bar`\ny=`date`", None),  # bash finds the closing backtick before the comment inside
        ("x=`a \\`b #c\\` d`\necho end", None),  # an escaped backtick does not close it
    ],
)
def test_first_unclosed_names_the_construct_the_text_ends_inside(source: str, opener: str | None) -> None:
    found = first_unclosed(source)
    assert (source[found[0] : found[0] + found[1]] if found else None) == opener


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_text_that_closes_everything_leaves_the_next_line_alone(source: str) -> None:
    """What ``first_unclosed`` promises its callers (documentation blocks read on their own): when it finds
    nothing open, a command written after the text is read as written; blanking what it finds, eight times at
    most, gets there or says so again."""
    after = f"\n\n{BLOCK_END}\necho end\n"  # where a document's block ends, as the mask marks it
    if first_unclosed(source, in_blocks=True) is None:
        assert [w.text for w in list(commands(source + after, in_blocks=True))[-1].words] == ["echo", "end"]
    chars = list(source)
    for _ in range(len(source) + 1):
        found = first_unclosed("".join(chars), in_blocks=True)
        if found is None:
            break
        chars[found[0] : found[0] + found[1]] = " " * found[1]
    assert first_unclosed("".join(chars), in_blocks=True) is None


def test_a_comment_inside_backticks_ends_at_the_closing_backtick() -> None:
    assert [[w.text for w in c.words] for c in commands("x=`foo #bar`\ny=`date`\n")] == [
        ["x=`foo #bar`"],
        ["foo"],
        ["y=`date`"],
        ["date"],
    ]


def test_a_block_end_ends_every_here_document_waiting() -> None:
    """``BLOCK_END`` (the mask's mark after a documentation block) ends the bodies still open and is blank; in a
    script it is text like any other, as bash reads it."""
    text = f"cat <<A <<B\nkind: Pod\n{BLOCK_END}\necho end\n"
    first, second = here_documents(text, in_blocks=True)
    assert text[first.start : first.end] == "kind: Pod\n" and first.end == second.start == second.end
    assert [[w.text for w in c.words] for c in commands(text, in_blocks=True)] == [["cat"], ["echo", "end"]]
    assert [[w.text for w in c.words] for c in commands(text)] == [["cat"]]


@pytest.mark.parametrize(
    ("text", "top"),
    [
        ("docker run img > $(mktemp)", [["docker", "run", "img"]]),  # a redirect's substitution
        ('A=(-v "$(pwd)":/w `id -u`)', [["A="], ["-v", "$(pwd):/w", "`id -u`"]]),
        ("x=$(a $(b) `c`); d", [["x=$(a $(b) `c`)"], ["d"]]),
    ],
)
def test_top_level_commands_are_those_no_substitution_holds(text: str, top: list[list[str]]) -> None:
    """Commands inside ``$( )`` and backticks are commands of the text too (``commands``), but not words of the
    command around them: ``top_level`` leaves them out, wherever the substitution stands."""
    assert [[word.text for word in command.words] for command in top_level(commands(text))] == top
    assert len(list(commands(text))) > len(top)
