from __future__ import annotations

from pathlib import Path

import pytest

from tests.repokit import RepoKit


@pytest.fixture
def rk(tmp_path: Path) -> RepoKit:
    """A temporary documentation repository (files, and commits when a test makes them)."""
    return RepoKit(tmp_path / "repo")
