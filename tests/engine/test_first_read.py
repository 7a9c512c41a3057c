"""A server's first answer (issue 28 §3, start to first answer): after opening an unchanged
vault the first question about the partitions (`Reconciler.ontologies`) is answered without
loading every file's row, which took 0.4 s of a 10k vault's first grep; and what starting
made is frozen out of the garbage collector's full passes."""

from __future__ import annotations

import gc
import io
import sys
from typing import Any

import pytest

from knowledge_desktop import mcp_server
from knowledge_desktop.engine.vault import Vault
from tests.engine.api.test_visibility import agent_vault
from tests.vaultkit import VaultKit


def test_the_first_read_of_an_unchanged_vault_loads_no_file_rows(kit: VaultKit) -> None:
    kit.page("private/people/ada.md", "pg_ada", "Ada", type="person")
    kit.page("work/people/bo.md", "pg_bo", "Bo", type="person")
    kit.scan()
    kit.close()
    with Vault.open(kit.root) as vault:
        vault.reconcile()  # nothing changed since the scan
        assert set(vault.reconciler.ontologies()) == {"private", "work"}
        assert vault.reconciler._known_files is None  # every file's row, loaded on first use
        # a partition made afterwards is still found
        kit.page("home/people/cy.md", "pg_cy", "Cy", type="person")
        vault.reconcile()
        assert set(vault.reconciler.ontologies()) == {"private", "work", "home"}


def test_the_server_freezes_what_starting_made_before_it_serves(
    kit: VaultKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full collection walking every object made while starting cost the first call a
    quarter of a second (bench/RESULTS.md); the server hands them to `gc.freeze` once, after
    opening the vault and before reading its first request."""
    agent_vault(kit)
    kit.close()
    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("open" if opened else "not yet open"))
    opened: list[object] = []
    real_open = mcp_server.open_extension

    def recording_open(*args: Any, **kwargs: Any) -> Any:
        ext = real_open(*args, **kwargs)
        opened.append(ext)
        return ext

    monkeypatch.setattr(mcp_server, "open_extension", recording_open)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))  # the client hangs up at once
    mcp_server.serve(kit.root, "agent")
    assert frozen == ["open"]
