"""Fixtures the publish-path tests share: two notes, and a publish path that 'dies' at a
named step (`Crash`, as a SIGKILL there would; the kill tests send real ones)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from knowledge_desktop.engine.vault import Vault
from knowledge_desktop.engine.write import publish
from tests.vaultkit import VaultKit

A, B = "private/notes/a.md", "private/notes/b.md"


class Crash(BaseException):
    """Stands in for a SIGKILL at a named step."""


@pytest.fixture
def vault(kit: VaultKit) -> Vault:
    kit.page(A, "pg_a", "Alpha", type="note", body="Alpha body.\n")
    kit.page(B, "pg_b", "Beta", type="note", body="Beta body.\n")
    return kit.scan()


@pytest.fixture
def crash_at() -> Iterator[list[str]]:
    """Names of steps at which the publish path 'dies' (raises Crash)."""
    points: list[str] = []

    def hook(name: str) -> None:
        if name in points:
            raise Crash(name)

    publish.STEP = hook
    yield points
    publish.STEP = None
