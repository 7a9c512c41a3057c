"""SIGKILL the `knowledge` CLI or the window alone (not its process group, as `kill -9 PID`
does) at random moments of a cold index: 5 s later nothing it started is left running —
no parse worker, no forkserver, no resource tracker — and a caller reading its stdout and
stderr pipes gets their end (ARCHITECTURE.md: every process we start dies with us;
docs/decisions.md, "Helper processes die with us").

Each command runs with a marker in its environment (`faultkit.MARK`), which everything it
starts inherits; `faultkit.marked` finds those processes by it even once they have lost
their parent. A kill comes at a random delay after one of three moments: the start, the
first helper process, the first parse worker. The delays are drawn from a seed printed
in every failure (`FAULTKIT_SEED=N` replays one). Linux only: it reads /proc.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from knowledge_desktop.engine import reconcile
from tests import faultkit as fk

# Environment-bound: orphans have lost their parent link, so they are found by a mark in
# their environment, which only Linux's /proc shows (the project's machines and CI are Linux).
pytestmark = pytest.mark.skipif(
    not Path("/proc/self/environ").exists(), reason="finds orphans through /proc/<pid>/environ (Linux)"
)

SEED = int(os.environ.get("FAULTKIT_SEED") or random.SystemRandom().randrange(10**6))
RECORDS = 2000
"""Enough files that a cold scan parses them in worker processes."""
GRACE = 5.0
"""How long after the kill what it started may take to end."""
TRIES = 3
"""A command that ended before its kill (or before the moment aimed at) is run again."""
_serial = itertools.count()


@dataclass
class Kill:
    stage: str
    delay: float
    helpers: dict[int, int] = field(default_factory=dict)
    """What the command had started when it was killed: pid → parent pid."""
    survivors: dict[int, str] = field(default_factory=dict)
    """What still ran `GRACE` seconds after the kill: pid → command line."""

    def workers(self) -> int:
        """Parse workers among `helpers`: children of a helper (the forkserver)."""
        return sum(1 for parent in self.helpers.values() if parent in self.helpers)


@pytest.fixture(scope="module")
def launcher() -> Iterator[fk.Launcher]:
    with fk.Launcher() as started:
        yield started


@pytest.fixture
def vault(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    assert RECORDS >= reconcile.PARALLEL_THRESHOLD  # or the scan would never start a worker
    root, home = tmp_path / "vault", tmp_path / "home"
    fk.make_vault(root, RECORDS, seed=3, body_max=400)
    return root, home, fk.app_env(home)


def helpers_of(mark: str, top: int) -> dict[int, int]:
    found = fk.marked(mark)
    found.pop(top, None)
    return found


def reached(stage: str, mark: str, top: int, log: Path | None) -> bool:
    """Whether the command got to `stage`: "start", "helper" (some process of its own),
    "workers" (a parse worker) or "indexed" (the window logged its first scan)."""
    if stage == "start":
        return True
    if stage == "indexed":
        return log is not None and log.exists() and "private/" in log.read_text("utf-8")
    helpers = helpers_of(mark, top)
    if stage == "helper":
        return bool(helpers)
    return any(parent in helpers for parent in helpers.values())


def kill_at(
    launcher: fk.Launcher,
    argv: list[str],
    env: dict[str, str],
    stage: str,
    rng: random.Random,
    log: Path | None = None,
) -> Kill | None:
    """Start `argv`, kill it alone a random moment after `stage`; None if it ended first."""
    mark = f"orphans-{SEED}-{os.getpid()}-{next(_serial)}"
    running = launcher.start(argv, env={**env, fk.MARK: mark})
    top = running.pid
    kill = Kill(stage, rng.uniform(0.0, 1.0) if stage == "start" else rng.uniform(0.0, 0.4))
    deadline = time.monotonic() + 60
    while not reached(stage, mark, top, log):
        if not alive(top) or time.monotonic() > deadline:
            break  # it exited (or never got there): no kill to check
        time.sleep(0.02)
    else:
        time.sleep(kill.delay)
        kill.helpers = helpers_of(mark, top)
        if alive(top):
            running.kill(group=False)
    killed_at = time.monotonic()
    left = helpers_of(mark, top)
    while left and time.monotonic() < killed_at + GRACE:
        time.sleep(0.05)
        left = helpers_of(mark, top)
    kill.survivors = {pid: command_line(pid) for pid in left}
    for pid in left:  # leave nothing to the next test, whatever the verdict
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    run = running.wait()
    return kill if run.killed else None


def alive(pid: int) -> bool:
    """Whether `pid` runs (a command forked by the launcher changed its environment after
    it started, which /proc does not show, so `fk.marked` cannot tell)."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:160]
    except OSError:
        return "?"


