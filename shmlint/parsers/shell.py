"""A POSIX/bash tokenizer that finds simple commands and their words, with offsets into the input.

It reads enough of the grammar to know where a command starts and which words it has: quoting, escapes, line
continuations, comments, operators, reserved words, heredocs and substitutions (whose inner commands are commands
too). It never evaluates anything and never raises: unterminated constructs end at the end of the input. Every
character is consumed once, so time is linear in the input; nesting deeper than ``MAX_DEPTH`` is skipped as an
opaque word instead of recursing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

#: substitutions nested deeper than this are skipped, not parsed: keeps the recursion far from Python's limit
MAX_DEPTH = 40
#: where a documentation code block ends, written by the mask (``shmlint.parsers.embedded.shell_blocks``, which
#: blanks any the blocks hold) at the start of the line after it: blank to the tokenizer, it ends a here-document
#: whose delimiter the block does not show, as the block's end does for its reader (``in_blocks`` only)
BLOCK_END = "\v"

#: reserved words that only introduce or close a compound command: the next word starts a simple command
_SKIPPED_RESERVED = frozenset(
    ["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time"]
)

_PLAIN = LazyRegex(r"[^\s;&|()<>\\'\"$`]+")
_QUOTED_PLAIN = LazyRegex(r'[^"\\$`]+')
_BLANKS = LazyRegex(r"[^\S\n]+")
_CONTINUATION = LazyRegex(r"\\[ \t]*\r?\n")  # trailing blanks after the backslash are an invisible slip
_REDIRECT = LazyRegex(r"<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>")
_NAME = LazyRegex(r"[A-Za-z_][A-Za-z0-9_]*")
_ARRAY_ALL = LazyRegex(r"!?[A-Za-z_0-9]*\[@\]|@")
_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v"}


@dataclass(frozen=True)
class Word:
    """One shell word: its value after quote removal, and where its raw text is in the input."""

    text: str  # expansions are kept literally: ``$X``, ``${X:-a}``, ``$(pwd)``
    start: int
    end: int
    dynamic: bool = False  # holds an expansion or substitution: the value is only known at run time
    splat: bool = False  # may expand into several words (unquoted ``$X``, ``"${A[@]}"``, ``$@``): could carry flags


@dataclass(frozen=True)
class SimpleCommand:
    """The words of one shell command, each with its offsets in the file, and how many command substitutions hold
    it (0: a command of the text itself)."""

    words: tuple[Word, ...]
    depth: int = 0


@dataclass(frozen=True)
class HereDocument:
    """Where a here-document's body is in the input (its delimiter line excluded), whether its lines lose their
    leading tabs (``<<-``), and whether the shell expands it (an unquoted delimiter: ``$X`` and ``\\$`` are
    expansions and escapes, not text)."""

    start: int
    end: int
    strips_tabs: bool
    expands: bool


def here_documents(text: str, *, in_blocks: bool = False) -> list[HereDocument]:
    """The bodies of the here-documents in ``text``, in order (also those of commands inside substitutions).
    ``in_blocks``: the text is a document's indented code blocks (masked), where a delimiter indented as the line
    that opens it ends the body, as it does once the block's indentation is gone; a script ends one only at its
    delimiter, as bash does."""
    lexer = _Lexer(text, in_blocks)
    lexer.parse_list(None, 0)
    return sorted(lexer.bodies, key=lambda body: body.start)


def commands(text: str, *, in_blocks: bool = False) -> Iterator[SimpleCommand]:
    """Every simple command in ``text``, including those inside substitutions, in order of their first word
    (``in_blocks``: a document's indented code blocks, as for ``here_documents``)."""
    lexer = _Lexer(text, in_blocks)
    lexer.parse_list(None, 0)
    return iter(sorted(lexer.found, key=lambda command: command.words[0].start))


def top_level(found: Iterable[SimpleCommand]) -> Iterator[SimpleCommand]:
    """The commands of ``commands`` output that no command substitution holds: ``-v $(pwd):/w`` is one word of its
    command, and the ``pwd`` inside it is not a command of the text's (nor ``mktemp`` in ``> $(mktemp)``)."""
    return (command for command in found if command.depth == 0)


def first_unclosed(text: str, *, in_blocks: bool = False) -> tuple[int, int] | None:
    """Where the first construct that ``text`` leaves open starts, and how long its opener is (a quote, ``$(``,
    ``${``, ``$'``, a backtick, a subshell's or an array's ``(``): the rest of the text is inside it, and so would be whatever text came after.
    None when every construct closes (``in_blocks``: as for ``here_documents``). A here-document left open is
    not one: in a document its block's end (``BLOCK_END``) ends it, unless its line never ends (``<<EOF \\`` last
    in a block goes on into the line after the block)."""
    lexer = _Lexer(text, in_blocks)
    lexer.parse_list(None, 0)
    unclosed = lexer.unclosed + [(pending[-1], 2) for pending in lexer.heredocs]
    return min(unclosed) if unclosed else None


class ArrayItems(NamedTuple):
    """An array assignment's items (None when the text ends before its ``)``) and the offset of that ``)``, up to
    which the commands the tokenizer makes of its words belong to it."""

    items: tuple[Word, ...] | None
    end: int


def array_items(text: str, word: Word, rest: Iterable[SimpleCommand]) -> ArrayItems | None:
    """``NAME=(a b c)``: the tokenizer reads ``NAME=`` and then the parenthesised words as a command of their own;
    those words (from ``rest``, the commands after ``word``'s, read only as far as the array goes) and where the
    array ends, when ``(`` follows the ``=``: at the first ``)`` outside a word and a comment (``"a)b"``,
    ``"$(pwd)"`` and ``# see (this)`` hold one that is not the array's)."""
    if text[word.end : word.end + 1] != "(":
        return None
    items: list[Word] = []
    at = word.end + 1
    for command in top_level(rest):
        for item in command.words:
            close = _close_between(text, at, item.start)
            if close != -1:
                return ArrayItems(tuple(items), close)
            items.append(item)
            at = item.end
    close = _close_between(text, at, len(text))
    return ArrayItems(tuple(items), close) if close != -1 else ArrayItems(None, len(text))


def _close_between(text: str, start: int, end: int) -> int:
    """The first ``)`` between two words (``start`` to ``end``) that no comment holds, or -1."""
    at = start
    while at < end:
        close = text.find(")", at, end)
        comment = text.find("#", at, end)
        if comment != -1 and (close == -1 or comment < close) and (comment == 0 or text[comment - 1] in " \t\n("):
            line_end = text.find("\n", comment, end)
            if line_end == -1:
                return -1
            at = line_end
            continue
        return close
    return -1


#: a whole word that defaults from the environment: ``${NAME:-default}`` (or ``${NAME-default}``)
_DEFAULTED = LazyRegex(r"\$\{([A-Za-z_][A-Za-z0-9_]{0,63}):?-([^${}`]{1,512})\}")


def environment_default(text: str) -> tuple[str, str] | None:
    """The name and the default of a word that is only ``${NAME:-default}`` (quotes around the default dropped),
    as the shell and compose give it where the environment does not set ``NAME``; None for any other word."""
    found = _DEFAULTED.fullmatch(text)
    if found is None:
        return None
    default = found.group(2)
    quoted = len(default) > 1 and default[0] == default[-1] and default[0] in "\"'"
    return found.group(1), default[1:-1] if quoted else default


def is_unquoted_literal(word: Word, text: str) -> bool:
    """True when the word was written without quotes, escapes or expansions (so it can be a reserved word)."""
    return not word.dynamic and text[word.start : word.end] == word.text


def _at_process_substitution(text: str, pos: int) -> bool:
    return text.startswith(("<(", ">("), pos)


class _Cursor:
    """The text and the position in it, with the scans that only move over characters (quoted strings, balanced
    brackets, here-document bodies); ``_Lexer`` reads the grammar on top of it."""

    def __init__(self, text: str, in_blocks: bool = False) -> None:
        self.text = text
        self.n = len(text)
        self.pos = 0
        self.in_blocks = in_blocks  # indented documentation blocks (``here_documents``)
        #: (delimiter, strip leading tabs, expands: the delimiter is unquoted, the indentation of the line that
        #: opens it, where its ``<<`` is) waiting for the next newline
        self.heredocs: list[tuple[str, bool, bool, str, int]] = []
        self.bodies: list[HereDocument] = []  # the here-documents passed, in order
        #: (start, opener length) of each construct the input ended inside (``first_unclosed``)
        self.unclosed: list[tuple[int, int]] = []

    def _skip_heredoc_bodies(self) -> None:
        text = self.text
        for delimiter, strip_tabs, expands, indent, _ in self.heredocs:
            start = end = self.pos
            while self.pos < self.n:
                newline = text.find("\n", self.pos)
                end = self.n if newline == -1 else newline
                line = text[self.pos : end].rstrip("\r")
                line_start, self.pos = self.pos, min(self.n, end + 1)
                if self.in_blocks and line.startswith(BLOCK_END):  # not consumed: it ends every body waiting
                    self.pos = end = line_start
                    break
                if (line.lstrip("\t") if strip_tabs else line) == delimiter or (
                    self.in_blocks and indent and line == indent + delimiter
                ):
                    end = line_start
                    break
                end = self.pos
            self.bodies.append(HereDocument(start, end, strip_tabs, expands))
        self.heredocs.clear()

    def _closing_backtick(self, end: int) -> int:
        """The first backtick from pos to ``end`` that no backslash escapes, or ``end``."""
        text, at = self.text, self.pos
        while (tick := text.find("`", at, end)) != -1:
            escapes = tick - len(text[at:tick].rstrip("\\")) - at
            if escapes % 2 == 0:
                return tick
            at = tick + 1
        return end

    def _ansi_c(self) -> str:
        """``$'...'`` with the quote at pos: backslash escapes decoded, the rest literal."""
        text, opened_at = self.text, self.pos - 1
        self.pos += 1
        out: list[str] = []
        while self.pos < self.n and text[self.pos] != "'":
            if text[self.pos] == "\\" and self.pos + 1 < self.n:
                escaped = text[self.pos + 1]
                out.append(_ANSI_ESCAPES.get(escaped, escaped))
                self.pos += 2
            else:
                out.append(text[self.pos])
                self.pos += 1
        if self.pos >= self.n:  # no closing quote (``$'a\'``: that one is escaped)
            self.unclosed.append((opened_at, 2))
        self.pos += 1
        return "".join(out)

    def _skip_balanced(self, open_at: int, opener: str, closer: str, quoted: bool) -> int:
        """Offset just past the closer matching the opener at ``open_at``; quotes and escapes are skipped."""
        text, pos, level = self.text, open_at + 1, 1
        while pos < self.n:
            c = text[pos]
            if c == "\\":
                pos += 2
                continue
            if c == opener:
                level += 1
            elif c == closer:
                level -= 1
                if level == 0:
                    return pos + 1
            elif c in "'\"" and not (quoted and c == "'"):
                close = text.find(c, pos + 1)
                pos = self.n if close == -1 else close
            pos += 1
        self.unclosed.append((open_at, 1))
        return self.n


class _Lexer(_Cursor):
    def __init__(self, text: str, in_blocks: bool = False) -> None:
        super().__init__(text, in_blocks)
        self.found: list[SimpleCommand] = []

    # -- command lists -------------------------------------------------------------------------------------------

    def parse_list(self, stop: str | None, depth: int) -> bool:
        """Read commands until ``stop`` (``)`` or a backtick) closes this context, or the input ends; whether
        ``stop`` closed it."""
        text = self.text
        words: list[Word] = []
        case_depth = 0
        patterns = False  # after ``case WORD in`` or a clause's ``;;``: a clause's patterns, up to its ``)``
        opened: list[int] = []  # where each ``(`` still open is (a subshell, an array)
        in_array = False  # ``NAME=(a do b)``: an array's items are words, never reserved words
        while self.pos < self.n:
            c = text[self.pos]
            if c == BLOCK_END:  # a document's block ends: a ``case`` it shows in part ends there too (the review)
                case_depth, patterns = 0, False
            blanks = _BLANKS.match(text, self.pos)
            if blanks:
                self.pos = blanks.end()
                continue
            continuation = _CONTINUATION.match(text, self.pos)
            if continuation:
                self.pos = continuation.end()
                continue
            if c == "\n":
                self._finish(words, depth)
                self.pos += 1
                self._skip_heredoc_bodies()
            elif c == "#":
                newline = text.find("\n", self.pos)
                end = self.n if newline == -1 else newline
                if stop == "`":  # bash finds the closing backtick before it reads a comment inside
                    end = self._closing_backtick(end)
                self.pos = end
            elif c == "`" and stop == "`":
                self.pos += 1
                self._finish(words, depth)
                return True
            elif patterns and c in "()|":  # ``(./.env|./data/*)``: patterns are no commands
                self.pos += 1
                patterns = c != ")"
            elif c == ")":
                self.pos += 1
                in_array = False
                self._finish(words, depth)
                if opened:
                    opened.pop()
                elif not case_depth and stop == ")":
                    return True
            elif c == "(":
                in_array = bool(words) and words[-1].end == self.pos and words[-1].text.endswith("=")
                self._finish(words, depth)
                if text.startswith("((", self.pos):
                    self.pos = self._skip_balanced(self.pos, "(", ")", quoted=False)
                else:
                    opened.append(self.pos)
                    self.pos += 1
            elif c in "<>&" and not _at_process_substitution(text, self.pos) and _REDIRECT.match(text, self.pos):
                self._redirect(words, depth, stop)
            elif c in ";&|":
                self._finish(words, depth)
                clause_end = ";;&" if text.startswith(";;&", self.pos) else text[self.pos : self.pos + 2]
                if case_depth and clause_end in (";;", ";&", ";;&"):  # the next clause's patterns follow
                    patterns = True
                    self.pos += len(clause_end)
                else:
                    self.pos += 1
            else:
                word = self._word(depth, stop)
                if word.end == word.start:  # a character no branch takes: step over it rather than loop
                    self.pos += 1
                    continue
                if patterns:
                    if word.text == "esac" and is_unquoted_literal(word, text):
                        case_depth, patterns = max(0, case_depth - 1), False
                    continue
                if len(words) == 2 and words[0].text == "case" and word.text == "in":
                    words.append(word)
                    self._finish(words, depth)
                    patterns = True
                elif words or in_array or not is_unquoted_literal(word, text):
                    words.append(word)
                elif word.text == "case":
                    case_depth += 1
                    words.append(word)
                elif word.text == "esac":
                    case_depth = max(0, case_depth - 1)
                elif word.text not in _SKIPPED_RESERVED:
                    words.append(word)
        self._finish(words, depth)
        self.unclosed.extend((at, 1) for at in opened[:1])  # ``ARGS=(--gpus all`` never closed
        return False

    def _finish(self, words: list[Word], depth: int) -> None:
        if words:
            self.found.append(SimpleCommand(tuple(words), depth))
            words.clear()

    def _redirect(self, words: list[Word], depth: int, stop: str | None) -> None:
        """Consume a redirection and its target; neither is a word of the command."""
        text = self.text
        operator = _REDIRECT.match(text, self.pos)
        if operator is None:
            return
        if words and words[-1].end == self.pos and words[-1].text.isdigit() and is_unquoted_literal(words[-1], text):
            words.pop()  # ``2>``: the digits are the file descriptor, not an argument
        self.pos = operator.end()
        while self.pos < self.n:
            blanks = _BLANKS.match(text, self.pos) or _CONTINUATION.match(text, self.pos)
            if not blanks:
                break
            self.pos = blanks.end()
        at_end = self.pos >= self.n or (stop == "`" and text[self.pos] == "`")
        if at_end or (text[self.pos] in "\n;&|()<>" and not _at_process_substitution(text, self.pos)):
            return
        target = self._word(depth, stop)
        if operator.group() in ("<<", "<<-"):
            expands = is_unquoted_literal(target, text)
            line = text[text.rfind("\n", 0, operator.start()) + 1 : operator.start()]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            self.heredocs.append((target.text, operator.group() == "<<-", expands, indent, operator.start()))

    # -- words ---------------------------------------------------------------------------------------------------

    def _word(self, depth: int, stop: str | None) -> Word:
        text, start = self.text, self.pos
        parts: list[str] = []
        dynamic = splat = False
        while self.pos < self.n:
            c = text[self.pos]
            plain = _PLAIN.match(text, self.pos)
            if plain:
                parts.append(plain.group())
                self.pos = plain.end()
            elif c == "\\":
                continuation = _CONTINUATION.match(text, self.pos)
                if continuation:
                    self.pos = continuation.end()
                else:
                    parts.append(text[self.pos + 1 : self.pos + 2])
                    self.pos += 2
            elif c == "'":
                close = text.find("'", self.pos + 1)
                if close == -1:
                    self.unclosed.append((self.pos, 1))
                    close = self.n
                parts.append(text[self.pos + 1 : close])
                self.pos = close + 1
            elif c == '"':
                self.pos += 1
                inner_dynamic, inner_splat = self._double_quoted(parts, depth)
                dynamic, splat = dynamic or inner_dynamic, splat or inner_splat
            elif c == "$":
                expanded, expands_to_many = self._dollar(parts, depth, quoted=False)
                dynamic, splat = dynamic or expanded, splat or expands_to_many
            elif c == "`" and stop != "`":
                self._substitution(parts, depth, "`")
                dynamic = True
            elif c in "<>" and text.startswith("(", self.pos + 1):
                self._substitution(parts, depth, "(", skip=2)
                dynamic = True
            else:
                break
        self.pos = min(self.pos, self.n)
        return Word("".join(parts), start, self.pos, dynamic, splat)

    def _double_quoted(self, parts: list[str], depth: int) -> tuple[bool, bool]:
        """Read up to the closing quote (opening quote already consumed); returns (dynamic, splat)."""
        text, opened_at = self.text, self.pos - 1
        dynamic = splat = False
        while self.pos < self.n:
            c = text[self.pos]
            if c == '"':
                self.pos += 1
                return dynamic, splat
            if c == "\\":
                following = text[self.pos + 1 : self.pos + 2]
                if following == "\n":
                    pass
                elif following in ("$", "`", '"', "\\"):
                    parts.append(following)
                else:
                    parts.append("\\" + following)
                self.pos += 2
            elif c == "$":
                expanded, expands_to_many = self._dollar(parts, depth, quoted=True)
                dynamic, splat = dynamic or expanded, splat or expands_to_many
            elif c == "`":
                self._substitution(parts, depth, "`")
                dynamic = True
            else:
                plain = _QUOTED_PLAIN.match(text, self.pos)
                end = plain.end() if plain else self.pos + 1
                parts.append(text[self.pos : end])
                self.pos = end
        self.unclosed.append((opened_at, 1))
        return dynamic, splat

    def _dollar(self, parts: list[str], depth: int, quoted: bool) -> tuple[bool, bool]:
        """Read one ``$`` construct at pos, keep its raw text; returns (dynamic, splat)."""
        text, start = self.text, self.pos
        following = text[start + 1 : start + 2]
        if text.startswith("$((", start):
            self.pos = self._skip_balanced(start + 1, "(", ")", quoted)
            parts.append(text[start : self.pos])
            return True, False
        if following == "(" or text.startswith("$$(", start):
            if following == "$":  # ``$$(`` is a syntax error in sh; in a Makefile recipe it is an escaped ``$(``
                parts.append("$")
                self.pos += 1
            self._substitution(parts, depth, "(", skip=2)
            return True, not quoted
        if following == "{":
            self.pos = self._skip_balanced(start + 1, "{", "}", quoted)
            parts.append(text[start : self.pos])
            inner = text[start + 2 : self.pos - 1]
            return True, not quoted or bool(_ARRAY_ALL.match(inner))
        if following == "'" and not quoted:
            self.pos += 1
            parts.append(self._ansi_c())
            return False, False
        if following == '"' and not quoted:
            self.pos += 1
            return False, False  # $"..." is a translated string: read on as a double-quoted word
        name = _NAME.match(text, start + 1)
        if name:
            self.pos = name.end()
            parts.append(text[start : self.pos])
            return True, not quoted
        if following and (following.isdigit() or following in "@*#?$!-"):
            self.pos = start + 2
            parts.append(text[start : self.pos])
            return True, following == "@" or (not quoted and (following == "*" or following.isdigit()))
        self.pos += 1
        parts.append("$")
        return False, False

    def _substitution(self, parts: list[str], depth: int, kind: str, skip: int = 1) -> None:
        """A command substitution at pos: its commands are commands too; the word keeps its raw text."""
        start = self.pos
        self.pos += skip
        if depth >= MAX_DEPTH:
            if kind == "(":
                self.pos = self._skip_balanced(start + skip - 1, "(", ")", quoted=False)
            else:
                close = self.text.find("`", self.pos)
                self.pos = self.n if close == -1 else close + 1
                if close == -1:
                    self.unclosed.append((start, skip))
        elif not self.parse_list(")" if kind == "(" else "`", depth + 1):
            self.unclosed.append((start, skip))
        self.pos = min(self.pos, self.n)
        parts.append(self.text[start : self.pos])
