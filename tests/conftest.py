"""Shared test set-up: headless Qt, and builders for small vaults on disk."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp/knowledge-desktop-test-runtime")
os.makedirs(os.environ["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)

from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests.vaultkit import VaultKit  # noqa: E402


@pytest.fixture
def kit(tmp_path: Path) -> Iterator[VaultKit]:
    """A temporary vault folder with helpers to write records and open it."""
    vault_kit = VaultKit(tmp_path / "vault")
    yield vault_kit
    vault_kit.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow (bundle build)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with `python -m pytest --run-slow -m slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
