"""Folders no vault can be (issue 24, item 3): the root of a file system, the home folder and
the folders above it, an empty path. Each is refused by `Vault.open` with one sentence, before
anything is read or written, so the CLI, the API, the MCP server and the window all refuse it.

The home folder is a scratch folder here (`HOME`), so a failing refusal writes only there;
`/` is only opened after `refusal` answers for it, so this module never indexes the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_desktop.api import open_extension
from knowledge_desktop.cli import main
from knowledge_desktop.engine.errors import VaultRefused
from knowledge_desktop.engine.fs.refused import refusal
from knowledge_desktop.engine.vault import Vault
from tests.vaultkit import VaultKit


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder that looks like a vault: a folder of it holds Markdown."""
    folder = tmp_path / "people" / "ada"
    VaultKit(folder).page("notes/a.md", "pg_a", "A")
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_the_root_of_the_file_system_is_refused() -> None:
    assert refusal(Path("/")) is not None
    assert not (Path("/") / ".knowledge").exists()
    with pytest.raises(VaultRefused, match="root of a file system"):
        Vault.open("/")
    assert not (Path("/") / ".knowledge").exists()


def test_a_link_to_the_root_is_the_root(tmp_path: Path) -> None:
    assert refusal(Path("/")) is not None
    (tmp_path / "everything").symlink_to("/")
    with pytest.raises(VaultRefused, match="root of a file system"):
        Vault.open(tmp_path / "everything")


def test_the_home_folder_is_refused_and_nothing_is_written(home: Path) -> None:
    before = sorted(p.name for p in home.iterdir())
    with pytest.raises(VaultRefused, match="home folder"):
        Vault.open(home)
    with pytest.raises(VaultRefused, match="home folder"):
        Vault.open("~")
    assert sorted(p.name for p in home.iterdir()) == before  # no .knowledge/


def test_a_link_to_home_and_a_folder_above_it_are_refused(home: Path, tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(home)
    with pytest.raises(VaultRefused, match="is your home folder"):
        Vault.open(tmp_path / "link")
    with pytest.raises(VaultRefused, match="holds your home folder"):
        Vault.open(home.parent.parent)  # /home, so to speak: it holds a partition with Markdown
    assert not (home.parent.parent / ".knowledge").exists()


def test_a_folder_inside_home_is_a_vault(home: Path) -> None:
    kit = VaultKit(home / "vault")
    kit.page("private/a.md", "pg_a", "A")
    with Vault.open(home / "vault") as vault:
        assert vault.root == (home / "vault").resolve()


def test_an_empty_path_is_refused_not_taken_for_the_working_folder(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.page("private/a.md", "pg_a", "A")
    monkeypatch.chdir(kit.root)
    with pytest.raises(VaultRefused, match="empty path"):
        Vault.open("")
    assert not (kit.root / ".knowledge").exists()


def test_the_api_refuses_as_the_engine_does(home: Path) -> None:
    with pytest.raises(VaultRefused):
        open_extension(home, "anything")


@pytest.mark.parametrize(
    "argv",
    [
        ["scan", "{home}"],
        ["records", "~"],
        ["grep", "{home}", "x"],
        ["show", "{home}", "etc/passwd"],
        ["scan", ""],
        ["mcp", "{home}", "--extension", "x"],
    ],
)
def test_the_cli_refuses_with_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(home)  # `''` would otherwise be this folder (it looks like a vault)
    assert main([a.replace("{home}", str(home)) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("knowledge: ")
    assert err.count("\n") == 1
    assert not (home / ".knowledge").exists()


def test_the_cli_refuses_the_root(capsys: pytest.CaptureFixture[str]) -> None:
    assert refusal(Path("/")) is not None  # never let main's code index the machine
    for argv in (["scan", "/"], ["records", "/"], ["grep", "/", "x"], ["show", "/", "etc/passwd"]):
        assert main(argv) == 2
        assert "root of a file system" in capsys.readouterr().err
    assert not (Path("/") / ".knowledge").exists()