def kill_in_stages(
    launcher: fk.Launcher,
    argv: list[str],
    env: dict[str, str],
    stages: list[str],
    vault: tuple[Path, Path],
    log: Path | None = None,
) -> list[Kill]:
    rng = random.Random(SEED)
    kills: list[Kill] = []
    for stage in stages:
        for _ in range(TRIES):
            fk.wipe_state(*vault)  # a cold index again, so the scan starts its workers
            if log is not None:
                log.unlink(missing_ok=True)
            kill = kill_at(launcher, argv, env, stage, rng, log)
            if kill is not None and (stage not in ("workers", "indexed") or kill.workers()):
                kills.append(kill)
                break
        else:
            pytest.fail(f"seed {SEED}: never killed at stage {stage!r} in {TRIES} tries")
    return kills


def verdict(kills: list[Kill]) -> None:
    print(f"{len(kills)} kills (seed {SEED}); helpers at each kill:", [len(k.helpers) for k in kills])
    assert any(k.workers() for k in kills)
    left = [k for k in kills if k.survivors]
    assert not left, f"seed {SEED}: processes outlived their killed parent by {GRACE} s: {left}"


def test_a_killed_scan_leaves_nothing_running(
    launcher: fk.Launcher, vault: tuple[Path, Path, dict[str, str]]
) -> None:
    """`knowledge scan`, killed before, while and after it starts its worker processes."""
    root, home, env = vault
    stages = ["start", "helper", "workers", "workers", "start"]
    verdict(kill_in_stages(launcher, fk.cli("scan", root), env, stages, (root, home)))


def test_a_killed_window_leaves_nothing_running(
    launcher: fk.Launcher, vault: tuple[Path, Path, dict[str, str]]
) -> None:
    """The window, killed while its first index parses in workers, and once it is done
    (its workers stay up for the next burst of edits)."""
    root, home, env = vault
    log = home / "events.jsonl"
    argv = fk.window(root, event_log=log)
    verdict(kill_in_stages(launcher, argv, env, ["helper", "workers", "indexed"], (root, home), log))


def test_a_killed_scan_closes_its_callers_pipes(vault: tuple[Path, Path, dict[str, str]]) -> None:
    """`subprocess.run(..., capture_output=True)` of a `knowledge scan` killed while its
    workers parse returns within `GRACE` seconds: nothing it started holds the pipes."""
    root, _, env = vault
    mark = f"orphans-pipes-{SEED}-{os.getpid()}"
    child = subprocess.Popen(
        [sys.executable, "-m", "knowledge_desktop.cli", "scan", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env, fk.MARK: mark},
        cwd=fk.REPO,
    )
    try:
        deadline = time.monotonic() + 60
        while not reached("workers", mark, child.pid, None):
            assert child.poll() is None, "the scan ended before it started its workers"
            assert time.monotonic() < deadline, "the scan never started its workers"
            time.sleep(0.02)
        child.kill()
        try:
            child.communicate(timeout=GRACE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the pipes were still open {GRACE} s after the kill: {helpers_of(mark, child.pid)}")
    finally:
        for pid in helpers_of(mark, child.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        child.kill()
        child.communicate()
