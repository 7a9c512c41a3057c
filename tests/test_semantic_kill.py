"""The embedding projection survives kills (issue 27: "survives kills and rebuilds like the
others"): `knowledge search --mode semantic` is killed at each of its write transactions,
its COMMIT not yet sent, and the next search answers exactly as an uninterrupted one. The last
two transactions are the search text's and the vectors'; the scan's are the kill suite's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import faultkit as fk


@pytest.fixture(scope="module")
def launcher() -> Iterator[fk.Launcher]:
    with fk.Launcher() as started:
        yield started


def answer(run: fk.Run) -> list[tuple[str, int, float]]:
    assert run.returncode == 0, run.stderr
    return [(r["id"], r["semanticRank"], r["score"]) for r in json.loads(run.stdout)["results"]]


def test_a_search_killed_while_embedding_leaves_what_the_next_search_completes(
    launcher: fk.Launcher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, home = tmp_path / "vault", tmp_path / "home"
    fk.make_vault(root, 60, seed=3)
    env = fk.app_env(home)
    for variable, value in env.items():
        if variable.startswith("XDG_"):
            monkeypatch.setenv(variable, value)
    search = fk.cli("search", root, "field survey notes", "--mode", "semantic", "--json")
    calibration = launcher.run(search, env=env, kill_at="count")
    expected = answer(calibration)
    assert expected
    assert calibration.transactions >= 3  # the scan, the search text, the vectors
    for point in (calibration.transactions - 1, calibration.transactions):
        fk.wipe_state(root, home)
        killed = launcher.run(search, env=env, kill_at=f"commit:{point}")
        assert killed.killed, f"commit:{point} never reached: {killed.stderr}"
        assert answer(launcher.run(search, env=env)) == expected, f"after a kill at commit:{point}"
