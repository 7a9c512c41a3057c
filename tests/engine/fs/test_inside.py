"""Reading a written path without leaving the vault (`engine/fs/inside.py`, issue 13 §2)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from knowledge_desktop.engine.fs.inside import LeavesVault, NotRegularFile, read_inside


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "private/notes").mkdir(parents=True)
    (root / "private/notes/a.md").write_text("inside\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret.txt").write_text("secret\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "rel",
    ["../outside/secret.txt", "private/../../outside/secret.txt", "/etc/hostname", "", "\\\\server\\share"],
)
def test_paths_that_climb_out_or_are_absolute_are_refused(vault: Path, rel: str) -> None:
    """A path with `..` out of the vault, an absolute or an empty one is refused unread."""
    with pytest.raises(LeavesVault):
        read_inside(vault, rel)


def test_links_out_of_the_vault_are_refused_whether_file_or_folder(vault: Path) -> None:
    """A linked file, or any file under a linked folder, whose real place is outside."""
    outside = vault.parent / "outside"
    os.symlink(outside / "secret.txt", vault / "private/secret.txt")
    os.symlink(outside, vault / "private/linked")
    for rel in ("private/secret.txt", "private/linked/secret.txt"):
        with pytest.raises(LeavesVault) as info:
            read_inside(vault, rel)
        assert "outside the vault" in str(info.value.strerror)


def test_links_that_stay_inside_are_read(vault: Path) -> None:
    """A link from one place in the vault to another is an ordinary vault file."""
    os.symlink(vault / "private/notes/a.md", vault / "private/alias.md")
    assert read_inside(vault, "private/alias.md") == b"inside\n"
    assert read_inside(vault, "private/notes/../notes/a.md") == b"inside\n"


def test_a_fifo_is_refused_without_blocking(vault: Path) -> None:
    """A FIFO inside the vault (or a link to one) is not a file: refused at once, where a
    plain open would wait for a writer forever."""
    fifo = vault / "private/pipe.md"
    os.mkfifo(fifo)
    outcome: list[BaseException | bytes] = []

    def read() -> None:
        try:
            outcome.append(read_inside(vault, "private/pipe.md"))
        except OSError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(5)
    finished = not reader.is_alive()
    if not finished:  # release a reader stuck in open(), so the test ends either way
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
    assert finished
    assert isinstance(outcome[0], NotRegularFile)


def test_folders_are_not_files_and_limits_hold(vault: Path) -> None:
    with pytest.raises(NotRegularFile):
        read_inside(vault, "private/notes")
    with pytest.raises(OSError, match="larger than"):
        read_inside(vault, "private/notes/a.md", limit=3)
    with pytest.raises(FileNotFoundError):
        read_inside(vault, "private/notes/missing.md")
