"""Random argument values for every `knowledge` subcommand: an exit code the CLI documents,
never a traceback (issue 24, item 4).

The subcommands are read from the parser itself, so a command added later is thrown values
too. Each runs in this process (`cli.main`) on a copy of one small vault scanned once, with
the working folder a scratch folder (a relative path names nothing of the repository) and an
empty stdin (`--from -`). `mcp` is left out: it serves a client on stdin until it closes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge_desktop.cli import build_parser, main
from knowledge_desktop.engine.fs.refused import refusal
from tests.vaultkit import VaultKit

DOCUMENTED_EXITS = {0, 2, 3, 4, 5, 6}
LEFT_OUT = {("mcp",)}
"""Serves MCP on stdin until the client goes: not a command that answers and exits."""

AWKWARD = [
    "99999999999999999999",
    "99999999999999999999999",
    "9223372036854775808",
    "-1",
    "-99999999999999999999",
    "0",
    "1",
    "50",
    "1001",
    " 7 ",
    "1_000",
    "²",
    "0x10",
    "1e9",
    "nan",
    "",
    "/",
    "-",
    "now",
    "9999-12-31",
    "0000-00-00",
    "0001-01-01",
    "0999-12-31",
    "1000-01-01",
    "9998-12-31",
    "9998-12-31T23:59:59-12:00",
    "1000-01-01T00:00:00+14:00",
    "2026-02-30",
    "2026-09-28T18:30:00.000Z",
    "+12026-01-01",
    "pg_ada",
    "cl_1",
    "private",
    "private/people/ada.md",
    "pg_ada:1:deadbeef",
    "UTC",
    "Mars/Olympus",
    "日本語",
    "\u202eevil",
    "a\nb",
    "../../etc/passwd",
]
text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=24)
value = st.one_of(st.sampled_from(AWKWARD), text, st.integers().map(str))


def _commands() -> list[tuple[tuple[str, ...], list[argparse.ArgumentParser]]]:
    """Every leaf subcommand: its words, and the parsers from the first word to the last."""
    found: list[tuple[tuple[str, ...], list[argparse.ArgumentParser]]] = []

    def visit(
        parser: argparse.ArgumentParser, words: tuple[str, ...], chain: list[argparse.ArgumentParser]
    ) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found.append((words, chain))
            return
        for name, child in subs[0].choices.items():
            visit(child, (*words, name), [*chain, child])

    visit(build_parser(), (), [])
    return [(words, chain) for words, chain in found if words not in LEFT_OUT]


COMMANDS = _commands()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small vault with a page, a claim, a relationship, a note and a broken file, scanned once."""
    kit = VaultKit(tmp_path_factory.mktemp("fuzz") / "vault")
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person", body="Met [[Bob]].\n")
    kit.page("private/companies/acme.md", "pg_acme", "Acme", type="company", occurred_at="2026-09-28")
    kit.claim("private/claims/c.md", "cl_1", "Ada likes tea", entities=["pg_ada"])
    kit.relationship("private/relationships/r.md", "rl_1", "pg_ada", "pg_acme", "works_at")
    kit.write("private/notes/plain.md", "# A plain note\n")
    kit.write("private/notes/bad.md", "---\ntitle: [oops\n---\n")
    kit.scan()
    kit.close()
    return kit.root


def _argv(
    draw: st.DrawFn, words: tuple[str, ...], chain: list[argparse.ArgumentParser], vault: str
) -> list[str]:
    argv: list[str] = []
    for word, parser in zip(words, chain, strict=True):
        argv.append(word)
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            argv += _drawn(draw, action, vault)
    return argv


def _drawn(draw: st.DrawFn, action: argparse.Action, vault: str) -> list[str]:
    """Values for one argument: the vault copy (mostly) for a vault, else anything."""
    if action.dest in ("vault", "repo"):
        paths = [vault, vault, vault, "", "missing", str(Path(vault) / "private")]
        if action.dest == "vault":
            paths.append("/")  # refused before anything is read (engine/fs/refused.py)
        one = st.sampled_from(paths)
    elif action.choices:  # mostly a valid choice, so the run goes on to the other values
        valid = st.sampled_from(list(action.choices))
        one = st.one_of(valid, valid, valid, value)
    else:
        one = value
    if not action.option_strings:
        many = action.nargs in ("+", "*")
        return draw(st.lists(one, min_size=1, max_size=3)) if many else [draw(one)]
    if not action.required and draw(st.integers(0, 2)) > 0:  # each option in one run of three
        return []
    flag = draw(st.sampled_from(action.option_strings))
    if action.nargs == 0:
        return [flag]
    if action.nargs in ("+", "*"):
        return [flag, *draw(st.lists(one, min_size=1, max_size=2))]
    return [flag, draw(one)]


@contextlib.contextmanager
def _isolated(folder: Path) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """The working folder, stdin (empty), stdout and stderr of one run."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
    try:
        with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        sys.stdin = stdin


def test_the_refusal_of_the_root_is_in_place() -> None:
    """This module passes `/` as a vault: safe only while the engine refuses it."""
    assert refusal(Path("/")) is not None


EXPLORE = os.environ.get("KNOWLEDGE_FUZZ_EXAMPLES")
"""Unset (the default suite): the same 25 examples per command every run, so CI never fails
on an example no one can replay. Set to N: N fresh random examples per command, to look
for new failures (hypothesis prints the failing arguments)."""
EXAMPLES = int(EXPLORE) if EXPLORE else 25


@pytest.mark.parametrize(("words", "chain"), COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_random_arguments_exit_as_documented(
    words: tuple[str, ...], chain: list[argparse.ArgumentParser], scanned: Path, tmp_path: Path
) -> None:
    assert refusal(Path("/")) is not None  # never let this run index the machine
    vault = tmp_path / "vault"
    shutil.copytree(scanned, vault)
    scratch = tmp_path / "cwd"
    scratch.mkdir()

    @settings(
        max_examples=EXAMPLES,
        derandomize=EXPLORE is None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        database=None,
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        argv = data.draw(st.composite(lambda draw: _argv(draw, words, chain, str(vault)))())
        with _isolated(scratch) as (out, err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 2
        shown = out.getvalue() + err.getvalue()
        assert code in DOCUMENTED_EXITS, (argv, code, shown[-2000:])
        assert "Traceback" not in shown, (argv, shown[-2000:])

    run()
    assert not (Path(os.sep) / ".knowledge").exists()
